package fleet_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/fleet"
	"github.com/liarsd/liarsd/referee/fleet/venuetest"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

func TestNames(t *testing.T) {
	for _, c := range []struct {
		prefix    string
		n         int
		first, at string
	}{{"t", 200, "t001", "t200"}, {"bar-", 9, "bar-1", "bar-9"}, {"t", 10, "t01", "t10"}} {
		got := fleet.Names(c.prefix, c.n)
		if len(got) != c.n || got[0] != c.first || got[c.n-1] != c.at {
			t.Errorf("Names(%q, %d): got %s ... %s (%d); want %s ... %s", c.prefix, c.n, got[0], got[len(got)-1], len(got), c.first, c.at)
		}
	}
}

func TestConfigsRefuseWhatCannotRun(t *testing.T) {
	for _, c := range []struct {
		o    fleet.Options
		want string
	}{
		{fleet.Options{Broker: "tcp://h:1883", StateDir: "/x"}, "no tables"},
		{fleet.Options{Tables: []string{"t1"}, StateDir: "/x"}, "no broker"},
		{fleet.Options{Tables: []string{"t1"}, Broker: "tcp://h:1883"}, "no state directory"},
		{fleet.Options{Tables: []string{"t 1"}, Broker: "tcp://h:1883", StateDir: "/x"}, `table "t 1"`},
		{fleet.Options{Tables: []string{"t1", "t1"}, Broker: "tcp://h:1883", StateDir: "/x"}, "named twice"},
		{fleet.Options{Tables: []string{"t1"}, Broker: "tcp://h:1883", StateDir: "/x", Brokers: map[string]string{"t2": "tcp://h:1"}}, "not one of the fleet's"},
		{fleet.Options{Tables: []string{"t1"}, Broker: "tcp://h:1883", StateDir: "/x", Rules: "poker"}, "poker"},
	} {
		if _, err := fleet.Configs(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v; want an error saying %q", c.o, err, c.want)
		}
	}
	cs, err := fleet.Configs(fleet.Options{Tables: []string{"t1", "t2"}, Broker: "tcp://h:1883", StateDir: "/x", Brokers: map[string]string{"t2": "tcp://p:1883"}, Board: true})
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].Broker.URL != "tcp://h:1883" || cs[1].Broker.URL != "tcp://p:1883" || cs[1].JournalPath() != "/x/t2.journal" || cs[0].Board == nil || *cs[0].Broker.HomeAssistant {
		t.Errorf("got %+v; want each table on its broker, its journal in the state directory, a board, no Home Assistant", cs)
	}
}

// TestTablesPlayWithTheSimulatedBoard: tables of a fleet, each with the
// simulated board, play a game each to its end: every event reaches a
// subscriber, as each table's journal gives it.
func TestTablesPlayWithTheSimulatedBoard(t *testing.T) {
	m := mqtttest.StartMosquitto(t)
	rec := venuetest.Record(t, m.URL(), "rec", "liarsdice", "")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := fleet.Run(ctx, fleet.Options{Tables: []string{"a", "b"}, Broker: m.URL(), StateDir: dir, Pace: 10 * time.Millisecond, Board: true,
			Logger: quiet(), Ready: func() { close(ready) }})
		if err != nil {
			t.Error(err)
		}
	}()
	<-ready
	pa := venuetest.Play(t, m.URL(), "liarsdice", "a", []string{"ann", "bob"}, map[string]any{"dice": 2})
	pb := venuetest.Play(t, m.URL(), "liarsdice", "b", []string{"cy", "dee", "eve"}, map[string]any{"dice": 1})
	waitFor(t, 60*time.Second, "two games at each table", func() bool { return pa.Games() >= 3 && pb.Games() >= 3 })
	pa.Stop()
	pb.Stop()
	time.Sleep(time.Second)
	cancel()
	wg.Wait()
	want := map[string][][]byte{}
	for _, id := range []string{"a", "b"} {
		evs, err := venuetest.Adjudicate("", filepath.Join(dir, id+".journal"))
		if err != nil {
			t.Fatal(err)
		}
		want[id] = evs
	}
	waitFor(t, 10*time.Second, "the last events", func() bool { return rec.Last("a") >= len(want["a"]) && rec.Last("b") >= len(want["b"]) })
	if c := rec.CheckAgainst(want); c.Lost != 0 || c.Reordered != 0 || c.Differing != 0 || c.Events == 0 {
		t.Errorf("%s: %v", c, c.Examples)
	}
}
