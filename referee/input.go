package referee

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// Input is one input to the referee, read once where it entered (an MQTT
// command, a button press, the camera, the operator, a computer seat):
// the action it says, the record line the journal keeps, its command id
// and its source. ParseCommand reads a command into one; ActionInput
// makes one of an action a program chose. Nothing on its way to the
// engine reads it again.
type Input struct {
	// Source says who sent it: SourceMQTT, SourceButtons, SourceCamera,
	// SourceOperator or SourceSeat+":"+seat.
	Source string
	// Redelivered says the broker sent the command before (a crash came
	// between taking it and acknowledging it); it is logged.
	Redelivered bool

	id     json.RawMessage
	cmd    record.Command // a command's fields (a program's action has none)
	line   []byte         // the record line, without the id
	action engine.Action
	err    error // the decoder's refusal
	// size is the length of a command longer than MaxCommandBytes, which
	// is refused unread.
	size int
	// fault is a panic while reading the command (see apply).
	fault *fault
}

// fault is a panic recovered where an input was read.
type fault struct {
	value any
	stack []byte
}

// decodeCommand reads a command: the one place an input's JSON is read on
// its way to the engine (a test counts its calls).
var decodeCommand = record.DecodeCommand

// null is the id of an input that has none.
var null = json.RawMessage("null")

// ParseCommand reads a command (a record line with an optional "id",
// MQTT.md) from source into an Input, once. A command over MQTT whose id
// is the operator page's (OperatorIDPrefix) is the operator's. A command
// longer than MaxCommandBytes is refused unread; one the decoder refuses
// is refused, and journaled as its rejected event, by the referee.
func ParseCommand(payload []byte, source string) (in Input) {
	in = Input{Source: source, id: null}
	if len(payload) > MaxCommandBytes {
		in.size = len(payload)
		return in
	}
	defer func() {
		if p := recover(); p != nil {
			in.fault = &fault{value: p, stack: debug.Stack()}
		}
	}()
	cmd, a, err := decodeCommand(payload)
	in.id, in.cmd, in.line, in.action, in.err = cmd.ID, cmd, cmd.Line(), a, err
	if source == SourceMQTT && bytes.HasPrefix(cmd.ID, []byte(`"`+OperatorIDPrefix)) {
		// The operator page's own command: logged, and shown on the page,
		// as the operator's.
		in.Source = SourceOperator
	}
	return in
}

// ActionInput makes an Input of an action a program chose (a button
// press, the camera's read, a computer seat's move, the operator's
// correction): its record line is record.Encode's, with no command id.
// The action is taken as it stands: the table's new_game defaults fill
// only a command's new_game.
func ActionInput(a engine.Action, source string) Input {
	return Input{Source: source, id: null, line: record.Encode(a), action: a}
}

// Action returns the action the input says (zero for one the decoder
// refused).
func (in Input) Action() engine.Action { return in.action }

// ID returns the command's id as given, or null.
func (in Input) ID() json.RawMessage { return in.id }

// Line returns the record line the input says, without its id.
func (in Input) Line() []byte { return in.line }

// journaled returns the line as the journal keeps it: with the command's
// id last, so that the journal remembers which commands it holds.
func (in Input) journaled() []byte {
	if in.cmd.IsObject() {
		return in.cmd.Journaled()
	}
	return in.line
}

// CommandID returns a command's id as given, or null: the id its reply
// names it by, also when the referee cannot take it (busy, stopped).
func CommandID(payload []byte) json.RawMessage {
	if len(payload) > MaxCommandBytes {
		return null
	}
	return record.CommandID(payload)
}

// Submit queues a record line (optionally with an "id") from source;
// reply, when not nil, is called from the referee's goroutine with the
// answer. It never blocks: a full queue gives ErrBusy. The line is read
// here, on the caller's goroutine (ParseCommand).
func (r *Referee) Submit(line []byte, source string, reply func(Reply)) error {
	return r.SubmitInput(ParseCommand(line, source), reply)
}

// SubmitCommand queues an MQTT command. redelivered says the broker sent
// it before (a crash came between taking it and acknowledging it); it is
// logged. A command whose id one of the last MaxRememberedIDs journaled
// lines had, however it came again, is answered as then and not applied
// again (see handle).
func (r *Referee) SubmitCommand(payload []byte, redelivered bool, reply func(Reply)) error {
	in := ParseCommand(payload, SourceMQTT)
	in.Redelivered = redelivered
	return r.SubmitInput(in, reply)
}

// SubmitInput queues an input read where it entered; reply, when not
// nil, is called from the referee's goroutine with the answer. It never
// blocks: a full queue gives ErrBusy.
func (r *Referee) SubmitInput(in Input, reply func(Reply)) error {
	select {
	case <-r.done:
		return ErrStopped
	default:
	}
	select {
	case r.inputs <- queued{Input: in, reply: reply}:
		return nil
	default:
		return ErrBusy
	}
}

// queued is an input waiting in the queue with its reply.
type queued struct {
	Input
	reply func(Reply)
}

// Do submits a line and waits for its reply.
func (r *Referee) Do(ctx context.Context, line []byte, source string) (Reply, error) {
	return r.DoInput(ctx, ParseCommand(line, source))
}

// DoInput submits an input and waits for its reply.
func (r *Referee) DoInput(ctx context.Context, in Input) (Reply, error) {
	ch := make(chan Reply, 1)
	if err := r.SubmitInput(in, func(rep Reply) { ch <- rep }); err != nil {
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
// No dice at all (nil) is a correct line whose dice are null, refused
// bad_input as the decoder refuses it.
func (r *Referee) Correct(ctx context.Context, dice map[string][]int) (Reply, error) {
	if dice == nil {
		return r.Do(ctx, []byte(`{"type":"correct","dice":null}`), SourceOperator)
	}
	return r.DoInput(ctx, ActionInput(engine.Action{Type: engine.ActCorrect, Dice: dice}, SourceOperator))
}

// handle takes one input: it answers it and, when accepted, journals it
// and publishes its effects. An input with the id of one of the last
// MaxRememberedIDs journaled lines is the same command sent again (a
// client that retried after a lost reply or a timeout, the broker's
// redelivery after a crash, a retained copy): it gets the first one's
// answer again and changes nothing, whatever path it came by.
func (r *Referee) handle(q queued) {
	if prev, ok := r.window.answered(q.id); ok && q.size == 0 {
		r.log.Info("referee: a command id seen before; answered as then, not applied again", "id", string(q.id), "ok", prev.OK, "source", q.Source, "redelivered", q.Redelivered)
		if q.reply != nil {
			prev.ID = q.id
			q.reply(prev)
		}
		return
	}
	rep := r.apply(q.Input)
	if q.reply != nil {
		q.reply(rep)
	}
}

// ReasonInternalError is the reply's reason for an input during which the
// referee itself failed (see apply).
const ReasonInternalError engine.Reason = "internal_error"

// apply takes one input (see applyInput). A fault in the referee's own
// code while it does (a panic), or while the input was read, does not end
// the daemon: it is logged with its stack, the table is rebuilt from the
// journal's lines, as after a failed append, and the input is answered
// internal_error. The decoder and the engine are fuzzed and no input is
// known to do this; one that did once (a number's exponent near 2^63)
// took the whole table down.
func (r *Referee) apply(in Input) (rep Reply) {
	if in.fault != nil {
		return r.survive(in, in.fault.value, in.fault.stack)
	}
	defer func() {
		if p := recover(); p != nil {
			rep = r.survive(in, p, debug.Stack())
		}
	}()
	return r.applyInput(in)
}

// survive answers an input during which the referee failed, once the
// table is rebuilt from its journal.
func (r *Referee) survive(in Input, p any, stack []byte) Reply {
	r.log.Error("referee: a fault while taking an input; the table is rebuilt from its journal", "source", in.Source, "panic", fmt.Sprint(p), "stack", string(stack))
	r.rebuild()
	rep := Reply{ID: null, Reason: ReasonInternalError, Seq: r.table.Seq(),
		Message: fmt.Sprintf("the referee failed while taking this input (%v); the table is as its journal has it", p)}
	r.guarded("publishing the rebuilt state", r.publishState)
	if in.id != nil {
		rep.ID = in.id
	}
	return rep
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

// applyInput takes one input: it completes a command's new_game with the
// table's defaults, applies the action to the table, and journals and
// publishes what it changed (accept) or refuses it (refuse).
func (r *Referee) applyInput(in Input) Reply {
	if in.size > 0 {
		r.log.Warn("referee: input refused", "source", in.Source, "reason", engine.BadInput, "bytes", in.size)
		return Reply{ID: null, Reason: engine.BadInput, Seq: r.table.Seq(),
			Message: fmt.Sprintf("the command is %d bytes, longer than %d", in.size, MaxCommandBytes)}
	}
	err := in.err
	if err == nil && in.action.Type == engine.ActNewGame && in.cmd.IsObject() {
		in, err = r.completeNewGame(in)
	}
	a := in.action
	if err == nil {
		if err = r.refuseForComputer(a, in.Source); err != nil {
			return r.refuse(in, err, false)
		}
	}
	var before engine.Snapshot
	if err == nil && (a.Type == engine.ActReveal || a.Type == engine.ActOpeningRoll) {
		before = r.table.Snapshot()
	}
	var evs []engine.Event
	if err == nil {
		evs, err = r.table.Apply(a)
	}
	if err != nil {
		return r.refuse(in, err, true)
	}
	return r.accept(in, evs, before)
}

// refuse answers a refused input and, when it belongs in the record
// (recordable, and journal it is true), journals it as its rejected event.
func (r *Referee) refuse(in Input, err error, journal bool) Reply {
	var rej *engine.Rejection
	if !errors.As(err, &rej) {
		rej = &engine.Rejection{Reason: engine.BadInput, Message: err.Error()}
	}
	rep := Reply{ID: in.id, Reason: rej.Reason, Message: rej.Message, Seq: r.table.Seq()}
	if in.Source == SourceCamera {
		// A misread's faces are not a reveal: keep them out of the log.
		r.log.Info("referee: input refused", "source", in.Source, "type", in.action.Type, "reason", rej.Reason)
		return rep
	}
	r.log.Info("referee: input refused", "source", in.Source, "type", in.action.Type, "reason", rej.Reason, "message", rej.Message)
	if journal && recordable(in.line, in.Source) {
		r.reject(in.journaled(), in.id, rej)
		rep.Seq = r.table.Seq()
	}
	return rep
}

// accept journals an accepted input, then publishes its events and the
// state and tells the followers. An input that cannot be journaled is
// dropped: the table is rebuilt from the journal's lines so that nothing
// unjournaled is ever published.
func (r *Referee) accept(in Input, evs []engine.Event, before engine.Snapshot) Reply {
	a, rep := in.action, Reply{ID: in.id}
	journaled := in.journaled()
	if err := r.cfg.Journal.Append(journaled); err != nil {
		r.log.Error("referee: journal append failed; the input is dropped", "source", in.Source, "err", err)
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
	if a.Type == engine.ActNewGame {
		r.game = nil
		r.gameNumber++
	}
	r.game = append(r.game, journaled)
	r.window.rememberEvents(in.id, evs, r.table.Seq())
	if a.Type == engine.ActNewGame {
		// The seed stays in the journal: from it, computer seats' dice
		// could be worked out.
		r.log.Info("referee: new game", "source", in.Source, "rules", a.Rules, "seats", a.Seats, "seq", r.table.Seq())
	} else {
		r.log.Info("referee: input accepted", "source", in.Source, "line", string(in.line), "seq", r.table.Seq())
	}
	for _, e := range evs {
		r.publishEvent(e)
	}
	snap := r.table.Snapshot()
	r.updateStatus()
	r.publishState()
	r.follow(Change{Line: in.line, Source: in.Source, Events: evs, Snapshot: snap, Game: r.gameNumber,
		Action: a, Before: before, Version: r.accepted})
	r.maybeRotate()
	rep.OK, rep.Seq = true, r.table.Seq()
	return rep
}

// noteAccepted keeps the game's last accepted opening roll (the camera
// tells a re-roll from the roll that tied by it); a new game forgets it.
// Refused lines in the journal are not rolls, nor new games.
func (r *Referee) noteAccepted(a engine.Action) {
	switch a.Type {
	case engine.ActNewGame:
		r.lastRoll = nil
	case engine.ActOpeningRoll:
		r.lastRoll = a.Dice
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
func (r *Referee) reject(line []byte, id json.RawMessage, rej *engine.Rejection) {
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
	r.window.rememberEvents(id, []engine.Event{ev}, r.table.Seq())
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
