package demo

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The demo's defaults, and each option it refuses.
func TestOptionsWithDefaults(t *testing.T) {
	o, p, err := Options{}.withDefaults()
	if err != nil || p == nil || o.Rules != "star-board" || o.Seats != 4 || o.OperatorAfter != 3*time.Second ||
		o.CorrectWindow != 0 || o.Table != "demo" || o.BoardMode != "line" || o.Level != "strong" || o.Out == nil || o.Logger == nil {
		t.Errorf("defaults: got %+v, %v", o, err)
	}
	if o, _, _ := (Options{OperatorAfter: OperatorOff}).withDefaults(); o.CorrectWindow != DefaultPersonWindow {
		t.Errorf("operator off: correction window %v; want %v", o.CorrectWindow, DefaultPersonWindow)
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Rules: "snap"}, "no preset"},
		{Options{Seats: 1}, "played here by 2 to 6 seats, not 1"},
		{Options{Seats: 7}, "not 7"},
		{Options{Pace: -1}, "negative pace"},
		{Options{Doubt: 1.5}, "want a share from 0 to 1"},
		{Options{Doubt: math.NaN()}, "want a share from 0 to 1"},
		{Options{CorrectWindow: -time.Second}, "want 0 or more"},
	} {
		if _, _, err := tc.o.withDefaults(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v; want an error with %q", tc.o, err, tc.want)
		}
	}
}

// The demo table's track holds every die, on star spaces too where bids
// of stars or ones stand.
func TestTableConfigTrack(t *testing.T) {
	for _, tc := range []struct {
		rules        string
		seats        int
		options      map[string]any
		track, stars int
	}{
		{"star-board", 4, nil, 20, 10},
		{"common-hand", 3, map[string]any{"dice": 2}, 6, 0},
		{"kids", 3, nil, 15, 0},
		{"perudo", 2, nil, 10, 5},
	} {
		o, p, err := Options{Rules: tc.rules, Seats: tc.seats, Options: tc.options, HTTP: "off", Listen: "127.0.0.1:0"}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		names := seatNames[:o.Seats]
		c, addr, err := tableConfig(o, p, Layout{Width: 1280, Height: 800, DieSize: 44, Seats: names}, t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", tc.rules, err)
		}
		if c.Board.Track.NumberSpaces != tc.track || c.Board.Track.StarSpaces != tc.stars || addr != "off" || len(c.Seats) != tc.seats {
			t.Errorf("%s: track %d, stars %d, http %q, %d seats; want %d, %d, off, %d", tc.rules, c.Board.Track.NumberSpaces,
				c.Board.Track.StarSpaces, addr, len(c.Seats), tc.track, tc.stars, tc.seats)
		}
	}
}
