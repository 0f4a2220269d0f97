package demo

import (
	"context"
	"testing"
	"time"

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

// A seat that is out never acts, even with the turn on it (a stale view):
// the driver has no referee here, so a move would fail the test.
func TestDriverNeverMovesAnOutSeat(t *testing.T) {
	bob := "bob"
	d := NewDriver()
	d.snap = engine.Snapshot{Phase: engine.PhaseBidding, Turn: &bob, Seats: []engine.SeatView{{Name: "ann", Dice: 2}, {Name: "bob", Out: true}}}
	d.version = 1
	if d.act(context.Background()) {
		t.Fatal("the driver finished; want it to wait")
	}
	if d.acted == d.version {
		t.Errorf("the driver acted for bob, who is out")
	}
}

// A change that comes during a seat's pause (a correction that changed who
// plays next) makes the driver decide again on the table as it is, not
// move on the view it paused with.
func TestDriverDecidesAgainAfterAChange(t *testing.T) {
	ann := "ann"
	d := NewDriver()
	d.Say = func(string, ...any) {}
	d.Pace = 100 * time.Millisecond
	d.snap = engine.Snapshot{Phase: engine.PhaseBidding, Turn: &ann, Bid: &engine.BidSeat{Seat: "bob", Quantity: 1, Face: 2},
		Seats: []engine.SeatView{{Name: "ann", Dice: 2}, {Name: "bob", Dice: 2}}}
	d.version = 1
	after := d.snap
	go func() {
		time.Sleep(20 * time.Millisecond)
		d.Observe(referee.Change{Line: []byte(`{"type":"correct"}`), Snapshot: after})
	}()
	if d.act(context.Background()) {
		t.Fatal("the driver finished; want it to decide again")
	}
	if d.version != 2 || d.acted == d.version {
		t.Errorf("version %d, acted %d: want the change taken and no move made on the view before it", d.version, d.acted)
	}
}

// The next hand's first bid waits for the correction window after a
// reveal, whatever the pace.
func TestDriverWaitsTheCorrectionWindow(t *testing.T) {
	ann := "ann"
	d := NewDriver()
	d.CorrectWindow = time.Hour
	d.settledAt = time.Now()
	d.snap = engine.Snapshot{Phase: engine.PhaseBidding, Turn: &ann, Seats: []engine.SeatView{{Name: "ann", Dice: 2}, {Name: "bob", Dice: 2}}}
	d.version = 1
	if d.act(context.Background()) || d.acted == d.version {
		t.Errorf("the first bid was made within the correction window")
	}
}
