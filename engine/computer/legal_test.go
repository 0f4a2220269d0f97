package computer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// tableWithBid starts a two-seat (three in endurance) game of the preset in
// which the first seat has bid (q, f); the second seat is to act. Where the
// preset does not open on f (perudo's ones), the first seat opens one 2
// and the second raises to (q, f): the seats come back in the order bidder,
// seat to act.
func tableWithBid(t *testing.T, rules string, dice, q, f int) (*engine.Table, []string) {
	t.Helper()
	p := engine.Presets[rules]
	var seats []string
	for i := range p.MinSeats {
		seats = append(seats, fmt.Sprintf("s%d", i+1))
	}
	a := engine.Action{Type: engine.ActNewGame, Rules: rules, Seats: seats, First: seats[0]}
	if p.FixedDice == 0 {
		a.Options.Dice = &dice
	}
	tb := engine.NewTable()
	if _, err := tb.Apply(a); err != nil {
		t.Fatalf("%s: new_game: %v", rules, err)
	}
	if !p.Opens(false, f) {
		if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: seats[0], Quantity: 1, Face: 2}); err != nil {
			t.Fatalf("%s: opening bid: %v", rules, err)
		}
		if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: seats[1], Quantity: q, Face: f}); err != nil {
			t.Fatalf("%s: bid %d of %d: %v", rules, q, f, err)
		}
		return tb, []string{seats[1], seats[0]}
	}
	if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: seats[0], Quantity: q, Face: f}); err != nil {
		t.Fatalf("%s: opening bid %d of %d: %v", rules, q, f, err)
	}
	return tb, seats
}

// TestRaisesMatchEngine pins Raises, this package's copy of the engine's
// raise rules, to the engine: for every standing bid and every candidate,
// Raises says yes exactly when Table.Apply accepts the candidate.
func TestRaisesMatchEngine(t *testing.T) {
	for _, rules := range engine.PresetNames() {
		p := engine.Presets[rules]
		t.Run(rules, func(t *testing.T) {
			const dice = 4
			tb, _ := tableWithBid(t, rules, dice, 1, 2)
			inPlay, sides := 0, tb.Snapshot().Sides
			for _, n := range tb.DiceInPlay() {
				inPlay += n
			}
			for q0 := 1; q0 <= inPlay; q0++ {
				for f0 := 1; f0 <= sides; f0++ {
					tb, seats := tableWithBid(t, rules, dice, q0, f0)
					for q := 1; q <= inPlay; q++ {
						for f := 1; f <= sides; f++ {
							want := p.RaisesIn(false, q0, f0, q, f)
							_, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: seats[1], Quantity: q, Face: f})
							var rej *engine.Rejection
							switch {
							case want && err != nil:
								t.Fatalf("after %d of %d, %d of %d: engine refused (%v); Raises says it raises", q0, f0, q, f, err)
							case !want && err == nil:
								t.Fatalf("after %d of %d, %d of %d: engine accepted; Raises says it does not raise", q0, f0, q, f)
							case !want && (!errors.As(err, &rej) || rej.Reason != engine.BidNotHigher):
								t.Fatalf("after %d of %d, %d of %d: engine refused with %v; want bid_not_higher", q0, f0, q, f, err)
							}
							if err == nil {
								tb, _ = tableWithBid(t, rules, dice, q0, f0)
							}
						}
					}
				}
			}
		})
	}
}

func TestTrackSpace(t *testing.T) {
	// RULINGS.md: number 1, 2, star 1, number 3, 4, star 2, 5, 6, star 3.
	order := [][2]int{{1, 2}, {2, 2}, {1, 1}, {3, 2}, {4, 2}, {2, 1}, {5, 2}, {6, 2}, {3, 1}}
	for i, b := range order {
		if got := engine.TrackSpace(b[0], b[1]); got != i {
			t.Errorf("TrackSpace(%d, %d) = %d; want %d", b[0], b[1], got, i)
		}
	}
	// The examples of RULINGS.md.
	examples := []struct {
		fromQ, fromF, q, f int
		want               bool
	}{
		{8, 5, 4, 1, true},
		{8, 5, 3, 1, false},
		{4, 1, 9, 2, true},
		{4, 1, 8, 6, false},
		{4, 6, 2, 1, true},
	}
	for _, e := range examples {
		if got := engine.RaiseTrack.Raises(e.fromQ, e.fromF, e.q, e.f); got != e.want {
			t.Errorf("Raises(track, %d of %d -> %d of %d) = %v; want %v", e.fromQ, e.fromF, e.q, e.f, got, e.want)
		}
	}
}

// replay applies a record to a new table.
func replay(t *testing.T, record []engine.Action) *engine.Table {
	t.Helper()
	tb := engine.NewTable()
	for i, a := range record {
		if _, err := tb.Apply(a); err != nil {
			t.Fatalf("replay line %d %+v: %v", i+1, a, err)
		}
	}
	return tb
}

// TestLegalAcceptedByEngine takes positions from random games of every
// preset and checks that the engine accepts each action Legal lists there
// (every call, the lowest and highest bids and a few between).
// TestRaisesMatchEngine covers the bids Legal leaves out.
func TestLegalAcceptedByEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rules := range engine.PresetNames() {
		p := engine.Presets[rules]
		for _, seats := range []int{p.MinSeats, min(p.MaxSeats, 4)} {
			positions := 0
			for game := 0; positions < 10; game++ {
				var record []engine.Action
				arena := Arena{Rules: rules, Seats: seats, Seed: 11, Workers: 1,
					Trace: func(_ int, a engine.Action) { record = append(record, a) }}
				if _, err := arena.Game(game, Random{}, Threshold{Below: 0.5}); err != nil {
					t.Fatalf("%s: %v", rules, err)
				}
				for n := 1; n < len(record); n++ {
					tb := replay(t, record[:n])
					s := tb.Snapshot()
					if s.Phase != engine.PhaseBidding || rng.IntN(4) != 0 {
						continue
					}
					positions++
					v := NewView(s, *s.Turn, nil)
					acts := Legal(v)
					if len(acts) == 0 {
						t.Fatalf("%s: no legal action at %+v", rules, s)
					}
					var sample []engine.Action
					for i, a := range acts {
						if a.Type != engine.ActBid || i == 0 || i == len(acts)-1 || rng.IntN(10) == 0 {
							sample = append(sample, a)
						}
					}
					for _, a := range sample {
						if _, err := replay(t, record[:n]).Apply(a); err != nil {
							t.Fatalf("%s: engine refused legal %+v: %v", rules, a, err)
						}
					}
				}
			}
		}
	}
}

func TestLegalOnlyOnTurn(t *testing.T) {
	tb, seats := tableWithBid(t, "common-hand", 5, 2, 3)
	if acts := Legal(NewView(tb.Snapshot(), seats[0], nil)); len(acts) != 0 {
		t.Fatalf("Legal for the seat not to act = %v; want none", acts)
	}
	acts := Legal(NewView(tb.Snapshot(), seats[1], nil))
	calls := 0
	for _, a := range acts {
		if a.Type != engine.ActBid {
			calls++
		}
	}
	if calls != 2 {
		t.Fatalf("common-hand after a bid offers %d calls; want challenge and spot_on", calls)
	}
}

// TestLegalTavernCannotPay checks tavern's choices for a seat that cannot
// pay the stake: all-in when there is a bid, and fold.
func TestLegalTavernCannotPay(t *testing.T) {
	purse := 0
	tb := engine.NewTable()
	if _, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "tavern", Seats: []string{"a", "b"}, First: "a",
		Options: engine.Options{Purse: &purse}}); err != nil {
		t.Fatal(err)
	}
	acts := Legal(NewView(tb.Snapshot(), "a", nil))
	if len(acts) != 1 || acts[0].Type != engine.ActFold {
		t.Fatalf("a seat with no chips and no bid to call: %v; want fold only", acts)
	}
	if _, err := tb.Apply(acts[0]); err != nil {
		t.Fatalf("fold refused: %v", err)
	}
}
