package engine_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// correctCases correct a resolution of every preset. Each record's last
// correct line must give, after its corrected event, exactly what a reveal
// of its dice would have given (checked by sameAsRevealed too).
var correctCases = []ruleCase{{
	name: "star-board: a perfect bid corrected to too few: the bidder loses one, not the others",
	record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"],"first":"A","options":{"show_reroll":false}}
{"type":"bid","seat":"A","quantity":4,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5,5,2,3,4],"B":[5,2,3,3,3],"C":[5,2,3,4,6]}}
{"type":"correct","dice":{"A":[5,5,2,3,4],"B":[5,2,3,3,3],"C":[2,2,3,4,6]}}`,
	want: `{"type":"hand_started","hand":1}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","count":4,"dice":{"B":-1,"C":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":4,"C":4}}
{"type":"corrected","game":1,"hand":1,"dice":{"A":[5,5,2,3,4],"B":[5,2,3,3,3],"C":[2,2,3,4,6]}}
{"type":"revealed","dice":{"A":[5,5,2,3,4],"B":[5,2,3,3,3],"C":[2,2,3,4,6]}}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","count":3,"dice":{"A":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":4,"B":5,"C":5}}`,
}, {
	name: "star-board: stars are wild in the corrected dice: too many, the challenger loses the difference",
	record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"],"first":"A","options":{"show_reroll":false}}
{"type":"bid","seat":"A","quantity":4,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5,5,2,3,4],"B":[5,2,3,3,3],"C":[5,2,3,4,6]}}
{"type":"correct","dice":{"A":[5,5,2,3,4],"B":[5,2,3,3,3],"C":[5,1,1,4,6]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":4,"dice":{"B":-1,"C":-1}}
{"type":"hand_started"}
{"type":"corrected","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","count":6,"dice":{"B":-2},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":3,"C":5}}`,
}, {
	name: "common-hand: a wrong spot-on corrected to a right one: the caller keeps its die and opens",
	record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,3,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":3,"dice":{"B":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":4,"C":5}}
{"type":"corrected","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":2,"dice":{},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":5,"C":5}}`,
}, {
	name: "common-hand: an elimination undone: the bidder is back and the caller goes out",
	record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[4],"C":[5]}}
{"type":"correct","dice":{"A":[2],"B":[4],"C":[3]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1},"out":["A"]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":1,"C":1}}
{"type":"corrected","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"B":-1},"out":["B"]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":1,"C":1}}`,
}, {
	name: "common-hand: a game over undone: the next hand starts instead",
	record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3],"B":[4,4]}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[4,4]}}
{"type":"correct","dice":{"A":[6],"B":[4,4]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1},"out":["A"]}
{"type":"game_over","game":1,"winner":"B"}
{"type":"corrected","game":1,"hand":2,"dice":{"A":[6],"B":[4,4]}}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"B":-1},"out":[]}
{"type":"hand_started","hand":3,"opener":"B","dice":{"A":1,"B":1}}`,
}, {
	name: "common-hand: a game over made: the other seat wins",
	record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[4]}}
{"type":"correct","dice":{"A":[2],"B":[4]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1},"out":["B"]}
{"type":"game_over","winner":"A"}
{"type":"corrected","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1},"out":["A"]}
{"type":"game_over","game":1,"winner":"B"}`,
}, {
	name: "kids: the loser of the corrected call gains the die and opens",
	record: `{"type":"new_game","rules":"kids","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[2]}}
{"type":"correct","dice":{"A":[2],"B":[2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1}}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":1,"B":2}}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":1},"out":[]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":2,"B":1}}`,
}, {
	name: "classic: a right spot-on undone: the caller loses one and opens",
	record: `{"type":"new_game","rules":"classic","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,3,4,4,2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":2,"dice":{"A":-1,"C":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":5,"C":4}}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":3,"dice":{"B":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":4,"C":5}}`,
}, {
	name: "endurance: the other seat goes out of the round, and the next opener follows it",
	record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":2,"dice":{},"out":["B"]}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":5,"C":5}}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{},"out":["A"]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":5,"C":5}}`,
}, {
	name: "tavern: the pot's half goes to the other seat, stakes as paid",
	record: `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3,"stake":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":2,"dice":{"B":-1},"payout":{"A":3},"running_pot":3}
{"type":"hand_started","hand":2,"opener":"B"}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"A":-1},"out":[],"payout":{"B":3},"running_pot":3}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":5,"C":5}}`,
}, {
	name: "tavern: the last die lost: the running pot goes to the winner of the corrected call",
	record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A","options":{"dice":1,"purse":10}}
{"type":"bid","seat":"A","quantity":1,"face":3,"stake":4}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[2]}}
{"type":"correct","dice":{"A":[2],"B":[2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1},"out":["B"],"payout":{"A":4},"running_pot":4}
{"type":"game_over","winner":"A","pot":4}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1},"out":["A"],"payout":{"B":4},"running_pot":4}
{"type":"game_over","game":1,"winner":"B","pot":4}`,
}, {
	name: "two corrections: the second replaces the first, a refused line between keeps the window",
	record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"bid","seat":"C","quantity":1,"face":2}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,3,2]}}`,
	want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1}}
{"type":"hand_started","opener":"B"}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"A":-1}}
{"type":"hand_started","opener":"A"}
{"type":"rejected","line":6,"reason":"not_your_turn"}
{"type":"corrected","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","count":2,"dice":{"B":-1}}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":4,"C":5}}`,
}}

func TestCorrect(t *testing.T) {
	runCases(t, correctCases)
	for _, c := range correctCases {
		t.Run(c.name+"/same as a reveal of the corrected dice", func(t *testing.T) {
			sameAsRevealed(t, c.record)
		})
	}
}

// sameAsRevealed checks that the events after a record's last corrected
// event are those that the record gives with its last reveal's dice
// replaced by the last correct's (and the lines between left out), seq
// and line numbers aside.
func sameAsRevealed(t *testing.T, rec string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(rec), "\n")
	fix, reveal := -1, -1
	for i, l := range lines {
		switch {
		case strings.Contains(l, `"type":"correct"`):
			fix = i
		case strings.Contains(l, `"type":"reveal"`):
			reveal = i
		}
	}
	if fix < 0 || reveal < 0 || reveal > fix {
		t.Fatalf("the record has no reveal followed by a correct")
	}
	alt := append(append([]string(nil), lines[:reveal]...), strings.Replace(lines[fix], `"type":"correct"`, `"type":"reveal"`, 1))
	alt = append(alt, lines[fix+1:]...)
	got := adjudicate(t, rec)
	want := adjudicate(t, strings.Join(alt, "\n"))
	last := -1
	for i, e := range got {
		if e["type"] == engine.EvCorrected {
			last = i
		}
	}
	from := -1
	for i, e := range want {
		if e["type"] == engine.EvRevealed {
			from = i
		}
	}
	if last < 0 || from < 0 {
		t.Fatalf("no corrected event (%d) or no revealed event (%d)", last, from)
	}
	g, w := withoutNumbers(got[last+1:]), withoutNumbers(want[from:])
	if !reflect.DeepEqual(g, w) {
		t.Errorf("after corrected: got %s; want %s", show(g), show(w))
	}
}

func withoutNumbers(evs []map[string]any) []map[string]any {
	out := make([]map[string]any, len(evs))
	for i, e := range evs {
		m := map[string]any{}
		for k, v := range e {
			if k != "seq" && k != "line" {
				m[k] = v
			}
		}
		out[i] = m
	}
	return out
}

func TestCorrectRefused(t *testing.T) {
	const hand = `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
`
	const accepted = `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved"}
{"type":"hand_started","hand":2}
`
	runCases(t, []ruleCase{{
		name:   "before any game",
		record: `{"type":"correct","dice":{"A":[1]}}`,
		want:   `{"type":"rejected","line":1,"reason":"no_game"}`,
	}, {
		name: "no dice",
		record: hand + `{"type":"correct"}
{"type":"correct","dice":{"A":"3,3"}}
{"type":"correct","dice":{"A":null}}`,
		want: accepted + `{"type":"rejected","line":5,"reason":"bad_input"}
{"type":"rejected","line":6,"reason":"bad_input"}
{"type":"rejected","line":7,"reason":"bad_input"}`,
	}, {
		name: "nothing revealed yet in this game",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"correct","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1]}}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":4,"reason":"not_now"}`,
	}, {
		name: "after the next hand's first bid",
		record: hand + `{"type":"bid","seat":"B","quantity":1,"face":2}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}`,
		want: accepted + `{"type":"rejected","line":6,"reason":"not_now"}`,
	}, {
		name: "after a leave between hands",
		record: hand + `{"type":"leave","seat":"C"}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1]}}`,
		want: accepted + `{"type":"left","seat":"C"}
{"type":"rejected","line":6,"reason":"unknown_seat"}
{"type":"rejected","line":7,"reason":"not_now"}`,
	}, {
		name: "after a new game",
		record: hand + `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}`,
		want: accepted + `{"type":"hand_started","hand":1}
{"type":"rejected","line":6,"reason":"not_now"}`,
	}, {
		name: "a hand ended by folds has no reveal",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"fold","seat":"B"}
{"type":"correct","dice":{"A":[2,3,4,5,6],"B":[2,2,2,2]}}`,
		want: `{"type":"hand_started"}
{"type":"folded"}
{"type":"resolved","call":"fold"}
{"type":"hand_started","hand":2}
{"type":"rejected","line":4,"reason":"not_now"}`,
	}, {
		name: "bad dice, as a reveal's",
		record: hand + `{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"D":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1]}}
{"type":"correct","dice":{"A":[3,6,1,2],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,7],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,0],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"correct","dice":{"A":[3,6,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}`,
		want: accepted + `{"type":"rejected","line":5,"reason":"unknown_seat"}
{"type":"rejected","line":6,"reason":"bad_reveal"}
{"type":"rejected","line":7,"reason":"bad_reveal"}
{"type":"rejected","line":8,"reason":"bad_reveal"}
{"type":"rejected","line":9,"reason":"bad_reveal"}
{"type":"corrected","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"A":-1}}
{"type":"hand_started","hand":2,"opener":"A"}`,
	}, {
		name: "star-board: the dice a seat showed must stay in its corrected dice",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":5}
{"type":"show","seat":"A","shown":[5]}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5,5,2,3,4],"B":[6,2,3,3,3]}}
{"type":"correct","dice":{"A":[6,6,2,3,4],"B":[6,2,3,3,3]}}
{"type":"correct","dice":{"A":[5,6,2,3,4],"B":[6,2,3,3,3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":2}
{"type":"hand_started","hand":2}
{"type":"rejected","line":6,"reason":"bad_reveal"}
{"type":"corrected"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"A":-1}}
{"type":"hand_started","hand":2}`,
	}})
}

// A correction rewinds the table to the call: chips, dice, the pot and the
// next hand's computer dice (drawn from the same seeded source) are those
// a reveal of the corrected dice gives, and the snapshot says what can be
// corrected until the next bid.
func TestCorrectRewindsTheTable(t *testing.T) {
	lines := []string{
		`{"type":"new_game","rules":"tavern","seats":["A","bot","C"],"first":"A","seed":7,"computer":{"bot":{"insight":0}}}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"stake":3}`,
		`{"type":"bid","seat":"bot","quantity":3,"face":3}`,
		`{"type":"challenge","seat":"C"}`,
	}
	reveal := `{"type":"reveal","dice":{"A":[3,3,1,2,5],"C":[5,5,4,4,2]}}`
	fix := `{"type":"correct","dice":{"A":[6,6,1,2,5],"C":[5,5,4,4,2],"bot":[1,1,1,1,1]}}`
	corrected := newTable(t, append(lines, reveal, fix)...)
	direct := newTable(t, append(lines, strings.Replace(fix, "correct", "reveal", 1))...)

	cs, ds := corrected.Snapshot(), direct.Snapshot()
	cc := corrected.Correctable()
	if cc == nil || cc.Game != 1 || cc.Hand != 1 || !reflect.DeepEqual(cc.Dice["A"], []int{6, 6, 1, 2, 5}) {
		t.Fatalf("correctable: got %s; want game 1, hand 1 with A's corrected dice", show(cc))
	}
	if bot, want := cc.Dice["bot"], direct.Correctable().Dice["bot"]; !reflect.DeepEqual(bot, want) {
		t.Errorf("bot's dice: got %v; want %v (the faces given for a computer seat are ignored)", bot, want)
	}
	cs.Seq, ds.Seq = 0, 0
	if !reflect.DeepEqual(cs, ds) {
		t.Errorf("snapshot after the correction: got %s; want %s", show(cs), show(ds))
	}
	if got, want := corrected.HiddenDice("bot"), direct.HiddenDice("bot"); !reflect.DeepEqual(got, want) {
		t.Errorf("bot's next hidden dice: got %v; want %v", got, want)
	}
	if _, err := corrected.Apply(engine.Action{Type: engine.ActBid, Seat: *cs.Turn, Quantity: 1, Face: 2}); err != nil {
		t.Fatal(err)
	}
	if c := corrected.Correctable(); c != nil {
		t.Errorf("correctable after the next bid: got %s; want none", show(c))
	}
}

func newTable(t *testing.T, lines ...string) *engine.Table {
	t.Helper()
	tb := engine.NewTable()
	for i, l := range lines {
		if _, err := record.Apply(tb, []byte(l)); err != nil {
			t.Fatalf("line %d %s: %v", i+1, l, err)
		}
	}
	return tb
}

// A correct line encodes and decodes as it was.
func TestCorrectRoundTrip(t *testing.T) {
	a := engine.Action{Type: engine.ActCorrect, Dice: map[string][]int{"A": {1, 2}, "B": {6}}}
	b := record.Encode(a)
	got, err := record.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, a) {
		t.Errorf("got %+v; want %+v", got, a)
	}
	var m map[string]any
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil || m["type"] != "correct" {
		t.Errorf("encoded %s: got type %v (%v); want correct", b, m["type"], err)
	}
}

// BenchmarkCorrect is the cost of one correction: the game copied at the
// call, the hand resolved again, the next hand started (five seats of five
// dice, common-hand).
func BenchmarkCorrect(b *testing.B) {
	tb := engine.NewTable()
	for _, l := range []string{
		`{"type":"new_game","rules":"common-hand","seats":["A","B","C","D","E"],"first":"A"}`,
		`{"type":"bid","seat":"A","quantity":3,"face":4}`,
		`{"type":"challenge","seat":"B"}`,
		`{"type":"reveal","dice":{"A":[4,4,1,2,3],"B":[4,2,2,3,5],"C":[6,6,6,1,1],"D":[2,3,4,5,6],"E":[1,2,3,5,5]}}`,
	} {
		if _, err := record.Apply(tb, []byte(l)); err != nil {
			b.Fatal(err)
		}
	}
	fix := engine.Action{Type: engine.ActCorrect, Dice: map[string][]int{
		"A": {4, 4, 1, 2, 3}, "B": {4, 2, 2, 3, 5}, "C": {6, 6, 6, 1, 1}, "D": {2, 3, 1, 5, 6}, "E": {1, 2, 3, 5, 5}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tb.Apply(fix); err != nil {
			b.Fatal(err)
		}
	}
}

// Every reveal of random games of every preset (computer seats, shows,
// folds, leaves among them), corrected to other dice: the correction gives
// what a reveal of those dice gives, and a second correction back to the
// dice first accepted leaves the table exactly as if nothing had been
// corrected, the next hand's computer dice included, so that the game
// goes on the same.
func TestCorrectAnyReveal(t *testing.T) {
	for _, preset := range engine.PresetNames() {
		for seed := uint64(1); seed <= 8; seed++ {
			_, actions, _ := playRandomGame(t, seed, preset)
			rng := rand.New(rand.NewPCG(seed, 99))
			plain, fixed := engine.NewTable(), engine.NewTable()
			corrected := 0
			for i, a := range actions {
				pe, err := plain.Apply(a)
				if err != nil {
					t.Fatalf("%s seed %d: %+v refused: %v", preset, seed, a, err)
				}
				fe, err := fixed.Apply(a)
				if err != nil || !reflect.DeepEqual(eventMaps(t, pe), eventMaps(t, fe)) {
					t.Fatalf("%s seed %d: %+v after corrections: %s, %v; want %s", preset, seed, a, show(eventMaps(t, fe)), err, show(eventMaps(t, pe)))
				}
				if a.Type != engine.ActReveal {
					continue
				}
				orig := fixed.Correctable().Dice
				alt := map[string][]int{}
				for name, faces := range orig {
					alt[name] = append([]int(nil), faces...)
					if k := rng.IntN(len(faces) + 1); k < len(faces) {
						alt[name][k] = 1 + rng.IntN(fixed.Snapshot().Sides)
					}
				}
				evs, err := fixed.Apply(engine.Action{Type: engine.ActCorrect, Dice: alt})
				if err == nil {
					corrected++
					direct := engine.NewTable()
					for _, b := range actions[:i] {
						_, _ = direct.Apply(b)
					}
					de, err := direct.Apply(engine.Action{Type: engine.ActReveal, Dice: alt})
					if err != nil || !reflect.DeepEqual(eventMaps(t, evs[1:]), eventMaps(t, de)) {
						t.Fatalf("%s seed %d: correction to %v: %s; a reveal of them gives %s (%v)", preset, seed, alt, show(eventMaps(t, evs[1:])), show(eventMaps(t, de)), err)
					}
				} else if r := err.(*engine.Rejection); r.Reason != engine.BadReveal {
					t.Fatalf("%s seed %d: correction to %v refused: %v", preset, seed, alt, err)
				}
				if _, err := fixed.Apply(engine.Action{Type: engine.ActCorrect, Dice: orig}); err != nil {
					t.Fatalf("%s seed %d: correcting back to %v: %v", preset, seed, orig, err)
				}
				ps, fs := plain.Snapshot(), fixed.Snapshot()
				ps.Seq, fs.Seq = 0, 0
				if !reflect.DeepEqual(ps, fs) {
					t.Fatalf("%s seed %d: corrected back: %s; want %s", preset, seed, show(fs), show(ps))
				}
				for _, st := range ps.Seats {
					if !reflect.DeepEqual(plain.HiddenDice(st.Name), fixed.HiddenDice(st.Name)) {
						t.Fatalf("%s seed %d: %s's next dice differ after correcting back", preset, seed, st.Name)
					}
				}
			}
			if corrected == 0 && preset != "tavern" {
				t.Errorf("%s seed %d: no correction taken", preset, seed)
			}
		}
	}
}

// eventMaps decodes events, their seq and line left out.
func eventMaps(t *testing.T, evs []engine.Event) []map[string]any {
	t.Helper()
	var b bytes.Buffer
	for _, e := range evs {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	return withoutNumbers(jsonLines(t, b.String()))
}
