package camera

import (
	"reflect"
	"slices"
	"testing"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/vision"
)

func TestCheckRead(t *testing.T) {
	zones := NearestSeat{Positions: []SeatPosition{{"ann", 100, 100}, {"bob", 500, 100}, {"cy", 300, 400}}, MaxDistance: 150}
	die := func(face int, x, y float64) vision.Die { return vision.Die{Face: face, X: x, Y: y, Confidence: 0.9} }
	cases := []struct {
		name   string
		dice   []vision.Die
		want   map[string]int
		ok     bool
		doubts int
		reveal map[string][]int
	}{
		{"all read", []vision.Die{die(3, 90, 100), die(1, 110, 95), die(6, 500, 90)}, map[string]int{"ann": 2, "bob": 1}, true, 0,
			map[string][]int{"ann": {3, 1}, "bob": {6}}},
		{"a folded seat's dice are ignored", []vision.Die{die(3, 90, 100), die(6, 500, 90), die(2, 300, 410)}, map[string]int{"ann": 1, "bob": 1}, true, 0,
			map[string][]int{"ann": {3}, "bob": {6}}},
		{"uncertain die", []vision.Die{die(3, 90, 100), {Face: 4, X: 500, Y: 100, Uncertain: true}}, map[string]int{"ann": 1, "bob": 1}, false, 1, nil},
		{"unread face", []vision.Die{die(3, 90, 100), {Face: 0, X: 500, Y: 100}}, map[string]int{"ann": 1, "bob": 1}, false, 1, nil},
		{"missing die", []vision.Die{die(3, 90, 100)}, map[string]int{"ann": 1, "bob": 1}, false, 0, nil},
		{"extra die", []vision.Die{die(3, 90, 100), die(3, 95, 120), die(2, 500, 100)}, map[string]int{"ann": 1, "bob": 1}, false, 0, nil},
		{"die in no zone", []vision.Die{die(3, 90, 100), die(2, 500, 100), die(5, 900, 900)}, map[string]int{"ann": 1, "bob": 1}, false, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			look := CheckRead(c.dice, zones, c.want)
			if look.OK != c.ok || len(look.Doubts) != c.doubts {
				t.Fatalf("got ok %v with %d doubts (%s); want ok %v with %d", look.OK, len(look.Doubts), look.Message(), c.ok, c.doubts)
			}
			if !look.OK && look.Dice != nil {
				t.Errorf("a read in doubt keeps its faces: %v", look.Dice)
			}
			for s, f := range c.reveal {
				if !slices.Equal(look.Dice[s], f) {
					t.Errorf("%s: got %v; want %v", s, look.Dice[s], f)
				}
			}
			if !look.OK && look.Message() == "" {
				t.Error("no message for a look")
			}
		})
	}
}

func TestCalibratedZones(t *testing.T) {
	zones, err := calibration.RoundTable([]string{"ann", "bob", "cy", "dee"}, calibration.Point{X: 400, Y: 400}, 380)
	if err != nil {
		t.Fatal(err)
	}
	f := &calibration.File{Version: calibration.Version, Seats: zones,
		Board: &calibration.Board{Homography: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, Cols: 9, Rows: 6, SquareMM: 20}}
	z := CalibratedZones{File: f}
	// Clockwise from the top, as the camera sees the board.
	for _, c := range []struct {
		x, y float64
		want string
	}{{400, 80, "ann"}, {720, 400, "bob"}, {400, 720, "cy"}, {80, 400, "dee"}} {
		if got, ok := z.SeatOf(vision.Die{X: c.x, Y: c.y}); !ok || got != c.want {
			t.Errorf("die at (%v,%v): got %q, %v; want %q", c.x, c.y, got, ok, c.want)
		}
	}
	// Without a measured board, the configured positions decide.
	z = CalibratedZones{File: &calibration.File{}, Fallback: NearestSeat{Positions: []SeatPosition{{"ann", 0, 0}, {"bob", 100, 0}}}}
	if got, ok := z.SeatOf(vision.Die{X: 90, Y: 5}); !ok || got != "bob" {
		t.Errorf("fallback: got %q, %v; want bob", got, ok)
	}
}

func TestLookMessage(t *testing.T) {
	cases := []struct {
		look Look
		want string
	}{
		{Look{OK: true}, "the read matches the dice in play"},
		{Look{Doubts: []referee.Doubt{{Seat: "ann"}}}, "1 die in doubt (ann)"},
		{Look{Doubts: []referee.Doubt{{Seat: "ann"}, {Seat: "cy"}, {Seat: "ann"}}}, "3 dice in doubt (ann, cy)"},
		{Look{Doubts: []referee.Doubt{{Reason: "no_seat"}}}, "1 die in doubt (outside every seat)"},
		{Look{Counts: []referee.SeatCount{{Seat: "bob", Expected: 1, Seen: 0}, {Seat: "cy", Expected: 5, Seen: 5}}}, "bob has 1 die, 0 seen"},
		{Look{Doubts: []referee.Doubt{{Seat: "dee"}}, Counts: []referee.SeatCount{{Seat: "cy", Expected: 5, Seen: 4}}}, "1 die in doubt (dee); cy has 5 dice, 4 seen"},
	}
	for _, c := range cases {
		if got := c.look.Message(); got != c.want {
			t.Errorf("got %q; want %q", got, c.want)
		}
	}
}

func TestZonesFor(t *testing.T) {
	pos := []SeatPosition{{"ann", 0, 0}, {"bob", 100, 0}}
	cal := &calibration.File{}
	for _, tc := range []struct {
		name string
		pos  []SeatPosition
		cal  *calibration.File
		want Zones
	}{
		{"no seats, no calibration", nil, nil, nil},
		{"seats", pos, nil, NearestSeat{Positions: pos, MaxDistance: 50}},
		{"a calibration over the seats", pos, cal, CalibratedZones{File: cal, Fallback: NearestSeat{Positions: pos, MaxDistance: 50}}},
		{"a calibration alone", nil, cal, CalibratedZones{File: cal}},
	} {
		if got := ZonesFor(tc.pos, 50, tc.cal); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v; want %#v", tc.name, got, tc.want)
		}
	}
}
