package referee_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/refereetest"
)

// run is a referee started over a journal opened with opts, stopped by
// its stop function.
type run struct {
	ref    *referee.Referee
	j      *journal.Journal
	rec    *refereetest.Recorder
	resume journal.Resume
	stop   func()
}

func startJournal(t *testing.T, path string, opts journal.Options) *run {
	t.Helper()
	j, resume, err := journal.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{j: j, rec: refereetest.NewRecorder(), resume: resume}
	r.ref, err = referee.New(referee.Config{Table: "t1", Journal: j, Publisher: r.rec,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, resume)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.ref.Run(ctx); j.Close() }()
	r.stop = func() { cancel(); <-done }
	t.Cleanup(r.stop)
	return r
}

func (r *run) submit(t *testing.T, line string, redelivered bool) referee.Reply {
	t.Helper()
	ch := make(chan referee.Reply, 1)
	if err := r.ref.SubmitCommand([]byte(line), redelivered, func(rep referee.Reply) { ch <- rep }); err != nil {
		t.Fatal(err)
	}
	select {
	case rep := <-ch:
		return rep
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no reply", line)
	}
	return referee.Reply{}
}

// A journal of small segments: at each restart the table resumes from the
// newest checkpoint before the last event published (as the daemon does
// with the MQTT watermark) and replays a few lines, not the journal. What
// the referee publishes over the restarts is still exactly liarsd
// adjudicate of the whole journal, a repeated seq always the same event;
// a command id from the first segment is still answered as then; and the
// table resumed from a checkpoint is the table a whole replay gives.
func TestSegmentsResumeWhereThePublishedEventsEnd(t *testing.T) {
	const per = 4
	path := filepath.Join(t.TempDir(), "t1.journal")
	var inputs []string
	games := append(refereetest.Script("tavern", []string{"ann", "bob", "cy"}, nil, 3, 40),
		refereetest.Script("common-hand", []string{"ann", "bob", "cy"}, nil, 5, 40)...)
	for i, l := range games {
		inputs = append(inputs, fmt.Sprintf(`{"id":"c%d",%s`, i+1, l[1:]))
		if i%5 == 2 { // refused, journaled as its rejected event
			inputs = append(inputs, fmt.Sprintf(`{"id":"r%d","type":"bid","seat":"zed","quantity":1,"face":2}`, i+1))
		}
	}
	published := map[int]string{}
	first := map[string]referee.Reply{}
	pub := journal.Published{}
	for len(inputs) > 0 {
		var whole string
		if pub.Seq > 0 {
			w := startJournal(t, path, journal.Options{SegmentLines: per})
			whole = lastStateOf(t, w.rec)
			w.stop()
		}
		r := startJournal(t, path, journal.Options{SegmentLines: per, Published: pub})
		if pub.Seq > 0 {
			if len(r.resume.Lines) > 2*per {
				t.Errorf("resumed from record line %d with %d lines to replay; want at most %d", r.resume.Checkpoint.Lines+1, len(r.resume.Lines), 2*per)
			}
			if got := lastStateOf(t, r.rec); got != whole {
				t.Errorf("state resumed from record line %d:\n%s\nwant the state of a whole replay:\n%s", r.resume.Checkpoint.Lines+1, got, whole)
			}
		}
		for _, in := range inputs[:min(7, len(inputs))] {
			rep := r.submit(t, in, false)
			first[string(rep.ID)] = rep
		}
		inputs = inputs[min(7, len(inputs)):]
		r.stop()
		events := r.rec.Events()
		for i, seq := range r.rec.Seqs() {
			if prev, ok := published[seq]; ok && prev != string(events[i]) {
				t.Errorf("seq %d published as %s, then as %s", seq, prev, events[i])
			}
			published[seq] = string(events[i])
			pub.Seq = max(pub.Seq, seq)
		}
		pub.Journal = r.j.ID()
	}
	want := strings.Split(strings.TrimSpace(adjudicate(t, path)), "\n")
	var got []string
	for seq := 1; seq <= len(published); seq++ {
		got = append(got, published[seq])
	}
	if !slices.Equal(got, want) {
		t.Errorf("published, one per seq:\n%s\nwant adjudicate(journal):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep, err := journal.Check(path); err != nil || rep.Damage != nil || rep.Segments < 20 {
		t.Errorf("check: got %+v, %v; want a whole journal of many segments", rep, err)
	}

	lines := len(readJournal(t, path))
	r := startJournal(t, path, journal.Options{SegmentLines: per, Published: pub})
	for _, id := range []string{"c1", "r3"} {
		line := inputs0(games, id)
		want := first[`"`+id+`"`]
		if got := r.submit(t, line, true); got.OK != want.OK || got.Reason != want.Reason || got.Message != want.Message || got.Seq != want.Seq {
			t.Errorf("%s delivered again: got %+v; want the first answer %+v", id, got, want)
		}
	}
	resumed := lastStateOf(t, r.rec)
	r.stop()
	if got := len(readJournal(t, path)); got != lines {
		t.Errorf("the journal grew by %d bytes; want the commands seen before not journaled again", got-lines)
	}
	whole := startJournal(t, path, journal.Options{SegmentLines: per})
	if whole.resume.Checkpoint.Lines != 0 {
		t.Fatalf("resumed from record line %d; want the whole journal replayed", whole.resume.Checkpoint.Lines+1)
	}
	if got, want := resumed, lastStateOf(t, whole.rec); got != want {
		t.Errorf("state resumed from a checkpoint:\n%s\nwant the state of a whole replay:\n%s", got, want)
	}
}

// inputs0 returns the input of id: "cN" the Nth line of games, "rN" the
// refused bid after it.
func inputs0(games [][]byte, id string) string {
	var n int
	fmt.Sscanf(id[1:], "%d", &n)
	if id[0] == 'r' {
		return fmt.Sprintf(`{"id":"r%d","type":"bid","seat":"zed","quantity":1,"face":2}`, n)
	}
	return fmt.Sprintf(`{"id":"c%d",%s`, n, games[n-1][1:])
}

// lastStateOf waits for a state and returns the last one, without its
// status (which a redelivery may change).
func lastStateOf(t *testing.T, rec *refereetest.Recorder) string {
	t.Helper()
	rec.WaitFor(t, "a state", func() bool {
		return len(rec.States()) > 0
	})
	st := rec.LastState(t)
	delete(st, "status")
	b, _ := json.Marshal(st)
	if st["phase"] == string(engine.PhaseIdle) {
		t.Errorf("state %s: want a game", b)
	}
	return string(b)
}

// A checkpoint keeps the answers to the newest command ids up to 1 MiB
// (ids may be any JSON value up to a command's size): the newest are
// still answered as then after a restart from it.
func TestACheckpointKeepsTheNewestCommandIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	r := startJournal(t, path, journal.Options{SegmentLines: 25})
	pad := strings.Repeat("x", 60<<10)
	cmd := func(i int) string {
		return fmt.Sprintf(`{"id":"%s-%d","type":"bid","seat":"zed","quantity":1,"face":2}`, pad, i)
	}
	var first []referee.Reply
	for i := range 26 { // the 26th in segment 2, its seq 26
		first = append(first, r.submit(t, cmd(i), false))
	}
	r.stop()
	r = startJournal(t, path, journal.Options{SegmentLines: 25, Published: journal.Published{Journal: r.j.ID(), Seq: 26}})
	if got := r.resume.Checkpoint; got.Segment != 2 || len(got.Commands) < 10 || len(got.Commands) >= 25 {
		t.Fatalf("resumed from segment %d with %d command ids; want segment 2 with the newest that fit in 1 MiB", got.Segment, len(got.Commands))
	}
	if got, want := r.submit(t, cmd(24), true), first[24]; got.Reason != want.Reason || got.Seq != want.Seq {
		t.Errorf("the newest id delivered again: got %+v; want the first answer %+v", got, want)
	}
}
