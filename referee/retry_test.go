package referee_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
)

// command submits an MQTT command to h's referee and waits for its reply.
func command(t *testing.T, h *harness, line string, redelivered bool) referee.Reply {
	t.Helper()
	ch := make(chan referee.Reply, 1)
	if err := h.ref.SubmitCommand([]byte(line), redelivered, func(r referee.Reply) { ch <- r }); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ch:
		return r
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no reply", line)
	}
	return referee.Reply{}
}

// journalLines returns the number of lines of the journal at path.
func journalLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// A client that sends a command again (it retried after a lost reply or a
// timeout; the broker did not flag it redelivered) gets the first answer
// again, and the command changes nothing: new_game with id "g1" sent twice
// starts one game. Accepted and refused commands alike, also after a
// restart, whatever source the repeat came by.
func TestRepeatedCommandIDIsAnsweredNotApplied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	const (
		newGame = `{"id":"g1","type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann"}`
		refused = `{"id":"x1","type":"bid","seat":"bob","quantity":1,"face":2}`
		bid     = `{"id":"b1","type":"bid","seat":"ann","quantity":1,"face":2}`
	)
	firsts := map[string]referee.Reply{}
	for _, line := range []string{newGame, refused, bid} {
		firsts[line] = command(t, h, line, false)
	}
	if r := firsts[newGame]; !r.OK || r.Seq != 1 {
		t.Fatalf("new_game: got %+v; want ok at seq 1", r)
	}
	if r := firsts[refused]; r.OK || r.Reason != engine.NotYourTurn {
		t.Fatalf("bob out of turn: got %+v; want not_your_turn", r)
	}
	if r := firsts[bid]; !r.OK {
		t.Fatalf("ann's bid: got %+v; want ok", r)
	}
	lines := journalLines(t, path)
	check := func(h *harness, line string, redelivered bool, how string) {
		t.Helper()
		got, want := command(t, h, line, redelivered), firsts[line]
		if got.OK != want.OK || got.Reason != want.Reason || got.Message != want.Message || got.Seq != want.Seq || string(got.ID) != string(want.ID) {
			t.Errorf("%s %s: got %+v; want the first answer %+v", line, how, got, want)
		}
	}
	for _, line := range []string{newGame, refused, bid, newGame} {
		check(h, line, false, "sent again")
	}
	check(h, newGame, true, "redelivered")
	// Another path: the same id from the operator.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if rep, err := h.ref.Do(ctx, []byte(newGame), referee.SourceOperator); err != nil || !rep.OK || rep.Seq != 1 {
		t.Errorf("new_game again from the operator: got %+v, %v; want ok at seq 1", rep, err)
	}
	h.stop()
	if got := journalLines(t, path); got != lines {
		t.Errorf("journal: got %d lines; want %d (nothing sent again journaled)", got, lines)
	}
	if got, want := h.rec.eventLines(), adjudicate(t, path); got != want {
		t.Errorf("published:\n%s\nwant adjudicate(journal):\n%s", got, want)
	}
	if n := strings.Count(h.rec.eventLines(), `"hand_started"`); n != 1 {
		t.Errorf("%d hands started; want 1", n)
	}

	h2 := start(t, path, referee.Config{})
	for _, line := range []string{newGame, refused, bid} {
		check(h2, line, false, "sent again after a restart")
	}
	h2.stop()
	if got := journalLines(t, path); got != lines {
		t.Errorf("journal after the restart: got %d lines; want %d", got, lines)
	}
}

// The window of remembered ids is the last referee.MaxRememberedIDs
// journaled lines with an id, rebuilt from the journal at a start: an id
// within it is answered as then, an older one is taken as a new command.
func TestCommandIDWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after int // journaled lines with other ids after g1's
		again bool
	}{
		{"g1 and the next ids fill the window", referee.MaxRememberedIDs - 1, true},
		{"g1 just out of the window", referee.MaxRememberedIDs, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t1.journal")
			var b strings.Builder
			b.WriteString(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1,"id":"g1"}` + "\n")
			for i := range tc.after {
				fmt.Fprintf(&b, `{"type":"bid","seat":"zed","quantity":1,"face":2,"id":"z%d"}`+"\n", i)
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o640); err != nil {
				t.Fatal(err)
			}
			h := start(t, path, referee.Config{})
			rep := command(t, h, `{"id":"g1","type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`, false)
			h.stop()
			grew := journalLines(t, path) - (1 + tc.after)
			if tc.again && (grew != 0 || !rep.OK || rep.Seq != 1) {
				t.Errorf("g1 within the window: got %+v and %d lines journaled; want its first answer (ok at seq 1) and none", rep, grew)
			}
			if !tc.again && grew != 1 {
				t.Errorf("g1 out of the window: got %+v and %d lines journaled; want it taken as a new command (1 line)", rep, grew)
			}
		})
	}
}
