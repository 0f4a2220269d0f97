package referee

import (
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/hardware"
)

func TestStatusesOnTheBoard(t *testing.T) {
	cases := map[Status]hardware.Status{
		StatusReady:         hardware.StatusReady,
		StatusWaitingReveal: hardware.StatusWaitingReveal,
		StatusReading:       hardware.StatusReading,
		StatusNeedsLook:     hardware.StatusUncertain,
		StatusError:         hardware.StatusError,
	}
	l, err := hardware.NewLayout(10, 5, []string{"ann", "bob"})
	if err != nil {
		t.Fatal(err)
	}
	b := HardwareBoard{Board: hardware.NewBoard(l, nil)}
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

func TestLosers(t *testing.T) {
	res := &engine.Resolved{Dice: map[string]int{"ann": -1, "bob": 1}, Out: []string{"cy"}}
	for rules, want := range map[string][]string{"common-hand": {"ann"}, "kids": {"bob"}, "endurance": {"ann", "cy"}} {
		got := losers(rules, res)
		if len(got) != len(want) {
			t.Errorf("%s: got %v; want %v", rules, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v; want %v", rules, got, want)
			}
		}
	}
}
