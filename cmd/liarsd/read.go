package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

func init() {
	register(command{
		name:    "read",
		summary: "read the dice in images: one JSON line per image",
		run:     runRead,
	})
}

// readResult is one line of liarsd read's output.
type readResult struct {
	Image string       `json:"image"`
	Dice  []vision.Die `json:"dice"`
	MS    float64      `json:"ms"`
	Error string       `json:"error,omitempty"`
}

func runRead(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	fs.SetOutput(stderr)
	view := fs.String("view", "top", "where the camera looks from: top, or bottom (up through a glass board)")
	dieSize := fs.Float64("die-size", 0, "expected die side in pixels (0: find it from the image)")
	starDice := fs.Bool("star-dice", false, "the dice carry the star on their 1 face (any lone mark is the star; bottom view: a 6 below is a star on top)")
	plainDice := fs.Bool("plain-dice", false, "the dice carry a plain pip on their 1 face (a star-like face is flagged uncertain)")
	minConf := fs.Float64("min-confidence", vision.DefaultMinConfidence, "confidence below which a die is flagged uncertain")
	annotate := fs.String("annotate", "", "folder to write each image into with the dice drawn on it")
	calFile := fs.String("calibration", "", "the table's calibration file (liarsd calibrate): its view, die size, threshold and face templates; flags given here win")
	camera := fs.String("camera", "", "read frames from a camera instead of images: a V4L2 device (/dev/video0), gst:PIPELINE, or synth:SEED (synthetic tables)")
	frames := fs.Int("frames", 1, "with -camera, how many frames to capture and read")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd read [flags] IMAGE|FOLDER...\n       liarsd read [flags] -camera SPEC [-frames N]\n\nPrints one JSON object per image per line (a folder: each image in it, in name order):\n"+
			`{"image": PATH, "dice": [{"face": 1-6, "star": bool, "x": px, "y": px, "size": px, "confidence": 0-1, "uncertain": bool}], "ms": float}`+
			"\nAn image that cannot be read gets an \"error\" field, and the exit code is 1.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	v, err := vision.ParseView(*view)
	if err != nil {
		return usageError(fs, stderr, "-view: %v", err)
	}
	switch {
	case fs.NArg() == 0 && *camera == "":
		return usageError(fs, stderr, "no image, folder or -camera to read")
	case fs.NArg() > 0 && *camera != "":
		return usageError(fs, stderr, "images and -camera both given: read one or the other")
	case *frames < 1:
		return usageError(fs, stderr, "-frames %d: want at least 1", *frames)
	case *starDice && *plainDice:
		return usageError(fs, stderr, "-star-dice and -plain-dice both given: the dice carry one or the other on their 1 face")
	case !(*minConf >= 0 && *minConf <= 1):
		return usageError(fs, stderr, "-min-confidence %v: want a confidence from 0 to 1", *minConf)
	case !(*dieSize >= 0) || math.IsInf(*dieSize, 0):
		return usageError(fs, stderr, "-die-size %v: want a side in pixels, or 0 to find it from the image", *dieSize)
	}
	if *annotate != "" {
		if err := os.MkdirAll(*annotate, 0o755); err != nil {
			fmt.Fprintf(stderr, "liarsd read: %v\n", err)
			return 1
		}
	}
	o := vision.Options{View: v, DieSize: *dieSize, StarDice: *starDice, PlainDice: *plainDice, MinConfidence: *minConf}
	var reader diceReader
	if *calFile == "" {
		vr, err := vision.NewReader(o)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd read: %v\n", err)
			return 1
		}
		reader = vr
	} else {
		cal, err := calibration.Load(*calFile)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd read: %v\n", err)
			return 1
		}
		// The calibration's options, where the command line does not say.
		co := cal.VisionOptions()
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "view":
				co.View = o.View
			case "die-size":
				co.DieSize = o.DieSize
			case "min-confidence":
				co.MinConfidence = o.MinConfidence
			}
		})
		if co.MinConfidence == 0 {
			co.MinConfidence = o.MinConfidence
		}
		co.StarDice, co.PlainDice = o.StarDice, o.PlainDice
		if reader, err = cal.ReaderWith(co); err != nil {
			fmt.Fprintf(stderr, "liarsd read: %v\n", err)
			return 1
		}
	}
	defer reader.Close()
	if *camera == "" {
		return printResults(ctx, imageResults(ctx, reader, fs.Args(), *annotate), json.NewEncoder(stdout), stderr)
	}
	src, err := openReadCamera(*camera)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd read: %v\n", err)
		return 1
	}
	defer src.Close()
	return printResults(ctx, cameraResults(ctx, reader, src, *camera, *frames, *annotate), json.NewEncoder(stdout), stderr)
}

// printResults prints each result as a line of JSON, and its error on
// stderr too. It returns the exit code: 1 when a result was an error or
// ctx ended the reads.
func printResults(ctx context.Context, results iter.Seq[readResult], enc *json.Encoder, stderr io.Writer) int {
	code := 0
	for res := range results {
		if res.Error != "" {
			fmt.Fprintf(stderr, "liarsd read: %s\n", res.Error)
			code = 1
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "liarsd read: %v\n", err)
			return 1
		}
	}
	if ctx.Err() != nil {
		return 1
	}
	return code
}

// imageResults reads the image files of args in turn, and the images of
// each folder among them in name order (a folder with none is an error
// result), until ctx ends.
func imageResults(ctx context.Context, reader diceReader, args []string, annotate string) iter.Seq[readResult] {
	return func(yield func(readResult) bool) {
		for _, arg := range args {
			paths := []string{arg}
			if st, err := os.Stat(arg); err == nil && st.IsDir() {
				if paths, err = vision.FolderImages(arg); err != nil {
					if !yield(errorResult(arg, err)) {
						return
					}
				}
			}
			for _, path := range paths {
				if ctx.Err() != nil || !yield(readOne(reader, path, annotate)) {
					return
				}
			}
		}
	}
}

// errorResult is the line for an image that could not be read.
func errorResult(name string, err error) readResult {
	return readResult{Image: name, Dice: []vision.Die{}, Error: err.Error()}
}

// diceReader reads the dice in an image: a *vision.Reader, or a
// calibrated table's *calibration.Reader.
type diceReader interface {
	Read(img gocv.Mat) ([]vision.Die, error)
	Close() error
}

// cameraResults captures frames from src, the camera named by spec, and
// reads them, each named SPEC#N (N from 1), until ctx ends. A frame the
// camera fails to give is an error result; the frames after it are still
// tried.
func cameraResults(ctx context.Context, reader diceReader, src vision.Source, spec string, frames int, annotate string) iter.Seq[readResult] {
	return func(yield func(readResult) bool) {
		for i := 1; i <= frames && ctx.Err() == nil; i++ {
			name := fmt.Sprintf("%s#%d", spec, i)
			img, err := src.Capture()
			if err != nil {
				if !yield(errorResult(name, err)) {
					return
				}
				continue
			}
			res := readMat(reader, name, img, annotatePath(annotate, fmt.Sprintf("frame-%04d.png", i)))
			img.Close()
			if !yield(res) {
				return
			}
		}
	}
}

// openReadCamera opens a camera as vision.Open does, or a synthetic table
// for "synth:SEED" (a third of its dice showing the star, in the three
// artworks), which vision cannot open itself.
func openReadCamera(spec string) (vision.Source, error) {
	if seed, ok := strings.CutPrefix(spec, "synth:"); ok {
		n, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("synthetic camera %q: want synth:SEED, a whole number", spec)
		}
		return synth.NewRandomSource(n, synth.RandomOptions{StarShare: 1.0 / 3}), nil
	}
	return vision.Open(spec)
}

// readOne reads one image file; its errors go into the result.
func readOne(reader diceReader, path, annotate string) readResult {
	img, err := vision.LoadImage(path)
	if err != nil {
		return errorResult(path, err)
	}
	defer img.Close()
	return readMat(reader, path, img, annotatePath(annotate, filepath.Base(path)))
}

// annotatePath is where an annotated image named name goes in the folder
// dir; no folder, no path.
func annotatePath(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// readMat reads the dice in img, named name in the result, and writes the
// image with its reads drawn on it to annotated unless that is empty.
func readMat(reader diceReader, name string, img gocv.Mat, annotated string) readResult {
	res := readResult{Image: name, Dice: []vision.Die{}}
	start := time.Now()
	dice, err := reader.Read(img)
	res.MS = math.Round(float64(time.Since(start).Microseconds())/10) / 100
	if err != nil {
		res.Error = err.Error()
		return res
	}
	for i := range dice {
		dice[i].X = math.Round(dice[i].X*10) / 10
		dice[i].Y = math.Round(dice[i].Y*10) / 10
		dice[i].Size = math.Round(dice[i].Size*10) / 10
	}
	if dice != nil {
		// A reader may give nil for no dice: the line says "dice":[].
		res.Dice = dice
	}
	if annotated != "" {
		vision.Annotate(&img, dice)
		gocv.IMWrite(annotated, img)
	}
	return res
}
