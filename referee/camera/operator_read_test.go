package camera_test

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/vision"
)

// TestOperatorReadLifetime follows the read the operator page shows: none
// before the call, the frame and every die once the camera has read a
// reveal in doubt, the operator's dice once the reveal is accepted, and
// none again from the next hand's first bid.
func TestOperatorReadLifetime(t *testing.T) {
	h := startUnderAHand(t, time.Hour)
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":5}`)
	if rd := h.reads.LastRead(); rd != nil {
		t.Fatalf("before the call: got a read %+v; want none", rd)
	}
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	var rd *operator.Read
	h.Rec.WaitFor(t, "the read in doubt", func() bool { rd = h.reads.LastRead(); return rd != nil })
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

	if rep := h.Do(t, `{"type":"reveal","dice":{"ann":[3,5],"bob":[5,2]}}`); !rep.OK {
		t.Fatalf("operator's reveal: %+v", rep)
	}
	acc := h.reads.LastRead()
	if acc == nil || acc.ID == rd.ID || acc.Source != referee.SourceMQTT || !slices.Equal(acc.Accepted["ann"], []int{3, 5}) || len(acc.Frame.JPEG()) == 0 {
		t.Fatalf("after the reveal: got %+v; want the same frame with ann's [3 5] accepted from mqtt", acc)
	}
	// The loser of the call opens the next hand; its first bid ends the
	// time for corrections, and the read with it.
	h.Do(t, `{"type":"bid","seat":"ann","quantity":1,"face":2}`)
	h.Do(t, `{"type":"bid","seat":"bob","quantity":1,"face":2}`)
	if rd := h.reads.LastRead(); rd != nil {
		t.Errorf("after the next hand's first bid: got a read of game %d hand %d; want none", rd.Game, rd.Hand)
	}
}

// TestOperatorReadOfAnUnconfirmedReveal: a reveal the referee took
// without a look (its doubt could not change the verdict) is the
// operator's read accepted from the camera, its doubtful die unconfirmed
// with the faces it may show; a correction confirms every die.
func TestOperatorReadOfAnUnconfirmedReveal(t *testing.T) {
	h, _ := startScripted(t, []vision.Die{sureDie(80, 3), doubtfulDie(120, 6, 2), sureDie(480, 5), sureDie(520, 2)})
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":3,"face":5}`)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	var rd *operator.Read
	h.Rec.WaitFor(t, "the reveal taken", func() bool { rd = h.reads.LastRead(); return rd != nil && rd.Accepted != nil })
	if rd.Source != referee.SourceCamera || !rd.Weighed || !maps.EqualFunc(rd.Unconfirmed, map[string][]int{"ann": {1}}, slices.Equal[[]int]) {
		t.Errorf("read: source %q, weighed %v, unconfirmed %v; want the camera's, weighed, ann's second die unconfirmed", rd.Source, rd.Weighed, rd.Unconfirmed)
	}
	var doubt []operator.Die
	for _, d := range rd.Dice {
		if d.Doubt != "" {
			doubt = append(doubt, d)
		}
	}
	if len(doubt) != 1 || doubt[0].Seat != "ann" || doubt[0].Matters || len(doubt[0].Likely) != 2 || doubt[0].Likely[0].Face != 6 {
		t.Errorf("dice in doubt: got %+v; want ann's, not mattering, likely 6 then 2", doubt)
	}
	if rep := h.Do(t, `{"type":"correct","dice":{"ann":[3,2],"bob":[5,2]}}`); !rep.OK {
		t.Fatalf("correct: %+v", rep)
	}
	rd = h.reads.LastRead()
	if rd == nil || rd.Unconfirmed != nil || !slices.Equal(rd.Accepted["ann"], []int{3, 2}) || rd.Source != referee.SourceMQTT {
		t.Errorf("after the correction: got %+v; want ann's [3 2] from mqtt, nothing unconfirmed", rd)
	}
}

// TestOperatorReadSaysWhichDoubtsMatter: a reveal that waits for a look
// tells the operator page which of its doubts could change the verdict
// (a die in doubt, a seat's unseen die) and which could not, and why.
func TestOperatorReadSaysWhichDoubtsMatter(t *testing.T) {
	cases := []struct {
		name    string
		dice    []vision.Die
		bid     string
		matters map[string]bool // by seat: whether its die in doubt matters
		unseen  []string
		why     string
	}{
		{"one doubt matters, one does not", []vision.Die{sureDie(80, 3), doubtfulDie(120, 6, 2), sureDie(480, 5), doubtfulDie(520, 5, 6)},
			`{"type":"bid","seat":"ann","quantity":2,"face":5}`, map[string]bool{"ann": false, "bob": true}, nil, "bob's die could make two 5s true"},
		{"a die in doubt and an unseen one", []vision.Die{sureDie(80, 3), doubtfulDie(120, 6, 5), sureDie(480, 5)},
			`{"type":"bid","seat":"ann","quantity":3,"face":5}`, map[string]bool{"ann": true}, []string{"bob"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, _ := startScripted(t, c.dice)
			h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
			h.Do(t, c.bid)
			h.Do(t, `{"type":"challenge","seat":"bob"}`)
			var rd *operator.Read
			h.Rec.WaitFor(t, "the read in doubt", func() bool { rd = h.reads.LastRead(); return rd != nil })
			if rd.OK || rd.Accepted != nil || !rd.Weighed {
				t.Fatalf("read: ok %v, accepted %v, weighed %v; want a weighed read waiting for a look", rd.OK, rd.Accepted, rd.Weighed)
			}
			got := map[string]bool{}
			for _, d := range rd.Dice {
				if d.Doubt != "" {
					got[d.Seat] = d.Matters
				}
			}
			if !maps.Equal(got, c.matters) || !slices.Equal(rd.UnseenMatters, c.unseen) {
				t.Errorf("matters: got %v, unseen %v; want %v, unseen %v", got, rd.UnseenMatters, c.matters, c.unseen)
			}
			if rd.Why == "" || (c.why != "" && rd.Why != c.why) || !strings.HasSuffix(rd.Message, ": "+rd.Why) {
				t.Errorf("why %q, message %q; want %q at the message's end", rd.Why, rd.Message, c.why)
			}
		})
	}
}

// TestOperatorPagesCommandIsTheOperators: a command whose id the operator
// page gave it ("operator-...") is the operator's, on the page and to
// observers; another command over MQTT stays "mqtt".
func TestOperatorPagesCommandIsTheOperators(t *testing.T) {
	h := startUnderAHand(t, time.Hour)
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":5}`)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	h.Rec.WaitFor(t, "the read in doubt", func() bool { return h.reads.LastRead() != nil })
	command := func(line string) {
		t.Helper()
		done := make(chan referee.Reply, 1)
		if err := h.Ref.SubmitCommand([]byte(line), false, func(rep referee.Reply) { done <- rep }); err != nil {
			t.Fatal(err)
		}
		if rep := <-done; !rep.OK {
			t.Fatalf("%s: %+v", line, rep)
		}
	}
	command(`{"id":"operator-m1x-3f2a","type":"reveal","dice":{"ann":[3,5],"bob":[5,2]}}`)
	if rd := h.reads.LastRead(); rd == nil || rd.Source != referee.SourceOperator {
		t.Errorf("after the operator page's reveal: got %+v; want it accepted from %q", rd, referee.SourceOperator)
	}
	command(`{"id":7,"type":"correct","dice":{"ann":[3,4],"bob":[5,2]}}`)
	if rd := h.reads.LastRead(); rd == nil || rd.Source != referee.SourceMQTT {
		t.Errorf("after another app's correction: got %+v; want it accepted from %q", rd, referee.SourceMQTT)
	}
}
