package referee

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
)

// resetTo makes the table as it was at checkpoint cp: the game in
// progress replayed through a new table, numbered on from cp's seq, the
// last resolution and the window of command ids as the checkpoint has
// them.
func (r *Referee) resetTo(cp journal.Checkpoint) {
	r.base, r.lines, r.game, r.lastRoll, r.last, r.lastUnconfirmed = cp, nil, nil, nil, nil, nil
	r.window = newWindow(r.log)
	r.window.restore(cp.Commands, cp.Segment)
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
		r.window.rememberEvents(record.CommandID(line), evs, r.table.Seq())
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
	st.Commands = r.window.encoded()
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

// rebuild makes the table and the window of command ids again from the
// journal: from the checkpoint it resumed from (or the last one written),
// the lines after it replayed, the refused ones as rejected events.
func (r *Referee) rebuild() {
	lines, last, unconfirmed, accepted := r.lines, r.last, r.lastUnconfirmed, r.accepted
	r.resetTo(r.base)
	r.replayLines(lines)
	r.last, r.lastUnconfirmed, r.accepted = last, unconfirmed, accepted
}
