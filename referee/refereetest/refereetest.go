// Package refereetest holds fakes and helpers for tests of the referee and
// its adapters: a Recorder of everything a referee publishes, a Harness
// that runs a referee over a journal of its own, a physical Table of
// seeded dice, and Script, offline games of accepted record lines. It
// needs no OpenCV.
package refereetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/journal"
)

// Recorder is a referee.Publisher that keeps what the referee publishes,
// in order. It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events [][]byte
	seqs   []int
	states [][]byte
	replys [][]byte
	vision [][]byte
	notify chan struct{}
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{notify: make(chan struct{}, 1)} }

func (r *Recorder) poke() {
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *Recorder) keep(to *[][]byte, b []byte) {
	r.mu.Lock()
	*to = append(*to, b)
	r.mu.Unlock()
	r.poke()
}

// Event keeps an event and its seq.
func (r *Recorder) Event(seq int, b []byte) {
	r.mu.Lock()
	r.events = append(r.events, b)
	r.seqs = append(r.seqs, seq)
	r.mu.Unlock()
	r.poke()
}

// State keeps a state.
func (r *Recorder) State(b []byte) { r.keep(&r.states, b) }

// Reply keeps a reply.
func (r *Recorder) Reply(b []byte) { r.keep(&r.replys, b) }

// Vision keeps a vision message.
func (r *Recorder) Vision(b []byte) { r.keep(&r.vision, b) }

// EventLines returns the events, each on a line of its own.
func (r *Recorder) EventLines() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.events {
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.String()
}

// Events returns the events so far, in the order they were published.
func (r *Recorder) Events() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.events...)
}

// Seqs returns the seqs of the events so far, one for each of Events.
func (r *Recorder) Seqs() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.seqs...)
}

// Replies returns the replies so far.
func (r *Recorder) Replies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.replys...)
}

// VisionMessages returns the vision messages so far.
func (r *Recorder) VisionMessages() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.vision...)
}

// States returns the states so far.
func (r *Recorder) States() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.states...)
}

// LastState returns the last state published, decoded.
func (r *Recorder) LastState(t testing.TB) map[string]any {
	t.Helper()
	states := r.States()
	if len(states) == 0 {
		t.Fatal("no state published")
	}
	var m map[string]any
	if err := json.Unmarshal(states[len(states)-1], &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// WaitFor polls cond until it holds, or fails the test after 20 s.
func (r *Recorder) WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-r.notify:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Harness runs a referee over a journal of its own for a test.
type Harness struct {
	Ref *referee.Referee
	Rec *Recorder
	// Path is the journal's path, and Journal the journal the referee
	// writes (its ID, or closed under the referee by a test of failures).
	Path    string
	Journal *journal.Journal
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	after   []func()
}

// Start runs a referee of table "t1" over the journal at path (replaying
// what it holds), publishing to a Recorder unless cfg names a publisher,
// logging nowhere unless cfg names a logger. The test's end stops it.
func Start(t testing.TB, path string, cfg referee.Config) *Harness {
	t.Helper()
	j, resume, err := journal.Open(path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{Rec: NewRecorder(), Path: path, Journal: j, done: make(chan struct{})}
	cfg.Journal, cfg.Table = j, "t1"
	if cfg.Publisher == nil {
		cfg.Publisher = h.Rec
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if h.Ref, err = referee.New(cfg, resume); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() {
		defer close(h.done)
		_ = h.Ref.Run(ctx)
		j.Close()
	}()
	t.Cleanup(h.Stop)
	return h
}

// AfterStop has f run once the referee has stopped (an adapter's Close).
func (h *Harness) AfterStop(f func()) { h.after = append(h.after, f) }

// Stop stops the referee and waits for its Run to return.
func (h *Harness) Stop() {
	h.once.Do(func() {
		h.cancel()
		<-h.done
		for _, f := range h.after {
			f()
		}
	})
}

// Do submits a line from MQTT and waits for its reply.
func (h *Harness) Do(t testing.TB, line string) referee.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := h.Ref.Do(ctx, []byte(line), referee.SourceMQTT)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return rep
}

// Adjudicate is liarsd adjudicate of the journal at path: the events its
// record gives.
func Adjudicate(t testing.TB, path string) string {
	t.Helper()
	lines, err := journal.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	var in, out bytes.Buffer
	for _, l := range lines {
		in.Write(l)
		in.WriteByte('\n')
	}
	if err := record.Adjudicate(&in, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// CheckPublishedIsAdjudicated checks that the events the stopped
// harness's referee published are what adjudicating its journal gives.
func (h *Harness) CheckPublishedIsAdjudicated(t testing.TB) {
	t.Helper()
	if got, want := h.Rec.EventLines(), Adjudicate(t, h.Path); got != want {
		t.Errorf("published:\n%s\nadjudicated:\n%s", got, want)
	}
}
