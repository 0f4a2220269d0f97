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
	rules := fs.String("rules", "star-board", "preset: star-board, tavern, common-hand, kids, classic, endurance, perudo")
	nseats := fs.Int("seats", 0, "number of seats, 2 to 6 (default 4, or the preset's minimum)")
	options := fs.String("options", "", `preset options as JSON, e.g. '{"dice":3}'`)
	broker := fs.String("broker", "", "external broker URL (default: an embedded broker on 127.0.0.1:1883, or a free port)")
	brokerWS := fs.String("broker-websocket", "", "with --broker, where browsers reach its WebSocket listener (ws://host:9001 or wss://...): the scoreboard pages need it")
	user := fs.String("username", "", "broker user name")
	password := fs.String("password", "", "broker password")
	listen := fs.String("listen", "", "embedded broker address (default 127.0.0.1:1883, or a free port when taken)")
	httpAddr := fs.String("http", "", `the scoreboard's address (default 127.0.0.1:8080, or a free port when taken; "off": none)`)
	table := fs.String("table", "demo", "table id (MQTT topics)")
	duration := fs.Duration("duration", 0, "stop cleanly after this long (0: until Ctrl-C)")
	games := fs.Int("games", 0, "stop after this many games (0: no limit)")
	reveals := fs.Int("reveals", 0, "stop after this many reveals (0: no limit)")
	memoryEvery := fs.Int("memory-every", 0, "print the process's memory (RSS, Go heap, threads) at the start and every N reveals (0: never)")
	seed := fs.Uint64("seed", uint64(time.Now().UnixNano()%1_000_000), "seed of the dice and the seats' play")
	pace := fs.Duration("pace", 600*time.Millisecond, "pause before each move")
	levelName := fs.String("level", "strong", "the seats' play (engine/computer): random, threshold, beginner, strong-v1 or strong")
	board := fs.String("board", "line", "simulated board: line (after each move), stream (every frame) or off")
	ansi := fs.Bool("color", false, "draw the board in colour (ANSI)")
	stateDir := fs.String("state-dir", "", "keep the journal and MQTT store here (default: a temporary directory)")
	doubt := fs.Float64("doubt", 0, "share of reveals (0 to 1) at which the camera misses one die, for the operator page (/operator) to fix")
	operatorAfter := offDuration{d: 3 * time.Second}
	fs.Var(&operatorAfter, "operator-after", `how long a reveal the camera cannot settle waits before the demo's own operator enters its dice; "off": a person does, at /operator`)
	correctWindow := fs.Duration("correct-window", 0, "least time from a reveal to the next hand's first bid, the time a correction has (default: the pace, or 15s with --operator-after off)")
	verbose := fs.Bool("v", false, "log the referee's work (info level) to standard error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd demo [flags]\n\nPlays Liar's Dice on a simulated table: computer seats roll seeded dice, a\nsynthetic camera renders them at each reveal, the vision reader reads them,\nthe engine resolves, a simulated board lights and every event goes out on\nMQTT. Ctrl-C (or --duration) stops it cleanly.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	}
	if _, ok := engine.Presets[*rules]; !ok {
		return usageError(fs, stderr, "--rules %q: the presets are %s", *rules, strings.Join(engine.PresetNames(), ", "))
	}
	if _, err := computer.New(*levelName); err != nil {
		return usageError(fs, stderr, "--level: %v", err)
	}
	if *nseats < 0 {
		return usageError(fs, stderr, "--seats %d: want 2 to 6 (0: the default)", *nseats)
	}
	if *games < 0 {
		return usageError(fs, stderr, "--games %d: want 0 (no limit) or more", *games)
	}
	if *reveals < 0 {
		return usageError(fs, stderr, "--reveals %d: want 0 (no limit) or more", *reveals)
	}
	if *memoryEvery < 0 {
		return usageError(fs, stderr, "--memory-every %d: want 0 (never) or more", *memoryEvery)
	}
	if *pace < 0 {
		return usageError(fs, stderr, "--pace %v: want 0 or more", *pace)
	}
	var opts map[string]any
	if *options != "" {
		if err := json.Unmarshal([]byte(*options), &opts); err != nil {
			return usageError(fs, stderr, "--options: %v", err)
		}
		for k, v := range opts {
			if f, ok := v.(float64); ok && f == float64(int(f)) {
				opts[k] = int(f)
			}
		}
	}
	// The seats and options as the engine will take them: a refusal is a
	// refused flag value (exit 2), named once, in the engine's words.
	p := engine.Presets[*rules]
	seatsWanted := *nseats
	if seatsWanted == 0 {
		seatsWanted = max(4, p.MinSeats)
	}
	if seatsWanted < p.MinSeats || seatsWanted > min(p.MaxSeats, 6) {
		return usageError(fs, stderr, "--seats %d: %s is played here by %d to %d seats", seatsWanted, *rules, p.MinSeats, min(p.MaxSeats, 6))
	}
	if opts != nil {
		line, _ := json.Marshal(map[string]any{"type": "new_game", "rules": *rules,
			"seats": []string{"ann", "bob", "cy", "dee", "eve", "fay"}[:seatsWanted], "options": opts})
		a, err := record.Decode(line)
		if err == nil {
			_, err = engine.NewTable().Apply(a)
		}
		if err != nil {
			var rej *engine.Rejection
			if errors.As(err, &rej) {
				return usageError(fs, stderr, "--options %s: %s (%s takes %s)", *options, rej.Message, *rules, strings.Join(p.Takes, ", "))
			}
			return usageError(fs, stderr, "--options %s: %v (%s takes %s)", *options, err, *rules, strings.Join(p.Takes, ", "))
		}
	}
	if *brokerWS != "" {
		u, err := url.Parse(*brokerWS)
		switch {
		case *broker == "":
			return usageError(fs, stderr, "--broker-websocket: only with --broker (the embedded broker serves its own)")
		case err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "":
			return usageError(fs, stderr, "--broker-websocket %q: want a ws:// or wss:// URL with a host", *brokerWS)
		}
	}
	switch *board {
	case "line", "stream", "off":
	default:
		return usageError(fs, stderr, "--board %q: want line, stream or off", *board)
	}
	if *doubt < 0 || *doubt > 1 || *doubt != *doubt {
		return usageError(fs, stderr, "--doubt %v: want a share from 0 to 1 (0.2: one reveal in five)", *doubt)
	}
	if *httpAddr != "" && *httpAddr != "off" {
		if err := checkAddr(*httpAddr); err != nil {
			return usageError(fs, stderr, "--http %q: %v (or off)", *httpAddr, err)
		}
	}
	if *listen != "" {
		if err := checkAddr(*listen); err != nil {
			return usageError(fs, stderr, "--listen %q: %v", *listen, err)
		}
	}
	if *correctWindow < 0 {
		return usageError(fs, stderr, "--correct-window %v: want 0 (the default) or more", *correctWindow)
	}
	if *duration < 0 {
		return usageError(fs, stderr, "--duration %v: want 0 (until Ctrl-C) or more", *duration)
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	err := demo.Run(ctx, demo.Options{
		Rules: *rules, Seats: *nseats, Options: opts,
		Broker: *broker, BrokerWebSocket: *brokerWS, Username: *user, Password: *password, Listen: *listen, HTTP: *httpAddr, Table: *table,
		Seed: *seed, Level: *levelName, Pace: *pace, Games: *games, Reveals: *reveals, MemoryEvery: *memoryEvery, StateDir: *stateDir,
		Out: stdout, BoardMode: *board, ANSI: *ansi, Watch: true, Doubt: *doubt,
		OperatorAfter: operatorAfter.value(), CorrectWindow: *correctWindow,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		fmt.Fprintf(stderr, "liarsd demo: %v\n", err)
		return 1
	}
	return 0
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
