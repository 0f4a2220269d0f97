package scoreboard_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/scoreboard"
)

// TestOverlay: the stream overlay for OBS (1920x1080): transparent but
// for one band in the bottom third, with the bid, the seats with their
// dice hidden, and the last result once revealed.
func TestOverlay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	st := startStack(t, "t1", scoreboard.JournalFile(path))
	ref := newJournaledReferee(t, st.broker.URL(), "t1", path)
	ref.play(`{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","seed":3,"options":{"dice":3}}`)
	first := *ref.table.Snapshot().Turn
	ref.play(`{"type":"bid","seat":"` + first + `","quantity":2,"face":4}`)

	b := open(t, st.web.URL+"/overlay")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Resize(ctx, 1920, 1080, false); err != nil {
		t.Fatal(err)
	}
	var o struct {
		BG, HTMLBG string
		Top        float64
		Bottom     float64
		Seats      int
		Faces      []string
		Bid        string
	}
	waitFor(t, b, "the overlay", `(() => { const band = document.getElementById('band'); if (band.hidden) return null;
	  const seats = document.querySelectorAll('.ov-seat'); const bid = document.getElementById('ov-bid');
	  if (seats.length !== 3 || !bid.dataset.quantity) return null;
	  const r = band.getBoundingClientRect();
	  return {BG: getComputedStyle(document.body).backgroundColor, HTMLBG: getComputedStyle(document.documentElement).backgroundColor,
	    Top: r.top, Bottom: r.bottom, Seats: seats.length, Faces: [...document.querySelectorAll('.ov-seat svg.die')].map(d => d.dataset.face),
	    Bid: bid.dataset.quantity + 'x' + bid.dataset.face} })()`, &o)
	if o.BG != "rgba(0, 0, 0, 0)" || o.HTMLBG != "rgba(0, 0, 0, 0)" {
		t.Errorf("background: got body %s, html %s; want transparent", o.BG, o.HTMLBG)
	}
	if o.Top < 1080*2/3 || o.Bottom > 1080 {
		t.Errorf("band: got %.0f to %.0f; want it within the bottom third of 1080", o.Top, o.Bottom)
	}
	if o.Bid != "2x4" || len(o.Faces) != 9 {
		t.Errorf("got bid %s, %d dice; want 2x4 and 9 dice", o.Bid, len(o.Faces))
	}
	for _, f := range o.Faces {
		if f != "" {
			t.Errorf("a seat's die drawn with face %q before the reveal; want every die hidden", f)
		}
	}

	caller := *ref.table.Snapshot().Turn
	ref.play(`{"type":"challenge","seat":"`+caller+`"}`, `{"type":"reveal","dice":{"ann":[1,2,3],"bob":[2,3,4],"cy":[4,5,6]}}`)
	var result string
	waitFor(t, b, "the result", `(() => { const r = document.getElementById('ov-result'); return r.dataset.count ? r.textContent : null })()`, &result)
	if !strings.Contains(result, caller+" challenged "+first+"’s two 4s: there were 3.") {
		t.Errorf("result: got %q; want %s challenged %s’s two 4s: there were 3.", result, caller, first)
	}
	saveScreenshot(t, b, "overlay.png")
	noConsoleErrors(t, b)
}
