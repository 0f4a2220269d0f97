package referee

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/vision"
)

// lookMessage is published on the vision topic when a read needs a look:
// where the doubtful dice lie and which seats' counts do not match. It
// holds no face.
type lookMessage struct {
	Type    string      `json:"type"`
	Table   string      `json:"table"`
	Game    int         `json:"game"`
	Hand    int         `json:"hand"`
	Attempt int         `json:"attempt"`
	Message string      `json:"message"`
	Seats   []SeatCount `json:"seats"`
	Dice    []Doubt     `json:"dice"`
	// RetryMS is when the camera captures again, in milliseconds.
	RetryMS int64 `json:"retry_ms"`
}

// maybeCapture starts a read of the table when a reveal is awaited, a
// camera is configured and no read is running.
func (r *Referee) maybeCapture() {
	if r.capture.running || r.table.Snapshot().Phase != engine.PhaseReveal {
		return
	}
	if len(r.physical(r.table.DiceInPlay())) == 0 { // only computer seats: the engine has every die
		r.post(func() { r.apply([]byte(`{"type":"reveal","dice":{}}`), SourceCamera) })
		return
	}
	if r.cfg.Camera == nil {
		return
	}
	version := len(r.lines)
	if r.capture.forHand != version {
		r.capture.forHand, r.capture.attempt, r.capture.doubt = version, 0, false
	}
	r.capture.attempt++
	r.capture.running = true
	attempt := r.capture.attempt
	want := r.physical(r.table.DiceInPlay())
	r.updateStatus()
	go func() {
		start := r.cfg.Clock.Now()
		dice, err := r.read()
		took := r.cfg.Clock.Now().Sub(start)
		r.post(func() { r.captured(version, attempt, want, dice, took, err) })
	}()
}

// read captures an image and reads its dice.
func (r *Referee) read() (dice []vision.Die, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("referee: reading the table: %v", p)
		}
	}()
	img, err := r.cfg.Camera.Capture()
	if err != nil {
		return nil, fmt.Errorf("camera: %w", err)
	}
	defer img.Close()
	if img.Empty() {
		return nil, errors.New("camera: empty image")
	}
	return r.cfg.Reader.Read(img)
}

// captured takes a read's result on the referee's goroutine.
func (r *Referee) captured(version, attempt int, want map[string]int, dice []vision.Die, took time.Duration, err error) {
	r.capture.running = false
	if version != len(r.lines) || r.table.Snapshot().Phase != engine.PhaseReveal {
		// The reveal came by another way (an operator) meanwhile.
		r.maybeCapture()
		return
	}
	if err != nil {
		r.onRead(took, "error", 0)
		r.log.Warn("referee: reading the reveal failed", "attempt", attempt, "err", err)
		r.needsLook(attempt, Look{}, err.Error())
		return
	}
	look := CheckRead(dice, r.cfg.Zones, want)
	if !look.OK {
		r.onRead(took, "needs_look", len(look.Doubts))
		r.log.Warn("referee: the reveal needs a look", "attempt", attempt, "dice_read", len(dice), "doubts", len(look.Doubts), "message", look.Message(), "took", took)
		r.needsLook(attempt, look, look.Message())
		return
	}
	r.onRead(took, "ok", 0)
	r.log.Info("referee: reveal read", "attempt", attempt, "dice", len(dice), "took", took)
	rep := r.apply(revealLine(look.Dice), SourceCamera)
	if !rep.OK {
		// Counts matched but the engine refused the faces (a shown die not
		// among them): the read is wrong somewhere.
		r.needsLook(attempt, Look{Counts: look.Counts}, "the read does not fit the table ("+string(rep.Reason)+")")
	}
}

// needsLook shows "needs a look", publishes what is in doubt and schedules
// another capture. An operator's reveal is accepted meanwhile.
func (r *Referee) needsLook(attempt int, look Look, message string) {
	r.capture.doubt = true
	r.updateStatus()
	r.publishState()
	snap := r.table.Snapshot()
	msg := lookMessage{Type: "needs_a_look", Table: r.cfg.Table, Game: snap.Game, Hand: snap.Hand, Attempt: attempt,
		Message: message, Seats: look.Counts, Dice: look.Doubts, RetryMS: r.cfg.RetryCapture.Milliseconds()}
	if msg.Seats == nil {
		msg.Seats = []SeatCount{}
	}
	if msg.Dice == nil {
		msg.Dice = []Doubt{}
	}
	if b, err := json.Marshal(msg); err == nil {
		r.cfg.Publisher.Vision(b)
	}
	if r.capture.stop != nil {
		r.capture.stop()
	}
	r.capture.stop = r.cfg.Clock.AfterFunc(r.cfg.RetryCapture, func() { r.post(r.maybeCapture) })
}

// onRead reports a camera read to OnRead, if set.
func (r *Referee) onRead(took time.Duration, result string, uncertain int) {
	if r.cfg.OnRead != nil {
		r.cfg.OnRead(took, result, uncertain)
	}
}
