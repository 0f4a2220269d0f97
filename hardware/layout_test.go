package hardware

import (
	"fmt"
	"strings"
	"testing"
)

func starBoardLayout(t *testing.T) Layout {
	t.Helper()
	l, err := NewLayout(30, 15, []string{"ann", "bob", "cy", "dee", "eve", "fay"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLayoutStarTrack(t *testing.T) {
	l := starBoardLayout(t)
	if got, want := l.TrackLen(), 45; got != want {
		t.Fatalf("TrackLen() = %d; want %d", got, want)
	}
	if got, want := l.Len(), 45+6+6+1; got != want {
		t.Fatalf("Len() = %d; want %d", got, want)
	}
	// RULINGS.md: number 1, 2, star 1, 3, 4, star 2, 5, 6, star 3, ...
	want := []string{"1", "2", "*1", "3", "4", "*2", "5", "6", "*3", "7"}
	for i, w := range want {
		var got int
		var err error
		if strings.HasPrefix(w, "*") {
			var k int
			fmt.Sscanf(w, "*%d", &k)
			got, err = l.StarSpace(k)
		} else {
			var q int
			fmt.Sscanf(w, "%d", &q)
			got, err = l.NumberSpace(q)
		}
		if err != nil || got != i {
			t.Errorf("space %s at LED %d, %v; want %d", w, got, err, i)
		}
	}
	last, _ := l.NumberSpace(30)
	star15, _ := l.StarSpace(15)
	if last != 43 || star15 != 44 {
		t.Errorf("number 30 at %d, star 15 at %d; want 43, 44", last, star15)
	}
}

func TestLayoutDescribeInvertsSpaces(t *testing.T) {
	for _, tc := range []struct{ numbers, stars int }{{30, 15}, {10, 2}, {12, 0}, {1, 0}, {2, 1}} {
		l, err := NewLayout(tc.numbers, tc.stars, []string{"ann", "bob"})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for q := 1; q <= tc.numbers; q++ {
			i, err := l.NumberSpace(q)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := l.Describe(i), fmt.Sprintf("track %d: number space %d", i+1, q); got != want {
				t.Errorf("%d/%d: Describe(%d) = %q; want %q", tc.numbers, tc.stars, i, got, want)
			}
			seen[i] = true
		}
		for k := 1; k <= tc.stars; k++ {
			i, _ := l.StarSpace(k)
			if got, want := l.Describe(i), fmt.Sprintf("track %d: star space %d", i+1, k); got != want {
				t.Errorf("%d/%d: Describe(%d) = %q; want %q", tc.numbers, tc.stars, i, got, want)
			}
			seen[i] = true
		}
		if len(seen) != l.TrackLen() {
			t.Errorf("%d/%d: spaces cover %d LEDs; want %d", tc.numbers, tc.stars, len(seen), l.TrackLen())
		}
	}
}

func TestLayoutOtherLEDs(t *testing.T) {
	l, _ := NewLayout(10, 0, []string{"ann", "bob", "cy"})
	f1, _ := l.Face(1)
	f6, _ := l.Face(6)
	s0, _ := l.Seat(0)
	s2, _ := l.Seat(2)
	for _, tc := range []struct {
		led  int
		want string
	}{
		{f1, "face 1 (star)"}, {f6, "face 6"}, {s0, "seat ann"}, {s2, "seat cy"}, {l.Status(), "status"}, {l.Len(), "no LED 20"},
	} {
		if got := l.Describe(tc.led); got != tc.want {
			t.Errorf("Describe(%d) = %q; want %q", tc.led, got, tc.want)
		}
	}
	if got := l.SeatIndex("bob"); got != 1 {
		t.Errorf("SeatIndex(bob) = %d; want 1", got)
	}
	if got := l.SeatIndex("zed"); got != -1 {
		t.Errorf("SeatIndex(zed) = %d; want -1", got)
	}
}

func TestNewLayoutErrors(t *testing.T) {
	for _, tc := range []struct {
		numbers, stars int
		seats          []string
		want           string
	}{
		{0, 0, []string{"a"}, "at least one number space"},
		{10, 6, []string{"a"}, "6 star spaces need 12 number spaces"},
		{10, -1, []string{"a"}, "negative"},
		{10, 0, nil, "no seats"},
		{10, 0, []string{"a", "a"}, `seat "a" named twice`},
		{10, 0, []string{""}, "empty seat name"},
		{10, 0, make([]string, 21), "21 seats"},
	} {
		_, err := NewLayout(tc.numbers, tc.stars, tc.seats)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewLayout(%d, %d, %q) = %v; want an error with %q", tc.numbers, tc.stars, tc.seats, err, tc.want)
		}
	}
	l, _ := NewLayout(10, 2, []string{"a"})
	for _, f := range []func() (int, error){
		func() (int, error) { return l.NumberSpace(0) },
		func() (int, error) { return l.NumberSpace(11) },
		func() (int, error) { return l.StarSpace(3) },
		func() (int, error) { return l.Face(7) },
		func() (int, error) { return l.Seat(1) },
	} {
		if _, err := f(); err == nil {
			t.Error("out of range: no error")
		}
	}
}
