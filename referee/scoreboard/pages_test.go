package scoreboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/scoreboard"
)

// journaledReferee is a fakeReferee that also keeps the table's journal
// and publishes the state as the referee does: the engine's snapshot
// with the table's status, the journal's game number and its last
// resolution (kept from the game's first hand on, as the referee keeps
// it) with its reveal's unconfirmed dice.
type journaledReferee struct {
	*fakeReferee
	path            string
	name            string
	status          string
	games           int
	last            json.RawMessage
	lastUnconfirmed map[string][]int
	look            json.RawMessage
}

func newJournaledReferee(t *testing.T, url, table, path string) *journaledReferee {
	t.Helper()
	return &journaledReferee{fakeReferee: newFakeReferee(t, url, table), path: path, name: table, status: "ready"}
}

func (j *journaledReferee) play(lines ...string) { j.t.Helper(); j.playOut(true, lines...) }

// playQuietly journals lines as play does but publishes none of their
// events, only the state after them: a page subscribed later, or across
// a lost connection, never saw those events.
func (j *journaledReferee) playQuietly(lines ...string) { j.t.Helper(); j.playOut(false, lines...) }

func (j *journaledReferee) playOut(events bool, lines ...string) {
	j.t.Helper()
	for _, l := range lines {
		f, err := os.OpenFile(j.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			j.t.Fatal(err)
		}
		_, err = f.WriteString(l + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			j.t.Fatal(err)
		}
		evs, err := record.Apply(j.table, []byte(l))
		if err != nil {
			j.t.Fatalf("%s: %v", l, err)
		}
		if strings.Contains(l, `"new_game"`) {
			j.games++
		}
		for _, e := range evs {
			b, _ := json.Marshal(e)
			switch e := e.(type) {
			case *engine.Revealed:
				j.lastUnconfirmed = e.Unconfirmed
			case *engine.Resolved:
				j.last = b
			case *engine.HandStarted:
				if e.Game == 1 && e.Hand == 1 {
					j.last, j.lastUnconfirmed = nil, nil
				}
			}
			if events {
				j.publish(j.topics.Events, b, false)
			}
		}
		if events {
			j.publishState()
		}
	}
	if !events {
		j.publishState()
	}
}

// publishState publishes the retained state with the status and last.
func (j *journaledReferee) publishState() {
	j.t.Helper()
	b, _ := json.Marshal(struct {
		engine.Snapshot
		Table           string           `json:"table"`
		Status          string           `json:"status"`
		GameNumber      int              `json:"game_number,omitempty"`
		Last            json.RawMessage  `json:"last,omitempty"`
		LastUnconfirmed map[string][]int `json:"last_unconfirmed,omitempty"`
		Look            json.RawMessage  `json:"look,omitempty"`
	}{j.table.Snapshot(), j.name, j.status, j.games, j.last, j.lastUnconfirmed, j.look})
	j.publish(j.topics.State, b, true)
}

// headerJS reads the table page's header: game and hand, phase, the
// referee's status.
const headerJS = `(() => { const q = s => { const e = document.querySelector('#meta ' + s); return e ? e.textContent : '' };
  return {gh: q('.gh'), phase: q('.phase'), status: q('.ref-status'), meta: document.getElementById('meta').textContent} })()`

type header struct {
	GH     string `json:"gh"`
	Phase  string `json:"phase"`
	Status string `json:"status"`
	Meta   string `json:"meta"`
}

// historyJS is the history's lines, newest first.
const historyJS = `[...document.querySelectorAll('#history li')].map(e => e.textContent)`

// TestTablePageFollowsGames: the game number is the journal's ("game 3"
// where the records list says Game 3), an opening roll shows no hand 0,
// and the last game's result, history and winner go when the next game
// begins, whether it begins with an opening roll (star-board) or
// abandons a game being played.
func TestTablePageFollowsGames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	st := startStack(t, "t1", scoreboard.JournalFile(path))
	ref := newJournaledReferee(t, st.broker.URL(), "t1", path)
	// Game 1, finished: bob's perfect bid of two 3s.
	ref.play(journalLines[:5]...)
	// Game 2, finished: ann's spot-on call of bob's one 2.
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"bob","seed":5,"options":{"dice":1}}`,
		`{"type":"bid","seat":"bob","quantity":1,"face":2}`, `{"type":"challenge","seat":"ann"}`,
		`{"type":"reveal","dice":{"ann":[3],"bob":[4]}}`)
	p := open(t, st.web.URL+"/")
	var h header
	waitFor(t, p, "game 2 over", `(() => { const h = `+headerJS+`; return h.gh.startsWith('game 2') && h.phase === 'game over' ? h : null })()`, &h)
	waitFor(t, p, "game 2's result and winner", `document.getElementById('result').dataset.count === '0' && !document.getElementById('winner').hidden`, nil)
	var records []string
	waitFor(t, p, "the records", `(() => { const r = [...document.querySelectorAll('#records li')].map(e => e.textContent); return r.length === 2 ? r : null })()`, &records)
	if !strings.HasPrefix(records[0], "Game 2:") {
		t.Errorf("records: got %v; want Game 2 first", records)
	}

	// Game 3: star-board begins with its opening roll.
	ref.play(`{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"seed":9,"options":{"dice":2}}`)
	waitFor(t, p, "game 3's opening roll", `(() => { const h = `+headerJS+`; return h.gh === 'game 3' && h.phase === 'opening roll' ? h : null })()`, &h)
	if strings.Contains(h.Meta, "hand") {
		t.Errorf("header during the opening roll: got %q; want no hand", h.Meta)
	}
	var gone struct {
		Result  string   `json:"result"`
		Winner  bool     `json:"winner"`
		History []string `json:"history"`
	}
	waitFor(t, p, "game 2 gone", `(() => { const r = document.getElementById('result'); const h = `+historyJS+`;
	  return !r.dataset.count && document.getElementById('winner').hidden && !h.some(x => x.includes('wins'))
	    ? {result: r.textContent, winner: !document.getElementById('winner').hidden, history: h} : null })()`, &gone)
	if gone.Result != "no reveal yet" {
		t.Errorf("last result at game 3's opening roll: got %q; want no reveal yet", gone.Result)
	}
	ref.play(`{"type":"opening_roll","dice":{"ann":[1,1],"bob":[2,3],"cy":[4,5]}}`)
	waitFor(t, p, "game 3, hand 1", `(() => { const h = `+headerJS+`; return h.gh === 'game 3 · hand 1' ? h : null })()`, &h)
	first := *ref.table.Snapshot().Turn
	ref.play(`{"type":"bid","seat":"` + first + `","quantity":2,"face":1}`)
	var hist []string
	waitFor(t, p, "the star bid in the history", `(() => { const h = `+historyJS+`; return h.some(x => x.includes('bids')) ? h : null })()`, &hist)
	if !strings.Contains(strings.Join(hist, "|"), first+" bids two stars") {
		t.Errorf("history: got %v; want %s bids two stars", hist, first)
	}

	// Game 4 abandons game 3 in its first hand (RULINGS.md: a new_game
	// while a game is in progress abandons it).
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":11,"options":{"dice":2}}`)
	waitFor(t, p, "game 4", `(() => { const h = `+headerJS+`; return h.gh === 'game 4 · hand 1' ? h : null })()`, &h)
	waitFor(t, p, "game 3's bids gone", `(() => { const h = `+historyJS+`; return !h.some(x => x.includes('stars')) ? h : null })()`, &hist)

	// Reloaded, the page says the same from the journal.
	r := open(t, st.web.URL+"/")
	waitFor(t, r, "game 4 after a reload", `(() => { const h = `+headerJS+`; return h.gh === 'game 4 · hand 1' ? h : null })()`, &h)
	noConsoleErrors(t, p)
	noConsoleErrors(t, r)
}

// TestHistoryNamesStarsWithoutLiveState: with no state from the broker
// (none for browsers here), the history from the journal names a bid on
// face 1 as the game's preset does: stars in star-board.
func TestHistoryNamesStarsWithoutLiveState(t *testing.T) {
	path := writeJournal(t, []string{
		`{"type":"new_game","rules":"star-board","seats":["dee","eve"],"first":"dee","seed":3,"options":{"dice":2}}`,
		`{"type":"opening_roll","dice":{"dee":[6,6],"eve":[2,3]}}`,
		`{"type":"bid","seat":"dee","quantity":2,"face":1}`,
	}, "")
	web := httptest.NewServer(scoreboard.Handler(scoreboard.Options{Table: "t1", Journal: scoreboard.JournalFile(path)}))
	t.Cleanup(web.Close)
	p := open(t, web.URL+"/")
	var hist []string
	waitFor(t, p, "the history", `(() => { const h = `+historyJS+`; return h.some(x => x.includes('bids')) ? h : null })()`, &hist)
	if !strings.Contains(strings.Join(hist, "|"), "dee bids two stars") {
		t.Errorf("history without live state: got %v; want dee bids two stars", hist)
	}
}

// TestStatusTellsTheTruth: the table page says what the referee is
// waiting for: the dice by hand (no camera, or the camera failed), the
// camera reading them, or a read that needs a look, with how many dice
// and which seats, in the right plural; the venue says the status too.
// No die's face is on either page.
func TestStatusTellsTheTruth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	st := startStack(t, "t1", scoreboard.JournalFile(path))
	ref := newJournaledReferee(t, st.broker.URL(), "t1", path)
	ref.status = "waiting for reveal" // no camera
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":2,"face":4}`, `{"type":"challenge","seat":"bob"}`)
	p := open(t, st.web.URL+"/")
	v := open(t, st.web.URL+"/venue")
	var h header
	waitFor(t, p, "waiting for reveal", `(() => { const h = `+headerJS+`; return h.status ? h : null })()`, &h)
	if h.Status != "waiting for reveal" || h.Phase != "reveal" || strings.Contains(h.Meta, "reading") {
		t.Errorf("no camera: got %+v; want phase reveal, status waiting for reveal, nothing read", h)
	}
	var venue string
	waitFor(t, v, "the venue's status", `(() => { const m = document.querySelector('.venue-table .vt-ref'); return m && m.dataset.status ? m.dataset.status : null })()`, &venue)
	if venue != "waiting for reveal" {
		t.Errorf("venue: got %q; want waiting for reveal", venue)
	}

	vision := func(seats, dice string) {
		ref.publish(ref.topics.Vision, []byte(`{"type":"needs_a_look","game":1,"hand":1,"attempt":1,"message":"m","seats":`+seats+`,"dice":`+dice+`,"retry_ms":2000}`), false)
	}
	counts := `[{"seat":"ann","expected":2,"seen":2},{"seat":"bob","expected":2,"seen":2},{"seat":"cy","expected":2,"seen":2}]`
	for _, c := range []struct {
		status, seats, dice string
		want                string
	}{
		{"reading", "", "", "reading the dice"},
		{"needs a look", counts, `[{"seat":"bob","x":1,"y":2,"confidence":0.4,"reason":"uncertain"}]`, "needs a look: 1 die in doubt (bob)"},
		{"needs a look", counts, `[{"seat":"ann","x":1,"y":2,"confidence":0.4,"reason":"uncertain"},{"seat":"cy","x":5,"y":2,"confidence":0.3,"reason":"uncertain"}]`,
			"needs a look: 2 dice in doubt (ann, cy)"},
		{"needs a look", `[{"seat":"ann","expected":2,"seen":2},{"seat":"bob","expected":2,"seen":1},{"seat":"cy","expected":2,"seen":2}]`,
			`[{"x":900,"y":20,"confidence":0.9,"reason":"no_seat"}]`, "needs a look: 1 die outside every seat; bob: 1 of 2 dice seen"},
		{"needs a look", `[]`, `[]`, "waiting for reveal (the camera failed)"},
	} {
		ref.status = c.status
		ref.publishState()
		if c.seats != "" {
			vision(c.seats, c.dice)
		}
		waitFor(t, p, c.want, `(() => { const h = `+headerJS+`; return h.status === `+jsString(c.want)+` ? h : null })()`, &h)
		if c.status == "needs a look" {
			var banner string
			waitFor(t, p, "the banner", `(() => { const l = document.getElementById('look'); return l.hidden ? null : l.textContent })()`, &banner)
			if c.want == "waiting for reveal (the camera failed)" && !strings.HasPrefix(banner, "Waiting for reveal: the camera failed") {
				t.Errorf("banner for a failed capture: got %q", banner)
			}
		}
	}
	// A page opened after the vision message reads what is in doubt from
	// the retained state.
	ref.status = "needs a look"
	ref.look = json.RawMessage(`{"attempt":3,"message":"m","seats":` + counts + `,"dice":[{"seat":"cy","x":1,"y":2,"confidence":0.4,"reason":"uncertain"}]}`)
	ref.publishState()
	late := open(t, st.web.URL+"/")
	waitFor(t, late, "the state's look", `(() => { const h = `+headerJS+`; return h.status === 'needs a look: 1 die in doubt (cy)' ? h : null })()`, &h)
	ref.look = nil
	noConsoleErrors(t, late)

	// The operator enters the dice: the result, and the status is gone.
	ref.status = "ready"
	ref.play(`{"type":"reveal","dice":{"ann":[4,1],"bob":[2,3],"cy":[5,6]}}`)
	waitFor(t, p, "ready", `(() => { const h = `+headerJS+`; return !h.status && document.getElementById('look').hidden ? h : null })()`, &h)
	noConsoleErrors(t, p)
	noConsoleErrors(t, v)
}

// decodeQR reads the QR code in a screenshot with ZXing's decoder (its
// Go port), as a phone's camera app would.
func decodeQR(t *testing.T, b []byte) string {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decoding the QR code: %v", err)
	}
	return res.GetText()
}

// TestQRCodes: the table page and every card of the venue show a QR
// code, and a phone that scans it (OpenCV here, from the screen) gets the
// table's page at the configured public URL.
func TestQRCodes(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", WebSocket: "127.0.0.1:0", Table: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	web := httptest.NewServer(scoreboard.Handler(scoreboard.Options{
		Table: "t1", WebSocket: strings.TrimPrefix(b.WebSocketURL(), "ws://"), PublicURL: "http://bar-1.lan:8080/",
	}))
	t.Cleanup(web.Close)
	for _, table := range []string{"t1", "t2"} {
		newFakeReferee(t, b.URL(), table).play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3}`)
	}

	p := open(t, web.URL+"/")
	var shown struct {
		URL string `json:"url"`
		Src string `json:"src"`
	}
	waitFor(t, p, "the QR code", `(() => { const i = document.getElementById('qr'); const u = document.getElementById('qr-url');
	  return !i.hidden && i.complete && i.naturalWidth > 0 ? {url: u.dataset.url, src: i.getAttribute('src')} : null })()`, &shown)
	if shown.URL != "http://bar-1.lan:8080/" {
		t.Errorf("table page: got %q under the QR code; want http://bar-1.lan:8080/", shown.URL)
	}
	saveScreenshot(t, p, "table-qr.png")
	v := open(t, web.URL+"/venue")
	var srcs []string
	waitFor(t, v, "the venue's QR codes", `(() => { const q = [...document.querySelectorAll('.venue-table img.qr')];
	  return q.length === 2 && q.every(i => i.complete && i.naturalWidth > 0) ? q.map(i => i.getAttribute('src')) : null })()`, &srcs)
	noConsoleErrors(t, p)
	noConsoleErrors(t, v)

	// Scanned: each image as the page loads it, drawn alone on a screen.
	for _, c := range []struct{ src, want string }{{shown.Src, "http://bar-1.lan:8080/"}, {srcs[1], "http://bar-1.lan:8080/?table=t2"}} {
		q := open(t, web.URL+"/"+c.src)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := q.Resize(ctx, 400, 400, false); err != nil {
			t.Fatal(err)
		}
		waitFor(t, q, "the SVG", `document.querySelector('svg') !== null`, nil)
		shot, err := q.Screenshot(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeQR(t, shot); got != c.want {
			t.Errorf("%s scanned: got %q; want %q", c.src, got, c.want)
		}
	}
}

// TestTablePageFillsWhatItMissed: events the page never received (published
// before its subscription, or while its connection was away) come from the
// journal: a state whose seq is ahead of the events seen makes the page read
// the history again, and the header, the history and the last result agree.
// (A cold load once said hand 8 in the header while the history stopped at
// hand 7 and the last result was hand 6's.)
func TestTablePageFillsWhatItMissed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	st := startStack(t, "t1", scoreboard.JournalFile(path))
	ref := newJournaledReferee(t, st.broker.URL(), "t1", path)
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":1,"face":2}`)
	p := open(t, st.web.URL+"/")
	waitFor(t, p, "hand 1", `(() => { const h = `+historyJS+`; return h.some(x => x.includes('ann bids one 2')) ? h : null })()`, nil)
	// Hand 1 ends and hand 2 is bid on; the page gets only the state.
	ref.playQuietly(`{"type":"challenge","seat":"bob"}`, `{"type":"reveal","dice":{"ann":[2,5],"bob":[3,4]}}`,
		`{"type":"bid","seat":"bob","quantity":2,"face":6}`)
	var got struct {
		GH      string   `json:"gh"`
		History []string `json:"history"`
		Count   string   `json:"count"`
	}
	waitFor(t, p, "the missed events from the journal", `(() => { const h = `+historyJS+`;
	  return h.some(x => x.startsWith('There was 1')) ? {gh: (`+headerJS+`).gh, history: h, count: document.getElementById('result').dataset.count} : null })()`, &got)
	joined := strings.Join(got.History, "|")
	for _, want := range []string{"bob bids two sixes", "Hand 2: bob opens", "bob calls liar"} {
		if !strings.Contains(joined, want) {
			t.Errorf("history %q; want %q", got.History, want)
		}
	}
	seen := map[string]bool{}
	for _, h := range got.History {
		if seen[h] && !strings.HasPrefix(h, "Reveal") {
			t.Errorf("history %q: %q twice", got.History, h)
		}
		seen[h] = true
	}
	if got.GH != "game 1 · hand 2" || got.Count != "1" {
		t.Errorf("header %q, last result's count %q; want game 1 · hand 2 and hand 1's result, 1", got.GH, got.Count)
	}
	noConsoleErrors(t, p)
}
