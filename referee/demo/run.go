package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/tuning"
	"github.com/liarsd/liarsd/vision"
)

// Options configure a demo.
type Options struct {
	// Rules is the preset (star-board).
	Rules string
	// Seats is the number of seats, 2 to 6 (4).
	Seats int
	// Options are the preset's options, as in new_game.
	Options map[string]any
	// Broker is an external broker's URL; "" starts the embedded one on
	// Listen (127.0.0.1:1883, or a free port when that one is taken).
	Broker, Username, Password string
	// BrokerWebSocket is where browsers reach the external broker's
	// WebSocket listener (ws://host:9001), for the scoreboard pages.
	BrokerWebSocket string
	Listen          string
	// HTTP is the scoreboard's address (127.0.0.1:8080, or a free port
	// when that one is taken); "off" for none. The embedded broker's
	// WebSocket listener for it is 127.0.0.1:1884 (or a free port).
	HTTP  string
	Table string
	// Seed drives the dice, the seats' play and the games' seeds.
	Seed uint64
	// Level is the seats' strategy (engine/computer): random, threshold,
	// beginner, strong-v1 or strong (strong).
	Level string
	// Pace is the pause before each move (600 ms).
	Pace time.Duration
	// Games stops after this many games (0: until ctx is done).
	Games int
	// Reveals stops after this many reveals (0: no limit).
	Reveals int
	// MemoryEvery prints the process's memory (tuning.ReadMemory) at the
	// start and after every MemoryEvery reveals (0: never).
	MemoryEvery int
	// StateDir keeps the journal and MQTT store; "" uses a temporary
	// directory removed at the end.
	StateDir string
	// Out receives the narration; Board the simulated board's frames
	// ("line" mode: the board after each narrated line).
	Out       io.Writer
	BoardMode string // line, stream or off
	ANSI      bool
	Logger    *slog.Logger
	// Watch subscribes to the events topic and reports, at the end, what a
	// subscriber received.
	Watch bool
	// Doubt is the share of reveals (0 to 1) at which the camera does not
	// see one die, so that the operator page has something to fix.
	Doubt float64
	// WebStarted, when set, is called with the scoreboard's address once
	// it listens (the operator page is its /operator).
	WebStarted func(url string)
	// OperatorAfter is how long a reveal that needs a look waits before
	// the demo's own operator enters the dice (0: 3 s); OperatorOff (any
	// negative value) leaves it to a person at the operator page.
	OperatorAfter time.Duration
	// CorrectWindow is the least time from an accepted reveal (or
	// correction) to the next hand's first bid, the time a correction has
	// (0: the pace, or 15 s while the demo's operator is off).
	CorrectWindow time.Duration
}

// OperatorOff is Options.OperatorAfter for no demo operator at all: a
// reveal that needs a look waits for a person (the operator page).
const OperatorOff time.Duration = -1

// DefaultPersonWindow is the correction window while the demo's own
// operator is off: time for a person to tap a die and correct it.
const DefaultPersonWindow = 15 * time.Second

// Run plays the demo until ctx is done or the games are played.
func Run(ctx context.Context, o Options) error {
	o, p, err := o.withDefaults()
	if err != nil {
		return err
	}
	names := seatNames[:o.Seats]
	layout := Layout{Width: imageSize.X, Height: imageSize.Y, DieSize: 44, Seats: names}
	stateDir := o.StateDir
	if stateDir == "" {
		d, err := os.MkdirTemp("", "liarsd-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		defer os.RemoveAll(d)
		stateDir = d
	}
	c, httpAddr, err := tableConfig(o, p, layout, stateDir)
	if err != nil {
		return err
	}
	out := newNarrator(o.Out, o.BoardMode)
	table := NewTable(o.Seed)
	cam := NewCamera(table, layout, p.StarDie, o.Seed)
	cam.Doubt = o.Doubt
	defer cam.Close()
	drv, err := newDriver(o, table, cam, out, names)
	if err != nil {
		return err
	}
	// The reader's die size is the die's extent as seen: a die lies at any
	// turn, on average 1.27 times as wide as its side.
	reader, err := vision.NewReader(vision.Options{DieSize: 1.27 * layout.DieSize, StarDice: p.StarDie, PlainDice: !p.StarDie})
	if err != nil {
		return err
	}
	defer reader.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var watch *watcher
	var wg sync.WaitGroup
	err = daemon.Run(ctx, c, daemon.Options{
		Logger: o.Logger, Camera: cam, Reader: reader, Observe: drv.Observe,
		SimOutput: boardOutput(o, out), ANSI: o.ANSI, HTTP: httpAddr,
		WebStarted: func(url string) {
			out.say("liarsd demo: the scoreboard is at %s (all tables: %svenue; the operator: %soperator)", url, url, url)
			if o.WebStarted != nil {
				o.WebStarted(url)
			}
		},
		Started: func(ref *referee.Referee, url string) {
			out.say("liarsd demo: table %q, %s, %d seats; MQTT at %s (topics %s/%s/#)", o.Table, o.Rules, o.Seats, url, c.Broker.Prefix, o.Table)
			if o.Watch {
				watch = newWatcher(url, o.Username, o.Password, mqtt.TopicsFor(c.Broker.Prefix, o.Table).Events)
			}
			drv.Ref = ref
			wg.Add(1)
			go func() {
				defer wg.Done()
				drv.Run(ctx)
				cancel()
			}()
		},
	})
	cancel()
	wg.Wait()
	if watch != nil {
		out.say("%s", watch.report())
	}
	out.say("%s", drv.Tally())
	out.close()
	return err
}

// seatNames are the demo's players, in their seats' order.
var seatNames = []string{"ann", "bob", "cy", "dee", "eve", "fay"}

// withDefaults fills what o leaves out and checks what it gives, with the
// preset it names.
func (o Options) withDefaults() (Options, *engine.Preset, error) {
	if o.Rules == "" {
		o.Rules = "star-board"
	}
	p, ok := engine.Presets[o.Rules]
	if !ok {
		return o, nil, fmt.Errorf("demo: no preset %q (presets: %s)", o.Rules, strings.Join(engine.PresetNames(), ", "))
	}
	if o.Seats == 0 {
		o.Seats = max(4, p.MinSeats)
	}
	switch {
	case o.Seats < p.MinSeats || o.Seats > min(p.MaxSeats, len(seatNames)):
		return o, nil, fmt.Errorf("demo: %s is played here by %d to %d seats, not %d", o.Rules, p.MinSeats, min(p.MaxSeats, len(seatNames)), o.Seats)
	case o.Pace < 0:
		return o, nil, errors.New("demo: negative pace")
	case o.Doubt < 0 || o.Doubt > 1 || o.Doubt != o.Doubt:
		return o, nil, fmt.Errorf("demo: doubt %v: want a share from 0 to 1", o.Doubt)
	case o.CorrectWindow < 0:
		return o, nil, fmt.Errorf("demo: correction window %v: want 0 or more", o.CorrectWindow)
	}
	if o.OperatorAfter == 0 {
		o.OperatorAfter = 3 * time.Second
	}
	if o.CorrectWindow == 0 && o.OperatorAfter < 0 {
		o.CorrectWindow = DefaultPersonWindow
	}
	if o.Table == "" {
		o.Table = "demo"
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if o.BoardMode == "" {
		o.BoardMode = "line"
	}
	if o.Level == "" {
		o.Level = "strong"
	}
	return o, p, nil
}

// tableConfig is the demo table's configuration and the pages' address:
// its seats as the layout places them (people to the referee: the camera
// reads their dice), the broker and the pages on free addresses, a quick
// retry of the camera and a simulated board whose track holds every die.
func tableConfig(o Options, p *engine.Preset, layout Layout, stateDir string) (c config.Config, httpAddr string, err error) {
	c = config.Default()
	c.Table, c.Rules, c.Options, c.StateDir = o.Table, o.Rules, o.Options, stateDir
	for _, pos := range layout.Positions() {
		c.Seats = append(c.Seats, config.Seat{Name: pos.Name, X: pos.X, Y: pos.Y})
	}
	c.Broker.URL, c.Broker.Username, c.Broker.Password = o.Broker, o.Username, o.Password
	c.Broker.WebSocket = o.BrokerWebSocket
	c.Broker.Embedded.WebSocket = "off"
	httpAddr = o.HTTP
	if httpAddr == "" {
		httpAddr = freeOr("127.0.0.1:8080")
	}
	if o.Broker == "" && httpAddr != "off" {
		c.Broker.Embedded.WebSocket = freeOr("127.0.0.1:1884")
	}
	if o.Broker == "" {
		c.Broker.Embedded.Listen = o.Listen
		if c.Broker.Embedded.Listen == "" {
			// 1883 may be taken (a system Mosquitto): then any free port.
			c.Broker.Embedded.Listen = freeOr("127.0.0.1:1883")
		}
	}
	c.Camera.Retry = 400 * time.Millisecond
	track := diceEach(o, p) * o.Seats
	stars := 0
	if p.StarDie || p.WildOnes {
		// Star-board's star spaces; perudo's ones bids stand on them.
		stars = track / 2
	}
	c.Board = &hardware.Config{Driver: hardware.DriverSim, Seats: layout.Seats,
		Track: hardware.TrackConfig{NumberSpaces: track, StarSpaces: stars}}
	if err := c.Validate(); err != nil {
		return c, "", fmt.Errorf("demo: %w", err)
	}
	return c, httpAddr, nil
}

// diceEach is the most dice a seat holds in the demo's games.
func diceEach(o Options, p *engine.Preset) int {
	dice := p.Dice
	if p.FixedDice > 0 {
		dice = 5 // kids grow to five dice; room for them
	}
	if v, ok := o.Options["dice"].(int); ok && v > 0 {
		dice = v
	}
	return dice
}

// newDriver makes the demo's driver: the players of its seats at the
// level o names, its pace, its operator and its narration.
func newDriver(o Options, table *Table, cam *Camera, out *narrator, names []string) (*Driver, error) {
	drv := NewDriver()
	drv.Camera, drv.Table = cam, table
	drv.Pace, drv.Games, drv.Reveals = o.Pace, o.Games, o.Reveals
	drv.OperatorAfter = max(o.OperatorAfter, 0)
	drv.CorrectWindow = o.CorrectWindow
	if o.MemoryEvery > 0 {
		drv.Revealed = memoryReport(o.MemoryEvery, out)
	}
	drv.Say = out.say
	drv.Players = map[string]computer.Player{}
	for i, n := range names {
		p, err := computer.NewPlayer(o.Level, o.Seed*31+uint64(i)+1)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		drv.Players[n] = p
	}
	drv.NewGame = func(game int) []byte {
		line := map[string]any{"type": "new_game", "rules": o.Rules, "seats": names, "seed": int64(o.Seed*1000 + uint64(game))}
		if len(o.Options) > 0 {
			line["options"] = o.Options
		}
		b, _ := json.Marshal(line)
		return b
	}
	return drv, nil
}

// memoryReport prints the process's memory now and after every nth
// reveal.
func memoryReport(every int, out *narrator) func(reveals int) {
	start := time.Now()
	report := func(n int) {
		m, err := tuning.ReadMemory()
		if err != nil {
			out.say("memory: %v", err)
			return
		}
		out.say("memory after %d reveals (%.0f s): %v", n, time.Since(start).Seconds(), m)
	}
	report(0)
	return func(n int) {
		if n%every == 0 {
			report(n)
		}
	}
}

// boardOutput is where the simulated board is drawn: every frame
// (stream), after each narrated line (line), or nowhere (off).
func boardOutput(o Options, out *narrator) io.Writer {
	switch o.BoardMode {
	case "stream":
		return o.Out
	case "line":
		return out
	}
	return nil
}

// narrator prints the game for people, in line mode with the simulated
// board as it shows just after each line's move (the board redraws every
// 50 ms, so each line waits for one redraw). It is also the simulated
// board's writer.
type narrator struct {
	w     io.Writer
	start time.Time
	mode  string

	mu    sync.Mutex
	board string
	lines chan narration
	done  chan struct{}
}

type narration struct {
	at   time.Time
	text string
}

func newNarrator(w io.Writer, mode string) *narrator {
	n := &narrator{w: w, start: time.Now(), mode: mode, lines: make(chan narration, 4096), done: make(chan struct{})}
	go n.print()
	return n
}

func (n *narrator) say(format string, args ...any) {
	select {
	case n.lines <- narration{time.Now(), fmt.Sprintf(format, args...)}:
	case <-n.done:
	}
}

func (n *narrator) print() {
	defer close(n.done)
	for l := range n.lines {
		if n.mode == "line" {
			time.Sleep(time.Until(l.at.Add(80 * time.Millisecond)))
		}
		n.mu.Lock()
		fmt.Fprintf(n.w, "[%6.1fs] %s\n", l.at.Sub(n.start).Seconds(), l.text)
		if n.mode == "line" && n.board != "" {
			fmt.Fprintf(n.w, "          board: %s\n", n.board)
		}
		n.mu.Unlock()
	}
}

// close prints what is queued and stops.
func (n *narrator) close() {
	close(n.lines)
	<-n.done
}

// Write keeps the simulated board's last frame.
func (n *narrator) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(p))
	for sc.Scan() {
		n.board = sc.Text()
	}
	return len(p), nil
}

// watcher is a subscriber of the events topic, as a scoreboard would be.
type watcher struct {
	mu       sync.Mutex
	cli      paho.Client
	received int
	maxSeq   int
	gaps     int
	repeats  int
}

func newWatcher(url, user, password, topic string) *watcher {
	w := &watcher{}
	opts := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("liarsd-demo-watch-%d", time.Now().UnixNano())).
		SetAutoReconnect(true).SetConnectRetry(true).SetCleanSession(false).
		SetOnConnectHandler(func(c paho.Client) {
			c.Subscribe(topic, 1, func(_ paho.Client, m paho.Message) { w.take(m.Payload()) })
		})
	if user != "" {
		opts.SetUsername(user).SetPassword(password)
	}
	w.cli = paho.NewClient(opts)
	w.cli.Connect().WaitTimeout(3 * time.Second)
	return w
}

func (w *watcher) take(payload []byte) {
	var h struct {
		Seq int `json:"seq"`
	}
	if json.Unmarshal(payload, &h) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.received++
	switch {
	case h.Seq <= w.maxSeq:
		w.repeats++
	case h.Seq > w.maxSeq+1 && w.maxSeq > 0:
		w.gaps++
		w.maxSeq = h.Seq
	default:
		w.maxSeq = h.Seq
	}
}

func (w *watcher) report() string {
	time.Sleep(300 * time.Millisecond) // the last events in flight
	w.cli.Disconnect(100)
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("MQTT subscriber: %d events received, up to seq %d, %d gaps, %d repeats", w.received, w.maxSeq, w.gaps, w.repeats)
}

// freeOr returns addr when it is free to listen on, else the same host on
// any free port.
func freeOr(addr string) string {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		host, _, _ := net.SplitHostPort(addr)
		return net.JoinHostPort(host, "0")
	}
	l.Close()
	return addr
}
