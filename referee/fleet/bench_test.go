package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/referee/fleet"
	"github.com/liarsd/liarsd/referee/fleet/venuetest"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
	"github.com/liarsd/liarsd/referee/scoreboard/browsertest"
	"github.com/liarsd/liarsd/referee/tournament"
)

// envInt reads a benchmark setting from the environment.
func envInt(t *testing.T, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", name, v, err)
		}
		return n
	}
	return def
}

// proc is a liarsd process of the benchmark.
type proc struct {
	t    *testing.T
	name string
	args []string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	out  *bytes.Buffer
	mu   sync.Mutex
	// cpu sums the CPU time of the process's earlier lives (restarts).
	cpu  time.Duration
	peak int64
}

func startProc(t *testing.T, dir, name, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, name: name, args: append([]string{bin}, args...), log: filepath.Join(dir, name+".log")}
	p.start()
	t.Cleanup(func() { p.stop(syscall.SIGTERM) })
	return p
}

func (p *proc) start() {
	p.t.Helper()
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	logf, _ := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	p.mu.Lock()
	p.out = &bytes.Buffer{}
	p.mu.Unlock()
	p.cmd.Stdout = io.MultiWriter(logf, lockedWriter{p})
	p.cmd.Stderr = logf
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	done := make(chan struct{})
	p.done = done
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); logf.Close(); close(done) }(p.cmd)
}

type lockedWriter struct{ p *proc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

func (p *proc) stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// usage adds up the process's CPU time and its peak memory so far.
func (p *proc) usage() (time.Duration, int64) {
	r, err := venuetest.ReadProc(p.cmd.Process.Pid)
	if err != nil {
		return p.cpu, p.peak
	}
	return p.cpu + r.CPU, max(p.peak, r.Peak)
}

// kill9 kills the process (SIGKILL) and starts it again.
func (p *proc) kill9() {
	p.cpu, p.peak = p.usage()
	_ = p.cmd.Process.Kill()
	<-p.done
	p.start()
}

func (p *proc) stop(sig syscall.Signal) {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// api is the organiser's API of the tournament service.
type api struct {
	t   *testing.T
	url string
}

func (a api) do(line string) (ok bool, reason, message string) {
	a.t.Helper()
	for i := 0; ; i++ {
		r, err := http.Post(a.url+"api/do", "application/json", strings.NewReader(line))
		if err != nil {
			if i < 100 { // the service is restarting
				time.Sleep(200 * time.Millisecond)
				continue
			}
			a.t.Fatal(err)
		}
		var rep struct {
			OK      bool   `json:"ok"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		}
		err = json.NewDecoder(r.Body).Decode(&rep)
		r.Body.Close()
		if err != nil {
			a.t.Fatal(err)
		}
		return rep.OK, rep.Reason, rep.Message
	}
}

func (a api) must(line string) string {
	a.t.Helper()
	ok, reason, msg := a.do(line)
	if !ok {
		a.t.Fatalf("%.200s: %s: %s", line, reason, msg)
	}
	return msg
}

func (a api) view() (tournament.View, bool) {
	r, err := http.Get(a.url + "api/state")
	if err != nil {
		return tournament.View{}, false
	}
	defer r.Body.Close()
	var s struct {
		View tournament.View `json:"view"`
	}
	if json.NewDecoder(r.Body).Decode(&s) != nil {
		return tournament.View{}, false
	}
	return s.View, true
}

func (a api) get(path string) []byte {
	a.t.Helper()
	r, err := http.Get(a.url + path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return b
}

func waitHTTP(t *testing.T, url string, p *proc) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			return
		}
		select {
		case <-p.done:
			log, _ := os.ReadFile(p.log)
			t.Fatalf("%s exited:\n%s", p.name, log)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("%s does not answer at %s", p.name, url)
}

// stateTimes records when each table's state (its seq) reached a
// subscriber of the broker: the moment a page could learn of it.
type stateTimes struct {
	mu sync.Mutex
	at map[string]time.Time
	// largest is the largest payload of each tournament topic (state,
	// standings) seen.
	largest map[string]int
}

func watchStates(t *testing.T, url string) *stateTimes {
	t.Helper()
	s := &stateTimes{at: map[string]time.Time{}, largest: map[string]int{}}
	opts := paho.NewClientOptions().AddBroker(url).SetClientID("bench-state-times").SetAutoReconnect(true).
		SetConnectRetry(true).SetOrderMatters(false).
		SetOnConnectHandler(func(c paho.Client) {
			c.SubscribeMultiple(map[string]byte{"liarsdice/+/state": 0, "liarsdice/tournament/+/+": 0}, nil)
		})
	opts.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) {
		now := time.Now()
		if l := strings.Split(m.Topic(), "/"); len(l) == 4 && l[1] == "tournament" {
			s.mu.Lock()
			s.largest[l[3]] = max(s.largest[l[3]], len(m.Payload()))
			s.mu.Unlock()
			return
		}
		var st struct {
			Seq int `json:"seq"`
		}
		if m.Retained() || json.Unmarshal(m.Payload(), &st) != nil {
			return
		}
		table := strings.Split(m.Topic(), "/")[1]
		s.mu.Lock()
		key := table + "/" + strconv.Itoa(st.Seq)
		if _, ok := s.at[key]; !ok {
			s.at[key] = now
		}
		s.mu.Unlock()
	})
	cli := paho.NewClient(opts)
	if tok := cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	t.Cleanup(func() { cli.Disconnect(100) })
	return s
}

// latencyScript runs in the page: the first time a tile on the screen is
// drawn again with a new seq of its table (an update; not a tile drawn
// anew when the page turns, whose state may have come while another page
// was shown), it notes the table, the seq and when the frame that shows
// it is painted.
const latencyScript = `window.__drawn = []; const seen = new Set(); new MutationObserver(ms => { const now = []; for (const m of ms) {
  const nodes = m.type === 'attributes' ? [m.target] : [...m.addedNodes];
  for (const n of nodes) { if (!n.dataset || !n.dataset.seq) continue; const k = n.dataset.table + '/' + n.dataset.seq;
    if (seen.has(k)) continue; seen.add(k); if (m.type === 'attributes') now.push([n.dataset.table, n.dataset.seq]); } }
  if (now.length) requestAnimationFrame(() => { const t = performance.timeOrigin + performance.now(); for (const d of now) window.__drawn.push([d[0], +d[1], t]); });
}).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-seq']});`

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func uptime() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// TestBenchVenue is make bench-venue's run: a Swiss tournament of
// LIARSD_BENCH_PLAYERS computer players (1,000) at LIARSD_BENCH_TABLES
// simulated tables (200; liarsd fleet, one process) on one Mosquitto
// (docs/venue/venue.conf) on loopback, LIARSD_BENCH_ROUNDS rounds (3), the
// tournament service (liarsd tournament) killed -9 three times during the
// first round and the broker restarted once during the second, a venue
// page (liarsd web /tournament in headless Chromium) following it. It
// needs LIARSD_BIN, a liarsd binary. It prints the figures, and last:
// venue: tables T, players P, rounds R, events E, lost L, reordered O, mismatched M.
func TestBenchVenue(t *testing.T) {
	bin := os.Getenv("LIARSD_BIN")
	if os.Getenv("LIARSD_BENCH_VENUE") == "" || bin == "" {
		t.Skip("the 200-table benchmark: make bench-venue (LIARSD_BENCH_VENUE=1 LIARSD_BIN=bin/liarsd)")
	}
	nTables := envInt(t, "LIARSD_BENCH_TABLES", 200)
	nPlayers := envInt(t, "LIARSD_BENCH_PLAYERS", 1000)
	nRounds := envInt(t, "LIARSD_BENCH_ROUNDS", 3)
	pace := time.Duration(envInt(t, "LIARSD_BENCH_PACE_MS", 500)) * time.Millisecond
	seats := envInt(t, "LIARSD_BENCH_SEATS", 5)
	dir := t.TempDir()
	report := func(f string, a ...any) { fmt.Printf(f+"\n", a...) }
	report("bench-venue: %d tables, %d players, %d rounds, %d seats, pace %s; load %s at the start", nTables, nPlayers, nRounds, seats, pace, uptime())

	wsPort := mqtttest.FreePort(t)
	venue := venuetest.StartBrokerOn(t, filepath.Join("..", "..", "docs", "venue", "venue.conf"), mqtttest.FreePort(t), wsPort, nil)
	rec := venuetest.Record(t, venue.URL(), "bench-recorder", "liarsdice", "")
	states := watchStates(t, venue.URL())
	mosq0, _ := venuetest.ReadProc(venue.Pid())
	var mosqCPU time.Duration // of the broker's earlier lives
	var mosqPeak int64

	tables := fleet.Names("t", nTables)
	fleetDir := filepath.Join(dir, "fleet")
	fl := startProc(t, dir, "fleet", bin, "fleet", "--tables", strconv.Itoa(nTables), "--broker", venue.URL(),
		"--state-dir", fleetDir, "--pace", pace.String())
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(fl.stdout(), "tables ready") {
		if time.Now().After(deadline) {
			t.Fatalf("the fleet is not ready: %s", fl.stdout())
		}
		time.Sleep(100 * time.Millisecond)
	}
	report("bench-venue: %s", strings.TrimSpace(fl.stdout()))

	tPort := mqtttest.FreePort(t)
	tdir := filepath.Join(dir, "tournament")
	svc := startProc(t, dir, "tournament", bin, "tournament", "--name", "bench", "--broker", venue.URL(), "--state-dir", tdir,
		"--listen", fmt.Sprintf("127.0.0.1:%d", tPort))
	a := api{t: t, url: fmt.Sprintf("http://127.0.0.1:%d/", tPort)}
	waitHTTP(t, a.url+"api/state", svc)

	webPort := mqtttest.FreePort(t)
	web := startProc(t, dir, "web", bin, "web", "--listen", fmt.Sprintf("127.0.0.1:%d", webPort), "--websocket", fmt.Sprintf("ws://127.0.0.1:%d/", wsPort))
	waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/config.json", webPort), web)
	browser := browsertest.Start(t)
	ctx := context.Background()
	page, err := browser.Open(ctx, "about:blank", 1920, 1080)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	if err := page.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": latencyScript}, nil); err != nil {
		t.Fatal(err)
	}
	if err := page.Call(ctx, "Page.navigate", map[string]any{"url": fmt.Sprintf("http://127.0.0.1:%d/tournament?cycle=15", webPort)}, nil); err != nil {
		t.Fatal(err)
	}

	tableList, _ := json.Marshal(tables)
	a.must(fmt.Sprintf(`{"type":"setup","setup":{"title":"Bench open","format":"swiss","rules":"common-hand","seats":%d,"rounds":%d,"tables":%s,"time_limit":"60m","seed":46}}`,
		seats, nRounds, tableList))
	var ps []string
	for i := 1; i <= nPlayers; i++ {
		ps = append(ps, fmt.Sprintf(`{"name":"Player %04d","computer":"strong"}`, i))
	}
	a.must(`{"type":"register","players":[` + strings.Join(ps, ",") + `]}`)
	// Bad input, at scale: clear refusals, nothing changed.
	for _, c := range []struct{ line, reason string }{
		{`{"type":"register","players":[{"name":"Player 0042"}]}`, tournament.DuplicatePlayer},
		{`{"type":"override","round":1,"table":"t999","order":["Player 0001"],"reason":"x"}`, tournament.UnknownRound},
	} {
		if ok, reason, msg := a.do(c.line); ok || reason != c.reason {
			t.Errorf("%s: got %v %s %s; want refused %s", c.line, ok, reason, msg, c.reason)
		} else {
			report("bench-venue: refused as it should: %s: %s", reason, msg)
		}
	}

	start := time.Now()
	var roundTimes []time.Duration
	kills, restarts := 0, 0
	for r := 1; r <= nRounds; r++ {
		rs := time.Now()
		report("bench-venue: %s", a.must(`{"type":"start_round"}`))
		if r == 1 {
			if ok, reason, msg := a.do(`{"type":"start_round","round":1}`); ok || reason != tournament.RoundStarted {
				t.Errorf("a round started twice: got %v %s %s", ok, reason, msg)
			} else {
				report("bench-venue: refused as it should: %s: %s", reason, msg)
			}
			if ok, reason, msg := a.do(`{"type":"override","round":1,"table":"t999","order":["Player 0001"],"reason":"x"}`); ok || reason != tournament.UnknownTable {
				t.Errorf("an override of an unknown table: got %v %s %s", ok, reason, msg)
			} else {
				report("bench-venue: refused as it should: %s: %s", reason, msg)
			}
		}
		marks := map[int]bool{}
		for {
			v, ok := a.view()
			if ok && v.Round != nil && v.Round.Number == r && v.Round.Complete {
				break
			}
			done := 0
			if ok && v.Round != nil {
				done = v.Round.Done
			}
			// Round 1: the service killed -9 as a quarter, half and three
			// quarters of the tables finish (or every 40 s before any
			// does). Round 2: the broker restarted once, at a third.
			el := time.Since(rs)
			if r == 1 && kills < 3 {
				due := (kills+1)*nTables/4 <= done || el > time.Duration(kills+1)*40*time.Second
				if due && !marks[kills] {
					marks[kills] = true
					svc.kill9()
					kills++
					waitHTTP(t, a.url+"api/state", svc)
					report("bench-venue: round 1: the tournament service killed -9 (%d), %d of %d tables done, %s in", kills, done, nTables, el.Round(time.Second))
				}
			}
			if r == 2 && restarts == 0 && (3*done >= nTables || el > 60*time.Second) {
				if m, err := venuetest.ReadProc(venue.Pid()); err == nil {
					mosqCPU += m.CPU - mosq0.CPU
					mosqPeak = max(mosqPeak, m.Peak)
					mosq0 = venuetest.Proc{}
				}
				venue.Restart(time.Second)
				restarts++
				report("bench-venue: round 2: the venue broker restarted, %d of %d tables done, %s in", done, nTables, el.Round(time.Second))
			}
			if time.Since(rs) > 60*time.Minute {
				t.Fatalf("round %d does not end: %+v", r, v.Round)
			}
			time.Sleep(time.Second)
		}
		roundTimes = append(roundTimes, time.Since(rs))
		report("bench-venue: round %d over in %s; load %s", r, time.Since(rs).Round(time.Second), uptime())
	}
	elapsed := time.Since(start)
	v, _ := a.view()
	if !v.Finished {
		t.Errorf("the tournament is not finished after %d rounds: %s", nRounds, v.Status)
	}
	if ok, reason, _ := a.do(`{"type":"start_round"}`); ok || reason != tournament.Finished {
		t.Errorf("a round after the last: got %v %s; want refused finished", ok, reason)
	}
	// Usage, before anything stops.
	fleetCPU, fleetPeak := fl.usage()
	svcCPU, svcPeak := svc.usage()
	mosq1, _ := venuetest.ReadProc(venue.Pid())
	webCPU, webPeak := web.usage()

	// The page's update latency: a table's state at the broker to the
	// frame that draws it.
	var drawn [][]any
	if err := page.Eval(ctx, `window.__drawn`, &drawn); err != nil {
		t.Fatal(err)
	}
	report("bench-venue: the page drew %d tile updates; %d table states seen at the broker", len(drawn), len(states.at))
	states.mu.Lock()
	var lat []time.Duration
	for _, d := range drawn {
		table, _ := d[0].(string)
		seq, _ := d[1].(float64)
		ms, _ := d[2].(float64)
		at, ok := states.at[fmt.Sprintf("%s/%d", table, int(seq))]
		if !ok {
			continue
		}
		lat = append(lat, time.UnixMicro(int64(ms*1000)).Sub(at))
	}
	states.mu.Unlock()
	shot, err := page.Screenshot(ctx)
	if err == nil && os.Getenv("LIARSD_BENCH_SCREENSHOT") != "" {
		_ = os.WriteFile(os.Getenv("LIARSD_BENCH_SCREENSHOT"), shot, 0o644)
	}

	liveJSON := a.get("api/export.json")
	svc.stop(syscall.SIGTERM)
	web.stop(syscall.SIGTERM)
	fl.stop(syscall.SIGTERM)

	// Every event of every table's journal reached the subscriber, in
	// order (liarsd adjudicate of each journal).
	want := map[string][][]byte{}
	events := 0
	for _, id := range tables {
		evs, err := venuetest.Adjudicate(bin, filepath.Join(fleetDir, id+".journal"))
		if err != nil {
			t.Fatal(err)
		}
		want[id] = evs
		events += len(evs)
	}
	waitUntil := time.Now().Add(60 * time.Second)
	for time.Now().Before(waitUntil) {
		behind := false
		for id, evs := range want {
			if rec.Last(id) < len(evs) {
				behind = true
				break
			}
		}
		if !behind {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	check := rec.CheckAgainst(want)
	// Every game's result is its table's journal's; the standings are a
	// replay of the tournament's journal (liarsd tournament export).
	var live tournament.Export
	if err := json.Unmarshal(liveJSON, &live); err != nil {
		t.Fatal(err)
	}
	mismatched, games, fromEvents := 0, 0, 0
	for _, r := range live.Rounds {
		for _, g := range r.Games {
			games++
			if g.Result == nil {
				mismatched++
				continue
			}
			if g.Result.Source != tournament.FromEvents {
				continue
			}
			fromEvents++
			got, err := venuetest.FinishingOrder(want[g.Table], g.Table, g.Seats, g.Result.Start, g.Result.Seq)
			if err != nil || !reflect.DeepEqual(got, g.Result.Order) {
				mismatched++
				if mismatched < 5 {
					t.Errorf("round %d, table %s: the tournament has %v; the journal gives %v (%v)", r.Number, g.Table, g.Result.Order, got, err)
				}
			}
		}
	}
	out, err := exec.Command(bin, "tournament", "export", filepath.Join(tdir, "bench.tournament")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var replay tournament.Export
	if err := json.Unmarshal(out, &replay); err != nil {
		t.Fatal(err)
	}
	standingsDiffer := 0
	for i := range live.Standings {
		if i >= len(replay.Standings) || !reflect.DeepEqual(live.Standings[i], replay.Standings[i]) {
			standingsDiffer++
		}
	}
	mismatched += standingsDiffer + check.Differing
	if check.Lost != 0 || check.Reordered != 0 || mismatched != 0 {
		t.Errorf("%s; mismatched %d: %v", check, mismatched, check.Examples)
	}

	report("bench-venue: rounds took %v; %d games (%d results from the tables' events); the service killed -9 %d times, the broker restarted %d time", roundTimes, games, fromEvents, kills, restarts)
	report("bench-venue: events: %s", check)
	report("bench-venue: results equal to the journals: %d of %d; standings rows equal to the replay of the tournament's journal: %d of %d",
		fromEvents-min(mismatched, fromEvents), fromEvents, len(live.Standings)-standingsDiffer, len(live.Standings))
	secs := elapsed.Seconds()
	report("bench-venue: %d events in %s: %.0f events/s; %d table states seen at the broker", events, elapsed.Round(time.Second), float64(events)/secs, len(states.at))
	states.mu.Lock()
	report("bench-venue: the tournament's retained topics at their largest: state %d kB, standings %d kB", states.largest["state"]>>10, states.largest["standings"]>>10)
	states.mu.Unlock()
	perTable := func(d time.Duration) string {
		return fmt.Sprintf("%.1f%% of a core in all, %.3f%% a table", 100*d.Seconds()/secs, 100*d.Seconds()/secs/float64(nTables))
	}
	report("bench-venue: liarsd fleet (%d referees): CPU %s; peak memory %d MB, %.2f MB a table", nTables, perTable(fleetCPU), fleetPeak>>20, float64(fleetPeak)/float64(nTables)/(1<<20))
	report("bench-venue: mosquitto: CPU %s; peak memory %d MB", perTable(mosqCPU+mosq1.CPU-mosq0.CPU), max(mosqPeak, mosq1.Peak)>>20)
	report("bench-venue: liarsd tournament: CPU %.1f%% of a core; peak memory %d MB", 100*svcCPU.Seconds()/secs, svcPeak>>20)
	report("bench-venue: liarsd web: CPU %.1f%% of a core; peak memory %d MB", 100*webCPU.Seconds()/secs, webPeak>>20)
	report("bench-venue: the venue page's update latency (a table's state at the broker to the painted frame, Chromium at 1920x1080, 30 tables a page, %d updates of the tables on the page shown): median %s, p99 %s",
		len(lat), percentile(lat, 0.5).Round(100*time.Microsecond), percentile(lat, 0.99).Round(100*time.Microsecond))
	report("bench-venue: load %s at the end (2 cores)", uptime())
	fmt.Printf("venue: tables %d, players %d, rounds %d, events %d, lost %d, reordered %d, mismatched %d\n",
		nTables, nPlayers, len(roundTimes), events, check.Lost, check.Reordered, mismatched)
}
