package hardware

import (
	"strings"
	"testing"
	"time"
)

// TestPressMap reads presses through the wiring the calibration recorded:
// ann's bid and challenge buttons are swapped, and bob's face button
// arrives as ann's spot-on.
func TestPressMap(t *testing.T) {
	pm, err := NewPressMap(map[string]string{
		"ann/bid":       "ann/challenge",
		"ann/challenge": "ann/bid",
		"ann/spot_on":   "bob/face",
	}, []string{"ann", "bob"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arrives, want SeatButton
	}{
		{SeatButton{"ann", ButtonBid}, SeatButton{"ann", ButtonChallenge}},
		{SeatButton{"ann", ButtonChallenge}, SeatButton{"ann", ButtonBid}},
		{SeatButton{"ann", ButtonSpotOn}, SeatButton{"bob", ButtonFace}},
		{SeatButton{"bob", ButtonBid}, SeatButton{"bob", ButtonBid}}, // wired as the pin map says
		{SeatButton{"zed", ButtonBid}, SeatButton{"zed", ButtonBid}}, // the keypad ignores it
	} {
		p := Press{Seat: tc.arrives.Seat, Button: tc.arrives.Button, Long: true, Held: time.Second, At: epoch}
		got := pm.Map(p)
		if g := (SeatButton{got.Seat, got.Button}); g != tc.want {
			t.Errorf("a press arriving as %s: got %s; want %s", tc.arrives, g, tc.want)
		}
		if got.Long != p.Long || got.Held != p.Held || !got.At.Equal(p.At) {
			t.Errorf("a press arriving as %s: got %+v; want its timing kept", tc.arrives, got)
		}
	}
}

func TestPressMapEmpty(t *testing.T) {
	pm, err := NewPressMap(nil, []string{"ann"})
	if err != nil || pm != nil {
		t.Fatalf("NewPressMap(nil) = %v, %v; want nil, nil", pm, err)
	}
	p := Press{Seat: "ann", Button: ButtonBid}
	if got := pm.Map(p); got != p {
		t.Errorf("a nil PressMap: got %v; want %v", got, p)
	}
}

func TestNewPressMapErrors(t *testing.T) {
	seats := []string{"ann", "bob"}
	for _, tc := range []struct {
		name string
		m    map[string]string
		want string
	}{
		{"no slash", map[string]string{"annbid": "ann/bid"}, `button wiring "annbid": not seat/button`},
		{"no button", map[string]string{"ann/": "ann/bid"}, `button wiring "ann/": not seat/button`},
		{"a stranger arriving", map[string]string{"zed/bid": "ann/bid"}, `button wiring "zed/bid": seat "zed" is not at the table (seats: ann, bob)`},
		{"a stranger pressed", map[string]string{"ann/bid": "zed/bid"}, `button wiring "ann/bid": "zed/bid": seat "zed" is not at the table`},
		{"an unknown button arriving", map[string]string{"ann/pass": "ann/bid"}, `button wiring "ann/pass": unknown button "pass"`},
		{"an unknown button pressed", map[string]string{"ann/bid": "ann/pass"}, `button wiring "ann/bid": "ann/pass": unknown button "pass"`},
		{"two arrivals for one button", map[string]string{"ann/bid": "bob/face", "ann/face": "bob/face"},
			`button wiring: "ann/bid" and "ann/face" both arrive for bob/face`},
	} {
		pm, err := NewPressMap(tc.m, seats)
		if err == nil || !strings.HasPrefix(err.Error(), "hardware: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want an error with %q", tc.name, err, tc.want)
		}
		if pm != nil {
			t.Errorf("%s: got a PressMap on error", tc.name)
		}
	}
}
