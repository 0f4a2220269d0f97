package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/vision/synth"
)

// writeCardImage saves an image of a 10x7-square chessboard card (9x6 inner
// corners, 20 px squares) on a grey table.
func writeCardImage(t *testing.T, path string) {
	t.Helper()
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(120, 130, 110, 0), 480, 640, gocv.MatTypeCV8UC3)
	defer img.Close()
	gocv.Rectangle(&img, image.Rect(200, 150, 420, 310), color.RGBA{245, 245, 245, 0}, -1)
	for r := range 7 {
		for c := range 10 {
			if (r+c)%2 == 0 {
				gocv.Rectangle(&img, image.Rect(210+c*20, 160+r*20, 230+c*20, 180+r*20), color.RGBA{20, 20, 20, 0}, -1)
			}
		}
	}
	if !gocv.IMWrite(path, img) {
		t.Fatal("cannot write the card image")
	}
}

// writeRollImage saves a calibration roll: six white dice with black pips,
// laid out star, 2, ..., 6.
func writeRollImage(t *testing.T, path string) {
	t.Helper()
	scene := synth.Scene{Width: 800, Height: 300, DieSize: 48, Table: color.RGBA{50, 110, 60, 255}, Seed: 2}
	for f := 1; f <= 6; f++ {
		scene.Dice = append(scene.Dice, synth.Die{Face: f, One: synth.FilledStar, X: float64(100 + (f-1)*120), Y: 150,
			Colour: color.RGBA{240, 240, 235, 255}, PipColour: color.RGBA{20, 20, 20, 255}, Rotation: float64(f * 7)})
	}
	img, _, err := synth.Render(scene)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if !gocv.IMWrite(path, img) {
		t.Fatal("cannot write the roll image")
	}
}

func calibrate(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := dispatch(context.Background(), append([]string{"calibrate"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCalibrateCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.json")
	cardImg := filepath.Join(dir, "card.png")
	writeCardImage(t, cardImg)

	if code, out, errs := calibrate(t, "", "--file", file, "--image", cardImg, "--card", "9x6@25", "board"); code != 0 {
		t.Fatalf("board: exit %d\n%s%s", code, out, errs)
	}
	f, err := calibration.Load(file)
	if err != nil || f.Board == nil {
		t.Fatalf("after board: %+v, %v", f, err)
	}
	// 20 px squares of 25 mm: the card's first inner corner, at pixel
	// (230,180), is the origin; one square right and down is (25, 25) mm.
	if x, y := f.Board.ToBoard(230, 180); x*x+y*y > 0.25 {
		t.Errorf("pixel (230,180) maps to (%.2f, %.2f) mm; want the origin", x, y)
	}
	if x, y := f.Board.ToBoard(250, 200); (x-25)*(x-25)+(y-25)*(y-25) > 0.25 {
		t.Errorf("pixel (250,200) maps to (%.2f, %.2f) mm; want (25, 25)", x, y)
	}
	if code, out, errs := calibrate(t, "", "--file", file, "--layout", "round", "--seats", "ann,bob,cy", "--centre", "100,60", "--radius", "300", "seats"); code != 0 {
		t.Fatalf("seats: exit %d\n%s%s", code, out, errs)
	}
	f, _ = calibration.Load(file)
	if len(f.Seats) != 3 || f.Board == nil {
		t.Fatalf("after seats: %d seats, board %v; want 3 seats and the board kept", len(f.Seats), f.Board != nil)
	}
	// LEDs on the simulated board, every LED confirmed as planned.
	answers := strings.Repeat("\n", 30+15+6+6+1)
	if code, out, errs := calibrate(t, answers, "--file", file, "--hardware", "../../testdata/hardware/sim.yaml", "leds"); code != 0 {
		t.Fatalf("leds: exit %d\n%s%s", code, out, errs)
	}
	f, _ = calibration.Load(file)
	if f.Wiring == nil || len(f.Wiring.LEDOrder) != 58 || f.Wiring.LEDOrder[57] != 57 {
		t.Fatalf("after leds: wiring %+v; want 58 LEDs in order", f.Wiring)
	}
}

func TestCalibrateErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.json")
	blank := filepath.Join(dir, "blank.png")
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(90, 90, 90, 0), 240, 320, gocv.MatTypeCV8UC3)
	gocv.IMWrite(blank, img)
	img.Close()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no card in the image", []string{"--file", file, "--image", blank, "board"}, 1, "no chessboard card"},
		{"no camera", []string{"--file", file, "--camera", "/dev/video99", "camera"}, 1, "camera"},
		{"unknown step", []string{"--file", file, "dance"}, 2, "usage"},
		{"two steps", []string{"--file", file, "board", "dice"}, 2, "usage"},
		{"bad card", []string{"--file", file, "--card", "nine", "board"}, 2, "--card"},
		// OpenCV aborts the process on a card of fewer than 3x3 corners.
		{"card too small", []string{"--file", file, "--image", blank, "--card", "2x2@20", "board"}, 2, "3 to 100"},
		{"all without seats", []string{"--file", file, "--image", blank, "all"}, 2, "--seats"},
		{"taught seats without a board", []string{"--file", file, "--image", blank, "--layout", "taught", "--seats", "a,b", "seats"}, 1, "board step first"},
	}
	for _, tt := range tests {
		code, _, errs := calibrate(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, %q; want exit %d mentioning %q", tt.name, code, errs, tt.code, tt.want)
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a failed step wrote the file (%v)", err)
	}
	os.WriteFile(file, []byte(`{"version":7}`), 0o644)
	if code, _, errs := calibrate(t, "", "--file", file, "--layout", "round", "--seats", "a,b", "seats"); code != 1 || !strings.Contains(errs, "version 7") {
		t.Errorf("a version 7 file: exit %d, %q; want a refusal naming the version", code, errs)
	}
}

func TestCalibrateDiceAndCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.json")
	roll := filepath.Join(dir, "roll.png")
	writeRollImage(t, roll)
	if code, out, errs := calibrate(t, "", "--file", file, "--image", roll, "dice"); code != 0 {
		t.Fatalf("dice: exit %d\n%s%s", code, out, errs)
	}
	f, err := calibration.Load(file)
	if err != nil || f.Dice == nil || len(f.Dice.Templates) != 6 {
		t.Fatalf("after dice: %+v, %v; want six templates", f.Dice, err)
	}
	if code, out, _ := calibrate(t, "", "--file", file, "--image", roll, "--expect", "6", "check"); code != 0 || !strings.Contains(out, "ready") {
		t.Fatalf("check of the roll: exit %d, %q; want ready", code, out)
	}
	if code, out, _ := calibrate(t, "", "--file", file, "--image", roll, "check", "--expect", "9"); code != 1 || !strings.Contains(out, "needs attention") {
		t.Fatalf("check expecting 9 of 6 dice: exit %d, %q; want needs attention", code, out)
	}
}

func TestCalibrateAll(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.json")
	card, blank, roll := filepath.Join(dir, "card.png"), filepath.Join(dir, "blank.png"), filepath.Join(dir, "roll.png")
	writeCardImage(t, card)
	writeRollImage(t, roll)
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(120, 130, 110, 0), 480, 640, gocv.MatTypeCV8UC3)
	gocv.IMWrite(blank, img)
	img.Close()

	// Images for board, background and dice; seats drawn round.
	code, out, errs := calibrate(t, "", "--file", file, "--image", card, "--image", blank, "--image", roll, "--seats", "ann,bob,cy", "all")
	if code != 0 {
		t.Fatalf("all: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"camera: skipped", "== board", "== background", "== seats", "== dice", "leds: skipped", "buttons: skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("all's output lacks %q:\n%s", want, out)
		}
	}
	f, err := calibration.Load(file)
	if err != nil || f.Board == nil || len(f.Seats) != 3 || f.Dice == nil || f.Background == "" {
		t.Fatalf("after all: %+v, %v; want board, 3 seats, dice and background", f, err)
	}
	if _, err := os.Stat(filepath.Join(dir, f.Background)); err != nil {
		t.Errorf("background image: %v", err)
	}

	// A step that fails stops the rest; the steps before it stay saved.
	os.Remove(file)
	code, _, errs = calibrate(t, "", "--file", file, "--image", card, "--seats", "ann,bob", "all")
	if code != 1 || !strings.Contains(errs, "background:") || !strings.Contains(errs, "before it are saved") {
		t.Fatalf("all with one image: exit %d, %q; want exit 1 naming the background step", code, errs)
	}
	if f, err := calibration.Load(file); err != nil || f.Board == nil || f.Dice != nil {
		t.Fatalf("after a failed all: %+v, %v; want the board saved and no dice", f, err)
	}
}

func TestCalibrateButtonsOnTheSimulatedBoard(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.json")
	hw := filepath.Join(dir, "board.yaml")
	os.WriteFile(hw, []byte("driver: sim\nseats: [ann, bob]\ntrack: {number_spaces: 10, star_spaces: 5}\n"), 0o644)
	// The installer presses each button as asked, but bob's bid button
	// arrives as his challenge button, and the other way around.
	var typed strings.Builder
	for _, seat := range []string{"ann", "bob"} {
		for _, b := range []string{"u", "d", "f", "b", "c", "s"} {
			switch {
			case seat == "bob" && b == "b":
				b = "c"
			case seat == "bob" && b == "c":
				b = "b"
			}
			fmt.Fprintf(&typed, "%s %s\n", seat, b)
		}
	}
	code, out, errs := calibrate(t, typed.String(), "--file", file, "--hardware", hw, "--wait", "5s", "buttons")
	if code != 0 {
		t.Fatalf("buttons: exit %d\n%s%s", code, out, errs)
	}
	f, err := calibration.Load(file)
	if err != nil || f.Wiring == nil {
		t.Fatalf("after buttons: %+v, %v", f, err)
	}
	want := map[string]string{"bob/challenge": "bob/bid", "bob/bid": "bob/challenge"}
	if !maps.Equal(f.Wiring.Buttons, want) {
		t.Fatalf("button map %v; want %v", f.Wiring.Buttons, want)
	}
}

// TestCalibrateInteractive runs steps as at the terminal: the step says
// what to do, waits for Enter, and captures from the camera (here an
// image standing in for it). An installer who leaves (no answer) leaves
// the file as it was.
func TestCalibrateInteractive(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.json")
	cardImg := filepath.Join(dir, "card.png")
	writeCardImage(t, cardImg)
	code, out, errs := calibrate(t, "\n", "--file", file, "--camera", cardImg, "--card", "9x6@25", "board")
	if code != 0 {
		t.Fatalf("board at the terminal: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"lay the 10x7-square chessboard card", "Press Enter when ready", "board found", "saved " + file} {
		if !strings.Contains(out, want) {
			t.Errorf("board at the terminal said %q; want it to say %q", out, want)
		}
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs = calibrate(t, "", "--file", file, "--camera", cardImg, "background")
	if code != 1 || !strings.Contains(errs, "no answer") {
		t.Errorf("background with nobody answering: exit %d, %q; want exit 1 saying no answer came", code, errs)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(after, before) {
		t.Errorf("a step nobody answered changed the file")
	}
}

// TestCalibrateRectSeats draws a rectangular table's zones around the
// table's centre on the board (the card lies in the middle of the board,
// so the board's origin is near the table's centre).
func TestCalibrateRectSeats(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cal.json")
	code, out, errs := calibrate(t, "", "--file", file, "--layout", "rect", "--seats", "a,b,c,d", "--centre", "50,-20", "--width", "1200", "--height", "800", "seats")
	if code != 0 {
		t.Fatalf("seats: exit %d\n%s%s", code, out, errs)
	}
	f, err := calibration.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	// Seats at the middle of each edge, clockwise from the top.
	tests := []struct {
		p    calibration.Point
		seat string
	}{
		{calibration.Point{X: 50, Y: -400}, "a"},
		{calibration.Point{X: 620, Y: -20}, "b"},
		{calibration.Point{X: 40, Y: 360}, "c"},
		{calibration.Point{X: -520, Y: 0}, "d"},
	}
	for _, tt := range tests {
		if got, in, _ := calibration.Zones(f.Seats).Assign(tt.p); got != tt.seat || !in {
			t.Errorf("Assign(%v) = %s (in zone %v); want %s", tt.p, got, in, tt.seat)
		}
	}
}

// TestCalibrateKeepsAFileItCannotRead: a corrupt file is refused, named,
// and left as it is: no step writes a new file over it.
func TestCalibrateKeepsAFileItCannotRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cal.json")
	corrupt := []byte(`{"version":1,"seats":[{"name":"ann","zo`)
	os.WriteFile(file, corrupt, 0o644)
	code, _, errs := calibrate(t, "", "--file", file, "--layout", "round", "--seats", "a,b", "seats")
	if code != 1 || !strings.Contains(errs, "not a calibration file") {
		t.Errorf("seats over a corrupt file: exit %d, %q; want exit 1 saying it is not a calibration file", code, errs)
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, corrupt) {
		t.Errorf("the corrupt file was replaced: %q", got)
	}
}

// TestCalibrateCheckWithoutFile says when there is no calibration to check.
func TestCalibrateCheckWithoutFile(t *testing.T) {
	dir := t.TempDir()
	roll := filepath.Join(dir, "roll.png")
	writeRollImage(t, roll)
	file := filepath.Join(dir, "typo.json")
	_, out, _ := calibrate(t, "", "--file", file, "--image", roll, "check")
	if want := "no calibration file " + file; !strings.Contains(out, want) {
		t.Errorf("check without a file said %q; want %q", out, want)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("check wrote the file (%v)", err)
	}
}
