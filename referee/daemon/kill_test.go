package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// childEnv names the configuration file a re-executed test binary runs the
// daemon on, as liarsd run does: the kill -9 test kills a real process.
const childEnv = "LIARSD_DAEMON_TEST_CONFIG"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(runChild(path))
	}
	os.Exit(m.Run())
}

// killAtEnv, in a child daemon's environment, makes it kill -9 itself
// right after it journals the first accepted line that holds this text
// and before any of the line's events is published (see killAt).
const killAtEnv = "LIARSD_DAEMON_TEST_KILL_AT"

// killAt is a log handler that kills its own process with SIGKILL at the
// referee's "input accepted" log line of a line holding the text line:
// the referee logs it after the line's journal append (fsynced) and before
// it publishes the line's events, state and reply.
type killAt struct {
	slog.Handler
	line string
}

func (k killAt) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "referee: input accepted" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "line" && strings.Contains(a.Value.String(), k.line) {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // the signal is on its way
			}
			return true
		})
	}
	return k.Handler.Handle(ctx, r)
}

func (k killAt) WithAttrs(as []slog.Attr) slog.Handler {
	return killAt{Handler: k.Handler.WithAttrs(as), line: k.line}
}

func (k killAt) WithGroup(name string) slog.Handler {
	return killAt{Handler: k.Handler.WithGroup(name), line: k.line}
}

// killOnEnv, in a child daemon's environment, makes it kill -9 itself at
// the first log record (of any level) with this message (see killOn).
const killOnEnv = "LIARSD_DAEMON_TEST_KILL_ON"

// killOn is a log handler that kills its own process with SIGKILL at the
// first record whose message is msg, debug records included (the daemon
// logs each step of a command at debug level); the others it passes on
// at the level of the handler it wraps.
type killOn struct {
	slog.Handler
	msg string
}

func (k killOn) Enabled(context.Context, slog.Level) bool { return true }

func (k killOn) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == k.msg {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
	if !k.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return k.Handler.Handle(ctx, r)
}

func (k killOn) WithAttrs(as []slog.Attr) slog.Handler {
	return killOn{Handler: k.Handler.WithAttrs(as), msg: k.msg}
}

func (k killOn) WithGroup(name string) slog.Handler {
	return killOn{Handler: k.Handler.WithGroup(name), msg: k.msg}
}

func runChild(path string) int {
	c, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var h slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})
	if at := os.Getenv(killAtEnv); at != "" {
		h = killAt{Handler: h, line: at}
	}
	if msg := os.Getenv(killOnEnv); msg != "" {
		h = killOn{Handler: h, msg: msg}
	}
	log := slog.New(h)
	if err := daemon.Run(ctx, c, daemon.Options{Logger: log}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// tableDriver plays a table over MQTT from its retained state, as
// scoreboard apps and remote seats would: it never assumes a command
// arrived, it looks at the state again.
type tableDriver struct {
	sub  *mqtttest.Subscriber
	rng  *rand.Rand
	seq  int // commands sent
	hand string
	dice map[string][]int
	play map[string]computer.Player
	// presets, when set, are the rules of the games the driver starts, in
	// turn (common-hand only when empty).
	presets []string
	games   int
	// once, when set, publishes the commands instead of sub's client,
	// never sending one again (oncePublisher); acked are those the broker
	// acknowledged.
	once  *oncePublisher
	acked []ackedCommand
}

// ackedCommand is a command the broker acknowledged: its id as compact
// JSON, and when.
type ackedCommand struct {
	ID string
	At time.Time
}

// newGame is the command that starts the driver's next game: three seats,
// two dice each where the preset takes a number of dice.
func (d *tableDriver) newGame() map[string]any {
	rules := "common-hand"
	if len(d.presets) > 0 {
		rules = d.presets[d.games%len(d.presets)]
	}
	d.games++
	m := map[string]any{"type": "new_game", "rules": rules, "seats": []string{"ann", "bob", "cy"}, "first": "ann"}
	if slices.Contains(engine.Presets[rules].Takes, "dice") {
		m["options"] = map[string]int{"dice": 2}
	}
	return m
}

func (d *tableDriver) state() (engine.Snapshot, bool) {
	st := d.sub.On("liarsdice/t1/state")
	if len(st) == 0 {
		return engine.Snapshot{}, false
	}
	var s engine.Snapshot
	if err := json.Unmarshal(st[len(st)-1].Payload, &s); err != nil {
		return engine.Snapshot{}, false
	}
	return s, true
}

// step sends one command for the state the table is in.
func (d *tableDriver) step(t *testing.T) {
	s, ok := d.state()
	if !ok {
		return
	}
	key := fmt.Sprint(s.Game, s.Hand, s.Rules, len(s.Seats))
	if key != d.hand || d.dice == nil {
		d.hand, d.dice = key, map[string][]int{}
		for _, st := range s.Seats {
			f := slices.Clone(st.Shown)
			for len(f) < st.Dice {
				f = append(f, 1+d.rng.IntN(6))
			}
			d.dice[st.Name] = f
		}
	}
	var line []byte
	switch s.Phase {
	case engine.PhaseIdle, engine.PhaseGameOver:
		line, _ = json.Marshal(d.newGame())
	case engine.PhaseOpening:
		// The seats tied for the first opener roll again (star-board).
		roll := map[string][]int{}
		for _, st := range s.Seats {
			if slices.Contains(s.Rolling, st.Name) {
				f := make([]int, st.Dice)
				for i := range f {
					f[i] = 1 + d.rng.IntN(s.Sides)
				}
				roll[st.Name] = f
			}
		}
		line, _ = json.Marshal(map[string]any{"type": engine.ActOpeningRoll, "dice": roll})
	case engine.PhaseReveal:
		reveal := map[string][]int{}
		for _, st := range s.Seats {
			if st.InHand {
				f := d.dice[st.Name]
				for len(f) < st.Dice {
					// A seat the driver rolled for at fewer dice (a state
					// seen mid-restart): roll the rest now.
					f = append(f, 1+d.rng.IntN(6))
				}
				d.dice[st.Name] = f
				reveal[st.Name] = f[:st.Dice]
			}
		}
		line, _ = json.Marshal(map[string]any{"type": "reveal", "dice": reveal})
	case engine.PhaseBidding:
		if s.Turn == nil {
			return
		}
		p, ok := d.play[*s.Turn]
		if !ok {
			return
		}
		v := computer.View{Snapshot: s, Seat: *s.Turn, Dice: d.dice[*s.Turn]}
		line = record.Encode(p.Act(v))
	default:
		return
	}
	var m map[string]any
	_ = json.Unmarshal(line, &m)
	d.seq++
	m["id"] = d.seq
	b, _ := json.Marshal(m)
	if d.once != nil {
		if d.once.publish("liarsdice/t1/cmd", b, 2*time.Second) {
			d.acked = append(d.acked, ackedCommand{fmt.Sprint(d.seq), time.Now()})
		}
	} else {
		d.sub.Client().Publish("liarsdice/t1/cmd", 1, false, b).WaitTimeout(2 * time.Second)
	}
	// Wait for a newer state (or give up and look again).
	deadline := time.Now().Add(400 * time.Millisecond)
	for time.Now().Before(deadline) {
		if n, ok := d.state(); ok && n.Seq != s.Seq || n.Phase != s.Phase || n.Turn != nil && s.Turn != nil && *n.Turn != *s.Turn {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// kill -9 the daemon at random points over many games, restart it: the
// journal replays and the published events go on without gaps, and a seq
// is never reused for another event.
func TestKill9AndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills daemon processes")
	}
	c, dir, cfgPath, sub, drv := killTable(t, 42, nil)
	rng := drv.rng

	start := func() (*exec.Cmd, *sync.WaitGroup) { return startChild(t, dir, cfgPath, sub) }
	const kills = 8
	offline := 0
	for k := 0; k < kills; k++ {
		cmd, wg := start()
		until := time.Now().Add(time.Duration(300+rng.IntN(900)) * time.Millisecond)
		for time.Now().Before(until) {
			drv.step(t)
		}
		// The kill lands while the driver's last command may be anywhere
		// between the broker, the referee, the journal and the publisher.
		time.AfterFunc(time.Duration(rng.IntN(15))*time.Millisecond, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		drv.step(t)
		wg.Wait()
		if k == 0 {
			// Mosquitto gives the daemon's last will at once: the socket died.
			sub.Wait(t, 10*time.Second, "status offline after kill -9", func(ms []mqtttest.Message) bool {
				for i := len(ms) - 1; i >= 0; i-- {
					if ms[i].Topic == "liarsdice/t1/status" {
						return string(ms[i].Payload) == "offline"
					}
				}
				return false
			})
			offline++
		}
	}
	// The last run ends cleanly.
	cmd, wg := start()
	for i := 0; i < 30; i++ {
		drv.step(t)
	}
	time.Sleep(200 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()

	want := adjudicate(t, c.JournalPath())
	if len(want) < 20 {
		t.Fatalf("only %d events over %d runs: the test played too little", len(want), kills+1)
	}
	got, evs := receivedEvents(t, sub, len(want))
	if !slices.Equal(got, want) {
		t.Errorf("received %d events, the journal gives %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	rejected := 0
	for _, e := range want {
		var h struct{ Type string }
		_ = json.Unmarshal([]byte(e), &h)
		if h.Type == engine.EvRejected {
			rejected++ // a command sent again after a kill, refused: in the record too
		}
	}
	games := strings.Count(string(readJournal(t, c.JournalPath())), `"type":"new_game"`)
	log, _ := os.ReadFile(filepath.Join(dir, "daemon.log"))
	repeated := strings.Count(string(log), "referee: a command id seen before")
	t.Logf("%d kills, %d games, %d events (%d rejected), %d event messages received (repeats allowed), %d commands sent, %d commands sent again answered without applying them again",
		kills, games, len(want), rejected, len(evs), drv.seq, repeated)
}

// killTable prepares a table t1 for a daemon in a child process, against
// a Mosquitto of its own: its configuration (written in dir), a subscriber
// to all its topics, and a driver that plays ann, bob and cy in games of
// presets (common-hand only when nil), seeded with seed and the time.
// Its journal is in segments of 5 lines: kills land around new segments
// too, and each start resumes from a checkpoint.
func killTable(t *testing.T, seed uint64, presets []string) (c config.Config, dir, cfgPath string, sub *mqtttest.Subscriber, drv *tableDriver) {
	t.Helper()
	m := mqtttest.StartMosquitto(t)
	dir = t.TempDir()
	c = config.Default()
	c.Table, c.StateDir, c.Broker.URL = "t1", dir, m.URL()
	c.JournalSegmentLines = 5
	cfgPath = writeDaemonConfig(t, dir, c)
	sub = mqtttest.Subscribe(t, m.URL(), "watcher", "liarsdice/t1/#")
	rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	drv = &tableDriver{sub: sub, rng: rng, play: map[string]computer.Player{}, presets: presets}
	for i, s := range []string{"ann", "bob", "cy"} {
		drv.play[s] = computer.NewSimple(uint64(i))
	}
	return c, dir, cfgPath, sub, drv
}

// spawn starts cmd with its output appended to dir/daemon.log. The
// WaitGroup is done when it has exited.
func spawn(t *testing.T, dir string, cmd *exec.Cmd) *sync.WaitGroup {
	t.Helper()
	logf, _ := os.OpenFile(filepath.Join(dir, "daemon.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	cmd.Stdout, cmd.Stderr = io.Discard, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = cmd.Wait(); logf.Close() }()
	return &wg
}

// startChild runs the daemon on the configuration at cfgPath in a child
// process (this test binary again, TestMain's childEnv), its log appended
// to dir/daemon.log, with env added to its environment, and waits for its
// "online" on sub (table t1). The WaitGroup is done when it has exited.
func startChild(t *testing.T, dir, cfgPath string, sub *mqtttest.Subscriber, env ...string) (*exec.Cmd, *sync.WaitGroup) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+cfgPath), env...)
	wg := spawn(t, dir, cmd)
	// Wait for this run's "online" (after the last status seen).
	mark := len(sub.Messages())
	sub.Wait(t, 15*time.Second, "the daemon online", func(ms []mqtttest.Message) bool {
		for _, m := range ms[mark:] {
			if m.Topic == "liarsdice/t1/status" && string(m.Payload) == "online" {
				return true
			}
		}
		return false
	})
	return cmd, wg
}

// receivedEvents waits until sub has received n events of table t1 (every
// seq up to n at least once) and returns them, one per seq (uniqueEvents),
// and every event message received.
func receivedEvents(t *testing.T, sub *mqtttest.Subscriber, n int) ([]string, []mqtttest.Message) {
	t.Helper()
	var evs []mqtttest.Message
	sub.Wait(t, 20*time.Second, fmt.Sprintf("all %d events", n), func(ms []mqtttest.Message) bool {
		evs = evs[:0]
		seen := map[int]bool{}
		for _, m := range ms {
			if m.Topic == "liarsdice/t1/events" {
				evs = append(evs, m)
				var h struct{ Seq int }
				_ = json.Unmarshal(m.Payload, &h)
				seen[h.Seq] = true
			}
		}
		return len(seen) >= n
	})
	return uniqueEvents(t, evs), evs
}

// writeDaemonConfig writes c as dir/liarsd.yaml for a daemon process, checks
// that the daemon would load it, and logs the daemon's log (dir/daemon.log)
// if the test fails. It returns the file's path.
func writeDaemonConfig(t *testing.T, dir string, c config.Config) string {
	t.Helper()
	b, _ := yaml.Marshal(c)
	path := filepath.Join(dir, "liarsd.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(path); err != nil {
		t.Fatalf("the test's configuration: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "daemon.log"))
			t.Logf("daemon log (last 4 kB):\n%s", log[max(0, len(log)-4096):])
		}
	})
	return path
}
