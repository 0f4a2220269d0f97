package scoreboard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// badStates are payloads on a table's state topic that are not the
// referee's snapshot: not JSON, not an object, fields of the wrong type,
// missing fields, and counts so large that drawing them would hang a page.
var badStates = []string{
	`not json`, `[]`, `null`, `"a string"`, `42`, `{}`,
	`{"seats":"abc"}`,
	`{"seats":[null,3,"x",{"dice":2},{"name":"ann","dice":"x","shown":"y"}]}`,
	`{"rules":"common-hand","phase":"bidding","game":1,"hand":1,"seats":[{"name":"ann","dice":1000000000}],"bid":{"seat":"ann","quantity":1000000000,"face":3}}`,
	`{"rules":"star-board","star_die":true,"phase":"bidding","seats":[{"name":"ann","dice":2,"shown":[1,"x",null,{}]}],"bid":{"quantity":2}}`,
	`{"rules":"common-hand","phase":"bidding","seats":[{"name":"ann","dice":-5}],"bid":"2x3","turn":{"a":1},"wins":"x","call":"liar"}`,
	`{"rules":"common-hand","phase":"reveal","seats":[],"last":{"call":"challenge","bid":null,"count":"x"},"sides":1e9}`,
	`{"rules":"common-hand","phase":"reveal","seats":[],"last":{"call":"challenge","bid":{"quantity":2,"face":3},"caller":{},"bidder":[],"count":2,"dice":"x"}}`,
}

// badEvents are payloads on the events topic that are not RECORD.md's.
var badEvents = []string{
	`nope`, `[]`, `{"seq":1}`, `{"type":5,"seq":2}`,
	`{"type":"revealed","seq":3,"dice":{"ann":5,"bob":"x","cy":[1,"y",null]}}`,
	`{"type":"resolved","seq":4,"call":"challenge","bid":{"quantity":2,"face":3},"count":"x","dice":"y","out":"z"}`,
	`{"type":"revealed","seq":5,"dice":null}`,
	`{"type":"resolved","seq":6,"call":"challenge","bid":{},"count":1,"dice":{},"out":[]}`,
	`{"type":"revealed","seq":7,"dice":{"ann":[1000000000]},"shown":"x"}`,
	`{"type":"resolved","seq":8,"call":"challenge","bid":{"quantity":1000000000,"face":2},"count":1000000000,"dice":{"ann":"x"},"out":[null],"payout":"x"}`,
	`{"type":"hand_started","seq":9}`, `{"type":"bid","seq":10,"shown":5}`,
	`{"type":"game_over","seq":11,"winner":{"x":1}}`,
}

// TestScoreboardSurvivesBadPayloads: malformed JSON and missing or wrong
// fields on the table's topics never break the page: it logs no error,
// does not hang, and draws the next good state and events as usual.
func TestScoreboardSurvivesBadPayloads(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	p := open(t, st.web.URL+"/")
	waitFor(t, p, "the broker connection", `document.getElementById('conn').dataset.conn === 'live'`, nil)
	for _, s := range badStates {
		ref.publish(ref.topics.State, []byte(s), true)
	}
	for _, e := range badEvents {
		ref.publish(ref.topics.Events, []byte(e), false)
	}
	for _, v := range []string{`{{`, `{"message":{"a":1}}`, `null`, `[]`} {
		ref.publish(ref.topics.Vision, []byte(v), false)
	}
	ref.publish(ref.topics.Status, []byte{}, true)
	ref.publish(ref.topics.Status, []byte("online"), true)
	// The page is still responsive: it answers, and has drawn no
	// billion dice.
	var drawn int
	waitFor(t, p, "the page after bad payloads", `document.querySelectorAll('svg.die').length + document.querySelectorAll('.track .space').length + 1`, &drawn)
	if drawn-1 > 2000 {
		t.Errorf("after bad payloads the page drew %d dice and track spaces; want a bounded number", drawn-1)
	}

	// A real game afterwards is drawn as usual.
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":2,"face":4}`, `{"type":"challenge","seat":"bob"}`,
		`{"type":"reveal","dice":{"ann":[4,1],"bob":[2,3],"cy":[5,6]}}`)
	var seats []seatView
	waitFor(t, p, "the seats of the good state", `(() => { const s = `+seatsJS+`; return s && s.length === 3 && s[0].dice === 1 && s[1].dice === 2 ? s : null })()`, &seats)
	waitFor(t, p, "the good result", `(() => { const r = document.getElementById('result'); return r.dataset.count === '1' && r.querySelectorAll('.reveal svg.die').length === 6 })()`, nil)
	for _, s := range seats {
		if s.Hidden != s.Dice {
			t.Errorf("seat %s: got %d hidden of %d dice; want every die hidden", s.Name, s.Hidden, s.Dice)
		}
	}
	noConsoleErrors(t, p)
}

// hostile names, with markup and quotes of every kind: a page must show
// them as text and run nothing.
var hostile = []string{
	`<script>window.pwned=1</script>`,
	`"><img src=x onerror="window.pwned=2">`,
	`'); window.pwned=3; ('`,
	"`${window.pwned=4}` & &amp; <b>bold</b>",
}

// TestHostileNamesAreText: seat names (and a table id on the venue) that
// hold markup or quotes are drawn as text on the table page and on the
// venue dashboard; nothing they hold runs or becomes an element. The
// engine refuses such names (RECORD.md), but anything may be published on
// a broker.
func TestHostileNamesAreText(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	type seat struct {
		Name  string `json:"name"`
		Dice  int    `json:"dice"`
		Shown []int  `json:"shown,omitempty"`
	}
	var seats []seat
	dice := map[string][]int{}
	for i, n := range hostile {
		seats = append(seats, seat{Name: n, Dice: 2})
		dice[n] = []int{i%6 + 1, 3}
	}
	last := map[string]any{"call": "challenge", "bidder": hostile[1], "caller": hostile[2], "bid": map[string]int{"quantity": 2, "face": 3}, "count": 4, "dice": map[string]int{hostile[1]: -1}, "out": []string{}}
	state := map[string]any{"seq": 3, "rules": hostile[3], "game": 1, "hand": 1, "phase": "bidding", "turn": hostile[0], "status": hostile[1],
		"bid": map[string]any{"seat": hostile[1], "quantity": 2, "face": 3}, "seats": seats, "sides": 6,
		"wins": map[string]int{hostile[0]: 1}, "last": last, "call": map[string]any{"caller": hostile[2], "call": "challenge"}}
	sb, _ := json.Marshal(state)
	rev, _ := json.Marshal(map[string]any{"type": "revealed", "seq": 1, "dice": dice})
	res, _ := json.Marshal(map[string]any{"type": "resolved", "seq": 2, "call": "challenge", "bidder": hostile[1], "caller": hostile[2],
		"bid": map[string]int{"quantity": 2, "face": 3}, "count": 4, "dice": map[string]int{hostile[1]: -1}, "out": []string{hostile[0]},
		"payout": map[string]int{hostile[3]: 2}})
	over, _ := json.Marshal(map[string]any{"type": "game_over", "seq": 3, "game": 1, "winner": hostile[0]})
	p := open(t, st.web.URL+"/")
	waitFor(t, p, "the broker connection", `document.getElementById('conn').dataset.conn === 'live'`, nil)
	ref.publish(ref.topics.Events, rev, false)
	ref.publish(ref.topics.Events, res, false)
	ref.publish(ref.topics.State, sb, true)
	ref.publish(ref.topics.Vision, []byte(`{"message":"`+strings.ReplaceAll(hostile[1], `"`, `\"`)+`"}`), false)

	var names []string
	waitFor(t, p, "the hostile seats", `(() => { const n = [...document.querySelectorAll('#seats .seat .name')].map(e => e.textContent); return n.length === 4 ? n : null })()`, &names)
	if strings.Join(names, "|") != strings.Join(hostile, "|") {
		t.Errorf("seat names: got %q; want %q as text", names, hostile)
	}
	waitFor(t, p, "the result drawn", `document.querySelectorAll('#result .reveal svg.die').length === 8`, nil)
	ref.publish(ref.topics.Events, over, false)
	waitFor(t, p, "the game over in the history", `[...document.querySelectorAll('#history li')].some(e => e.dataset.type === 'game_over')`, nil)
	checkNothingInjected(t, p, "table page", hostile)

	// The venue: a table id with markup too (a topic level may hold it).
	bad := `<img src=x onerror="window.pwned=5">`
	ref.publish("liarsdice/"+bad+"/state", sb, true)
	ref.publish("liarsdice/"+bad+"/status", []byte(`online"><img src=x onerror="window.pwned=6">`), true)
	v := open(t, st.web.URL+"/venue")
	var ids []string
	waitFor(t, v, "both tables", `(() => { const t = [...document.querySelectorAll('.venue-table .vt-name')].map(e => e.textContent); return t.length === 2 ? t : null })()`, &ids)
	if ids[0] != bad || ids[1] != "t1" {
		t.Errorf("venue tables: got %q; want %q and t1 as text", ids, bad)
	}
	checkNothingInjected(t, v, "venue", append([]string{bad}, hostile...))
}

// checkNothingInjected fails when a hostile name ran (window.pwned) or
// became elements: only the page's own tags are found (the QR code's
// image, #qr, is the page's), and every name is somewhere in the page's
// text.
func checkNothingInjected(t *testing.T, p interface {
	Eval(context.Context, string, any) error
}, page string, names []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got struct {
		Pwned   any      `json:"pwned"`
		Foreign []string `json:"foreign"`
		Text    string   `json:"text"`
	}
	err := p.Eval(ctx, `(() => ({pwned: window.pwned === undefined ? null : window.pwned,
	  foreign: [...document.querySelectorAll('main img:not(#qr), main script, main b, body > script:not([src])')].map(e => e.outerHTML),
	  text: document.body.textContent}))()`, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pwned != nil || len(got.Foreign) != 0 {
		t.Errorf("%s: a name ran or became markup: window.pwned=%v, elements %q", page, got.Pwned, got.Foreign)
	}
	if !strings.Contains(got.Text, names[0]) {
		t.Errorf("%s: %q is not in the page's text", page, names[0])
	}
}
