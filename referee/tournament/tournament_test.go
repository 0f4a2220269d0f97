package tournament

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

var t0 = time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC)

// do prepares and applies a line as the service does, failing the test on
// a refusal.
func do(t *testing.T, tr *Tournament, line string) []Command {
	t.Helper()
	cmds, err := try(tr, line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return cmds
}

func try(tr *Tournament, line string) ([]Command, error) {
	in, err := Decode([]byte(line))
	if err != nil {
		return nil, err
	}
	in, err = tr.Prepare(in, t0, func() int64 { return 42 })
	if err != nil {
		return nil, err
	}
	return tr.Apply(in)
}

// refused applies line and checks it is refused for reason with a message
// holding each of words.
func refused(t *testing.T, tr *Tournament, line, reason string, words ...string) {
	t.Helper()
	_, err := try(tr, line)
	r := AsRefusal(err)
	if r == nil {
		t.Fatalf("%s: got %v; want a refusal %s", line, err, reason)
	}
	if r.Reason != reason {
		t.Errorf("%s: got reason %s (%s); want %s", line, r.Reason, r.Message, reason)
	}
	for _, w := range words {
		if !strings.Contains(r.Message, w) {
			t.Errorf("%s: got message %q; want it to say %q", line, r.Message, w)
		}
	}
}

func setupLine(format string, seats, roundsOrAdvance int, tables ...string) string {
	s := map[string]any{"format": format, "rules": "common-hand", "seats": seats, "tables": tables, "seed": 7}
	if format == Swiss {
		s["rounds"] = roundsOrAdvance
	} else {
		s["advance"] = roundsOrAdvance
	}
	b, _ := json.Marshal(map[string]any{"type": "setup", "setup": s})
	return string(b)
}

func registerLine(names ...string) string {
	var ps []Player
	for _, n := range names {
		ps = append(ps, Player{Name: n, Computer: "strong"})
	}
	b, _ := json.Marshal(map[string]any{"type": "register", "players": ps})
	return string(b)
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i+1)
	}
	return out
}

// table plays games of a table as its events: each hand one die is lost,
// and the groups of outs leave in order; the last seat wins.
type table struct {
	id   string
	seq  int
	game int
}

func (tb *table) ev(e TableEvent) TableEvent {
	tb.seq++
	e.Table, e.Seq = tb.id, tb.seq
	return e
}

// play returns the events of a game of seats whose seats go out in the
// groups of outs (the remaining one wins); when end is false the game is
// left unfinished after the outs.
func (tb *table) play(seats []string, outs [][]string, end bool) []TableEvent {
	tb.game++
	dice := map[string]int{}
	for _, s := range seats {
		dice[s] = 2
	}
	var evs []TableEvent
	hand := 1
	evs = append(evs, tb.ev(TableEvent{Type: evHandStarted, Game: tb.game, Hand: hand, Dice: clone(dice)}))
	for _, g := range outs {
		change := map[string]int{}
		for _, s := range g {
			change[s] = -dice[s]
			delete(dice, s)
		}
		evs = append(evs, tb.ev(TableEvent{Type: evResolved, Dice: change, Out: g}))
		if len(dice) > 1 {
			hand++
			evs = append(evs, tb.ev(TableEvent{Type: evHandStarted, Game: tb.game, Hand: hand, Dice: clone(dice)}))
		}
	}
	if end && len(dice) == 1 {
		for w := range dice {
			evs = append(evs, tb.ev(TableEvent{Type: evGameOver, Game: tb.game, Winner: w}))
		}
	}
	return evs
}

func clone(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func eventsLine(evs []TableEvent) string {
	return string(Encode(Input{Type: InEvents, At: t0.Add(time.Minute), Events: evs}))
}

// finishRound plays every game of the current round, the seats going out
// in reverse of their seating order one at a time, so the first seat wins.
func finishRound(t *testing.T, tr *Tournament, tables map[string]*table) {
	t.Helper()
	for _, g := range tr.Games(tr.Round()) {
		tb := tables[g.Table]
		var outs [][]string
		for i := len(g.Seats) - 1; i >= 1; i-- {
			outs = append(outs, []string{g.Seats[i]})
		}
		do(t, tr, eventsLine(tb.play(g.Seats, outs, true)))
	}
}

func TestDecodeRefusesWhatIsNotAnInput(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`not json`, "one JSON object"},
		{`[1,2]`, "one JSON object"},
		{`{}`, "needs a type"},
		{`{"type":"dance"}`, `unknown type "dance"`},
		{`{"type":"drop","player":"ann","order":["x"]}`, `drop takes no "order"`},
		{`{"type":"register","players":"ann"}`, "must be a list"},
		{`{"type":"override","round":"two"}`, "round must be a whole number"},
		{`{"type":"setup"}`, "needs a setup object"},
		{`{"type":"setup","setup":{"time_limit":"soon"}}`, `time limit "soon"`},
		{`{"type":"start_round","round":-1}`, "rounds count from 1"},
		{`{"type":"drop","player":"ann","at":"yesterday"}`, "not a time"},
	} {
		_, err := Decode([]byte(c.line))
		r := AsRefusal(err)
		if r == nil || r.Reason != BadInput || !strings.Contains(r.Message, c.want) {
			t.Errorf("Decode(%s): got %v; want bad_input saying %q", c.line, err, c.want)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	in := Input{Type: InStartRound, At: t0, Round: 2, Tables: []Seating{{Table: "t1", Seats: []string{"a", "b"}, After: 9}}}
	got, err := Decode(Encode(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("got %+v; want %+v", got, in)
	}
}

func TestSetupRefusesWhatCannotBePlayed(t *testing.T) {
	tr := New("cup")
	for _, c := range []struct{ setup, reason, want string }{
		{`{"format":"swiss","rules":"poker","seats":5,"rounds":3,"tables":["t1"]}`, BadSetup, `no preset "poker"`},
		{`{"format":"swiss","rules":"endurance","seats":5,"rounds":3,"tables":["t1"]}`, BadSetup, "match of rounds"},
		{`{"format":"swiss","rules":"classic","seats":6,"rounds":3,"tables":["t1"]}`, BadSetup, "2 to 5 seats"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":0,"tables":["t1"]}`, BadSetup, "1 to 100 rounds"},
		{`{"format":"league","rules":"common-hand","seats":5,"rounds":1,"tables":["t1"]}`, BadSetup, "swiss or knockout"},
		{`{"format":"knockout","rules":"common-hand","seats":5,"advance":3,"tables":["t1"]}`, BadSetup, "1 to 2 players"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":[]}`, BadSetup, "needs tables"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":["t1","t1"]}`, BadSetup, "named twice"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":["t 1"]}`, BadSetup, "a table id"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":["t1"],"options":{"die_hard":true}}`, BadSetup, "engine refuses"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":["t1"],"options":{"dice":0}}`, BadSetup, "engine refuses"},
		{`{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":["t1"],"time_limit":"-5m"}`, BadSetup, "negative"},
	} {
		refused(t, tr, `{"type":"setup","setup":`+c.setup+`}`, c.reason, c.want)
	}
	if tr.Setup() != nil {
		t.Errorf("got a setup after refusals; want none")
	}
}

func TestRegistrationRefusals(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 5, 2, "t1", "t2"))
	do(t, tr, registerLine("ann", "bob"))
	refused(t, tr, registerLine("cy", "ann"), DuplicatePlayer, "ann is registered already")
	refused(t, tr, registerLine("ANN"), DuplicatePlayer, "as ann")
	refused(t, tr, registerLine("dee", "Dee"), DuplicatePlayer, "named twice")
	refused(t, tr, registerLine("a<b"), BadPlayer, "not a player's name")
	refused(t, tr, `{"type":"register","players":[{"name":"eve","computer":"genius"}]}`, BadPlayer, `no computer level "genius"`)
	refused(t, tr, `{"type":"register","players":[]}`, BadInput, "one or more")
	if got := len(tr.Players()); got != 2 {
		t.Errorf("got %d players after refusals; want 2 (a refused registration registers nobody)", got)
	}
	refused(t, tr, `{"type":"drop","player":"zed"}`, UnknownPlayer, `no player "zed"`)
	do(t, tr, `{"type":"drop","player":"bob","reason":"went home"}`)
	refused(t, tr, `{"type":"drop","player":"bob"}`, NotNow, "dropped before the first round")
	refused(t, tr, registerLine("bob"), DuplicatePlayer, "dropped before the first round")
}

func TestTableSizes(t *testing.T) {
	for _, c := range []struct {
		n, seats, least int
		want            []int
	}{
		{1000, 5, 2, repeat(5, 200)},
		{23, 5, 2, []int{5, 5, 5, 4, 4}},
		{6, 5, 2, []int{3, 3}},
		{5, 5, 2, []int{5}},
		{7, 3, 3, nil}, // 3 tables of 3, 2, 2: too small
		{1, 5, 2, nil},
		{0, 5, 2, nil},
	} {
		if got := TableSizes(c.n, c.seats, c.least); !slices.Equal(got, c.want) {
			t.Errorf("TableSizes(%d, %d, %d): got %v; want %v", c.n, c.seats, c.least, got, c.want)
		}
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestRoundsCannotStartTwiceOrEarly(t *testing.T) {
	tr := New("cup")
	refused(t, tr, `{"type":"start_round"}`, NotSetUp, "set the tournament up")
	do(t, tr, setupLine(Swiss, 3, 2, "t1", "t2"))
	do(t, tr, registerLine("ann"))
	refused(t, tr, `{"type":"start_round"}`, NotEnough, "needs at least 2")
	do(t, tr, registerLine(names("p", 6)...))
	refused(t, tr, `{"type":"start_round"}`, NotEnough, "needs 3 tables", "has 2")
	do(t, tr, `{"type":"drop","player":"ann"}`)
	cmds := do(t, tr, `{"type":"start_round"}`)
	if len(cmds) != 2 {
		t.Fatalf("got %d commands; want a new_game for each of 2 tables", len(cmds))
	}
	refused(t, tr, `{"type":"start_round","round":1}`, RoundStarted, "round 1 started already", "2 of 2 tables have no result")
	refused(t, tr, `{"type":"start_round"}`, RoundStarted, "round 1 started already")
	refused(t, tr, `{"type":"start_round","round":2}`, RoundInProgress, "round 1 is still being played")
	refused(t, tr, `{"type":"setup","setup":{"format":"swiss","rules":"common-hand","seats":5,"rounds":1,"tables":["t1"]}}`, Started, "setup is fixed")
	refused(t, tr, `{"type":"start_round","round":5,"tables":[{"table":"t1","seats":["p01","p02"]}]}`, RoundInProgress)
}

func TestNewGameCommand(t *testing.T) {
	tr := New("cup")
	do(t, tr, `{"type":"setup","setup":{"format":"swiss","rules":"common-hand","options":{"dice":2},"seats":3,"rounds":1,"tables":["t1"],"seed":9}}`)
	do(t, tr, `{"type":"register","players":[{"name":"ann"},{"name":"bob","computer":"beginner"}]}`)
	cmds := do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["ann","bob"]}]}`)
	if len(cmds) != 1 {
		t.Fatalf("got %d commands; want 1", len(cmds))
	}
	c := cmds[0]
	// What a table reads of it: record's decoding, as the referee's.
	cmd, got, err := record.DecodeCommand(c.Line)
	if err != nil {
		t.Fatalf("the table refuses %s: %v", c.Line, err)
	}
	dice := 2
	want := engine.Action{Type: engine.ActNewGame, Rules: "common-hand", Seats: []string{"ann", "bob"}, Seed: got.Seed,
		Options: engine.Options{Dice: &dice}, Computer: map[string]engine.ComputerSeat{"bob": {Level: "beginner"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %s = %+v; want %+v", c.Line, got, want)
	}
	if string(cmd.ID) != `"tournament:cup:r1:t1:a1"` || c.Table != "t1" || c.ID != "tournament:cup:r1:t1:a1" {
		t.Errorf("got table %s id %s (%s in the line); want t1 and the line's id", c.Table, c.ID, cmd.ID)
	}
	if got.Seed < 1 || got.Seed >= 1<<53 {
		t.Errorf("got seed %v; want 1 to 2^53", got.Seed)
	}
	// Options the engine does not know are refused at the setup.
	refused(t, New("cup"), `{"type":"setup","setup":{"format":"swiss","rules":"common-hand","options":{"dices":2},"seats":3,"rounds":1,"tables":["t1"]}}`, BadSetup, `unknown option "dices"`)
}

func TestResultsFromEvents(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 5, 1, "t1"))
	do(t, tr, registerLine("a", "b", "c", "d", "e"))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c","d","e"]}]}`)
	tb := &table{id: "t1"}
	// b and c go out in one resolution (a spot-on that costs everyone),
	// then e, then d; a wins.
	evs := tb.play([]string{"a", "b", "c", "d", "e"}, [][]string{{"b", "c"}, {"e"}, {"d"}}, true)
	// Repeats (a redelivery, a table's restart) change nothing.
	do(t, tr, eventsLine(append(evs, evs...)))
	g := tr.Games(1)[0]
	if g.Result == nil {
		t.Fatal("got no result after game_over")
	}
	want := [][]string{{"a"}, {"d"}, {"e"}, {"b", "c"}}
	if !reflect.DeepEqual(g.Result.Order, want) || g.Result.Source != FromEvents {
		t.Errorf("got %v from %s; want %v from events", g.Result.Order, g.Result.Source, want)
	}
	if got, want := g.Result.Places(), map[string]int{"a": 1, "d": 2, "e": 3, "b": 4, "c": 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("places: got %v; want %v", got, want)
	}
	if got, want := g.Result.Points(), map[string]int{"a": 4, "d": 3, "e": 2, "b": 0, "c": 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("points: got %v; want %v", got, want)
	}
	if !tr.Finished() {
		t.Errorf("a one-round Swiss tournament with its result is not finished")
	}
}

func TestACorrectionChangesTheResult(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 2, "t1"))
	do(t, tr, registerLine("a", "b", "c"))
	do(t, tr, `{"type":"start_round"}`)
	tb := &table{id: "t1"}
	seats := tr.Games(1)[0].Seats
	do(t, tr, eventsLine(tb.play(seats, [][]string{{seats[2]}, {seats[1]}}, true)))
	if got := tr.Games(1)[0].Result.Order[0][0]; got != seats[0] {
		t.Fatalf("got winner %s; want %s", got, seats[0])
	}
	// The reveal of the last hand (hand 2) is corrected: seats[0] loses
	// instead, and seats[1] wins.
	fix := []TableEvent{
		tb.ev(TableEvent{Type: evCorrected, Game: tb.game, Hand: 2}),
		tb.ev(TableEvent{Type: evResolved, Dice: map[string]int{seats[0]: -2}, Out: []string{seats[0]}}),
		tb.ev(TableEvent{Type: evGameOver, Game: tb.game, Winner: seats[1]}),
	}
	do(t, tr, eventsLine(fix[:1]))
	if r := tr.Games(1)[0].Result; r != nil {
		t.Errorf("got result %v after a correction of the deciding hand; want none until the new game_over", r.Order)
	}
	do(t, tr, eventsLine(fix[1:]))
	want := [][]string{{seats[1]}, {seats[0]}, {seats[2]}}
	if got := tr.Games(1)[0].Result.Order; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
}

func TestGamesBindToTheRoundsSeats(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 2, "t1"))
	do(t, tr, registerLine("a", "b", "c"))
	tb := &table{id: "t1"}
	// A game played at the table before the round is none of it.
	do(t, tr, eventsLine(tb.play([]string{"a", "b", "c"}, [][]string{{"c"}, {"b"}}, true)))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c"]}]}`)
	if r := tr.Games(1)[0].Result; r != nil {
		t.Fatalf("got result %v from a game before the round", r.Order)
	}
	// Another game (other seats) at the table is not the round's.
	do(t, tr, eventsLine(tb.play([]string{"x", "y"}, [][]string{{"y"}}, true)))
	if g := tr.Games(1)[0]; g.Started() || g.Result != nil {
		t.Fatalf("got a game from seq %d bound with result %v; want the round's game still waiting", g.Start, g.Result)
	}
	// The round's game starts, then the table starts another: abandoned.
	do(t, tr, eventsLine(tb.play([]string{"a", "b", "c"}, [][]string{{"a"}}, false)))
	do(t, tr, eventsLine(tb.play([]string{"x", "y"}, nil, false)))
	v := tr.View()
	if got := v.Round.Games[0].Status; got != "abandoned" || len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "started another game") {
		t.Errorf("got status %s, problems %v; want abandoned and the problem said", got, v.Problems)
	}
	// The organiser restarts it; the table plays it to the end.
	cmds := do(t, tr, `{"type":"restart_game","round":1,"table":"t1","reason":"someone started a game at t1"}`)
	if len(cmds) != 1 || !strings.Contains(cmds[0].ID, ":a2") {
		t.Fatalf("got commands %v; want the game's new_game as attempt 2", cmds)
	}
	do(t, tr, eventsLine(tb.play([]string{"a", "b", "c"}, [][]string{{"b"}, {"c"}}, true)))
	if g := tr.Games(1)[0]; g.Result == nil || g.Result.Order[0][0] != "a" {
		t.Errorf("got %+v; want a's win", g.Result)
	}
}

func TestOverrideRefusalsAndResult(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 2, "t1", "t2"))
	do(t, tr, registerLine("a", "b", "c", "d", "e", "f"))
	refused(t, tr, `{"type":"override","round":1,"table":"t1","order":["a"],"reason":"x"}`, UnknownRound, "no round has started")
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c"]},{"table":"t2","seats":["d","e","f"]}]}`)
	refused(t, tr, `{"type":"override","round":2,"table":"t1","order":["a","b","c"],"reason":"x"}`, UnknownRound, "no round 2")
	refused(t, tr, `{"type":"override","round":1,"table":"t9","order":["a","b","c"],"reason":"x"}`, UnknownTable, `table "t9" is not one of`)
	refused(t, tr, `{"type":"override","round":1,"table":"t1","order":["a","b","zed"],"reason":"x"}`, UnknownPlayer, `no player "zed"`)
	refused(t, tr, `{"type":"override","round":1,"table":"t1","order":["a","b","d"],"reason":"x"}`, UnknownPlayer, "d did not play at table t1")
	refused(t, tr, `{"type":"override","round":1,"table":"t1","order":["a","b"],"reason":"x"}`, BadOrder, "c missing")
	refused(t, tr, `{"type":"override","round":1,"table":"t1","order":["a","b","b"],"reason":"x"}`, BadOrder, "named twice")
	refused(t, tr, `{"type":"override","round":1,"table":"t1","order":["a","b","c"]}`, BadInput, "needs a reason")
	do(t, tr, `{"type":"override","round":1,"table":"t1","order":["c","a","b"],"reason":"the camera was covered; the table agreed"}`)
	g := tr.Games(1)[0]
	if g.Result == nil || g.Result.Source != FromOverride || g.Result.Order[0][0] != "c" {
		t.Fatalf("got %+v; want c first by override", g.Result)
	}
	// Events of the table after an override do not change it.
	tb := &table{id: "t1"}
	do(t, tr, eventsLine(tb.play([]string{"a", "b", "c"}, [][]string{{"c"}, {"b"}}, true)))
	if got := tr.Games(1)[0].Result.Order[0][0]; got != "c" {
		t.Errorf("got winner %s after the table's events; want the override's c", got)
	}
}

func TestTimeLimit(t *testing.T) {
	tr := New("cup")
	do(t, tr, `{"type":"setup","setup":{"format":"swiss","rules":"common-hand","seats":3,"rounds":1,"tables":["t1","t2"],"time_limit":"30m","seed":1}}`)
	do(t, tr, registerLine("a", "b", "c", "d", "e", "f"))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c"]},{"table":"t2","seats":["d","e","f"]}]}`)
	tb := &table{id: "t1"}
	evs := tb.play([]string{"a", "b", "c"}, [][]string{{"c"}}, false)
	evs = append(evs, tb.ev(TableEvent{Type: evResolved, Dice: map[string]int{"a": -1}}))
	do(t, tr, eventsLine(evs))
	if got := tr.Overdue(t0.Add(29 * time.Minute)); len(got) != 0 {
		t.Errorf("got %d calls before the limit; want none", len(got))
	}
	calls := tr.Overdue(t0.Add(31 * time.Minute))
	if len(calls) != 2 {
		t.Fatalf("got %d calls after the limit; want one for each of 2 tables", len(calls))
	}
	for _, c := range calls {
		if _, err := tr.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	g1, g2 := tr.Games(1)[0], tr.Games(1)[1]
	// At t1 b has 2 dice, a 1, c is out.
	if want := [][]string{{"b"}, {"a"}, {"c"}}; g1.Result == nil || !reflect.DeepEqual(g1.Result.Order, want) || g1.Result.Source != FromTime {
		t.Errorf("t1: got %+v; want %v by time", g1.Result, want)
	}
	if g2.Result != nil || !g2.TimeCalled {
		t.Errorf("t2 never started: got result %+v; want none, time called", g2.Result)
	}
	v := tr.View()
	if len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "before the game started") || v.Round.Complete {
		t.Errorf("got problems %v, complete %v; want t2's problem and the round open", v.Problems, v.Round.Complete)
	}
	refused(t, tr, `{"type":"call_time","round":1,"table":"t2"}`, NotNow, "called at table t2 already")
	do(t, tr, `{"type":"override","round":1,"table":"t2","order":["d","e","f"],"reason":"the table's Pi was down; played on paper"}`)
	if !tr.Finished() {
		t.Errorf("got the tournament unfinished after the override; want finished")
	}
}

func TestSwissSeatsByStandingsAndAvoidsRepeats(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 3, "t1", "t2", "t3", "t4"))
	do(t, tr, registerLine(names("p", 12)...))
	tables := map[string]*table{"t1": {id: "t1"}, "t2": {id: "t2"}, "t3": {id: "t3"}, "t4": {id: "t4"}}
	do(t, tr, `{"type":"start_round"}`)
	finishRound(t, tr, tables)
	do(t, tr, `{"type":"start_round"}`)
	st := tr.Standings()
	// The four winners (2 points each) lead; the first table seats three
	// of them.
	winners := map[string]bool{}
	for _, g := range tr.Games(1) {
		winners[g.Seats[0]] = true
	}
	first := tr.Games(2)[0].Seats
	for _, p := range first {
		if !winners[p] {
			t.Errorf("round 2's first table: got %v; want three of the round 1 winners %v (standings %v)", first, winners, st[:4])
		}
	}
	met := map[[2]string]int{}
	for _, r := range []int{1, 2} {
		for _, g := range tr.Games(r) {
			for i, a := range g.Seats {
				for _, b := range g.Seats[i+1:] {
					met[pair(a, b)]++
				}
			}
		}
	}
	for p, n := range met {
		if n > 1 {
			t.Errorf("%v met %d times in two rounds of 12 players at 4 tables; want none twice", p, n)
		}
	}
}

func TestKnockoutToAFinalTable(t *testing.T) {
	tr := New("ko")
	do(t, tr, setupLine(Knockout, 5, 1, "t1", "t2", "t3", "t4", "t5"))
	do(t, tr, registerLine(names("p", 23)...))
	tables := map[string]*table{}
	for _, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		tables[id] = &table{id: id}
	}
	var sizes [][]int
	for r := 1; !tr.Finished(); r++ {
		if r > 10 {
			t.Fatal("the knock-out does not end")
		}
		do(t, tr, `{"type":"start_round"}`)
		var s []int
		for _, g := range tr.Games(r) {
			s = append(s, len(g.Seats))
		}
		sizes = append(sizes, s)
		finishRound(t, tr, tables)
	}
	// 23 players at 5 tables, 5 winners at one final table.
	if want := [][]int{{5, 5, 5, 4, 4}, {5}}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("got table sizes %v; want %v", sizes, want)
	}
	st := tr.Standings()
	final := tr.Games(2)[0]
	if st[0].Player != final.Seats[0] || st[0].Reached != 2 || st[0].Place != 1 {
		t.Errorf("got first %+v; want the final's winner %s", st[0], final.Seats[0])
	}
	for _, s := range st[5:] {
		if s.Reached != 1 || !s.Out {
			t.Errorf("got %+v below the final's five; want out in round 1", s)
		}
	}
	refused(t, tr, `{"type":"start_round"}`, Finished, "round 2 was its last")
	refused(t, tr, registerLine("late"), Started)
}

func TestReplayGivesTheSameTournament(t *testing.T) {
	tr := New("cup")
	var lines [][]byte
	apply := func(line string) {
		in, err := Decode([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		in, err = tr.Prepare(in, t0, func() int64 { return 99 })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Apply(in); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, Encode(in))
	}
	apply(setupLine(Swiss, 4, 2, "t1", "t2", "t3"))
	apply(registerLine(names("p", 11)...))
	tables := map[string]*table{"t1": {id: "t1"}, "t2": {id: "t2"}, "t3": {id: "t3"}}
	for r := 1; r <= 2; r++ {
		apply(`{"type":"start_round"}`)
		for _, g := range tr.Games(r) {
			var outs [][]string
			for i := len(g.Seats) - 1; i >= 1; i-- {
				outs = append(outs, []string{g.Seats[i]})
			}
			apply(eventsLine(tables[g.Table].play(g.Seats, outs, true)))
		}
	}
	apply(`{"type":"override","round":2,"table":"t2","order":["` + strings.Join(tr.Games(2)[1].Seats, `","`) + `"],"reason":"test"}`)
	again := New("cup")
	for _, l := range lines {
		in, err := Decode(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := again.Apply(in); err != nil {
			t.Fatalf("replaying %s: %v", l, err)
		}
	}
	if got, want := again.Export().JSON(), tr.Export().JSON(); string(got) != string(want) {
		t.Errorf("the replay's export differs:\n%s\nwant\n%s", got, want)
	}
}

func TestExportCSV(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 1, "t1"))
	do(t, tr, registerLine("a", "b", "c"))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c"]}]}`)
	tb := &table{id: "t1"}
	do(t, tr, eventsLine(tb.play([]string{"a", "b", "c"}, [][]string{{"c"}, {"b"}}, true)))
	e := tr.Export()
	if got, want := string(e.ResultsCSV()), "round,table,place,player,points,source,start,seq,reason\n1,t1,1,a,2,events,1,5,\n1,t1,2,b,1,events,1,5,\n1,t1,3,c,0,events,1,5,\n"; got != want {
		t.Errorf("results: got\n%s\nwant\n%s", got, want)
	}
	if got, want := string(e.StandingsCSV()), "rank,player,points,wins,games,opponents,places,computer,dropped,out\n1,a,2,1,1,1,1,strong,false,false\n2,b,1,0,1,2,2,strong,false,false\n3,c,0,0,1,3,3,strong,false,false\n"; got != want {
		t.Errorf("standings: got\n%s\nwant\n%s", got, want)
	}
}

func TestFewerRepeatsMovesAPlayerDown(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 3, "t1", "t2", "t3"))
	do(t, tr, registerLine("a", "b", "c", "d", "e", "f", "g", "h", "i"))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c"]},{"table":"t2","seats":["d","e","f"]},{"table":"t3","seats":["g","h","i"]}]}`)
	rank := map[string]int{}
	for i, n := range []string{"a", "b", "d", "c", "e", "g", "f", "h", "i"} {
		rank[n] = i + 1
	}
	// In standings order the tables would seat a with b, and h with i.
	groups := [][]string{{"a", "b", "d"}, {"c", "e", "g"}, {"f", "h", "i"}}
	met := tr.met()
	before := 0
	for _, g := range groups {
		before += repeats(g, met)
	}
	tr.fewerRepeats(groups, rank)
	after := 0
	for _, g := range groups {
		after += repeats(g, met)
	}
	if before != 2 || after != 0 {
		t.Errorf("got %v with %d repeats (from %d); want none", groups, after, before)
	}
	seated := slices.Concat(groups...)
	slices.Sort(seated)
	if want := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}; !slices.Equal(seated, want) {
		t.Errorf("got players %v; want each of %v once", seated, want)
	}
}

// TestFirstRoundSeatsByDraw: the first round's seating is a draw, not the
// order of registration.
func TestFirstRoundSeatsByDraw(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 5, 3, "t1", "t2", "t3", "t4"))
	do(t, tr, registerLine(names("Player ", 20)...))
	do(t, tr, `{"type":"start_round"}`)
	neighbours := 0
	for _, g := range tr.Games(1) {
		for i, a := range g.Seats {
			for _, b := range g.Seats[i+1:] {
				var x, y int
				fmt.Sscanf(a, "Player %d", &x)
				fmt.Sscanf(b, "Player %d", &y)
				if x-y == 1 || y-x == 1 {
					neighbours++
				}
			}
		}
	}
	// Registration order would seat 16 pairs of neighbours together; a
	// draw about 4 (19 pairs of neighbours, each together with chance
	// 4/19).
	if neighbours > 9 {
		t.Errorf("got %d pairs of players registered one after the other at one table: %v", neighbours, tr.Games(1))
	}
}

// TestEventsAreTakenInSeqOrder: a broker that delivers a table's events
// out of order (queued ones overtaken after a reconnection) changes
// nothing: each is taken once every event before it came.
func TestEventsAreTakenInSeqOrder(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 4, 1, "t1"))
	do(t, tr, registerLine("a", "b", "c", "d"))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c","d"]}]}`)
	tb := &table{id: "t1"}
	evs := tb.play([]string{"a", "b", "c", "d"}, [][]string{{"d"}, {"c"}, {"b"}}, true)
	// Seq 3 (b... the second hand) is late: the rest came first.
	late := evs[2]
	rest := append(append([]TableEvent{}, evs[:2]...), evs[3:]...)
	do(t, tr, eventsLine(rest))
	if r := tr.Games(1)[0].Result; r != nil {
		t.Fatalf("got result %v while seq %d has not come", r.Order, late.Seq)
	}
	do(t, tr, eventsLine([]TableEvent{late}))
	want := [][]string{{"a"}, {"b"}, {"c"}, {"d"}}
	if r := tr.Games(1)[0].Result; r == nil || !reflect.DeepEqual(r.Order, want) {
		t.Errorf("got %+v; want %v once seq %d came", r, want, late.Seq)
	}
}

// TestAGapThatNeverFillsIsSkipped: an event that never comes (a broker
// that lost it) holds the table's later events back until the service
// skips it, journaled, after a wait.
func TestAGapThatNeverFillsIsSkipped(t *testing.T) {
	tr := New("cup")
	do(t, tr, setupLine(Swiss, 3, 1, "t1"))
	do(t, tr, registerLine("a", "b", "c"))
	do(t, tr, `{"type":"start_round","tables":[{"table":"t1","seats":["a","b","c"]}]}`)
	all := map[string]int{"a": 2, "b": 2, "c": 2}
	// Seq 2, a revealed event (not kept), is lost by the broker.
	evs := []TableEvent{
		{Table: "t1", Type: "hand_started", Seq: 1, Game: 1, Hand: 1, Dice: all},
		{Table: "t1", Type: "resolved", Seq: 3, Dice: map[string]int{"c": -2}, Out: []string{"c"}},
		{Table: "t1", Type: "hand_started", Seq: 4, Game: 1, Hand: 2, Dice: map[string]int{"a": 2, "b": 2}},
		{Table: "t1", Type: "resolved", Seq: 6, Dice: map[string]int{"b": -2}, Out: []string{"b"}},
		{Table: "t1", Type: "game_over", Seq: 7, Game: 1, Winner: "a"},
	}
	in := Input{Type: InEvents, At: t0.Add(time.Minute), Events: evs, Seen: []SeqRange{{"t1", 1, 1}, {"t1", 3, 7}}}
	if _, err := tr.Apply(in); err != nil {
		t.Fatal(err)
	}
	if r := tr.Games(1)[0].Result; r != nil {
		t.Fatalf("got result %v with seq 2 missing", r.Order)
	}
	if got := tr.Gaps(t0.Add(2*time.Minute), 2*time.Minute); len(got) != 0 {
		t.Errorf("got %v after a minute; want no skip before the wait", got)
	}
	skips := tr.Gaps(t0.Add(3*time.Minute+time.Second), 2*time.Minute)
	if len(skips) != 1 || skips[0].Type != InSkipGap || skips[0].Table != "t1" {
		t.Fatalf("got %v; want t1's gap skipped", skips)
	}
	if _, err := tr.Apply(skips[0]); err != nil {
		t.Fatal(err)
	}
	if r := tr.Games(1)[0].Result; r == nil || r.Order[0][0] != "a" {
		t.Errorf("got %+v; want a's win once the gap is skipped", r)
	}
	if n := tr.Notes(); len(n) != 1 || !strings.Contains(n[0], "events 2 to 2 never came") {
		t.Errorf("got notes %q; want the skipped event said", n)
	}
	refused(t, tr, `{"type":"skip_gap","table":"t1"}`, NotNow, "wait for none")
}

func TestParseEvent(t *testing.T) {
	for _, c := range []struct {
		payload string
		ok      bool
		want    TableEvent
	}{
		{`{"type":"revealed","seq":7,"dice":{"ann":[3,1]}}`, true, TableEvent{Table: "t1", Type: "revealed", Seq: 7}},
		{`{"type":"resolved","seq":8,"call":"challenge","dice":{"ann":-1},"out":["ann"]}`, true,
			TableEvent{Table: "t1", Type: "resolved", Seq: 8, Dice: map[string]int{"ann": -1}, Out: []string{"ann"}}},
		{`{"type":"game_over","seq":9,"game":1,"winner":"bob","pot":3}`, true, TableEvent{Table: "t1", Type: "game_over", Seq: 9, Game: 1, Winner: "bob"}},
		{`{"type":"resolved","seq":10,"dice":"lots"}`, true, TableEvent{Table: "t1", Type: "malformed", Seq: 10}},
		{`{"type":"resolved"}`, false, TableEvent{}},
		{`not json`, false, TableEvent{}},
	} {
		got, ok := ParseEvent("t1", []byte(c.payload))
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseEvent(%s): got %+v, %v; want %+v, %v", c.payload, got, ok, c.want, c.ok)
		}
	}
}
