package referee_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
)

// boardCalls records what the referee shows on the LEDs.
type boardCalls struct {
	mu    sync.Mutex
	calls []string
}

func (b *boardCalls) add(format string, args ...any) error {
	b.mu.Lock()
	b.calls = append(b.calls, fmt.Sprintf(format, args...))
	b.mu.Unlock()
	return nil
}

func (b *boardCalls) ShowBid(q, f int, star bool) error { return b.add("bid %d %d", q, f) }
func (b *boardCalls) ShowTurn(seat string) error        { return b.add("turn %s", seat) }
func (b *boardCalls) ShowCall(caller string) error      { return b.add("call %s", caller) }
func (b *boardCalls) ShowOutcome(losers, out []string, winner string) error {
	return b.add("outcome %v %v %q", losers, out, winner)
}
func (b *boardCalls) SetStatus(s referee.Status) error { return nil }
func (b *boardCalls) Clear()                           { _ = b.add("clear") }

func (b *boardCalls) since(n int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls[n:]...)
}

func (b *boardCalls) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls)
}

// The operator corrects RECORD.md's example reveal in-process: the
// correction is journaled, its events published and shown on the LEDs,
// the state says what can be corrected until the next bid, and after a
// restart the journal replays to the same events and the window is open
// as before.
func TestCorrectFromTheOperator(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	board := &boardCalls{}
	h := start(t, path, referee.Config{Board: board})
	for _, step := range exampleGame {
		h.do(t, step.line)
	}
	st := h.rec.LastState(t)
	c, ok := st["correctable"].(map[string]any)
	if !ok || c["game"] != float64(1) || c["hand"] != float64(1) {
		t.Fatalf("state's correctable after the reveal: got %v; want game 1, hand 1", st["correctable"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	mark := board.len()
	fixed := map[string][]int{"ann": {3, 1, 1, 2, 5}, "bob": {6, 6, 4, 2, 1}, "cy": {5, 5, 4, 4, 2}}
	rep, err := h.ref.Correct(ctx, fixed)
	if err != nil || !rep.OK || rep.Seq != 9 {
		t.Fatalf("Correct: got %+v, %v; want ok at seq 9", rep, err)
	}
	if got, want := board.since(mark), []string{"clear", `outcome [ann] [] ""`, "clear", "turn ann"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LEDs after the correction: got %q; want %q", got, want)
	}
	wantTail := `{"type":"corrected","seq":6,"game":1,"hand":1,"dice":{"ann":[3,1,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}
{"type":"revealed","seq":7,"dice":{"ann":[3,1,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}
{"type":"resolved","seq":8,"call":"challenge","bidder":"ann","caller":"bob","bid":{"quantity":2,"face":3},"count":1,"dice":{"ann":-1},"out":[]}
{"type":"hand_started","seq":9,"game":1,"hand":2,"opener":"ann","dice":{"ann":4,"bob":5,"cy":5}}
`
	if got := h.rec.EventLines(); !strings.HasSuffix(got, wantTail) {
		t.Errorf("published events:\n%s\nwant them to end with:\n%s", got, wantTail)
	}
	st = h.rec.LastState(t)
	if last := st["last"].(map[string]any); last["count"] != float64(1) || st["turn"] != "ann" {
		t.Errorf("state after the correction: last %v, turn %v; want the corrected resolution, ann to bid", st["last"], st["turn"])
	}
	if c := st["correctable"].(map[string]any); !reflect.DeepEqual(c["dice"].(map[string]any)["ann"], []any{3.0, 1.0, 1.0, 2.0, 5.0}) {
		t.Errorf("state's correctable: got %v; want the corrected dice", c)
	}
	h.stop()
	if got, want := h.rec.EventLines(), adjudicate(t, path); got != want {
		t.Errorf("published:\n%s\nadjudicate(journal):\n%s", got, want)
	}
	if !strings.Contains(string(readJournal(t, path)), `{"type":"correct","dice":{"ann":[3,1,1,2,5],`) {
		t.Errorf("the correction is not in the journal:\n%s", readJournal(t, path))
	}

	// After a restart the window is still open: correct back, then the
	// next bid closes it and a correction is refused, journaled as such.
	h2 := start(t, path, referee.Config{})
	rep, err = h2.ref.Correct(ctx, map[string][]int{"ann": {3, 3, 1, 2, 5}, "bob": {6, 6, 4, 2, 1}, "cy": {5, 5, 4, 4, 2}})
	if err != nil || !rep.OK {
		t.Fatalf("Correct after a restart: got %+v, %v; want ok", rep, err)
	}
	if st := h2.rec.LastState(t); st["turn"] != "bob" {
		t.Errorf("after correcting back: turn %v; want bob", st["turn"])
	}
	if rep := h2.do(t, `{"type":"bid","seat":"bob","quantity":1,"face":2}`); !rep.OK {
		t.Fatalf("bid: %+v", rep)
	}
	if _, ok := h2.rec.LastState(t)["correctable"]; ok {
		t.Error("the state offers a correction after the next bid")
	}
	rep, err = h2.ref.Correct(ctx, fixed)
	if err != nil || rep.OK || rep.Reason != engine.NotNow {
		t.Errorf("Correct after the next bid: got %+v, %v; want not_now", rep, err)
	}
	rep, _ = h2.ref.Correct(ctx, nil)
	if rep.OK || rep.Reason != engine.BadInput {
		t.Errorf("Correct with no dice: got %+v; want bad_input", rep)
	}
	h2.stop()
	if got, want := h2.rec.EventLines(), adjudicate(t, path); got != want {
		t.Errorf("after restart, published:\n%s\nadjudicate(journal):\n%s", got, want)
	}
}
