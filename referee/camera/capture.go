package camera

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/vision"
)

// DefaultRetry is how long the camera waits before capturing again when a
// read needs a look.
const DefaultRetry = 2 * time.Second

// Source captures an image of the table: vision sources (Device) and the
// demo's synthetic camera. The caller closes the Mat.
type Source interface {
	Capture() (gocv.Mat, error)
}

// Reader reads the dice in an image: *vision.Reader and
// *calibration.Reader.
type Reader interface {
	Read(img gocv.Mat) ([]vision.Die, error)
}

// Options configure the camera's adapter. Source, Reader and Zones are
// required.
type Options struct {
	// Table is the table's id: it names the examples' images.
	Table  string
	Source Source
	Reader Reader
	Zones  Zones
	// Retry is the wait before capturing again after a read that needs a
	// look (DefaultRetry).
	Retry  time.Duration
	Clock  referee.Clock
	Logger *slog.Logger
	// Reads, when set, keeps each read for the operator page (its frame,
	// every die with its seat and its doubt).
	Reads *operator.Reads
	// Examples, when set, keeps each reveal's frame with its final dice as
	// a labelled training example (config camera.learn). Its owner closes
	// it after the referee's Run returns.
	Examples *Examples
	// OnRead, when set, is called from the referee's goroutine after each
	// read of a reveal with how long it took, its result ("ok";
	// "unconfirmed": dice in doubt that could not change the verdict;
	// "needs_look" or "error") and the number of dice in doubt. It must
	// not block.
	OnRead func(took time.Duration, result string, uncertainDice int)
}

// Adapter is the table's camera as an input of the referee, as the
// buttons are: it follows the table (a referee.Follower, the referee's
// Config.Camera), and when a reveal or an opening roll is awaited it
// captures the table and reads the dice, assigns them to seats, and takes
// a read it is sure of as the reveal, from SourceCamera. A read in doubt
// that the engine finds cannot change the verdict is taken with its
// unconfirmed dice; any other asks for a look and captures again after
// Retry. It keeps the operator page's frame and the training examples.
//
// All but Close runs on the referee's goroutine (Follow, and what a read
// posts back to it).
type Adapter struct {
	o   Options
	log *slog.Logger

	running bool
	attempt int
	forHand int // the table's version at the call that the attempts count for
	stop    func() bool
	// frame is the last read's frame, kept for the operator page and the
	// examples while the table is as read (frameVersion), with its dice.
	frame        *Frame
	frameVersion int
	frameDice    []vision.Die
}

// New returns the camera's adapter.
func New(o Options) (*Adapter, error) {
	if o.Source == nil || o.Reader == nil || o.Zones == nil {
		return nil, errors.New("camera: a camera needs a reader and seat zones")
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.Clock == nil {
		o.Clock = referee.SystemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Adapter{o: o, log: o.Logger.With("table", o.Table)}, nil
}

// Follow takes a change of the table: an accepted reveal or opening roll
// becomes an example with the frame read just before it; any other input
// but a correction ends the frame's life; and a read starts when the
// table awaits dice.
func (c *Adapter) Follow(d *referee.Desk, ch referee.Change) {
	if !ch.Start() {
		c.noteExample(ch)
		switch ch.Action.Type {
		case engine.ActReveal, engine.ActOpeningRoll, engine.ActCorrect:
		default:
			c.dropFrame()
		}
	}
	c.maybeCapture(d)
}

// Close stops the retry timer and frees the kept frame. Call it once the
// referee's Run has returned.
func (c *Adapter) Close() error {
	if c.stop != nil {
		c.stop()
	}
	c.dropFrame()
	return nil
}

// maybeCapture starts a read of the table when a reveal or an opening roll
// of people's dice is awaited and no read is running.
func (c *Adapter) maybeCapture(d *referee.Desk) {
	if c.running {
		return
	}
	kind, want := d.Awaited()
	if kind == "" || len(want) == 0 {
		return // nothing awaited, or computer seats alone: the referee reveals them
	}
	version := d.Version()
	if c.forHand != version {
		c.forHand, c.attempt = version, 0
	}
	c.attempt++
	c.running = true
	attempt := c.attempt
	go func() {
		start := c.o.Clock.Now()
		dice, frame, err := c.read()
		took := c.o.Clock.Now().Sub(start)
		d.Post(func(d *referee.Desk) { c.captured(d, read{version, attempt, kind, want, dice, frame, took, err}) })
	}()
}

// read captures an image and reads its dice. It returns the frame too
// (nil when there is none), for the operator page and the examples:
// nothing is encoded or copied on the way to the result.
func (c *Adapter) read() (dice []vision.Die, frame *Frame, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("camera: reading the table: %v", p)
		}
	}()
	img, err := c.o.Source.Capture()
	if err != nil {
		return nil, nil, fmt.Errorf("camera: %w", err)
	}
	if img.Empty() {
		img.Close()
		return nil, nil, errors.New("camera: empty image")
	}
	frame = newFrame(img)
	dice, err = c.o.Reader.Read(img)
	return dice, frame, err
}

// read is one read of the table: the table's version and the attempt it
// was made for, what it awaited, and what came of it.
type read struct {
	version, attempt int
	kind             string
	want             map[string]int
	dice             []vision.Die
	frame            *Frame
	took             time.Duration
	err              error
}

// captured takes a read's result on the referee's goroutine.
func (c *Adapter) captured(d *referee.Desk, rd read) {
	c.running = false
	if rd.version != d.Version() {
		// The table moved on meanwhile (an operator entered the dice).
		rd.frame.close()
		c.maybeCapture(d)
		return
	}
	c.keepFrame(rd.version, rd.frame, rd.dice)
	what := strings.ReplaceAll(rd.kind, "_", " ")
	if rd.err != nil {
		c.onRead(rd.took, "error", 0)
		failed := rd
		failed.dice = nil
		c.keepRead(d, failed, Look{}, nil)
		c.log.Warn("camera: reading the "+what+" failed", "attempt", rd.attempt, "err", rd.err)
		c.needsLook(d, rd.attempt, Look{}, rd.err.Error())
		return
	}
	look := CheckRead(rd.dice, c.o.Zones, rd.want)
	var weighed *engine.Settlement
	if !look.OK && rd.kind == engine.ActReveal {
		var settled bool
		if weighed, settled = c.settle(d, rd, &look); settled {
			return
		}
	}
	c.keepRead(d, rd, look, weighed)
	if !look.OK {
		c.onRead(rd.took, "needs_look", len(look.Doubts))
		c.log.Warn("camera: the "+what+" needs a look", "attempt", rd.attempt, "dice_read", len(rd.dice), "doubts", len(look.Doubts), "message", look.Message(), "took", rd.took)
		c.needsLook(d, rd.attempt, look, look.Message())
		return
	}
	if rd.kind == engine.ActOpeningRoll && rollUnchanged(d.LastRoll(), look.Dice) {
		// A tie: the table still shows the roll that tied.
		c.onRead(rd.took, "needs_look", 0)
		c.needsLook(d, rd.attempt, Look{Counts: look.Counts}, "the tied seats have not rolled again yet")
		return
	}
	c.onRead(rd.took, "ok", 0)
	c.log.Info("camera: "+what+" read", "attempt", rd.attempt, "dice", len(rd.dice), "took", rd.took)
	c.take(d, rd.attempt, look, engine.Action{Type: rd.kind, Dice: look.Dice})
}

// settle weighs a reveal read in doubt: a doubt that cannot change the
// verdict does not stop the table, and the reveal is taken with its
// unconfirmed dice (settled true). Otherwise look says why the doubt
// matters, and which doubts do, and the settlement is returned (nil when
// the engine refused the read).
func (c *Adapter) settle(d *referee.Desk, rd read, look *Look) (*engine.Settlement, bool) {
	set, rej := d.Settle(SettleRead(rd.dice, c.o.Zones, rd.want))
	switch {
	case rej != nil:
		c.log.Warn("camera: the engine refused the read in doubt", "err", rej)
		return nil, false
	case set.Settled:
		c.keepRead(d, rd, *look, &set)
		c.onRead(rd.took, "unconfirmed", len(look.Doubts))
		c.log.Info("camera: reveal read; its doubt cannot change the verdict", "attempt", rd.attempt, "dice", len(rd.dice), "doubts", len(look.Doubts), "took", rd.took)
		c.take(d, rd.attempt, *look, engine.Action{Type: engine.ActReveal, Dice: set.Dice, Unconfirmed: set.Unconfirmed})
		return &set, true
	}
	look.Why = set.Why
	look.markMatters(rd.dice, c.o.Zones, rd.want, set.Matters)
	return &set, false
}

// take submits a read as the reveal (or the opening roll). Should the
// engine refuse the faces though the counts matched (a shown die not
// among them), the read is wrong somewhere: it needs a look.
func (c *Adapter) take(d *referee.Desk, attempt int, look Look, a engine.Action) {
	rep := d.Take(referee.ActionInput(a, referee.SourceCamera))
	if !rep.OK {
		c.needsLook(d, attempt, Look{Counts: look.Counts}, "the read does not fit the table ("+string(rep.Reason)+")")
	}
}

// needsLook asks for a look at what is in doubt and schedules another
// capture. An operator's reveal or opening roll is accepted meanwhile.
func (c *Adapter) needsLook(d *referee.Desk, attempt int, look Look, message string) {
	d.AskForLook(referee.NeedsLook{Attempt: attempt, Message: message, Seats: look.Counts, Dice: look.Doubts, Retry: c.o.Retry})
	if c.stop != nil {
		c.stop()
	}
	c.stop = c.o.Clock.AfterFunc(c.o.Retry, func() { d.Post(c.maybeCapture) })
}

// rollUnchanged reports whether dice, seat by seat, are the faces of the
// game's last opening roll: after a tie the tied seats roll again, and
// until they do, the camera sees the roll that tied.
func rollUnchanged(last, dice map[string][]int) bool {
	if last == nil {
		return false
	}
	for seat, faces := range dice {
		a, b := slices.Clone(faces), slices.Clone(last[seat])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// onRead reports a read to OnRead, if set.
func (c *Adapter) onRead(took time.Duration, result string, uncertain int) {
	if c.o.OnRead != nil {
		c.o.OnRead(took, result, uncertain)
	}
}

// keepFrame keeps the frame of a read made while the table is as it is
// now (version), with its dice, for the operator page and the examples;
// the frame before it is closed.
func (c *Adapter) keepFrame(version int, frame *Frame, dice []vision.Die) {
	c.dropFrame()
	c.frame, c.frameVersion, c.frameDice = frame, version, dice
}

// dropFrame closes the kept frame, if any.
func (c *Adapter) dropFrame() {
	c.frame.close()
	c.frame, c.frameDice = nil, nil
}

// noteExample hands an accepted input to the examples: a reveal or an
// opening roll with the frame of the read just before it (the camera's,
// or the one the operator corrected), a correction, or the table moving
// on.
func (c *Adapter) noteExample(ch referee.Change) {
	if c.o.Examples == nil {
		return
	}
	a := ch.Action
	var frame *gocv.Mat
	var read []vision.Die
	var name string
	if (a.Type == engine.ActReveal || a.Type == engine.ActOpeningRoll) && c.frameVersion == ch.Version-1 {
		if img, ok := c.frame.clone(); ok {
			frame, read = &img, c.frameDice
			name = fmt.Sprintf("%s-g%d-%d", c.o.Table, ch.Snapshot.Game, ch.Snapshot.Seq)
		}
	}
	if err := c.o.Examples.accept(a, name, frame, read, c.o.Zones); err != nil {
		c.log.Warn("camera: keeping the example failed", "err", err)
	}
}

// keepRead stores a read of the table for the operator page; set, when
// the camera weighed the read's doubts (a reveal in doubt), says which of
// them could change the verdict.
func (c *Adapter) keepRead(d *referee.Desk, rd read, look Look, set *engine.Settlement) {
	if c.o.Reads == nil {
		return
	}
	snap := d.Snapshot()
	or := &operator.Read{Kind: rd.kind, Game: snap.Game, Hand: snap.Hand, Attempt: rd.attempt,
		ReadAt: operator.UnixMS(c.o.Clock.Now()), OK: look.OK,
		Sides: snap.Sides, Star: snap.StarDie, Dice: []operator.Die{}, Seats: look.Counts}
	if rd.frame != nil {
		or.Frame = rd.frame
	}
	or.Width, or.Height = rd.frame.Size()
	switch {
	case rd.err != nil:
		or.Message = "the camera failed: " + rd.err.Error()
	case !look.OK:
		or.Message = look.Message()
	}
	if or.Seats == nil {
		or.Seats = operator.CountsOf(rd.want)
	}
	if set != nil {
		or.Weighed, or.Why = true, set.Why
	}
	or.Dice, or.UnseenMatters = c.readDice(rd, set)
	c.o.Reads.Keep(or)
}

// readDice gives each die of a read its seat and its doubt, and says,
// for a weighed read, which doubts matter and which seats' unseen dice
// do. The settlement's Matters are per seat, its read dice in the
// reader's order (as SettleRead gives them), then its unseen dice.
func (c *Adapter) readDice(rd read, set *engine.Settlement) (dice []operator.Die, unseen []string) {
	dice = []operator.Die{}
	at := map[string]int{}
	for _, d := range rd.dice {
		od := operator.Die{Die: d}
		seat, ok := c.o.Zones.SeatOf(d)
		switch {
		case !ok:
			od.Doubt = "no_seat"
		default:
			od.Seat = seat
			if _, inHand := rd.want[seat]; !inHand {
				continue // a folded or computer seat's zone: not this reveal's
			}
			i := at[seat]
			at[seat]++
			if d.Uncertain || d.Face < 1 {
				od.Doubt = "uncertain"
				if set != nil && i < len(set.Matters[seat]) {
					od.Matters = set.Matters[seat][i]
				}
			}
		}
		dice = append(dice, od)
	}
	if set != nil {
		for seat := range rd.want {
			if m := set.Matters[seat]; at[seat] < len(m) && slices.Contains(m[at[seat]:], true) {
				unseen = append(unseen, seat)
			}
		}
		slices.Sort(unseen)
	}
	return dice, unseen
}
