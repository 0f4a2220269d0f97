package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// apply decodes and applies record lines, failing on a refusal unless the
// line's reason is expected; it returns the events of the last line.
func apply(t *testing.T, tb *engine.Table, line string, wantReason engine.Reason) []engine.Event {
	t.Helper()
	evs, err := record.Apply(tb, []byte(line))
	var r *engine.Rejection
	switch {
	case wantReason == "" && err != nil:
		t.Fatalf("%s: refused: %v", line, err)
	case wantReason != "" && (!errors.As(err, &r) || r.Reason != wantReason):
		t.Fatalf("%s: got %v; want %s", line, err, wantReason)
	}
	return evs
}

func TestComputerSeatDice(t *testing.T) {
	tb := engine.NewTable()
	apply(t, tb, `{"type":"new_game","rules":"common-hand","seats":["ann","bot"],"first":"ann","seed":7,"computer":{"bot":{"insight":3,"level":"strong"}}}`, "")
	hidden := tb.HiddenDice("bot")
	if len(hidden) != 5 {
		t.Fatalf("HiddenDice(bot) = %v; want 5 dice", hidden)
	}
	if tb.HiddenDice("ann") != nil {
		t.Fatalf("HiddenDice(ann) = %v; want nil for a person", tb.HiddenDice("ann"))
	}
	snap, _ := json.Marshal(tb.Snapshot())
	if !strings.Contains(string(snap), `"name":"bot","dice":5,"out":false,"computer":true`) {
		t.Fatalf("snapshot does not mark bot as a computer seat: %s", snap)
	}
	apply(t, tb, `{"type":"bid","seat":"ann","quantity":1,"face":2}`, "")
	apply(t, tb, `{"type":"challenge","seat":"bot"}`, "")
	// A reveal leaves a computer seat out, or gives faces the engine
	// ignores (TestComputerDiceAreNotAnOracle).
	evs := apply(t, tb, `{"type":"reveal","dice":{"ann":[2,2,3,4,5]}}`, "")
	rev := evs[0].(*engine.Revealed)
	if !slices.Equal(rev.Dice["bot"], hidden) {
		t.Fatalf("revealed bot dice %v; want its hidden dice %v", rev.Dice["bot"], hidden)
	}
	if _, ok := rev.Dice["ann"]; !ok {
		t.Fatalf("revealed lost ann's dice: %v", rev.Dice)
	}
	if next, want := tb.HiddenDice("bot"), tb.Snapshot().Seats[1].Dice; len(next) != want {
		t.Fatalf("in the next hand the computer seat holds %v; want %d dice", next, want)
	}
}

func TestComputerSeatsReplay(t *testing.T) {
	rec := `{"type":"new_game","rules":"star-board","seats":["ann","bot","cat"],"seed":11,"computer":{"bot":{"insight":1}}}
{"type":"opening_roll","dice":{"ann":[1,1,1,1,1],"cat":[2,2,2,2,2]}}
{"type":"bid","seat":"ann","quantity":2,"face":3}
{"type":"challenge","seat":"bot"}
{"type":"reveal","dice":{"ann":[3,3,1,2,5],"cat":[6,6,6,6,6]}}`
	a, b := adjudicate(t, rec), adjudicate(t, rec)
	if show(a) != show(b) {
		t.Fatalf("the same record gave other events:\n%s\n%s", show(a), show(b))
	}
	if len(a) != 4 || a[0]["opener"] != "ann" || a[1]["type"] != "revealed" {
		t.Fatalf("got %s; want hand_started (ann opens), revealed, resolved, hand_started", show(a))
	}
	if bot, _ := a[1]["dice"].(map[string]any)["bot"].([]any); len(bot) != 5 {
		t.Fatalf("revealed has no dice for the computer seat: %s", show(a[1]))
	}
}

func TestComputerShow(t *testing.T) {
	tb := engine.NewTable()
	apply(t, tb, `{"type":"new_game","rules":"star-board","seats":["bot","ann"],"first":"bot","seed":3,"computer":{"bot":{}}}`, "")
	hidden := tb.HiddenDice("bot")
	apply(t, tb, `{"type":"bid","seat":"bot","quantity":2,"face":3}`, "")
	missing := 1
	for slices.Contains(hidden, missing) {
		missing++
	}
	if missing <= 6 {
		apply(t, tb, `{"type":"show","seat":"bot","shown":[`+string(rune('0'+missing))+`]}`, engine.NotAllowed)
	}
	shown := hidden[0]
	apply(t, tb, `{"type":"show","seat":"bot","shown":[`+string(rune('0'+shown))+`]}`, "")
	after := tb.HiddenDice("bot")
	if len(after) != 5 || after[0] != shown {
		t.Fatalf("after showing %d the computer seat holds %v; want the shown die first and four rerolled", shown, after)
	}
	snap := tb.Snapshot()
	if !slices.Equal(snap.Seats[0].Shown, []int{shown}) {
		t.Fatalf("snapshot shows %v; want [%d]", snap.Seats[0].Shown, shown)
	}
}

func TestBluffCheck(t *testing.T) {
	classic := `{"type":"new_game","rules":"classic","seats":["ann","bot","cy"],"first":"ann","seed":5,"computer":{"bot":{"insight":0}},"bluff_bonus":{"ann":20}}`
	tb := engine.NewTable()
	apply(t, tb, classic, "")
	evs := apply(t, tb, `{"type":"bid","seat":"ann","quantity":2,"face":3,"bluff":true}`, "")
	if len(evs) != 1 {
		t.Fatalf("got %d events; want one bluff_check", len(evs))
	}
	bc := evs[0].(*engine.BluffCheck)
	if bc.Seat != "ann" || bc.Target != "bot" || bc.Bonus != 20 || bc.Insight != 0 || bc.Roll < 1 || bc.Roll > 20 || bc.TargetRoll < 1 || bc.TargetRoll > 20 {
		t.Fatalf("bluff check %+v: want ann against bot with d20s", bc)
	}
	if want := bc.Roll+bc.Bonus > bc.TargetRoll+bc.Insight; bc.Success != want {
		t.Fatalf("success %v; want %v for %d+%d against %d+%d", bc.Success, want, bc.Roll, bc.Bonus, bc.TargetRoll, bc.Insight)
	}
	if !bc.Success || !tb.Snapshot().Seats[1].Flustered {
		t.Fatalf("a +20 bluff against insight 0 must fluster bot: %+v, snapshot %+v", bc, tb.Snapshot().Seats[1])
	}
	apply(t, tb, `{"type":"bid","seat":"bot","quantity":2,"face":4}`, "")
	if tb.Snapshot().Seats[1].Flustered {
		t.Fatal("bot is still flustered after its turn")
	}
	// Refusals: a computer's own bluff, a bluff against a person, a table
	// without the check.
	apply(t, tb, `{"type":"bid","seat":"cy","quantity":3,"face":4,"bluff":true}`, engine.NotAllowed)
	tb2 := engine.NewTable()
	apply(t, tb2, `{"type":"new_game","rules":"classic","seats":["ann","bot"],"first":"bot","computer":{"bot":{}}}`, "")
	apply(t, tb2, `{"type":"bid","seat":"bot","quantity":2,"face":3,"bluff":true}`, engine.NotAllowed)
	tb3 := engine.NewTable()
	apply(t, tb3, `{"type":"new_game","rules":"common-hand","seats":["ann","bot"],"first":"ann","computer":{"bot":{}}}`, "")
	apply(t, tb3, `{"type":"bid","seat":"ann","quantity":2,"face":3,"bluff":true}`, engine.NotAllowed)
	tb4 := engine.NewTable()
	apply(t, tb4, `{"type":"new_game","rules":"common-hand","seats":["ann","bot"],"first":"ann","computer":{"bot":{}},"bluff_check":true}`, "")
	if evs := apply(t, tb4, `{"type":"bid","seat":"ann","quantity":2,"face":3,"bluff":true}`, ""); len(evs) != 1 {
		t.Fatalf("bluff_check on: got %d events; want a bluff_check", len(evs))
	}
	tb5 := engine.NewTable()
	apply(t, tb5, `{"type":"new_game","rules":"classic","seats":["ann","bot"],"computer":{"zed":{}}}`, engine.UnknownSeat)
	apply(t, tb5, `{"type":"new_game","rules":"classic","seats":["ann","bot"],"computer":{"bot":{"insight":99}}}`, engine.BadInput)
}

// TestRevealAllComputers: a reveal with no dice at all is whole when every
// seat in the hand is a computer seat.
func TestRevealAllComputers(t *testing.T) {
	tb := engine.NewTable()
	apply(t, tb, `{"type":"new_game","rules":"kids","seats":["r1","r2"],"first":"r1","computer":{"r1":{},"r2":{}}}`, "")
	apply(t, tb, `{"type":"bid","seat":"r1","quantity":1,"face":2}`, "")
	apply(t, tb, `{"type":"challenge","seat":"r2"}`, "")
	want := map[string][]int{"r1": tb.HiddenDice("r1"), "r2": tb.HiddenDice("r2")}
	evs, err := tb.Apply(engine.Action{Type: engine.ActReveal})
	if err != nil {
		t.Fatal(err)
	}
	if got := evs[0].(*engine.Revealed).Dice; show(got) != show(want) {
		t.Fatalf("revealed %v; want the computers' dice %v", got, want)
	}
}

// TestComputerDiceAreNotAnOracle: a reveal or opening roll that gives a
// computer seat's dice is taken whatever the faces, and the engine's own
// are revealed, so that nobody can learn a computer seat's hidden dice by
// trying reveals (the engine once accepted the right faces and refused
// others, naming them: "bot is a computer seat and its dice are not [...]").
func TestComputerDiceAreNotAnOracle(t *testing.T) {
	hand := func() (*engine.Table, []int) {
		tb := engine.NewTable()
		apply(t, tb, `{"type":"new_game","rules":"common-hand","seats":["ann","bot"],"first":"ann","seed":7,"computer":{"bot":{"insight":3}}}`, "")
		apply(t, tb, `{"type":"bid","seat":"ann","quantity":1,"face":2}`, "")
		apply(t, tb, `{"type":"challenge","seat":"bot"}`, "")
		return tb, tb.HiddenDice("bot")
	}
	_, hidden := hand()
	wrong := slices.Clone(hidden)
	wrong[0] = wrong[0]%6 + 1
	reversed := slices.Clone(hidden)
	slices.Reverse(reversed)
	for _, tt := range []struct {
		name string
		bot  []int // nil: left out
	}{
		{"left out", nil},
		{"its own dice", hidden},
		{"its own dice in another order", reversed},
		{"one die wrong", wrong},
		{"too few", hidden[:2]},
		{"faces no die has", []int{0, 9}},
	} {
		tb, _ := hand()
		dice := map[string][]int{"ann": {2, 2, 3, 4, 5}}
		if tt.bot != nil {
			dice["bot"] = tt.bot
		}
		b, _ := json.Marshal(map[string]any{"type": "reveal", "dice": dice})
		evs, err := record.Apply(tb, b)
		if err != nil {
			t.Errorf("%s: got %v; want the reveal taken", tt.name, err)
			continue
		}
		if got := evs[0].(*engine.Revealed).Dice["bot"]; !slices.Equal(got, hidden) {
			t.Errorf("%s: revealed bot %v; want its own dice %v", tt.name, got, hidden)
		}
	}

	// Star-board's opening roll: the engine rolls a computer seat's too.
	for _, line := range []string{
		`{"type":"opening_roll","dice":{"ann":[1,1,1,1,1]}}`,
		`{"type":"opening_roll","dice":{"ann":[1,1,1,1,1],"bot":[6,6,6,6,6]}}`,
	} {
		sb := engine.NewTable()
		apply(t, sb, `{"type":"new_game","rules":"star-board","seats":["ann","bot"],"seed":7,"computer":{"bot":{}}}`, "")
		apply(t, sb, line, "")
	}
}

// TestHiddenDiceOnlyInPlay: HiddenDice gives a computer seat's dice only
// while they are in play: not during an opening roll, not after the game,
// not to a person.
func TestHiddenDiceOnlyInPlay(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		seat  string
		want  int // number of dice; 0 for nil
	}{
		{"opening roll", []string{`{"type":"new_game","rules":"star-board","seats":["ann","bot"],"seed":1,"computer":{"bot":{}}}`}, "bot", 0},
		{"bidding", []string{`{"type":"new_game","rules":"classic","seats":["ann","bot"],"first":"ann","seed":1,"computer":{"bot":{}}}`}, "bot", 5},
		{"a person", []string{`{"type":"new_game","rules":"classic","seats":["ann","bot"],"first":"ann","seed":1,"computer":{"bot":{}}}`}, "ann", 0},
		{"reveal awaited", []string{`{"type":"new_game","rules":"kids","seats":["ann","bot"],"first":"ann","seed":1,"computer":{"bot":{}}}`,
			`{"type":"bid","seat":"ann","quantity":1,"face":2}`, `{"type":"challenge","seat":"bot"}`}, "bot", 1},
		{"game over", []string{`{"type":"new_game","rules":"common-hand","seats":["ann","bot"],"first":"ann","seed":1,"options":{"dice":1},"computer":{"bot":{}}}`,
			`{"type":"bid","seat":"ann","quantity":2,"face":2}`, `{"type":"challenge","seat":"bot"}`, `{"type":"reveal","dice":{"ann":[3]}}`}, "bot", 0},
	}
	for _, tt := range tests {
		tb := engine.NewTable()
		for _, l := range tt.lines {
			apply(t, tb, l, "")
		}
		if got := tb.HiddenDice(tt.seat); len(got) != tt.want || (tt.want == 0 && got != nil) {
			t.Errorf("%s: HiddenDice(%s) = %v; want %d dice", tt.name, tt.seat, got, tt.want)
		}
	}
}

// TestBluffNumbersChecked: an Action built in code is held to the same
// limits on insight and bluff bonus as a record line, and ComputerLevel
// gives back the level new_game named.
func TestBluffNumbersChecked(t *testing.T) {
	tests := []struct {
		name    string
		insight int
		bonus   int
		want    engine.Reason
	}{
		{"in range", 20, -20, ""},
		{"insight too high", 21, 0, engine.BadInput},
		{"insight below 0", -1, 0, engine.BadInput},
		{"bonus too high", 0, 21, engine.BadInput},
		{"bonus too low", 0, -21, engine.BadInput},
	}
	for _, tt := range tests {
		tb := engine.NewTable()
		_, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "classic", Seats: []string{"ann", "bot"},
			Computer: map[string]engine.ComputerSeat{"bot": {Insight: tt.insight, Level: "beginner"}}, BluffBonus: map[string]int{"ann": tt.bonus}})
		var r *engine.Rejection
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: got %v; want it taken", tt.name, err)
		case tt.want != "" && (!errors.As(err, &r) || r.Reason != tt.want):
			t.Errorf("%s: got %v; want %s", tt.name, err, tt.want)
		}
		if tt.want == "" {
			if level, ok := tb.ComputerLevel("bot"); level != "beginner" || !ok {
				t.Errorf("ComputerLevel(bot) = %q, %v; want beginner, true", level, ok)
			}
			if _, ok := tb.ComputerLevel("ann"); ok {
				t.Errorf("ComputerLevel(ann): a person is not a computer seat")
			}
		}
	}
}

// TestBluffCheckRolls: RULINGS.md's check is d20 + the person's bonus
// against d20 + the computer seat's insight, and only a higher total
// succeeds (a tie fails). The engine rolls both dice from the game's seed.
func TestBluffCheckRolls(t *testing.T) {
	ties, wins, losses := 0, 0, 0
	for seed := range 400 {
		bonus, insight := seed%5-2, seed%3
		line := fmt.Sprintf(`{"type":"new_game","rules":"classic","seats":["ann","bot"],"first":"ann","seed":%d,"computer":{"bot":{"insight":%d}},"bluff_bonus":{"ann":%d}}`, seed, insight, bonus)
		var got [2]*engine.BluffCheck
		for run := range got {
			tb := engine.NewTable()
			apply(t, tb, line, "")
			evs := apply(t, tb, `{"type":"bid","seat":"ann","quantity":1,"face":2,"bluff":true}`, "")
			got[run] = evs[0].(*engine.BluffCheck)
			if flustered := tb.Snapshot().Seats[1].Flustered; flustered != got[run].Success {
				t.Fatalf("seed %d: flustered %v after a check %+v", seed, flustered, got[run])
			}
		}
		bc := got[0]
		if *got[0] != *got[1] {
			t.Fatalf("seed %d: the same seed rolled %+v and %+v", seed, got[0], got[1])
		}
		if bc.Roll < 1 || bc.Roll > 20 || bc.TargetRoll < 1 || bc.TargetRoll > 20 || bc.Bonus != bonus || bc.Insight != insight {
			t.Fatalf("seed %d: got %+v; want two d20s, bonus %d, insight %d", seed, bc, bonus, insight)
		}
		a, b := bc.Roll+bc.Bonus, bc.TargetRoll+bc.Insight
		if want := a > b; bc.Success != want {
			t.Fatalf("seed %d: %d against %d: success %v; want %v", seed, a, b, bc.Success, want)
		}
		switch {
		case a == b:
			ties++
		case a > b:
			wins++
		default:
			losses++
		}
	}
	if ties == 0 || wins == 0 || losses == 0 {
		t.Fatalf("%d ties, %d wins, %d losses in 400 checks; want some of each", ties, wins, losses)
	}
}

// TestBluffCheckTarget: the check is rolled against the next seat in the
// hand (the bidder's left), skipping a seat that is out, and only when that
// seat is a computer seat.
func TestBluffCheckTarget(t *testing.T) {
	tb := engine.NewTable()
	apply(t, tb, `{"type":"new_game","rules":"classic","seats":["ann","cy","bot"],"first":"ann","seed":3,"options":{"dice":1},"computer":{"bot":{}},"bluff_bonus":{"ann":1}}`, "")
	apply(t, tb, `{"type":"bid","seat":"ann","quantity":1,"face":2,"bluff":true}`, engine.NotAllowed) // cy, a person, is ann's left
	apply(t, tb, `{"type":"bid","seat":"ann","quantity":1,"face":2}`, "")
	apply(t, tb, `{"type":"challenge","seat":"cy"}`, "")
	apply(t, tb, `{"type":"reveal","dice":{"ann":[2],"cy":[3]}}`, "") // cy loses its only die
	if s := tb.Snapshot(); !s.Seats[1].Out || *s.Turn != "bot" {
		t.Fatalf("after the first hand: cy out %v, turn %v; want cy out, bot to open", s.Seats[1].Out, *s.Turn)
	}
	apply(t, tb, `{"type":"bid","seat":"bot","quantity":1,"face":2}`, "")
	evs := apply(t, tb, `{"type":"bid","seat":"ann","quantity":1,"face":3,"bluff":true}`, "")
	if bc, ok := evs[0].(*engine.BluffCheck); !ok || bc.Seat != "ann" || bc.Target != "bot" || bc.Bonus != 1 {
		t.Fatalf("got %+v; want ann's check against bot, past cy who is out", evs[0])
	}
}
