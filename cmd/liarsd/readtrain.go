package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

func init() {
	register(command{
		name:    "readtrain",
		summary: "train the dice reader's face classifier, dice finder and face networks (writes vision/model/*.json)",
		run:     runReadTrain,
	})
}

func runReadTrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readtrain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	photos := fs.String("photos", "../shared/data/dice-photos", "labelled photographs; only their train/ split is used")
	synthetic := fs.Int("synthetic", 60, "synthetic tables to add (star dice and plain dice in turn)")
	synthSeed := fs.Uint64("synthetic-seed", 1000000, "first seed of the synthetic tables (readbench measures on seeds 1..N: keep apart)")
	epochs := fs.Int("epochs", 40, "passes over the faces")
	seed := fs.Uint64("seed", 1, "seed of the training's own randomness")
	cocked := fs.Float64("cocked", 0, "share of the synthetic tables' dice drawn cocked (leaning, unreadable: the face network's \"unreadable\" class)")
	marbled := fs.Float64("marbled", 0, "share of the synthetic tables' dice drawn marbled (veins through the body that are not pips)")
	jpegShare := fs.Float64("jpeg", 0, "share of the synthetic tables saved as small JPEGs (quality 35 to 75, at 0.45 to 0.85 of their size), as the photographs are: blocks and coarse colour around small pips")
	glossy := fs.Float64("glossy", 0, "share of the synthetic tables' dice drawn with glossy pips whose rims catch the light, half of them tinted translucent dice")
	out := fs.String("o", "vision/model/face.json", "where to write the face classifier's weights; empty skips it")
	finderOut := fs.String("finder-o", "vision/model/finder.json", "where to write the dice finder's weights; empty skips it")
	faceNetOut := fs.String("facenet-o", "vision/model/facenet.json", "where to write the face network's weights; empty skips it")
	finderEpochs := fs.Int("finder-epochs", 60, "passes over the images for the dice finder")
	faceNetEpochs := fs.Int("facenet-epochs", 100, "passes over the dice for the face network")
	photoWeight := fs.Int("photo-weight", 2, "how many times a photographed die counts against a synthetic one, for the face classifier and the face network")
	faceNetAverage := fs.Float64("facenet-average", 0, "decay of the moving average of each face network's weights it ends with instead of the last step's (Polyak averaging, e.g. 0.999); 0 keeps the last weights")
	faceNetHard := fs.Float64("facenet-hard", 0, "count a photographed die in the face networks' training more the worse they read it when they last saw it, up to 1 + this many times (e.g. 2); 0 counts every die alike")
	faceNets := fs.Int("facenets", 2, "face networks to average (trained at once, from seeds seed, seed+1, ...)")
	workers := fs.Int("workers", 2, "goroutines sharing the training (the result depends on it)")
	models := fs.String("models", "", "folder of weights (as readtrain writes them) whose dice finder finds the face network's hard negatives when -finder-o is empty; default the embedded ones")
	fixesPath := fs.String("label-fixes", defaultLabelFixes, "corrections to the photographs' labels to train with; empty trains on the labels as they are")
	holdout := fs.String("holdout", "", "leave out the even or odd train/ images (in name order), or a quarter of them (q0 to q3: every fourth image from the first to the fourth), to validate on them with readbench -subset")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd readtrain [flags]\n\nTrains the dice reader's face classifier, dice finder and face networks from\nthe labelled photographs' train/ split and synthetic tables, and writes their\nweights (by default over the committed ones in vision/model: run it from the\nrepository, as make train does). About 45 minutes on two cores; keep\nOpenBLAS to one thread (OPENBLAS_NUM_THREADS=1). See docs/vision.md.\n\nflags:")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		// Flags after it would be left unread, and the defaults would
		// overwrite the committed weights: refuse.
		return usageError(fs, stderr, "stray argument %q (readtrain takes flags only)", fs.Arg(0))
	}
	for _, n := range []struct {
		name       string
		value, min int
	}{{"synthetic", *synthetic, 0}, {"epochs", *epochs, 1}, {"finder-epochs", *finderEpochs, 1}, {"facenet-epochs", *faceNetEpochs, 1}, {"facenets", *faceNets, 1}, {"workers", *workers, 1}} {
		if n.value < n.min {
			return usageError(fs, stderr, "-%s %d: want at least %d", n.name, n.value, n.min)
		}
	}
	for _, share := range []struct {
		name  string
		value float64
	}{{"cocked", *cocked}, {"marbled", *marbled}, {"glossy", *glossy}, {"jpeg", *jpegShare}} {
		if share.value < 0 || share.value > 1 {
			fmt.Fprintf(stderr, "readtrain: -%s %v: want a share from 0 to 1\n", share.name, share.value)
			return 2
		}
	}
	if *faceNetAverage < 0 || *faceNetAverage >= 1 {
		return usageError(fs, stderr, "-facenet-average %v: want a decay from 0 (none) to below 1", *faceNetAverage)
	}
	if *faceNetHard < 0 {
		return usageError(fs, stderr, "-facenet-hard %v: want 0 (none) or more", *faceNetHard)
	}
	if *photoWeight < 1 {
		fmt.Fprintf(stderr, "readtrain: -photo-weight %d: want at least 1\n", *photoWeight)
		return 2
	}
	var exclude func(string) bool
	if *holdout != "" {
		if _, err := parseSubset(*holdout); err != nil {
			return usageError(fs, stderr, "-holdout: %v", err)
		}
		keep, err := trainSubset(*photos, *holdout)
		if err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		exclude = func(name string) bool { return keep[name] }
	}
	fixes, err := vision.ReadLabelFixes(*fixesPath)
	if err != nil {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	opts := vision.TrainOptions{
		LabelFixes:    fixes,
		Photos:        *photos,
		Synthetic:     *synthetic,
		SyntheticSeed: *synthSeed,
		Render: func(s uint64) (gocv.Mat, []vision.Die, error) {
			// Star dice on even seeds, plain dice (a pip on the 1) on odd.
			o := synth.RandomOptions{StarShare: 1.0 / 3}
			if s%2 == 1 {
				o = synth.RandomOptions{Stars: []synth.Artwork{synth.Pip}}
			}
			o.Cocked, o.Marbled, o.Glossy, o.JPEG = *cocked, *marbled, *glossy, *jpegShare
			return synth.Render(synth.Random(s, o))
		},
		Exclude:     exclude,
		Epochs:      *epochs,
		PhotoWeight: *photoWeight,
		Seed:        *seed,
		Log:         stdout,
	}
	if *models != "" {
		// Loaded before any training, so that a wrong folder is not
		// found out only after the face classifier's minutes.
		m, err := vision.LoadModels(*models)
		if err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		opts.Models = m
	}
	var buf bytes.Buffer
	if *out != "" {
		if err := vision.TrainFaceModel(ctx, opts, &buf); err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	if *finderOut == "" && *faceNetOut == "" {
		return 0
	}
	opts.FinderEpochs, opts.FaceNetEpochs, opts.FaceNets, opts.Workers = *finderEpochs, *faceNetEpochs, *faceNets, *workers
	opts.FaceNetAverage, opts.FaceNetHardWeight = *faceNetAverage, *faceNetHard
	var finderBuf, faceNetBuf bytes.Buffer
	var fw, nw io.Writer
	if *finderOut != "" {
		fw = &finderBuf
	}
	if *faceNetOut != "" {
		nw = &faceNetBuf
	}
	if err := vision.TrainLearned(ctx, opts, fw, nw); err != nil {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	for _, o := range []struct {
		path string
		buf  *bytes.Buffer
	}{{*finderOut, &finderBuf}, {*faceNetOut, &faceNetBuf}} {
		if o.path == "" {
			continue
		}
		if err := os.WriteFile(o.path, o.buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.path)
	}
	return 0
}

// trainSubset returns the names of one part of the photographs' train/
// split, in name order (parseSubset): the part to validate on while the
// rest is trained on.
func trainSubset(photos, part string) (map[string]bool, error) {
	inPart, err := parseSubset(part)
	if err != nil {
		return nil, err
	}
	labels, err := vision.ReadLabels(photos)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for _, l := range labels {
		if l.Split == "train" && !seen[l.Image] {
			seen[l.Image] = true
			names = append(names, l.Image)
		}
	}
	sort.Strings(names)
	out := map[string]bool{}
	for i, n := range names {
		if inPart(i) {
			out[n] = true
		}
	}
	return out, nil
}

// parseSubset tells which images, by their index in name order, a part of
// the train/ split holds: "even" or "odd" (every other image), or "q0" to
// "q3" (every fourth, from the first to the fourth: a quarter held out
// trains on three quarters, closer to what the committed networks learn
// from than half).
func parseSubset(part string) (func(i int) bool, error) {
	switch part {
	case "even":
		return func(i int) bool { return i%2 == 0 }, nil
	case "odd":
		return func(i int) bool { return i%2 == 1 }, nil
	case "q0", "q1", "q2", "q3":
		k := int(part[1] - '0')
		return func(i int) bool { return i%4 == k }, nil
	}
	return nil, fmt.Errorf("unknown subset %q (want even, odd or q0 to q3)", part)
}
