package scoreboard_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/scoreboard"
	"github.com/liarsd/liarsd/referee/scoreboard/browsertest"
)

var update = flag.Bool("update", false, "write the screenshots for the docs into testdata/scoreboard")

// saveScreenshot keeps a screenshot: in testdata/scoreboard with -update
// (the docs show them), else in the test's temporary directory.
func saveScreenshot(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	png, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := t.TempDir()
	if *update {
		dir = filepath.Join("..", "..", "testdata", "scoreboard")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// stack is a broker with a WebSocket listener and the scoreboard served
// over HTTP, as the daemon runs them.
type stack struct {
	broker    *mqtt.Broker
	web       *httptest.Server
	closeOnce sync.Once
}

// closeBroker stops the broker (once: mochi's Close must not run twice).
func (s *stack) closeBroker() { s.closeOnce.Do(func() { s.broker.Close() }) }

func startStack(t *testing.T, table string, journal scoreboard.Journal) *stack {
	t.Helper()
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", WebSocket: "127.0.0.1:0", Table: table})
	if err != nil {
		t.Fatal(err)
	}
	st := &stack{broker: b}
	t.Cleanup(st.closeBroker)
	web := httptest.NewServer(scoreboard.Handler(scoreboard.Options{
		Table: table, WebSocket: strings.TrimPrefix(b.WebSocketURL(), "ws://"), Journal: journal,
	}))
	t.Cleanup(web.Close)
	st.web = web
	return st
}

// fakeReferee plays record lines through the real engine and publishes
// what the referee would: each event, then the retained state.
type fakeReferee struct {
	t      *testing.T
	cli    paho.Client
	table  *engine.Table
	topics mqtt.Topics
}

func newFakeReferee(t *testing.T, url, table string) *fakeReferee {
	t.Helper()
	topics := mqtt.TopicsFor("", table)
	cli := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("fake-referee-"+table).
		SetBinaryWill(topics.Status, []byte("offline"), 1, true))
	if tok := cli.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { cli.Disconnect(100) })
	f := &fakeReferee{t: t, cli: cli, table: engine.NewTable(), topics: topics}
	f.publish(topics.Status, []byte("online"), true)
	return f
}

func (f *fakeReferee) publish(topic string, payload []byte, retained bool) {
	f.t.Helper()
	if tok := f.cli.Publish(topic, 1, retained, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		f.t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

func (f *fakeReferee) play(lines ...string) {
	f.t.Helper()
	for _, l := range lines {
		evs, err := record.Apply(f.table, []byte(l))
		if err != nil {
			f.t.Fatalf("%s: %v", l, err)
		}
		for _, e := range evs {
			b, _ := json.Marshal(e)
			f.publish(f.topics.Events, b, false)
		}
		b, _ := json.Marshal(f.table.Snapshot())
		f.publish(f.topics.State, b, true)
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	browsertest.StopShared()
	os.Exit(code)
}

func open(t *testing.T, url string) *browsertest.Page { t.Helper(); return openWith(t, url, "") }

// openWith opens url in a new tab after adding script, which then runs
// in every document of the tab before the page's own scripts.
func openWith(t *testing.T, url, script string) *browsertest.Page {
	t.Helper()
	b := browsertest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	first := url
	if script != "" {
		first = "about:blank"
	}
	p, err := b.Open(ctx, first, 1600, 1000)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.Log())
	}
	if script != "" {
		err := p.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": script}, nil)
		if err == nil {
			err = p.Call(ctx, "Page.navigate", map[string]any{"url": url}, nil)
		}
		if err != nil {
			p.Close()
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("browser console:\n%s", strings.Join(p.Console(), "\n"))
		}
		p.Close()
	})
	return p
}

// noConsoleErrors fails the test on an exception, an error or a refused
// resource (a security policy violation, a missing file) in the page.
func noConsoleErrors(t *testing.T, p *browsertest.Page) {
	t.Helper()
	for _, line := range p.Console() {
		if strings.Contains(line, "exception") || strings.Contains(line, "error") || strings.Contains(line, "Content Security Policy") {
			t.Errorf("browser console: %s", line)
		}
	}
}

func waitFor(t *testing.T, p *browsertest.Page, what, expr string, out any) {
	t.Helper()
	// Generous: under `make test` other packages' tests share the cores.
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if err := p.WaitFor(ctx, expr, out); err != nil {
		t.Fatalf("%s: %v\nconsole:\n%s", what, err, strings.Join(p.Console(), "\n"))
	}
}

// seatsJS reads the seats as the page draws them: name, dice count and
// dice drawn, whether it is the seat's turn.
const seatsJS = `(() => { const s = [...document.querySelectorAll('#seats .seat')].map(e => ({
  name: e.dataset.seat, dice: +e.dataset.dice, drawn: e.querySelectorAll('svg.die').length,
  hidden: e.querySelectorAll('svg.die.hidden').length, turn: e.dataset.turn === '1'}));
  return s.length ? s : null })()`

type seatView struct {
	Name   string `json:"name"`
	Dice   int    `json:"dice"`
	Drawn  int    `json:"drawn"`
	Hidden int    `json:"hidden"`
	Turn   bool   `json:"turn"`
}

func TestScoreboardFollowsTable(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	ref.play(
		`{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","seed":3,"options":{"dice":3}}`,
		`{"type":"bid","seat":"ann","quantity":2,"face":4}`,
	)
	p := open(t, st.web.URL+"/")

	var seats []seatView
	waitFor(t, p, "seats", seatsJS, &seats)
	want := []seatView{{"ann", 3, 3, 3, false}, {"bob", 3, 3, 3, true}, {"cy", 3, 3, 3, false}}
	if fmt.Sprint(seats) != fmt.Sprint(want) {
		t.Errorf("seats: got %v; want %v", seats, want)
	}
	var bid string
	waitFor(t, p, "the bid", `(() => { const b = document.getElementById('bid'); return b.dataset.quantity ? b.dataset.quantity + 'x' + b.dataset.face : null })()`, &bid)
	if bid != "2x4" {
		t.Errorf("bid: got %s; want 2x4", bid)
	}
	// 9 dice hidden, p = 2/6 (a 4 or a star): P(X >= 2).
	var chance string
	waitFor(t, p, "the chance", `document.getElementById('chance').dataset.chance || null`, &chance)
	if want := 1 - binom(9, 0, 1.0/3) - binom(9, 1, 1.0/3); !near(chance, want) {
		t.Errorf("chance of two 4s among 9 hidden star dice: got %s; want %.6f", chance, want)
	}

	// bob raises and shows two 4s: they are drawn face up and count.
	ref.play(`{"type":"bid","seat":"bob","quantity":4,"face":4}`, `{"type":"show","seat":"bob","shown":[4,1]}`)
	waitFor(t, p, "bob's shown dice", `(() => { const e = document.querySelector('.seat[data-seat="bob"]');
	  return e && e.querySelectorAll('svg.die.shown').length === 2 && document.getElementById('bid').dataset.quantity === '4' })()`, nil)
	waitFor(t, p, "the new chance", `(() => { const c = document.getElementById('chance').dataset.chance; return c && c !== '`+chance+`' ? c : null })()`, &chance)
	// 7 hidden dice, 2 known: P(X >= 2) again.
	if want := 1 - binom(7, 0, 1.0/3) - binom(7, 1, 1.0/3); !near(chance, want) {
		t.Errorf("chance with two shown: got %s; want %.6f", chance, want)
	}

	// cy calls; the reveal shows 3 of them: bob loses 1 die.
	ref.play(`{"type":"challenge","seat":"cy"}`)
	// The camera is unsure: the referee says so in its state and on the
	// vision topic, and the page shows it.
	snap, _ := json.Marshal(struct {
		engine.Snapshot
		Status string `json:"status"`
	}{ref.table.Snapshot(), "needs a look"})
	ref.publish(ref.topics.State, snap, true)
	ref.publish(ref.topics.Vision, []byte(`{"type":"needs_a_look","game":1,"hand":1,"attempt":1,"message":"2 dice in doubt",`+
		`"seats":[{"seat":"ann","expected":3,"seen":3},{"seat":"bob","expected":3,"seen":3},{"seat":"cy","expected":3,"seen":3}],`+
		`"dice":[{"seat":"ann","x":10,"y":20,"confidence":0.41,"reason":"uncertain"},{"seat":"cy","x":300,"y":20,"confidence":0.38,"reason":"uncertain"}],"retry_ms":2000}`), false)
	waitFor(t, p, "the camera's doubt", `(() => { const l = document.getElementById('look'); return !l.hidden && l.textContent.includes('2 dice in doubt (ann, cy)') })()`, nil)
	ref.play(`{"type":"reveal","dice":{"ann":[2,3,5],"bob":[4,1,6],"cy":[4,2,2]}}`)
	var result struct {
		Count int    `json:"count"`
		Dice  int    `json:"dice"`
		Hits  int    `json:"hits"`
		Text  string `json:"text"`
		P     string `json:"p"`
	}
	waitFor(t, p, "the result", `(() => { const r = document.getElementById('result'); if (!r.dataset.count) return null;
	  return {count: +r.dataset.count, dice: r.querySelectorAll('.reveal svg.die').length, hits: r.querySelectorAll('.reveal svg.die.hit').length,
	    text: r.querySelector('.result-head').textContent, p: r.querySelector('.result-chance').dataset.chance} })()`, &result)
	if result.Count != 3 || result.Dice != 9 || result.Hits != 3 || !strings.Contains(result.Text, "cy challenged bob") {
		t.Errorf("result: got %+v; want count 3, 9 dice drawn, 3 counted, cy challenged bob", result)
	}
	// Expected 2 + 7/3 = 4.33; 3 is below: P(X <= 3) = P(B(7,1/3) <= 1).
	if want := binom(7, 0, 1.0/3) + binom(7, 1, 1.0/3); !near(result.P, want) {
		t.Errorf("outcome chance: got %s; want %.6f", result.P, want)
	}
	waitFor(t, p, "the doubt gone", `document.getElementById('look').hidden`, nil)
	waitFor(t, p, "bob down to 2 dice", `(() => { const e = document.querySelector('.seat[data-seat="bob"]'); return e && e.dataset.dice === '2' })()`, nil)
	var history []string
	waitFor(t, p, "the history", `(() => { const h = [...document.querySelectorAll('#history li')].map(e => e.dataset.type); return h.length >= 6 ? h : null })()`, &history)
	for _, typ := range []string{"hand_started", "bid", "show", "challenge", "revealed", "resolved"} {
		if !strings.Contains(strings.Join(history, " "), typ) {
			t.Errorf("history: got %v; want a %s", history, typ)
		}
	}
	saveScreenshot(t, p, "table-synthetic.png")
	noConsoleErrors(t, p)

	// A phone: one column, nothing wider than the screen.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Resize(ctx, 390, 844, true); err != nil {
		t.Fatal(err)
	}
	var overflow int
	waitFor(t, p, "the phone layout", `(() => { const m = getComputedStyle(document.querySelector('main')).gridTemplateColumns.split(' ').length;
	  return m === 1 ? document.documentElement.scrollWidth - window.innerWidth + 1 : null })()`, &overflow)
	if overflow-1 > 0 {
		t.Errorf("on a phone the page is %d pixels wider than the screen", overflow-1)
	}
	saveScreenshot(t, p, "table-phone.png")
	if err := p.Resize(ctx, 1600, 1000, false); err != nil {
		t.Fatal(err)
	}

	// The referee goes away: its last will says offline and the page
	// says so.
	ref.publish(ref.topics.Status, []byte("offline"), true)
	waitFor(t, p, "the offline banner", `!document.getElementById('offline').hidden`, nil)
	var conn string
	waitFor(t, p, "the connection", `document.getElementById('conn').dataset.conn`, &conn)
	if conn != "live" {
		t.Errorf("connection: got %s; want live (the broker is up, the table is not)", conn)
	}
}

func binom(n, k int, p float64) float64 {
	c := 1.0
	for i := 0; i < k; i++ {
		c = c * float64(n-i) / float64(i+1)
	}
	return c * math.Pow(p, float64(k)) * math.Pow(1-p, float64(n-k))
}

func near(got string, want float64) bool {
	var g float64
	if _, err := fmt.Sscan(got, &g); err != nil {
		return false
	}
	return math.Abs(g-want) < 1e-5
}

// oddsCase is one spectator's view: hidden dice, shown dice, and a bid.
type oddsCase struct {
	Sides   int   `json:"sides"`
	StarDie bool  `json:"star_die"`
	Wild    bool  `json:"wild"`
	Hidden  int   `json:"hidden"`
	Shown   []int `json:"shown"`
	Q       int   `json:"q"`
	Face    int   `json:"face"`
	Count   int   `json:"count"` // a revealed count, for the outcome
}

// enumerate returns, by exact enumeration of every roll of the hidden
// dice, P(count >= q), P(count == q), and the outcome's chance: P(count >=
// c) when c is at or above the mean count, else P(count <= c).
func enumerate(c oddsCase) (atLeast, exactly, outcome float64) {
	sides := c.Sides
	if c.StarDie {
		sides = 6
	}
	wild := c.StarDie || c.Wild
	counts := func(d int) bool { return d == c.Face || (wild && c.Face != 1 && d == 1) }
	known := 0
	for _, d := range c.Shown {
		if counts(d) {
			known++
		}
	}
	total := int(math.Pow(float64(sides), float64(c.Hidden)))
	dist := make([]int, c.Hidden+len(c.Shown)+1)
	roll := make([]int, c.Hidden)
	for i := 0; i < total; i++ {
		x, n := i, known
		for j := range roll {
			roll[j] = x%sides + 1
			x /= sides
			if counts(roll[j]) {
				n++
			}
		}
		dist[n]++
	}
	mean := 0.0
	for n, k := range dist {
		mean += float64(n*k) / float64(total)
	}
	var ge, eq, geC, leC int
	for n, k := range dist {
		if n >= c.Q {
			ge += k
		}
		if n == c.Q {
			eq += k
		}
		if n >= c.Count {
			geC += k
		}
		if n <= c.Count {
			leC += k
		}
	}
	outcome = float64(leC) / float64(total)
	if float64(c.Count) >= mean {
		outcome = float64(geC) / float64(total)
	}
	return float64(ge) / float64(total), float64(eq) / float64(total), outcome
}

// TestOddsAgainstEnumeration checks the page's odds (odds.js, run in the
// browser) against exact enumeration of every roll on small tables.
func TestOddsAgainstEnumeration(t *testing.T) {
	st := startStack(t, "odds", nil)
	p := open(t, st.web.URL+"/")
	waitFor(t, p, "odds.js", `typeof LiarsOdds === 'object'`, nil)

	var cases []oddsCase
	for _, rules := range []oddsCase{{Sides: 6}, {Sides: 6, Wild: true}, {Sides: 8, Wild: true}, {Sides: 4}, {StarDie: true}, {StarDie: true, Shown: []int{1, 4}}, {StarDie: true, Shown: []int{2}}} {
		for hidden := 0; hidden <= 4; hidden++ {
			sides := rules.Sides
			if rules.StarDie {
				sides = 6
			}
			for _, face := range []int{1, 2, sides} {
				for q := 1; q <= hidden+len(rules.Shown)+1; q++ {
					c := rules
					c.Hidden, c.Face, c.Q, c.Count = hidden, face, q, q-1
					cases = append(cases, c)
				}
			}
		}
	}
	in, _ := json.Marshal(cases)
	var got []struct {
		Chance  float64 `json:"chance"`
		Exactly float64 `json:"exactly"`
		Outcome float64 `json:"outcome"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := p.Eval(ctx, `(`+string(in)+`).map(c => {
	  const rules = {sides: c.sides, star_die: c.star_die, wild: c.wild};
	  const state = Object.assign({bid: {seat: 'a', quantity: c.q, face: c.face},
	    seats: [{name: 'a', dice: c.hidden + (c.shown || []).length, in_hand: true, shown: c.shown || []}]}, rules);
	  const b = LiarsOdds.bidChance(state);
	  const dice = {a: new Array(c.hidden + (c.shown || []).length).fill(2)};
	  const o = LiarsOdds.outcomeChance({quantity: c.q, face: c.face}, c.count, dice, {a: c.shown || []}, rules);
	  return {chance: b.chance, exactly: b.exactly, outcome: o.chance};
	})`, &got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cases) {
		t.Fatalf("got %d answers; want %d", len(got), len(cases))
	}
	for i, c := range cases {
		ge, eq, out := enumerate(c)
		if math.Abs(got[i].Chance-ge) > 1e-9 || math.Abs(got[i].Exactly-eq) > 1e-9 || math.Abs(got[i].Outcome-out) > 1e-9 {
			t.Errorf("%+v: got P(>=q)=%.9f P(=q)=%.9f outcome=%.9f; want %.9f %.9f %.9f",
				c, got[i].Chance, got[i].Exactly, got[i].Outcome, ge, eq, out)
		}
	}
	t.Logf("%d cases checked against enumeration", len(cases))
}

// TestScoreboardReconnects: the broker goes away and comes back on the
// same address; the page says so, reconnects by itself and shows the
// table again.
func TestScoreboardReconnects(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":3}`)
	p := open(t, st.web.URL+"/")
	waitFor(t, p, "three seats", `document.querySelectorAll('#seats .seat').length === 3`, nil)

	tcp, ws := strings.TrimPrefix(st.broker.URL(), "tcp://"), strings.TrimPrefix(st.broker.WebSocketURL(), "ws://")
	ref.cli.Disconnect(0)
	st.closeBroker()
	waitFor(t, p, "the connection lost", `document.getElementById('conn').dataset.conn === 'reconnecting'`, nil)

	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: tcp, WebSocket: ws, Table: "t1"})
	if err != nil {
		t.Fatalf("restarting the broker on %s and %s: %v", tcp, ws, err)
	}
	t.Cleanup(func() { b.Close() })
	ref = newFakeReferee(t, b.URL(), "t1")
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"bob","seed":4}`)
	waitFor(t, p, "live again with the new game", `document.getElementById('conn').dataset.conn === 'live' &&
	  document.querySelectorAll('#seats .seat').length === 2`, nil)
}

// wrapSubscribe, run before the page's scripts, wraps MQTT.js's client so
// that subscribe runs the given statement instead; orig(topics, opts,
// cb) subscribes.
const wrapSubscribe = `(() => { let lib;
  Object.defineProperty(window, 'mqtt', { configurable: true, get: () => lib, set: v => {
    // The bundle's exports are getters: a copy takes the wrapped connect.
    lib = { ...v, connect: function () { const c = v.connect.apply(v, arguments), sub = c.subscribe;
      const orig = (t, o, cb) => sub.call(c, t, o, cb);
      c.subscribe = function (t, o, cb) { %s; return c; }; return c; } };
  }});
})()`

// TestScoreboardLiveMeansSubscribed: the page says live only once the
// broker has granted its subscription, so an event published as soon as
// it says so is drawn (a slow subscription is made here: 1.5 s), and a
// subscription the broker refuses (an external broker's ACL) is said.
func TestScoreboardLiveMeansSubscribed(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	slow := fmt.Sprintf(wrapSubscribe, "setTimeout(() => orig(t, o, cb), 1500)")
	p := openWith(t, st.web.URL+"/", slow)
	waitFor(t, p, "the broker connection", `document.getElementById('conn').dataset.conn === 'live'`, nil)
	ref.play(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":1,"face":4}`)
	waitFor(t, p, "the bid in the history", `[...document.querySelectorAll('#history li')].some(e => e.dataset.type === 'bid')`, nil)

	refused := fmt.Sprintf(wrapSubscribe, "setTimeout(() => cb && cb(null, [].concat(t).map(x => ({topic: x, qos: 128}))), 0)")
	r := openWith(t, st.web.URL+"/", refused)
	var text string
	waitFor(t, r, "the refusal said", `(() => { const c = document.getElementById('conn'); return c.dataset.conn === 'refused' ? c.textContent : null })()`, &text)
	if !strings.Contains(text, "refused") {
		t.Errorf("connection text: got %q; want it to say the broker refused", text)
	}
	noConsoleErrors(t, p)
}

// TestScoreboardChipsAndRounds: chips and the pot where chips are played
// (tavern), rounds won where games are counted (endurance).
func TestScoreboardChipsAndRounds(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	ref.play(`{"type":"new_game","rules":"tavern","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":1,"purse":20}}`,
		`{"type":"bid","seat":"ann","quantity":1,"face":4}`)
	p := open(t, st.web.URL+"/")
	var tavern struct {
		Chips []string `json:"chips"`
		Pot   string   `json:"pot"`
	}
	waitFor(t, p, "chips and pot", `(() => { const c = [...document.querySelectorAll('#seats .chips')].map(e => e.textContent);
	  const pot = document.querySelector('#meta .pot'); return c.length === 2 && pot ? {chips: c, pot: pot.textContent} : null })()`, &tavern)
	if tavern.Chips[0] != "19 chips" || tavern.Chips[1] != "20 chips" || tavern.Pot != "pot 1" {
		t.Errorf("tavern: got %+v; want ann 19 chips (paid the stake), bob 20, pot 1", tavern)
	}
	ref.play(`{"type":"fold","seat":"bob"}`)
	waitFor(t, p, "the fold in the history", `[...document.querySelectorAll('#history li')].some(e => e.dataset.type === 'folded')`, nil)

	ref.play(`{"type":"new_game","rules":"endurance","seats":["ann","bob","cy"],"first":"ann","seed":5,"options":{"dice":1,"games":2}}`,
		`{"type":"bid","seat":"ann","quantity":1,"face":2}`, `{"type":"challenge","seat":"bob"}`,
		`{"type":"reveal","dice":{"ann":[3],"bob":[4],"cy":[5]}}`)
	var wins []string
	waitFor(t, p, "rounds won", `(() => { const w = [...document.querySelectorAll('#seats .wins')].map(e => e.textContent); return w.length === 3 ? w : null })()`, &wins)
	if strings.Join(wins, ",") != "0 won,0 won,0 won" {
		t.Errorf("endurance after one hand: got %v; want 0 won each", wins)
	}
	noConsoleErrors(t, p)
}

// TestScoreboardPerudo: a palifico hand is shown as such, the bid's chance
// counts ones as wild in a plain hand and not in a palifico one, and the
// palifico hand's result counts no ones for the bid even when the state of
// the next, plain hand reaches the page before the hand's events.
func TestScoreboardPerudo(t *testing.T) {
	st := startStack(t, "t1", nil)
	ref := newFakeReferee(t, st.broker.URL(), "t1")
	ref.play(`{"type":"new_game","rules":"perudo","seats":["ann","bob","cy"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":2,"face":3}`)
	p := open(t, st.web.URL+"/")
	chanceJS := `(() => { const b = document.getElementById('bid'); const c = document.getElementById('chance').dataset.chance;
	  return c ? b.dataset.quantity + 'x' + b.dataset.face + ' ' + c : null })()`
	var chance string
	waitFor(t, p, "the chance", chanceJS, &chance)
	// 6 hidden dice, p = 1/3 (a 3 or a wild one): P(X >= 2).
	if want := 1 - binom(6, 0, 1.0/3) - binom(6, 1, 1.0/3); !strings.HasPrefix(chance, "2x3 ") || !near(strings.TrimPrefix(chance, "2x3 "), want) {
		t.Errorf("two 3s among 6 hidden dice, ones wild: got %s; want 2x3 %.6f", chance, want)
	}
	ref.play(`{"type":"challenge","seat":"bob"}`, `{"type":"reveal","dice":{"ann":[3,4],"bob":[5,6],"cy":[2,2]}}`)
	var head string
	waitFor(t, p, "the palifico hand", `(() => { const m = document.getElementById('meta'); return m.querySelector('.palifico') ? m.textContent : null })()`, &head)
	if !strings.Contains(head, "hand 2 (palifico)") {
		t.Errorf("header %q; want it to say hand 2 (palifico)", head)
	}
	ref.play(`{"type":"bid","seat":"ann","quantity":2,"face":4}`)
	waitFor(t, p, "the palifico chance", `(() => { const c = `+chanceJS+`; return c && c.startsWith('2x4 ') ? c : null })()`, &chance)
	// 5 hidden dice, p = 1/6 (ones are not wild): P(X >= 2).
	if want := 1 - binom(5, 0, 1.0/6) - binom(5, 1, 1.0/6); !near(strings.TrimPrefix(chance, "2x4 "), want) {
		t.Errorf("two 4s among 5 hidden dice in a palifico hand: got %s; want %.6f", chance, want)
	}
	ref.play(`{"type":"challenge","seat":"bob"}`)
	// The reveal: the state of hand 3 (plain, ones wild again) first.
	evs, err := record.Apply(ref.table, []byte(`{"type":"reveal","dice":{"ann":[1],"bob":[4,5],"cy":[2,2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := json.Marshal(ref.table.Snapshot())
	ref.publish(ref.topics.State, snap, true)
	for _, e := range evs {
		b, _ := json.Marshal(e)
		ref.publish(ref.topics.Events, b, false)
	}
	var result struct {
		Count int `json:"count"`
		Hits  int `json:"hits"`
	}
	waitFor(t, p, "the palifico hand's result", `(() => { const r = document.getElementById('result'); const h = r.querySelector('.result-head');
	  if (!h || !h.textContent.includes('two 4s')) return null;
	  return {count: +r.dataset.count, hits: r.querySelectorAll('.reveal svg.die.hit').length} })()`, &result)
	if result.Count != 1 || result.Hits != 1 {
		t.Errorf("result: got %+v; want count 1 with 1 die counted (ann's one is not wild)", result)
	}
	waitFor(t, p, "the plain hand", `!document.querySelector('#meta .palifico') && document.getElementById('meta').textContent.includes('hand 3')`, nil)
	// A bid on wild ones stands on the track's ones space: one one right
	// after two of any face.
	ref.play(`{"type":"bid","seat":"bob","quantity":1,"face":5}`, `{"type":"bid","seat":"cy","quantity":1,"face":1}`)
	var lit string
	waitFor(t, p, "the ones space lit", `(() => { const l = document.querySelector('#track .space.lit');
	  const spaces = [...document.querySelectorAll('#track .space')].map(e => e.classList.contains('ones') ? 'o' : 'n').join('');
	  return l && l.classList.contains('ones') ? spaces + ' ' + [...document.querySelectorAll('#track .space')].indexOf(l) : null })()`, &lit)
	if lit != "nnonno 2" {
		t.Errorf("track: got %q; want number 1, 2, ones 1 (lit), number 3, 4, ones 2", lit)
	}
	noConsoleErrors(t, p)
}
