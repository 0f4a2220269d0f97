package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// The soak's settings, from the environment (make soak sets them):
// LIARSD_SOAK_KILLS daemon stops per broker (3 by default, the short
// version in make test), LIARSD_SOAK_BIN a liarsd binary to run (liarsd run
// --config FILE, and liarsd adjudicate; by default this test binary runs
// the daemon as liarsd run does), LIARSD_SOAK_BROKERS the brokers
// (embedded,mosquitto).
const (
	soakKillsEnv   = "LIARSD_SOAK_KILLS"
	soakBinEnv     = "LIARSD_SOAK_BIN"
	soakBrokersEnv = "LIARSD_SOAK_BROKERS"
	// soakStopsEnv is how the daemon is stopped: "mixed" (the default:
	// kill -9 or SIGTERM at random, and Mosquitto killed -9 now and then)
	// or "kill9" (every stop a kill -9 of the daemon, the broker left
	// alone).
	soakStopsEnv = "LIARSD_SOAK_STOPS"
)

// soakFigures are what a soak counts of the events a persistent QoS 1
// subscriber received against the journal's (liarsd adjudicate).
type soakFigures struct {
	Events, Kill9, Term, BrokerKills      int
	Received, Lost, Duplicated, Reordered int
	Differing                             int
	// Commands published by clients that never send one again, Acked those
	// the broker acknowledged, AckedLost those of them the journal does
	// not hold, AckedTwice those it holds more than once. LostToBroker are
	// those of AckedLost that Mosquitto acknowledged within a second
	// before it was itself killed -9: it saves what it holds after each
	// change, but not before it acknowledges (docs/mqtt.md).
	Commands, Acked, AckedLost, AckedTwice, LostToBroker int
}

func (f soakFigures) String() string {
	return fmt.Sprintf("events %d, kills %d (daemon kill -9 %d, SIGTERM %d; broker kill -9 %d), received %d, lost %d, duplicated (identical) %d, reordered %d, differing %d; "+
		"commands %d, acknowledged %d, acknowledged but not journaled %d (%d acknowledged by Mosquitto within 1 s before its own kill -9), journaled twice %d",
		f.Events, f.Kill9+f.Term+f.BrokerKills, f.Kill9, f.Term, f.BrokerKills, f.Received, f.Lost, f.Duplicated, f.Reordered, f.Differing,
		f.Commands, f.Acked, f.AckedLost, f.LostToBroker, f.AckedTwice)
}

// compareCommands holds the commands acknowledged against the journal's
// record lines: it returns those the journal does not hold, and counts
// those it holds more than once.
func compareCommands(acked []ackedCommand, lines [][]byte) (lost []ackedCommand, twice int) {
	held := map[string]int{}
	for _, l := range lines {
		var h struct{ ID json.RawMessage }
		if json.Unmarshal(l, &h) == nil && len(h.ID) > 0 {
			held[string(h.ID)]++
		}
	}
	for _, c := range acked {
		switch n := held[c.ID]; {
		case n == 0:
			lost = append(lost, c)
		case n > 1:
			twice++
		}
	}
	return lost, twice
}

// lostToBroker counts the commands of lost acknowledged within a second
// before one of the broker's own kills.
func lostToBroker(lost []ackedCommand, brokerKills []time.Time) int {
	n := 0
	for _, c := range lost {
		for _, k := range brokerKills {
			if d := k.Sub(c.At); d >= 0 && d < time.Second {
				n++
				break
			}
		}
	}
	return n
}

func TestCompareCommands(t *testing.T) {
	lines := [][]byte{[]byte(`{"type":"bid","id":1}`), []byte(`{"type":"leave","id":"p-1"}`), []byte(`{"type":"leave","id":"p-1"}`), []byte(`{"type":"x"}`)}
	t0 := time.Now()
	for _, tt := range []struct {
		acked             []string
		lost, twice, toMQ int
	}{
		{[]string{"1"}, 0, 0, 0},
		{[]string{"1", `"p-2"`}, 1, 0, 1},
		{[]string{`"p-1"`, "2", "3"}, 2, 1, 1},
	} {
		var acked []ackedCommand
		for i, id := range tt.acked {
			acked = append(acked, ackedCommand{id, t0.Add(time.Duration(i) * time.Second)})
		}
		lost, twice := compareCommands(acked, lines)
		if len(lost) != tt.lost || twice != tt.twice {
			t.Errorf("%v: got %d lost, %d twice; want %d, %d", tt.acked, len(lost), twice, tt.lost, tt.twice)
		}
		// The broker killed 1.5 s after the start: the command
		// acknowledged at 1 s is its loss, one at 2 s is not.
		if got := lostToBroker(lost, []time.Time{t0.Add(1500 * time.Millisecond)}); got != tt.toMQ {
			t.Errorf("%v: got %d lost to the broker's kill; want %d", tt.acked, got, tt.toMQ)
		}
	}
}

// compareEvents counts the received event payloads against want, the
// journal's events in seq order: lost (a seq never received), duplicated
// (received again, identical), reordered (first received after a later
// seq) and differing (a payload that is not the journal's event of its
// seq).
func compareEvents(got [][]byte, want []string) soakFigures {
	f := soakFigures{Events: len(want), Received: len(got)}
	seen := map[int]bool{}
	top := 0
	for _, p := range got {
		var h struct{ Seq int }
		_ = json.Unmarshal(p, &h)
		if h.Seq < 1 || h.Seq > len(want) || string(p) != want[h.Seq-1] {
			f.Differing++
			continue
		}
		if seen[h.Seq] {
			f.Duplicated++
			continue
		}
		seen[h.Seq] = true
		if h.Seq < top {
			f.Reordered++
		}
		top = max(top, h.Seq)
	}
	f.Lost = len(want) - len(seen)
	return f
}

func TestCompareEvents(t *testing.T) {
	want := []string{`{"seq":1}`, `{"seq":2}`, `{"seq":3}`, `{"seq":4}`}
	for _, tt := range []struct {
		name string
		got  []string
		want soakFigures
	}{
		{"all in order", want, soakFigures{Events: 4, Received: 4}},
		{"a repeat", []string{`{"seq":1}`, `{"seq":2}`, `{"seq":1}`, `{"seq":2}`, `{"seq":3}`, `{"seq":4}`}, soakFigures{Events: 4, Received: 6, Duplicated: 2}},
		{"one lost, one overtaken", []string{`{"seq":1}`, `{"seq":3}`, `{"seq":2}`}, soakFigures{Events: 4, Received: 3, Lost: 1, Reordered: 1}},
		{"another event under a seq", []string{`{"seq":1}`, `{"seq":2,"x":1}`, `{"seq":2}`, `{"seq":3}`, `{"seq":4}`}, soakFigures{Events: 4, Received: 5, Differing: 1}},
	} {
		var got [][]byte
		for _, g := range tt.got {
			got = append(got, []byte(g))
		}
		if f := compareEvents(got, want); f != tt.want {
			t.Errorf("%s: got %+v; want %+v", tt.name, f, tt.want)
		}
	}
}

// The soak: a daemon (liarsd run) referees games a client plays over MQTT
// commands while a persistent QoS 1 subscriber (the same client) records
// every event and another client sends refused commands (15 a second); the daemon is stopped again and again at random, by kill -9
// or SIGTERM, and Mosquitto is killed -9 too; at the end every event
// received is compared with liarsd adjudicate of the journal: none lost,
// none reordered, none differing (identical repeats are QoS 1's right).
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills daemon processes")
	}
	kills := 3
	if v := os.Getenv(soakKillsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a number of kills", soakKillsEnv, v)
		}
		kills = n
	}
	brokers := "embedded,mosquitto"
	if v := os.Getenv(soakBrokersEnv); v != "" {
		brokers = v
	}
	kill9 := false
	switch v := os.Getenv(soakStopsEnv); v {
	case "", "mixed":
	case "kill9":
		kill9 = true
	default:
		t.Fatalf("%s=%q: want mixed or kill9", soakStopsEnv, v)
	}
	for _, broker := range strings.Split(brokers, ",") {
		t.Run(broker, func(t *testing.T) {
			f := soak(t, broker == "mosquitto", kills, kill9)
			t.Logf("soak %s: %s", broker, f)
			fmt.Printf("soak %s: %s\n", broker, f)
			if f.Lost > 0 || f.Reordered > 0 || f.Differing > 0 || f.AckedLost > f.LostToBroker || f.AckedTwice > 0 {
				t.Errorf("%s: %s; want 0 lost, 0 reordered, 0 differing, every acknowledged command journaled once (but those a kill -9 of Mosquitto lost)", broker, f)
			}
		})
	}
}

// soak runs the soak against the embedded broker or Mosquitto; kill9
// makes every stop a kill -9 of the daemon.
func soak(t *testing.T, mosquitto bool, kills int, kill9 bool) soakFigures {
	dir := t.TempDir()
	c := config.Default()
	c.Table, c.StateDir = "t1", dir
	var m *mqtttest.Mosquitto
	url := ""
	if mosquitto {
		// Mosquitto saves its persistence every autosave_interval (1 s
		// here) by default: a kill -9 loses what it acknowledged since.
		// autosave_on_changes saves it after every change instead
		// (docs/mqtt.md).
		m = mqtttest.StartMosquittoWith(t, "autosave_on_changes true\n")
		c.Broker.URL, url = m.URL(), m.URL()
	} else {
		addr := fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t))
		c.Broker.Embedded.Listen, c.Broker.Embedded.WebSocket = addr, "off"
		url = "tcp://" + addr
	}
	cfgPath := writeDaemonConfig(t, dir, c)
	bin := os.Getenv(soakBinEnv)
	start := func() (*exec.Cmd, *sync.WaitGroup) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+cfgPath)
		if bin != "" {
			cmd = exec.Command(bin, "run", "--config", cfgPath, "--http", "off")
		}
		return cmd, spawn(t, dir, cmd)
	}
	online := func(sub *mqtttest.Subscriber, mark int) {
		sub.Wait(t, 30*time.Second, "the daemon online", func(ms []mqtttest.Message) bool {
			for _, m := range ms[mark:] {
				if m.Topic == "liarsdice/t1/status" && string(m.Payload) == "online" {
					return true
				}
			}
			return false
		})
	}
	// The embedded broker comes with the daemon: it must be up before
	// the subscriber's first connection.
	cmd, wg := start()
	sub := mqtttest.Subscribe(t, url, "watcher", "liarsdice/t1/#")
	online(sub, 0)
	rng := rand.New(rand.NewPCG(36, uint64(time.Now().UnixNano())))
	// The commands go through clients that never send one again (as
	// mosquitto_pub -q 1): what the broker acknowledged must be journaled.
	drv := &tableDriver{sub: sub, rng: rng, play: map[string]computer.Player{}, presets: engine.PresetNames(), once: newOncePublisher(url, "driver")}
	for i, s := range []string{"ann", "bob", "cy"} {
		drv.play[s] = computer.NewSimple(uint64(i))
	}
	// A second client sends a refused command about 15 times a second
	// throughout, stops and restarts included: each is journaled and
	// published as a rejected event, so events are published at every
	// moment, also while the subscriber comes back.
	stopPest := make(chan struct{})
	pestDone := make(chan struct{})
	pest := newOncePublisher(url, "pest")
	var pestAcked []ackedCommand
	pestSent := 0
	go func() {
		defer close(pestDone)
		for i := 0; ; i++ {
			select {
			case <-stopPest:
				return
			case <-time.After(66 * time.Millisecond):
			}
			pestSent++
			if pest.publish("liarsdice/t1/cmd", fmt.Appendf(nil, `{"id":"pest-%d","type":"bid","seat":"zed","quantity":1,"face":2}`, i), time.Second) {
				pestAcked = append(pestAcked, ackedCommand{fmt.Sprintf(`"pest-%d"`, i), time.Now()})
			}
		}
	}()
	var f soakFigures
	var brokerKills []time.Time
	for k := 0; k < kills; k++ {
		until := time.Now().Add(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		for time.Now().Before(until) {
			drv.step(t)
		}
		if mosquitto && !kill9 && rng.IntN(4) == 0 {
			// The broker dies under the daemon, which stays.
			brokerKills = append(brokerKills, time.Now())
			m.Kill9()
			f.BrokerKills++
			continue
		}
		// The stop lands while the driver's last command may be anywhere
		// between the broker, the referee, the journal and the publisher.
		sig := syscall.SIGKILL
		if !kill9 && rng.IntN(3) == 0 {
			sig = syscall.SIGTERM
			f.Term++
		} else {
			f.Kill9++
		}
		time.AfterFunc(time.Duration(rng.IntN(15))*time.Millisecond, func() { _ = cmd.Process.Signal(sig) })
		drv.step(t)
		wg.Wait()
		mark := len(sub.Messages())
		cmd, wg = start()
		online(sub, mark)
	}
	for i := 0; i < 30; i++ {
		drv.step(t)
	}
	close(stopPest)
	<-pestDone
	pest.close()
	time.Sleep(500 * time.Millisecond) // the pest's last commands are answered
	_ = cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()
	want := soakAdjudicate(t, bin, c.JournalPath())
	// A stop while the broker is away (just killed, not yet back) keeps
	// what it could not deliver for the next start (docs/referee.md): a
	// table is started again, and the last start publishes it.
	mark := len(sub.Messages())
	cmd, wg = start()
	online(sub, mark)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var got [][]byte
		for _, m := range sub.On("liarsdice/t1/events") {
			got = append(got, m.Payload)
		}
		if compareEvents(got, want).Lost == 0 {
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()

	if len(want) < 20 {
		t.Fatalf("only %d events over %d runs: the soak played too little", len(want), kills+1)
	}
	t.Logf("presets played: %v", presetsJournaled(t, c.JournalPath()))
	lines, err := journal.ReadRecord(c.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	acked := append(drv.acked, pestAcked...)
	f.Commands, f.Acked = drv.seq+pestSent, len(acked)
	lost, twice := compareCommands(acked, lines)
	f.AckedLost, f.AckedTwice, f.LostToBroker = len(lost), twice, lostToBroker(lost, brokerKills)
	for _, c := range lost[:min(len(lost), 10)] {
		t.Logf("acknowledged, not journaled: command %s, acknowledged at %s (broker kills at %v)", c.ID, c.At.Format("15:04:05.000"), brokerKills)
	}
	// What is owed may still be on its way: wait for every seq, or give
	// up after a minute and count what never came as lost.
	var got [][]byte
	deadline := time.Now().Add(60 * time.Second)
	for {
		got = got[:0]
		for _, m := range sub.On("liarsdice/t1/events") {
			got = append(got, m.Payload)
		}
		f2 := compareEvents(got, want)
		if f2.Lost > 0 && time.Now().After(deadline) {
			seen := map[int]bool{}
			for _, p := range got {
				var h struct{ Seq int }
				_ = json.Unmarshal(p, &h)
				seen[h.Seq] = true
			}
			var lost []int
			for i := 1; i <= len(want) && len(lost) < 20; i++ {
				if !seen[i] {
					lost = append(lost, i)
				}
			}
			t.Logf("lost seqs (the first 20): %v", lost)
		}
		if f2.Lost == 0 || time.Now().After(deadline) {
			f2.Kill9, f2.Term, f2.BrokerKills = f.Kill9, f.Term, f.BrokerKills
			f2.Commands, f2.Acked, f2.AckedLost, f2.AckedTwice, f2.LostToBroker = f.Commands, f.Acked, f.AckedLost, f.AckedTwice, f.LostToBroker
			return f2
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// soakAdjudicate returns the journal's events, one line each: liarsd
// adjudicate's output when bin is set.
func soakAdjudicate(t *testing.T, bin, journal string) []string {
	t.Helper()
	if bin == "" {
		return adjudicate(t, journal)
	}
	out, err := exec.Command(bin, "adjudicate", journal).Output()
	if err != nil {
		t.Fatalf("liarsd adjudicate %s: %v", journal, err)
	}
	return strings.Split(strings.TrimSpace(string(bytes.TrimSpace(out))), "\n")
}

// presetsJournaled lists the presets of the games the journal holds, in
// the order they were first started.
func presetsJournaled(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.journal"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, `"new_game"`) {
				continue
			}
			for _, p := range engine.PresetNames() {
				if strings.Contains(line, `"rules":"`+p+`"`) && !slices.Contains(seen, p) {
					seen = append(seen, p)
				}
			}
		}
	}
	return seen
}
