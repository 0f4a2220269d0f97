package referee_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/refereetest"
)

// A journal that is not as the referee writes it (blank lines, a garbled
// line, one over the line limit, a last line torn by a power cut) replays
// to exactly what liarsd adjudicate gives of it, and the lines journaled
// after it are numbered as adjudicate numbers them.
func TestReplayIsAdjudicateOfAnOddJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	long := `{"type":"bid","seat":"bob","pad":"` + strings.Repeat("x", record.MaxLineBytes) + `"}`
	journal := "\n" +
		`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3}` + "\n" +
		"\n" +
		"garbled {{\n" +
		long + "\n" +
		`{"type":"bid","seat":"ann","quantity":1,"face":2}` + "\n" +
		`{"type":"bid","seat":"bob","quan` // torn: never synced, never published
	if err := os.WriteFile(path, []byte(journal), 0o640); err != nil {
		t.Fatal(err)
	}
	h := start(t, path, referee.Config{})
	h.rec.WaitFor(t, "the replayed state", func() bool {
		return len(h.rec.States()) > 0
	})
	// Line 7 of the journal now: refused, numbered 7.
	rep := h.do(t, `{"type":"bid","seat":"ann","quantity":2,"face":2}`)
	if rep.OK || rep.Reason != engine.NotYourTurn {
		t.Errorf("ann out of turn: got %+v; want not_your_turn", rep)
	}
	if rep := h.do(t, `{"type":"bid","seat":"bob","quantity":2,"face":2}`); !rep.OK {
		t.Errorf("bob's bid: got %+v; want it accepted", rep)
	}
	h.stop()
	got, want := h.rec.EventLines(), adjudicate(t, path)
	if got != want {
		t.Errorf("published:\n%.2000s\nwant adjudicate(journal):\n%.2000s", got, want)
	}
	if !strings.Contains(got, `"seq":4,"line":7,"reason":"not_your_turn"`) {
		t.Errorf("published:\n%.2000s\nwant the refused bid as line 7, seq 4", got)
	}
}

// A command refused and journaled, then delivered again by the broker
// (the daemon died before acknowledging it), is answered as it was then:
// not journaled twice, and no second rejected event under a new seq.
func TestRedeliveredRefusedCommandIsNotJournaledTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	command(t, h, `{"id":"g","type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`, false)
	bad := `{"id":"x1","type":"bid","seat":"bob","quantity":1,"face":2}`
	first := command(t, h, bad, false)
	if first.OK || first.Reason != engine.NotYourTurn || first.Seq != 2 {
		t.Fatalf("bob out of turn: got %+v; want not_your_turn at seq 2", first)
	}
	if got := command(t, h, bad, true); got.OK || got.Reason != first.Reason || got.Message != first.Message || got.Seq != 2 || string(got.ID) != `"x1"` {
		t.Errorf("redelivered: got %+v; want the first answer %+v", got, first)
	}
	h.stop()
	h2 := start(t, path, referee.Config{})
	if got := command(t, h2, bad, true); got.OK || got.Reason != first.Reason || got.Message != first.Message || got.Seq != 2 {
		t.Errorf("redelivered after a restart: got %+v; want the first answer %+v", got, first)
	}
	h2.stop()
	data := readJournal(t, path)
	if got, want := bytes.Count(data, []byte("\n")), 2; got != want {
		t.Errorf("journal: got %d lines; want %d:\n%s", got, want, data)
	}
	if got, want := h2.rec.EventLines(), adjudicate(t, path); got != want {
		t.Errorf("published after the restart:\n%s\nwant adjudicate(journal):\n%s", got, want)
	}
}

// A refused command whose journal append fails is answered, publishes no
// event, and the table's status says error until a line is journaled.
func TestRefusalWithAFailingJournalShowsTheError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	h.do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`)
	// The journal's file goes away under the referee (a pulled card).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h.j.Close()
	rep, err := h.ref.Do(ctx, []byte(`{"type":"bid","seat":"bob","quantity":1,"face":2}`), referee.SourceMQTT)
	if err != nil || rep.OK || rep.Reason != engine.NotYourTurn {
		t.Errorf("refused bid: got %+v, %v; want not_your_turn", rep, err)
	}
	h.rec.WaitFor(t, "an error state", func() bool {
		states := h.rec.States()
		return bytes.Contains(states[len(states)-1], []byte(`"status":"error"`))
	})
	n := len(h.rec.Events())
	if n != 1 {
		t.Errorf("published %d events; want only the hand_started", n)
	}
}

// journalFirst checks, at each event published, that the journal on disk
// already gives it: its line was written before its event went out.
type journalFirst struct {
	*refereetest.Recorder
	t    *testing.T
	path string
}

func (p journalFirst) Event(seq int, b []byte) {
	lines, err := journal.ReadRecord(p.path)
	if err != nil {
		p.t.Errorf("reading the journal: %v", err)
	}
	var out bytes.Buffer
	_ = record.Adjudicate(bytes.NewReader(recordText(lines)), &out)
	if !bytes.Contains(out.Bytes(), append(b, '\n')) {
		p.t.Errorf("event %s published before the journal gives it; the journal gives:\n%s", b, out.Bytes())
	}
	p.Recorder.Event(seq, b)
}

// Every event, accepted or rejected, goes out only once the journal on
// disk holds the line it comes from.
func TestEventsGoOutAfterTheirLineIsJournaled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	rec := refereetest.NewRecorder()
	h := start(t, path, referee.Config{Publisher: journalFirst{Recorder: rec, t: t, path: path}})
	for _, step := range exampleGame {
		h.do(t, step.line)
	}
	h.stop()
	if got, want := rec.EventLines(), adjudicate(t, path); got != want || got == "" {
		t.Errorf("published:\n%s\nwant adjudicate(journal):\n%s", got, want)
	}
}
