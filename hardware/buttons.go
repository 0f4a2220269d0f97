package hardware

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// Button is what a seat's button does. The names are the keys of a seat's
// button map in the configuration file.
type Button string

// The buttons a seat may have.
const (
	ButtonUp        Button = "quantity_up"   // pending quantity +1 (long press +5)
	ButtonDown      Button = "quantity_down" // pending quantity -1 (long press -5)
	ButtonFace      Button = "face"          // next face (long press: previous face)
	ButtonBid       Button = "bid"           // bid the pending quantity and face
	ButtonChallenge Button = "challenge"     // call the last bid a lie
	ButtonSpotOn    Button = "spot_on"       // say the last bid is exactly right
)

// Buttons lists every button, in the order a seat's panel shows them.
var Buttons = []Button{ButtonUp, ButtonDown, ButtonFace, ButtonBid, ButtonChallenge, ButtonSpotOn}

// valid reports whether b is one of Buttons.
func (b Button) valid() bool {
	for _, k := range Buttons {
		if b == k {
			return true
		}
	}
	return false
}

// Press is one press of a seat's button, reported when it is released.
type Press struct {
	Seat   string
	Button Button
	Long   bool          // held at least the long-press time
	Held   time.Duration // from press to release
	At     time.Time     // when it was released
}

// String describes p for logs and hwtest, for example "ann bid (long, 1.2s)".
func (p Press) String() string {
	kind := "short"
	if p.Long {
		kind = "long"
	}
	return fmt.Sprintf("%s %s (%s, %s)", p.Seat, p.Button, kind, p.Held.Round(time.Millisecond))
}

// PressSource delivers button presses to handle until ctx is done. Buttons
// (GPIO) and SimButtons (lines of text) implement it.
type PressSource interface {
	Run(ctx context.Context, handle func(Press)) error
}

// Timing defaults for buttons.
const (
	DefaultDebounce  = 30 * time.Millisecond
	DefaultLongPress = 800 * time.Millisecond
	// edgePoll bounds each wait for an edge, so that Run notices ctx and a
	// level that settled during the debounce lockout. Timeouts of zero or
	// less mean different things to periph's pins: gpio.PinIn and gpiotest
	// wait forever on -1, while host v3.8.5 waits for edges through the GPIO
	// character device on a Pi 4 (bcm283x delegates) and a Pi 5 alike, where
	// 0 waits forever and -1 returns at once. A positive timeout is the only
	// portable one.
	edgePoll = 100 * time.Millisecond
)

// debouncer turns a button's raw levels into presses. A button pulls its
// input low (pull-up, switch to ground). The first change after a quiet
// spell is taken at once and changes within debounce of it are bounces.
type debouncer struct {
	debounce time.Duration

	pressed   bool
	changed   time.Time // when the last accepted change happened
	pressedAt time.Time // when the press was seen; zero if it was not (held at start)
}

// sample takes the input's level at now and reports the press completed by
// a release.
func (d *debouncer) sample(level gpio.Level, now time.Time) (held time.Duration, released bool) {
	pressed := level == gpio.Low
	if pressed == d.pressed || now.Sub(d.changed) < d.debounce {
		return 0, false
	}
	d.pressed = pressed
	d.changed = now
	if pressed {
		d.pressedAt = now
		return 0, false
	}
	if d.pressedAt.IsZero() { // a release of a button held since the start
		return 0, false
	}
	held = now.Sub(d.pressedAt)
	d.pressedAt = time.Time{}
	return held, true
}

// ButtonPin is one seat's button on one input pin.
type ButtonPin struct {
	Seat   string
	Button Button
	Pin    gpio.PinIn
}

// ButtonOptions tunes GPIOButtons. Zero values take the defaults.
type ButtonOptions struct {
	Debounce  time.Duration // DefaultDebounce
	LongPress time.Duration // DefaultLongPress
	Clock     Clock         // SystemClock
	Logger    *slog.Logger  // slog.Default()
}

// GPIOButtons reads seat buttons on GPIO inputs with pull-ups and edge
// detection.
type GPIOButtons struct {
	pins []ButtonPin
	opts ButtonOptions

	// sampled, when set by a test, is called after each edge is handled.
	sampled func(ButtonPin)
}

// NewGPIOButtons configures each pin as an input with its pull-up and
// edge detection on both edges.
func NewGPIOButtons(pins []ButtonPin, opts ButtonOptions) (*GPIOButtons, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.LongPress <= 0 {
		opts.LongPress = DefaultLongPress
	}
	if opts.LongPress <= opts.Debounce {
		return nil, fmt.Errorf("hardware: long press (%s) must be longer than the debounce time (%s)", opts.LongPress, opts.Debounce)
	}
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	for _, p := range pins {
		if p.Pin == nil {
			return nil, fmt.Errorf("hardware: seat %s's %s button has no pin", p.Seat, p.Button)
		}
		if !p.Button.valid() {
			return nil, fmt.Errorf("hardware: seat %s: unknown button %q", p.Seat, p.Button)
		}
		if err := p.Pin.In(gpio.PullUp, gpio.BothEdges); err != nil {
			return nil, fmt.Errorf("hardware: seat %s's %s button on %s: %w", p.Seat, p.Button, p.Pin, err)
		}
	}
	return &GPIOButtons{pins: append([]ButtonPin(nil), pins...), opts: opts}, nil
}

// Run watches every button until ctx is done and calls handle with each
// press, from one goroutine at a time. It returns ctx's error. Call it
// once at a time: each pin has one watcher.
func (b *GPIOButtons) Run(ctx context.Context, handle func(Press)) error {
	var mu sync.Mutex // serialises handle
	var wg sync.WaitGroup
	for _, p := range b.pins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.watch(ctx, p, func(pr Press) {
				mu.Lock()
				defer mu.Unlock()
				handle(pr)
			})
		}()
	}
	<-ctx.Done()
	for _, p := range b.pins {
		// Interrupts a pending WaitForEdge on drivers that support it.
		_ = p.Pin.Halt()
	}
	wg.Wait()
	return ctx.Err()
}

// watch handles one pin's edges until ctx is done.
func (b *GPIOButtons) watch(ctx context.Context, p ButtonPin, handle func(Press)) {
	d := debouncer{debounce: b.opts.Debounce}
	// A button held at start is not a press.
	d.pressed = p.Pin.Read() == gpio.Low
	for ctx.Err() == nil {
		edge := p.Pin.WaitForEdge(edgePoll)
		now := b.opts.Clock.Now()
		if held, released := d.sample(p.Pin.Read(), now); released {
			handle(Press{Seat: p.Seat, Button: p.Button, Long: held >= b.opts.LongPress, Held: held, At: now})
		}
		if edge && b.sampled != nil {
			b.sampled(p)
		}
	}
}
