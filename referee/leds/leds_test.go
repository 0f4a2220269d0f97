package leds

import (
	"testing"

	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
)

func TestStatusesOnTheBoard(t *testing.T) {
	cases := map[referee.Status]hardware.Status{
		referee.StatusReady:         hardware.StatusReady,
		referee.StatusWaitingReveal: hardware.StatusWaitingReveal,
		referee.StatusReading:       hardware.StatusReading,
		referee.StatusNeedsLook:     hardware.StatusUncertain,
		referee.StatusError:         hardware.StatusError,
	}
	l, err := hardware.NewLayout(10, 5, []string{"ann", "bob"})
	if err != nil {
		t.Fatal(err)
	}
	b := Board{Board: hardware.NewBoard(l, nil)}
	for s, want := range cases {
		if got := hardwareStatus(s); got != want {
			t.Errorf("%q: got %v; want %v", s, got, want)
		}
		if err := b.SetStatus(s); err != nil {
			t.Errorf("SetStatus(%q): %v", s, err)
		}
	}
	if err := b.ShowTurn("zed"); err == nil {
		t.Error("a seat without an LED was shown")
	}
	if err := b.ShowOutcome([]string{"ann"}, []string{"ann"}, "bob"); err != nil {
		t.Error(err)
	}
}
