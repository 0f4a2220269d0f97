package referee_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee"
)

// TestOperatorReadLifetime follows the read the operator page shows: none
// before the call, the frame and every die once the camera has read a
// reveal in doubt, the operator's dice once the reveal is accepted, and
// none again from the next hand's first bid.
func TestOperatorReadLifetime(t *testing.T) {
	h := startUnderAHand(t, time.Hour)
	h.do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.do(t, `{"type":"bid","seat":"ann","quantity":2,"face":5}`)
	if rd := h.ref.LastRead(); rd != nil {
		t.Fatalf("before the call: got a read %+v; want none", rd)
	}
	h.do(t, `{"type":"challenge","seat":"bob"}`)
	var rd *referee.OperatorRead
	h.rec.waitFor(t, "the read in doubt", func() bool { rd = h.ref.LastRead(); return rd != nil })
	if rd.OK || rd.Kind != "reveal" || rd.Game != 1 || rd.Hand != 1 || rd.Attempt != 1 || rd.Accepted != nil {
		t.Errorf("read: got ok %v, kind %q, game %d, hand %d, attempt %d, accepted %v; want a reveal of game 1 hand 1 in doubt, attempt 1, not accepted",
			rd.OK, rd.Kind, rd.Game, rd.Hand, rd.Attempt, rd.Accepted)
	}
	if jpeg := rd.Frame.JPEG(); !bytes.HasPrefix(jpeg, []byte{0xff, 0xd8}) || rd.Width != 640 || rd.Height != 480 {
		t.Errorf("frame: got %d bytes starting % x, %dx%d; want a 640x480 JPEG", len(jpeg), jpeg[:min(2, len(jpeg))], rd.Width, rd.Height)
	}
	wantSeats := []referee.SeatCount{{Seat: "ann", Expected: 2, Seen: 1}, {Seat: "bob", Expected: 2, Seen: 2}}
	if !slices.Equal(rd.Seats, wantSeats) {
		t.Errorf("seats: got %v; want %v", rd.Seats, wantSeats)
	}
	var faces []int
	for _, d := range rd.Dice {
		if d.Seat == "bob" {
			faces = append(faces, d.Face)
		}
		if d.Net == nil {
			t.Errorf("die %v: no face network opinion; want both witnesses' opinions kept", d.Die)
		}
	}
	slices.Sort(faces)
	if len(rd.Dice) != 3 || !slices.Equal(faces, []int{2, 5}) {
		t.Errorf("dice: got %v; want ann's one die and bob's 2 and 5", rd.Dice)
	}

	if rep := h.do(t, `{"type":"reveal","dice":{"ann":[3,5],"bob":[5,2]}}`); !rep.OK {
		t.Fatalf("operator's reveal: %+v", rep)
	}
	acc := h.ref.LastRead()
	if acc == nil || acc.ID == rd.ID || acc.Source != referee.SourceMQTT || !slices.Equal(acc.Accepted["ann"], []int{3, 5}) || len(acc.Frame.JPEG()) == 0 {
		t.Fatalf("after the reveal: got %+v; want the same frame with ann's [3 5] accepted from mqtt", acc)
	}
	// The loser of the call opens the next hand; its first bid ends the
	// time for corrections, and the read with it.
	h.do(t, `{"type":"bid","seat":"ann","quantity":1,"face":2}`)
	h.do(t, `{"type":"bid","seat":"bob","quantity":1,"face":2}`)
	if rd := h.ref.LastRead(); rd != nil {
		t.Errorf("after the next hand's first bid: got a read of game %d hand %d; want none", rd.Game, rd.Hand)
	}
}
