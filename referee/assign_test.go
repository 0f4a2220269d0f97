package referee

import (
	"slices"
	"testing"

	"github.com/liarsd/liarsd/calibration"
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

func TestCommandLines(t *testing.T) {
	cases := []struct {
		in, id, line string
	}{
		{`{"id":7,"type":"bid","seat":"a"}`, `7`, `{"type":"bid","seat":"a"}`},
		{"{\"type\": \"bid\",\n \"id\": {\"x\": [1, 2]}}", `{"x":[1,2]}`, `{"type":"bid"}`},
		{`{"type":"bid"}`, `null`, `{"type":"bid"}`},
		{`nonsense`, `null`, `nonsense`},
		{`{"type":"bid"} {"type":"x"}`, `null`, `{"type":"bid"} {"type":"x"}`},
	}
	for _, c := range cases {
		id, line := splitCommand([]byte(c.in))
		if string(id) != c.id || string(line) != c.line {
			t.Errorf("splitCommand(%q) = %s, %s; want %s, %s", c.in, id, line, c.id, c.line)
		}
		if got := CommandID([]byte(c.in)); string(got) != c.id {
			t.Errorf("CommandID(%q) = %s; want %s", c.in, got, c.id)
		}
	}
	if got, ok := withSeed([]byte(`{"type":"new_game","seed":null}`), 5); !ok || string(got) != `{"type":"new_game","seed":5}` {
		t.Errorf("withSeed(null seed) = %s, %v", got, ok)
	}
	if got, ok := withSeed([]byte(`{"type":"new_game","seed":0}`), 5); ok || string(got) != `{"type":"new_game","seed":0}` {
		t.Errorf("withSeed(seed 0) = %s, %v; a given seed stays", got, ok)
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
		{Look{Doubts: []Doubt{{Seat: "ann"}}}, "1 die in doubt (ann)"},
		{Look{Doubts: []Doubt{{Seat: "ann"}, {Seat: "cy"}, {Seat: "ann"}}}, "3 dice in doubt (ann, cy)"},
		{Look{Doubts: []Doubt{{Reason: "no_seat"}}}, "1 die in doubt (outside every seat)"},
		{Look{Counts: []SeatCount{{Seat: "bob", Expected: 1, Seen: 0}, {Seat: "cy", Expected: 5, Seen: 5}}}, "bob has 1 die, 0 seen"},
		{Look{Doubts: []Doubt{{Seat: "dee"}}, Counts: []SeatCount{{Seat: "cy", Expected: 5, Seen: 4}}}, "1 die in doubt (dee); cy has 5 dice, 4 seen"},
	}
	for _, c := range cases {
		if got := c.look.Message(); got != c.want {
			t.Errorf("got %q; want %q", got, c.want)
		}
	}
}
