package hardware

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"

	"github.com/liarsd/liarsd/hardware/hardwaretest"
)

// level is a raw sample: the level at a time, in ms from the start.
type level struct {
	at int
	l  gpio.Level
}

func TestDebouncer(t *testing.T) {
	const H, L = gpio.High, gpio.Low
	for _, tc := range []struct {
		name    string
		held    bool // the button is down at the start
		samples []level
		want    []time.Duration // held time of each press reported
	}{
		{"held at the start, then pressed", true, []level{{100, H}, {300, L}, {500, H}}, []time.Duration{200}},
		{"clean short press", false, []level{{100, L}, {250, H}}, []time.Duration{150}},
		{"clean long press", false, []level{{100, L}, {1300, H}}, []time.Duration{1200}},
		{"bouncy press and release", false, []level{{100, L}, {101, H}, {103, L}, {104, H}, {105, L}, {400, H}, {402, L}, {404, H}}, []time.Duration{300}},
		{"a glitch shorter than the debounce after a release", false, []level{{100, L}, {300, H}, {310, L}, {320, H}}, []time.Duration{200}},
		{"two presses", false, []level{{100, L}, {200, H}, {300, L}, {1300, H}}, []time.Duration{100, 1000}},
		{"repeated levels are not changes", false, []level{{100, H}, {200, H}, {300, L}, {310, L}, {400, H}}, []time.Duration{100}},
		{"still held at the end", false, []level{{100, L}, {900, L}}, nil},
	} {
		d := debouncer{debounce: 30 * time.Millisecond, pressed: tc.held}
		var got []time.Duration
		for _, s := range tc.samples {
			if held, ok := d.sample(s.l, epoch.Add(time.Duration(s.at)*time.Millisecond)); ok {
				got = append(got, held/time.Millisecond)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: presses held %v ms; want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: presses held %v ms; want %v", tc.name, got, tc.want)
			}
		}
	}
}

// buttonRig runs GPIOButtons on fake pins with a fake clock; edges are
// pushed one at a time, each handled before the clock moves on.
type buttonRig struct {
	t       *testing.T
	clock   *hardwaretest.Clock
	pins    map[string]testPin // by "seat button"
	handled chan struct{}
	mu      sync.Mutex
	presses []Press
	cancel  context.CancelFunc
	done    chan error
}

func newButtonRig(t *testing.T, seats []string, opts ButtonOptions) *buttonRig {
	t.Helper()
	r := &buttonRig{t: t, clock: hardwaretest.NewClock(epoch), pins: map[string]testPin{}, handled: make(chan struct{}), done: make(chan error, 1)}
	var bp []ButtonPin
	n := 2
	for _, seat := range seats {
		for _, b := range Buttons {
			p := newTestPin(fmt.Sprintf("GPIO%d", n), n)
			n++
			r.pins[seat+" "+string(b)] = p
			bp = append(bp, ButtonPin{Seat: seat, Button: b, Pin: p})
		}
	}
	opts.Clock = r.clock
	buttons, err := NewGPIOButtons(bp, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.pins {
		if p.Pull() != gpio.PullUp {
			t.Fatalf("%s: pull %s; want PullUp", p, p.Pull())
		}
		if p.Read() != gpio.High {
			t.Fatalf("%s: idle level %s; want High", p, p.Read())
		}
	}
	buttons.sampled = func(ButtonPin) { r.handled <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		r.done <- buttons.Run(ctx, func(p Press) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.presses = append(r.presses, p)
		})
	}()
	t.Cleanup(r.stop)
	return r
}

// edge sets the clock to ms after the start and pushes level l on a pin.
func (r *buttonRig) edge(ms int, pin string, l gpio.Level) {
	r.t.Helper()
	r.clock.Set(epoch.Add(time.Duration(ms) * time.Millisecond))
	p, ok := r.pins[pin]
	if !ok {
		r.t.Fatalf("no pin %q", pin)
	}
	select {
	case p.EdgesChan <- l:
	case <-time.After(5 * time.Second):
		r.t.Fatalf("%s: edge not taken", pin)
	}
	select {
	case <-r.handled:
	case <-time.After(5 * time.Second):
		r.t.Fatalf("%s: edge not handled", pin)
	}
}

func (r *buttonRig) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	// Drain handled signals while Run winds down.
	for {
		select {
		case err := <-r.done:
			if err != context.Canceled {
				r.t.Errorf("Run returned %v; want context.Canceled", err)
			}
			return
		case <-r.handled:
		case <-time.After(5 * time.Second):
			r.t.Error("Run did not stop")
			return
		}
	}
}

func (r *buttonRig) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s []string
	for _, p := range r.presses {
		s = append(s, p.String())
	}
	return s
}

func TestGPIOButtons(t *testing.T) {
	const H, L = gpio.High, gpio.Low
	r := newButtonRig(t, []string{"ann", "bob"}, ButtonOptions{Debounce: 30 * time.Millisecond, LongPress: 800 * time.Millisecond})
	// A clean short press.
	r.edge(100, "ann quantity_up", L)
	r.edge(220, "ann quantity_up", H)
	// A press that bounces on the way down and on the way up.
	r.edge(1000, "bob bid", L)
	r.edge(1002, "bob bid", H)
	r.edge(1004, "bob bid", L)
	r.edge(1300, "bob bid", H)
	r.edge(1303, "bob bid", L)
	r.edge(1306, "bob bid", H)
	// A long press, with another seat's short press during it.
	r.edge(2000, "ann challenge", L)
	r.edge(2100, "bob face", L)
	r.edge(2200, "bob face", H)
	r.edge(2900, "ann challenge", H)
	r.stop()
	want := []string{
		"ann quantity_up (short, 120ms)",
		"bob bid (short, 300ms)",
		"bob face (short, 100ms)",
		"ann challenge (long, 900ms)",
	}
	if got := r.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("presses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestGPIOButtonsHeldAtStart: a button already down when Run starts (a
// stuck button, a drink on it) makes no press when it is let go.
func TestGPIOButtonsHeldAtStart(t *testing.T) {
	p := newTestPin("GPIO5", 5)
	b, err := NewGPIOButtons([]ButtonPin{{Seat: "ann", Button: ButtonBid, Pin: p}}, ButtonOptions{Clock: hardwaretest.NewClock(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, p.Out(gpio.Low))
	handled := make(chan struct{})
	b.sampled = func(ButtonPin) { handled <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var presses []Press
	go func() {
		defer close(done)
		_ = b.Run(ctx, func(p Press) { presses = append(presses, p) })
	}()
	p.EdgesChan <- gpio.High
	<-handled
	cancel()
	go func() {
		for range handled {
		}
	}()
	<-done
	if len(presses) != 0 {
		t.Errorf("presses %v; want none", presses)
	}
}

func TestNewGPIOButtonsErrors(t *testing.T) {
	p := newTestPin("GPIO5", 5)
	for _, tc := range []struct {
		name string
		pins []ButtonPin
		opts ButtonOptions
		want string
	}{
		{"no pin", []ButtonPin{{Seat: "ann", Button: ButtonBid}}, ButtonOptions{}, "seat ann's bid button has no pin"},
		{"unknown button", []ButtonPin{{Seat: "ann", Button: "pass", Pin: p}}, ButtonOptions{}, `unknown button "pass"`},
		{"long press within the debounce", nil, ButtonOptions{Debounce: time.Second, LongPress: 500 * time.Millisecond}, "long press"},
		{"no edge detection", []ButtonPin{{Seat: "ann", Button: ButtonBid, Pin: edgeless()}}, ButtonOptions{}, "seat ann's bid button on"},
	} {
		_, err := NewGPIOButtons(tc.pins, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}

// edgeless is a fake pin that cannot detect edges (no EdgesChan).
func edgeless() testPin {
	p := newTestPin("GPIO6", 6)
	p.EdgesChan = nil
	return p
}

func TestKeypad(t *testing.T) {
	k, err := NewKeypad([]string{"ann", "bob"}, KeypadOptions{MaxQuantity: 12, Sides: 6})
	if err != nil {
		t.Fatal(err)
	}
	press := func(seat string, b Button, long bool) string {
		c, ok := k.Press(Press{Seat: seat, Button: b, Long: long})
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%s %s %02d %d", c.Type, c.Seat, c.Quantity, c.Face)
	}
	for i, tc := range []struct {
		seat string
		b    Button
		long bool
		want string
	}{
		{"ann", ButtonBid, false, "bid ann 01 1"},
		{"ann", ButtonUp, false, "-"},
		{"ann", ButtonUp, false, "-"},
		{"ann", ButtonFace, false, "-"},
		{"ann", ButtonFace, false, "-"},
		{"ann", ButtonBid, false, "bid ann 03 3"},
		{"bob", ButtonBid, false, "bid bob 01 1"}, // each seat has its own pending bid
		{"ann", ButtonUp, true, "-"},
		{"ann", ButtonBid, true, "bid ann 08 3"},
		{"ann", ButtonUp, true, "-"}, // 13 clamps to 12
		{"ann", ButtonBid, false, "bid ann 12 3"},
		{"ann", ButtonDown, true, "-"},
		{"ann", ButtonDown, true, "-"},
		{"ann", ButtonDown, true, "-"}, // -3 clamps to 1
		{"ann", ButtonFace, true, "-"},
		{"ann", ButtonBid, false, "bid ann 01 2"},
		{"bob", ButtonFace, true, "-"}, // 1 back to 6
		{"bob", ButtonDown, false, "-"},
		{"bob", ButtonBid, false, "bid bob 01 6"},
		{"bob", ButtonFace, false, "-"}, // 6 on to 1
		{"bob", ButtonBid, false, "bid bob 01 1"},
		{"bob", ButtonChallenge, false, "challenge bob 00 0"},
		{"ann", ButtonSpotOn, true, "spot_on ann 00 0"},
		{"zed", ButtonBid, false, "-"},
	} {
		if got := press(tc.seat, tc.b, tc.long); got != tc.want {
			t.Errorf("press %d (%s %s long=%v) = %q; want %q", i, tc.seat, tc.b, tc.long, got, tc.want)
		}
	}
	k.SetPending(40, 0)
	if q, f, ok := k.Pending("bob"); q != 12 || f != 1 || !ok {
		t.Errorf("Pending(bob) after SetPending(40, 0) = %d, %d, %v; want 12, 1, true", q, f, ok)
	}
	if _, _, ok := k.Pending("zed"); ok {
		t.Error("Pending(zed): ok")
	}
}

func TestKeypadBluffOnLongBid(t *testing.T) {
	for _, bluffs := range []bool{false, true} {
		k, _ := NewKeypad([]string{"ann"}, KeypadOptions{MaxQuantity: 30, Sides: 6, BluffOnLongBid: bluffs})
		short, _ := k.Press(Press{Seat: "ann", Button: ButtonBid})
		long, _ := k.Press(Press{Seat: "ann", Button: ButtonBid, Long: true})
		if short.Bluff || long.Bluff != bluffs {
			t.Errorf("BluffOnLongBid %v: short press bluff %v, long press bluff %v; want false, %v", bluffs, short.Bluff, long.Bluff, bluffs)
		}
	}
}

func TestKeypadConfirmCalls(t *testing.T) {
	k, _ := NewKeypad([]string{"ann"}, KeypadOptions{MaxQuantity: 30, Sides: 6, ConfirmCalls: true})
	if c, ok := k.Press(Press{Seat: "ann", Button: ButtonChallenge}); ok {
		t.Errorf("short challenge with ConfirmCalls made %v", c)
	}
	c, ok := k.Press(Press{Seat: "ann", Button: ButtonChallenge, Long: true})
	if want := (Command{Type: "challenge", Seat: "ann"}); !ok || c != want {
		t.Errorf("long challenge = %v, %v; want %v", c, ok, want)
	}
	if _, err := NewKeypad(nil, KeypadOptions{MaxQuantity: 0, Sides: 6}); err == nil {
		t.Error("MaxQuantity 0: no error")
	}
	if _, err := NewKeypad(nil, KeypadOptions{MaxQuantity: 5, Sides: 1}); err == nil {
		t.Error("Sides 1: no error")
	}
}

func TestSimButtons(t *testing.T) {
	in := strings.NewReader("ann bid\n2 u long\n\nbob spot_on\nzed bid\nann jump\nann bid twice\n1 c\n")
	clock := hardwaretest.NewClock(epoch)
	sb := NewSimButtons([]string{"ann", "bob"}, in, clock)
	var errLines []int
	sb.OnError = func(line int, err error) { errLines = append(errLines, line) }
	var got []string
	if err := sb.Run(context.Background(), func(p Press) { got = append(got, p.String()) }); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ann bid (short, 100ms)",
		"bob quantity_up (long, 1s)",
		"bob spot_on (short, 100ms)",
		"ann challenge (short, 100ms)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("presses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(errLines) != 3 || errLines[0] != 5 || errLines[1] != 6 || errLines[2] != 7 {
		t.Errorf("errors on lines %v; want [5 6 7]", errLines)
	}
}

func TestSimButtonsStopsOnCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	sb := NewSimButtons([]string{"ann"}, pr, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sb.Run(ctx, func(Press) {}) }()
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Run = %v; want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop on cancel")
	}
}
