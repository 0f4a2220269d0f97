package referee

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/vision"
)

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

// awaitedRead is what the camera is to read now: the reveal after a call,
// or star-board's opening roll (every still-tied seat rolls all its dice
// in the open). want holds the dice of the seats whose dice the camera
// reads (not the computer seats'); kind is "" when nothing is awaited.
func (r *Referee) awaitedRead() (kind string, want map[string]int) {
	snap := r.table.Snapshot()
	switch snap.Phase {
	case engine.PhaseReveal:
		return engine.ActReveal, r.physical(r.table.DiceInPlay())
	case engine.PhaseOpening:
		want = map[string]int{}
		for _, st := range snap.Seats {
			if slices.Contains(snap.Rolling, st.Name) {
				want[st.Name] = st.Dice
			}
		}
		return engine.ActOpeningRoll, r.physical(want)
	}
	return "", nil
}

// maybeCapture starts a read of the table when a reveal or an opening roll
// is awaited, a camera is configured and no read is running.
func (r *Referee) maybeCapture() {
	if r.capture.running {
		return
	}
	kind, want := r.awaitedRead()
	if kind == "" {
		return
	}
	if len(want) == 0 { // only computer seats: the engine has every die
		r.post(func() { r.apply(diceLine(kind, map[string][]int{}), SourceCamera) })
		return
	}
	if r.cfg.Camera == nil {
		return
	}
	version := r.accepted
	if r.capture.forHand != version {
		r.capture.forHand, r.capture.attempt, r.capture.doubt = version, 0, false
	}
	r.capture.attempt++
	r.capture.running = true
	attempt := r.capture.attempt
	r.updateStatus()
	go func() {
		start := r.cfg.Clock.Now()
		dice, frame, err := r.read()
		took := r.cfg.Clock.Now().Sub(start)
		r.post(func() { r.captured(version, attempt, kind, want, dice, frame, took, err) })
	}()
}

// rollUnchanged reports whether dice, seat by seat, are the faces of this
// game's last opening roll: after a tie the tied seats roll again, and
// until they do, the camera sees the roll that tied.
func (r *Referee) rollUnchanged(dice map[string][]int) bool {
	if r.lastRoll == nil {
		return false
	}
	for seat, faces := range dice {
		a, b := slices.Clone(faces), slices.Clone(r.lastRoll[seat])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// noteAccepted keeps the game's last accepted opening roll (for
// rollUnchanged); a new game forgets it. Refused lines in the journal are
// not rolls, nor new games.
func (r *Referee) noteAccepted(a engine.Action) {
	switch a.Type {
	case engine.ActNewGame:
		r.lastRoll = nil
	case engine.ActOpeningRoll:
		r.lastRoll = a.Dice
	}
}

// read captures an image and reads its dice. It returns the frame too
// (nil when there is none), for the operator page and the examples:
// nothing is encoded or copied on the way to the result.
func (r *Referee) read() (dice []vision.Die, frame *Frame, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("referee: reading the table: %v", p)
		}
	}()
	img, err := r.cfg.Camera.Capture()
	if err != nil {
		return nil, nil, fmt.Errorf("camera: %w", err)
	}
	if img.Empty() {
		img.Close()
		return nil, nil, errors.New("camera: empty image")
	}
	frame = newFrame(img)
	dice, err = r.cfg.Reader.Read(img)
	return dice, frame, err
}

// captured takes a read's result on the referee's goroutine.
func (r *Referee) captured(version, attempt int, kind string, want map[string]int, dice []vision.Die, frame *Frame, took time.Duration, err error) {
	r.capture.running = false
	if version != r.accepted {
		// The table moved on meanwhile (an operator entered the dice).
		frame.close()
		r.maybeCapture()
		return
	}
	r.keepFrame(version, frame, dice)
	what := strings.ReplaceAll(kind, "_", " ")
	if err != nil {
		r.onRead(took, "error", 0)
		r.keepRead(kind, attempt, want, frame, nil, Look{}, nil, err)
		r.log.Warn("referee: reading the "+what+" failed", "attempt", attempt, "err", err)
		r.needsLook(attempt, Look{}, err.Error())
		return
	}
	look := CheckRead(dice, r.cfg.Zones, want)
	var weighed *engine.Settlement
	if !look.OK && kind == engine.ActReveal {
		// A doubt that cannot change the verdict does not stop the table.
		set, rej := r.table.Settle(SettleRead(dice, r.cfg.Zones, want))
		switch {
		case rej != nil:
			r.log.Warn("referee: the engine refused the read in doubt", "err", rej)
		case set.Settled:
			r.keepRead(kind, attempt, want, frame, dice, look, &set, nil)
			r.onRead(took, "unconfirmed", len(look.Doubts))
			r.log.Info("referee: reveal read; its doubt cannot change the verdict", "attempt", attempt, "dice", len(dice), "doubts", len(look.Doubts), "took", took)
			rep := r.apply(revealLine(set.Dice, set.Unconfirmed), SourceCamera)
			if !rep.OK {
				r.needsLook(attempt, Look{Counts: look.Counts}, "the read does not fit the table ("+string(rep.Reason)+")")
			}
			return
		default:
			look.Why = set.Why
			look.markMatters(dice, r.cfg.Zones, want, set.Matters)
			weighed = &set
		}
	}
	r.keepRead(kind, attempt, want, frame, dice, look, weighed, nil)
	if !look.OK {
		r.onRead(took, "needs_look", len(look.Doubts))
		r.log.Warn("referee: the "+what+" needs a look", "attempt", attempt, "dice_read", len(dice), "doubts", len(look.Doubts), "message", look.Message(), "took", took)
		r.needsLook(attempt, look, look.Message())
		return
	}
	if kind == engine.ActOpeningRoll && r.rollUnchanged(look.Dice) {
		// A tie: the table still shows the roll that tied.
		r.onRead(took, "needs_look", 0)
		r.needsLook(attempt, Look{Counts: look.Counts}, "the tied seats have not rolled again yet")
		return
	}
	r.onRead(took, "ok", 0)
	r.log.Info("referee: "+what+" read", "attempt", attempt, "dice", len(dice), "took", took)
	rep := r.apply(diceLine(kind, look.Dice), SourceCamera)
	if !rep.OK {
		// Counts matched but the engine refused the faces (a shown die not
		// among them): the read is wrong somewhere.
		r.needsLook(attempt, Look{Counts: look.Counts}, "the read does not fit the table ("+string(rep.Reason)+")")
	}
}

// needsLook shows "needs a look", publishes what is in doubt and schedules
// another capture. An operator's reveal or opening roll is accepted
// meanwhile.
func (r *Referee) needsLook(attempt int, look Look, message string) {
	r.capture.doubt = true
	snap := r.table.Snapshot()
	msg := lookMessage{Type: "needs_a_look", Table: r.cfg.Table, Game: snap.Game, Hand: snap.Hand,
		stateLook: stateLook{Attempt: attempt, Message: message, Seats: look.Counts, Dice: look.Doubts},
		RetryMS:   r.cfg.RetryCapture.Milliseconds()}
	if msg.Seats == nil {
		msg.Seats = []SeatCount{}
	}
	if msg.Dice == nil {
		msg.Dice = []Doubt{}
	}
	// The retained state carries the look too, so that a page opened (or
	// reconnected) after the vision message still says what is in doubt.
	r.capture.look = &msg.stateLook
	r.updateStatus()
	r.publishState()
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

// keepFrame keeps the frame of a read made while the table is as it is
// now (version), with its dice, for the operator page and the examples;
// the frame before it is closed.
func (r *Referee) keepFrame(version int, frame *Frame, dice []vision.Die) {
	r.dropFrame()
	r.capture.frame, r.capture.frameVersion, r.capture.frameDice = frame, version, dice
}

// dropFrame closes the kept frame, if any.
func (r *Referee) dropFrame() {
	r.capture.frame.close()
	r.capture.frame, r.capture.frameDice = nil, nil
}

// noteExample hands an accepted input to the examples: a reveal or an
// opening roll with the frame of the read just before it (the camera's,
// or the one the operator corrected), a correction, or the table moving
// on. Call it after r.accepted counts the input.
func (r *Referee) noteExample(a engine.Action) {
	if r.cfg.Examples == nil {
		return
	}
	var frame *gocv.Mat
	var read []vision.Die
	var name string
	if (a.Type == engine.ActReveal || a.Type == engine.ActOpeningRoll) && r.capture.frameVersion == r.accepted-1 {
		if img, ok := r.capture.frame.clone(); ok {
			frame, read = &img, r.capture.frameDice
			name = fmt.Sprintf("%s-g%d-%d", r.cfg.Table, r.table.Snapshot().Game, r.table.Seq())
		}
	}
	if err := r.cfg.Examples.accept(a, name, frame, read, r.cfg.Zones); err != nil {
		r.log.Warn("referee: keeping the example failed", "err", err)
	}
}
