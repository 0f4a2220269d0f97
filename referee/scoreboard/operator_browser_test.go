package scoreboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/scoreboard/browsertest"
)

// operatorDemo is a demo table whose camera misses a die at some reveals,
// on a broker of the test's, with its own web server (whose operator page
// gets the referee's reads).
type operatorDemo struct {
	broker *mqtt.Broker
	url    string // the scoreboard's address, ending in /

	mu     sync.Mutex
	events []json.RawMessage
}

func startOperatorDemo(t testing.TB, table string, o demo.Options) *operatorDemo {
	t.Helper()
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", WebSocket: "127.0.0.1:0", Table: table})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	od := &operatorDemo{broker: b}
	sub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("operator-test-events-" + table))
	if tok := sub.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { sub.Disconnect(100) })
	tok := sub.Subscribe(mqtt.TopicsFor("", table).Events, 1, func(_ paho.Client, m paho.Message) {
		od.mu.Lock()
		od.events = append(od.events, json.RawMessage(slices.Clone(m.Payload())))
		od.mu.Unlock()
	})
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}

	user, password := b.Credentials()
	o.Broker, o.Username, o.Password, o.BrokerWebSocket = b.URL(), user, password, b.WebSocketURL()
	o.Table, o.HTTP, o.StateDir, o.Out, o.BoardMode = table, "127.0.0.1:0", t.TempDir(), io.Discard, "off"
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	urls := make(chan string, 1)
	o.WebStarted = func(u string) { urls <- u }
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := demo.Run(ctx, o); err != nil && ctx.Err() == nil {
			t.Errorf("demo: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	select {
	case od.url = <-urls:
	case <-time.After(60 * time.Second):
		t.Fatal("the demo's web server did not start")
	}
	return od
}

// revealed returns the dice of the published revealed events, oldest first.
func (od *operatorDemo) revealed() []map[string][]int {
	od.mu.Lock()
	defer od.mu.Unlock()
	var out []map[string][]int
	for _, e := range od.events {
		var ev struct {
			Type string           `json:"type"`
			Dice map[string][]int `json:"dice"`
		}
		if json.Unmarshal(e, &ev) == nil && ev.Type == "revealed" {
			out = append(out, ev.Dice)
		}
	}
	return out
}

// tap presses and releases the mouse on the middle of the element that
// selector finds, as a finger would.
func tap(t *testing.T, p *browsertest.Page, selector string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var at struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'center'});
	  const r = e.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2} })()`, jsString(selector))
	if err := p.WaitFor(ctx, expr, &at); err != nil {
		t.Fatalf("tap %s: %v", selector, err)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := p.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil); err != nil {
			t.Fatalf("tap %s: %v", selector, err)
		}
	}
}

type operatorView struct {
	Phase string `json:"phase"`
	Game  int    `json:"game"`
	Hand  int    `json:"hand"`
	Read  *struct {
		ID       int64  `json:"id"`
		Kind     string `json:"kind"`
		Game     int    `json:"game"`
		Hand     int    `json:"hand"`
		Accepted bool   `json:"accepted"`
	} `json:"read"`
	Dice     map[string][]int `json:"dice"`
	Problems []string         `json:"problems"`
}

// leakWatch runs in the page from its start: it notes every moment at
// which the page shows a read of the hand being bid (a face before the
// call) or draws a face on a seat that was not set out.
const leakWatch = `window.__leaks = []; window.__bidding = 0;
setInterval(() => {
  const o = window.liarsdOperator; if (!o) return;
  const v = o.view();
  if (v.phase === 'bidding') window.__bidding++;
  const early = v.read && v.phase === 'bidding' && v.read.game === v.game && v.read.hand === v.hand;
  const seatFaces = document.querySelectorAll('#seats svg.die:not(.shown)').length;
  if (early || seatFaces) window.__leaks.push({view: v, seatFaces});
}, 10);`

// TestOperatorResolvesDoubtfulReveal plays the operator against a demo
// whose camera misses a die at every reveal: the read in doubt appears on
// the page with its frame, a tap sets a die's face, a tap adds the missing
// die, Accept resolves the hand with the page's dice (the revealed event
// the referee publishes is what the page sent), and no face of a hand
// shows on the page before its call.
func TestOperatorResolvesDoubtfulReveal(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a demo game")
	}
	od := startOperatorDemo(t, "op-1", demo.Options{Rules: "common-hand", Seats: 2, Options: map[string]any{"dice": 2},
		Seed: 5, Pace: 300 * time.Millisecond, Doubt: 1, OperatorAfter: time.Hour})
	p := openWith(t, od.url+"operator", leakWatch)
	if err := p.Resize(context.Background(), 412, 915, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, p, "the broker connection", `document.getElementById('conn').dataset.conn === 'live' ? 'live' : null`, nil)
	var v operatorView
	// The call: the camera misses one die, the page shows the read.
	waitFor(t, p, "the read in doubt", `(() => { const v = liarsdOperator.view();
	  return v.phase === 'reveal' && v.read && !v.read.accepted && document.querySelector('#frame img') && document.querySelector('.op-mark') && document.querySelector('#reveal-seats .count.bad') ? v : null })()`, &v)
	if len(v.Problems) == 0 {
		t.Errorf("the read in doubt: got no problems listed; want the seat short of a die")
	}
	var state struct {
		Disabled bool   `json:"disabled"`
		Short    string `json:"short"`
		Other    string `json:"other"`
	}
	if err := p.Eval(context.Background(), `(() => { const bad = document.querySelector('#reveal-seats .count.bad').parentElement.dataset.seat;
	  const other = [...document.querySelectorAll('#reveal-seats li')].map(l => l.dataset.seat).find(s => s !== bad);
	  return {disabled: document.getElementById('accept').disabled, short: bad, other} })()`, &state); err != nil {
		t.Fatal(err)
	}
	if !state.Disabled {
		t.Errorf("Accept is enabled while %s is short of a die; want it disabled", state.Short)
	}
	saveScreenshot(t, p, "operator-doubt.png")

	// A tap on one of the other seat's dice on the frame, a tap on face 6:
	// its face is set.
	tap(t, p, `.op-mark[data-seat="`+state.Other+`"]`)
	waitFor(t, p, "the face picker", `!document.getElementById('picker').hidden`, nil)
	tap(t, p, `#picker-faces button[data-face="6"]`)
	waitFor(t, p, "the face set", `document.getElementById('picker').hidden && liarsdOperator.view().dice[`+jsString(state.Other)+`].includes(6)`, nil)
	// The missing die: added to the short seat with face 4.
	tap(t, p, `#reveal-seats li[data-seat="`+state.Short+`"] button.add`)
	waitFor(t, p, "the picker for a new die", `!document.getElementById('picker').hidden`, nil)
	tap(t, p, `#picker-faces button[data-face="4"]`)
	waitFor(t, p, "Accept enabled", `document.getElementById('picker').hidden && !document.getElementById('accept').disabled`, nil)
	if err := p.Eval(context.Background(), `liarsdOperator.view()`, &v); err != nil {
		t.Fatal(err)
	}
	sent := v.Dice
	if !slices.Contains(sent[state.Short], 4) || len(sent[state.Short]) != 2 || len(sent[state.Other]) != 2 {
		t.Fatalf("the page's dice: got %v; want two dice a seat, a 4 added to %s", sent, state.Short)
	}
	before := len(od.revealed())
	tap(t, p, `#accept`)
	waitFor(t, p, "the reveal accepted", `document.getElementById('answer').dataset.answer === 'ok'`, nil)
	waitFor(t, p, "the accepted read", `(() => { const v = liarsdOperator.view(); return v.read && v.read.accepted && !document.getElementById('correct').hidden })()`, nil)

	deadline := time.Now().Add(10 * time.Second)
	for len(od.revealed()) <= before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	all := od.revealed()
	if len(all) <= before {
		t.Fatal("no revealed event after Accept")
	}
	got := all[before]
	for _, m := range []map[string][]int{got, sent} {
		for _, faces := range m {
			sort.Ints(faces)
		}
	}
	if !maps.EqualFunc(got, sent, slices.Equal[[]int]) {
		t.Errorf("revealed: got %v; want the page's dice %v", got, sent)
	}
	saveScreenshot(t, p, "operator-accepted.png")

	// The next hand is bid on: the accepted read goes, and its faces with it.
	waitFor(t, p, "the next hand's first bid", `(() => { const v = liarsdOperator.view(); return v.phase === 'bidding' && v.hand >= 2 && !v.read && document.getElementById('reveal').hidden })()`, nil)
	var watched struct {
		Leaks   []json.RawMessage `json:"leaks"`
		Bidding int               `json:"bidding"`
	}
	if err := p.Eval(context.Background(), `({leaks: window.__leaks, bidding: window.__bidding})`, &watched); err != nil {
		t.Fatal(err)
	}
	if len(watched.Leaks) > 0 || watched.Bidding == 0 {
		t.Errorf("watching the page: got %d moments with faces before the call (first: %s) in %d looks while bidding; want none in some",
			len(watched.Leaks), firstOr(watched.Leaks), watched.Bidding)
	}
	noConsoleErrors(t, p)
}

// BenchmarkOperatorShowsDoubt measures the time from a read in doubt (the
// referee's read of a reveal, finished) to the operator page drawing it,
// over 100 reveals of the demo (star-board, 4 seats, 5 dice) whose camera
// misses a die at every reveal. The demo's own operator enters each
// reveal a second after the call. Run it with
//
//	go test -run '^$' -bench OperatorShowsDoubt -benchtime 1x ./referee/scoreboard/
func BenchmarkOperatorShowsDoubt(b *testing.B) {
	if browsertest.Find() == "" {
		b.Skip("no Chromium")
	}
	const reveals = 100
	for range b.N {
		od := startOperatorDemo(b, "op-bench", demo.Options{Seed: 9, Pace: 0, Doubt: 1, OperatorAfter: time.Second})
		br := browsertest.Shared(b)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		p, err := br.Open(ctx, od.url+"operator", 412, 915)
		if err != nil {
			b.Fatal(err)
		}
		var lat []float64
		err = p.WaitFor(ctx, fmt.Sprintf(`(() => { const seen = {}, lat = [];
		  for (const s of liarsdOperator.shown) { const k = s.game + '/' + s.hand; if (s.kind !== 'reveal' || s.ok || seen[k]) continue; seen[k] = 1; lat.push(s.shown_at - s.read_at) }
		  return lat.length >= %d ? lat.slice(0, %d) : null })()`, reveals, reveals), &lat)
		p.Close()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		sort.Float64s(lat)
		b.ReportMetric(lat[len(lat)/2], "median-ms")
		b.ReportMetric(lat[len(lat)*99/100], "p99-ms")
		b.ReportMetric(lat[len(lat)-1], "max-ms")
	}
}

func firstOr(l []json.RawMessage) string {
	if len(l) == 0 {
		return "none"
	}
	return string(l[0])
}
