package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision/synth"
)

func init() {
	register(command{
		name:    "synth",
		summary: "render synthetic tables and write them as a labelled training set",
		run:     runSynth,
	})
}

// synthHeader is the first line of the labels a synth run writes.
const synthHeader = "image,face,star,artwork,uncertain,x,y,size,xmin,ymin,xmax,ymax"

// artworkNames are the labels' names of the 1 face's artworks.
var artworkNames = map[synth.Artwork]string{synth.Pip: "pip", synth.FilledStar: "filled", synth.OutlinedStar: "outlined", synth.ShipsWheel: "wheel"}

func runSynth(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "folder to write images/ and labels.csv into (required)")
	n := fs.Int("n", 100, "scenes to render")
	seed := fs.Uint64("seed", 1, "seed of the first scene; the next are seed+1, seed+2, ...")
	varied := fs.Bool("varied", false, "draw every scene with synth.Varied: sizes, surfaces, tilt, clutter, colours, saving (the other flags but -width and -height are then ignored)")
	width := fs.Int("width", 0, "image width (default 1280, or drawn per scene with -varied)")
	height := fs.Int("height", 0, "image height (default 720, or drawn per scene with -varied)")
	dice := fs.Int("dice", 30, "dice per scene (fewer when a tilted camera cannot see them all apart)")
	size := fs.Float64("size", 48, "die side in pixels")
	tilt := fs.Float64("tilt", 0, "greatest camera tilt, degrees (0-50)")
	surfaces := fs.String("surfaces", "felt", "comma-separated surfaces to draw from: felt, wood, cloth, paper, glass, tray, or all")
	clutter := fs.Float64("clutter", 0, "mean number of things (keyboards, cables, ...) per scene")
	anyColour := fs.Float64("any-colour", 0, "share of dice of any colour")
	styles := fs.Float64("styles", 0, "share of dice with their own corners and pip size (some casino dice)")
	spread := fs.Float64("size-spread", 0, "each die's side varies by up to this share either way")
	stars := fs.Float64("star-share", 0, "share of dice showing the star (0: a fair die's one in six)")
	format := fs.String("format", "jpg", "image format: jpg (quality 95) or png")
	house := fs.String("house", "", "draw every die in one house style, BODY/PIPS as R,G,B/R,G,B (e.g. 120,10,20/230,190,60), for measuring a table that learns its own dice")
	translucent := fs.Bool("translucent", false, "with -house, the dice are translucent")
	workers := fs.Int("workers", 2, "scenes rendered at once")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd synth -o DIR [-n N] [-seed S] [-varied | flags]\n\nRenders N synthetic tables (seeds S, S+1, ...) and writes DIR/images/SEED.jpg\nand DIR/labels.csv, one line a die:\n  "+synthHeader+"\n(x, y: the top face's centre; size: its side, the square root of its area in\nthe image; the box: the whole visible die, sides included).")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q (synth takes flags only)", fs.Arg(0))
	}
	if *out == "" {
		return usageError(fs, stderr, "-o is required")
	}
	if *n < 1 || *workers < 1 || *dice < 1 || *size <= 0 {
		return usageError(fs, stderr, "-n, -workers, -dice and -size must be above 0")
	}
	if *tilt < 0 || *tilt > 50 {
		return usageError(fs, stderr, "-tilt %v: want 0 to 50 degrees", *tilt)
	}
	if *format != "jpg" && *format != "png" {
		return usageError(fs, stderr, "-format %q: want jpg or png", *format)
	}
	if (*width > 0) != (*height > 0) || *width < 0 || *height < 0 {
		return usageError(fs, stderr, "-width and -height go together")
	}
	var surf []synth.Surface
	for _, name := range strings.Split(*surfaces, ",") {
		if name = strings.TrimSpace(name); name == "all" {
			surf = append(surf, synth.Surfaces...)
			continue
		}
		sf, err := synth.ParseSurface(name)
		if err != nil {
			return usageError(fs, stderr, "-surfaces: %v", err)
		}
		surf = append(surf, sf)
	}
	opts := synth.RandomOptions{
		Width: *width, Height: *height, Dice: *dice, DieSize: *size, StarShare: *stars,
		Surfaces: surf, Clutter: *clutter, MaxCameraTilt: *tilt, AnyColour: *anyColour, Styles: *styles, SizeSpread: *spread,
	}
	if len(surf) == 1 && surf[0] == synth.Felt {
		opts.Surfaces = nil
	}
	var body, pips color.RGBA
	if *house != "" {
		var err error
		if body, pips, err = parseHouse(*house); err != nil {
			return usageError(fs, stderr, "-house %q: %v", *house, err)
		}
	}
	scene := func(s uint64) synth.Scene {
		if *varied {
			return synth.Varied(s, *width, *height)
		}
		sc := synth.Random(s, opts)
		if *house != "" {
			for i := range sc.Dice {
				sc.Dice[i].Colour, sc.Dice[i].PipColour, sc.Dice[i].Translucent = body, pips, *translucent
				sc.Dice[i].Swirl = color.RGBA{}
			}
		}
		return sc
	}
	start := time.Now()
	dice2, err := exportSynth(ctx, *out, *seed, *n, *workers, *format, scene)
	if err != nil {
		fmt.Fprintf(stderr, "synth: %v\n", err)
		return 1
	}
	took := time.Since(start)
	fmt.Fprintf(stdout, "%d scenes, %d dice in %s: %.2f scenes/s with %d workers\n", *n, dice2, took.Round(time.Millisecond), float64(*n)/took.Seconds(), *workers)
	return 0
}

// exportSynth renders scenes seed to seed+n-1 with workers at once, writes
// each image into dir/images and every label into dir/labels.csv in seed
// order, and returns how many dice it labelled. Each scene depends on its
// seed alone, so the output does not depend on the scheduling.
func exportSynth(ctx context.Context, dir string, seed uint64, n, workers int, format string, scene func(uint64) synth.Scene) (int, error) {
	if err := os.MkdirAll(filepath.Join(dir, "images"), 0o755); err != nil {
		return 0, err
	}
	lines := make([][]string, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				lines[i], errs[i] = exportScene(dir, seed+uint64(i), format, scene)
			}
		}()
	}
	var err error
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return 0, err
	}
	for _, e := range errs {
		if e != nil {
			return 0, e
		}
	}
	f, err := os.Create(filepath.Join(dir, "labels.csv"))
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, synthHeader)
	count := 0
	for _, l := range lines {
		for _, line := range l {
			fmt.Fprintln(w, line)
			count++
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return count, f.Close()
}

// exportScene renders one scene, writes its image and returns its labels'
// lines.
func exportScene(dir string, seed uint64, format string, scene func(uint64) synth.Scene) ([]string, error) {
	img, labels, err := synth.RenderLabelled(scene(seed))
	if err != nil {
		return nil, fmt.Errorf("scene %d: %w", seed, err)
	}
	defer img.Close()
	name := fmt.Sprintf("%d.%s", seed, format)
	params := []int{gocv.IMWritePngCompression, 1}
	if format == "jpg" {
		params = []int{gocv.IMWriteJpegQuality, 95}
	}
	if !gocv.IMWriteWithParams(filepath.Join(dir, "images", name), img, params) {
		return nil, fmt.Errorf("scene %d: cannot write %s", seed, name)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	lines := make([]string, len(labels))
	for i, l := range labels {
		lines[i] = strings.Join([]string{
			name, strconv.Itoa(l.Face), strconv.FormatBool(l.Star), artworkNames[l.Artwork], strconv.FormatBool(l.Uncertain),
			f(l.X), f(l.Y), f(l.Size), f(l.Box.MinX), f(l.Box.MinY), f(l.Box.MaxX), f(l.Box.MaxY),
		}, ",")
	}
	return lines, nil
}

// parseHouse reads a house style, BODY/PIPS as R,G,B/R,G,B.
func parseHouse(s string) (body, pips color.RGBA, err error) {
	parts := strings.Split(s, "/")
	if len(parts) != 2 {
		return body, pips, errors.New("want BODY/PIPS, each R,G,B")
	}
	cs := make([]color.RGBA, 2)
	for i, p := range parts {
		ch := strings.Split(p, ",")
		if len(ch) != 3 {
			return body, pips, fmt.Errorf("%q: want R,G,B", p)
		}
		var v [3]uint8
		for k, c := range ch {
			n, err := strconv.ParseUint(strings.TrimSpace(c), 10, 8)
			if err != nil {
				return body, pips, fmt.Errorf("%q: want R,G,B from 0 to 255", p)
			}
			v[k] = uint8(n)
		}
		cs[i] = color.RGBA{v[0], v[1], v[2], 255}
	}
	return cs[0], cs[1], nil
}
