package scoreboard_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/tournament"
)

// hall is a tournament of 1,000 players at 200 tables in its first round,
// as the tournament service holds it: some tables finished (one by the
// organiser's override, one by its time limit), the others playing.
func hall(t *testing.T) *tournament.Tournament {
	t.Helper()
	tr := tournament.New("spring")
	at := time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC)
	do := func(in tournament.Input) {
		t.Helper()
		in, err := tr.Prepare(in, at, func() int64 { return 2026 })
		if err == nil {
			_, err = tr.Apply(in)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var tables []string
	for i := 1; i <= 200; i++ {
		tables = append(tables, fmt.Sprintf("t%03d", i))
	}
	do(tournament.Input{Type: tournament.InSetup, Setup: &tournament.Setup{Title: "Spring open", Format: tournament.Swiss, Rules: "common-hand",
		Seats: 5, Rounds: 3, Tables: tables, TimeLimit: tournament.Duration(45 * time.Minute)}})
	first := []string{"Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou", "Max", "Ned", "Oli", "Pam", "Quin", "Rae", "Sol", "Tam"}
	last := []string{"Moss", "Reyes", "Okafor", "Lindqvist", "Tanaka", "Dubois", "Kowalski", "Haddad", "Nguyen", "Silva",
		"Brennan", "Costa", "Ferreira", "Ivanova", "Jensen", "Kaur", "Mensah", "Novak", "Ortiz", "Petrov",
		"Quinn", "Rossi", "Schmidt", "Torres", "Varga", "Weber", "Yilmaz", "Zhang", "Abe", "Berg",
		"Cruz", "Diaz", "Ekström", "Falk", "Gray", "Holm", "Ito", "Jovic", "Kim", "Lund",
		"Mora", "Nash", "Otto", "Park", "Roth", "Sato", "Toth", "Ueda", "Voss", "Wolf"}
	var players []tournament.Player
	for i := 0; i < 1000; i++ {
		players = append(players, tournament.Player{Name: first[i%len(first)] + " " + last[(i/len(first))%len(last)], Computer: "strong"})
	}
	do(tournament.Input{Type: tournament.InRegister, Players: players})
	do(tournament.Input{Type: tournament.InStartRound})
	var evs []tournament.TableEvent
	for i, g := range tr.Games(1) {
		seq := 0
		next := func(e tournament.TableEvent) tournament.TableEvent {
			seq++
			e.Table, e.Seq = g.Table, seq
			return e
		}
		dice := map[string]int{}
		for _, s := range g.Seats {
			dice[s] = 5
		}
		evs = append(evs, next(tournament.TableEvent{Type: "hand_started", Game: 1, Hand: 1, Dice: dice}))
		// Tables further down the hall are further on: the first ones
		// still play their first hands, a third have finished.
		outs := min(len(g.Seats)-1, i%6)
		for k := 0; k < outs; k++ {
			s := g.Seats[len(g.Seats)-1-k]
			evs = append(evs, next(tournament.TableEvent{Type: "resolved", Dice: map[string]int{s: -5}, Out: []string{s}}))
			left := map[string]int{}
			for _, x := range g.Seats[:len(g.Seats)-1-k] {
				left[x] = 5 - k
			}
			evs = append(evs, next(tournament.TableEvent{Type: "hand_started", Game: 1, Hand: 2 + k*4, Dice: left}))
		}
		if outs == len(g.Seats)-1 {
			evs = append(evs, next(tournament.TableEvent{Type: "game_over", Game: 1, Winner: g.Seats[0]}))
		}
	}
	do(tournament.Input{Type: tournament.InEvents, Events: evs})
	g7 := tr.Games(1)[6]
	do(tournament.Input{Type: tournament.InOverride, Round: 1, Table: g7.Table, Order: g7.Seats, Reason: "the camera was covered; the table agreed"})
	return tr
}

// publisher publishes what the tournament service and the tables would.
type publisher struct {
	t   *testing.T
	cli paho.Client
}

func newPublisher(t *testing.T, url string) *publisher {
	t.Helper()
	cli := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("tournament-publisher"))
	if tok := cli.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { cli.Disconnect(100) })
	return &publisher{t: t, cli: cli}
}

func (p *publisher) publish(topic string, payload []byte) {
	p.t.Helper()
	if tok := p.cli.Publish(topic, 1, true, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		p.t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

// tournamentState publishes the tournament's retained topics as the
// service does.
func (p *publisher) tournamentState(tr *tournament.Tournament) {
	v, _ := json.Marshal(tr.View())
	p.publish("liarsdice/tournament/"+tr.Name()+"/state", v)
	s, _ := json.Marshal(map[string]any{"name": tr.Name(), "round": tr.Round(), "tie_breaks": tournament.TieBreaks(tournament.Swiss), "standings": tr.Standings()})
	p.publish("liarsdice/tournament/"+tr.Name()+"/standings", s)
}

// table publishes a table's state: its game of seats, a bid made.
func (p *publisher) table(id string, seats []string, hand int) int {
	p.t.Helper()
	tb := engine.NewTable()
	names, _ := json.Marshal(seats)
	lines := []string{fmt.Sprintf(`{"type":"new_game","rules":"common-hand","seats":%s,"first":%q,"seed":%d}`, names, seats[1%len(seats)], hand)}
	lines = append(lines, fmt.Sprintf(`{"type":"bid","seat":%q,"quantity":%d,"face":4}`, seats[1%len(seats)], 2+hand%4))
	for _, l := range lines {
		if _, err := record.Apply(tb, []byte(l)); err != nil {
			p.t.Fatalf("%s: %v", l, err)
		}
	}
	snap := tb.Snapshot()
	snap.Hand = hand
	b, _ := json.Marshal(snap)
	p.publish("liarsdice/"+id+"/state", b)
	p.publish("liarsdice/"+id+"/status", []byte("online"))
	return snap.Seq
}

type tileView struct {
	Table string   `json:"table"`
	State string   `json:"state"`
	Lines []string `json:"lines"`
}

const tilesJS = `(() => { const t = [...document.querySelectorAll('#tables .tile')].map(e => ({
  table: e.dataset.table, state: e.querySelector('.st').textContent,
  lines: [...e.querySelectorAll('li')].map(l => l.textContent)}));
  return t.length ? t : null })()`

// TestTournamentOnATV: the tournament page shows the round, a page of the
// hall's 200 tables (each with its players, live dice from the table's
// own state, or its result) and the standings, turns its pages, and
// shares the tables between screens (?group=).
func TestTournamentOnATV(t *testing.T) {
	st := startStack(t, "t001", nil)
	tr := hall(t)
	pub := newPublisher(t, st.broker.URL())
	pub.tournamentState(tr)
	for i, g := range tr.Games(1)[:30] {
		if g.Result == nil {
			pub.table(g.Table, g.Seats, 3+i%9)
		}
	}
	p := open(t, st.web.URL+"/tournament?cycle=600")
	if err := p.Resize(t.Context(), 1920, 1080, false); err != nil {
		t.Fatal(err)
	}
	var tiles []tileView
	waitFor(t, p, "a page of tables, t001 live", `(() => { const e = document.querySelector('.tile[data-table="t001"] .st'); return e && e.textContent === 'hand 3' ? 1 : null })()`, nil)
	waitFor(t, p, "a page of tables", tilesJS, &tiles)
	if len(tiles) != 30 || tiles[0].Table != "t001" || tiles[29].Table != "t030" {
		t.Fatalf("got %d tiles (%s to %s); want t001 to t030", len(tiles), tiles[0].Table, tiles[len(tiles)-1].Table)
	}
	games := tr.Games(1)
	// t001 plays (live: hand 3, 5 dice each), t006 has finished, t007
	// was overridden.
	if want := "hand 3"; tiles[0].State != want || len(tiles[0].Lines) != 5 || !strings.HasSuffix(tiles[0].Lines[0], "5") {
		t.Errorf("t001: got %+v; want %s and 5 players with 5 dice", tiles[0], want)
	}
	if tiles[5].State != "finished" || tiles[5].Lines[0] != "1. "+games[5].Seats[0] {
		t.Errorf("t006: got %+v; want finished, %s first", tiles[5], games[5].Seats[0])
	}
	if tiles[6].State != "organiser" {
		t.Errorf("t007: got %+v; want its override said", tiles[6])
	}
	var head string
	waitFor(t, p, "the header", `(() => { const r = document.getElementById('round').textContent, g = document.getElementById('progress').textContent, pg = document.getElementById('page').textContent;
	  return g ? r + ' | ' + g + ' | ' + pg : null })()`, &head)
	done := 0
	for _, g := range games {
		if g.Result != nil {
			done++
		}
	}
	if want := fmt.Sprintf("round 1 of 3 | %d of 200 tables finished | tables t001 – t030 · 1–30 of 200", done); head != want {
		t.Errorf("header: got %q; want %q", head, want)
	}
	var leaders []string
	waitFor(t, p, "the standings", `(() => { const l = [...document.querySelectorAll('#leaders li')].map(e => e.textContent); return l.length ? l : null })()`, &leaders)
	if st := tr.Standings(); len(leaders) != 10 || !strings.Contains(leaders[0], st[0].Player) {
		t.Errorf("leaders: got %q; want 10, %s first", leaders, st[0].Player)
	}
	// A table's state changes: its tile follows.
	seq := pub.table(games[1].Table, games[1].Seats, 12)
	var drawn string
	waitFor(t, p, "t002's new hand", `(() => { const e = document.querySelector('.tile[data-table="t002"]'); return e && e.querySelector('.st').textContent === 'hand 12' ? e.dataset.seq : null })()`, &drawn)
	if drawn != fmt.Sprint(seq) {
		t.Errorf("t002: got data-seq %s; want %d", drawn, seq)
	}
	saveScreenshot(t, p, "tournament-tv.png")
	noConsoleErrors(t, p)

	// Four TVs share the hall: the second shows t051 to t100.
	q := open(t, st.web.URL+"/tournament?cycle=600&group=2/4&per=50&cols=10")
	waitFor(t, q, "the second group", tilesJS, &tiles)
	if len(tiles) != 50 || tiles[0].Table != "t051" || tiles[49].Table != "t100" {
		t.Errorf("group 2/4: got %d tiles (%s to %s); want t051 to t100", len(tiles), tiles[0].Table, tiles[len(tiles)-1].Table)
	}
	// The pages turn.
	r := open(t, st.web.URL+"/tournament?cycle=2")
	waitFor(t, r, "the second page", `(() => { const e = document.querySelector('#tables .tile'); return e && e.dataset.table === 't031' ? 'turned' : null })()`, &drawn)
	noConsoleErrors(t, r)
}

// TestTournamentPageDrawsTextOnly: names from the broker are drawn as
// text, whatever they hold.
func TestTournamentPageDrawsTextOnly(t *testing.T) {
	st := startStack(t, "t1", nil)
	pub := newPublisher(t, st.broker.URL())
	evil := `<img src=x onerror="window.pwned=1">`
	pub.publish("liarsdice/tournament/x/state", []byte(`{"name":"x","title":"`+strings.ReplaceAll(evil, `"`, `\"`)+`","format":"swiss","rounds":2,"status":"round 1","finished":false,"problems":[],
	  "round":{"number":1,"started":"2026-12-05T18:00:00Z","done":0,"total":1,"games":[{"table":"t1","seats":["`+strings.ReplaceAll(evil, `"`, `\"`)+`","bob"],"status":"playing","dice":{},"out":[]},{"table":"<b>","seats":[]}]}}`))
	pub.publish("liarsdice/tournament/x/standings", []byte(`{"standings":[{"rank":1,"player":"`+strings.ReplaceAll(evil, `"`, `\"`)+`","points":3,"wins":1}],"tie_breaks":"points"}`))
	pub.publish("liarsdice/tournament/x/state2", []byte(`not json`))
	p := open(t, st.web.URL+"/tournament")
	var tiles []tileView
	waitFor(t, p, "the tile", tilesJS, &tiles)
	var imgs int
	if err := p.Eval(t.Context(), `document.querySelectorAll('img').length + (window.pwned ? 100 : 0)`, &imgs); err != nil {
		t.Fatal(err)
	}
	if imgs != 0 || len(tiles) != 1 || tiles[0].Lines[0] != evil {
		t.Errorf("got %d img elements and tiles %+v; want the name as text and the bad table id left out", imgs, tiles)
	}
	noConsoleErrors(t, p)
}
