package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/vision"
)

func init() {
	register(command{
		name:    "calibrate",
		summary: "measure the table: board, lens, background, seats, dice, camera, leds, buttons; check (guided, or from --image)",
		run:     runCalibrate,
	})
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

const calibrateUsage = `usage: liarsd calibrate [flags] STEP

Steps (each writes the file only when it succeeds):
  board       find the chessboard card on the board: image pixels to board millimetres
  lens        measure the lens's distortion from several views of the card (then run board again)
  background  keep an image of the empty board under this table's light
  seats       draw the seat zones (--layout round, rect, or taught with dice in front of each seat)
  dice        learn the dice from a calibration roll: rows of six showing the star, 2, 3, 4, 5, 6
  camera      lock the camera's exposure, white balance and focus (V4L2)
  leds        walk the LED chain and confirm each LED (--hardware)
  buttons     press each seat's buttons when asked (--hardware)
  all         camera, board, background, seats, dice, leds and buttons in turn, saving after
              each (camera only for a V4L2 device, leds and buttons only with --hardware)
  check       read a test roll and say how well the table reads now (exit 1 when it needs attention)

Without --image a step asks at the terminal and captures from --camera.
`

// allSteps are the steps of `calibrate all`, in the order an installer
// takes them: the camera is locked before anything is measured through it.
var allSteps = []string{"camera", "board", "background", "seats", "dice", "leds", "buttons"}

func runCalibrate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, calibrateUsage, "\nFlags:\n"); fs.PrintDefaults() }
	var images listFlag
	file := fs.String("file", "calibration.json", "the calibration file")
	camera := fs.String("camera", "/dev/video0", "the camera: a V4L2 device, gst:PIPELINE, or an image or folder")
	fs.Var(&images, "image", "a saved image to use instead of the camera (repeat for steps that take several)")
	cardFlag := fs.String("card", "9x6@20", "the chessboard card: inner corners COLSxROWS @ square mm")
	views := fs.Int("views", 5, "lens: how many views of the card (default with --image: as many as given)")
	seats := fs.String("seats", "", "seats: the seats' names, clockwise, comma-separated")
	layout := fs.String("layout", "round", "seats: round, rect or taught")
	centre := fs.String("centre", "0,0", "seats, round and rect: the table's centre on the board (the card's first inner corner is 0,0), X,Y mm")
	radius := fs.Float64("radius", 400, "seats, round: the table's radius, mm")
	width := fs.Float64("width", 1200, "seats, rect: the table's width, mm")
	height := fs.Float64("height", 800, "seats, rect: the table's height, mm")
	hwFile := fs.String("hardware", "", "leds, buttons: the board's hardware configuration (YAML: a board section on its own, or liarsd.yaml)")
	wait := fs.Duration("wait", 30*time.Second, "buttons: how long to wait for each press")
	expect := fs.Int("expect", 0, "check: how many dice the test roll has (0: not said)")
	// One step, with flags before it or after it ("calibrate check --expect 6").
	step := ""
	for rest := args; ; rest = fs.Args()[1:] {
		if code, done := parseFlags(fs, rest); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		if step != "" {
			return usageError(fs, stderr, "one step at a time, not %q and %q", step, fs.Arg(0))
		}
		step = fs.Arg(0)
	}
	if step == "" {
		return usageError(fs, stderr, "which step?")
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "liarsd calibrate: %v\n", err)
		return 1
	}
	if step != "check" && step != "all" && step != "lens" && !slices.Contains(allSteps, step) {
		return usageError(fs, stderr, "no step %q", step)
	}
	card, err := calibration.ParseCard(*cardFlag)
	if err != nil {
		return usageError(fs, stderr, "--card: %v", err)
	}
	viewsSet := false
	fs.Visit(func(f *flag.Flag) { viewsSet = viewsSet || f.Name == "views" })
	if !viewsSet && len(images) > 0 {
		*views = len(images)
	}
	names := splitNames(*seats)
	l := calibration.Layout{Kind: *layout, Radius: *radius, Width: *width, Height: *height}
	if step == "seats" || step == "all" {
		if _, perr := fmt.Sscanf(*centre, "%g,%g", &l.Centre.X, &l.Centre.Y); perr != nil {
			return usageError(fs, stderr, "--centre %q is not X,Y: %v", *centre, perr)
		}
		if len(names) == 0 {
			return usageError(fs, stderr, "the %s step needs --seats (the seats' names, clockwise)", step)
		}
		if *layout != "round" && *layout != "rect" && *layout != "taught" {
			// Refused now, not after the steps before seats in all.
			return usageError(fs, stderr, "--layout %q: want round, rect or taught", *layout)
		}
	}
	f, err := calibration.LoadOrNew(*file)
	if err != nil {
		return fail(err)
	}
	// One reader of stdin: the installer's answers, and the simulated
	// board's typed presses in the buttons step.
	in := bufio.NewReader(stdin)
	s := &calibration.Session{File: f, Dir: filepath.Dir(*file), Images: images, Out: stdout}
	if len(images) == 0 {
		s.In = in
	}
	openCamera := func() error {
		if len(images) > 0 || s.Source != nil {
			return nil
		}
		src, err := vision.Open(*camera)
		if err != nil {
			return err
		}
		s.Source = src
		return nil
	}
	defer func() {
		if s.Source != nil {
			s.Source.Close()
		}
	}()
	run := func(step string) error {
		switch step {
		case "board", "lens", "background", "dice":
			if err := openCamera(); err != nil {
				return err
			}
		}
		switch step {
		case "board":
			return s.Board(card)
		case "lens":
			return s.Lens(card, *views)
		case "background":
			return s.Background()
		case "dice":
			return s.Dice()
		case "seats":
			if *layout == "taught" {
				if err := openCamera(); err != nil {
					return err
				}
			}
			return s.Seats(names, l)
		case "camera":
			vc, err := gocv.OpenVideoCaptureWithAPI(*camera, gocv.VideoCaptureV4L2)
			if err != nil || !vc.IsOpened() {
				if err == nil {
					vc.Close()
				}
				return fmt.Errorf("cannot open the camera %s through V4L2 (%v): the camera step needs a V4L2 camera", *camera, err)
			}
			defer vc.Close()
			return s.Camera(vc)
		case "leds", "buttons":
			rig, err := openRig(*hwFile, stdout, in)
			if err != nil {
				return err
			}
			defer rig.Close()
			if step == "leds" {
				return s.LEDs(rig.Strip, rig.Layout)
			}
			return s.Buttons(ctx, rig.Buttons, rig.Layout.Seats(), hardware.Buttons, *wait)
		}
		return fmt.Errorf("unknown step %q", step)
	}
	save := func() error {
		if err := calibration.Save(*file, f); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "saved %s\n", *file)
		return nil
	}
	switch step {
	case "check":
		if _, err := os.Stat(*file); errors.Is(err, os.ErrNotExist) {
			// A mistyped --file must not pass for a calibrated table.
			fmt.Fprintf(stdout, "no calibration file %s: the table reads uncalibrated\n", *file)
		}
		if err := openCamera(); err != nil {
			return fail(err)
		}
		rep, err := s.Check(*expect)
		if err != nil {
			return fail(err)
		}
		if !rep.Healthy() {
			return 1
		}
		return 0 // check reads; it never writes the file
	case "all":
		for _, st := range allSteps {
			if skip := skipInAll(st, len(images) > 0, *camera, *hwFile); skip != "" {
				fmt.Fprintf(stdout, "%s: skipped (%s)\n", st, skip)
				continue
			}
			fmt.Fprintf(stdout, "== %s\n", st)
			if err := run(st); err != nil {
				return fail(fmt.Errorf("%s: %w (the steps before it are saved)", st, err))
			}
			if err := save(); err != nil {
				return fail(err)
			}
		}
		return 0
	}
	if err := run(step); err != nil {
		return fail(err)
	}
	if err := save(); err != nil {
		return fail(err)
	}
	return 0
}

// skipInAll says why `calibrate all` leaves a step out, or "" to take it.
func skipInAll(step string, fromImages bool, camera, hwFile string) string {
	switch step {
	case "camera":
		if fromImages {
			return "it sets a live camera's controls; --image gives none"
		}
		if !strings.HasPrefix(camera, "/dev/video") {
			return "it needs a V4L2 camera (/dev/videoN)"
		}
	case "leds", "buttons":
		if hwFile == "" {
			return "no --hardware"
		}
	}
	return ""
}

func splitNames(s string) []string {
	var names []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// openRig opens the board described by a hardware configuration file. A
// simulated board shows its LEDs on out and reads typed presses from in.
func openRig(path string, out io.Writer, in io.Reader) (*hardware.Rig, error) {
	if path == "" {
		return nil, fmt.Errorf("--hardware names no hardware configuration")
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	cfg, err := hardware.DecodeConfig(fh)
	if err != nil {
		return nil, err
	}
	return hardware.Open(cfg, hardware.OpenOptions{SimOutput: out, SimInput: in})
}
