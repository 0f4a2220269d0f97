package calibration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/hardware"
)

type chain struct {
	n      int
	frames [][]hardware.Color
}

func (c *chain) Len() int { return c.n }
func (c *chain) Write(f []hardware.Color) error {
	c.frames = append(c.frames, slices.Clone(f))
	return nil
}

func TestLEDWalk(t *testing.T) {
	layout, err := hardware.NewLayout(2, 1, []string{"ann", "bob"})
	if err != nil {
		t.Fatal(err)
	}
	n := layout.Len() // 3 track + 6 faces + 2 seats + status = 12
	// The installer wired the first two LEDs the wrong way round.
	answers := "2\n1\n" + strings.Repeat("\n", n-2)
	s := &Session{File: &File{}, In: bufio.NewReader(strings.NewReader(answers)), Out: io.Discard}
	c := &chain{n: n}
	if err := s.LEDs(c, layout); err != nil {
		t.Fatal(err)
	}
	want := []int{1, 0}
	for i := 2; i < n; i++ {
		want = append(want, i)
	}
	if !slices.Equal(s.File.Wiring.LEDOrder, want) {
		t.Fatalf("LED order %v; want %v", s.File.Wiring.LEDOrder, want)
	}
	if lit := c.frames[0][0]; lit == (hardware.Color{}) {
		t.Fatal("the walk did not light chain LED 1 first")
	}
	// The order drives a RemapStrip: model LED 1 lights chain position 2.
	r, err := hardware.NewRemapStrip(c, s.File.Wiring.LEDOrder)
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]hardware.Color, n)
	frame[0] = hardware.Color{R: 9}
	r.Write(frame)
	if got := c.frames[len(c.frames)-1]; got[1] != (hardware.Color{R: 9}) {
		t.Fatalf("remapped frame %v; want model LED 1 at chain position 2", got)
	}
	// Naming an LED twice is an error that says which.
	s2 := &Session{File: &File{}, In: bufio.NewReader(strings.NewReader("1\n1\n")), Out: io.Discard}
	if err := s2.LEDs(&chain{n: n}, layout); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Fatalf("got %v; want an error naming the LED", err)
	}
}

type scriptedPresses []hardware.Press

func (p scriptedPresses) Run(ctx context.Context, handle func(hardware.Press)) error {
	for _, press := range p {
		time.Sleep(5 * time.Millisecond)
		handle(press)
	}
	<-ctx.Done()
	return nil
}

func TestButtonCheck(t *testing.T) {
	src := scriptedPresses{
		{Seat: "ann", Button: hardware.ButtonBid},
		{Seat: "bob", Button: hardware.ButtonBid}, // ann's challenge is wired to bob's bid
		{Seat: "bob", Button: hardware.ButtonChallenge},
		{Seat: "ann", Button: hardware.ButtonChallenge},
	}
	s := &Session{File: &File{}, Out: io.Discard}
	buttons := []hardware.Button{hardware.ButtonBid, hardware.ButtonChallenge}
	if err := s.Buttons(context.Background(), src, []string{"ann", "bob"}, buttons, time.Second); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"bob/bid": "ann/challenge", "ann/challenge": "bob/challenge", "bob/challenge": "bob/bid"}
	for k, v := range want {
		if s.File.Wiring.Buttons[k] != v {
			t.Errorf("press %s recorded as %q; want %q (all: %v)", k, s.File.Wiring.Buttons[k], v, s.File.Wiring.Buttons)
		}
	}
	// Two buttons wired to one input: no map can tell them apart, and the
	// file keeps what it had.
	s3 := &Session{File: &File{}, Out: io.Discard}
	same := scriptedPresses{{Seat: "ann", Button: hardware.ButtonBid}, {Seat: "ann", Button: hardware.ButtonBid}}
	err := s3.Buttons(context.Background(), same, []string{"ann"}, buttons, time.Second)
	if got, want := fmt.Sprint(err), "calibration: ann/bid and ann/challenge both arrive as ann/bid"; !strings.HasPrefix(got, want) {
		t.Errorf("two buttons on one input: got %q; want it to start %q", got, want)
	}
	if s3.File.Wiring != nil {
		t.Errorf("a failed button check changed the file: %+v", s3.File.Wiring)
	}
	s2 := &Session{File: &File{}, Out: io.Discard}
	err = s2.Buttons(context.Background(), scriptedPresses{}, []string{"ann"}, buttons[:1], 20*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "ann/bid") {
		t.Fatalf("got %v; want an error naming ann/bid", err)
	}
}
