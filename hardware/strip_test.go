package hardware

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/spi/spitest"
)

// levels reads the pins' levels as a string of 0 and 1.
func levels(pins []testPin) string {
	var b strings.Builder
	for _, p := range pins {
		if p.Read() {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func frameOf(s string) []Color {
	f := make([]Color, len(s))
	for i, c := range s {
		switch c {
		case 'W':
			f[i] = White
		case 'r':
			f[i] = DimRed
		case 'R':
			f[i] = Red
		}
	}
	return f
}

func TestGPIOStrip(t *testing.T) {
	for _, activeLow := range []bool{false, true} {
		pins := newTestPins(t, 5)
		outs := make([]gpio.PinOut, len(pins))
		writes := 0
		for i, p := range pins {
			outs[i] = countingPin{p, &writes}
		}
		s, err := NewGPIOStrip(outs, activeLow)
		if err != nil {
			t.Fatal(err)
		}
		flip := func(want string) string {
			if !activeLow {
				return want
			}
			return strings.Map(func(r rune) rune { return '0' + '1' - r }, want)
		}
		if got, want := levels(pins), flip("00000"); got != want {
			t.Errorf("activeLow %v: after New pins = %s; want %s (all out)", activeLow, got, want)
		}
		// Dim colours are backgrounds and stay dark on single-colour LEDs.
		mustDo(t, s.Write(frameOf("W.rR.")))
		if got, want := levels(pins), flip("10010"); got != want {
			t.Errorf("activeLow %v: pins = %s; want %s", activeLow, got, want)
		}
		before := writes
		mustDo(t, s.Write(frameOf("W..RW")))
		if got, want := writes-before, 1; got != want {
			t.Errorf("activeLow %v: %d pins written for one changed LED; want %d", activeLow, got, want)
		}
		if got, want := levels(pins), flip("10011"); got != want {
			t.Errorf("activeLow %v: pins = %s; want %s", activeLow, got, want)
		}
		if err := s.Write(frameOf("W")); err == nil {
			t.Error("a short frame: no error")
		}
	}
	if _, err := NewGPIOStrip(nil, false); err == nil {
		t.Error("no pins: no error")
	}
	if _, err := NewGPIOStrip([]gpio.PinOut{nil}, false); err == nil {
		t.Error("a nil pin: no error")
	}
}

func TestShiftRegisterEncoding(t *testing.T) {
	for _, tc := range []struct {
		frame     string
		activeLow bool
		want      []byte
	}{
		// LED 0 is Q0 of the first register; the far register's byte goes first.
		{"W.........", false, []byte{0x00, 0x01}},
		{".......W..", false, []byte{0x00, 0x80}},
		{"........W.", false, []byte{0x01, 0x00}},
		{"W.W.W.W.WW", false, []byte{0x03, 0x55}},
		{"r.........", false, []byte{0x00, 0x00}},
		// Active low: lit outputs go low; the others, unused ones included, stay high (off).
		{"W.........", true, []byte{0xff, 0xfe}},
	} {
		buf := make([]byte, (len(tc.frame)+7)/8)
		encodeShiftRegisters(buf, frameOf(tc.frame), tc.activeLow)
		if !bytes.Equal(buf, tc.want) {
			t.Errorf("encode(%q, activeLow %v) = % x; want % x", tc.frame, tc.activeLow, buf, tc.want)
		}
	}
}

// TestShiftRegisterStripSPI records what goes on the SPI bus with periph's
// spitest, checks it, and plays it back.
func TestShiftRegisterStripSPI(t *testing.T) {
	frames := []string{"W.........", "W..R.....W", ".........."}
	rec := &spitest.Record{}
	s, err := OpenShiftRegisterStrip(rec, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Registers(), 2; got != want {
		t.Errorf("Registers() = %d; want %d", got, want)
	}
	for _, f := range frames {
		mustDo(t, s.Write(frameOf(f)))
	}
	want := []conntest.IO{
		{W: []byte{0x00, 0x00}}, // put out at open
		{W: []byte{0x00, 0x01}},
		{W: []byte{0x02, 0x09}},
		{W: []byte{0x00, 0x00}},
	}
	if got := fmt.Sprint(rec.Ops); got != fmt.Sprint(want) {
		t.Errorf("SPI writes = %v; want %v", got, want)
	}

	play := &spitest.Playback{Playback: conntest.Playback{Ops: rec.Ops, DontPanic: true}}
	s, err = OpenShiftRegisterStrip(play, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		mustDo(t, s.Write(frameOf(f)))
	}
	mustDo(t, play.Close())
}

func TestShiftRegisterStripErrors(t *testing.T) {
	if _, err := NewShiftRegisterStrip(nil, 8, false); err == nil {
		t.Error("nil conn: no error")
	}
	conn, _ := (&spitest.Record{}).Connect(ShiftRegisterSpeed, 0, 8)
	if _, err := NewShiftRegisterStrip(conn, 0, false); err == nil {
		t.Error("zero LEDs: no error")
	}
	// A bus that fails: the error is the package's and wraps the cause.
	play := &spitest.Playback{Playback: conntest.Playback{DontPanic: true}}
	_, err := OpenShiftRegisterStrip(play, 8, false)
	if err == nil || !strings.HasPrefix(err.Error(), "hardware: shift registers:") {
		t.Errorf("failing bus: %v; want a hardware: shift registers error", err)
	}
}

// TestAPA102StripSPI records the APA102 bytes for a frame through periph's
// apa102 driver, compares them with a golden file and plays them back.
func TestAPA102StripSPI(t *testing.T) {
	l, _ := NewLayout(4, 1, []string{"ann", "bob"})
	b := NewBoard(l, nil)
	mustDo(t, b.ShowBid(1, 1, true))
	mustDo(t, b.ShowTurn(0))
	mustDo(t, b.SetStatus(StatusReady))
	frame := b.Render(epoch)

	rec := &spitest.Record{}
	s, err := OpenAPA102Strip(rec, l.Len(), 255)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, s.Write(frame))
	if got := len(rec.Ops); got != 2 {
		t.Fatalf("%d SPI writes; want 2 (put out at open, then the frame)", got)
	}
	w := rec.Ops[1].W
	// Start frame, then one 4-byte word per LED: 0xE0|brightness, blue, green, red.
	if !bytes.Equal(w[:4], []byte{0, 0, 0, 0}) {
		t.Errorf("start frame % x; want 00 00 00 00", w[:4])
	}
	px := func(i int) []byte { return w[4+4*i : 8+4*i] }
	status := px(l.Status())
	if status[0] != 0xff || status[1] != 0 || status[2] == 0 || status[3] != 0 {
		t.Errorf("green status LED word % x; want ff 00 xx 00", status)
	}
	if off := px(l.Status() - 1); off[1] != 0 || off[2] != 0 || off[3] != 0 {
		t.Errorf("dark seat LED word % x; want no colour", off)
	}
	var dump strings.Builder
	for i := range l.Len() {
		fmt.Fprintf(&dump, "%-24s % x\n", l.Describe(i), px(i))
	}
	fmt.Fprintf(&dump, "%-24s % x\n", "end frame", w[4+4*l.Len():])
	golden(t, "apa102.golden", []byte(dump.String()))

	play := &spitest.Playback{Playback: conntest.Playback{Ops: rec.Ops, DontPanic: true}}
	s, err = OpenAPA102Strip(play, l.Len(), 255)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, s.Write(frame))
	mustDo(t, play.Close())

	if err := s.Write(frame[1:]); err == nil {
		t.Error("a short frame: no error")
	}
	if _, err := OpenAPA102Strip(nil, 3, 0); err == nil {
		t.Error("nil port: no error")
	}
	if _, err := OpenAPA102Strip(&spitest.Record{}, 0, 0); err == nil {
		t.Error("zero LEDs: no error")
	}
}

func TestSimStrip(t *testing.T) {
	l, _ := NewLayout(4, 0, []string{"ann", "bob"})
	var out bytes.Buffer
	s := NewSimStrip(l, &out, false)
	f := make([]Color, l.Len())
	f[1], f[l.Status()] = White, Green
	mustDo(t, s.Write(f))
	if got, want := out.String(), "track [.W..] faces [......] seats [..] status [G]\n"; got != want {
		t.Errorf("printed %q; want %q", got, want)
	}
	if got := s.Frame(); got[1] != White || s.Writes() != 1 {
		t.Errorf("Frame()[1] = %v after %d writes; want white after 1", got[1], s.Writes())
	}
	var ansi bytes.Buffer
	mustDo(t, NewSimStrip(l, &ansi, true).Write(f))
	if !strings.Contains(ansi.String(), "\x1b[38;2;255;255;255m●") {
		t.Errorf("ANSI output %q has no white dot", ansi.String())
	}
	if err := s.Write(f[1:]); err == nil {
		t.Error("a short frame: no error")
	}
	if err := NewSimStrip(l, failingWriter{}, false).Write(f); err == nil {
		t.Error("a failing terminal: no error")
	}
}

// countingPin counts the calls to Out.
type countingPin struct {
	gpio.PinOut
	n *int
}

func (p countingPin) Out(l gpio.Level) error {
	*p.n++
	return p.PinOut.Out(l)
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWalk(t *testing.T) {
	l, _ := NewLayout(3, 1, []string{"ann"})
	var printed strings.Builder
	sim := NewSimStrip(l, &printed, false)
	var lit []int
	mustDo(t, Walk(context.Background(), sim, time.Microsecond, func(i int) {
		lit = append(lit, i)
		for j, c := range sim.Frame() {
			if c.On() != (j == i) {
				t.Errorf("LED %d: %s while walking LED %d", j, c, i)
			}
		}
	}))
	if len(lit) != l.Len() {
		t.Errorf("walked %d LEDs; want %d", len(lit), l.Len())
	}
	for _, c := range sim.Frame() {
		if c != Off {
			t.Fatal("the strip is not out after the walk")
		}
	}
	lines := strings.Split(strings.TrimSpace(printed.String()), "\n")
	if got, want := lines[2], "track [..W.] faces [......] seats [.] status [.]"; got != want {
		t.Errorf("third step %q; want %q", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, sim, time.Hour, nil); err != context.Canceled {
		t.Errorf("Walk on a done context = %v; want context.Canceled", err)
	}
}
