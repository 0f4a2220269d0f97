package referee_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/refereetest"
)

// harness is refereetest's, with the referee's logs kept (tests read
// what it logged) and short names for what the tests use.
type harness struct {
	*refereetest.Harness
	ref     *referee.Referee
	j       *journal.Journal
	rec     *refereetest.Recorder
	journal string
	logs    *bytes.Buffer
}

// start runs a referee over the journal at path (replaying what it holds).
func start(t *testing.T, path string, cfg referee.Config) *harness {
	t.Helper()
	h := &harness{journal: path, logs: &bytes.Buffer{}}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(&syncWriter{w: h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	h.Harness = refereetest.Start(t, path, cfg)
	h.ref, h.j, h.rec = h.Ref, h.Journal, h.Rec
	return h
}

func (h *harness) stop() { h.Stop() }

func (h *harness) do(t *testing.T, line string) referee.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := h.ref.Do(ctx, []byte(line), referee.SourceMQTT)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return rep
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// adjudicate is liarsd adjudicate of the journal at path.
func adjudicate(t *testing.T, path string) string {
	t.Helper()
	var out bytes.Buffer
	if err := record.Adjudicate(bytes.NewReader(readJournal(t, path)), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// readJournal returns the journal's record: its lines, each ending in a
// newline.
func readJournal(t *testing.T, path string) []byte {
	t.Helper()
	lines, err := journal.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	return recordText(lines)
}

// recordText joins record lines, each ending in a newline.
func recordText(lines [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// The example of RECORD.md, sent as commands with ids.
var exampleGame = []struct {
	line   string
	ok     bool
	reason engine.Reason
}{
	{`{"id":1,"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":5}`, true, ""},
	{`{"id":"b1","type":"bid","seat":"ann","quantity":2,"face":3}`, true, ""},
	{`{"id":3,"type":"bid","seat":"bob","quantity":2,"face":2}`, false, engine.BidNotHigher},
	{`{"type":"challenge","seat":"bob"}`, true, ""},
	{`{"id":{"n":5},"type":"reveal","dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}`, true, ""},
}

func TestWholeGameFromCommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	ids := []string{`1`, `"b1"`, `3`, `null`, `{"n":5}`}
	for i, step := range exampleGame {
		rep := h.do(t, step.line)
		if rep.OK != step.ok || rep.Reason != step.reason {
			t.Errorf("%s: got ok %v reason %q (%s); want ok %v reason %q", step.line, rep.OK, rep.Reason, rep.Message, step.ok, step.reason)
		}
		if string(rep.ID) != ids[i] {
			t.Errorf("%s: got id %s; want %s", step.line, rep.ID, ids[i])
		}
	}
	h.stop()
	// RECORD.md's example output, the refused bid's rejected event included.
	want := `{"type":"hand_started","seq":1,"game":1,"hand":1,"opener":"ann","dice":{"ann":5,"bob":5,"cy":5}}
{"type":"rejected","seq":2,"line":3,"reason":"bid_not_higher","message":"two 2s does not raise two 3s"}
{"type":"revealed","seq":3,"dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}
{"type":"resolved","seq":4,"call":"challenge","bidder":"ann","caller":"bob","bid":{"quantity":2,"face":3},"count":2,"dice":{"bob":-1},"out":[]}
{"type":"hand_started","seq":5,"game":1,"hand":2,"opener":"bob","dice":{"ann":5,"bob":4,"cy":5}}
`
	if got := h.rec.EventLines(); got != want {
		t.Errorf("published events:\n%s\nwant:\n%s", got, want)
	}
	// The journal holds every line (with its id, last), the refused one
	// too, and adjudicating it gives exactly the published events.
	data := readJournal(t, path)
	wantJournal := `{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":5,"id":1}
{"type":"bid","seat":"ann","quantity":2,"face":3,"id":"b1"}
{"type":"bid","seat":"bob","quantity":2,"face":2,"id":3}
{"type":"challenge","seat":"bob"}
{"type":"reveal","dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]},"id":{"n":5}}
`
	if string(data) != wantJournal {
		t.Errorf("journal:\n%s\nwant:\n%s", data, wantJournal)
	}
	if got := adjudicate(t, path); got != want {
		t.Errorf("adjudicate(journal):\n%s\nwant:\n%s", got, want)
	}
	st := h.rec.LastState(t)
	if st["phase"] != "bidding" || st["seq"] != float64(5) || st["table"] != "t1" || st["status"] != "ready" {
		t.Errorf("state: got %v", st)
	}
}

func TestNewGameWithoutSeedIsJournaledWithOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{NewSeed: func() int64 { return 424242 }})
	if rep := h.do(t, `{"type":"new_game","rules":"tavern","seats":["ann","bob","cy"]}`); !rep.OK {
		t.Fatalf("new_game refused: %+v", rep)
	}
	h.stop()
	data := readJournal(t, path)
	if got, want := string(data), `{"type":"new_game","rules":"tavern","seats":["ann","bob","cy"],"seed":424242}`+"\n"; got != want {
		t.Errorf("journal: got %s; want %s", got, want)
	}
	if got, want := adjudicate(t, path), h.rec.EventLines(); got != want {
		t.Errorf("replay differs: got %s; want %s", got, want)
	}
}

func TestNewGameTakesTheTablesDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{NewGame: []byte(`{"type":"new_game","rules":"classic","seats":["a","b"],"options":{"ante":3}}`)})
	if rep := h.do(t, `{"type":"new_game","first":"b","seed":1}`); !rep.OK {
		t.Fatalf("new_game refused: %+v", rep)
	}
	if rep := h.do(t, `{"type":"new_game","rules":"tavern","seed":1}`); !rep.OK {
		t.Fatalf("new_game with rules refused: %+v", rep)
	}
	h.stop()
	data := readJournal(t, path)
	want := `{"type":"new_game","first":"b","seed":1,"rules":"classic","seats":["a","b"],"options":{"ante":3}}
{"type":"new_game","rules":"tavern","seed":1,"seats":["a","b"]}
`
	if string(data) != want {
		t.Errorf("journal:\n%s\nwant:\n%s", data, want)
	}
}

// Refused commands change nothing in the game. Each one a record can hold
// is journaled and published as its rejected event, with the next seq, as
// liarsd adjudicate gives it; a command too long for the referee, or not
// one line of JSON, is answered only.
func TestBadCommandsChangeNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	h.do(t, `{"type":"new_game","rules":"star-board","seats":["ann","bob"],"first":"ann","seed":9}`)
	h.rec.WaitFor(t, "the first state", func() bool { return len(h.rec.States()) >= 2 })

	huge := `{"type":"bid","seat":"ann","quantity":1,"face":2,"pad":"` + strings.Repeat("x", referee.MaxCommandBytes) + `"}`
	cases := []struct {
		line     string
		reason   engine.Reason
		recorded bool
	}{
		{`not json`, engine.BadInput, true},
		{`{"type":"bid","seat":"ann"`, engine.BadInput, true},
		{`{"id":7,"type":"teleport","seat":"ann"}`, engine.BadInput, true},
		{`{"type":"bid","seat":"ann","quantity":"two","face":3}`, engine.BadInput, true},
		{`[1,2,3]`, engine.BadInput, true},
		{`{"type":"bid","seat":"zed","quantity":1,"face":3}`, engine.UnknownSeat, true},
		{`{"type":"bid","seat":"bob","quantity":1,"face":3}`, engine.NotYourTurn, true},
		{`{"type":"challenge","seat":"ann"}`, engine.NoBidToCall, true},
		{`{"type":"reveal","dice":{"ann":[1,2,3,4,5],"bob":[1,2,3,4,5]}}`, engine.NotNow, true},
		{`{"type":"spot_on","seat":"ann"}`, engine.NotAllowed, true},
		{`{"type":"bid","seat":"ann","quantity":99,"face":3}`, engine.BadBid, true},
		// An exponent near 2^63 once wrapped the decoder's arithmetic and
		// panicked the daemon.
		{`{"type":"bid","seat":"ann","quantity":1e9223372036854775807,"face":3}`, engine.BadBid, true},
		{`{"type":"reveal","dice":{"ann":null}}`, engine.BadInput, true},
		{`{"type":"new_game","rules":"poker","seats":["a","b"]}`, engine.UnknownRules, true},
		{`{"type":"new_game","rules":"star-board","seats":["a","a"]}`, engine.BadSeats, true},
		{huge, engine.BadInput, false},
		{"{\"type\":\"bid\",\n\"seat\":\"ann\",\"quantity\":1,\"face\":2,\"seed\":\"x\"}\n{}", engine.BadInput, false},
	}
	seq, lines := 1, 1
	for _, c := range cases {
		rep := h.do(t, c.line)
		if rep.OK || rep.Reason != c.reason || rep.Message == "" {
			name := c.line
			if len(name) > 60 {
				name = name[:60] + "..."
			}
			t.Errorf("%s: got ok %v reason %q message %q; want reason %q", name, rep.OK, rep.Reason, rep.Message, c.reason)
		}
		if c.recorded {
			seq++
			lines++
		}
		if rep.Seq != seq {
			t.Errorf("%.40s: reply seq %d; want %d", c.line, rep.Seq, seq)
		}
	}
	if st := h.rec.LastState(t); st["phase"] != "bidding" || st["turn"] != "ann" || st["bid"] != nil || st["seq"] != float64(seq) {
		t.Errorf("after the refused commands: phase %v, turn %v, bid %v, seq %v; want the game as it was, seq %d", st["phase"], st["turn"], st["bid"], st["seq"], seq)
	}
	// A multi-line command that is otherwise good is journaled on one line.
	if rep := h.do(t, "{\"type\":\"bid\",\n \"seat\":\"ann\",\n \"quantity\":1,\"face\":2}"); !rep.OK {
		t.Errorf("a command spread over lines refused: %+v", rep)
	}
	h.stop()
	data := readJournal(t, path)
	if n := strings.Count(string(data), "\n"); n != lines+1 {
		t.Errorf("journal has %d lines; want %d:\n%s", n, lines+1, data)
	}
	if got, want := adjudicate(t, path), h.rec.EventLines(); got != want {
		t.Errorf("adjudicate(journal):\n%s\nwant the published events:\n%s", got, want)
	}
}

func TestRestartReplaysTheJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	for _, step := range exampleGame[:4] {
		h.do(t, step.line)
	}
	h.stop()
	first := h.rec.EventLines()

	// A restart publishes the same events, same seq, then carries on.
	h2 := start(t, path, referee.Config{})
	h2.rec.WaitFor(t, "replayed events and the state", func() bool {
		states := len(h2.rec.States())
		return h2.rec.EventLines() == first && states > 0
	})
	st := h2.rec.LastState(t)
	if st["phase"] != "reveal" || st["status"] != string(referee.StatusWaitingReveal) {
		t.Errorf("after restart: phase %v, status %v; want reveal, waiting for reveal", st["phase"], st["status"])
	}
	if rep := h2.do(t, exampleGame[4].line); !rep.OK || rep.Seq != 5 {
		t.Errorf("reveal after restart: %+v; want ok with seq 5", rep)
	}
	h2.stop()
	if got, want := h2.rec.EventLines(), adjudicate(t, path); got != want {
		t.Errorf("after restart, published:\n%s\nadjudicated:\n%s", got, want)
	}
	seqs := h2.rec.Seqs()
	for i, s := range seqs {
		if s != i+1 {
			t.Fatalf("seqs %v are not 1, 2, 3, ...", seqs)
		}
	}
}

func TestAJournalThatFailsDropsTheInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t1.journal")
	j, resume, err := journal.Open(path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := refereetest.NewRecorder()
	ref, err := referee.New(referee.Config{Journal: j, Publisher: rec, Table: "t1",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, resume)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = ref.Run(ctx) }()
	defer func() { cancel(); <-done }()
	rep, _ := ref.Do(ctx, []byte(`{"type":"new_game","rules":"kids","seats":["a","b"],"first":"a","seed":1}`), "test")
	if !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	j.Close() // the disk goes away
	rep, _ = ref.Do(ctx, []byte(`{"type":"bid","seat":"a","quantity":1,"face":3}`), "test")
	if rep.OK || rep.Reason != "journal_error" {
		t.Errorf("bid with a broken journal: %+v; want journal_error", rep)
	}
	rec.WaitFor(t, "an error state", func() bool {
		states := rec.States()
		return bytes.Contains(states[len(states)-1], []byte(`"status":"error"`))
	})
	st := rec.LastState(t)
	if st["turn"] != "a" || st["bid"] != nil {
		t.Errorf("the unjournaled bid shows in the state: %v", st)
	}
	if n := len(rec.Events()); n != 1 {
		t.Errorf("published %d events; want only the hand_started", n)
	}
}

func ExampleReferee_Do() {
	dir, _ := os.MkdirTemp("", "liarsd-example-")
	defer os.RemoveAll(dir)
	j, resume, _ := journal.Open(filepath.Join(dir, "home.journal"), journal.Options{})
	defer j.Close()
	pub := refereetest.NewRecorder()
	ref, _ := referee.New(referee.Config{Table: "home", Journal: j, Publisher: pub,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, resume)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = ref.Run(ctx) }()
	rep, _ := ref.Do(ctx, []byte(`{"id":1,"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`), referee.SourceOperator)
	fmt.Println(rep.OK, rep.Seq)
	rep, _ = ref.Do(ctx, []byte(`{"id":2,"type":"bid","seat":"bob","quantity":1,"face":6}`), referee.SourceOperator)
	fmt.Println(rep.OK, rep.Reason)
	cancel()
	<-done
	fmt.Print(pub.EventLines())
	// Output:
	// true 1
	// false not_your_turn
	// {"type":"hand_started","seq":1,"game":1,"hand":1,"opener":"ann","dice":{"ann":5,"bob":5}}
	// {"type":"rejected","seq":2,"line":2,"reason":"not_your_turn","message":"it is ann's turn, not bob's"}
}

// A command the broker delivers again after a crash (its DUP flag) is
// answered, not applied twice, also after a restart.
func TestRedeliveredCommandIsNotAppliedTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{})
	submit := func(h *harness, line string, redelivered bool) referee.Reply {
		ch := make(chan referee.Reply, 1)
		if err := h.ref.SubmitCommand([]byte(line), redelivered, func(r referee.Reply) { ch <- r }); err != nil {
			t.Fatal(err)
		}
		return <-ch
	}
	newGame := `{"id":"g1","type":"new_game","rules":"tavern","seats":["ann","bob"],"first":"ann"}`
	if rep := submit(h, newGame, false); !rep.OK || rep.Seq != 1 {
		t.Fatalf("new_game: %+v", rep)
	}
	bid := `{"id":"b1","type":"bid","seat":"ann","quantity":1,"face":2}`
	if rep := submit(h, bid, false); !rep.OK {
		t.Fatalf("bid: %+v", rep)
	}
	if rep := submit(h, newGame, true); !rep.OK || rep.Seq != 1 {
		t.Errorf("redelivered new_game: %+v; want ok with its seq", rep)
	}
	h.stop()
	h2 := start(t, path, referee.Config{})
	if rep := submit(h2, bid, true); !rep.OK {
		t.Errorf("redelivered bid after a restart: %+v", rep)
	}
	// A redelivered command that was never applied is applied.
	if rep := submit(h2, `{"id":"b2","type":"bid","seat":"bob","quantity":2,"face":2}`, true); !rep.OK {
		t.Errorf("redelivered new command: %+v", rep)
	}
	h2.stop()
	data := readJournal(t, path)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("journal has %d lines; want 3:\n%s", n, data)
	}
}

// faultyPublisher fails (panics) the first time it publishes the state
// after being armed.
type faultyPublisher struct {
	*refereetest.Recorder
	armed atomic.Bool
}

func (p *faultyPublisher) State(b []byte) {
	if p.armed.CompareAndSwap(true, false) {
		panic("publisher on fire")
	}
	p.Recorder.State(b)
}

// TestFaultDuringInputIsSurvived checks that a panic while the referee takes
// an input does not end the table: the input is answered internal_error
// with its id, the fault is logged with its stack, the table is what its
// journal says, and the next input is taken.
func TestFaultDuringInputIsSurvived(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	pub := &faultyPublisher{Recorder: refereetest.NewRecorder()}
	h := start(t, path, referee.Config{Publisher: pub})
	if rep := h.do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	pub.armed.Store(true)
	rep := h.do(t, `{"id":"b1","type":"bid","seat":"ann","quantity":1,"face":3}`)
	if rep.OK || rep.Reason != referee.ReasonInternalError || string(rep.ID) != `"b1"` || rep.Message == "" {
		t.Fatalf("the bid during the fault: got %+v; want internal_error for id \"b1\"", rep)
	}
	// The bid was journaled before the state went out, so the rebuilt
	// table has it: bob's turn, and ann's same bid again does not raise it.
	if rep := h.do(t, `{"type":"bid","seat":"bob","quantity":2,"face":3}`); !rep.OK {
		t.Fatalf("the next bid after the fault: got %+v; want it taken", rep)
	}
	if st := pub.LastState(t); st["turn"] != "ann" {
		t.Errorf("state after the fault: turn %v; want ann", st["turn"])
	}
	h.stop()
	if logs := h.logs.String(); !strings.Contains(logs, "publisher on fire") || !strings.Contains(logs, "goroutine") {
		t.Errorf("the fault is not logged with its stack:\n%s", logs)
	}
	data := readJournal(t, path)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("journal has %d lines; want 3 (new_game and both bids):\n%s", n, data)
	}
}
