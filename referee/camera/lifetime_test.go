package camera_test

import (
	"bytes"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/refereetest"
	"github.com/liarsd/liarsd/vision"
)

// blockedCamera captures only once released, and counts its captures.
type blockedCamera struct {
	release chan struct{}
	mu      sync.Mutex
	n       int
}

func (c *blockedCamera) Capture() (gocv.Mat, error) {
	<-c.release
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return gocv.NewMatWithSize(8, 8, gocv.MatTypeCV8UC3), nil
}

func (c *blockedCamera) captures() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// fixedReader reads the same dice from any image.
type fixedReader []vision.Die

func (f fixedReader) Read(gocv.Mat) ([]vision.Die, error) { return f, nil }

// A refused command journaled while the camera reads the reveal changes
// nothing at the table: the read still counts, and is not thrown away for
// another capture (a stream of bad commands would otherwise keep the
// camera from ever settling the call).
func TestReadSurvivesARefusedLine(t *testing.T) {
	cam := &blockedCamera{release: make(chan struct{})}
	pos := []camera.SeatPosition{{Name: "ann", X: 100, Y: 100}, {Name: "bob", X: 500, Y: 100}}
	reader := fixedReader{{Face: 3, X: 100, Y: 100, Confidence: 0.99}, {Face: 4, X: 500, Y: 100, Confidence: 0.99}}
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, camera.Options{Source: cam, Reader: reader, Zones: camera.NearestSeat{Positions: pos}, Retry: 50 * time.Millisecond})
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":1}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":1,"face":3}`)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	// The capture is under way; a bid now is refused (a reveal is awaited).
	if rep := h.Do(t, `{"type":"bid","seat":"bob","quantity":2,"face":3}`); rep.OK || rep.Reason != engine.NotNow {
		t.Fatalf("a bid during the read: got %+v; want not_now", rep)
	}
	close(cam.release)
	h.Rec.WaitFor(t, "the camera's reveal", func() bool {
		return strings.Contains(h.Rec.EventLines(), `"type":"resolved"`)
	})
	if got, want := cam.captures(), 1; got != want {
		t.Errorf("captures: got %d; want %d (the first read kept)", got, want)
	}
	h.Stop()
	if got, want := h.Rec.EventLines(), refereetest.Adjudicate(t, path); got != want {
		t.Errorf("published:\n%s\nwant adjudicate(journal):\n%s", got, want)
	}
}

// Once Run returns, nothing of the referee's keeps running: no capture,
// retry timer or posted function is left behind.
func TestNoGoroutineOutlivesRun(t *testing.T) {
	before := runtime.NumGoroutine()
	cam := &blockedCamera{release: make(chan struct{})}
	close(cam.release)
	pos := []camera.SeatPosition{{Name: "ann", X: 100, Y: 100}, {Name: "bob", X: 500, Y: 100}}
	// bob's die is in doubt: the referee asks for a look and retries.
	reader := fixedReader{{Face: 3, X: 100, Y: 100, Confidence: 0.99}, {Face: 4, X: 500, Y: 100, Confidence: 0.2, Uncertain: true}}
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, camera.Options{Source: cam, Reader: reader, Zones: camera.NearestSeat{Positions: pos}, Retry: 10 * time.Millisecond})
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":1}}`)
	h.Do(t, `{"type":"bid","seat":"ann","quantity":2,"face":3}`) // bob's die in doubt could make it true
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	h.Rec.WaitFor(t, "a few looks", func() bool {
		return len(h.Rec.VisionMessages()) >= 5
	})
	h.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: got %d after Run; want at most %d as before:\n%s", got, before, buf[:runtime.Stack(buf, true)])
	}
}

// rollReader reads the dice it is given, until given others.
type rollReader struct {
	mu   sync.Mutex
	dice []vision.Die
}

func (r *rollReader) Read(gocv.Mat) ([]vision.Die, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.dice), nil
}

// After a tied opening roll, a refused line in the journal (here a
// new_game with bad seats) is not a new game: the camera, still seeing
// the roll that tied, keeps waiting for the re-roll instead of entering
// the tie again as a roll nobody made.
func TestTiedRollWaitsPastARefusedLine(t *testing.T) {
	cam := &blockedCamera{release: make(chan struct{})}
	close(cam.release)
	pos := []camera.SeatPosition{{Name: "ann", X: 100, Y: 100}, {Name: "bob", X: 500, Y: 100}}
	var tie []vision.Die
	for k, f := range []int{1, 2, 3, 4, 5} { // ann: a star and 14
		tie = append(tie, vision.Die{Face: f, X: 60 + float64(k)*20, Y: 100, Confidence: 0.99})
	}
	for k, f := range []int{5, 4, 1, 3, 2} { // bob: the same
		tie = append(tie, vision.Die{Face: f, X: 460 + float64(k)*20, Y: 100, Confidence: 0.99})
	}
	reader := &rollReader{dice: tie}
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, camera.Options{Source: cam, Reader: reader, Zones: camera.NearestSeat{Positions: pos}, Retry: 10 * time.Millisecond})
	h.Do(t, `{"type":"new_game","rules":"star-board","seats":["ann","bob"],"seed":3}`)
	looks := func() int {
		n := 0
		for _, v := range h.Rec.VisionMessages() {
			if bytes.Contains(v, []byte("not rolled again")) {
				n++
			}
		}
		return n
	}
	h.Rec.WaitFor(t, "the tie read, a look asked for the re-roll", func() bool { return looks() >= 1 })
	if rep := h.Do(t, `{"type":"new_game","rules":"star-board","seats":["a","a"]}`); rep.OK || rep.Reason != engine.BadSeats {
		t.Fatalf("new_game with bad seats: got %+v; want bad_seats", rep)
	}
	n := looks()
	h.Rec.WaitFor(t, "more looks after the refused line", func() bool { return looks() >= n+3 })
	h.Stop()
	data := readJournal(t, path)
	if got := bytes.Count(data, []byte(`"opening_roll"`)); got != 1 {
		t.Errorf("the journal holds %d opening rolls; want 1 (the tie; nobody rolled again):\n%s", got, data)
	}
	if got, want := h.Rec.EventLines(), refereetest.Adjudicate(t, path); got != want {
		t.Errorf("published:\n%s\nwant adjudicate(journal):\n%s", got, want)
	}
}
