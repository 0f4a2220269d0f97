package computer

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// perudoTable starts a perudo game of three seats with two dice each in
// which A lost the first hand: hand 2 is A's palifico hand, A to open.
func perudoTable(t *testing.T) *engine.Table {
	t.Helper()
	two := 2
	tb := engine.NewTable()
	for _, a := range []engine.Action{
		{Type: engine.ActNewGame, Rules: "perudo", Seats: []string{"A", "B", "C"}, First: "A", Options: engine.Options{Dice: &two}},
		{Type: engine.ActBid, Seat: "A", Quantity: 2, Face: 3},
		{Type: engine.ActChallenge, Seat: "B"},
		{Type: engine.ActReveal, Dice: map[string][]int{"A": {3, 4}, "B": {5, 6}, "C": {2, 2}}},
	} {
		if _, err := tb.Apply(a); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
	}
	return tb
}

// bidFaces returns the faces of the bids among acts, and whether a
// spot-on is among them.
func bidFaces(acts []engine.Action) (faces map[int]bool, spotOn bool) {
	faces = map[int]bool{}
	for _, a := range acts {
		switch a.Type {
		case engine.ActBid:
			faces[a.Face] = true
		case engine.ActSpotOn:
			spotOn = true
		}
	}
	return faces, spotOn
}

// TestPerudoLegal checks the legal actions the computer seats weigh in
// perudo: no opening on ones outside a palifico hand, ones allowed to open
// one, the face locked after a palifico hand's first bid, calza with three
// seats and not with two or with the option off.
func TestPerudoLegal(t *testing.T) {
	tb := engine.NewTable()
	if _, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "perudo", Seats: []string{"A", "B", "C"}, First: "A"}); err != nil {
		t.Fatal(err)
	}
	if faces, _ := bidFaces(Legal(NewView(tb.Snapshot(), "A", nil))); faces[1] || len(faces) != 5 {
		t.Errorf("opening a plain hand: faces %v; want 2 to 6", faces)
	}
	if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 4, Face: 5}); err != nil {
		t.Fatal(err)
	}
	acts := Legal(NewView(tb.Snapshot(), "B", nil))
	if faces, spotOn := bidFaces(acts); !faces[1] || !spotOn {
		t.Errorf("after four 5s with three seats: faces %v, spot-on %v; want ones among the raises and a calza", faces, spotOn)
	}
	for _, a := range acts {
		if a.Type == engine.ActBid && a.Face == 1 && a.Quantity < 2 {
			t.Errorf("after four 5s: %+v listed; a bid on ones needs at least two", a)
		}
	}

	tb = perudoTable(t)
	if faces, _ := bidFaces(Legal(NewView(tb.Snapshot(), "A", nil))); !faces[1] || len(faces) != 6 {
		t.Errorf("opening a palifico hand: faces %v; want 1 to 6", faces)
	}
	if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 1, Face: 4}); err != nil {
		t.Fatal(err)
	}
	acts = Legal(NewView(tb.Snapshot(), "B", nil))
	if faces, spotOn := bidFaces(acts); len(faces) != 1 || !faces[4] || !spotOn {
		t.Errorf("in a palifico hand after one 4: faces %v, spot-on %v; want 4s only and a calza", faces, spotOn)
	}
	for _, a := range acts {
		if _, err := perudoAfter(t, engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 1, Face: 4}).Apply(a); err != nil {
			t.Errorf("engine refused legal %+v: %v", a, err)
		}
	}

	off := false
	tb = engine.NewTable()
	if _, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "perudo", Seats: []string{"A", "B", "C"}, First: "A", Options: engine.Options{Calza: &off}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 4, Face: 5}); err != nil {
		t.Fatal(err)
	}
	if _, spotOn := bidFaces(Legal(NewView(tb.Snapshot(), "B", nil))); spotOn {
		t.Error("calza off: a spot-on is listed")
	}
	tb = engine.NewTable()
	if _, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "perudo", Seats: []string{"A", "B"}, First: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 4, Face: 5}); err != nil {
		t.Fatal(err)
	}
	if _, spotOn := bidFaces(Legal(NewView(tb.Snapshot(), "B", nil))); spotOn {
		t.Error("two seats left: a spot-on is listed")
	}
}

// perudoAfter is perudoTable with the actions applied.
func perudoAfter(t *testing.T, acts ...engine.Action) *engine.Table {
	t.Helper()
	tb := perudoTable(t)
	for _, a := range acts {
		if _, err := tb.Apply(a); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
	}
	return tb
}

// TestPerudoOdds checks the odds a seat computes: its own ones count for a
// bid on another face in a plain hand, not in a palifico hand, and a bid
// on ones counts ones only.
func TestPerudoOdds(t *testing.T) {
	mine := []int{1, 1, 5}
	plain := position("perudo", true, mine, 2, 3, 5)
	if got := Chance(plain, 3, 5, 0); got != 1 {
		t.Errorf("three 5s holding 1, 1, 5 with ones wild: chance %v; want 1", got)
	}
	// Two more 5s among the other seat's two dice, each one with 1/6.
	palifico := plain
	palifico.Snapshot.Wild, palifico.Snapshot.Palifico = false, true
	if got, want := Chance(palifico, 3, 5, 0), 1.0/36; math.Abs(got-want) > 1e-12 {
		t.Errorf("three 5s holding 1, 1, 5 in a palifico hand: chance %v; want %v", got, want)
	}
	// Three ones: the other seat's two dice must hold one more one.
	if got, want := Chance(plain, 3, 1, 0), 1-25.0/36; math.Abs(got-want) > 1e-12 {
		t.Errorf("three ones holding two: chance %v; want %v", got, want)
	}
	// A face with ones wild: each unknown die counts with 1/3.
	if got, want := Chance(plain, 3, 6, 0), 1-(2.0/3)*(2.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("three 6s holding two ones: chance %v; want %v", got, want)
	}
}

// TestPerudoStrongTakesTheSwitch checks the ones arithmetic in the strong
// level's play: holding four ones after "four 5s" of a seat with one die,
// it raises (to ones, or to a face its ones carry), never calls, and in a
// palifico hand, where its ones do not count for 5s, it bids only 5s.
func TestPerudoStrongTakesTheSwitch(t *testing.T) {
	v := position("perudo", true, []int{1, 1, 1, 1, 3}, 1, 4, 5)
	calza := false
	v.Snapshot.Calza = &calza
	for seed := range uint64(50) {
		a := Strong().Choose(v, rand.New(rand.NewPCG(seed, 2)))
		if a.Type != engine.ActBid {
			t.Fatalf("seed %d: strong plays %+v; want a raise", seed, a)
		}
		if !engine.Presets["perudo"].RaisesIn(false, 4, 5, a.Quantity, a.Face) {
			t.Fatalf("seed %d: %+v does not raise four 5s", seed, a)
		}
	}
	v.Snapshot.Wild, v.Snapshot.Palifico = false, true
	for seed := range uint64(50) {
		a := Strong().Choose(v, rand.New(rand.NewPCG(seed, 2)))
		if a.Type == engine.ActBid && a.Face != 5 {
			t.Fatalf("seed %d: strong plays %+v in a palifico hand on 5s", seed, a)
		}
	}
}

// TestPerudoSolvedThroughEngine plays two-seat perudo through the engine:
// with one or two dice a seat the strong level plays the solution at every
// decision; with five, it plays it once both seats are down to two. Two
// seats never play a palifico hand (it needs three) nor a calza, so the
// options change nothing: the solution covers the game with them on or
// off.
func TestPerudoSolvedThroughEngine(t *testing.T) {
	for _, dice := range []int{1, 2, 5} {
		for _, on := range []bool{true, false} {
			var solved, all atomic.Int64
			s := counting{Solved: Strong(), solved: &solved, all: &all}
			a := Arena{Rules: "perudo", Seats: 2, Seed: 3, Options: engine.Options{Dice: &dice, Palifico: &on, Calza: &on}}
			if _, err := a.Play(60, s, s); err != nil {
				t.Fatalf("%d dice: %v", dice, err)
			}
			switch {
			case dice <= 2 && (solved.Load() != all.Load() || all.Load() == 0):
				t.Errorf("%d dice, options %v: the solution covered %d of %d decisions; want all", dice, on, solved.Load(), all.Load())
			case dice == 5 && (solved.Load() == 0 || solved.Load() == all.Load()):
				t.Errorf("%d dice, options %v: the solution covered %d of %d decisions; want the end of the games", dice, on, solved.Load(), all.Load())
			}
		}
	}
}

// TestExploitPerudoOneDie measures the strong level by its exact best
// response in one-die perudo, as issue 47 asks: at most 52%.
func TestExploitPerudoOneDie(t *testing.T) {
	for _, c := range []struct {
		level    string
		min, max float64
	}{
		{"strong-v1", 0.55, 1},
		{"threshold", 0.55, 1},
		{"strong", 0.49, 0.52},
	} {
		s, err := New(c.level)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Exploit(s, "perudo", 1, 50, 1, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", c.level, err)
		}
		if m := e.Mean(); m < c.min || m > c.max {
			t.Errorf("%s: best response wins %.4f; want %.3f to %.3f", c.level, m, c.min, c.max)
		}
	}
}
