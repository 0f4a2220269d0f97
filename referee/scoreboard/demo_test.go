package scoreboard_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/scoreboard"
)

// runDemo plays `liarsd demo` in-process against the stack's broker b
// until the test ends, logged in as the referee (the embedded broker keeps
// the referee's client ids for its account); it returns the demo's state
// directory (its journal).
func runDemo(t *testing.T, b *mqtt.Broker, table string, seats int, options map[string]any, seed uint64) string {
	t.Helper()
	dir := t.TempDir()
	user, password := b.Credentials()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := demo.Run(ctx, demo.Options{
			Rules: "star-board", Seats: seats, Options: options, Broker: b.URL(), Username: user, Password: password, Table: table, HTTP: "127.0.0.1:0",
			Seed: seed, Pace: 120 * time.Millisecond, StateDir: dir, Out: io.Discard, BoardMode: "off",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil && ctx.Err() == nil {
			t.Errorf("demo %s: %v", table, err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return dir
}

// TestScoreboardAgainstDemo loads the page in Chromium against a running
// demo (the same code as `liarsd demo`): seats, the bid and revealed
// results appear and update, and a finished game's record downloads.
func TestScoreboardAgainstDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a demo game")
	}
	dir := t.TempDir()
	st := startStack(t, "demo", scoreboard.JournalFile(filepath.Join(dir, "demo.journal")))
	p := open(t, st.web.URL+"/")
	// The page is up before the table: it waits for it.
	var conn string
	waitFor(t, p, "the broker connection", `document.getElementById('conn').dataset.conn === 'live' ? 'live' : null`, &conn)

	// The demo is the table's referee: it logs in with the broker's
	// account for it, which alone may use the referee's client id.
	user, password := st.broker.Credentials()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- demo.Run(ctx, demo.Options{
			Rules: "star-board", Seats: 4, Options: map[string]any{"dice": 2}, Broker: st.broker.URL(), Username: user, Password: password, Table: "demo",
			Seed: 11, Pace: 120 * time.Millisecond, Games: 1, StateDir: dir, Out: io.Discard, BoardMode: "off",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("demo: %v", err)
		}
	})

	var seats []seatView
	waitFor(t, p, "the demo's seats", seatsJS, &seats)
	var names []string
	for _, s := range seats {
		names = append(names, s.Name)
		if s.Dice != 2 || s.Drawn != 2 {
			t.Errorf("seat %s at the start: got %d dice, %d drawn; want 2, 2", s.Name, s.Dice, s.Drawn)
		}
	}
	if strings.Join(names, ",") != "ann,bob,cy,dee" {
		t.Errorf("seats: got %v; want ann, bob, cy, dee", names)
	}
	waitFor(t, p, "a bid", `document.getElementById('bid').dataset.quantity || null`, nil)
	var first string
	waitFor(t, p, "a revealed result", `(() => { const r = document.getElementById('result'); return r.querySelector('.reveal svg.die') ? r.dataset.seq : null })()`, &first)
	waitFor(t, p, "a seat losing dice", `(() => [...document.querySelectorAll('#seats .seat')].some(e => +e.dataset.dice < 2))()`, nil)
	// Hidden dice stay hidden: before a reveal, no seat shows a face it
	// has not set out (star-board's shown dice are drawn with .shown).
	var leaked int
	if err := p.Eval(context.Background(), `document.querySelectorAll('#seats svg.die:not(.hidden):not(.shown)').length`, &leaked); err != nil || leaked != 0 {
		t.Errorf("faces drawn on seats: got %d (%v); want 0", leaked, err)
	}
	waitFor(t, p, "a later result", `(() => { const r = document.getElementById('result'); return r.dataset.seq && r.dataset.seq !== '`+first+`' && !!r.querySelector('.reveal svg.die') })()`, nil)
	waitFor(t, p, "a bid after a result", `document.getElementById('bid').dataset.quantity || null`, nil)
	saveScreenshot(t, p, "table-demo.png")
	noConsoleErrors(t, p)

	// Game over: its record is offered; the page's link downloads it and
	// it replays to the same winner.
	var link struct {
		Href string `json:"href"`
		Text string `json:"text"`
	}
	ctxWait, cancelWait := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancelWait()
	if err := p.WaitFor(ctxWait, `(() => { const a = document.querySelector('#records a'); return a ? {href: a.href, text: a.textContent} : null })()`, &link); err != nil {
		t.Fatalf("a finished game's record: %v", err)
	}
	var rec string
	if err := p.Eval(context.Background(), `fetch(`+jsString(link.Href)+`).then(r => r.text())`, &rec); err != nil {
		t.Fatal(err)
	}
	games := scoreboard.Games(scoreboard.SplitLines([]byte(rec)))
	if len(games) != 1 || !games[0].Finished || !strings.Contains(link.Text, games[0].Winner+" won") {
		t.Errorf("downloaded record (%s): got %d games, link %q; want one finished game whose winner the link names", link.Href, len(games), link.Text)
	}

	// The demo stops after its game. A page opened now learns the game
	// from the journal: its history, the last result with its dice, the
	// winner; and that the table is offline.
	if err := <-done; err != nil {
		t.Errorf("demo: %v", err)
	}
	done <- nil
	if err := p.Eval(context.Background(), `location.reload()`, nil); err != nil {
		t.Fatal(err)
	}
	var after struct {
		Items   []string `json:"items"`
		Dice    int      `json:"dice"`
		Winner  string   `json:"winner"`
		Offline bool     `json:"offline"`
	}
	waitFor(t, p, "the game from the journal", `(() => { const items = [...document.querySelectorAll('#history li')].map(e => e.dataset.type);
	  const w = document.getElementById('winner'), r = document.getElementById('result');
	  if (!items.includes('game_over') || w.hidden || document.getElementById('offline').hidden) return null;
	  return {items, dice: r.querySelectorAll('.reveal svg.die').length, winner: w.textContent, offline: true} })()`, &after)
	joined := " " + strings.Join(after.Items, " ") + " "
	for _, typ := range []string{" hand_started ", " bid ", " challenge ", " revealed ", " resolved ", " game_over "} {
		if !strings.Contains(joined, typ) {
			t.Errorf("history from the journal: got %v; want a%s", after.Items, typ)
		}
	}
	if after.Dice == 0 || !strings.Contains(after.Winner, games[0].Winner) {
		t.Errorf("after a reload: got %d revealed dice drawn, banner %q; want the last reveal's dice and %s as winner", after.Dice, after.Winner, games[0].Winner)
	}
}

// TestVenueTwoDemoTables: the dashboard shows every table on one broker.
func TestVenueTwoDemoTables(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two demo games")
	}
	st := startStack(t, "hall-1", nil)
	runDemo(t, st.broker, "hall-1", 3, map[string]any{"dice": 3}, 21)
	runDemo(t, st.broker, "hall-2", 4, map[string]any{"dice": 2}, 22)
	p := open(t, st.web.URL+"/venue")
	var tables []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Seats  int    `json:"seats"`
	}
	waitFor(t, p, "two tables", `(() => { const t = [...document.querySelectorAll('.venue-table')].map(e => ({
	  id: e.dataset.table, status: (e.querySelector('.vt-status') || {}).textContent, seats: e.querySelectorAll('.vt-seat').length}));
	  return t.length === 2 && t.every(x => x.seats > 0 && x.status === 'online') ? t : null })()`, &tables)
	if tables[0].ID != "hall-1" || tables[0].Seats != 3 || tables[1].ID != "hall-2" || tables[1].Seats != 4 {
		t.Errorf("tables: got %+v; want hall-1 with 3 seats, hall-2 with 4", tables)
	}
	waitFor(t, p, "bids on both tables", `document.querySelectorAll('.vt-bid[data-quantity]').length === 2`, nil)
	saveScreenshot(t, p, "venue-demo.png")
	noConsoleErrors(t, p)
	// A card links to its table's page.
	var href string
	if err := p.Eval(context.Background(), `document.querySelector('.venue-table[data-table="hall-2"]').getAttribute('href')`, &href); err != nil || href != "./?table=hall-2" {
		t.Errorf("hall-2's link: got %q (%v); want ./?table=hall-2", href, err)
	}
	// Spectators see the tables, not the broker's plumbing.
	var header string
	if err := p.Eval(context.Background(), `document.querySelector('header').innerText`, &header); err != nil || strings.Contains(header, "/+/") || strings.Contains(header, "topic") {
		t.Errorf("the venue page's header: got %q (%v); want no broker topics", header, err)
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
