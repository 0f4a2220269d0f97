package operator_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/refereetest"
)

// At a table without a camera the operator page's read is the dice
// entered by hand: no frame, the seats' counts, the dice taken and who
// took them; a correction replaces them; the next hand's first bid ends
// the read. (With a camera: referee/camera's tests.)
func TestReadOfDiceEnteredByHand(t *testing.T) {
	reads := &operator.Reads{}
	h := refereetest.Start(t, filepath.Join(t.TempDir(), "t1.journal"), referee.Config{Followers: []referee.Follower{reads}})
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":5}`)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	if rd := reads.LastRead(); rd != nil {
		t.Fatalf("before the reveal: got %+v; want no read", rd)
	}
	if rep := h.Do(t, `{"type":"reveal","dice":{"ann":[3,5],"bob":[5,2]}}`); !rep.OK {
		t.Fatalf("reveal: %+v", rep)
	}
	rd := reads.LastRead()
	if rd == nil || rd.Frame != nil || rd.Kind != "reveal" || rd.Game != 1 || rd.Hand != 1 || rd.Source != referee.SourceMQTT ||
		rd.Message != "no camera read: the dice were entered by hand" || !slices.Equal(rd.Accepted["ann"], []int{3, 5}) {
		t.Fatalf("after the reveal: got %+v; want game 1 hand 1's dice entered by hand from mqtt, without a frame", rd)
	}
	if want := []referee.SeatCount{{Seat: "ann", Expected: 2}, {Seat: "bob", Expected: 2}}; !slices.Equal(rd.Seats, want) {
		t.Errorf("seats: got %v; want %v", rd.Seats, want)
	}
	if rep := h.Do(t, `{"type":"correct","dice":{"ann":[3,4],"bob":[5,2]}}`); !rep.OK {
		t.Fatalf("correct: %+v", rep)
	}
	if got := reads.LastRead(); got == nil || got.ID == rd.ID || !slices.Equal(got.Accepted["ann"], []int{3, 4}) {
		t.Errorf("after the correction: got %+v; want ann's [3 4] under a new id", got)
	}
	// ann lost the call: she opens the next hand, which ends the read.
	if rep := h.Do(t, `{"type":"bid","seat":"ann","quantity":1,"face":2}`); !rep.OK {
		t.Fatalf("bid: %+v", rep)
	}
	if got := reads.LastRead(); got != nil {
		t.Errorf("after the next hand's first bid: got %+v; want none", got)
	}
}
