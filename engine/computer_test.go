package engine_test

import (
	"encoding/json"
	"errors"
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
	wrong := slices.Clone(hidden)
	wrong[0] = wrong[0]%6 + 1
	w, _ := json.Marshal(map[string]any{"type": "reveal", "dice": map[string][]int{"ann": {2, 2, 3, 4, 5}, "bot": wrong}})
	apply(t, tb, string(w), engine.BadReveal)
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
