package referee

import (
	"encoding/json"

	"github.com/liarsd/liarsd/engine"
)

// Status is what the table's status light says, by name.
type Status string

// The statuses of a table.
const (
	StatusReady         Status = "ready"
	StatusWaitingReveal Status = "waiting for reveal"
	StatusReading       Status = "reading"
	StatusNeedsLook     Status = "needs a look"
	StatusError         Status = "error"
)

// Doubt is a die the referee will not adjudicate on. It holds the die's
// place and why, never its face.
type Doubt struct {
	Seat       string  `json:"seat,omitempty"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Confidence float64 `json:"confidence"`
	// Reason is "uncertain" (the face could not be read reliably) or
	// "no_seat" (the die lies in no seat's zone).
	Reason string `json:"reason"`
	// Matters reports, for a reveal the referee could not settle, that
	// this die's doubt could change the verdict (engine.Settlement).
	Matters bool `json:"matters,omitempty"`
}

// SeatCount compares the dice seen at a seat with those it holds.
type SeatCount struct {
	Seat     string `json:"seat"`
	Expected int    `json:"expected"`
	Seen     int    `json:"seen"`
}

// lookMessage is published on the vision topic when a read needs a look:
// where the doubtful dice lie and which seats' counts do not match. It
// holds no face.
type lookMessage struct {
	Type  string `json:"type"`
	Table string `json:"table"`
	Game  int    `json:"game"`
	Hand  int    `json:"hand"`
	stateLook
	// RetryMS is when the camera captures again, in milliseconds.
	RetryMS int64 `json:"retry_ms"`
}

// stateLook is what a read that needs a look doubts: its attempt, what
// needs a look, the seats' counts and the doubtful dice (no face). The
// vision message carries it, and the state while the status is needs a
// look.
type stateLook struct {
	Attempt int         `json:"attempt"`
	Message string      `json:"message"`
	Seats   []SeatCount `json:"seats"`
	Dice    []Doubt     `json:"dice"`
}

// askForLook shows "needs a look" until the table moves on and publishes
// what is in doubt (Desk.AskForLook).
func (r *Referee) askForLook(l NeedsLook) {
	snap := r.table.Snapshot()
	msg := lookMessage{Type: "needs_a_look", Table: r.cfg.Table, Game: snap.Game, Hand: snap.Hand,
		stateLook: stateLook{Attempt: l.Attempt, Message: l.Message, Seats: l.Seats, Dice: l.Dice},
		RetryMS:   l.Retry.Milliseconds()}
	if msg.Seats == nil {
		msg.Seats = []SeatCount{}
	}
	if msg.Dice == nil {
		msg.Dice = []Doubt{}
	}
	// The retained state carries the look too, so that a page opened (or
	// reconnected) after the vision message still says what is in doubt.
	r.look, r.lookFor = &msg.stateLook, r.accepted
	r.updateStatus()
	r.publishState()
	if b, err := json.Marshal(msg); err == nil {
		r.cfg.Publisher.Vision(b)
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
		look = r.look
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
		case r.look != nil && r.lookFor == r.accepted:
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

func (r *Referee) publishEvent(e engine.Event) {
	b, err := json.Marshal(e)
	if err != nil {
		r.log.Error("referee: marshalling an event", "err", err)
		return
	}
	r.cfg.Publisher.Event(e.Head().Seq, b)
	// For people; it holds nothing that is not public.
	r.log.Debug("referee: event", "event", string(b))
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
