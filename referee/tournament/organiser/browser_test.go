package organiser_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/scoreboard/browsertest"
	"github.com/liarsd/liarsd/referee/tournament"
	"github.com/liarsd/liarsd/referee/tournament/link"
	"github.com/liarsd/liarsd/referee/tournament/organiser"
	"github.com/liarsd/liarsd/referee/tournament/service"
)

var update = flag.Bool("update", false, "write the screenshots for the docs into testdata/venue")

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	browsertest.StopShared()
	os.Exit(code)
}

// tables is the broker side for the page's tests: the tables' messages
// the test feeds the service, the commands it sends them.
type tables struct {
	msgs chan link.Message
	mu   sync.Mutex
	sent map[string][]byte
}

func (f *tables) Messages() <-chan link.Message { return f.msgs }
func (f *tables) Connected() <-chan struct{}    { return nil }
func (f *tables) Send(table string, line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent[table] = line
}
func (f *tables) Publish(string, []byte) {}

// play feeds the events of a game at table in which the seats go out last
// first (the first seat wins), up to outs of them (all but one: a game
// over).
func (f *tables) play(table string, seats []string, outs int) {
	seq := 0
	ev := func(s string) {
		seq++
		f.msgs <- link.Message{Kind: link.Events, Table: table, Payload: []byte(strings.Replace(s, "SEQ", fmt.Sprint(seq), 1)), Ack: func() {}}
	}
	dice := map[string]int{}
	for _, s := range seats {
		dice[s] = 5
	}
	d, _ := json.Marshal(dice)
	ev(`{"type":"hand_started","seq":SEQ,"game":1,"hand":1,"dice":` + string(d) + `}`)
	for k := 0; k < outs; k++ {
		s := seats[len(seats)-1-k]
		ev(`{"type":"resolved","seq":SEQ,"call":"challenge","dice":{"` + s + `":-5},"out":["` + s + `"]}`)
		left := map[string]int{}
		for _, x := range seats[:len(seats)-1-k] {
			left[x] = 4
		}
		d, _ := json.Marshal(left)
		ev(fmt.Sprintf(`{"type":"hand_started","seq":SEQ,"game":1,"hand":%d,"dice":%s}`, 2+k, d))
	}
	if outs == len(seats)-1 {
		ev(`{"type":"game_over","seq":SEQ,"game":1,"winner":"` + seats[0] + `"}`)
	}
}

func startOrganiser(t *testing.T, login bool) (*httptest.Server, *service.Service, *tables) {
	t.Helper()
	f := &tables{msgs: make(chan link.Message, 10000), sent: map[string][]byte{}}
	s, err := service.New(service.Config{Name: "spring", Journal: filepath.Join(t.TempDir(), "spring.tournament"), NoSync: true, Link: f,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublishEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	web := httptest.NewServer(organiser.Handler(organiser.Options{Tournament: s, Name: "spring", Login: login, Users: map[string]string{"ops": "s3cret"}}))
	t.Cleanup(web.Close)
	return web, s, f
}

func open(t *testing.T, url string, w, h int) *browsertest.Page {
	t.Helper()
	b := browsertest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := b.Open(ctx, url, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Resize(ctx, w, h, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("browser console:\n%s", strings.Join(p.Console(), "\n"))
		}
		p.Close()
	})
	return p
}

func wait(t *testing.T, p *browsertest.Page, what, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if err := p.WaitFor(ctx, expr, out); err != nil {
		sctx, c2 := context.WithTimeout(context.Background(), 5*time.Second)
		defer c2()
		if png, serr := p.Screenshot(sctx); serr == nil {
			_ = os.WriteFile(filepath.Join(os.TempDir(), "organiser-failed.png"), png, 0o644)
		}
		t.Fatalf("%s: %v\nconsole:\n%s", what, err, strings.Join(p.Console(), "\n"))
	}
}

func eval(t *testing.T, p *browsertest.Page, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Eval(ctx, expr, nil); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
}

// tap presses and releases the mouse on the element's middle, as a finger.
func tap(t *testing.T, p *browsertest.Page, selector string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sel, _ := json.Marshal(selector)
	var at struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e || e.disabled) return null; e.scrollIntoView({block: 'center'});
	  const r = e.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2} })()`, sel)
	if err := p.WaitFor(ctx, expr, &at); err != nil {
		t.Fatalf("tap %s: %v", selector, err)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := p.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil); err != nil {
			t.Fatalf("tap %s: %v", selector, err)
		}
	}
}

// typeInto types text into the input that selector finds, as a
// keyboard does (the page sees input events).
func typeInto(t *testing.T, p *browsertest.Page, selector, text string) {
	t.Helper()
	tap(t, p, selector)
	eval(t, p, `(() => { const e = document.querySelector(`+jsString(selector)+`); e.focus(); e.select(); })()`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Call(ctx, "Input.insertText", map[string]any{"text": text}, nil); err != nil {
		t.Fatalf("typing into %s: %v", selector, err)
	}
}

// flash waits for the page's message after an action and returns it.
func flash(t *testing.T, p *browsertest.Page, holding string) string {
	t.Helper()
	var msg string
	wait(t, p, "the message "+holding, `(() => { const f = document.getElementById('flash'); return !f.hidden && f.textContent.includes(`+jsString(holding)+`) ? f.className + ': ' + f.textContent : null })()`, &msg)
	return msg
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

func saveScreenshot(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	png, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if *update {
		dir = filepath.Join("..", "..", "..", "testdata", "venue")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// TestOrganiserRunsATournamentFromAPhone: on a phone's screen the
// organiser sets a tournament of 200 tables up, registers 1,000 players,
// starts the round, sees the tables play and finish and what needs them,
// and overrides a result with a reason; refusals are said in words.
func TestOrganiserRunsATournamentFromAPhone(t *testing.T) {
	web, s, f := startOrganiser(t, false)
	p := open(t, web.URL+"/", 390, 844)
	wait(t, p, "the page", `document.getElementById('main').hidden ? null : 1`, nil)
	tap(t, p, `nav.tabs button[data-tab="setup"]`)
	eval(t, p, `(() => { const f = document.getElementById('setup').elements; f.title.value = 'Spring open'; f.tables.value = 't001-t200';
	  f.time_limit.value = '45m'; f.seats.value = '5'; f.rounds.value = '3'; })()`)
	tap(t, p, `#setup button[type="submit"]`)
	if msg := flash(t, p, "setup"); !strings.HasPrefix(msg, "good") {
		t.Fatalf("setup: %s", msg)
	}
	var names []string
	for i := 1; i <= 1000; i++ {
		names = append(names, fmt.Sprintf("Player %04d, strong", i))
	}
	tap(t, p, `nav.tabs button[data-tab="players"]`)
	eval(t, p, `document.getElementById('register').elements.players.value = `+jsString(strings.Join(names, "\n")))
	tap(t, p, `#register button[type="submit"]`)
	if msg := flash(t, p, "registered"); !strings.Contains(msg, "1000 registered") {
		t.Fatalf("register: %s", msg)
	}
	// The same name again: said in words, nothing changes.
	eval(t, p, `document.getElementById('register').elements.players.value = 'Player 0007'`)
	tap(t, p, `#register button[type="submit"]`)
	if msg := flash(t, p, "duplicate_player"); !strings.Contains(msg, "Player 0007 is registered already") || !strings.HasPrefix(msg, "bad") {
		t.Errorf("a player registered twice: %s", msg)
	}
	tap(t, p, `nav.tabs button[data-tab="round"]`)
	tap(t, p, `#start-round`)
	if msg := flash(t, p, "round 1 started"); !strings.Contains(msg, "200 tables") {
		t.Fatalf("start: %s", msg)
	}
	// The tables play: a third finish, one refuses its game.
	var v tournament.View
	_ = json.Unmarshal(s.Snapshot().View, &v)
	for i, g := range v.Round.Games {
		if g.Table != "t013" {
			f.play(g.Table, g.Seats, min(len(g.Seats)-1, i%6))
		}
	}
	f.msgs <- link.Message{Kind: link.Reply, Table: "t013", Ack: func() {},
		Payload: []byte(`{"id":"tournament:spring:r1:t013:a1","ok":false,"reason":"unknown_rules","message":"no preset \"common-hand\""}`)}
	wait(t, p, "the problem shown", `(() => { const l = document.getElementById('problem-list'); return l && l.textContent.includes('t013 refused') ? 1 : null })()`, nil)
	// The organiser opens t002 and overrides its result.
	g2 := v.Round.Games[1]
	tap(t, p, `li.game[data-table="t002"] .game-head`)
	order := append([]string{g2.Seats[2]}, append(append([]string{}, g2.Seats[:2]...), g2.Seats[3:]...)...)
	typeInto(t, p, `li.game[data-table="t002"] .details input[name="order"]`, strings.Join(order, ", "))
	typeInto(t, p, `li.game[data-table="t002"] .details input[name="reason"]`, "camera covered; the table agreed")
	tap(t, p, `li.game[data-table="t002"] .details button[type="submit"]`)
	if msg := flash(t, p, "override"); !strings.HasPrefix(msg, "good") {
		t.Fatalf("override: %s", msg)
	}
	// The list (tables without a result) is drawn again without t002; a
	// tap before that lands where t003's head was (a finger would too).
	wait(t, p, "t002 gone from the open tables", `document.querySelector('li.game[data-table="t002"]') ? null : 1`, nil)
	// An override without every player is refused in words.
	tap(t, p, `li.game[data-table="t003"] .game-head`)
	typeInto(t, p, `li.game[data-table="t003"] .details input[name="order"]`, v.Round.Games[2].Seats[0])
	typeInto(t, p, `li.game[data-table="t003"] .details input[name="reason"]`, "x")
	tap(t, p, `li.game[data-table="t003"] .details button[type="submit"]`)
	if msg := flash(t, p, "bad_order"); !strings.Contains(msg, "the order names every player of the game, best first") {
		t.Errorf("a bad override: %s", msg)
	}
	eval(t, p, `window.scrollTo(0, 0)`)
	done := 1 // t002's override
	for i := range v.Round.Games {
		if i%6 >= 4 {
			done++
		}
	}
	wait(t, p, "the round's progress", fmt.Sprintf(`(() => { const m = document.getElementById('round-meta').textContent; return m.includes('%d of 200') ? m : null })()`, done), nil)
	saveScreenshot(t, p, "organiser-phone.png")
	var wide int
	if err := p.Eval(context.Background(), `[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391).length`, &wide); err != nil || wide != 0 {
		t.Errorf("got %d elements wider than the phone (%v); want none", wide, err)
	}
	for _, line := range p.Console() {
		if strings.Contains(line, "exception") || strings.Contains(line, "error") || strings.Contains(line, "Content Security Policy") {
			t.Errorf("browser console: %s", line)
		}
	}
}

// TestOrganiserLogsIn: beyond loopback the page asks for an operator's
// account and then works with it.
func TestOrganiserLogsIn(t *testing.T) {
	web, _, _ := startOrganiser(t, true)
	p := open(t, web.URL+"/", 390, 844)
	wait(t, p, "the login form", `document.getElementById('login').hidden ? null : 1`, nil)
	eval(t, p, `(() => { const f = document.getElementById('login').elements; f.user.value = 'ops'; f.password.value = 'wrong'; })()`)
	tap(t, p, `#login button[type="submit"]`)
	flash(t, p, "log in with an operator")
	eval(t, p, `document.getElementById('login').elements.password.value = 's3cret'`)
	tap(t, p, `#login button[type="submit"]`)
	wait(t, p, "the page after the login", `document.getElementById('main').hidden ? null : document.getElementById('status').textContent`, nil)
}
