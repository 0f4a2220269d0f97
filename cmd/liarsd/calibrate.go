package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
  lens        measure the lens's distortion from several views of the card
  background  keep an image of the empty board under this table's light
  seats       draw the seat zones (--layout round, rect, or taught with dice in front of each seat)
  dice        learn the dice from a calibration roll: rows of six showing the star, 2, 3, 4, 5, 6
  camera      lock the camera's exposure, white balance and focus (V4L2)
  leds        walk the LED chain and confirm each LED (--hardware)
  buttons     press each seat's buttons when asked (--hardware)
  check       read a test roll and say how well the table reads now (exit 1 when it needs attention)

Without --image a step asks at the terminal and captures from --camera.
`

func runCalibrate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, calibrateUsage, "\nFlags:\n"); fs.PrintDefaults() }
	var images listFlag
	file := fs.String("file", "calibration.json", "the calibration file")
	camera := fs.String("camera", "/dev/video0", "the camera: a V4L2 device, gst:PIPELINE, or an image or folder")
	fs.Var(&images, "image", "a saved image to use instead of the camera (repeat for steps that take several)")
	card := fs.String("card", "9x6@20", "the chessboard card: inner corners COLSxROWS @ square mm")
	views := fs.Int("views", 5, "lens: how many views of the card")
	seats := fs.String("seats", "", "seats: the seats' names, clockwise, comma-separated")
	layout := fs.String("layout", "round", "seats: round, rect or taught")
	centre := fs.String("centre", "0,0", "seats, round: the table's centre on the board, X,Y mm")
	radius := fs.Float64("radius", 400, "seats, round: the table's radius, mm")
	width := fs.Float64("width", 1200, "seats, rect: the table's width, mm")
	height := fs.Float64("height", 800, "seats, rect: the table's height, mm")
	hwFile := fs.String("hardware", "", "leds, buttons: the board's hardware configuration (YAML)")
	wait := fs.Duration("wait", 30*time.Second, "buttons: how long to wait for each press")
	expect := fs.Int("expect", 0, "check: how many dice the test roll has (0: not said)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "liarsd calibrate: %v\n", err)
		return 1
	}
	f, err := calibration.LoadOrNew(*file)
	if err != nil {
		return fail(err)
	}
	s := &calibration.Session{File: f, Dir: filepath.Dir(*file), Images: images, Out: stdout}
	if len(images) == 0 {
		s.In = bufio.NewReader(stdin)
	}
	openCamera := func() error {
		if len(images) > 0 {
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
	var c calibration.Card
	if _, err := fmt.Sscanf(*card, "%dx%d@%g", &c.Cols, &c.Rows, &c.SquareMM); err != nil {
		return fail(fmt.Errorf("--card %q is not COLSxROWS@MM: %w", *card, err))
	}
	switch step := fs.Arg(0); step {
	case "check":
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
	case "board", "lens", "background", "seats", "dice":
		if step != "seats" || *layout == "taught" {
			if err := openCamera(); err != nil {
				return fail(err)
			}
		}
		switch step {
		case "board":
			err = s.Board(c)
		case "lens":
			err = s.Lens(c, *views)
		case "background":
			err = s.Background()
		case "dice":
			err = s.Dice()
		case "seats":
			l := calibration.Layout{Kind: *layout, Radius: *radius, Width: *width, Height: *height}
			if _, perr := fmt.Sscanf(*centre, "%g,%g", &l.Centre.X, &l.Centre.Y); perr != nil {
				return fail(fmt.Errorf("--centre %q is not X,Y: %w", *centre, perr))
			}
			names := splitNames(*seats)
			if len(names) == 0 {
				return fail(fmt.Errorf("--seats names no seats"))
			}
			err = s.Seats(names, l)
		}
	case "camera":
		vc, oerr := gocv.OpenVideoCaptureWithAPI(*camera, gocv.VideoCaptureV4L2)
		if oerr != nil || !vc.IsOpened() {
			return fail(fmt.Errorf("cannot open the camera %s through V4L2 (%v): the camera step needs a V4L2 camera", *camera, oerr))
		}
		defer vc.Close()
		err = s.Camera(vc)
	case "leds", "buttons":
		rig, rerr := openRig(ctx, *hwFile)
		if rerr != nil {
			return fail(rerr)
		}
		defer rig.Close()
		if step == "leds" {
			err = s.LEDs(rig.Strip, rig.Layout)
		} else {
			err = s.Buttons(ctx, rig.Buttons, rig.Layout.Seats(), hardware.Buttons, *wait)
		}
	default:
		fs.Usage()
		return 2
	}
	if err != nil {
		return fail(err)
	}
	if err := calibration.Save(*file, f); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "saved %s\n", *file)
	return 0
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

// openRig opens the board described by a hardware configuration file.
func openRig(_ context.Context, path string) (*hardware.Rig, error) {
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
	return hardware.Open(cfg, hardware.OpenOptions{})
}
