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
	cf, code, done := parseCalibrate(args, stderr)
	if done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "liarsd calibrate: %v\n", err)
		return 1
	}
	f, err := calibration.LoadOrNew(cf.file)
	if err != nil {
		return fail(err)
	}
	// One reader of stdin: the installer's answers, and the simulated
	// board's typed presses in the buttons step.
	c := &calibrator{calibrateFlags: cf, ctx: ctx, out: stdout, in: bufio.NewReader(stdin), f: f}
	c.s = &calibration.Session{File: f, Dir: filepath.Dir(cf.file), Images: cf.images, Out: stdout}
	if len(cf.images) == 0 {
		c.s.In = c.in
	}
	defer func() {
		if c.s.Source != nil {
			c.s.Source.Close()
		}
	}()
	switch cf.step {
	case "check":
		return c.check(fail)
	case "all":
		for _, st := range allSteps {
			if skip := skipInAll(st, len(cf.images) > 0, cf.camera, cf.hwFile); skip != "" {
				fmt.Fprintf(stdout, "%s: skipped (%s)\n", st, skip)
				continue
			}
			fmt.Fprintf(stdout, "== %s\n", st)
			if err := c.run(st); err != nil {
				return fail(fmt.Errorf("%s: %w (the steps before it are saved)", st, err))
			}
			if err := c.save(); err != nil {
				return fail(err)
			}
		}
		return 0
	}
	if err := c.run(cf.step); err != nil {
		return fail(err)
	}
	if err := c.save(); err != nil {
		return fail(err)
	}
	return 0
}

// calibrateFlags are liarsd calibrate's flags and its step, read and
// checked.
type calibrateFlags struct {
	step         string
	file, camera string
	images       listFlag
	card         calibration.Card
	views        int
	names        []string
	layout       calibration.Layout
	hwFile       string
	wait         time.Duration
	expect       int
}

// parseCalibrate reads liarsd calibrate's flags and its one step (flags
// before it or after it: "calibrate check --expect 6"); done says the
// command ends with code (help, or a usage error).
func parseCalibrate(args []string, stderr io.Writer) (cf calibrateFlags, code int, done bool) {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, calibrateUsage, "\nFlags:\n"); fs.PrintDefaults() }
	fs.StringVar(&cf.file, "file", "calibration.json", "the calibration file")
	fs.StringVar(&cf.camera, "camera", "/dev/video0", "the camera: a V4L2 device, gst:PIPELINE, or an image or folder")
	fs.Var(&cf.images, "image", "a saved image to use instead of the camera (repeat for steps that take several)")
	cardFlag := fs.String("card", "9x6@20", "the chessboard card: inner corners COLSxROWS @ square mm")
	fs.IntVar(&cf.views, "views", 5, "lens: how many views of the card (default with --image: as many as given)")
	seats := fs.String("seats", "", "seats: the seats' names, clockwise, comma-separated")
	layout := fs.String("layout", "round", "seats: round, rect or taught")
	centre := fs.String("centre", "0,0", "seats, round and rect: the table's centre on the board (the card's first inner corner is 0,0), X,Y mm")
	radius := fs.Float64("radius", 400, "seats, round: the table's radius, mm")
	width := fs.Float64("width", 1200, "seats, rect: the table's width, mm")
	height := fs.Float64("height", 800, "seats, rect: the table's height, mm")
	fs.StringVar(&cf.hwFile, "hardware", "", "leds, buttons: the board's hardware configuration (YAML: a board section on its own, or liarsd.yaml)")
	fs.DurationVar(&cf.wait, "wait", 30*time.Second, "buttons: how long to wait for each press")
	fs.IntVar(&cf.expect, "expect", 0, "check: how many dice the test roll has (0: not said)")
	for rest := args; ; rest = fs.Args()[1:] {
		if code, done := parseFlags(fs, rest); done {
			return cf, code, true
		}
		if fs.NArg() == 0 {
			break
		}
		if cf.step != "" {
			return cf, usageError(fs, stderr, "one step at a time, not %q and %q", cf.step, fs.Arg(0)), true
		}
		cf.step = fs.Arg(0)
	}
	step := cf.step
	switch {
	case step == "":
		return cf, usageError(fs, stderr, "which step?"), true
	case step != "check" && step != "all" && step != "lens" && !slices.Contains(allSteps, step):
		return cf, usageError(fs, stderr, "no step %q", step), true
	}
	var err error
	if cf.card, err = calibration.ParseCard(*cardFlag); err != nil {
		return cf, usageError(fs, stderr, "--card: %v", err), true
	}
	viewsSet := false
	fs.Visit(func(f *flag.Flag) { viewsSet = viewsSet || f.Name == "views" })
	if !viewsSet && len(cf.images) > 0 {
		cf.views = len(cf.images)
	}
	cf.names = splitNames(*seats)
	cf.layout = calibration.Layout{Kind: *layout, Radius: *radius, Width: *width, Height: *height}
	if step == "seats" || step == "all" {
		if _, perr := fmt.Sscanf(*centre, "%g,%g", &cf.layout.Centre.X, &cf.layout.Centre.Y); perr != nil {
			return cf, usageError(fs, stderr, "--centre %q is not X,Y: %v", *centre, perr), true
		}
		if len(cf.names) == 0 {
			return cf, usageError(fs, stderr, "the %s step needs --seats (the seats' names, clockwise)", step), true
		}
		if *layout != "round" && *layout != "rect" && *layout != "taught" {
			// Refused now, not after the steps before seats in all.
			return cf, usageError(fs, stderr, "--layout %q: want round, rect or taught", *layout), true
		}
	}
	return cf, 0, false
}

// calibrator runs liarsd calibrate's steps on a calibration file.
type calibrator struct {
	calibrateFlags
	ctx context.Context
	out io.Writer
	in  *bufio.Reader
	f   *calibration.File
	s   *calibration.Session
}

// openCamera opens --camera for the session, unless it reads --image.
func (c *calibrator) openCamera() error {
	if len(c.images) > 0 || c.s.Source != nil {
		return nil
	}
	src, err := vision.Open(c.camera)
	if err != nil {
		return err
	}
	c.s.Source = src
	return nil
}

// run takes one step.
func (c *calibrator) run(step string) error {
	s := c.s
	switch step {
	case "board", "lens", "background", "dice":
		if err := c.openCamera(); err != nil {
			return err
		}
	}
	switch step {
	case "board":
		return s.Board(c.card)
	case "lens":
		return s.Lens(c.card, c.views)
	case "background":
		return s.Background()
	case "dice":
		return s.Dice()
	case "seats":
		if c.layout.Kind == "taught" {
			if err := c.openCamera(); err != nil {
				return err
			}
		}
		return s.Seats(c.names, c.layout)
	case "camera":
		vc, err := gocv.OpenVideoCaptureWithAPI(c.camera, gocv.VideoCaptureV4L2)
		if err != nil || !vc.IsOpened() {
			if err == nil {
				vc.Close()
			}
			return fmt.Errorf("cannot open the camera %s through V4L2 (%v): the camera step needs a V4L2 camera", c.camera, err)
		}
		defer vc.Close()
		return s.Camera(vc)
	case "leds", "buttons":
		rig, err := openRig(c.hwFile, c.out, c.in)
		if err != nil {
			return err
		}
		defer rig.Close()
		if step == "leds" {
			return s.LEDs(rig.Strip, rig.Layout)
		}
		return s.Buttons(c.ctx, rig.Buttons, rig.Layout.Seats(), hardware.Buttons, c.wait)
	}
	return fmt.Errorf("unknown step %q", step)
}

// save writes the calibration file.
func (c *calibrator) save() error {
	if err := calibration.Save(c.file, c.f); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "saved %s\n", c.file)
	return nil
}

// check reads a test roll and says how well the table reads: exit 1 when
// it needs attention. It never writes the file.
func (c *calibrator) check(fail func(error) int) int {
	if _, err := os.Stat(c.file); errors.Is(err, os.ErrNotExist) {
		// A mistyped --file must not pass for a calibrated table.
		fmt.Fprintf(c.out, "no calibration file %s: the table reads uncalibrated\n", c.file)
	}
	if err := c.openCamera(); err != nil {
		return fail(err)
	}
	rep, err := c.s.Check(c.expect)
	if err != nil {
		return fail(err)
	}
	if !rep.Healthy() {
		return 1
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
