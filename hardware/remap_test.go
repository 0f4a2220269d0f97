package hardware

import (
	"slices"
	"testing"
)

type recordStrip struct {
	n      int
	frames [][]Color
}

func (s *recordStrip) Len() int { return s.n }
func (s *recordStrip) Write(f []Color) error {
	s.frames = append(s.frames, slices.Clone(f))
	return nil
}

func TestRemapStrip(t *testing.T) {
	raw := &recordStrip{n: 3}
	r, err := NewRemapStrip(raw, []int{2, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	red, green, blue := Color{R: 255}, Color{G: 255}, Color{B: 255}
	if err := r.Write([]Color{red, green, blue}); err != nil {
		t.Fatal(err)
	}
	if got, want := raw.frames[0], []Color{green, blue, red}; !slices.Equal(got, want) {
		t.Fatalf("chain shows %v; want %v", got, want)
	}
	for _, bad := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}} {
		if _, err := NewRemapStrip(raw, bad); err == nil {
			t.Errorf("order %v: no error", bad)
		}
	}
}

// TestRemapStripRobust: no strip is an error, not a panic, and the order is
// the one checked even if the caller's slice changes afterwards.
func TestRemapStripRobust(t *testing.T) {
	if _, err := NewRemapStrip(nil, []int{0}); err == nil {
		t.Error("NewRemapStrip(nil, [0]): no error; want one")
	}
	raw := &recordStrip{n: 2}
	order := []int{1, 0}
	r, err := NewRemapStrip(raw, order)
	if err != nil {
		t.Fatal(err)
	}
	order[0] = 7 // out of range: would panic in Write if kept
	on := Color{R: 255}
	if err := r.Write([]Color{on, Off}); err != nil {
		t.Fatal(err)
	}
	if got, want := raw.frames[0], []Color{Off, on}; !slices.Equal(got, want) {
		t.Errorf("chain shows %v; want %v", got, want)
	}
}
