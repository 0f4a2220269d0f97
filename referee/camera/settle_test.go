package camera_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/vision"
)

// scriptedReader reads the same dice from every frame: for tests of what
// the referee does with a read in doubt.
type scriptedReader struct{ dice []vision.Die }

func (r scriptedReader) Read(gocv.Mat) ([]vision.Die, error) { return r.dice, nil }

// At ann's seat (100, 100) and bob's (500, 100).
var settleSeats = camera.NearestSeat{Positions: []camera.SeatPosition{{Name: "ann", X: 100, Y: 100}, {Name: "bob", X: 500, Y: 100}}}

func sureDie(x float64, face int) vision.Die {
	return vision.Die{Face: face, X: x, Y: 100, Size: 40, Confidence: 0.9}
}

func doubtfulDie(x float64, faces ...int) vision.Die {
	d := vision.Die{Face: faces[0], X: x, Y: 100, Size: 40, Confidence: 0.4, Uncertain: true, Reason: "the network is unsure"}
	for _, f := range faces {
		d.Likely = append(d.Likely, vision.Opinion{Face: f})
	}
	return d
}

// startScripted runs a referee over a camera that always gives a frame
// and a reader that always reads dice.
func startScripted(t *testing.T, dice []vision.Die) (*harness, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t1.journal")
	return start(t, path, camera.Options{
		Source: stillCamera{}, Reader: scriptedReader{dice}, Zones: settleSeats, Retry: 40 * time.Millisecond,
	}), path
}

// stillCamera gives a plain grey frame at every capture.
type stillCamera struct{}

func (stillCamera) Capture() (gocv.Mat, error) {
	return gocv.NewMatWithSizeFromScalar(gocv.NewScalar(128, 128, 128, 0), 200, 640, gocv.MatTypeCV8UC3), nil
}

func TestReadInDoubtSettles(t *testing.T) {
	cases := []struct {
		name   string
		dice   []vision.Die
		unconf string // the revealed event's unconfirmed, as JSON
	}{
		{"a die in doubt between faces under the bid", []vision.Die{sureDie(80, 3), doubtfulDie(120, 6, 2), sureDie(480, 5), sureDie(520, 2)}, `{"ann":[1]}`},
		{"a die missed", []vision.Die{sureDie(80, 3), sureDie(480, 5), sureDie(520, 2)}, `{"ann":[1]}`},
		{"a die invented", []vision.Die{sureDie(80, 3), doubtfulDie(100, 4, 6), doubtfulDie(120, 6, 2), sureDie(480, 5), sureDie(520, 2)}, `{"ann":[1]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, path := startScripted(t, c.dice)
			h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
			h.Do(t, `{"type":"bid","seat":"ann","quantity":3,"face":5}`)
			h.Do(t, `{"type":"challenge","seat":"bob"}`)
			h.Rec.WaitFor(t, "the read in doubt to settle the call", func() bool {
				return strings.Contains(h.Rec.EventLines(), `"type":"resolved"`)
			})
			events := h.Rec.EventLines()
			if !strings.Contains(events, `"unconfirmed":`+c.unconf) {
				t.Errorf("events:\n%s\nwant the revealed event to mark %s unconfirmed", events, c.unconf)
			}
			if !strings.Contains(events, `"call":"challenge","bidder":"ann","caller":"bob","bid":{"quantity":3,"face":5}`) || !strings.Contains(events, `"dice":{"ann":-1}`) {
				t.Errorf("events:\n%s\nwant ann to lose a die", events)
			}
			looks := len(h.Rec.VisionMessages())
			if looks != 0 {
				t.Errorf("%d looks asked for; want none", looks)
			}
			h.Stop()
			h.CheckPublishedIsAdjudicated(t)
			if j := string(readJournal(t, path)); !strings.Contains(j, `"unconfirmed":`+c.unconf) {
				t.Errorf("the journal's reveal does not record the unconfirmed dice:\n%s", j)
			}
		})
	}
}

func TestReadInDoubtThatMattersAsksWhy(t *testing.T) {
	h, _ := startScripted(t, []vision.Die{sureDie(80, 3), doubtfulDie(120, 6, 5), sureDie(480, 5), sureDie(520, 2)})
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":5}`)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	h.Rec.WaitFor(t, "a look asked for", func() bool {
		return len(h.Rec.VisionMessages()) >= 1
	})
	msg := string(h.Rec.VisionMessages()[0])
	var look struct {
		Message string          `json:"message"`
		Dice    []referee.Doubt `json:"dice"`
	}
	if err := json.Unmarshal([]byte(msg), &look); err != nil {
		t.Fatal(err)
	}
	if want := "1 die in doubt (ann): ann's die could make two 5s true"; look.Message != want {
		t.Errorf("message %q; want %q", look.Message, want)
	}
	if len(look.Dice) != 1 || !look.Dice[0].Matters {
		t.Errorf("doubts %+v; want ann's die, marked as mattering", look.Dice)
	}
	if strings.Contains(msg, "face") || strings.Contains(msg, "likely") {
		t.Errorf("the vision message names faces: %s", msg)
	}
	if strings.Contains(h.Rec.EventLines(), "revealed") {
		t.Fatal("the referee guessed a reveal")
	}
}
