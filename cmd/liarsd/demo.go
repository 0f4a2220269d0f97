package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/demo"
)

func init() {
	register(command{
		name:    "demo",
		summary: "play games on a simulated table: synthetic camera, simulated board, computer seats, MQTT",
		run:     runDemo,
	})
}

func runDemo(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := demoFlags{operatorAfter: offDuration{d: 3 * time.Second}}
	f.define(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd demo [flags]\n\nPlays Liar's Dice on a simulated table: computer seats roll seeded dice, a\nsynthetic camera renders them at each reveal, the vision reader reads them,\nthe engine resolves, a simulated board lights and every event goes out on\nMQTT. Ctrl-C (or --duration) stops it cleanly.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	opts, code, done := f.check(fs, stderr)
	if done {
		return code
	}
	if f.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.duration)
		defer cancel()
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	err := demo.Run(ctx, demo.Options{
		Rules: f.rules, Seats: f.seats, Options: opts,
		Broker: f.broker, BrokerWebSocket: f.brokerWS, Username: f.user, Password: f.password, Listen: f.listen, HTTP: f.http, Table: f.table,
		Seed: f.seed, Level: f.level, Pace: f.pace, Games: f.games, Reveals: f.reveals, MemoryEvery: f.memoryEvery, StateDir: f.stateDir,
		Out: stdout, BoardMode: f.board, ANSI: f.ansi, Watch: true, Doubt: f.doubt,
		OperatorAfter: f.operatorAfter.value(), CorrectWindow: f.correctWindow,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		fmt.Fprintf(stderr, "liarsd demo: %v\n", err)
		return 1
	}
	return 0
}

// demoFlags are liarsd demo's flags.
type demoFlags struct {
	rules, options, broker, brokerWS, user, password, listen, http, table string
	level, board, stateDir                                                string
	seats, games, reveals, memoryEvery                                    int
	seed                                                                  uint64
	duration, pace, correctWindow                                         time.Duration
	doubt                                                                 float64
	ansi, verbose                                                         bool
	operatorAfter                                                         offDuration
}

// define defines the flags on fs.
func (f *demoFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.rules, "rules", "star-board", "preset: star-board, tavern, common-hand, kids, classic, endurance, perudo")
	fs.IntVar(&f.seats, "seats", 0, "number of seats, 2 to 6 (default 4, or the preset's minimum)")
	fs.StringVar(&f.options, "options", "", `preset options as JSON, e.g. '{"dice":3}'`)
	fs.StringVar(&f.broker, "broker", "", "external broker URL (default: an embedded broker on 127.0.0.1:1883, or a free port)")
	fs.StringVar(&f.brokerWS, "broker-websocket", "", "with --broker, where browsers reach its WebSocket listener (ws://host:9001 or wss://...): the scoreboard pages need it")
	fs.StringVar(&f.user, "username", "", "broker user name")
	fs.StringVar(&f.password, "password", "", "broker password")
	fs.StringVar(&f.listen, "listen", "", "embedded broker address (default 127.0.0.1:1883, or a free port when taken)")
	fs.StringVar(&f.http, "http", "", `the scoreboard's address (default 127.0.0.1:8080, or a free port when taken; "off": none)`)
	fs.StringVar(&f.table, "table", "demo", "table id (MQTT topics)")
	fs.DurationVar(&f.duration, "duration", 0, "stop cleanly after this long (0: until Ctrl-C)")
	fs.IntVar(&f.games, "games", 0, "stop after this many games (0: no limit)")
	fs.IntVar(&f.reveals, "reveals", 0, "stop after this many reveals (0: no limit)")
	fs.IntVar(&f.memoryEvery, "memory-every", 0, "print the process's memory (RSS, Go heap, threads) at the start and every N reveals (0: never)")
	fs.Uint64Var(&f.seed, "seed", uint64(time.Now().UnixNano()%1_000_000), "seed of the dice and the seats' play")
	fs.DurationVar(&f.pace, "pace", 600*time.Millisecond, "pause before each move")
	fs.StringVar(&f.level, "level", "strong", "the seats' play (engine/computer): random, threshold, beginner, strong-v1 or strong")
	fs.StringVar(&f.board, "board", "line", "simulated board: line (after each move), stream (every frame) or off")
	fs.BoolVar(&f.ansi, "color", false, "draw the board in colour (ANSI)")
	fs.StringVar(&f.stateDir, "state-dir", "", "keep the journal and MQTT store here (default: a temporary directory)")
	fs.Float64Var(&f.doubt, "doubt", 0, "share of reveals (0 to 1) at which the camera misses one die, for the operator page (/operator) to fix")
	fs.Var(&f.operatorAfter, "operator-after", `how long a reveal the camera cannot settle waits before the demo's own operator enters its dice; "off": a person does, at /operator`)
	fs.DurationVar(&f.correctWindow, "correct-window", 0, "least time from a reveal to the next hand's first bid, the time a correction has (default: the pace, or 15s with --operator-after off)")
	fs.BoolVar(&f.verbose, "v", false, "log the referee's work (info level) to standard error")
}

// check refuses a flag value the demo would refuse, as a usage error
// (exit 2) in the words of what refuses it, and returns the preset's
// options the flags give.
func (f *demoFlags) check(fs *flag.FlagSet, stderr io.Writer) (opts map[string]any, code int, done bool) {
	usage := func(format string, args ...any) (map[string]any, int, bool) {
		return nil, usageError(fs, stderr, format, args...), true
	}
	if fs.NArg() != 0 {
		return usage("stray argument %q", fs.Arg(0))
	}
	if _, ok := engine.Presets[f.rules]; !ok {
		return usage("--rules %q: the presets are %s", f.rules, strings.Join(engine.PresetNames(), ", "))
	}
	if _, err := computer.New(f.level); err != nil {
		return usage("--level: %v", err)
	}
	for _, n := range []struct {
		name, want string
		v          int64
	}{
		{"seats", "want 2 to 6 (0: the default)", int64(f.seats)},
		{"games", "want 0 (no limit) or more", int64(f.games)},
		{"reveals", "want 0 (no limit) or more", int64(f.reveals)},
		{"memory-every", "want 0 (never) or more", int64(f.memoryEvery)},
	} {
		if n.v < 0 {
			return usage("--%s %d: %s", n.name, n.v, n.want)
		}
	}
	if f.pace < 0 {
		return usage("--pace %v: want 0 or more", f.pace)
	}
	if f.options != "" {
		if err := json.Unmarshal([]byte(f.options), &opts); err != nil {
			return usage("--options: %v", err)
		}
		for k, v := range opts {
			if x, ok := v.(float64); ok && x == float64(int(x)) {
				opts[k] = int(x)
			}
		}
	}
	if msg := f.checkGame(opts); msg != "" {
		return usage("%s", msg)
	}
	if msg := f.checkBrokerWebSocket(); msg != "" {
		return usage("%s", msg)
	}
	switch {
	case f.board != "line" && f.board != "stream" && f.board != "off":
		return usage("--board %q: want line, stream or off", f.board)
	case f.doubt < 0 || f.doubt > 1 || f.doubt != f.doubt:
		return usage("--doubt %v: want a share from 0 to 1 (0.2: one reveal in five)", f.doubt)
	}
	if msg := f.checkListen(); msg != "" {
		return usage("%s", msg)
	}
	switch {
	case f.correctWindow < 0:
		return usage("--correct-window %v: want 0 (the default) or more", f.correctWindow)
	case f.duration < 0:
		return usage("--duration %v: want 0 (until Ctrl-C) or more", f.duration)
	}
	return opts, 0, false
}

// checkGame says what is wrong with the seats and options as the engine
// will take them ("" for nothing): a refusal is named once, in the
// engine's words.
func (f *demoFlags) checkGame(opts map[string]any) string {
	p := engine.Presets[f.rules]
	seats := f.seats
	if seats == 0 {
		seats = max(4, p.MinSeats)
	}
	if seats < p.MinSeats || seats > min(p.MaxSeats, 6) {
		return fmt.Sprintf("--seats %d: %s is played here by %d to %d seats", seats, f.rules, p.MinSeats, min(p.MaxSeats, 6))
	}
	if opts == nil {
		return ""
	}
	names := []string{"ann", "bob", "cy", "dee", "eve", "fay"}[:seats]
	line, _ := json.Marshal(map[string]any{"type": "new_game", "rules": f.rules, "seats": names, "options": opts})
	a, err := record.Decode(line)
	if err == nil {
		_, err = engine.NewTable().Apply(a)
	}
	if err == nil {
		return ""
	}
	var rej *engine.Rejection
	if errors.As(err, &rej) {
		return fmt.Sprintf("--options %s: %s (%s takes %s)", f.options, rej.Message, f.rules, strings.Join(p.Takes, ", "))
	}
	return fmt.Sprintf("--options %s: %v (%s takes %s)", f.options, err, f.rules, strings.Join(p.Takes, ", "))
}

// checkBrokerWebSocket says what is wrong with --broker-websocket ("" for
// nothing).
func (f *demoFlags) checkBrokerWebSocket() string {
	if f.brokerWS == "" {
		return ""
	}
	u, err := url.Parse(f.brokerWS)
	switch {
	case f.broker == "":
		return "--broker-websocket: only with --broker (the embedded broker serves its own)"
	case err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "":
		return fmt.Sprintf("--broker-websocket %q: want a ws:// or wss:// URL with a host", f.brokerWS)
	}
	return ""
}

// checkListen says what is wrong with the pages' and the embedded
// broker's addresses ("" for nothing).
func (f *demoFlags) checkListen() string {
	if f.http != "" && f.http != "off" {
		if err := checkAddr(f.http); err != nil {
			return fmt.Sprintf("--http %q: %v (or off)", f.http, err)
		}
	}
	if f.listen != "" {
		if err := checkAddr(f.listen); err != nil {
			return fmt.Sprintf("--listen %q: %v", f.listen, err)
		}
	}
	return ""
}

// offDuration is a flag that is a positive duration or "off".
type offDuration struct {
	d   time.Duration
	off bool
}

func (o *offDuration) String() string {
	if o == nil {
		return ""
	}
	if o.off {
		return "off"
	}
	return o.d.String()
}

func (o *offDuration) Set(s string) error {
	if s == "off" {
		o.off = true
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a duration above 0 (3s) or off")
	}
	o.d, o.off = d, false
	return nil
}

// value is the demo's OperatorAfter: demo.OperatorOff for off.
func (o *offDuration) value() time.Duration {
	if o.off {
		return demo.OperatorOff
	}
	return o.d
}
