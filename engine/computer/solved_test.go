package computer

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer/duel"
)

func TestEmbeddedSolutions(t *testing.T) {
	for _, r := range []*duel.Rules{duel.CommonHand, duel.Perudo} {
		sols := solutions()[r]
		for start := 1; start <= 2; start++ {
			if sols[start] == nil || sols[start].Start != start || sols[start].Rules != r {
				t.Fatalf("embedded solution of %s with %d dice a seat: missing, or of other rules or dice", r.Name, start)
			}
		}
	}
}

// TestExploitOneDie measures each level by its exact best response in the
// one-die game, as issue 37 did: strong-v1 is beaten every game, strong
// by at most 52%.
func TestExploitOneDie(t *testing.T) {
	for _, c := range []struct {
		level    string
		min, max float64
	}{
		{"strong-v1", 0.999, 1},
		{"threshold", 0.999, 1},
		{"random", 0.9, 0.97},
		{"strong", 0.49, 0.52},
	} {
		s, err := New(c.level)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Exploit(s, "common-hand", 1, 50, 1, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", c.level, err)
		}
		if m := e.Mean(); m < c.min || m > c.max {
			t.Errorf("%s: best response wins %.4f; want %.3f to %.3f", c.level, m, c.min, c.max)
		}
	}
}

// counting is a strategy that counts the decisions the solution covers.
type counting struct {
	Solved
	solved, all *atomic.Int64
}

func (c counting) Choose(v View, rng *rand.Rand) engine.Action {
	c.all.Add(1)
	if c.Solved.solvedMix(v) != nil {
		c.solved.Add(1)
	}
	return c.Solved.Choose(v, rng)
}

// TestSolvedThroughEngine plays two-seat common-hand of one and two dice
// through the engine: the strong level plays the solution at every
// decision, and the engine accepts every action.
func TestSolvedThroughEngine(t *testing.T) {
	for _, dice := range []int{1, 2} {
		var solved, all atomic.Int64
		s := counting{Solved: Strong(), solved: &solved, all: &all}
		a := Arena{Rules: "common-hand", Seats: 2, Seed: 3, Options: engine.Options{Dice: &dice}}
		if _, err := a.Play(100, s, s); err != nil {
			t.Fatalf("%d dice: %v", dice, err)
		}
		if solved.Load() != all.Load() || all.Load() == 0 {
			t.Errorf("%d dice: the solution covered %d of %d decisions; want all", dice, solved.Load(), all.Load())
		}
	}
}

// TestTavernEnds plays three strong seats of tavern (issue 34: they bid in
// a circle, 4x1, 2x6, 3x6, 4x1, ...): no hand repeats a bid, games end, and
// a seat raises the stake on a bid it believes.
func TestTavernEnds(t *testing.T) {
	type key struct {
		game, q, f int
	}
	seen := map[key]bool{}
	raised := 0
	a := Arena{Rules: "tavern", Seats: 3, ASeats: 3, Seed: 1, Workers: 1, Trace: func(g int, act engine.Action) {
		switch act.Type {
		case engine.ActBid:
			k := key{g, act.Quantity, act.Face}
			if seen[k] {
				t.Errorf("game %d: %dx%d bid twice in a hand", g, act.Quantity, act.Face)
			}
			seen[k] = true
			if act.Stake != nil {
				raised++
			}
		case engine.ActReveal, engine.ActFold:
			for k := range seen {
				if k.game == g {
					delete(seen, k)
				}
			}
		}
	}}
	r, err := a.Play(20, Strong(), Strong())
	if err != nil {
		t.Fatal(err)
	}
	if per := float64(r.Actions) / float64(r.Hands); per > 20 {
		t.Errorf("%.1f actions a hand; want a few", per)
	}
	if raised == 0 {
		t.Error("no seat raised the stake in 20 games")
	}
}

// TestDuelStateRefuses checks that views the solution does not cover, or
// that do not add up, fall to the odds player without a panic.
func TestDuelStateRefuses(t *testing.T) {
	good := func() View { return DuelView(duel.CommonHand, duel.Deal{D0: 2, D1: 2}, 1, []int{3, 5}, []int{7}, 2) }
	tests := []struct {
		name string
		edit func(v *View)
		ok   bool
	}{
		{"as built", func(*View) {}, true},
		{"seat not at the table", func(v *View) { v.Seat = "ghost"; v.Snapshot.Turn = &v.Seat }, false},
		{"no bids though one stands", func(v *View) { v.Bids = nil }, false},
		{"bids out of turn", func(v *View) { v.Bids[0].Seat = "responder" }, false},
		{"standing bid not the last", func(v *View) { v.Snapshot.Bid = &engine.BidSeat{Seat: "opener", Quantity: 1, Face: 2} }, false},
		{"a die too many", func(v *View) { v.Dice = []int{3, 5, 6} }, false},
		{"a face off the die", func(v *View) { v.Dice = []int{3, 9} }, false},
		{"five dice at the start", func(v *View) { v.StartDice = 5 }, false},
		{"wild ones", func(v *View) { v.Snapshot.Wild = true }, false},
		{"other rules", func(v *View) { v.Snapshot.Rules = "classic" }, false},
		{"flustered", func(v *View) { v.Flustered = true }, false},
		{"a face above six bid", func(v *View) { v.Bids[0].Face = 7; v.Snapshot.Bid.Face = 7 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := good()
			tt.edit(&v)
			_, _, _, _, _, ok := duelState(v)
			if ok != tt.ok {
				t.Fatalf("got %v; want %v", ok, tt.ok)
			}
			Strong().Choose(v, rand.New(rand.NewPCG(1, 1))) // must not panic
		})
	}
}

// TestBestResponseThroughEngine replays the exact best response through
// the engine (one die a seat, as issue 37 checked it): it wins every game
// against strong-v1, and about what the search says against strong.
func TestBestResponseThroughEngine(t *testing.T) {
	dice := 1
	for _, c := range []struct {
		level string
		games int
	}{{"strong-v1", 300}, {"strong", 3000}} {
		s, err := New(c.level)
		if err != nil {
			t.Fatal(err)
		}
		e, br, err := BestResponder(s, "common-hand", 1, 50, 1, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		a := Arena{Rules: "common-hand", Seats: 2, Seed: 7, Options: engine.Options{Dice: &dice}}
		r, err := a.Play(c.games, br, s)
		if err != nil {
			t.Fatalf("%s: %v", c.level, err)
		}
		t.Logf("%s: the best response won %d of %d games through the engine (search: %.4f)", c.level, r.AWins, r.Games, e.Mean())
		lo, hi := Wilson(r.AWins, r.Games, 3)
		if e.Mean() < lo || e.Mean() > hi {
			t.Errorf("%s: the best response won %d of %d games through the engine; the search says %.4f", c.level, r.AWins, r.Games, e.Mean())
		}
	}
}
