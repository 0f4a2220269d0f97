package hardware

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// SimButtons reads button presses as lines of text, for the simulated
// board and for tests: "SEAT BUTTON [long]", where SEAT is a seat's name or
// its number counting from 1, and BUTTON a button's name or its first
// letter (u, d, f, b, c, s). For example "ann bid", "2 u long".
type SimButtons struct {
	seats []string
	r     io.Reader
	clock Clock
	// OnError, when set, is told about lines that are not presses; they
	// are skipped.
	OnError func(line int, err error)
}

// NewSimButtons returns presses read from r for seats.
func NewSimButtons(seats []string, r io.Reader, clock Clock) *SimButtons {
	if clock == nil {
		clock = SystemClock{}
	}
	return &SimButtons{seats: append([]string(nil), seats...), r: r, clock: clock}
}

// simLongPress is how long a simulated long press is held.
const simLongPress = time.Second

// Run calls handle with each press read, until the input ends (it returns
// nil) or ctx is done (it returns ctx's error; a read blocked on a terminal
// is left behind).
func (s *SimButtons) Run(ctx context.Context, handle func(Press)) error {
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(s.r)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok := <-lines:
			if !ok {
				if err := <-readErr; err != nil {
					return fmt.Errorf("hardware: reading simulated buttons: %w", err)
				}
				return nil
			}
			n++
			if strings.TrimSpace(line) == "" {
				continue
			}
			p, err := s.parse(line)
			if err != nil {
				if s.OnError != nil {
					s.OnError(n, err)
				}
				continue
			}
			handle(p)
		}
	}
}

// parse reads one press.
func (s *SimButtons) parse(line string) (Press, error) {
	f := strings.Fields(line)
	if len(f) < 2 || len(f) > 3 || (len(f) == 3 && f[2] != "long") {
		return Press{}, fmt.Errorf("hardware: %q is not SEAT BUTTON [long]", line)
	}
	seat := ""
	for _, name := range s.seats {
		if name == f[0] {
			seat = name
		}
	}
	if n, err := strconv.Atoi(f[0]); seat == "" && err == nil && n >= 1 && n <= len(s.seats) {
		seat = s.seats[n-1]
	}
	if seat == "" {
		return Press{}, fmt.Errorf("hardware: no seat %q (seats: %s)", f[0], strings.Join(s.seats, ", "))
	}
	var button Button
	for _, b := range Buttons {
		if string(b) == f[1] || (len(f[1]) == 1 && b.short() == f[1][0]) {
			button = b
		}
	}
	if button == "" {
		return Press{}, fmt.Errorf("hardware: no button %q (buttons: u, d, f, b, c, s or their names)", f[1])
	}
	p := Press{Seat: seat, Button: button, Held: 100 * time.Millisecond, At: s.clock.Now()}
	if len(f) == 3 {
		p.Long, p.Held = true, simLongPress
	}
	return p, nil
}

// short is the button's one-letter name for SimButtons.
func (b Button) short() byte {
	switch b {
	case ButtonUp:
		return 'u'
	case ButtonDown:
		return 'd'
	}
	return b[0] // face, bid, challenge, spot_on
}
