package engine_test

// Tests written from RULINGS.md and RECORD.md, ruling by ruling, for the
// rulings the preset tests did not yet show.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// reasonOf returns the reason of a refusal, or "" when err is nil.
func reasonOf(err error) engine.Reason {
	var r *engine.Rejection
	if errors.As(err, &r) {
		return r.Reason
	}
	if err != nil {
		return "not a rejection: " + engine.Reason(err.Error())
	}
	return ""
}

// TestRaises: each preset's raise rule, with RULINGS.md's examples.
func TestRaises(t *testing.T) {
	cases := []struct {
		preset       string
		fromQ, fromF int
		q, f         int
		want         bool
	}{
		// endurance, common-hand, kids: a higher quantity of any face, or the
		// same quantity of a higher face.
		{"endurance", 2, 3, 3, 1, true},
		{"endurance", 2, 3, 2, 4, true},
		{"endurance", 2, 3, 2, 3, false},
		{"endurance", 2, 3, 2, 2, false},
		{"endurance", 4, 3, 3, 6, false},
		{"common-hand", 2, 3, 2, 6, true},
		{"common-hand", 2, 3, 3, 1, true},
		{"common-hand", 2, 6, 2, 1, false},
		{"kids", 1, 4, 1, 5, true},
		{"kids", 1, 4, 1, 3, false},
		// tavern: a higher quantity of any face, or a higher face of any
		// quantity (seed 002: four 3s, then one 5).
		{"tavern", 4, 3, 1, 5, true},
		{"tavern", 2, 3, 3, 3, true},
		{"tavern", 2, 3, 3, 1, true},
		{"tavern", 4, 3, 4, 3, false},
		{"tavern", 4, 3, 3, 3, false},
		{"tavern", 4, 5, 3, 4, false},
		// classic: a higher face of any quantity, or the same face with a
		// higher quantity; once at 6s only the quantity rises.
		{"classic", 3, 5, 1, 6, true},
		{"classic", 3, 5, 4, 5, true},
		{"classic", 3, 5, 5, 4, false},
		{"classic", 3, 5, 3, 5, false},
		{"classic", 1, 6, 2, 6, true},
		{"classic", 5, 6, 9, 5, false},
		// star-board: the track 1, 2, ★1, 3, 4, ★2, 5, 6, ★3, ...
		{"star-board", 8, 5, 4, 1, true},  // after eight 5s, four stars raises
		{"star-board", 8, 5, 3, 1, false}, // and three stars does not
		{"star-board", 4, 1, 8, 6, false}, // after four stars the lowest number bid is nine
		{"star-board", 4, 1, 9, 2, true},
		{"star-board", 4, 6, 2, 1, true}, // after four 6s, two stars raises
		{"star-board", 3, 4, 3, 5, true}, // same number space, higher face
		{"star-board", 3, 4, 3, 3, false},
		{"star-board", 3, 4, 3, 4, false},
		{"star-board", 2, 1, 2, 1, false}, // from a star space only a later space
		{"star-board", 2, 1, 3, 1, true},
		{"star-board", 2, 1, 5, 2, true},
		{"star-board", 2, 1, 4, 6, false},
		{"star-board", 1, 1, 3, 2, true},
		{"star-board", 2, 6, 1, 1, true},
		{"star-board", 3, 2, 1, 1, false},
	}
	for _, c := range cases {
		got := engine.Presets[c.preset].Raise.Raises(c.fromQ, c.fromF, c.q, c.f)
		if got != c.want {
			t.Errorf("%s: (%d, %d) after (%d, %d) raises: got %v; want %v", c.preset, c.q, c.f, c.fromQ, c.fromF, got, c.want)
		}
	}
}

// TestTrackSpace: star space k stands right after number space 2k.
func TestTrackSpace(t *testing.T) {
	track := []struct{ q, f int }{{1, 2}, {2, 2}, {1, 1}, {3, 2}, {4, 2}, {2, 1}, {5, 2}, {6, 2}, {3, 1}, {7, 2}, {8, 2}, {4, 1}}
	for want, b := range track {
		if got := engine.TrackSpace(b.q, b.f); got != want {
			t.Errorf("TrackSpace(%d, %d): got %d; want %d", b.q, b.f, got, want)
		}
	}
}

// TestOptionsByPreset: RULINGS.md's table of options; an option a preset
// does not take is bad_input.
func TestOptionsByPreset(t *testing.T) {
	two, six, ten := 2, 6, 10
	ones, yes, no := "ones", true, false
	options := map[string]engine.Options{
		"dice": {Dice: &two}, "sides": {Sides: &six}, "wild": {Wild: &ones},
		"die_hard": {DieHard: &yes}, "show_reroll": {ShowReroll: &no},
		"games": {Games: &two}, "purse": {Purse: &ten}, "ante": {Ante: &two},
		"calza": {Calza: &no}, "palifico": {Palifico: &no},
	}
	takes := map[string]string{
		"endurance":   "dice sides wild games",
		"star-board":  "dice die_hard show_reroll",
		"tavern":      "dice sides wild purse",
		"common-hand": "dice sides wild",
		"kids":        "sides wild",
		"classic":     "dice sides wild ante",
		"perudo":      "dice calza palifico",
	}
	for preset, list := range takes {
		for _, name := range engine.OptionNames {
			a := engine.Action{Type: engine.ActNewGame, Rules: preset, Seats: []string{"A", "B", "C"}, First: "A", Options: options[name]}
			_, err := engine.NewTable().Apply(a)
			want := engine.BadInput
			if strings.Contains(" "+list+" ", " "+name+" ") {
				want = ""
			}
			if got := reasonOf(err); got != want {
				t.Errorf("%s with option %s: got %q; want %q", preset, name, got, want)
			}
		}
	}
}

// TestSeatsAndDice: each preset's number of seats, dice per seat and sides.
func TestSeatsAndDice(t *testing.T) {
	cases := []struct {
		preset             string
		minSeats, maxSeats int
		dice, sides        int
	}{
		{"endurance", 3, 6, 5, 6},
		{"star-board", 2, 6, 5, 6},
		{"tavern", 2, 20, 5, 6},
		{"common-hand", 2, 20, 5, 6},
		{"kids", 2, 20, 1, 6},
		{"classic", 2, 5, 5, 6},
		{"perudo", 2, 6, 5, 6},
	}
	seats := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("s%d", i+1)
		}
		return s
	}
	for _, c := range cases {
		for n := c.minSeats - 1; n <= c.maxSeats+1; n++ {
			if n != c.minSeats-1 && n != c.minSeats && n != c.maxSeats && n != c.maxSeats+1 {
				continue
			}
			want := engine.Reason("")
			if n < c.minSeats || n > c.maxSeats {
				want = engine.BadSeats
			}
			_, err := engine.NewTable().Apply(engine.Action{Type: engine.ActNewGame, Rules: c.preset, Seats: seats(n), First: "s1"})
			if got := reasonOf(err); got != want {
				t.Errorf("%s with %d seats: got %q; want %q", c.preset, n, got, want)
			}
		}
		tb := engine.NewTable()
		evs, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: c.preset, Seats: seats(c.minSeats), First: "s1"})
		if err != nil {
			t.Fatalf("%s: new_game refused: %v", c.preset, err)
		}
		hs := evs[0].(*engine.HandStarted)
		if got := hs.Dice["s1"]; got != c.dice {
			t.Errorf("%s: dice per seat: got %d; want %d", c.preset, got, c.dice)
		}
		_, err = tb.Apply(engine.Action{Type: engine.ActBid, Seat: "s1", Quantity: 1, Face: c.sides + 1})
		if got := reasonOf(err); got != engine.BadBid {
			t.Errorf("%s: a bid on face %d: got %q; want %q", c.preset, c.sides+1, got, engine.BadBid)
		}
		_, err = tb.Apply(engine.Action{Type: engine.ActBid, Seat: "s1", Quantity: 1, Face: c.sides})
		if got := reasonOf(err); got != "" {
			t.Errorf("%s: a bid on face %d: got %q; want it taken", c.preset, c.sides, got)
		}
	}
}

func TestRulingsEveryPreset(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "only the seat whose turn it is may call; nobody may pass",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"A"}
{"type":"challenge","seat":"C"}
{"type":"spot_on","seat":"C"}
{"type":"pass","seat":"B"}
{"type":"bid","seat":"B","quantity":0,"face":3}
{"type":"bid","seat":"B","quantity":16,"face":3}
{"type":"bid","seat":"B","quantity":15,"face":0}
{"type":"bid","seat":"B","quantity":15,"face":3}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"not_your_turn"}
{"type":"rejected","line":4,"reason":"not_your_turn"}
{"type":"rejected","line":5,"reason":"not_your_turn"}
{"type":"rejected","line":6,"reason":"bad_input"}
{"type":"rejected","line":7,"reason":"bad_bid"}
{"type":"rejected","line":8,"reason":"bad_bid"}
{"type":"rejected","line":9,"reason":"bad_bid"}`,
	}, {
		name: "show: a malformed list is bad_input before every other reason",
		record: `{"type":"show","seat":"A","shown":[9]}
{"type":"new_game","rules":"star-board","seats":["A","B"],"first":"A"}
{"type":"show","seat":"Z","shown":[7]}
{"type":"show","seat":"B","shown":[]}
{"type":"show","seat":"B","shown":[0]}
{"type":"show","seat":"B","shown":[3]}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"show","seat":"A","shown":[3,7]}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"show","seat":"A","shown":[0]}
{"type":"show","seat":"A","shown":[3]}`,
		want: `{"type":"rejected","line":1,"reason":"bad_input"}
{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"bad_input"}
{"type":"rejected","line":4,"reason":"bad_input"}
{"type":"rejected","line":5,"reason":"bad_input"}
{"type":"rejected","line":6,"reason":"not_allowed"}
{"type":"rejected","line":8,"reason":"bad_input"}
{"type":"hand_started"}
{"type":"rejected","line":11,"reason":"bad_input"}
{"type":"rejected","line":12,"reason":"not_allowed"}`,
	}})
}

// enduranceRound is one round in which A wins: B is out to a right bid,
// then C to a wrong one. A opens it.
const enduranceRound = `{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[6],"B":[2],"C":[2]}}
{"type":"bid","seat":"C","quantity":1,"face":5}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"C":[2]}}
`

func TestEnduranceRulings(t *testing.T) {
	var fiveWant strings.Builder
	for g := 1; g <= 5; g++ {
		fmt.Fprintf(&fiveWant, `{"type":"hand_started","game":%d,"hand":1,"opener":"A","dice":{"A":1,"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{},"out":["B"]}
{"type":"hand_started","game":%d,"hand":2,"opener":"C","dice":{"A":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{},"out":["C"]}
{"type":"game_over","game":%d,"winner":"A"}
`, g, g, g)
	}
	fiveWant.WriteString(`{"type":"match_over","winner":"A","wins":{"A":5,"B":0,"C":0}}`)
	runCases(t, []ruleCase{{
		name: "a match is five rounds by default; the round's winner opens the next",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A","options":{"dice":1}}
` + strings.Repeat(enduranceRound, 5),
		want: fiveWant.String(),
	}, {
		name: "ones wild when asked; a seat out of the round neither acts nor reveals",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C","D"],"first":"A","options":{"wild":"ones"}}
{"type":"bid","seat":"A","quantity":4,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,1,5,2,3],"B":[5,2,2,3,4],"C":[2,2,2,2,2],"D":[3,3,3,3,3]}}
{"type":"bid","seat":"B","quantity":1,"face":2}
{"type":"bid","seat":"C","quantity":3,"face":1}
{"type":"challenge","seat":"D"}
{"type":"reveal","dice":{"A":[1,1,5,2,3],"B":[1,1,1,1,1],"C":[2,2,2,2,2],"D":[3,3,3,3,3]}}
{"type":"reveal","dice":{"A":[1,1,5,2,3],"C":[2,2,2,2,2],"D":[3,3,3,3,3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":4,"dice":{},"out":["B"]}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":5,"C":5,"D":5}}
{"type":"rejected","line":5,"reason":"not_your_turn"}
{"type":"rejected","line":8,"reason":"bad_reveal"}
{"type":"revealed"}
{"type":"resolved","bidder":"C","caller":"D","count":2,"dice":{},"out":["C"]}
{"type":"hand_started","hand":3,"opener":"D","dice":{"A":5,"D":5}}`,
	}})

	// The first round's opener without first: a seeded random seat, the
	// same for the same seed.
	seen := map[string]bool{}
	for seed := int64(0); seed < 30; seed++ {
		a := engine.Action{Type: engine.ActNewGame, Rules: "endurance", Seats: []string{"A", "B", "C"}, Seed: seed}
		e1, err1 := engine.NewTable().Apply(a)
		e2, err2 := engine.NewTable().Apply(a)
		if err1 != nil || err2 != nil {
			t.Fatalf("seed %d: new_game refused: %v, %v", seed, err1, err2)
		}
		o1, o2 := e1[0].(*engine.HandStarted).Opener, e2[0].(*engine.HandStarted).Opener
		if o1 != o2 {
			t.Errorf("seed %d: opener: got %s then %s; want the same seat", seed, o1, o2)
		}
		seen[o1] = true
	}
	if len(seen) != 3 {
		t.Errorf("openers over 30 seeds: got %v; want every seat", seen)
	}
}

func TestStarBoardRulings(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "the challenger loses the difference, never more than it has; its next seat opens",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5,5],"B":[5,1],"C":[1,1]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","count":6,"dice":{"B":-2},"out":["B"]}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":2,"C":2}}`,
	}, {
		name: "die hard: a perfect bid costs a one-die seat that did not challenge nothing",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C","D"],"first":"A","options":{"dice":2,"die_hard":true}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,2],"B":[2,2],"C":[2,2],"D":[2,2]}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[2,2],"C":[2,2],"D":[2,2]}}
{"type":"bid","seat":"B","quantity":2,"face":4}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[4],"B":[1,3],"C":[2,2],"D":[2,2]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":1,"B":2,"C":2,"D":2}}
{"type":"rejected","line":5,"reason":"not_your_turn"}
{"type":"rejected","line":6,"reason":"no_bid_to_call"}
{"type":"rejected","line":7,"reason":"not_now"}
{"type":"revealed"}
{"type":"resolved","bidder":"B","caller":"C","count":2,"dice":{"C":-1,"D":-1},"out":[]}
{"type":"hand_started","hand":3,"opener":"C","dice":{"A":1,"B":2,"C":1,"D":1}}`,
	}})
}

func TestTavernRulings(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "a purse is 50 chips by default; a raised stake holds; a seat that cannot pay folds",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":2,"stake":51}
{"type":"bid","seat":"A","quantity":1,"face":2,"stake":50}
{"type":"all_in","seat":"B"}
{"type":"challenge","seat":"B","stake":49}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,3,3,3],"B":[3,3,3,3,3]}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"all_in","seat":"A"}
{"type":"fold","seat":"A"}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":2,"reason":"insufficient_chips"}
{"type":"rejected","line":4,"reason":"not_allowed"}
{"type":"rejected","line":5,"reason":"stake_too_low"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","count":0,"dice":{"A":-1},"payout":{"B":50},"running_pot":50}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":5}}
{"type":"rejected","line":8,"reason":"insufficient_chips"}
{"type":"rejected","line":9,"reason":"no_bid_to_call"}
{"type":"folded","seat":"A","dice":{"A":-1},"out":[]}
{"type":"resolved","call":"fold","dice":{},"out":[],"payout":{"B":0},"running_pot":50}
{"type":"hand_started","hand":3,"opener":"A","dice":{"A":3,"B":5}}`,
	}, {
		name: "a fold that takes the last die puts the seat out; the hand goes on",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"fold","seat":"B"}
{"type":"bid","seat":"C","quantity":3,"face":2}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[3],"C":[2]}}`,
		want: `{"type":"hand_started","dice":{"A":1,"B":1,"C":1}}
{"type":"folded","seat":"B","dice":{"B":-1},"out":["B"]}
{"type":"rejected","line":4,"reason":"bad_bid"}
{"type":"revealed","dice":{"A":[3],"C":[2]}}
{"type":"resolved","call":"challenge","bidder":"A","caller":"C","count":1,"dice":{"C":-1},"out":["C"],"payout":{"A":1},"running_pot":1}
{"type":"game_over","game":1,"winner":"A","pot":1}`,
	}})

	// An out loser, and a tie in dice and chips: a seeded draw between the
	// tied seats, the same for the same seed.
	rec := `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A","seed":%d,"options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[3],"C":[3]}}`
	seen := map[any]bool{}
	for seed := 0; seed < 20; seed++ {
		a, b := adjudicate(t, fmt.Sprintf(rec, seed)), adjudicate(t, fmt.Sprintf(rec, seed))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: got %s then %s; want the same events", seed, show(a), show(b))
		}
		last := a[len(a)-1]
		if last["type"] != "hand_started" || (last["opener"] != "B" && last["opener"] != "C") {
			t.Fatalf("seed %d: got %s; want hand 2 opened by B or C", seed, show(last))
		}
		seen[last["opener"]] = true
	}
	if len(seen) != 2 {
		t.Errorf("openers over 20 seeds: got %v; want both B and C", seen)
	}
}

func TestCommonHandKidsRulings(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "common-hand: a right spot-on gives a die back only below the dice option",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A","options":{"dice":3}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,2,2],"B":[2,2,2]}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"spot_on","seat":"A"}
{"type":"reveal","dice":{"A":[6,2],"B":[2,2,2]}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"spot_on","seat":"A"}
{"type":"reveal","dice":{"A":[6,2,2],"B":[2,2,2]}}`,
		want: `{"type":"hand_started","dice":{"A":3,"B":3}}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":2,"B":3}}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"B","caller":"A","count":1,"dice":{"A":1},"out":[]}
{"type":"hand_started","hand":3,"opener":"A","dice":{"A":3,"B":3}}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":1,"dice":{},"out":[]}
{"type":"hand_started","hand":4,"opener":"A","dice":{"A":3,"B":3}}`,
	}, {
		name: "kids: a wrong spot-on that brings the sixth die puts the caller out; the bidder opens",
		record: `{"type":"new_game","rules":"kids","seats":["A","B","C"],"first":"B","options":{"sides":8}}
{"type":"bid","seat":"B","quantity":1,"face":8}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2],"B":[2],"C":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":8}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2],"B":[2,2],"C":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":8}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2],"B":[2,2,2],"C":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":8}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2],"B":[2,2,2,2],"C":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":7}
{"type":"bid","seat":"C","quantity":2,"face":7}
{"type":"bid","seat":"A","quantity":3,"face":7}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[7],"B":[2,2,2,2,2],"C":[7]}}`,
		want: `{"type":"hand_started","dice":{"A":1,"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":1,"B":2,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":1,"B":3,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":1,"B":4,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":1,"B":5,"C":1}}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"A","caller":"B","count":2,"dice":{"B":1},"out":["B"]}
{"type":"hand_started","hand":6,"opener":"A","dice":{"A":1,"C":1}}`,
	}})
}

func TestClassicRulings(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "the ante is one chip a seat by default; the winner takes them all",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[2],"C":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"B":[2],"C":[2]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1},"out":["A"]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1},"out":["B"]}
{"type":"game_over","game":1,"winner":"C","pot":3}`,
	}, {
		name: "a seat that leaves forfeits its ante",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C"],"first":"A","options":{"dice":1,"ante":5}}
{"type":"leave","seat":"C"}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[2]}}`,
		want: `{"type":"hand_started"}
{"type":"left","seat":"C"}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1},"out":["A"]}
{"type":"game_over","winner":"B","pot":15}`,
	}, {
		name: "after a right spot-on the nearest seat to the caller's right that still has dice opens, again when it leaves",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C","D"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,2],"B":[2,2],"C":[3,3],"D":[4,4]}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[6],"B":[2,2],"C":[3,3],"D":[4,4]}}
{"type":"leave","seat":"D"}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":1,"dice":{"A":-1,"C":-1,"D":-1},"out":["A"]}
{"type":"hand_started","hand":3,"opener":"D","dice":{"B":2,"C":1,"D":1}}
{"type":"left","seat":"D"}
{"type":"hand_started","hand":3,"opener":"C","dice":{"B":2,"C":1}}`,
	}})
}

// TestNoPanic: malformed actions, out-of-range seats and numbers, and
// actions in every phase never panic, and a refused one changes nothing.
func TestNoPanic(t *testing.T) {
	types := []string{engine.ActBid, engine.ActShow, engine.ActChallenge, engine.ActSpotOn, engine.ActReveal,
		engine.ActFold, engine.ActAllIn, engine.ActLeave, engine.ActOpeningRoll, engine.ActNewGame, "pass", ""}
	presets := engine.PresetNames()
	runs := 600
	if testing.Short() {
		runs = 60
	}
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 1))
		preset := presets[rng.IntN(len(presets))]
		names := []string{"A", "B", "C", "D"}[:3+rng.IntN(2)]
		start := engine.Action{Type: engine.ActNewGame, Rules: preset, Seats: names, Seed: int64(seed)}
		if preset != "kids" && rng.IntN(2) == 0 {
			d := 1 + rng.IntN(2)
			start.Options.Dice = &d
		}
		if rng.IntN(3) == 0 {
			start.Computer = map[string]engine.ComputerSeat{names[rng.IntN(len(names))]: {}}
		}
		tb := engine.NewTable()
		if _, err := tb.Apply(start); err != nil {
			t.Fatalf("seed %d: new_game refused: %v", seed, err)
		}
		actors := append(names, "", "Z")
		for step := range 300 {
			a := engine.Action{Type: types[rng.IntN(len(types))], Seat: actors[rng.IntN(len(actors))],
				Quantity: rng.IntN(16) - 3, Face: rng.IntN(10) - 1, Bluff: rng.IntN(5) == 0}
			if rng.IntN(4) == 0 {
				s := rng.IntN(12) - 3
				a.Stake = &s
			}
			if rng.IntN(2) == 0 {
				a.Shown = []int{rng.IntN(9) - 1}
			}
			if a.Type == engine.ActReveal || a.Type == engine.ActOpeningRoll {
				a.Dice = map[string][]int{}
				for _, st := range tb.Snapshot().Seats {
					if rng.IntN(6) == 0 {
						continue
					}
					n := max(0, st.Dice-len(st.Shown))
					if rng.IntN(8) == 0 {
						n = rng.IntN(7)
					}
					faces := append([]int(nil), st.Shown...)
					for range n {
						f := 1 + rng.IntN(6)
						if rng.IntN(30) == 0 {
							f = rng.IntN(10) - 2
						}
						faces = append(faces, f)
					}
					a.Dice[st.Name] = faces
				}
			}
			if a.Type == engine.ActNewGame {
				a = start
			}
			before := tb.Snapshot()
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("seed %d step %d: %+v: got a panic %v; want none", seed, step, a, p)
					}
				}()
				if _, err := tb.Apply(a); err != nil {
					if after := tb.Snapshot(); !reflect.DeepEqual(before, after) {
						t.Fatalf("seed %d step %d: refused %+v changed the state:\n%s\n%s", seed, step, a, js(before), js(after))
					}
				}
			}()
		}
	}
}

// TestTableRobust: a zero Table plays like NewTable's, and Reject keeps a
// wrapped rejection's reason and survives a nil error.
func TestTableRobust(t *testing.T) {
	var zero engine.Table
	a := engine.Action{Type: engine.ActNewGame, Rules: "kids", Seats: []string{"A", "B"}, Seed: 4}
	got, err := zero.Apply(a)
	if err != nil {
		t.Fatalf("zero Table: new_game: got %v; want it taken", err)
	}
	want, _ := engine.NewTable().Apply(a)
	if js(got) != js(want) {
		t.Errorf("zero Table: got %s; want %s", js(got), js(want))
	}
	tb := engine.NewTable()
	wrapped := fmt.Errorf("referee: %w", &engine.Rejection{Reason: engine.NotNow, Message: "later"})
	if r := tb.Reject(3, wrapped); r.Reason != engine.NotNow || r.Line != 3 || r.Seq != 1 {
		t.Errorf("Reject(wrapped): got %+v; want not_now on line 3, seq 1", r)
	}
	if r := tb.Reject(4, nil); r.Reason != engine.BadInput || r.Seq != 2 {
		t.Errorf("Reject(nil): got %+v; want bad_input, seq 2", r)
	}
	if r := tb.Reject(5, errors.New("boom")); r.Reason != engine.BadInput || r.Message != "boom" {
		t.Errorf("Reject(error): got %+v; want bad_input with its message", r)
	}
}
