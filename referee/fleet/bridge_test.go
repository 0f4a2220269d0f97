package fleet_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/fleet"
	"github.com/liarsd/liarsd/referee/fleet/venuetest"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// cutFor is how long the bridge tests cut a table's link to the venue:
// LIARSD_BRIDGE_CUT (make bench-venue: 60s), else 3 s.
func cutFor(t *testing.T) time.Duration {
	if v := os.Getenv("LIARSD_BRIDGE_CUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("LIARSD_BRIDGE_CUT=%q: %v", v, err)
		}
		return d
	}
	return 3 * time.Second
}

// conf is a configuration file of docs/venue, joined with others as
// Mosquitto's conf.d would read them.
func conf(t *testing.T, names ...string) string {
	t.Helper()
	var text []byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "venue", n))
		if err != nil {
			t.Fatal(err)
		}
		text = append(append(text, b...), '\n')
	}
	p := filepath.Join(t.TempDir(), "joined.conf")
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cutAndCheck plays on while the link is cut for d: the table keeps
// playing (its own broker gets events), the venue gets none, and once the
// link returns the venue gets every event, in order, as the table's
// journal gives them (each recorder of recs). It returns the events
// published while the link was down.
func cutAndCheck(t *testing.T, link *venuetest.Link, table string, journalDir string, local *venuetest.Recorder, recs map[string]*venuetest.Recorder, d time.Duration, stop func()) int {
	t.Helper()
	waitFor(t, 60*time.Second, "the venue to get the table's first events", func() bool { return recs["venue"].Last(table) >= 10 })
	link.Cut()
	time.Sleep(500 * time.Millisecond) // what was on the wire lands
	before, localBefore := recs["venue"].Last(table), local.Last(table)
	time.Sleep(d)
	during := local.Last(table) - localBefore
	if during == 0 {
		t.Fatalf("the table published nothing while its link was down %s; want it to play on", d)
	}
	if got := recs["venue"].Last(table); got > before+1 {
		t.Errorf("the venue got seq %d through a cut link (%d before the cut)", got, before)
	}
	if err := link.Restore(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*d+30*time.Second, "the venue to catch up", func() bool {
		for _, r := range recs {
			if r.Last(table) < local.Last(table) {
				return false
			}
		}
		return true
	})
	stop()
	evs, err := venuetest.Adjudicate("", journalDir)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the last events at the venue", func() bool {
		for _, r := range recs {
			if r.Last(table) < len(evs) {
				return false
			}
		}
		return true
	})
	for name, r := range recs {
		c := r.CheckAgainst(map[string][][]byte{table: evs})
		t.Logf("%s: %s; %d events published while the link was down %s", name, c, during, d)
		if c.Lost != 0 || c.Reordered != 0 || c.Differing != 0 {
			t.Errorf("%s: %s; want none lost, reordered or differing: %v", name, c, c.Examples)
		}
	}
	return during
}

// quiet logs the tables' warnings and errors only.
func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// quietly waits until the table has published nothing for a second and a
// half: its game over, nothing more to come.
func quietly(t *testing.T, local *venuetest.Recorder, table string) {
	t.Helper()
	last, since := local.Last(table), time.Now()
	waitFor(t, 120*time.Second, "the table's last game to end", func() bool {
		if n := local.Last(table); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) > 1500*time.Millisecond
	})
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

// TestVenueBridgedToATableMosquitto: a table with Mosquitto on its Pi
// (docs/venue/table.conf), the venue's Mosquitto bridged to it
// (venue.conf, venue-tables.conf), a league's central broker bridged to
// the venue (league.conf). The table's link to the venue is cut while it
// plays: the table plays on, and the venue, and the league through it, get
// every event in order once the link returns; a command sent at the venue
// reaches the table.
func TestVenueBridgedToATableMosquitto(t *testing.T) {
	d := cutFor(t)
	table := venuetest.StartBroker(t, conf(t, "table.conf"), nil)
	link := venuetest.NewLink(t, table.Addr())
	nobody := fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t)) // bar-2's Pi is off
	venue := venuetest.StartBroker(t, conf(t, "venue.conf", "venue-tables.conf"), map[string]string{"bar-1": link.Addr(), "bar-2": nobody})
	league := venuetest.StartBroker(t, conf(t, "league.conf"), map[string]string{"venue-a": venue.Addr()})
	recs := map[string]*venuetest.Recorder{
		"venue":  venuetest.Record(t, venue.URL(), "rec-venue", "liarsdice", "liarsdice/bar-1/events"),
		"league": venuetest.Record(t, league.URL(), "rec-league", "liarsdice", "league/venue-a/liarsdice/+/events"),
	}
	local := venuetest.Record(t, table.URL(), "rec-table", "liarsdice", "liarsdice/bar-1/events")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	ready := make(chan struct{})
	go func() {
		defer wg.Done()
		err := fleet.Run(ctx, fleet.Options{Tables: []string{"bar-1"}, Broker: table.URL(), StateDir: dir, Pace: 40 * time.Millisecond,
			Logger: quiet(), Ready: func() { close(ready) }})
		if err != nil {
			t.Error(err)
		}
	}()
	<-ready // the referee's session takes commands
	// The table's own operator starts its games, at the table.
	player := venuetest.Play(t, table.URL(), "liarsdice", "bar-1", []string{"ann", "bob", "cy"}, map[string]any{"dice": 3})
	// A command from the venue reaches the table through the bridge, and
	// its reply comes back.
	sender := mqtttest.Subscribe(t, venue.URL(), "venue-sender", "liarsdice/bar-1/reply")
	waitFor(t, 30*time.Second, "the venue's bridge to the table", func() bool { return recs["venue"].Last("bar-1") > 0 })
	sender.Publish(t, "liarsdice/bar-1/cmd", []byte(`{"id":"from-the-venue","type":"bid","seat":"nobody","quantity":1,"face":2}`))
	sender.Wait(t, 30*time.Second, "the table's reply at the venue", func(ms []mqtttest.Message) bool {
		for _, m := range ms {
			if strings.Contains(string(m.Payload), "from-the-venue") {
				return true
			}
		}
		return false
	})
	during := cutAndCheck(t, link, "bar-1", filepath.Join(dir, "bar-1.journal"), local, recs, d, func() {
		player.Stop()
		quietly(t, local, "bar-1")
		cancel()
		wg.Wait()
	})
	if os.Getenv("LIARSD_BRIDGE_REPORT") != "" {
		fmt.Printf("bridge (venue Mosquitto <- table Mosquitto; league <- venue): link cut %s, %d events published meanwhile, %d games\n", d, during, player.Games())
	}
}

// TestVenueBridgedToAnEmbeddedBroker: a table that keeps the referee's
// embedded broker, the venue's Mosquitto bridging to it
// (venue-tables.conf). The link is cut while the table plays:
// the embedded broker keeps what the bridge's session is owed, and the
// venue gets every event in order when it returns.
func TestVenueBridgedToAnEmbeddedBroker(t *testing.T) {
	d := cutFor(t)
	dir := t.TempDir()
	port := mqtttest.FreePort(t)
	link := venuetest.NewLink(t, fmt.Sprintf("127.0.0.1:%d", port))
	c := config.Default()
	off := false
	c.Table, c.StateDir, c.Rules = "bar-2", dir, "common-hand"
	c.Broker.Embedded.Listen, c.Broker.Embedded.WebSocket = "127.0.0.1:"+strconv.Itoa(port), "off"
	c.Broker.HomeAssistant = &off
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	ready := make(chan struct{})
	go func() {
		defer wg.Done()
		err := daemon.Run(ctx, c, daemon.Options{HTTP: "off", ComputerPace: 40 * time.Millisecond, Logger: quiet(),
			Started: func(*referee.Referee, string) { close(ready) }})
		if err != nil {
			t.Error(err)
		}
	}()
	<-ready
	tableURL := "tcp://127.0.0.1:" + strconv.Itoa(port)
	local := venuetest.Record(t, tableURL, "rec-table", "liarsdice", "liarsdice/bar-2/events")
	nobody := fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t)) // bar-1's Pi is off
	venue := venuetest.StartBroker(t, conf(t, "venue.conf", "venue-tables.conf"), map[string]string{"bar-1": nobody, "bar-2": link.Addr()})
	recs := map[string]*venuetest.Recorder{"venue": venuetest.Record(t, venue.URL(), "rec-venue", "liarsdice", "liarsdice/bar-2/events")}
	player := venuetest.Play(t, tableURL, "liarsdice", "bar-2", []string{"ann", "bob", "cy"}, map[string]any{"dice": 3})
	during := cutAndCheck(t, link, "bar-2", filepath.Join(dir, "bar-2.journal"), local, recs, d, func() {
		player.Stop()
		quietly(t, local, "bar-2")
		cancel()
		wg.Wait()
	})
	if os.Getenv("LIARSD_BRIDGE_REPORT") != "" {
		fmt.Printf("bridge (venue Mosquitto <- embedded broker): link cut %s, %d events published meanwhile, %d games\n", d, during, player.Games())
	}
}
