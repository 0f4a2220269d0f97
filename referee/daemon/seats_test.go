package daemon

import (
	"testing"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/referee/config"
)

func TestSeatZonesDiffer(t *testing.T) {
	seats := func(names ...string) []config.Seat {
		var s []config.Seat
		for _, n := range names {
			s = append(s, config.Seat{Name: n})
		}
		return s
	}
	zones := func(names ...string) []calibration.Seat {
		var z []calibration.Seat
		for _, n := range names {
			z = append(z, calibration.Seat{Name: n})
		}
		return z
	}
	for _, tc := range []struct {
		name  string
		seats []config.Seat
		zones []calibration.Seat
		want  string
	}{
		{"the same seats", seats("ann", "bob"), zones("bob", "ann"), ""},
		{"no seats configured", nil, zones("ann"), ""},
		{"no zones calibrated", seats("ann"), nil, ""},
		{"renamed seats", seats("ann", "bob"), zones("north", "bob"), "seats with no zone: ann; zones of no seat: north"},
		{"a seat added since", seats("ann", "bob", "cy"), zones("ann", "bob"), "seats with no zone: cy"},
	} {
		if got := seatZonesDiffer(tc.seats, tc.zones); got != tc.want {
			t.Errorf("%s: got %q; want %q", tc.name, got, tc.want)
		}
	}
}
