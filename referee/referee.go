package referee

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/vision"
)

// MaxCommandBytes is the longest input the referee takes; a longer one is
// refused as bad_input without being parsed.
const MaxCommandBytes = 64 << 10

// DefaultRetryCapture is how long the referee waits before capturing again
// when a read needs a look.
const DefaultRetryCapture = 2 * time.Second

// Sources of inputs, as logs and observers name them.
const (
	SourceMQTT     = "mqtt"
	SourceButtons  = "buttons"
	SourceCamera   = "camera"
	SourceOperator = "operator"
	SourceSeat     = "seat" // a computer seat, "seat:NAME"
)

// OperatorIDPrefix begins the ids of the operator page's commands: a
// command over MQTT whose id is a string with it is the operator's (its
// source is SourceOperator). It grants nothing: the source only names who
// sent a line, in logs, to observers and on the operator page.
const OperatorIDPrefix = "operator-"

// ErrBusy is returned by Submit when the input queue is full.
var ErrBusy = errors.New("referee: busy, the input queue is full")

// ErrStopped is returned by Submit after Run has returned.
var ErrStopped = errors.New("referee: stopped")

// Config is what a Referee is made of. Publisher and Journal are required;
// the rest may be left out.
type Config struct {
	// Table is the table's id (MQTT topics, logs).
	Table     string
	Journal   *journal.Journal
	Publisher Publisher
	// Board shows the game on the LEDs; nil for none.
	Board Board
	// Camera, Reader and Zones read a reveal after a call. Without a
	// camera, reveals come from commands (an operator, a scoreboard app).
	Camera Camera
	Reader Reader
	Zones  Zones
	// RetryCapture is the wait before capturing again after a read that
	// needs a look (DefaultRetryCapture).
	RetryCapture time.Duration
	Clock        Clock
	Logger       *slog.Logger
	// Observe, when set, is called from the referee's goroutine after each
	// accepted input. It must not block.
	Observe func(Change)
	// OnRead, when set, is called from the referee's goroutine after each
	// camera read of a reveal with how long it took, its result ("ok";
	// "unconfirmed": dice in doubt that could not change the verdict;
	// "needs_look" or "error") and the number of dice in doubt. It must
	// not block.
	OnRead func(took time.Duration, result string, uncertainDice int)
	// NewSeed gives the seed of a new_game that names none (crypto/rand).
	NewSeed func() int64
	// QueueLen is the input queue's length (256).
	QueueLen int
	// Computers are the seats the referee plays: a new_game that names them
	// (and no computer field of its own) makes them computer seats, whose
	// dice the engine rolls, and the referee plays their turns.
	Computers []Computer
	// ComputerPace is the pause before a computer seat acts, so that people
	// see the table move (DefaultComputerPace).
	ComputerPace time.Duration
	// NewGame is the table's usual new_game line: a new_game that names no
	// rules or seats takes them (and the options) from it.
	NewGame []byte
	// Examples, when set, keeps each reveal's frame with its final dice as
	// a labelled training example (config camera.learn). Its owner closes
	// it after Run returns.
	Examples *Examples
}

// Referee runs one table. Make it with New, run it with Run, and feed it
// with Submit from any goroutine.
type Referee struct {
	cfg   Config
	log   *slog.Logger
	table *engine.Table
	// base is the journal's checkpoint the table was resumed from (or
	// the last segment's, once a new one began), and lines the journal's
	// lines after it, refused ones too: record line base.Lines+i+1 is
	// lines[i].
	base  journal.Checkpoint
	lines [][]byte
	// game holds the accepted lines of the game in progress, from its
	// new_game: a checkpoint's Game.
	game [][]byte
	// gameNumber counts the journal's accepted new_game lines: the game
	// in progress's number in the journal (the state's game_number, as
	// the scoreboard's records number games).
	gameNumber int
	// journalSeq is the seq the journal's replay reached in New.
	journalSeq int
	// accepted counts the accepted lines: the table changes only with
	// them, so a camera read started before a refused line still fits.
	accepted int
	// lastRoll is the game's last accepted opening roll.
	lastRoll map[string][]int
	replay   []engine.Event

	inputs   chan input
	internal chan func()
	done     chan struct{}
	ctx      context.Context

	status    Status
	statusErr string
	last      *engine.Resolved
	// lastUnconfirmed is the last revealed event's unconfirmed dice (the
	// state's last_unconfirmed), while last is its resolution.
	lastUnconfirmed map[string][]int

	// applied remembers the answers to the command ids of the last
	// MaxRememberedIDs journaled lines that have one (the window, see
	// MaxRememberedIDs), by idKey, so that a command sent again (a
	// client's retry, the broker's redelivery after a crash) is answered
	// as then, not applied (or refused and journaled) twice. appliedOrder
	// holds their keys, oldest first, and appliedBytes the length of
	// their answers as a checkpoint keeps them. At a start the window is
	// the checkpoint's, then the ids of the lines replayed after it.
	applied      map[string]answer
	appliedOrder []string
	appliedBytes int
	capture      captureState
	comp         *computers
	// reads keeps the camera's last read for the operator page.
	reads operatorReads
}

type input struct {
	line        []byte
	source      string
	redelivered bool
	reply       func(Reply)
	at          time.Time
}

type captureState struct {
	running bool
	version int // r.accepted when the read started
	attempt int
	forHand int // r.accepted at the call that the attempts count for
	doubt   bool
	stop    func() bool
	// frame is the last read's frame, kept for the operator page and the
	// examples while the table is as read (frameVersion), with its dice.
	frame        *Frame
	frameVersion int
	frameDice    []vision.Die
	// look is the last read's look while the status is needs a look.
	look *stateLook
}

// New returns a referee whose table has resumed from what journal.Open
// read: the table at the checkpoint (its game in progress replayed, its
// seq and its remembered command ids), then the lines after it replayed.
// Replay regenerates the same events with the same seq; Run hands them to
// the Publisher first, which skips those already delivered. When the
// journal's last segment is full (or an older journal's file), Run starts
// a new one first: New writes nothing.
func New(cfg Config, resume journal.Resume) (*Referee, error) {
	if cfg.Journal == nil {
		return nil, errors.New("referee: no journal")
	}
	if cfg.Publisher == nil {
		return nil, errors.New("referee: no publisher")
	}
	if cfg.Camera != nil && (cfg.Reader == nil || cfg.Zones == nil) {
		return nil, errors.New("referee: a camera needs a reader and seat zones")
	}
	if cfg.RetryCapture <= 0 {
		cfg.RetryCapture = DefaultRetryCapture
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.NewSeed == nil {
		cfg.NewSeed = randomSeed
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = 256
	}
	if cfg.ComputerPace <= 0 {
		cfg.ComputerPace = DefaultComputerPace
	}
	r := &Referee{
		cfg:      cfg,
		log:      cfg.Logger.With("table", cfg.Table),
		table:    engine.NewTable(),
		inputs:   make(chan input, cfg.QueueLen),
		internal: make(chan func(), 16),
		done:     make(chan struct{}),
		status:   StatusReady,
	}
	var err error
	if r.comp, err = newComputers(cfg.Computers, cfg.NewSeed()); err != nil {
		return nil, err
	}
	r.resetTo(resume.Checkpoint)
	r.replay = r.replayLines(resume.Lines)
	r.journalSeq = r.table.Seq()
	if len(resume.Lines) > 0 || resume.Checkpoint.Lines > 0 {
		r.log.Info("referee: journal replayed", "from_line", resume.Checkpoint.Lines+1, "lines", len(r.lines), "seq", r.table.Seq())
	}
	return r, nil
}

// resetTo makes the table as it was at checkpoint cp: the game in
// progress replayed through a new table, numbered on from cp's seq, the
// last resolution and the window of command ids as the checkpoint has
// them.
func (r *Referee) resetTo(cp journal.Checkpoint) {
	r.base, r.lines, r.game, r.lastRoll, r.last, r.lastUnconfirmed = cp, nil, nil, nil, nil, nil
	r.applied, r.appliedOrder, r.appliedBytes = map[string]answer{}, nil, 0
	for _, c := range cp.Commands {
		var m remembered
		if err := json.Unmarshal(c, &m); err != nil {
			r.log.Warn("referee: a command id of the journal's checkpoint is unreadable; left out", "segment", cp.Segment, "err", err)
			continue
		}
		r.remember(Reply{ID: m.ID, OK: m.OK, Reason: m.Reason, Message: m.Message, Seq: m.Seq})
	}
	r.table = engine.NewTable()
	for _, l := range cp.Game {
		line := []byte(l)
		evs, ok := replayLine(r.table, 0, line)
		for _, e := range evs {
			if rv, isReveal := e.(*engine.Revealed); isReveal {
				r.lastUnconfirmed = rv.Unconfirmed
			}
		}
		if !ok {
			// A changed engine that refuses a line it once took: the game
			// goes on without it, as a whole replay would have it.
			r.log.Warn("referee: a line of the game in progress at the journal's checkpoint is refused now", "segment", cp.Segment)
			continue
		}
		r.noteLine(line)
	}
	// The game's lines count their new_game once more: the checkpoint's
	// count is the journal's (an older checkpoint has none: the game in
	// progress is then the first known).
	r.gameNumber = cp.Games
	if r.gameNumber == 0 && len(r.game) > 0 {
		r.gameNumber = 1
	}
	r.table.ResumeAt(cp.Seq)
	if len(cp.Last) > 0 {
		var last engine.Resolved
		if err := json.Unmarshal(cp.Last, &last); err == nil {
			r.last = &last
		}
	}
}

// replayLines applies journaled lines after r.lines as liarsd adjudicate
// reads them (a refused line, journaled so or refused now by a changed
// engine, is a rejected event), notes the command ids they carry with
// their answers, and returns their events.
func (r *Referee) replayLines(lines [][]byte) []engine.Event {
	var all []engine.Event
	for _, line := range lines {
		evs, ok := replayLine(r.table, r.lineNo()+1, line)
		if ok {
			r.accepted++
			r.noteLine(line)
		}
		r.rememberEvents(line, evs, r.table.Seq())
		for _, e := range evs {
			r.noteEvent(e)
		}
		r.lines = append(r.lines, line)
		all = append(all, evs...)
	}
	return all
}

// noteLine keeps what an accepted journaled line changes besides the
// table: the game's lines and its last opening roll. The line is decoded
// again only when it may be a new_game or an opening_roll, so that a long
// journal replays at the engine's speed.
func (r *Referee) noteLine(line []byte) {
	if bytes.Contains(line, []byte(engine.ActOpeningRoll)) || bytes.Contains(line, []byte(engine.ActNewGame)) {
		if a, err := record.Decode(line); err == nil {
			r.noteAccepted(a)
			if a.Type == engine.ActNewGame {
				r.game = nil
				r.gameNumber++
			}
		}
	}
	r.game = append(r.game, line)
}

// lineNo is the number of the journal's last line (from its start).
func (r *Referee) lineNo() int { return r.base.Lines + len(r.lines) }

// JournalSeq returns the seq of the journal's last event when New
// returned: the daemon compares it with the last event the broker
// acknowledged.
func (r *Referee) JournalSeq() int { return r.journalSeq }

// answer is a remembered command id's answer, and its encoding as a
// checkpoint keeps it.
type answer struct {
	rep Reply
	enc []byte
}

// remembered is an answer to a command id, as a checkpoint keeps it.
type remembered struct {
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Reason  engine.Reason   `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	Seq     int             `json:"seq"`
}

// maybeRotate starts a new journal segment when one is due, its
// checkpoint the table as it stands after the journal's last line. A
// failure is logged: lines go on to the last segment, and the next line
// tries again.
func (r *Referee) maybeRotate() {
	if !r.cfg.Journal.Full() {
		return
	}
	st := journal.State{Seq: r.table.Seq(), Games: r.gameNumber}
	for _, l := range r.game {
		st.Game = append(st.Game, string(l))
	}
	if r.last != nil {
		st.Last, _ = json.Marshal(r.last)
	}
	// The whole window of command ids, oldest first: a start from this
	// checkpoint remembers what the referee remembers now.
	for _, key := range r.appliedOrder {
		st.Commands = append(st.Commands, r.applied[key].enc)
	}
	cp, err := r.cfg.Journal.Rotate(st)
	if err != nil {
		r.log.Error("referee: starting a new journal segment failed; lines go on to the last one", "err", err)
		return
	}
	if cp.Lines != r.lineNo() {
		// Never expected: the journal and the referee disagree on its
		// lines. The checkpoint holds the table as it is, so it resumes.
		r.log.Error("referee: the journal's line count is not the referee's", "journal", cp.Lines, "referee", r.lineNo())
	}
	r.base, r.lines = cp, nil
	r.log.Info("referee: new journal segment", "segment", cp.Segment, "after_line", cp.Lines, "seq", cp.Seq)
}

// replayLine applies line n of the journal as liarsd adjudicate does: a
// blank line (an empty entry from journal.Open) gives nothing, a line over
// record.MaxLineBytes is refused as bad_input unread.
func replayLine(t *engine.Table, n int, line []byte) ([]engine.Event, bool) {
	switch {
	case len(line) == 0:
		return nil, false
	case len(line) > record.MaxLineBytes:
		return []engine.Event{t.Reject(n, &engine.Rejection{Reason: engine.BadInput,
			Message: fmt.Sprintf("the line is longer than %d bytes", record.MaxLineBytes)})}, false
	}
	return record.ApplyLine(t, n, line)
}

func randomSeed() int64 {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return time.Now().UnixNano()
	}
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// Submit queues a record line (optionally with an "id") from source;
// reply, when not nil, is called from the referee's goroutine with the
// answer. It never blocks: a full queue gives ErrBusy.
func (r *Referee) Submit(line []byte, source string, reply func(Reply)) error {
	return r.submit(input{line: line, source: source, reply: reply})
}

// SubmitCommand queues an MQTT command. redelivered says the broker sent
// it before (a crash came between taking it and acknowledging it); it is
// logged. A command whose id one of the last MaxRememberedIDs journaled
// lines had, however it came again, is answered as then and not applied
// again (see handle).
func (r *Referee) SubmitCommand(payload []byte, redelivered bool, reply func(Reply)) error {
	return r.submit(input{line: payload, source: SourceMQTT, redelivered: redelivered, reply: reply})
}

func (r *Referee) submit(in input) error {
	select {
	case <-r.done:
		return ErrStopped
	default:
	}
	in.at = r.cfg.Clock.Now()
	select {
	case r.inputs <- in:
		return nil
	default:
		return ErrBusy
	}
}

// Do submits a line and waits for its reply.
func (r *Referee) Do(ctx context.Context, line []byte, source string) (Reply, error) {
	ch := make(chan Reply, 1)
	if err := r.Submit(line, source, func(rep Reply) { ch <- rep }); err != nil {
		return Reply{}, err
	}
	select {
	case rep := <-ch:
		return rep, nil
	case <-r.done:
		return Reply{}, ErrStopped
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// Correct submits a correction of the last accepted reveal (a correct
// line, docs/corrections.md) from the operator and waits for its reply:
// the same path as every input, journaled, its events published. A
// refused correction is answered with its reason (not_now once the next
// hand's first bid was taken, bad_reveal for dice that do not fit the
// hand) and, like any refused line, journaled as its rejected event.
func (r *Referee) Correct(ctx context.Context, dice map[string][]int) (Reply, error) {
	line, err := json.Marshal(struct {
		Type string           `json:"type"`
		Dice map[string][]int `json:"dice"`
	}{engine.ActCorrect, dice})
	if err != nil {
		return Reply{}, fmt.Errorf("referee: encoding a correction: %w", err)
	}
	return r.Do(ctx, line, SourceOperator)
}

// Run referees until ctx is done. It first starts a new journal segment
// if one is due, publishes the events replayed from the journal and the
// state, then takes inputs one at a time.
func (r *Referee) Run(ctx context.Context) error {
	r.ctx = ctx
	defer close(r.done)
	defer func() {
		if r.capture.stop != nil {
			r.capture.stop()
		}
		r.dropFrame()
	}()
	r.maybeRotate()
	for _, e := range r.replay {
		r.publishEvent(e)
	}
	r.replay = nil
	snap := r.table.Snapshot()
	r.refreshBoard(snap)
	r.updateStatus()
	r.publishState()
	r.maybeCapture()
	r.playComputers(engine.Action{}, "")
	for {
		select {
		case <-ctx.Done():
			return nil
		case in := <-r.inputs:
			r.handle(in)
		case f := <-r.internal:
			f()
		}
	}
}

// post runs f on the referee's goroutine; it gives up when Run is over.
// It never blocks: the referee's goroutine itself posts (a computer seat's
// show, a reveal of computer seats alone), and it is the only one that
// empties the channel, so waiting on a full one there would hang the table.
func (r *Referee) post(f func()) {
	select {
	case r.internal <- f:
		return
	case <-r.done:
		return
	default:
	}
	go func() {
		select {
		case r.internal <- f:
		case <-r.done:
		}
	}()
}

// handle takes one input: it answers it and, when accepted, journals it
// and publishes its effects. An input with the id of one of the last
// MaxRememberedIDs journaled lines is the same command sent again (a
// client that retried after a lost reply or a timeout, the broker's
// redelivery after a crash, a retained copy): it gets the first one's
// answer again and changes nothing, whatever path it came by.
func (r *Referee) handle(in input) {
	if len(in.line) <= MaxCommandBytes {
		id, _ := splitCommand(in.line)
		if in.source == SourceMQTT && bytes.HasPrefix(id, []byte(`"`+OperatorIDPrefix)) {
			// The operator page's own command: logged, and shown on the
			// page, as the operator's.
			in.source = SourceOperator
		}
		if a, ok := r.applied[idKey(id)]; ok {
			prev := a.rep
			r.log.Info("referee: a command id seen before; answered as then, not applied again", "id", string(id), "ok", prev.OK, "source", in.source, "redelivered", in.redelivered)
			if in.reply != nil {
				prev.ID = id
				in.reply(prev)
			}
			return
		}
	}
	rep := r.apply(in.line, in.source)
	if in.reply != nil {
		in.reply(rep)
	}
}

// recordable says whether a refused input belongs in the record, as a
// line that adjudicates to its rejected event: a line from the table's
// people (not the camera's misreads, not the referee's own computer
// seats), on one line, and not blank (a record skips blank lines).
func recordable(line []byte, source string) bool {
	if source == SourceCamera || strings.HasPrefix(source, SourceSeat+":") {
		return false
	}
	return len(bytes.TrimSpace(line)) > 0 && !bytes.ContainsAny(line, "\r\n") && utf8.Valid(line)
}

// reject journals a refused line and publishes its rejected event, which
// takes the next seq as in liarsd adjudicate's output of the record, so
// that the events topic carries every event of the record. A line that
// cannot be journaled is answered only.
func (r *Referee) reject(line []byte, rej *engine.Rejection) {
	if err := r.cfg.Journal.Append(line); err != nil {
		r.log.Error("referee: journal append failed; the refusal is answered only", "err", err)
		// As for an accepted input: the table says its journal fails.
		r.statusErr = err.Error()
		r.updateStatus()
		r.publishState()
		return
	}
	r.lines = append(r.lines, line)
	ev := r.table.Reject(r.lineNo(), rej)
	r.rememberEvents(line, []engine.Event{ev}, r.table.Seq())
	if r.statusErr != "" {
		r.statusErr = ""
		r.updateStatus()
	}
	r.publishEvent(ev)
	r.publishState()
	r.maybeRotate()
}

// refuseForComputer refuses a move of a computer seat that the seat itself
// did not make: the referee plays it. A show tried on its behalf would
// otherwise tell, by its refusal, which faces its hidden dice hold. A
// computer seat may still be made to leave.
func (r *Referee) refuseForComputer(a engine.Action, source string) error {
	switch a.Type {
	case engine.ActBid, engine.ActShow, engine.ActChallenge, engine.ActSpotOn, engine.ActFold, engine.ActAllIn:
	default:
		return nil
	}
	if source == SourceSeat+":"+a.Seat {
		return nil
	}
	for _, s := range r.table.Snapshot().Seats {
		if s.Name == a.Seat && s.Computer {
			return &engine.Rejection{Reason: engine.NotAllowed, Message: fmt.Sprintf("%s is a computer seat: the referee plays it", a.Seat)}
		}
	}
	return nil
}

// apply takes one input (see applyInput). A fault in the referee's own
// code while it does (a panic) does not end the daemon: it is logged with
// its stack, the table is rebuilt from the journal's lines, as after a
// failed append, and the input is answered internal_error. The decoder and
// the engine are fuzzed and no input is known to do this; one that did
// once (a number's exponent near 2^63) took the whole table down.
func (r *Referee) apply(payload []byte, source string) (rep Reply) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		r.log.Error("referee: a fault while taking an input; the table is rebuilt from its journal", "source", source, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		r.rebuild()
		rep = Reply{ID: json.RawMessage("null"), Reason: ReasonInternalError, Seq: r.table.Seq(),
			Message: fmt.Sprintf("the referee failed while taking this input (%v); the table is as its journal has it", p)}
		r.guarded("publishing the rebuilt state", r.publishState)
		r.guarded("reading the command's id", func() { rep.ID, _ = splitCommand(payload) })
	}()
	return r.applyInput(payload, source)
}

// guarded runs f, logging instead of passing on a panic: apply's recovery
// must not fail the way the input did.
func (r *Referee) guarded(what string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("referee: a fault "+what, "panic", fmt.Sprint(p))
		}
	}()
	f()
}

// ReasonInternalError is the reply's reason for an input during which the
// referee itself failed (see apply).
const ReasonInternalError engine.Reason = "internal_error"

// applyInput takes one input: decodes it, applies it to the table, and
// journals and publishes what it changed.
func (r *Referee) applyInput(payload []byte, source string) Reply {
	if len(payload) > MaxCommandBytes {
		r.log.Warn("referee: input refused", "source", source, "reason", engine.BadInput, "bytes", len(payload))
		return Reply{ID: json.RawMessage("null"), Reason: engine.BadInput, Seq: r.table.Seq(),
			Message: fmt.Sprintf("the command is %d bytes, longer than %d", len(payload), MaxCommandBytes)}
	}
	id, line := splitCommand(payload)
	rep := Reply{ID: id}
	a, err := record.Decode(line)
	if err == nil && a.Type == engine.ActNewGame {
		line = withDefaults(line, r.cfg.NewGame)
		if seeded, added := withSeed(line, r.cfg.NewSeed()); added {
			line = seeded
		}
		line = withComputers(line, r.cfg.Computers)
		a, err = record.Decode(line)
	}
	var evs []engine.Event
	refusedForComputer := false
	if err == nil {
		err = r.refuseForComputer(a, source)
		refusedForComputer = err != nil
	}
	var before engine.Snapshot
	if err == nil && (a.Type == engine.ActReveal || a.Type == engine.ActOpeningRoll) {
		before = r.table.Snapshot()
	}
	if err == nil {
		evs, err = r.table.Apply(a)
	}
	if err != nil {
		var rej *engine.Rejection
		if !errors.As(err, &rej) {
			rej = &engine.Rejection{Reason: engine.BadInput, Message: err.Error()}
		}
		rep.Reason, rep.Message, rep.Seq = rej.Reason, rej.Message, r.table.Seq()
		if source == SourceCamera {
			// A misread's faces are not a reveal: keep them out of the log.
			r.log.Info("referee: input refused", "source", source, "type", a.Type, "reason", rej.Reason)
			return rep
		}
		r.log.Info("referee: input refused", "source", source, "type", a.Type, "reason", rej.Reason, "message", rej.Message)
		if recordable(line, source) && !refusedForComputer {
			r.reject(withID(line, id), rej)
			rep.Seq = r.table.Seq()
		}
		return rep
	}
	journaled := withID(line, id)
	if err := r.cfg.Journal.Append(journaled); err != nil {
		// The table moved on but the input is not durable: rebuild the
		// table from the journal's lines so that nothing unjournaled is
		// ever published.
		r.log.Error("referee: journal append failed; the input is dropped", "source", source, "err", err)
		r.rebuild()
		r.statusErr = err.Error()
		r.updateStatus()
		r.publishState()
		rep.Reason, rep.Message, rep.Seq = "journal_error", "the referee could not record the input: "+err.Error(), r.table.Seq()
		return rep
	}
	r.statusErr = ""
	r.lines = append(r.lines, journaled)
	r.accepted++
	r.noteAccepted(a)
	r.noteRead(a, source, before)
	r.noteExample(a)
	if a.Type == engine.ActNewGame {
		r.game = nil
		r.gameNumber++
	}
	r.game = append(r.game, journaled)
	r.rememberEvents(journaled, evs, r.table.Seq())
	if a.Type == engine.ActNewGame {
		// The seed stays in the journal: from it, computer seats' dice
		// could be worked out.
		r.log.Info("referee: new game", "source", source, "rules", a.Rules, "seats", a.Seats, "seq", r.table.Seq())
	} else {
		r.log.Info("referee: input accepted", "source", source, "line", string(line), "seq", r.table.Seq())
	}
	for _, e := range evs {
		r.publishEvent(e)
	}
	snap := r.table.Snapshot()
	r.showOnBoard(a, evs, snap)
	r.updateStatus()
	r.publishState()
	if r.cfg.Observe != nil {
		r.cfg.Observe(Change{Line: line, Source: source, Events: evs, Snapshot: snap, Game: r.gameNumber})
	}
	r.maybeRotate()
	r.maybeCapture()
	r.playComputers(a, source)
	rep.OK, rep.Seq = true, r.table.Seq()
	return rep
}

// MaxRememberedIDs is how many command ids a table remembers (the window):
// those of its last MaxRememberedIDs journaled lines (accepted or refused)
// that have one, fewer only when their answers would exceed
// MaxRememberedBytes. A command whose id is among them is answered as then
// and not applied again; an older id is forgotten, and a command that
// reuses it is taken as a new one. Inputs that are not journaled (a busy
// or journal_error answer, a camera's misread) are not remembered. Each
// journal segment's checkpoint keeps the whole window, so that a start
// from it remembers the same ids as one that replays the whole journal.
const MaxRememberedIDs = 4096

// MaxRememberedBytes bounds the window's answers as a checkpoint keeps them
// (JSON: each its id, reason and message and about 30 bytes more; a short
// id and a refusal's message take about 100): an id may be any
// JSON value up to MaxCommandBytes, and every segment's checkpoint holds
// them all. 4096 answers fit when they average 256 bytes; longer ones
// shorten the window, the oldest forgotten first.
const MaxRememberedBytes = 1 << 20

// rememberEvents notes the id of a journaled line, if it has one, with
// the answer it had: accepted, or refused as its rejected event says.
func (r *Referee) rememberEvents(line []byte, evs []engine.Event, seq int) {
	if len(line) == 0 {
		return
	}
	id, _ := splitCommand(line)
	key := string(id)
	if key == "null" {
		return
	}
	rep := Reply{ID: id, OK: true, Seq: seq}
	for _, e := range evs {
		if rj, ok := e.(*engine.Rejected); ok {
			rep = Reply{ID: id, Reason: rj.Reason, Message: rj.Message, Seq: seq}
		}
	}
	r.remember(rep)
}

// remember keeps the answer to a command id, as the newest in the window
// (see MaxRememberedIDs), and forgets the oldest beyond it. An id
// remembered already keeps its first answer and its place: a journal
// written before ids were checked on every path may hold an id twice, and
// its first answer is the one given again.
func (r *Referee) remember(rep Reply) {
	key := idKey(rep.ID)
	if _, ok := r.applied[key]; ok {
		return
	}
	enc, err := json.Marshal(remembered{ID: rep.ID, OK: rep.OK, Reason: rep.Reason, Message: rep.Message, Seq: rep.Seq})
	if err != nil {
		r.log.Warn("referee: an answer to a command id cannot be kept", "err", err)
		return
	}
	r.applied[key] = answer{rep: rep, enc: enc}
	r.appliedOrder = append(r.appliedOrder, key)
	r.appliedBytes += len(enc)
	for len(r.appliedOrder) > 1 && (len(r.appliedOrder) > MaxRememberedIDs || r.appliedBytes > MaxRememberedBytes) {
		old := r.appliedOrder[0]
		r.appliedBytes -= len(r.applied[old].enc)
		delete(r.applied, old)
		r.appliedOrder = r.appliedOrder[1:]
	}
}

// idKey is the key of a command id in the window: the id as a journal
// checkpoint gives it back. encoding/json writes <, > and & in strings as
// \u003c, \u003e and \u0026, so that an id holding one would otherwise be
// another key after a restart from a checkpoint than after a whole replay.
func idKey(id json.RawMessage) string {
	if !bytes.ContainsAny(id, "<>&\u2028\u2029") {
		return string(id)
	}
	var b bytes.Buffer
	json.HTMLEscape(&b, id)
	return b.String()
}

// rebuild makes the table and the window of command ids again from the
// journal: from the checkpoint it resumed from (or the last one written),
// the lines after it replayed, the refused ones as rejected events.
func (r *Referee) rebuild() {
	lines, last, unconfirmed, accepted := r.lines, r.last, r.lastUnconfirmed, r.accepted
	r.resetTo(r.base)
	r.replayLines(lines)
	r.last, r.lastUnconfirmed, r.accepted = last, unconfirmed, accepted
}

func (r *Referee) publishEvent(e engine.Event) {
	b, err := json.Marshal(e)
	if err != nil {
		r.log.Error("referee: marshalling an event", "err", err)
		return
	}
	r.cfg.Publisher.Event(e.Head().Seq, b)
	r.logEvent(e)
	r.noteEvent(e)
}

// noteEvent keeps the last resolution, for the state's "last", and its
// reveal's unconfirmed dice (a hand ended by folds has none).
func (r *Referee) noteEvent(e engine.Event) {
	switch e := e.(type) {
	case *engine.Revealed:
		r.lastUnconfirmed = e.Unconfirmed
	case *engine.Resolved:
		r.last = e
		if e.Call == engine.ActFold {
			r.lastUnconfirmed = nil
		}
	case *engine.HandStarted:
		if e.Game == 1 && e.Hand == 1 {
			r.last, r.lastUnconfirmed = nil, nil
		}
	}
}

// stateMessage is the retained state: the engine's snapshot with the
// table's id and status.
type stateMessage struct {
	engine.Snapshot
	Table  string `json:"table"`
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	// GameNumber is the game's number in the table's journal (1 for its
	// first new_game): the number every page shows. The snapshot's game
	// is RECORD.md's, from 1 at each new_game (an endurance match's
	// round).
	GameNumber int `json:"game_number,omitempty"`
	// Last is the last resolution, for dashboards.
	Last *engine.Resolved `json:"last,omitempty"`
	// LastUnconfirmed is the unconfirmed dice of last's reveal (its
	// revealed event's list: positions, no face): that count took
	// stand-ins for dice the camera did not read for sure.
	LastUnconfirmed map[string][]int `json:"last_unconfirmed,omitempty"`
	// Correctable is the hand a correct line would correct now and its
	// dice as last accepted, for the operator page (docs/corrections.md).
	Correctable *engine.CorrectableView `json:"correctable,omitempty"`
	// Look says what the camera doubts while the status is needs a look
	// (the vision message's summary, without faces).
	Look *stateLook `json:"look,omitempty"`
}

func (r *Referee) publishState() {
	snap := r.table.Snapshot()
	var look *stateLook
	if r.status == StatusNeedsLook {
		look = r.capture.look
	}
	b, err := json.Marshal(stateMessage{Snapshot: snap, Table: r.cfg.Table, Status: r.status, Error: r.statusErr,
		GameNumber: r.gameNumber, Last: r.last, LastUnconfirmed: r.lastUnconfirmed,
		Correctable: r.table.Correctable(), Look: look})
	if err != nil {
		r.log.Error("referee: marshalling the state", "err", err)
		return
	}
	if p, ok := r.cfg.Publisher.(LinePublisher); ok {
		p.StateAt(b, r.lineNo())
		return
	}
	r.cfg.Publisher.State(b)
}

// updateStatus works out the status from the phase and the camera, and
// shows it.
func (r *Referee) updateStatus() {
	s := StatusReady
	phase := r.table.Snapshot().Phase
	switch {
	case r.statusErr != "":
		s = StatusError
	case phase == engine.PhaseReveal || phase == engine.PhaseOpening:
		// The dice on the table are awaited: from the camera, or by hand.
		switch {
		case r.cfg.Camera == nil:
			s = StatusWaitingReveal
		case r.capture.doubt && r.capture.forHand == r.accepted:
			s = StatusNeedsLook
		default:
			s = StatusReading
		}
	}
	r.setStatus(s)
}

func (r *Referee) setStatus(s Status) {
	if s == r.status {
		return
	}
	r.log.Info("referee: status", "status", string(s))
	r.status = s
	if r.cfg.Board != nil {
		if err := r.cfg.Board.SetStatus(s); err != nil {
			r.log.Warn("referee: board status", "err", err)
		}
	}
}

// logEvent writes a line for people; it holds nothing that is not public.
func (r *Referee) logEvent(e engine.Event) {
	b, _ := json.Marshal(e)
	r.log.Debug("referee: event", "event", string(b))
}
