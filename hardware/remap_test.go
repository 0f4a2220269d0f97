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
