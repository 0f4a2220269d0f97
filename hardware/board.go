package hardware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Clock tells the time. Board and Buttons read it so that tests control
// time; SystemClock is the real one.
type Clock interface {
	Now() time.Time
}

// SystemClock is the machine's clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Status is what the status LED says about the table.
type Status int

// The statuses, each with its own pattern so that a single-colour LED tells
// them apart too.
const (
	StatusOff           Status = iota // dark
	StatusReady                       // green, steady
	StatusWaitingReveal               // blue, slow blink (1 s)
	StatusReading                     // cyan, fast blink (4 per second)
	StatusUncertain                   // amber, double blink: a read needs a look
	StatusError                       // red, very fast blink
)

var statusNames = [...]string{"off", "ready", "waiting_reveal", "reading", "uncertain", "error"}

// String returns the status's name, as used in logs.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Timings of the patterns. A flash must be slow enough to read from across a
// bar and fast enough to look urgent; the chase moves one space per step.
const (
	flashPeriod  = 500 * time.Millisecond // call and losers: 250 ms on, 250 ms off
	chaseStep    = 60 * time.Millisecond
	slowBlink    = time.Second
	fastBlink    = 250 * time.Millisecond
	errorBlink   = 150 * time.Millisecond
	doubleBlink  = 1200 * time.Millisecond // on 150, off 150, on 150, off 750
	doubleOnTime = 150 * time.Millisecond
)

// Board is what the table shows, independent of any driver. The referee
// calls its Show methods; Render (or Run with a Strip) turns the state into
// frames. A Board is safe for concurrent use.
//
// The state is one of: nothing; a bid (steady) with whose turn it is; a call
// (the bid flashes, the caller's seat is red); an outcome (the bid steady,
// losers blink, and a game's winner makes the track chase). Seats that are out
// stay dim red until Clear, whatever else is shown.
type Board struct {
	layout Layout
	clock  Clock

	mu          sync.Mutex
	bid         *shownBid
	turn        int // seat index, -1 for none
	caller      int // seat index while a call is shown, else -1
	outcome     *shownOutcome
	out         map[int]bool
	since       time.Time // when the game display last changed; patterns start here
	status      Status
	statusSince time.Time
}

type shownBid struct {
	space int   // LED of the track space
	face  int   // LED of the face
	lit   Color // the space's colour
}

type shownOutcome struct {
	losers map[int]bool
	winner int // seat index, -1 when the game goes on
}

// NewBoard returns a dark board with layout l, reading the time from clock
// (SystemClock when nil).
func NewBoard(l Layout, clock Clock) *Board {
	if clock == nil {
		clock = SystemClock{}
	}
	now := clock.Now()
	return &Board{layout: l, clock: clock, turn: -1, caller: -1, out: map[int]bool{}, since: now, statusSince: now}
}

// Layout returns the board's layout.
func (b *Board) Layout() Layout { return b.layout }

// ShowBid shows a bid: its space on the track and its face, steady. A star
// bid (star true) stands on star space quantity and lights the star face;
// otherwise the bid stands on number space quantity and lights face. It ends
// any call or outcome shown. A bid that is not on the track is refused and
// changes nothing.
func (b *Board) ShowBid(quantity, face int, star bool) error {
	var shown shownBid
	var err error
	if star {
		if b.layout.starSpaces == 0 {
			return errors.New("hardware: a star bid on a board without star spaces")
		}
		shown.space, err = b.layout.StarSpace(quantity)
		face, shown.lit = 1, Yellow
	} else {
		shown.space, err = b.layout.NumberSpace(quantity)
		shown.lit = White
	}
	if err != nil {
		return err
	}
	if shown.face, err = b.layout.Face(face); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bid = &shown
	b.caller = -1
	b.outcome = nil
	b.since = b.clock.Now()
	return nil
}

// ShowTurn lights the seat whose turn it is (index in the layout's seats), or
// none when seat is -1. It ends any call or outcome shown; the bid stays.
func (b *Board) ShowTurn(seat int) error {
	if seat != -1 {
		if _, err := b.layout.Seat(seat); err != nil {
			return err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.turn = seat
	b.caller = -1
	b.outcome = nil
	b.since = b.clock.Now()
	return nil
}

// ShowCall shows that caller called the bid shown (challenge or spot-on):
// the bid flashes and the caller's seat is red until ShowOutcome, ShowBid or
// Clear. It needs a bid on the board.
func (b *Board) ShowCall(caller int) error {
	if _, err := b.layout.Seat(caller); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bid == nil {
		return errors.New("hardware: a call with no bid on the board")
	}
	b.caller = caller
	b.turn = -1
	b.outcome = nil
	b.since = b.clock.Now()
	return nil
}

// ShowOutcome shows how a call ended: the bid steady, the losers' seats
// blinking red, the seats now out dim red (they stay so until Clear), and,
// when winner is a seat (not -1), the game's winner in green with the track
// chasing. Nothing changes when a seat index is not on the board.
func (b *Board) ShowOutcome(losers, out []int, winner int) error {
	for _, s := range slices.Concat(losers, out) {
		if _, err := b.layout.Seat(s); err != nil {
			return err
		}
	}
	if winner != -1 {
		if _, err := b.layout.Seat(winner); err != nil {
			return err
		}
	}
	o := &shownOutcome{losers: map[int]bool{}, winner: winner}
	for _, s := range losers {
		o.losers[s] = true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range out {
		b.out[s] = true
	}
	b.outcome = o
	b.caller = -1
	b.turn = -1
	b.since = b.clock.Now()
	return nil
}

// SetStatus sets the status LED's pattern; it starts over when the status
// changes.
func (b *Board) SetStatus(s Status) error {
	if s < StatusOff || s > StatusError {
		return fmt.Errorf("hardware: unknown status %d", int(s))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s != b.status {
		b.status = s
		b.statusSince = b.clock.Now()
	}
	return nil
}

// NewHand puts out the last hand (bid, turn, call, outcome) for a new one;
// the seats out stay dim red and the status LED keeps its pattern.
func (b *Board) NewHand() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.newHand()
}

func (b *Board) newHand() {
	b.bid = nil
	b.turn, b.caller = -1, -1
	b.outcome = nil
	b.since = b.clock.Now()
}

// Clear puts out the game display (bid, turn, call, outcome and the seats
// out), as for a new game. The status LED keeps its pattern.
func (b *Board) Clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.newHand()
	b.out = map[int]bool{}
}

// Frame renders the board at the clock's current time.
func (b *Board) Frame() []Color {
	return b.Render(b.clock.Now())
}

// Render returns the frame shown at time now, one Color per LED in layout
// order.
func (b *Board) Render(now time.Time) []Color {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.layout
	frame := make([]Color, l.Len())
	// A time before the last change (a frame asked for the past, or a clock
	// read just before a Show method ran) is the change's first instant:
	// a negative elapsed time would index the chase before the track.
	elapsed := max(now.Sub(b.since), 0)
	flashOn := elapsed%flashPeriod < flashPeriod/2

	if b.bid != nil {
		// A dim trail up to the bid makes its height readable on colour
		// strips; single-colour LEDs show the bid's space alone.
		for i := 0; i < b.bid.space; i++ {
			frame[i] = DimWhite
			if star, _ := l.isStarSpace(i); star {
				frame[i] = DimYellow
			}
		}
		if b.caller < 0 || flashOn {
			frame[b.bid.space] = b.bid.lit
			frame[b.bid.face] = b.bid.lit
		}
	}
	if o := b.outcome; o != nil && o.winner >= 0 {
		// A two-LED comet runs along the track.
		n := l.TrackLen()
		head := int(elapsed/chaseStep) % n
		for i := 0; i < n; i++ {
			frame[i] = Off
		}
		frame[head] = Green
		frame[(head+n-1)%n] = DimGreen
	}

	for s := range l.seats {
		led, _ := l.Seat(s)
		switch {
		case b.outcome != nil && b.outcome.winner == s:
			frame[led] = Green
		case b.outcome != nil && b.outcome.losers[s]:
			switch {
			case flashOn:
				frame[led] = Red
			case b.out[s]:
				frame[led] = DimRed
			}
		case b.out[s]:
			frame[led] = DimRed
		case s == b.caller:
			frame[led] = Red
		case s == b.turn:
			frame[led] = Green
		}
	}

	frame[l.Status()] = statusColor(b.status, max(now.Sub(b.statusSince), 0))
	return frame
}

// isStarSpace reports whether track LED i is a star space.
func (l Layout) isStarSpace(i int) (bool, int) {
	if (i+1)%3 == 0 && (i+1)/3 <= l.starSpaces {
		return true, (i + 1) / 3
	}
	return false, 0
}

// statusColor is the status LED's colour after the status has been on for
// elapsed.
func statusColor(s Status, elapsed time.Duration) Color {
	blink := func(c Color, period time.Duration) Color {
		if elapsed%period < period/2 {
			return c
		}
		return Off
	}
	switch s {
	case StatusReady:
		return Green
	case StatusWaitingReveal:
		return blink(Blue, slowBlink)
	case StatusReading:
		return blink(Cyan, fastBlink)
	case StatusUncertain:
		t := elapsed % doubleBlink
		if t < doubleOnTime || (t >= 2*doubleOnTime && t < 3*doubleOnTime) {
			return Amber
		}
		return Off
	case StatusError:
		return blink(Red, errorBlink)
	}
	return Off
}

// DefaultFramePeriod is how often Board.Run redraws the board when given no
// period: fast enough for the 60 ms comet and the fastest blink.
const DefaultFramePeriod = 50 * time.Millisecond

// Run writes the board's frame to strip every period (DefaultFramePeriod
// when period is zero or less) until ctx is done, skipping frames equal to
// the last one written, and puts the strip out when it returns. A failed
// write is logged once per run of failures and retried on the next frame,
// so a loose connector does not stop the table. It returns ctx's error.
func (b *Board) Run(ctx context.Context, strip Strip, period time.Duration, log *slog.Logger) error {
	if strip == nil {
		return errors.New("hardware: no strip to run the board on")
	}
	if strip.Len() != b.layout.Len() {
		return fmt.Errorf("hardware: strip has %d LEDs, the board %d", strip.Len(), b.layout.Len())
	}
	if log == nil {
		log = slog.Default()
	}
	if period <= 0 {
		period = DefaultFramePeriod
	}
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	var last []Color
	failing := false
	for {
		frame := b.Frame()
		if !slices.Equal(frame, last) {
			if err := strip.Write(frame); err != nil {
				if !failing {
					log.Error("hardware: writing the board failed", "err", err)
				}
				failing = true
				last = nil
			} else {
				if failing {
					log.Info("hardware: writing the board works again")
				}
				failing = false
				last = frame
			}
		}
		select {
		case <-ctx.Done():
			_ = strip.Write(make([]Color, strip.Len()))
			return ctx.Err()
		case <-ticker.C:
		}
	}
}
