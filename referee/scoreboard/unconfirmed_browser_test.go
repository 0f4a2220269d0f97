package scoreboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/scoreboard"
)

// resultJS reads the table page's last result: its head, the note on dice
// not read, how likely it was, and each die drawn in the reveal (its face,
// "?" for one not read, "*" marking a die that counts for the bid).
const resultJS = `(() => { const r = document.getElementById('result'); const t = s => { const e = r.querySelector(s); return e ? e.textContent : '' };
  return {count: r.dataset.count || '', notRead: r.dataset.notRead || '', corrected: r.dataset.corrected === 'true',
    head: t('.result-head'), unread: t('.result-unread'), how: t('.result-chance'),
    dice: Object.fromEntries([...r.querySelectorAll('.reveal-seat')].map(s => [s.dataset.seat,
      [...s.querySelectorAll('svg.die')].map(d => (d.dataset.unread ? '?' : d.dataset.face) + (d.classList.contains('hit') ? '*' : ''))]))} })()`

type resultView struct {
	Count     string              `json:"count"`
	NotRead   string              `json:"notRead"`
	Corrected bool                `json:"corrected"`
	Head      string              `json:"head"`
	Unread    string              `json:"unread"`
	How       string              `json:"how"`
	Dice      map[string][]string `json:"dice"`
}

// TestScoreboardShowsUnconfirmedDiceAsNotRead: a reveal the referee took
// with a die the camera did not read for sure (its face a stand-in that
// would count for the bid) shows that die as not read on the table page,
// live and after a reload (from the journal's history), in its result
// and its history, counts only the dice read, and says why the table went
// on; the overlay and the venue say so too. A correction then shows every
// face.
func TestScoreboardShowsUnconfirmedDiceAsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	st := startStack(t, "t1", scoreboard.JournalFile(path))
	ref := newJournaledReferee(t, st.broker.URL(), "t1", path)
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":3,"face":5}`, `{"type":"challenge","seat":"bob"}`)
	p := open(t, st.web.URL+"/")
	overlay := open(t, st.web.URL+"/overlay")
	venue := open(t, st.web.URL+"/venue")
	waitFor(t, p, "the call", `document.getElementById('bid').dataset.quantity === '3'`, nil)
	waitFor(t, overlay, "the overlay's bid", `document.getElementById('ov-bid').dataset.quantity === '3'`, nil)
	// ann's second die: a stand-in 5, which would count; no 5 of ann's
	// could make three 5s true, so the referee went on.
	ref.play(`{"type":"reveal","dice":{"ann":[3,5],"bob":[5,2]},"unconfirmed":{"ann":[1]}}`)

	wantResult := func(when string, r resultView) {
		t.Helper()
		if r.NotRead != "1" || r.Head != "bob challenged ann’s three 5s: there were at least 1." || r.Unread != "1 die not read: it could not change the result" {
			t.Errorf("%s: result %+v; want the head to count 1 read 5 and the note on 1 die not read", when, r)
		}
		if got := strings.Join(r.Dice["ann"], " ") + " | " + strings.Join(r.Dice["bob"], " "); got != "3 ? | 5* 2" {
			t.Errorf("%s: the reveal's dice %s; want ann's 3 and a die not read, bob's 5 (counting) and 2", when, got)
		}
		if !strings.Contains(r.How, "for 1 or ") || !strings.Contains(r.How, "of the 3 dice read") {
			t.Errorf("%s: how likely %q; want it of the 3 dice read, for their one 5", when, r.How)
		}
	}
	var r resultView
	waitFor(t, p, "the result", `(() => { const r = `+resultJS+`; return r.count ? r : null })()`, &r)
	wantResult("live", r)
	var hist []string
	waitFor(t, p, "the history", `(() => { const h = `+historyJS+`; return h.some(x => x.startsWith('At least')) ? h : null })()`, &hist)
	for _, want := range []string{"Reveal (1 die not read: it could not change the result)", "At least 1 among the dice read – ann −1"} {
		if !strings.Contains(strings.Join(hist, "|"), want) {
			t.Errorf("history %q; want %q", hist, want)
		}
	}
	var unreadInHistory int
	waitFor(t, p, "the history's die not read", `document.querySelectorAll('#history li.item-revealed svg.die.unread[data-face=""]').length || null`, &unreadInHistory)
	if unreadInHistory != 1 {
		t.Errorf("history: %d dice drawn as not read; want 1", unreadInHistory)
	}

	var ov struct {
		Head, Unread string
	}
	waitFor(t, overlay, "the overlay's result", `(() => { const b = document.getElementById('ov-result'); const h = b.querySelector('.head'), u = b.querySelector('.unread');
	  return h && u ? {head: h.textContent, unread: u.textContent} : null })()`, &ov)
	if ov.Head != "bob challenged ann’s three 5s: there were at least 1." || ov.Unread != "1 die not read: it could not change the result" {
		t.Errorf("overlay: %+v; want at least 1 and the note on 1 die not read", ov)
	}
	var vt struct {
		Lost, How, Unread string
	}
	waitFor(t, venue, "the venue's last result", `(() => { const l = document.querySelector('.vt-last'); if (!l || !l.querySelector('.vt-unread')) return null;
	  return {lost: l.querySelector('.vt-lost').textContent, how: l.querySelector('.vt-how').textContent, unread: l.querySelector('.vt-unread').textContent} })()`, &vt)
	if vt.Lost != "ann loses a die" || vt.How != "bob challenged ann’s three 5s." || vt.Unread != "1 die not read: it could not change the result" {
		t.Errorf("venue: %+v; want who lost first, no count, and the note on 1 die not read", vt)
	}
	// The venue is a TV page: one table fills a 1920x1080 screen in type
	// read across a room.
	if err := venue.Resize(context.Background(), 1920, 1080, false); err != nil {
		t.Fatal(err)
	}
	var tv struct {
		Card, Bottom, Screen, Name, Seat, Lost float64
	}
	waitFor(t, venue, "the venue on a TV", `(() => { const px = s => parseFloat(getComputedStyle(document.querySelector(s)).fontSize);
	  const c = document.querySelector('.venue-table').getBoundingClientRect();
	  return c.width > 1500 ? {card: c.width, bottom: document.querySelector('.vt-last').getBoundingClientRect().bottom, screen: innerHeight,
	    name: px('.vt-name'), seat: px('.vt-seat'), lost: px('.vt-lost')} : null })()`, &tv)
	if tv.Name < 80 || tv.Seat < 40 || tv.Lost < 50 || tv.Bottom > tv.Screen {
		t.Errorf("venue at 1920x1080: the table's name %.0f px, a seat's line %.0f px, who lost %.0f px, the last result ending at %.0f of %.0f px; want at least 80, 40 and 50, all on the screen",
			tv.Name, tv.Seat, tv.Lost, tv.Bottom, tv.Screen)
	}
	saveScreenshot(t, venue, "venue-tv.png")

	// Reloaded: the journal's history says the same.
	res, err := http.Get(st.web.URL + "/api/history")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	found := false
	for _, it := range h.Items {
		found = found || strings.Contains(string(it), `"type":"revealed"`) && strings.Contains(string(it), `"unconfirmed":{"ann":[1]}`)
	}
	if !found {
		t.Errorf("/api/history: no revealed item with ann's die unconfirmed in %s", h.Items)
	}
	reloaded := open(t, st.web.URL+"/")
	waitFor(t, reloaded, "the result after a reload", `(() => { const r = `+resultJS+`; return r.count && r.dice.ann ? r : null })()`, &r)
	wantResult("after a reload", r)
	waitFor(t, reloaded, "the state after a reload", `document.querySelectorAll('#seats .seat').length === 2 && document.querySelector('#meta .gh')`, nil)
	saveScreenshot(t, reloaded, "table-unconfirmed.png")

	// The operator sets the die: every face is shown, the 5 counts.
	ref.play(`{"type":"correct","dice":{"ann":[3,5],"bob":[5,2]}}`)
	waitFor(t, p, "the corrected result", `(() => { const r = `+resultJS+`; return r.corrected ? r : null })()`, &r)
	if r.NotRead != "0" || r.Unread != "" || r.Head != "bob challenged ann’s three 5s: there were 2." ||
		strings.Join(r.Dice["ann"], " ") != "3 5*" {
		t.Errorf("after the correction: %+v; want every face shown, ann's 5 counting, there were 2", r)
	}
	noConsoleErrors(t, p)
	noConsoleErrors(t, overlay)
	noConsoleErrors(t, venue)
	noConsoleErrors(t, reloaded)
}
