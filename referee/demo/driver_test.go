package demo

import (
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
)

// The opening roll lies on the table when Observe returns: the referee
// starts its capture right after Observe, so a roll made later (on the
// driver's own goroutine) left the camera reading an empty table.
func TestObserveRollsTheOpeningBeforeTheRefereeLooks(t *testing.T) {
	tab := engine.NewTable()
	line := []byte(`{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"seed":7}`)
	a, err := record.Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tab.Apply(a)
	if err != nil {
		t.Fatal(err)
	}
	snap := tab.Snapshot()
	if snap.Phase != engine.PhaseOpening {
		t.Fatalf("phase %s; want %s", snap.Phase, engine.PhaseOpening)
	}
	d := NewDriver()
	d.Table = NewTable(1)
	d.Observe(referee.Change{Line: line, Events: evs, Snapshot: snap})
	all := d.Table.All()
	for _, st := range snap.Seats {
		if got, want := len(all[st.Name]), st.Dice; got != want {
			t.Errorf("%s has %d dice on the table; want %d", st.Name, got, want)
		}
	}
}
