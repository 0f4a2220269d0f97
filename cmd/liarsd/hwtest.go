package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/liarsd/liarsd/hardware"
)

func init() {
	register(command{
		name:    "hwtest",
		summary: "walk every LED of the board and report every button press (--sim: simulated board)",
		run:     runHWTest,
	})
}

// defaultSimConfig is the simulated board when no configuration is given:
// three seats of star-board.
var defaultSimConfig = hardware.Config{
	Driver: hardware.DriverSim,
	Seats:  []string{"ann", "bob", "cy"},
	Track:  hardware.TrackConfig{NumberSpaces: 15, StarSpaces: 7},
}

func runHWTest(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hwtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "the table's configuration file (YAML; the hardware section, at the top or under hardware:)")
	sim := fs.Bool("sim", false, "use the simulated board: frames on standard output, button presses typed on standard input as SEAT BUTTON [long]")
	step := fs.Duration("step", 400*time.Millisecond, "how long each LED stays lit during the walk")
	duration := fs.Duration("duration", 0, "how long to report button presses after the walk (0: until interrupted, or in --sim until the input ends)")
	walk := fs.Bool("walk", true, "walk the LEDs before reporting presses (--walk=false: buttons only)")
	color := fs.String("color", "auto", "simulated board in colour: auto (when standard output is a terminal), always or never")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd hwtest [--config FILE | --sim] [flags]\n\nLights every LED of the board in order, naming each, then reports every button\npress and the command it makes, so that an installer can check the wiring.\nWith --sim, presses are typed as SEAT BUTTON [long], e.g. 'ann bid' or '2 u long'\n(buttons u, d, f, b, c, s: quantity up/down, face, bid, challenge, spot-on).\n\nflags:")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	switch {
	case fs.NArg() != 0:
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	case *configPath == "" && !*sim:
		return usageError(fs, stderr, "which board? --config FILE, or --sim")
	case *step <= 0:
		return usageError(fs, stderr, "--step %v: want a positive duration", *step)
	case *duration < 0:
		return usageError(fs, stderr, "--duration %v: want 0 or more", *duration)
	}
	ansi := false
	switch *color {
	case "always":
		ansi = true
	case "auto":
		ansi = isTerminal(stdout)
	case "never":
	default:
		return usageError(fs, stderr, "--color %q: want auto, always or never", *color)
	}

	cfg := defaultSimConfig
	if *configPath != "" {
		f, err := os.Open(*configPath)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd hwtest: %v\n", err)
			return 1
		}
		cfg, err = hardware.DecodeConfig(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "liarsd hwtest: %s: %v\n", *configPath, err)
			return 1
		}
	}
	out := &syncWriter{w: stdout}
	opts := hardware.OpenOptions{Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	if *sim {
		// The pin map is not used: the simulated board has no pins.
		cfg.Driver, cfg.LEDs, cfg.SPI = hardware.DriverSim, hardware.LEDPins{}, hardware.SPIConfig{}
		opts.SimOutput, opts.SimInput, opts.ANSI = out, stdin, ansi
	}
	rig, err := hardware.Open(cfg, opts)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd hwtest: %v\n", err)
		return 1
	}
	defer rig.Close()
	return hwTest(ctx, rig, *walk, *step, *duration, out, stderr)
}

// hwTest walks the LEDs (when walk is set), then reports presses until ctx
// is done, duration has passed (when not 0) or the presses end (a simulated
// board's input).
func hwTest(ctx context.Context, rig *hardware.Rig, walk bool, step, duration time.Duration, out io.Writer, stderr io.Writer) int {
	l := rig.Layout
	fmt.Fprintf(out, "board: %s; %d LEDs: %d track spaces (%d number, %d star), %d faces, %d seats, 1 status\n",
		rig.Platform, l.Len(), l.TrackLen(), l.NumberSpaces(), l.StarSpaces(), hardware.FaceLEDs, len(l.Seats()))
	if walk {
		err := hardware.Walk(ctx, rig.Strip, step, func(i int) {
			fmt.Fprintf(out, "LED %d/%d: %s\n", i+1, l.Len(), l.Describe(i))
		})
		if ctx.Err() != nil { // interrupted: not a failure
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "liarsd hwtest: %v\n", err)
			return 1
		}
		fmt.Fprintln(out, "walk done")
	}
	if rig.Buttons == nil {
		return 0
	}
	fmt.Fprintln(out, "press the buttons: each press lights its seat and pending bid (interrupt to end)")

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	boardDone := make(chan error, 1)
	go func() { boardDone <- rig.Board.Run(ctx, rig.Strip, 50*time.Millisecond, nil) }()
	buttonsDone := make(chan error, 1)
	go func() {
		buttonsDone <- rig.Buttons.Run(ctx, func(p hardware.Press) {
			line := "press: " + p.String()
			if c, ok := rig.Keypad.Press(p); ok {
				js, _ := json.Marshal(c)
				line += " -> " + string(js)
			}
			fmt.Fprintln(out, line)
			_ = rig.Board.ShowTurn(l.SeatIndex(p.Seat))
			if q, f, ok := rig.Keypad.Pending(p.Seat); ok {
				_ = rig.Board.ShowBid(q, f, false)
			}
		})
	}()
	var timeout <-chan time.Time
	if duration > 0 {
		t := time.NewTimer(duration)
		defer t.Stop()
		timeout = t.C
	}
	code := 0
	select {
	case <-ctx.Done():
	case <-timeout:
	case err := <-buttonsDone:
		buttonsDone <- err
		if err != nil {
			fmt.Fprintf(stderr, "liarsd hwtest: %v\n", err)
			code = 1
		}
	}
	cancel()
	<-boardDone
	<-buttonsDone
	return code
}

// syncWriter serialises writes from the walk, the buttons and the
// simulated board.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
