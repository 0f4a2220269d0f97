package referee_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/refereetest"
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

// journalLines returns the number of record lines of the journal at path.
func journalLines(t *testing.T, path string) int {
	t.Helper()
	lines, err := journal.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(lines)
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
	if got, want := h.rec.EventLines(), adjudicate(t, path); got != want {
		t.Errorf("published:\n%s\nwant adjudicate(journal):\n%s", got, want)
	}
	if n := strings.Count(h.rec.EventLines(), `"hand_started"`); n != 1 {
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

// A command sent again after a restart that resumed from a later
// segment's checkpoint (the lines of the command's own segment not read)
// is answered as then and not applied, whatever path it comes again by:
// the client's retry, the broker's redelivery, the operator. The ids hold
// <, > and &, which encoding/json writes otherwise in a checkpoint.
func TestRepeatedCommandAfterResumingFromACheckpoint(t *testing.T) {
	const per = 4
	path := filepath.Join(t.TempDir(), "t1.journal")
	const (
		newGame = `{"id":"<g&1>","type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann"}`
		bid     = `{"id":{"n":"<b1>"},"type":"bid","seat":"ann","quantity":1,"face":2}`
		refused = `{"id":"z&0","type":"bid","seat":"zed","quantity":1,"face":2}`
	)
	r := startJournal(t, path, journal.Options{SegmentLines: per})
	first := map[string]referee.Reply{}
	for _, line := range []string{newGame, bid, refused} {
		first[line] = r.submit(t, line, false)
	}
	if rep := first[newGame]; !rep.OK || rep.Seq != 1 {
		t.Fatalf("new_game: got %+v; want ok at seq 1", rep)
	}
	if rep := first[bid]; !rep.OK {
		t.Fatalf("ann's bid: got %+v; want ok", rep)
	}
	if rep := first[refused]; rep.OK || rep.Reason == "" {
		t.Fatalf("zed's bid: got %+v; want refused", rep)
	}
	for i := range 3 * per { // more segments, each with a checkpoint
		r.submit(t, fmt.Sprintf(`{"id":"z%d","type":"bid","seat":"zed","quantity":1,"face":2}`, i+1), false)
	}
	r.stop()
	pub := journal.Published{Journal: r.j.ID(), Seq: maxSeq(r.rec)}
	lines := journalLines(t, path)
	state := lastStateOf(t, r.rec)

	for _, tc := range []struct {
		name string
		send func(r *run, line string) referee.Reply
	}{
		{"the client's retry", func(r *run, line string) referee.Reply { return r.submit(t, line, false) }},
		{"the broker's redelivery", func(r *run, line string) referee.Reply { return r.submit(t, line, true) }},
		{"the operator", func(r *run, line string) referee.Reply {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			rep, err := r.ref.Do(ctx, []byte(line), referee.SourceOperator)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return rep
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startJournal(t, path, journal.Options{SegmentLines: per, Published: pub})
			if cp := r.resume.Checkpoint; cp.Segment < 3 || cp.Lines < 3 {
				t.Fatalf("resumed from segment %d after record line %d; want a later segment's checkpoint, after the commands' lines", cp.Segment, cp.Lines)
			}
			for _, line := range []string{newGame, bid, refused} {
				got, want := tc.send(r, line), first[line]
				if got.OK != want.OK || got.Reason != want.Reason || got.Message != want.Message || got.Seq != want.Seq || string(got.ID) != string(want.ID) {
					t.Errorf("%s sent again: got %+v; want the first answer %+v", line, got, want)
				}
			}
			got := lastStateOf(t, r.rec)
			r.stop()
			if n := journalLines(t, path); n != lines {
				t.Errorf("journal: got %d record lines; want %d (nothing sent again journaled)", n, lines)
			}
			if s := maxSeq(r.rec); s != pub.Seq {
				t.Errorf("last event published: got seq %d; want %d (the replay's, nothing new)", s, pub.Seq)
			}
			if got != state {
				t.Errorf("state:\n%s\nwant as before the restart:\n%s", got, state)
			}
		})
	}
}

// maxSeq returns the highest seq rec was given.
func maxSeq(rec *refereetest.Recorder) int {
	m := 0
	for _, s := range rec.Seqs() {
		m = max(m, s)
	}
	return m
}

// The window of remembered command ids is the same whichever way a start
// rebuilt it: a referee that ran on (nothing replayed), a start that
// replays the whole journal, and one that resumes from the newest
// checkpoint remember the same ids. With short ids that is the last
// referee.MaxRememberedIDs (the checkpoint holds most of them, the lines
// after it the rest); with ids of 30 KiB fewer, as many as fit in
// referee.MaxRememberedBytes.
func TestCommandIDWindowIsTheSameFromACheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  int // commands sent, each with its own id
		pad  int // bytes added to each id
		per  int // journal_segment_lines
		// oldest is the first id still remembered; -1 for "as many as
		// fit in MaxRememberedBytes", the same for every start.
		oldest int
	}{
		{"short ids", referee.MaxRememberedIDs + 1, 0, 1000, 1},
		{"ids of 30 KiB", 60, 30 << 10, 8, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "t1.journal")
			pad := strings.Repeat("x", tc.pad)
			cmd := func(i int) string {
				if i == 0 { // accepted: applied again, it would start a game
					return `{"id":"<g&0>` + pad + `","type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann"}`
				}
				return fmt.Sprintf(`{"id":"<z&%d>%s","type":"bid","seat":"zed","quantity":1,"face":2}`, i, pad)
			}
			opts := journal.Options{SegmentLines: tc.per, NoSync: true}
			r := startJournal(t, path, opts)
			first := make([]referee.Reply, tc.ids)
			for i := range tc.ids {
				first[i] = r.submit(t, cmd(i), false)
			}
			if !first[0].OK {
				t.Fatalf("new_game: got %+v; want ok", first[0])
			}
			// Copies of the journal as it stands, for the restarts.
			whole, resumed := filepath.Join(dir, "whole"), filepath.Join(dir, "resumed")
			for _, d := range []string{whole, resumed} {
				if err := os.CopyFS(d, os.DirFS(path)); err != nil {
					t.Fatal(err)
				}
			}
			pub := journal.Published{Journal: r.j.ID(), Seq: maxSeq(r.rec)}
			lines := journalLines(t, path)
			// oldestRemembered sends the ids again, newest first, from
			// from down, and returns the first id that is remembered no
			// more plus one: the oldest still remembered.
			oldestRemembered := func(r *run, p string, from int) int {
				t.Helper()
				for i := from; i >= 0; i-- {
					got := r.submit(t, cmd(i), false)
					if n := journalLines(t, p); n != lines {
						if n != lines+1 || got.Seq <= pub.Seq {
							t.Errorf("id %d sent again: got %+v and %d record lines more; want it taken as a new command (1 line)", i, got, n-lines)
						}
						return i + 1
					}
					if want := first[i]; got.OK != want.OK || got.Reason != want.Reason || got.Message != want.Message || got.Seq != want.Seq {
						t.Errorf("id %d sent again: got %+v; want the first answer %+v", i, got, want)
					}
				}
				return 0
			}
			from := tc.ids - 1
			if tc.oldest >= 0 {
				from = tc.oldest // the ids after it are newer: remembered too
			}
			ran := oldestRemembered(r, path, from)
			r.stop()
			if tc.oldest >= 0 && ran != tc.oldest {
				t.Errorf("the referee that ran on remembers ids from %d; want from %d", ran, tc.oldest)
			}
			if tc.oldest < 0 && (ran <= 1 || ran >= tc.ids-1) {
				t.Errorf("the referee that ran on remembers ids from %d of %d; want fewer than all, more than one", ran, tc.ids)
			}

			w := startJournal(t, whole, opts)
			if w.resume.Checkpoint.Lines != 0 {
				t.Fatalf("whole: resumed after record line %d; want the whole journal replayed", w.resume.Checkpoint.Lines)
			}
			if got := oldestRemembered(w, whole, from); got != ran {
				t.Errorf("after a whole replay the ids from %d are remembered; want from %d, as the referee that ran on", got, ran)
			}
			w.stop()

			c := startJournal(t, resumed, journal.Options{SegmentLines: tc.per, NoSync: true, Published: pub})
			if cp := c.resume.Checkpoint; cp.Segment < 2 || len(c.resume.Lines) == 0 || cp.Lines <= ran {
				t.Fatalf("resumed from segment %d after record line %d with %d lines after it; want a later checkpoint, after the oldest remembered id's line, and lines after it", cp.Segment, cp.Lines, len(c.resume.Lines))
			}
			if got := oldestRemembered(c, resumed, from); got != ran {
				t.Errorf("after a start from the newest checkpoint the ids from %d are remembered; want from %d, as the referee that ran on", got, ran)
			}
			c.stop()
		})
	}
}
