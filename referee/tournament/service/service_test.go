package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/tournament"
	"github.com/liarsd/liarsd/referee/tournament/link"
)

// fakeLink is the broker side of a test: messages the test feeds, and the
// commands and publishes the service makes.
type fakeLink struct {
	msgs      chan link.Message
	connected chan struct{}
	mu        sync.Mutex
	sent      []sent
	published map[string][]byte
}

type sent struct {
	table string
	line  []byte
}

func newFakeLink() *fakeLink {
	return &fakeLink{msgs: make(chan link.Message, 100), connected: make(chan struct{}, 1), published: map[string][]byte{}}
}

func (f *fakeLink) Messages() <-chan link.Message { return f.msgs }
func (f *fakeLink) Connected() <-chan struct{}    { return f.connected }
func (f *fakeLink) Send(table string, line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, sent{table, append([]byte(nil), line...)})
}
func (f *fakeLink) Publish(topic string, payload []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.published[topic] = append([]byte(nil), payload...)
}

func (f *fakeLink) sentTo() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.sent {
		out = append(out, s.table)
	}
	return out
}

// start runs a service on the journal at dir with link l.
func start(t *testing.T, dir string, l *fakeLink) (*Service, func()) {
	t.Helper()
	s, err := New(Config{Name: "cup", Journal: filepath.Join(dir, "cup.tournament"), NoSync: true, Link: l, GapWait: 300 * time.Millisecond,
		NewSeed: func() int64 { return 5 }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tick: 20 * time.Millisecond, ResendAfter: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	return s, func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func must(t *testing.T, s *Service, line string) {
	t.Helper()
	if rep := s.Do(context.Background(), []byte(line)); !rep.OK {
		t.Fatalf("%s: %s: %s", line, rep.Reason, rep.Message)
	}
}

const setup = `{"type":"setup","setup":{"format":"swiss","rules":"common-hand","seats":3,"rounds":2,"tables":["t1","t2"]}}`
const register = `{"type":"register","players":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"},{"name":"f"}]}`

func ev(table, typ string, seq int, extra string) link.Message {
	return link.Message{Kind: link.Events, Table: table, Payload: []byte(fmt.Sprintf(`{"type":%q,"seq":%d%s}`, typ, seq, extra)), Ack: func() {}}
}

func seatsOf(t *testing.T, s *Service, table string) []string {
	t.Helper()
	var v tournament.View
	if err := json.Unmarshal(s.Snapshot().View, &v); err != nil {
		t.Fatal(err)
	}
	for _, g := range v.Round.Games {
		if g.Table == table {
			return g.Seats
		}
	}
	t.Fatalf("no game at %s", table)
	return nil
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAnEventIsAcknowledgedOnlyOnceJournaled: the broker hears that the
// service took a table's event only when what the tournament keeps of it
// is on disk; a restart then rebuilds the game from the journal.
func TestAnEventIsAcknowledgedOnlyOnceJournaled(t *testing.T) {
	dir := t.TempDir()
	l := newFakeLink()
	s, stop := start(t, dir, l)
	must(t, s, setup)
	must(t, s, register)
	must(t, s, `{"type":"start_round"}`)
	seats := seatsOf(t, s, "t1")
	dice, _ := json.Marshal(map[string]int{seats[0]: 5, seats[1]: 5, seats[2]: 5})
	var mu sync.Mutex
	acked := map[int]bool{}
	for i, m := range []link.Message{
		ev("t1", "hand_started", 1, `,"game":1,"hand":1,"opener":"a","dice":`+string(dice)),
		ev("t1", "revealed", 2, `,"dice":{}`), // not kept: acknowledged all the same
		ev("t1", "resolved", 3, `,"call":"challenge","dice":{"`+seats[2]+`":-5},"out":["`+seats[2]+`"]`),
	} {
		seq := i + 1
		m.Ack = func() {
			lines, err := journal.ReadRecord(filepath.Join(dir, "cup.tournament"))
			if err != nil {
				t.Error(err)
			}
			text := string(joinLines(lines))
			if seq != 2 && !strings.Contains(text, fmt.Sprintf(`"seq":%d`, seq)) {
				t.Errorf("seq %d acknowledged before it was journaled", seq)
			}
			mu.Lock()
			acked[seq] = true
			mu.Unlock()
		}
		l.msgs <- m
	}
	waitUntil(t, "the acknowledgements", func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) == 3 })
	stop()
	// A restart: the game is started, and seats[2] is out.
	s2, stop2 := start(t, dir, newFakeLink())
	defer stop2()
	var v tournament.View
	_ = json.Unmarshal(s2.Snapshot().View, &v)
	g := v.Round.Games[0]
	if g.Status != "playing" || len(g.Out) != 1 || g.Out[0] != seats[2] {
		t.Errorf("after a restart: got %+v; want t1 playing with %s out", g, seats[2])
	}
}

func joinLines(lines [][]byte) []byte {
	var out []byte
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}

// TestARestartSendsEveryWaitingGameAgain: at each connection the service
// sends the new_game of every game its table has not started, with the
// same command id (the table answers it as then, and starts no game
// twice).
func TestARestartSendsEveryWaitingGameAgain(t *testing.T) {
	dir := t.TempDir()
	l := newFakeLink()
	s, stop := start(t, dir, l)
	must(t, s, setup)
	must(t, s, register)
	must(t, s, `{"type":"start_round"}`)
	first := l.sentTo()
	seats := seatsOf(t, s, "t1")
	dice, _ := json.Marshal(map[string]int{seats[0]: 5, seats[1]: 5, seats[2]: 5})
	l.msgs <- ev("t1", "hand_started", 1, `,"game":1,"hand":1,"opener":"a","dice":`+string(dice))
	waitUntil(t, "t1 to start", func() bool { return strings.Contains(string(s.Snapshot().View), `"status":"playing"`) })
	stop()
	if len(first) != 2 {
		t.Fatalf("got new games sent to %v; want t1 and t2", first)
	}
	l2 := newFakeLink()
	_, stop2 := start(t, dir, l2)
	defer stop2()
	l2.connected <- struct{}{}
	waitUntil(t, "the new_game sent again", func() bool { return len(l2.sentTo()) > 0 })
	if got := l2.sentTo(); len(got) != 1 || got[0] != "t2" {
		t.Errorf("got new games sent again to %v; want t2 only (t1 started)", got)
	}
	if !strings.Contains(string(l2.sent[0].line), `"id":"tournament:cup:r1:t2:a1"`) {
		t.Errorf("got %s; want the game's command id", l2.sent[0].line)
	}
}

// TestATablesRefusalIsShown: a refusal that says "never" (the table does
// not know the rules) is journaled and shown to the organiser; one that
// says "not now" (busy) is sent again.
func TestATablesRefusalIsShown(t *testing.T) {
	dir := t.TempDir()
	l := newFakeLink()
	s, stop := start(t, dir, l)
	defer stop()
	must(t, s, setup)
	must(t, s, register)
	must(t, s, `{"type":"start_round"}`)
	l.msgs <- link.Message{Kind: link.Reply, Table: "t2", Ack: func() {},
		Payload: []byte(`{"id":"tournament:cup:r1:t2:a1","ok":false,"reason":"busy","message":"the input queue is full"}`)}
	waitUntil(t, "t2's game sent again", func() bool { return len(l.sentTo()) == 3 })
	l.msgs <- link.Message{Kind: link.Reply, Table: "t1", Ack: func() {},
		Payload: []byte(`{"id":"tournament:cup:r1:t1:a1","ok":false,"reason":"unknown_rules","message":"no preset \"common-hand\""}`)}
	waitUntil(t, "t1's refusal", func() bool { return strings.Contains(string(s.Snapshot().View), `"status":"refused"`) })
	var v tournament.View
	_ = json.Unmarshal(s.Snapshot().View, &v)
	if len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "table t1 refused the game (unknown_rules") {
		t.Errorf("got problems %q; want t1's refusal", v.Problems)
	}
}

// TestRefusedInputsChangeNothing: a refused input is answered with its
// reason and is not journaled.
func TestRefusedInputsChangeNothing(t *testing.T) {
	dir := t.TempDir()
	l := newFakeLink()
	s, stop := start(t, dir, l)
	must(t, s, setup)
	must(t, s, register)
	before, _ := journal.ReadRecord(filepath.Join(dir, "cup.tournament"))
	for _, c := range []struct{ line, reason string }{
		{`{"type":"register","players":[{"name":"a"}]}`, tournament.DuplicatePlayer},
		{`not json`, tournament.BadInput},
		{`{"type":"override","round":1,"table":"t1","order":["a"],"reason":"x"}`, tournament.UnknownRound},
	} {
		if rep := s.Do(context.Background(), []byte(c.line)); rep.OK || rep.Reason != c.reason || rep.Message == "" {
			t.Errorf("%s: got %+v; want refused %s with a message", c.line, rep, c.reason)
		}
	}
	stop()
	after, _ := journal.ReadRecord(filepath.Join(dir, "cup.tournament"))
	if len(after) != len(before) {
		t.Errorf("got %d journal lines after refusals; want %d", len(after), len(before))
	}
}

// TestTheStateIsPublishedRetained: the tournament's state and standings
// go to its topics.
func TestTheStateIsPublishedRetained(t *testing.T) {
	l := newFakeLink()
	s, stop := start(t, t.TempDir(), l)
	defer stop()
	must(t, s, setup)
	state, standings, _ := link.Topics("", "cup")
	waitUntil(t, "the state published", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return strings.Contains(string(l.published[state]), `"format":"swiss"`) && len(l.published[standings]) > 0
	})
}

// TestAnEventThatNeverComesIsSkipped: a table's events wait for one that
// has not come, then, after the wait, are taken on without it; the
// journal and the page say so.
func TestAnEventThatNeverComesIsSkipped(t *testing.T) {
	dir := t.TempDir()
	l := newFakeLink()
	s, stop := start(t, dir, l)
	defer stop()
	must(t, s, setup)
	must(t, s, register)
	must(t, s, `{"type":"start_round"}`)
	seats := seatsOf(t, s, "t1")
	dice, _ := json.Marshal(map[string]int{seats[0]: 5, seats[1]: 5, seats[2]: 5})
	l.msgs <- ev("t1", "hand_started", 1, `,"game":1,"hand":1,"dice":`+string(dice))
	// seq 2 (a revealed event) is lost; 3 came.
	l.msgs <- ev("t1", "resolved", 3, `,"call":"challenge","dice":{"`+seats[2]+`":-5},"out":["`+seats[2]+`"]`)
	waitUntil(t, "seq 3 taken after the wait", func() bool { return strings.Contains(string(s.Snapshot().View), "never came") })
	var v tournament.View
	_ = json.Unmarshal(s.Snapshot().View, &v)
	if g := v.Round.Games[0]; len(g.Out) != 1 || g.Out[0] != seats[2] {
		t.Errorf("got %+v; want %s out once the lost event is skipped", g, seats[2])
	}
	lines, _ := journal.ReadRecord(filepath.Join(dir, "cup.tournament"))
	if !strings.Contains(string(joinLines(lines)), `"type":"skip_gap","at":`) {
		t.Errorf("the skip is not in the journal:\n%s", joinLines(lines))
	}
}
