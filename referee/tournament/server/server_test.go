package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/fleet"
	"github.com/liarsd/liarsd/referee/fleet/venuetest"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
	"github.com/liarsd/liarsd/referee/tournament"
	"github.com/liarsd/liarsd/referee/tournament/server"
	"github.com/liarsd/liarsd/referee/tournament/service"
)

// childEnv holds, in a re-executed test binary's environment, the
// server.Options (JSON) it runs the tournament service with, as liarsd
// tournament does: the tests kill -9 a real process.
const childEnv = "LIARSD_TOURNAMENT_TEST_CHILD"

func TestMain(m *testing.M) {
	if o := os.Getenv(childEnv); o != "" {
		os.Exit(runChild(o))
	}
	os.Exit(m.Run())
}

// childOptions are the server.Options a child takes from its environment.
type childOptions struct {
	Name, StateDir, Broker, Listen string
}

func (c childOptions) server() server.Options {
	return server.Options{Name: c.Name, StateDir: c.StateDir, Broker: c.Broker, Listen: c.Listen}
}

func runChild(o string) int {
	var co childOptions
	if err := json.Unmarshal([]byte(o), &co); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	opts := co.server()
	opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := server.Run(ctx, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// child is a tournament service in a process of its own.
type child struct {
	t    *testing.T
	opts childOptions
	url  string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

func startChild(t *testing.T, opts childOptions, dir string) *child {
	t.Helper()
	c := &child{t: t, opts: opts, url: "http://" + opts.Listen + "/", dir: dir}
	c.start()
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "tournament.log"))
			t.Logf("the tournament service's log:\n%s", log)
		}
	})
	return c
}

func (c *child) start() {
	c.t.Helper()
	o, _ := json.Marshal(c.opts)
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(os.Environ(), childEnv+"="+string(o))
	logf, _ := os.OpenFile(filepath.Join(c.dir, "tournament.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	if err := c.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan struct{})
	c.done = done
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); logf.Close(); close(done) }(c.cmd)
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := http.Get(c.url + "api/state")
		if err == nil {
			r.Body.Close()
			return
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(c.dir, "tournament.log"))
			c.t.Fatalf("the tournament service exited at start:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the tournament service does not answer")
		}
	}
}

// kill9 kills the service (SIGKILL) and starts it again.
func (c *child) kill9() {
	c.t.Helper()
	_ = c.cmd.Process.Kill()
	<-c.done
	c.start()
}

func (c *child) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// do sends one organiser's input.
func (c *child) do(line string) service.Reply {
	c.t.Helper()
	r, err := http.Post(c.url+"api/do", "application/json", strings.NewReader(line))
	if err != nil {
		c.t.Fatal(err)
	}
	defer r.Body.Close()
	var rep service.Reply
	if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
		c.t.Fatal(err)
	}
	return rep
}

func (c *child) must(line string) {
	c.t.Helper()
	if rep := c.do(line); !rep.OK {
		c.t.Fatalf("%s: %s: %s", line, rep.Reason, rep.Message)
	}
}

func (c *child) refused(line, reason, words string) {
	c.t.Helper()
	rep := c.do(line)
	if rep.OK || rep.Reason != reason || !strings.Contains(rep.Message, words) {
		c.t.Errorf("%s: got %+v; want refused %s saying %q", line, rep, reason, words)
	}
}

func (c *child) view() tournament.View {
	c.t.Helper()
	r, err := http.Get(c.url + "api/state")
	if err != nil {
		c.t.Fatal(err)
	}
	defer r.Body.Close()
	var s struct {
		View tournament.View `json:"view"`
	}
	if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
		c.t.Fatal(err)
	}
	return s.View
}

func (c *child) export() []byte {
	c.t.Helper()
	r, err := http.Get(c.url + "api/export.json")
	if err != nil {
		c.t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return b
}

func (c *child) waitView(d time.Duration, what string, ok func(tournament.View) bool) tournament.View {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		v := c.view()
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(v, "", " ")
			c.t.Fatalf("waited %s for %s; the tournament:\n%s", d, what, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func docsConf(name string) string { return filepath.Join("..", "..", "..", "docs", "venue", name) }

// TestSmallTournamentEndToEnd runs a Swiss tournament of two rounds on
// simulated tables (referee/fleet) on the venue's Mosquitto (docs/venue/
// venue.conf), the tournament service a process of its own: killed -9
// twice while round 1 plays, the broker restarted while round 2 plays,
// one table that never starts its game (its time limit, then the
// organiser's override), bad inputs refused. Every event the tables
// published reaches a persistent subscriber (none lost, none reordered),
// every game's result is what the table's journal gives, and the
// standings are what a replay of the tournament's journal gives.
func TestSmallTournamentEndToEnd(t *testing.T) {
	dir := t.TempDir()
	venue := venuetest.StartBroker(t, docsConf("venue.conf"), nil)
	rec := venuetest.Record(t, venue.URL(), "recorder", "liarsdice", "")
	tables := []string{"t1", "t2"}
	fleetDir := filepath.Join(dir, "fleet")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := fleet.Run(ctx, fleet.Options{Tables: tables, Broker: venue.URL(), StateDir: fleetDir, Pace: 20 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Ready: func() { close(ready) }})
		if err != nil {
			t.Error(err)
		}
	}()
	stopFleet := sync.OnceFunc(func() { cancel(); wg.Wait() })
	t.Cleanup(stopFleet)
	<-ready

	opts := childOptions{Name: "cup", StateDir: dir, Broker: venue.URL(), Listen: fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t))}
	svc := startChild(t, opts, dir)
	// t9 has no referee: its game never starts.
	svc.must(`{"type":"setup","setup":{"title":"Test cup","format":"swiss","rules":"common-hand","options":{"dice":3},"seats":4,"rounds":2,"tables":["t1","t2","t9"],"time_limit":"20s"}}`)
	var players []string
	for i := 1; i <= 10; i++ {
		players = append(players, fmt.Sprintf(`{"name":"p%02d","computer":"strong"}`, i))
	}
	svc.must(`{"type":"register","players":[` + strings.Join(players, ",") + `]}`)
	svc.refused(`{"type":"register","players":[{"name":"p03"}]}`, tournament.DuplicatePlayer, "p03 is registered already")
	svc.refused(`{"type":"override","round":1,"table":"t1","order":["p01"],"reason":"x"}`, tournament.UnknownRound, "no round has started")
	svc.must(`{"type":"start_round"}`)
	svc.refused(`{"type":"start_round","round":1}`, tournament.RoundStarted, "round 1 started already")
	svc.refused(`{"type":"start_round"}`, tournament.RoundStarted, "round 1 started already")
	svc.refused(`{"type":"override","round":1,"table":"t7","order":["p01"],"reason":"x"}`, tournament.UnknownTable, `table "t7" is not one of`)
	svc.refused(`{"type":"override","round":1,"table":"t1","order":["zed"],"reason":"x"}`, tournament.UnknownPlayer, `no player "zed"`)

	// Killed -9 twice while the round is played (it stays open until t9
	// has a result), each time once the tables have played on a little.
	for i := 0; i < 2; i++ {
		mark := rec.Count()
		deadline := time.Now().Add(15 * time.Second)
		for rec.Count() < mark+8 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		svc.kill9()
	}
	v := svc.waitView(90*time.Second, "t9's time limit", func(v tournament.View) bool {
		for _, g := range v.Round.Games {
			if g.Table == "t9" && g.Status == "no result" {
				return true
			}
		}
		return false
	})
	if len(v.Problems) == 0 || !strings.Contains(strings.Join(v.Problems, " "), "time was called at table t9 before the game started") {
		t.Errorf("got problems %q; want t9's said", v.Problems)
	}
	var t9 []string
	for _, g := range v.Round.Games {
		if g.Table == "t9" {
			t9 = g.Seats
		}
	}
	order, _ := json.Marshal(t9)
	svc.must(`{"type":"override","round":1,"table":"t9","order":` + string(order) + `,"reason":"t9's Pi was down; played on paper"}`)
	svc.waitView(90*time.Second, "round 1 to end", func(v tournament.View) bool { return v.Round.Complete })

	// Two players drop: eight sit at t1 and t2 in round 2.
	svc.must(`{"type":"drop","player":"p09","reason":"went home"}`)
	svc.must(`{"type":"drop","player":"p10","reason":"went home"}`)
	svc.must(`{"type":"start_round"}`)
	mark := rec.Count()
	waitFor(t, 60*time.Second, "round 2 to play", func() bool { return rec.Count() >= mark+10 })
	venue.Restart(time.Second)
	v = svc.waitView(120*time.Second, "the tournament to end", func(v tournament.View) bool { return v.Finished })
	svc.refused(`{"type":"start_round"}`, tournament.Finished, "round 2 was its last")
	time.Sleep(500 * time.Millisecond) // the last events reach the recorder
	stopFleet()

	// Every event published reached the subscriber, in order, as the
	// tables' journals give them.
	want := map[string][][]byte{}
	for _, id := range tables {
		evs, err := venuetest.Adjudicate("", filepath.Join(fleetDir, id+".journal"))
		if err != nil {
			t.Fatal(err)
		}
		want[id] = evs
	}
	waitFor(t, 30*time.Second, "every event at the recorder", func() bool {
		for id, evs := range want {
			if rec.Last(id) < len(evs) {
				return false
			}
		}
		return true
	})
	c := rec.CheckAgainst(want)
	t.Logf("events: %s", c)
	if c.Lost != 0 || c.Reordered != 0 || c.Differing != 0 {
		t.Errorf("events: %s; want none lost, reordered or differing: %v", c, c.Examples)
	}
	// Every game's result from events is its table's journal's.
	var e tournament.Export
	live := svc.export()
	if err := json.Unmarshal(live, &e); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range e.Rounds {
		for _, g := range r.Games {
			if g.Result == nil {
				t.Errorf("round %d, table %s: no result in a finished tournament", r.Number, g.Table)
				continue
			}
			if g.Result.Source != tournament.FromEvents {
				continue
			}
			got, err := venuetest.FinishingOrder(want[g.Table], g.Table, g.Seats, g.Result.Start, g.Result.Seq)
			if err != nil {
				t.Errorf("round %d, table %s: %v", r.Number, g.Table, err)
				continue
			}
			if !reflect.DeepEqual(got, g.Result.Order) {
				t.Errorf("round %d, table %s: the tournament has %v; the table's journal gives %v", r.Number, g.Table, g.Result.Order, got)
			}
			checked++
		}
	}
	if checked < 3 {
		t.Errorf("checked %d results against the journals; want the 4 the tables played (or 3 if one ran out of time)", checked)
	}
	// The final standings are a replay of the tournament's journal.
	svc.stop()
	lines, err := journal.ReadRecord(opts.server().JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := service.Replay("cup", lines)
	if err != nil {
		t.Fatal(err)
	}
	if got := replayed.Export().JSON(); !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(live)) {
		t.Errorf("the replay of the journal differs from the live export:\n%s\nlive:\n%s", got, live)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "tournament.log"))
	if n := strings.Count(string(log), "service: journal replayed"); n != 3 {
		t.Errorf("the service started %d times; want 3 (two kills -9)", n)
	}
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
