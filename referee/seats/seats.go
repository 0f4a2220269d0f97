// Package seats plays seats for the referee: a Player chooses a seat's next
// move from what the seat may know (the table's public state and its own
// dice). Simple is a plain, legal, plausible player for every preset; a
// stronger one can replace it behind the same interface.
package seats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// View is what a seat knows when it is to act.
type View struct {
	// Snapshot is the table's public state.
	Snapshot engine.Snapshot
	// Seat is the seat to play.
	Seat string
	// Dice are the seat's dice, hidden and shown.
	Dice []int
	// Bids are the hand's bids, oldest first; nil when not known (a
	// computer player then reads only the standing bid).
	Bids []engine.BidSeat
}

// Move is one record line a player sends.
type Move struct {
	Type     string `json:"type"`
	Seat     string `json:"seat"`
	Quantity int    `json:"quantity,omitempty"`
	Face     int    `json:"face,omitempty"`
	Stake    *int   `json:"stake,omitempty"`
	Shown    []int  `json:"shown,omitempty"`
}

// Line returns the move as a record line.
func (m Move) Line() []byte {
	b, _ := json.Marshal(m)
	return b
}

// Player chooses moves.
type Player interface {
	// Act returns the seat's move when it is its turn. A star-board bid may
	// be followed by a show (ShowAfter).
	Act(v View) Move
	// ShowAfter returns the dice to show right after the seat's own bid,
	// or nil to show none.
	ShowAfter(v View, bid Move) []int
}

// Simple plays by expectation: it calls a bid that is well above what it
// expects to be on the table, and otherwise makes the raise it finds most
// plausible. Its randomness comes from its own seeded source.
type Simple struct {
	rng *rand.Rand
}

// NewSimple returns a simple player drawing from seed.
func NewSimple(seed uint64) *Simple {
	return &Simple{rng: rand.New(rand.NewPCG(seed, 0x73696d706c65))}
}

// table holds what Act works out from a view.
type table struct {
	v      View
	preset *engine.Preset
	sides  int
	inPlay int // dice in play
	others int // dice in play that are not the seat's
	wild   bool
	star   bool
}

func newTable(v View) table {
	t := table{v: v, preset: engine.Presets[v.Snapshot.Rules], sides: v.Snapshot.Sides,
		wild: v.Snapshot.Wild, star: v.Snapshot.StarDie}
	if t.sides < 2 {
		t.sides = 6
	}
	for _, s := range v.Snapshot.Seats {
		if s.InHand {
			t.inPlay += s.Dice
		}
	}
	t.others = max(t.inPlay-len(v.Dice), 0)
	return t
}

// matches reports whether a die showing x counts for face f.
func (t table) matches(x, f int) bool {
	return x == f || (t.wild && f != 1 && x == 1)
}

// expected is the count of face f the seat expects on the table.
func (t table) expected(f int) float64 {
	mine := 0
	for _, x := range t.v.Dice {
		if t.matches(x, f) {
			mine++
		}
	}
	// Dice others have shown count for sure; their hidden ones by chance.
	shown, shownMatch := 0, 0
	for _, s := range t.v.Snapshot.Seats {
		if s.Name == t.v.Seat || !s.InHand {
			continue
		}
		for _, x := range s.Shown {
			shown++
			if t.matches(x, f) {
				shownMatch++
			}
		}
	}
	p := 1 / float64(t.sides)
	if t.wild && f != 1 {
		p = 2 / float64(t.sides)
	}
	return float64(mine+shownMatch) + float64(max(t.others-shown, 0))*p
}

// raises reports whether (q, f) raises the standing bid under the preset's
// rules (a perudo palifico hand's locked face included).
func (t table) raises(q, f int) bool {
	b := t.v.Snapshot.Bid
	if b == nil {
		return t.preset.Opens(t.v.Snapshot.Palifico, f)
	}
	return t.preset.RaisesIn(t.v.Snapshot.Palifico, b.Quantity, b.Face, q, f)
}

func (t table) chips() (chips, stake int) {
	for _, s := range t.v.Snapshot.Seats {
		if s.Name == t.v.Seat && s.Chips != nil {
			chips = *s.Chips
		}
	}
	if t.v.Snapshot.Stake != nil {
		stake = *t.v.Snapshot.Stake
	}
	return chips, stake
}

// Act chooses the seat's move.
func (p *Simple) Act(v View) Move {
	t := newTable(v)
	me := v.Seat
	bid := v.Snapshot.Bid
	if t.preset == nil {
		return Move{Type: engine.ActChallenge, Seat: me}
	}
	if t.preset.Stakes {
		chips, stake := t.chips()
		if chips < stake || chips == 0 {
			if bid != nil {
				return Move{Type: engine.ActAllIn, Seat: me}
			}
			return Move{Type: engine.ActFold, Seat: me}
		}
	}
	if bid != nil {
		e := t.expected(bid.Face)
		margin := 0.8 + p.rng.Float64()*1.2
		if float64(bid.Quantity) > e+margin {
			return Move{Type: engine.ActChallenge, Seat: me}
		}
		calza := t.v.Snapshot.Calza == nil || *t.v.Snapshot.Calza // perudo's, when allowed
		if t.preset.SpotOn != engine.SpotOnNone && calza && math.Abs(float64(bid.Quantity)-e) < 0.4 && p.rng.Float64() < 0.25 {
			return Move{Type: engine.ActSpotOn, Seat: me}
		}
	}
	if bid == nil {
		// The opening bid: the face the seat holds most of, somewhat below
		// what it expects.
		face, e := t.sides, -1.0
		for f := 1; f <= t.sides; f++ {
			if x := t.expected(f) + p.rng.Float64()*0.5; x > e && t.raises(1, f) {
				face, e = f, x
			}
		}
		q := max(1, min(int(e*0.7), t.inPlay))
		return Move{Type: engine.ActBid, Seat: me, Quantity: q, Face: face}
	}
	best, bestScore := Move{}, math.Inf(-1)
	for f := 1; f <= t.sides; f++ {
		e := t.expected(f)
		for q := 1; q <= t.inPlay; q++ {
			if !t.raises(q, f) {
				continue
			}
			if t.preset.Raise == engine.RaiseEither && q < bid.Quantity {
				// Tavern lets a higher face drop the quantity; bidding
				// fewer dice would let a hand go round for ever.
				continue
			}
			// Plausible (not above what is expected) and modest (not far
			// above the standing bid); a little noise varies the play.
			score := -math.Max(float64(q)-e, 0)*2 - 0.15*float64(q) + p.rng.Float64()*0.6
			if score > bestScore {
				best, bestScore = Move{Type: engine.ActBid, Seat: me, Quantity: q, Face: f}, score
			}
			break // the smallest raise of each face is its most plausible
		}
	}
	if best.Type == "" {
		if bid != nil {
			return Move{Type: engine.ActChallenge, Seat: me}
		}
		return Move{Type: engine.ActBid, Seat: me, Quantity: 1, Face: t.sides}
	}
	if t.preset.Stakes && bid != nil && bestScore < -2.5 && p.rng.Float64() < 0.5 {
		return Move{Type: engine.ActFold, Seat: me}
	}
	return best
}

// ShowAfter shows, now and then, the hidden dice that back the seat's own
// star-board bid, keeping at least one hidden.
func (p *Simple) ShowAfter(v View, bid Move) []int {
	if !v.Snapshot.StarDie || !v.Snapshot.ShowReroll || bid.Type != engine.ActBid || p.rng.Float64() < 0.5 {
		return nil
	}
	var shownAlready []int
	for _, s := range v.Snapshot.Seats {
		if s.Name == v.Seat {
			shownAlready = s.Shown
		}
	}
	hidden := Hidden(v.Dice, shownAlready)
	var show []int
	for _, x := range hidden {
		if (x == bid.Face || x == 1) && len(show)+1 < len(hidden) {
			show = append(show, x)
		}
	}
	if len(show) == 0 {
		return nil
	}
	return show
}

// Hidden returns the dice of all that are not among shown (as multisets),
// in order.
func Hidden(all, shown []int) []int {
	left := slices.Clone(shown)
	var hidden []int
	for _, x := range all {
		if i := slices.Index(left, x); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		hidden = append(hidden, x)
	}
	return hidden
}
