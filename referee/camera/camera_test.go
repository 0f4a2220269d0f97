package camera_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// lockedSource makes a vision.Source safe for the referee's retries.
type sourceCamera struct{ vision.Source }

// startUnderAHand runs a referee whose camera is oneUnderAHand, over a
// journal of its own, capturing again after retry.
func startUnderAHand(t *testing.T, retry time.Duration) *harness {
	t.Helper()
	layout := demo.Layout{Width: 640, Height: 480, DieSize: 40, Seats: []string{"ann", "bob"}}
	pos := layout.Positions()
	return start(t, filepath.Join(t.TempDir(), "t1.journal"), camera.Options{
		Source: oneUnderAHand(pos), Reader: visiontest.NewReader(t, vision.Options{}),
		Zones: camera.NearestSeat{Positions: pos}, Retry: retry,
	})
}

// oneUnderAHand is a 640x480 camera over two seats at pos (ann, bob) with
// two dice each: it sees one of ann's (a 3; the other is under a hand) and
// both of bob's (5 and 2).
func oneUnderAHand(pos []camera.SeatPosition) sourceCamera {
	return sourceCamera{synth.NewSource(func(frame int) synth.Scene {
		return synth.Scene{Width: 640, Height: 480, DieSize: 40, Table: synth.Tables[0], Seed: uint64(frame),
			Dice: []synth.Die{
				{X: pos[0].X, Y: pos[0].Y, Face: 3, Colour: synth.Palettes[0].Body, PipColour: synth.Palettes[0].Pips},
				{X: pos[1].X - 30, Y: pos[1].Y, Face: 5, Colour: synth.Palettes[0].Body, PipColour: synth.Palettes[0].Pips},
				{X: pos[1].X + 30, Y: pos[1].Y, Face: 2, Colour: synth.Palettes[0].Body, PipColour: synth.Palettes[0].Pips},
			}}
	})}
}

func TestCameraReadsTheReveal(t *testing.T) {
	names := []string{"ann", "bob"}
	layout := demo.Layout{Width: 640, Height: 480, DieSize: 40, Seats: names}
	table := demo.NewTable(11)
	cam := demo.NewCamera(table, layout, true, 11)
	defer cam.Close()
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, camera.Options{
		Source: cam, Reader: visiontest.NewReader(t, vision.Options{StarDice: true, DieSize: 1.27 * 40}),
		Zones: camera.NearestSeat{Positions: layout.Positions()}, Retry: 50 * time.Millisecond,
	})
	h.Do(t, `{"type":"new_game","rules":"star-board","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":3}}`)
	table.Roll(map[string]int{"ann": 3, "bob": 3}, 6)
	if rep := h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":4}`); !rep.OK {
		t.Fatalf("bid: %+v", rep)
	}
	if rep := h.Do(t, `{"type":"challenge","seat":"bob"}`); !rep.OK {
		t.Fatalf("challenge: %+v", rep)
	}
	h.Rec.WaitFor(t, "the camera's reveal to resolve the call", func() bool {
		return strings.Contains(h.Rec.EventLines(), `"type":"resolved"`)
	})
	var revealed struct {
		Dice map[string][]int `json:"dice"`
	}
	for _, line := range strings.Split(h.Rec.EventLines(), "\n") {
		if strings.Contains(line, `"type":"revealed"`) {
			_ = json.Unmarshal([]byte(line), &revealed)
		}
	}
	for seat, want := range table.All() {
		got := slices.Clone(revealed.Dice[seat])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: revealed %v; the table holds %v", seat, got, want)
		}
	}
	h.Stop()
	h.CheckPublishedIsAdjudicated(t)
}

func TestCameraInDoubtAsksForALook(t *testing.T) {
	h := startUnderAHand(t, 100*time.Millisecond)
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":5}`)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	h.Rec.WaitFor(t, "two looks asked for", func() bool {
		return len(h.Rec.VisionMessages()) >= 2
	})
	var look struct {
		Type    string              `json:"type"`
		Attempt int                 `json:"attempt"`
		Seats   []referee.SeatCount `json:"seats"`
		Message string              `json:"message"`
	}
	if err := json.Unmarshal(h.Rec.VisionMessages()[1], &look); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(h.Rec.VisionMessages()[1]), "face") {
		t.Errorf("the vision message names faces: %s", h.Rec.VisionMessages()[1])
	}
	want := []referee.SeatCount{{Seat: "ann", Expected: 2, Seen: 1}, {Seat: "bob", Expected: 2, Seen: 2}}
	if look.Type != "needs_a_look" || look.Attempt != 2 || !slices.Equal(look.Seats, want) {
		t.Errorf("vision message: got %+v; want needs_a_look, attempt 2, seats %v", look, want)
	}
	if st := h.Rec.LastState(t); st["status"] != string(referee.StatusNeedsLook) {
		t.Errorf("status %v; want %q", st["status"], referee.StatusNeedsLook)
	} else if lk, _ := st["look"].(map[string]any); lk == nil || lk["message"] != look.Message || strings.Contains(fmt.Sprint(lk), "face") {
		t.Errorf("the state's look: got %v; want the vision message's summary, %q, without faces", st["look"], look.Message)
	}
	if strings.Contains(h.Rec.EventLines(), "revealed") {
		t.Fatal("the referee guessed a reveal")
	}
	// The operator looks and types the reveal in.
	if rep := h.Do(t, `{"type":"reveal","dice":{"ann":[3,5],"bob":[5,2]}}`); !rep.OK {
		t.Fatalf("operator's reveal: %+v", rep)
	}
	if !strings.Contains(h.Rec.EventLines(), `"type":"resolved","seq":3,"call":"challenge","bidder":"ann","caller":"bob","bid":{"quantity":2,"face":5},"count":2`) {
		t.Errorf("events after the operator's reveal:\n%s", h.Rec.EventLines())
	}
	if st := h.Rec.LastState(t); st["status"] != string(referee.StatusReady) {
		t.Errorf("status after the reveal: %v; want ready", st["status"])
	}
}

// TestCameraReadsTheOpeningRoll plays star-board with no first seat: the
// seats roll all their dice in the open, and the camera reads the roll
// that decides who opens, as it reads a reveal.
func TestCameraReadsTheOpeningRoll(t *testing.T) {
	names := []string{"ann", "bob"}
	layout := demo.Layout{Width: 640, Height: 480, DieSize: 40, Seats: names}
	table := demo.NewTable(5)
	cam := demo.NewCamera(table, layout, true, 5)
	defer cam.Close()
	table.Roll(map[string]int{"ann": 5, "bob": 5}, 6)
	// Most stars opens; a tie goes to the higher sum of the other dice.
	score := func(faces []int) (stars, sum int) {
		for _, f := range faces {
			if f == 1 {
				stars++
			} else {
				sum += f
			}
		}
		return
	}
	roll := table.All()
	as, asum := score(roll["ann"])
	bs, bsum := score(roll["bob"])
	if as == bs && asum == bsum {
		t.Fatalf("the table's roll %v ties: pick another seed", roll)
	}
	want := "ann"
	if bs > as || (bs == as && bsum > asum) {
		want = "bob"
	}

	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, camera.Options{
		Source: cam, Reader: visiontest.NewReader(t, vision.Options{StarDice: true, DieSize: 1.27 * 40}),
		Zones: camera.NearestSeat{Positions: layout.Positions()}, Retry: 50 * time.Millisecond,
	})
	h.Do(t, `{"type":"new_game","rules":"star-board","seats":["ann","bob"],"seed":3}`)
	h.Rec.WaitFor(t, "the camera's opening roll to start the first hand", func() bool {
		return strings.Contains(h.Rec.EventLines(), `"type":"hand_started"`)
	})
	if got := h.Rec.EventLines(); !strings.Contains(got, `"opener":"`+want+`"`) {
		t.Errorf("events after the opening roll %v:\n%s\nwant %s to open", roll, got, want)
	}
	h.Stop()
	h.CheckPublishedIsAdjudicated(t)
}

// TestCameraWaitsForTheReroll reads an opening roll that ties: the camera
// does not read the same dice again as the re-roll, and reads the re-roll
// once the tied seats have rolled.
func TestCameraWaitsForTheReroll(t *testing.T) {
	names := []string{"ann", "bob"}
	layout := demo.Layout{Width: 800, Height: 480, DieSize: 40, Seats: names}
	pos := layout.Positions()
	var mu sync.Mutex
	rolls := map[string][]int{"ann": {1, 2, 3, 4, 5}, "bob": {5, 4, 1, 3, 2}} // a star each, and 14: a tie
	src := synth.NewSource(func(frame int) synth.Scene {
		mu.Lock()
		defer mu.Unlock()
		s := synth.Scene{Width: 800, Height: 480, DieSize: 40, Table: synth.Tables[0], Seed: uint64(frame)}
		for i, seat := range names {
			for k, f := range rolls[seat] {
				s.Dice = append(s.Dice, synth.Die{X: pos[i].X + float64(k-2)*56, Y: pos[i].Y, Face: f, One: synth.FilledStar,
					Colour: synth.Palettes[2].Body, PipColour: synth.Palettes[2].Pips, Rotation: float64(11*k + 3)})
			}
		}
		return s
	})
	path := filepath.Join(t.TempDir(), "t1.journal")
	// The re-roll's logic is under test, not the reader (the tests above
	// read through it): the dice read are the rendered frame's own.
	h := start(t, path, camera.Options{
		Source: sourceCamera{src}, Reader: truthReader{src},
		Zones: camera.NearestSeat{Positions: pos}, Retry: 50 * time.Millisecond,
	})
	h.Do(t, `{"type":"new_game","rules":"star-board","seats":["ann","bob"],"seed":3}`)
	h.Rec.WaitFor(t, "the tied roll read and a look asked for the re-roll", func() bool {
		for _, v := range h.Rec.VisionMessages() {
			if strings.Contains(string(v), "not rolled again") {
				return true
			}
		}
		return false
	})
	if got := h.Rec.EventLines(); strings.Contains(got, "hand_started") {
		t.Fatalf("a hand started on a tie:\n%s", got)
	}
	mu.Lock()
	rolls = map[string][]int{"ann": {2, 3, 4, 6, 6}, "bob": {1, 1, 2, 2, 3}} // bob has two stars
	mu.Unlock()
	h.Rec.WaitFor(t, "the re-roll read", func() bool {
		return strings.Contains(h.Rec.EventLines(), `"type":"hand_started"`)
	})
	if got := h.Rec.EventLines(); !strings.Contains(got, `"opener":"bob"`) {
		t.Errorf("events:\n%s\nwant bob to open", got)
	}
	h.Stop()
	journal := readJournal(t, path)
	if n := strings.Count(string(journal), `"opening_roll"`); n != 2 {
		t.Errorf("the journal holds %d opening rolls; want 2 (the tie and the re-roll):\n%s", n, journal)
	}
	h.CheckPublishedIsAdjudicated(t)
}

// newVisionReader returns a dice reader with opts, closed when the test ends.
// truthReader reads the dice the synthetic source rendered in the frame
// it gave last: for tests of what the referee does with a read.
type truthReader struct{ src *synth.Source }

func (r truthReader) Read(gocv.Mat) ([]vision.Die, error) { return r.src.Truth(), nil }
