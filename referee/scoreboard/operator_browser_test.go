package scoreboard_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
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
func (od *operatorDemo) revealed() []map[string][]int { return od.diceOf("revealed") }

// lastOf returns the dice of the last published event of type typ.
func (od *operatorDemo) lastOf(typ string) map[string][]int {
	all := od.diceOf(typ)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}

// diceOf returns the dice of the published events of type typ, oldest
// first.
func (od *operatorDemo) diceOf(typ string) []map[string][]int {
	od.mu.Lock()
	defer od.mu.Unlock()
	var out []map[string][]int
	for _, e := range od.events {
		var ev struct {
			Type string           `json:"type"`
			Dice map[string][]int `json:"dice"`
		}
		if json.Unmarshal(e, &ev) == nil && ev.Type == typ {
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
		ID          int64            `json:"id"`
		Kind        string           `json:"kind"`
		Game        int              `json:"game"`
		Hand        int              `json:"hand"`
		Accepted    bool             `json:"accepted"`
		Source      string           `json:"source"`
		Unconfirmed map[string][]int `json:"unconfirmed"`
	} `json:"read"`
	Dice     map[string][]int `json:"dice"`
	Problems []string         `json:"problems"`
	Expected []struct {
		Seat string `json:"seat"`
		Dice int    `json:"dice"`
	} `json:"expected"`
	Unread map[string]int `json:"unread"`
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
		Seed: 5, Pace: 2 * time.Second, Doubt: 1, OperatorAfter: time.Hour})
	// The scoreboard first: the tab opened last is the one in front, and a
	// tab behind has its timers throttled.
	board := open(t, od.url)
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
	if err := p.Eval(context.Background(), `(() => { const bad = document.querySelector('#reveal-seats .count.bad').closest('li').dataset.seat;
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
	tap(t, p, `#picker button[data-face="6"]`)
	waitFor(t, p, "the face set", `document.getElementById('picker').hidden && liarsdOperator.view().dice[`+jsString(state.Other)+`].includes(6)`, nil)
	// The missing die: added to the short seat with face 4.
	tap(t, p, `#reveal-seats li[data-seat="`+state.Short+`"] button.add`)
	waitFor(t, p, "the picker for a new die", `!document.getElementById('picker').hidden`, nil)
	tap(t, p, `#picker button[data-face="4"]`)
	// Dice in doubt the operator has not set: Accept says so and opens
	// them, one by one; a tap on the likeliest face sets each.
	for range 10 {
		var guide bool
		waitFor(t, p, "Accept enabled", `(() => { const a = document.getElementById('accept');
		  return document.getElementById('picker').hidden && !a.disabled ? {guide: a.dataset.guide === 'true'} : null })()`, &struct {
			Guide *bool `json:"guide"`
		}{&guide})
		if !guide {
			break
		}
		var label string
		if err := p.Eval(context.Background(), `document.getElementById('accept').textContent`, &label); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(label, "in doubt") {
			t.Errorf("Accept's label with a die in doubt left: %q; want it to say so", label)
		}
		tap(t, p, `#accept`)
		waitFor(t, p, "the picker of a die in doubt", `!document.getElementById('picker').hidden`, nil)
		tap(t, p, `#picker .op-faces:not([hidden]) button`)
	}
	if err := p.Eval(context.Background(), `liarsdOperator.view()`, &v); err != nil {
		t.Fatal(err)
	}
	sent := v.Dice
	for _, e := range v.Expected {
		if len(sent[e.Seat]) != e.Dice {
			t.Fatalf("the page's dice: got %v; want %d for %s", sent, e.Dice, e.Seat)
		}
	}
	if !slices.Contains(sent[state.Short], 4) {
		t.Fatalf("the page's dice: got %v; want a 4 added to %s", sent, state.Short)
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

	// A correction before the next hand's first bid (the demo's seats
	// wait 2 s a move): one of the short seat's dice gets another face.
	tap(t, p, `#reveal-seats li[data-seat="`+state.Short+`"] button.die-button`)
	waitFor(t, p, "the picker of an accepted die", `!document.getElementById('picker').hidden`, nil)
	tap(t, p, `#picker-faces button:not(.current)`)
	waitFor(t, p, "Correct enabled", `document.getElementById('picker').hidden && !document.getElementById('correct').disabled`, nil)
	if err := p.Eval(context.Background(), `liarsdOperator.view()`, &v); err != nil {
		t.Fatal(err)
	}
	corrected := v.Dice
	tap(t, p, `#correct`)
	var answer struct {
		Kind   string `json:"kind"`
		Reason string `json:"reason"`
		Text   string `json:"text"`
	}
	waitFor(t, p, "the correction's answer", `(() => { const a = document.getElementById('answer'); return a.dataset.answer === 'ok' || a.dataset.answer === 'bad' ? {kind: a.dataset.answer, reason: a.dataset.reason, text: a.textContent} : null })()`, &answer)
	switch {
	case answer.Kind != "ok":
		t.Errorf("correction: got %s (%s); want it accepted", answer.Text, answer.Reason)
	default:
		deadline := time.Now().Add(10 * time.Second)
		var got map[string][]int
		for got == nil && time.Now().Before(deadline) {
			got = od.lastOf("corrected")
			time.Sleep(20 * time.Millisecond)
		}
		for _, m := range []map[string][]int{got, corrected} {
			for _, faces := range m {
				sort.Ints(faces)
			}
		}
		if !maps.EqualFunc(got, corrected, slices.Equal[[]int]) {
			t.Errorf("corrected: got %v; want the page's dice %v", got, corrected)
		}
		// The scoreboard says so: the result it shows is the corrected one.
		waitFor(t, board, "the scoreboard's corrected result", `(() => { const r = document.getElementById('result');
		  return r.dataset.corrected === 'true' && r.textContent.includes('corrected by the operator') })()`, nil)
	}

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

var operatorReveals = flag.Int("operator-reveals", 100, "BenchmarkOperatorShowsDoubt: how many reveals")

// BenchmarkOperatorShowsDoubt measures the time from a read in doubt (the
// referee's read of a reveal, finished) to the operator page drawing it,
// over 100 reveals of the demo (common-hand, 2 seats of 5 dice) whose
// camera misses a die at every reveal. The benchmark is the operator: once
// the page shows a hand's read in doubt, it sends the page's dice, made up
// to each seat's count, as the reveal (the demo's own operator never
// steps in). Run it with
//
//	go test -run '^$' -bench OperatorShowsDoubt -benchtime 1x ./referee/scoreboard/
func BenchmarkOperatorShowsDoubt(b *testing.B) {
	if browsertest.Find() == "" {
		b.Skip("no Chromium")
	}
	reveals := *operatorReveals
	for range b.N {
		od := startOperatorDemo(b, "op-bench", demo.Options{Rules: "common-hand", Seats: 2, Seed: 9, Pace: 0, Doubt: 1, OperatorAfter: 24 * time.Hour})
		cmd := paho.NewClient(paho.NewClientOptions().AddBroker(od.broker.URL()).SetClientID("operator-bench-cmd"))
		if tok := cmd.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			b.Fatalf("connect: %v", tok.Error())
		}
		br := browsertest.Shared(b)
		ctx, cancel := context.WithTimeout(context.Background(), 80*time.Minute)
		p, err := br.Open(ctx, od.url+"operator", 412, 915)
		if err != nil {
			b.Fatal(err)
		}
		settled := 0
		for settled < reveals && err == nil {
			var v operatorView
			err = p.WaitFor(ctx, `(() => { const v = liarsdOperator.view(); const r = v.read;
			  return r && r.kind === 'reveal' && !r.ok && !r.accepted ? v : null })()`, &v)
			if err != nil {
				break
			}
			dice := map[string][]int{}
			for _, e := range v.Expected {
				faces := append([]int{}, v.Dice[e.Seat]...)
				for len(faces) < e.Dice {
					faces = append(faces, 1)
				}
				dice[e.Seat] = faces[:e.Dice]
			}
			line, _ := json.Marshal(map[string]any{"type": "reveal", "dice": dice})
			cmd.Publish(mqtt.TopicsFor("", "op-bench").Cmd, 1, false, line)
			// The hand moves on: its read is accepted, then gone.
			err = p.WaitFor(ctx, `(() => { const r = liarsdOperator.view().read; return !r || r.accepted })()`, nil)
			if settled++; settled%10 == 0 {
				b.Logf("%d reveals settled from the page", settled)
			}
		}
		var lat []float64
		if err == nil {
			err = p.Eval(ctx, `(() => { const lat = [];
			  for (const s of liarsdOperator.shown) { if (s.kind === 'reveal' && !s.ok && s.attempt === 1) lat.push(s.shown_at - s.read_at) }
			  return lat })()`, &lat)
		}
		p.Close()
		cancel()
		cmd.Disconnect(100)
		if err != nil {
			b.Fatal(err)
		}
		// A first read the page did not draw (a second capture came in
		// before its fetch) is not counted.
		if len(lat) == 0 {
			b.Fatalf("no read in doubt drawn in %d reveals", settled)
		}
		lat = lat[:min(len(lat), reveals)]
		sort.Float64s(lat)
		b.ReportMetric(float64(len(lat)), "reads")
		b.ReportMetric(lat[len(lat)/2], "median-ms")
		// Nearest rank: the 99th of 100.
		b.ReportMetric(lat[(len(lat)*99+99)/100-1], "p99-ms")
		b.ReportMetric(lat[len(lat)-1], "max-ms")
	}
}

func firstOr(l []json.RawMessage) string {
	if len(l) == 0 {
		return "none"
	}
	return string(l[0])
}

// TestOperatorSetsAnUnconfirmedDieInTheDemo plays the operator at a demo
// table whose camera misses a die at every reveal, with no demo operator:
// a reveal whose missed die could change the verdict is sent from the
// test; one whose missed die could not is taken by the referee with that
// die unconfirmed. The scoreboard draws it as not read, the operator page
// lists it, a tap and a face set it, and Correct sends the correction the
// real referee takes: the corrected dice name every face, and the
// scoreboard then shows them.
func TestOperatorSetsAnUnconfirmedDieInTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a demo game")
	}
	od := startOperatorDemo(t, "op-2", demo.Options{Rules: "common-hand", Seats: 2, Options: map[string]any{"dice": 2},
		Seed: 5, Pace: 300 * time.Millisecond, Doubt: 1, OperatorAfter: demo.OperatorOff, CorrectWindow: 30 * time.Second})
	cmd := paho.NewClient(paho.NewClientOptions().AddBroker(od.broker.URL()).SetClientID("operator-test-cmd"))
	if tok := cmd.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { cmd.Disconnect(100) })
	board := open(t, od.url)
	p := openWith(t, od.url+"operator", leakWatch)
	if err := p.Resize(context.Background(), phoneW, phoneH, true); err != nil {
		t.Fatal(err)
	}
	var v operatorView
	for tries := 0; ; tries++ {
		if tries == 12 {
			t.Fatal("no reveal taken with a die not read in 12 reveals")
		}
		waitFor(t, p, "a reveal", `(() => { const v = liarsdOperator.view(); const r = v.read;
		  return r && r.kind === 'reveal' && ((r.accepted && r.source === 'camera' && r.unconfirmed) || (!r.accepted && !r.ok)) ? v : null })()`, &v)
		if v.Read.Accepted {
			break
		}
		// A look: the test sends the page's dice, made up to each seat's
		// count, as another app would.
		dice := map[string][]int{}
		for _, e := range v.Expected {
			faces := append([]int{}, v.Dice[e.Seat]...)
			for len(faces) < e.Dice {
				faces = append(faces, 1)
			}
			for i, f := range faces {
				faces[i] = max(1, f)
			}
			dice[e.Seat] = faces[:e.Dice]
		}
		line, _ := json.Marshal(map[string]any{"type": "reveal", "dice": dice})
		cmd.Publish(mqtt.TopicsFor("", "op-2").Cmd, 1, false, line)
		waitFor(t, p, "the look settled", `(() => { const r = liarsdOperator.view().read; return !r || r.accepted || r.id !== `+strconv.FormatInt(v.Read.ID, 10)+` })()`, nil)
		waitFor(t, p, "the next hand", `(() => { const v = liarsdOperator.view(); return v.phase === 'bidding' && !v.read })()`, nil)
	}
	notRead := 0
	for seat, at := range v.Read.Unconfirmed {
		notRead += len(at)
		if v.Unread[seat] != len(at) {
			t.Errorf("the page's dice not read: %v; want those of %v", v.Unread, v.Read.Unconfirmed)
		}
	}
	n := strconv.Itoa(notRead)
	waitFor(t, board, "the scoreboard's dice not read", `document.getElementById('result').dataset.notRead === '`+n+`' &&
	  document.querySelectorAll('#result svg.die.unread').length === `+n, nil)

	// Each die not read: a tap, face 3.
	for seat, at := range v.Read.Unconfirmed {
		for range at {
			tap(t, p, `#reveal-seats li[data-seat="`+seat+`"] button.die-button[data-unread="true"]`)
			waitFor(t, p, "the die's card", `!document.getElementById('picker').hidden`, nil)
			tap(t, p, `#picker button[data-face="3"]`)
			waitFor(t, p, "the card closed", `document.getElementById('picker').hidden`, nil)
		}
	}
	waitFor(t, p, "Correct enabled", `!document.getElementById('correct').disabled`, nil)
	if err := p.Eval(context.Background(), `liarsdOperator.view()`, &v); err != nil {
		t.Fatal(err)
	}
	want := v.Dice
	tap(t, p, `#correct`)
	waitFor(t, p, "the correction accepted", `document.getElementById('answer').dataset.answer === 'ok'`, nil)
	deadline := time.Now().Add(10 * time.Second)
	var got map[string][]int
	for got == nil && time.Now().Before(deadline) {
		got = od.lastOf("corrected")
		time.Sleep(20 * time.Millisecond)
	}
	for _, m := range []map[string][]int{got, want} {
		for _, faces := range m {
			sort.Ints(faces)
		}
	}
	if !maps.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Errorf("corrected: got %v; want the page's dice %v", got, want)
	}
	for seat, at := range v.Read.Unconfirmed {
		if threes := len(slices.DeleteFunc(slices.Clone(want[seat]), func(f int) bool { return f != 3 })); threes < len(at) {
			t.Errorf("corrected: %s's dice %v; want its %d dice not read set to 3", seat, want[seat], len(at))
		}
	}
	waitFor(t, p, "the correction on the page", `(() => { const v = liarsdOperator.view(); return v.read && v.read.accepted && v.read.source === 'operator' && !v.read.unconfirmed &&
	  document.getElementById('reveal-status').textContent.startsWith('Accepted by the operator.') })()`, nil)
	waitFor(t, board, "the scoreboard's corrected result", `(() => { const r = document.getElementById('result');
	  return r.dataset.corrected === 'true' && r.dataset.notRead === '0' && !r.querySelector('svg.die.unread') })()`, nil)
	var leaks []json.RawMessage
	if err := p.Eval(context.Background(), `window.__leaks`, &leaks); err != nil {
		t.Fatal(err)
	}
	if len(leaks) > 0 {
		t.Errorf("watching the page: %d moments with faces before the call (first: %s)", len(leaks), firstOr(leaks))
	}
	noConsoleErrors(t, p)
	noConsoleErrors(t, board)
}
