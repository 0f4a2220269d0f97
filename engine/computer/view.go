package computer

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// View is everything a computer seat may know when it decides: the table's
// public snapshot (dice counts and shown dice, never a hidden face), its own
// dice, and whether a bluff check against it succeeded.
type View struct {
	// Snapshot is the table's public state.
	Snapshot engine.Snapshot
	// Seat is the seat that decides.
	Seat string
	// Dice are the seat's own dice, all of them: the hidden ones and, in
	// star-board, the ones it has shown.
	Dice []int
	// Flustered is set after a successful bluff check against the seat: it
	// takes its second-best option on its next turn.
	Flustered bool
	// StartDice is the number of dice each seat started the game with
	// (the snapshot's start_dice); 0 means the preset's default.
	// Common-hand's spot-on gives a die back only below it.
	StartDice int
	// Bids are the hand's bids, oldest first (Table.HandBids), the
	// standing one last. Nil means they are not known: a strategy then
	// reads only the standing bid.
	Bids []engine.BidSeat
}

// NewView builds the view of seat from a public snapshot and the seat's own
// dice, and takes the seat's Flustered mark from the snapshot. It copies
// dice, so the caller may reuse its slice.
func NewView(s engine.Snapshot, seat string, dice []int) View {
	v := View{Snapshot: s, Seat: seat, Dice: slices.Clone(dice), StartDice: s.StartDice}
	if i := v.seatIndex(); i >= 0 {
		v.Flustered = s.Seats[i].Flustered
	}
	return v
}

// ViewOf builds the view of a computer seat at a table that rolls its dice
// (new_game's computer field): the public snapshot and the seat's own
// dice from Table.HiddenDice, nobody else's. For a person's seat the view
// has no dice.
func ViewOf(t *engine.Table, seat string) View {
	v := NewView(t.Snapshot(), seat, t.HiddenDice(seat))
	v.Bids = t.HandBids()
	return v
}

// preset returns the view's preset.
func (v View) preset() (*engine.Preset, error) {
	p, ok := engine.Presets[v.Snapshot.Rules]
	if !ok {
		return nil, fmt.Errorf("computer: no preset %q", v.Snapshot.Rules)
	}
	return p, nil
}

// seatIndex returns the index of the view's seat in the snapshot, or -1.
func (v View) seatIndex() int {
	return slices.IndexFunc(v.Snapshot.Seats, func(s engine.SeatView) bool { return s.Name == v.Seat })
}

// myTurn reports whether the seat is to act in the bidding phase.
func (v View) myTurn() bool {
	s := v.Snapshot
	return s.Phase == engine.PhaseBidding && s.Turn != nil && *s.Turn == v.Seat
}

// diceInPlay counts every die of every seat in the hand.
func (v View) diceInPlay() int {
	n := 0
	for _, st := range v.Snapshot.Seats {
		if st.InHand {
			n += st.Dice
		}
	}
	return n
}

// seatsInHand counts the seats whose dice are in play.
func (v View) seatsInHand() int {
	n := 0
	for _, st := range v.Snapshot.Seats {
		if st.InHand {
			n++
		}
	}
	return n
}

// nextInHand returns the index of the first seat clockwise after seat i
// whose dice are in play, or -1.
func (v View) nextInHand(i int) int {
	seats := v.Snapshot.Seats
	for k := 1; k < len(seats); k++ {
		j := (i + k) % len(seats)
		if seats[j].InHand {
			return j
		}
	}
	return -1
}

// hiddenOf returns the number of seat i's dice that are not shown.
func (v View) hiddenOf(i int) int {
	st := v.Snapshot.Seats[i]
	return max(0, st.Dice-len(st.Shown))
}

// myHidden returns the seat's own dice that it has not shown.
func (v View) myHidden() []int {
	i := v.seatIndex()
	if i < 0 {
		return nil
	}
	return without(v.Dice, v.Snapshot.Seats[i].Shown)
}

// without returns faces with the dice of sub taken out (as multisets).
func without(faces, sub []int) []int {
	out := slices.Clone(faces)
	for _, f := range sub {
		if j := slices.Index(out, f); j >= 0 {
			out = slices.Delete(out, j, j+1)
		}
	}
	return out
}

// Rand returns the source of a computer seat's choices in a game: seeded by
// the game's seed and the seat's name, so that a seeded game replays the
// same choices, and apart from the engine's own draws (dice, openers).
func Rand(seed int64, seat string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(seat))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}
