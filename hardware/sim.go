package hardware

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// SimStrip is a simulated board: it keeps the last frame for tests to
// inspect and, given a writer, prints every frame on one line (see
// FormatFrame), for terminals and for anyone without a Pi.
type SimStrip struct {
	layout Layout
	w      io.Writer
	ansi   bool

	mu     sync.Mutex
	frame  []Color
	writes int
}

// NewSimStrip returns a dark simulated board with layout l. Frames are
// printed to w when it is not nil, in colour when ansi is true.
func NewSimStrip(l Layout, w io.Writer, ansi bool) *SimStrip {
	return &SimStrip{layout: l, w: w, ansi: ansi, frame: make([]Color, l.Len())}
}

// Len returns the number of LEDs.
func (s *SimStrip) Len() int { return s.layout.Len() }

// Write keeps frame and prints it.
func (s *SimStrip) Write(frame []Color) error {
	if err := checkFrame(frame, s.layout.Len()); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	copy(s.frame, frame)
	s.writes++
	if s.w != nil {
		if _, err := io.WriteString(s.w, FormatFrame(s.layout, frame, s.ansi)+"\n"); err != nil {
			return fmt.Errorf("hardware: simulated board: %w", err)
		}
	}
	return nil
}

// Frame returns a copy of the last frame written.
func (s *SimStrip) Frame() []Color {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.frame)
}

// Writes returns how many frames have been written.
func (s *SimStrip) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// FormatFrame writes frame on one line, grouped as the board is:
//
//	track [wwyW..........] faces [....W.] seats [G..] status [G]
//
// Each LED is one character: '.' off, a capital letter for a bright colour
// of the palette (W white, R red, G green, B blue, A amber, Y yellow, C
// cyan), a small letter for a dim one (w, y, r, g), '#' or '?' for other
// colours that do or do not light single-colour LEDs. With ansi, LEDs are
// drawn as coloured dots in 24-bit colour instead. A frame of the wrong length
// is written as such, not formatted.
func FormatFrame(l Layout, frame []Color, ansi bool) string {
	if len(frame) != l.Len() {
		return fmt.Sprintf("(frame of %d LEDs for a board of %d)", len(frame), l.Len())
	}
	var b strings.Builder
	group := func(name string, from, to int) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		b.WriteString(" [")
		for _, c := range frame[from:to] {
			switch {
			case !ansi:
				b.WriteByte(c.symbol())
			case c == Off:
				b.WriteString("\x1b[2m·\x1b[0m")
			default:
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm●\x1b[0m", c.R, c.G, c.B)
			}
		}
		b.WriteByte(']')
	}
	t := l.TrackLen()
	group("track", 0, t)
	group("faces", t, t+FaceLEDs)
	group("seats", t+FaceLEDs, l.Status())
	group("status", l.Status(), l.Len())
	return b.String()
}
