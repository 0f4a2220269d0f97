package engine_test

// Tests written from RULINGS.md's perudo section, ruling by ruling.

import (
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// TestPerudoRaises: every raise rule of perudo, with RULINGS.md's
// examples, in a plain hand and in a palifico hand.
func TestPerudoRaises(t *testing.T) {
	cases := []struct {
		palifico     bool
		fromQ, fromF int
		q, f         int
		want         bool
	}{
		// A face 2..6 to another: a higher quantity of any face, or the
		// same quantity of a higher face.
		{false, 2, 3, 2, 4, true},
		{false, 2, 3, 3, 2, true},
		{false, 2, 3, 2, 3, false},
		{false, 2, 3, 2, 2, false},
		{false, 4, 6, 3, 6, false},
		// A face 2..6 to ones: at least ceil(q/2) ones.
		{false, 7, 5, 4, 1, true}, // after seven 5s, four ones
		{false, 7, 5, 3, 1, false},
		{false, 8, 5, 4, 1, true},
		{false, 8, 5, 3, 1, false},
		{false, 1, 6, 1, 1, true},
		{false, 1, 2, 1, 1, true},
		{false, 2, 2, 1, 1, true},
		{false, 3, 2, 2, 1, true},
		{false, 5, 2, 2, 1, false},
		{false, 5, 2, 3, 1, true},
		// Ones to ones: a higher quantity.
		{false, 3, 1, 4, 1, true},
		{false, 3, 1, 3, 1, false},
		{false, 3, 1, 2, 1, false},
		// Ones to a face 2..6: at least 2q+1 of any face.
		{false, 3, 1, 7, 2, true}, // after three ones, seven of any face
		{false, 3, 1, 7, 6, true},
		{false, 3, 1, 6, 6, false},
		{false, 1, 1, 3, 2, true},
		{false, 1, 1, 2, 6, false},
		// A palifico hand: the face is locked, only the quantity rises.
		{true, 3, 4, 4, 4, true},
		{true, 3, 4, 3, 5, false},
		{true, 3, 4, 4, 5, false},
		{true, 3, 4, 9, 2, false},
		{true, 3, 4, 2, 1, false},
		{true, 3, 4, 3, 4, false},
		{true, 3, 1, 4, 1, true},
		{true, 3, 1, 7, 2, false},
	}
	p := engine.Presets["perudo"]
	for _, c := range cases {
		if got := p.RaisesIn(c.palifico, c.fromQ, c.fromF, c.q, c.f); got != c.want {
			t.Errorf("palifico %v: (%d, %d) after (%d, %d) raises: got %v; want %v", c.palifico, c.q, c.f, c.fromQ, c.fromF, got, c.want)
		}
	}
}

// TestPerudoRaisesArithmetic checks perudo's raise rule (the star-board
// track with ones as the star) against RULINGS.md's arithmetic, written
// out, for every pair of bids up to 40 dice.
func TestPerudoRaisesArithmetic(t *testing.T) {
	literal := func(fromQ, fromF, q, f int) bool {
		switch {
		case fromF != 1 && f != 1:
			return q > fromQ || (q == fromQ && f > fromF)
		case fromF != 1: // to ones
			return q >= (fromQ+1)/2
		case f == 1: // ones to ones
			return q > fromQ
		}
		return q >= 2*fromQ+1 // off ones
	}
	p := engine.Presets["perudo"]
	for fromQ := 1; fromQ <= 40; fromQ++ {
		for fromF := 1; fromF <= 6; fromF++ {
			for q := 1; q <= 40; q++ {
				for f := 1; f <= 6; f++ {
					if got, want := p.RaisesIn(false, fromQ, fromF, q, f), literal(fromQ, fromF, q, f); got != want {
						t.Fatalf("(%d, %d) after (%d, %d): got %v; want %v", q, f, fromQ, fromF, got, want)
					}
				}
			}
		}
	}
}

// TestPerudoOpens: the first bid of a hand may not be on ones, except in a
// palifico hand; the other presets open on any face.
func TestPerudoOpens(t *testing.T) {
	for _, name := range engine.PresetNames() {
		p := engine.Presets[name]
		for f := 1; f <= 6; f++ {
			want := !(name == "perudo" && f == 1)
			if got := p.Opens(false, f); got != want {
				t.Errorf("%s: opens on %d outside palifico: got %v; want %v", name, f, got, want)
			}
			if got := p.Opens(true, f); !got {
				t.Errorf("%s: opens on %d in a palifico hand: got false; want true", name, f)
			}
		}
	}
}

func TestPerudoRulings(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "ones wild; the first bid not on ones; raises to and from ones",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":1}
{"type":"bid","seat":"A","quantity":7,"face":5}
{"type":"bid","seat":"B","quantity":3,"face":1}
{"type":"bid","seat":"B","quantity":4,"face":1}
{"type":"bid","seat":"C","quantity":8,"face":6}
{"type":"bid","seat":"C","quantity":4,"face":1}
{"type":"bid","seat":"C","quantity":9,"face":2}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2,2,1,1,5],"B":[2,2,2,1,6],"C":[2,3,4,5,6]}}`,
		want: `{"type":"hand_started","game":1,"hand":1,"opener":"A","dice":{"A":5,"B":5,"C":5},"palifico":false}
{"type":"rejected","line":2,"reason":"bad_bid"}
{"type":"rejected","line":4,"reason":"bid_not_higher","message":"three ones does not raise seven 5s: after seven 5s a bid on ones needs at least 4 (half, rounded up)"}
{"type":"rejected","line":6,"reason":"bid_not_higher","message":"eight 6s does not raise four ones: after four ones a bid on another face needs at least 9 (twice, plus one)"}
{"type":"rejected","line":7,"reason":"bid_not_higher"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"C","caller":"A","bid":{"quantity":9,"face":2},"count":9,"dice":{"A":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":5,"C":5},"palifico":false}`,
	}, {
		name: "after three ones, seven of any face; a bid on ones counts ones only",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":5}
{"type":"bid","seat":"B","quantity":3,"face":1}
{"type":"bid","seat":"C","quantity":6,"face":6}
{"type":"bid","seat":"C","quantity":7,"face":2}
{"type":"bid","seat":"A","quantity":4,"face":1}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,1,2,2,2],"B":[1,3,3,3,3],"C":[2,2,2,2,2]}}`,
		want: `{"type":"hand_started","opener":"A"}
{"type":"rejected","line":4,"reason":"bid_not_higher"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","bid":{"quantity":4,"face":1},"count":3,"dice":{"A":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":5,"C":5},"palifico":false}`,
	}, {
		name: "calza: right gains a die below the start, right at the start gains none, wrong loses one; the caller opens after a right one",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A","options":{"dice":3}}
{"type":"bid","seat":"A","quantity":2,"face":4}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[4,2,2],"B":[1,3,3],"C":[2,2,2]}}
{"type":"bid","seat":"B","quantity":2,"face":3}
{"type":"spot_on","seat":"C"}
{"type":"reveal","dice":{"A":[4,2,2],"B":[1,3,3],"C":[2,2,2]}}
{"type":"bid","seat":"C","quantity":2,"face":2}
{"type":"spot_on","seat":"A"}
{"type":"reveal","dice":{"A":[4,2,2],"B":[1,3,3],"C":[2,2]}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"bid","seat":"C","quantity":2,"face":6}
{"type":"spot_on","seat":"A"}
{"type":"reveal","dice":{"A":[5,2],"B":[1,3,3],"C":[6,2]}}`,
		want: `{"type":"hand_started","opener":"A","dice":{"A":3,"B":3,"C":3}}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"A","caller":"B","count":2,"dice":{},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":3,"B":3,"C":3},"palifico":false}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"B","caller":"C","count":3,"dice":{"C":-1},"out":[]}
{"type":"hand_started","hand":3,"opener":"C","dice":{"A":3,"B":3,"C":2},"palifico":false}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"C","caller":"A","count":5,"dice":{"A":-1},"out":[]}
{"type":"hand_started","hand":4,"opener":"A","dice":{"A":2,"B":3,"C":2},"palifico":false}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"C","caller":"A","bid":{"quantity":2,"face":6},"count":2,"dice":{"A":1},"out":[]}
{"type":"hand_started","hand":5,"opener":"A","dice":{"A":3,"B":3,"C":2},"palifico":false}`,
	}, {
		name: "calza is refused with two seats left, and the bid stands; with the option off, always",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"spot_on","seat":"B"}
{"type":"spot_on","seat":"A"}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6]}}
{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[2],"C":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":3}
{"type":"spot_on","seat":"C"}
{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A","options":{"calza":false}}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"spot_on","seat":"B"}
{"type":"spot_on","seat":"C"}`,
		want: `{"type":"hand_started","opener":"A","dice":{"A":2,"B":2}}
{"type":"rejected","line":3,"reason":"not_now"}
{"type":"rejected","line":4,"reason":"not_now"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","count":1,"dice":{"A":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":1,"B":2},"palifico":false}
{"type":"hand_started","game":1,"hand":1,"opener":"A","dice":{"A":1,"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1},"out":["A"]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":1,"C":1},"palifico":false}
{"type":"rejected","line":12,"reason":"not_now"}
{"type":"hand_started","game":1,"hand":1,"opener":"A","dice":{"A":5,"B":5,"C":5}}
{"type":"rejected","line":15,"reason":"not_allowed"}
{"type":"rejected","line":16,"reason":"not_allowed"}`,
	}, {
		name: "palifico: the seat brought down to one opens, ones not wild, first bid on ones allowed, face locked, calza allowed",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6],"C":[2,2]}}
{"type":"bid","seat":"A","quantity":1,"face":1}
{"type":"bid","seat":"B","quantity":2,"face":2}
{"type":"bid","seat":"B","quantity":1,"face":1}
{"type":"bid","seat":"B","quantity":2,"face":1}
{"type":"spot_on","seat":"C"}
{"type":"reveal","dice":{"A":[1],"B":[1,5],"C":[1,1]}}
{"type":"bid","seat":"C","quantity":1,"face":5}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"bid","seat":"A","quantity":2,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1],"B":[1,5],"C":[1]}}`,
		want: `{"type":"hand_started","hand":1,"palifico":false}
{"type":"revealed"}
{"type":"resolved","call":"challenge","count":1,"dice":{"A":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":1,"B":2,"C":2},"palifico":true}
{"type":"rejected","line":6,"reason":"bid_not_higher","message":"two 2s does not raise one one: in a palifico hand the face stays ones and only the quantity rises"}
{"type":"rejected","line":7,"reason":"bid_not_higher"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"B","caller":"C","bid":{"quantity":2,"face":1},"count":4,"dice":{"C":-1},"out":[]}
{"type":"hand_started","hand":3,"opener":"C","dice":{"A":1,"B":2,"C":1},"palifico":true}
{"type":"rejected","line":12,"reason":"bid_not_higher"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","bid":{"quantity":2,"face":5},"count":1,"dice":{"A":-1},"out":["A"]}
{"type":"hand_started","hand":4,"opener":"B","dice":{"B":2,"C":1},"palifico":false}`,
	}, {
		name: "palifico: at most once a seat a game; the next hand is plain again",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6],"C":[2,2]}}
{"type":"bid","seat":"A","quantity":1,"face":4}
{"type":"bid","seat":"B","quantity":2,"face":4}
{"type":"bid","seat":"C","quantity":3,"face":4}
{"type":"spot_on","seat":"A"}
{"type":"reveal","dice":{"A":[4],"B":[4,1],"C":[4,2]}}
{"type":"bid","seat":"A","quantity":2,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,3],"B":[5,5],"C":[2,2]}}`,
		want: `{"type":"hand_started","hand":1,"palifico":false}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":1,"B":2,"C":2},"palifico":true}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","caller":"A","count":3,"dice":{"A":1},"out":[]}
{"type":"hand_started","hand":3,"opener":"A","dice":{"A":2,"B":2,"C":2},"palifico":false}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1}}
{"type":"hand_started","hand":4,"opener":"A","dice":{"A":1,"B":2,"C":2},"palifico":false}`,
	}, {
		name: "palifico: none with two seats left, none when the option is off, none for a seat that starts with one die",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6]}}
{"type":"bid","seat":"A","quantity":1,"face":1}
{"type":"new_game","rules":"perudo","seats":["A","B","C"],"first":"C","options":{"palifico":false,"dice":2}}
{"type":"bid","seat":"C","quantity":2,"face":3}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6],"C":[2,2]}}
{"type":"bid","seat":"C","quantity":1,"face":1}
{"type":"bid","seat":"C","quantity":1,"face":2}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6],"C":[1]}}
{"type":"new_game","rules":"perudo","seats":["A","B","C","D"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[2],"C":[2],"D":[2]}}`,
		want: `{"type":"hand_started","palifico":false}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":1,"B":2},"palifico":false}
{"type":"rejected","line":5,"reason":"bad_bid"}
{"type":"hand_started","hand":1,"opener":"C","palifico":false}
{"type":"revealed"}
{"type":"resolved","dice":{"C":-1}}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":2,"B":2,"C":1},"palifico":false}
{"type":"rejected","line":10,"reason":"bad_bid"}
{"type":"revealed"}
{"type":"resolved","bid":{"quantity":1,"face":2},"count":1,"dice":{"A":-1}}
{"type":"hand_started","hand":3,"opener":"A","dice":{"A":1,"B":2,"C":1},"palifico":false}
{"type":"hand_started","hand":1,"opener":"A","dice":{"A":1,"B":1,"C":1,"D":1},"palifico":false}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1},"out":["A"]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":1,"C":1,"D":1},"palifico":false}`,
	}, {
		name: "palifico: its opener leaving makes the hand plain, opened by the next seat",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C","D"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,4],"B":[5,6],"C":[2,2],"D":[6,6]}}
{"type":"leave","seat":"A"}
{"type":"bid","seat":"B","quantity":1,"face":1}`,
		want: `{"type":"hand_started","palifico":false}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A","palifico":true}
{"type":"left","seat":"A"}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":2,"C":2,"D":2},"palifico":false}
{"type":"rejected","line":6,"reason":"bad_bid"}`,
	}, {
		name: "openers: the loser; if out, the next seat clockwise from it",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B","C","D"],"first":"C","options":{"dice":1}}
{"type":"bid","seat":"C","quantity":1,"face":6}
{"type":"bid","seat":"D","quantity":2,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"B":[2],"C":[6],"D":[2]}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[3],"C":[4]}}`,
		want: `{"type":"hand_started","opener":"C"}
{"type":"revealed"}
{"type":"resolved","bidder":"D","caller":"A","count":1,"dice":{"D":-1},"out":["D"]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":1,"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","bidder":"A","caller":"B","count":1,"dice":{"B":-1},"out":["B"]}
{"type":"hand_started","hand":3,"opener":"C","dice":{"A":1,"C":1}}`,
	}, {
		name: "options: perudo takes dice, calza and palifico only",
		record: `{"type":"new_game","rules":"perudo","seats":["A","B"],"options":{"wild":"none"}}
{"type":"new_game","rules":"perudo","seats":["A","B"],"options":{"sides":8}}
{"type":"new_game","rules":"perudo","seats":["A","B","C","D","E","F","G"]}
{"type":"new_game","rules":"perudo","seats":["A"]}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"options":{"calza":true}}
{"type":"new_game","rules":"classic","seats":["A","B"],"options":{"palifico":false}}
{"type":"new_game","rules":"perudo","seats":["A","B"],"first":"B","options":{"dice":3,"calza":true,"palifico":true}}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"B"}`,
		want: `{"type":"rejected","line":1,"reason":"bad_input"}
{"type":"rejected","line":2,"reason":"bad_input"}
{"type":"rejected","line":3,"reason":"bad_seats"}
{"type":"rejected","line":4,"reason":"bad_seats"}
{"type":"rejected","line":5,"reason":"bad_input"}
{"type":"rejected","line":6,"reason":"bad_input"}
{"type":"hand_started","opener":"B","dice":{"A":3,"B":3},"palifico":false}
{"type":"hand_started","opener":"B","dice":{"A":5,"B":5}}`,
	}})
}

// TestPerudoHandStartedField: hand_started carries palifico in perudo
// only, so the other presets' events are as RECORD.md gives them.
func TestPerudoHandStartedField(t *testing.T) {
	for _, name := range engine.PresetNames() {
		p := engine.Presets[name]
		seats := []string{"A", "B", "C"}
		evs, err := engine.NewTable().Apply(engine.Action{Type: engine.ActNewGame, Rules: name, Seats: seats[:max(2, p.MinSeats)], First: "A"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(evs) == 0 {
			continue // star-board: the opening roll comes first (with first given, it does not)
		}
		hs, ok := evs[0].(*engine.HandStarted)
		if !ok {
			t.Fatalf("%s: first event %T", name, evs[0])
		}
		if got, want := hs.Palifico != nil, name == "perudo"; got != want {
			t.Errorf("%s: hand_started has palifico: got %v; want %v", name, got, want)
		}
	}
}

// TestPerudoRefusalsChangeNothing tries each refusal of the new rules and
// checks that the table's state is as it was.
func TestPerudoRefusalsChangeNothing(t *testing.T) {
	two := 2
	tb := engine.NewTable()
	apply := func(a engine.Action) error {
		_, err := tb.Apply(a)
		return err
	}
	if err := apply(engine.Action{Type: engine.ActNewGame, Rules: "perudo", Seats: []string{"A", "B", "C"}, First: "A", Options: engine.Options{Dice: &two}}); err != nil {
		t.Fatal(err)
	}
	refuse := func(a engine.Action, want engine.Reason) {
		t.Helper()
		before := js(tb.Snapshot())
		if got := reasonOf(apply(a)); got != want {
			t.Fatalf("%+v: got %q; want %q", a, got, want)
		}
		if after := js(tb.Snapshot()); after != before {
			t.Fatalf("%+v was refused and changed the state:\n%s\n%s", a, before, after)
		}
	}
	refuse(engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 1, Face: 1}, engine.BadBid)
	for _, a := range []engine.Action{
		{Type: engine.ActBid, Seat: "A", Quantity: 2, Face: 3},
		{Type: engine.ActChallenge, Seat: "B"},
		{Type: engine.ActReveal, Dice: map[string][]int{"A": {3, 4}, "B": {5, 6}, "C": {2, 2}}},
	} {
		if err := apply(a); err != nil {
			t.Fatal(err)
		}
	}
	if s := tb.Snapshot(); !s.Palifico || s.Wild {
		t.Fatalf("hand 2: palifico %v, wild %v; want a palifico hand without wilds", s.Palifico, s.Wild)
	}
	if err := apply(engine.Action{Type: engine.ActBid, Seat: "A", Quantity: 1, Face: 4}); err != nil {
		t.Fatal(err)
	}
	refuse(engine.Action{Type: engine.ActBid, Seat: "B", Quantity: 2, Face: 5}, engine.BidNotHigher)
	refuse(engine.Action{Type: engine.ActBid, Seat: "B", Quantity: 1, Face: 1}, engine.BidNotHigher)
	for _, a := range []engine.Action{
		{Type: engine.ActChallenge, Seat: "B"},
		{Type: engine.ActReveal, Dice: map[string][]int{"A": {2}, "B": {5, 6}, "C": {2, 2}}},
	} {
		if err := apply(a); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
	}
	s := tb.Snapshot()
	if s.Calza == nil || *s.Calza || s.Palifico || !s.Wild {
		t.Fatalf("two seats left: calza %v, palifico %v, wild %v; want no calza, a plain hand with wilds", s.Calza, s.Palifico, s.Wild)
	}
	if s.Turn == nil || *s.Turn != "B" {
		t.Fatalf("A is out: the turn is %v; want B, next clockwise", s.Turn)
	}
	if err := apply(engine.Action{Type: engine.ActBid, Seat: "B", Quantity: 1, Face: 3}); err != nil {
		t.Fatal(err)
	}
	refuse(engine.Action{Type: engine.ActSpotOn, Seat: "C"}, engine.NotNow)
}

// TestPerudoPalificoInRandomGames plays random perudo games and checks
// that palifico hands come exactly where RULINGS.md says: after a seat
// first comes down to one die with three or more seats left in the game,
// opened by it (unless it left before the hand's first action).
func TestPerudoPalificoInRandomGames(t *testing.T) {
	palificos := 0
	for seed := range uint64(200) {
		_, actions, events := playRandomGame(t, seed, "perudo")
		on := actions[0].Options.Palifico == nil || *actions[0].Options.Palifico
		atOne := map[string]bool{}
		dice := map[string]int{}
		inGame := map[string]bool{}
		for _, s := range actions[0].Seats {
			inGame[s] = true
		}
		due := ""
		for _, e := range events {
			switch e := e.(type) {
			case *engine.HandStarted:
				if e.Palifico == nil {
					t.Fatalf("seed %d: hand_started without palifico", seed)
				}
				dice = e.Dice
				if want := on && due != "" && due == e.Opener; *e.Palifico != want {
					t.Fatalf("seed %d: hand %d opened by %s: palifico %v; want %v (due: %q)", seed, e.Hand, e.Opener, *e.Palifico, want, due)
				}
				if *e.Palifico {
					palificos++
				}
				due = ""
			case *engine.Resolved:
				for _, s := range e.Out {
					delete(inGame, s)
				}
				for s, d := range e.Dice {
					if d < 0 && dice[s]+d == 1 && !atOne[s] {
						atOne[s] = true
						if len(inGame) >= 3 {
							due = s
						}
					}
				}
			case *engine.Left:
				delete(inGame, e.Seat)
			}
		}
	}
	if palificos == 0 {
		t.Error("200 random games played no palifico hand")
	}
	t.Logf("%d palifico hands in 200 random games", palificos)
}

// TestPerudoSettle: a reveal read in doubt between a one and a 4, under a
// bid on 4s, settles in a plain hand (the one is wild) and not in a
// palifico hand (it is not).
func TestPerudoSettle(t *testing.T) {
	const start = `{"type":"new_game","rules":"perudo","seats":["ann","bob","cy"],"first":"ann","options":{"dice":2}}`
	plain := tableAt(t, start+"\n"+`{"type":"bid","seat":"ann","quantity":3,"face":4}`+"\n"+`{"type":"challenge","seat":"bob"}`)
	got, rej := plain.Settle(map[string][]engine.ReadDie{"ann": read(sure(4), maybe(1, 4)), "bob": read(sure(4), sure(2)), "cy": read(sure(5), sure(6))})
	if rej != nil || !got.Settled {
		t.Fatalf("plain hand: settled %v (%v, why %q); want settled: a one counts for 4s", got.Settled, rej, got.Why)
	}
	palifico := tableAt(t, start+`
{"type":"bid","seat":"ann","quantity":2,"face":3}
{"type":"challenge","seat":"bob"}
{"type":"reveal","dice":{"ann":[3,4],"bob":[5,6],"cy":[2,2]}}
{"type":"bid","seat":"ann","quantity":1,"face":4}
{"type":"bid","seat":"bob","quantity":2,"face":4}
{"type":"challenge","seat":"cy"}`)
	if !palifico.Snapshot().Palifico {
		t.Fatal("hand 2 is not a palifico hand")
	}
	got, rej = palifico.Settle(map[string][]engine.ReadDie{"ann": read(maybe(1, 4)), "bob": read(sure(4), sure(2)), "cy": read(sure(5), sure(6))})
	if rej != nil || got.Settled || !strings.Contains(got.Why, "ann") {
		t.Fatalf("palifico hand: settled %v (%v, why %q); want a look at ann's die: a one does not count for 4s", got.Settled, rej, got.Why)
	}
}
