package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

func init() {
	register(command{
		name:    "readtrain",
		summary: "train the dice reader's face classifier (writes vision/model/face.json)",
		run:     runReadTrain,
	})
}

func runReadTrain(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readtrain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	photos := fs.String("photos", "../shared/data/dice-photos", "labelled photographs; only their train/ split is used")
	synthetic := fs.Int("synthetic", 60, "synthetic tables of star dice to add")
	synthSeed := fs.Uint64("synthetic-seed", 1000000, "first seed of the synthetic tables (readbench measures on seeds 1..N: keep apart)")
	epochs := fs.Int("epochs", 40, "passes over the faces")
	seed := fs.Uint64("seed", 1, "seed of the training's own randomness")
	out := fs.String("o", "vision/model/face.json", "where to write the face classifier's weights; empty skips it")
	cropOut := fs.String("crop-o", "vision/model/crop.json", "where to write the die verifier's weights; empty skips it")
	cropEpochs := fs.Int("crop-epochs", 36, "passes over the candidates for the die verifier")
	verifiers := fs.Int("verifiers", 2, "networks the die verifier averages (trained at once, one per core)")
	holdout := fs.String("holdout", "", "leave out the even or odd train/ images (in name order), to validate on them with readbench -subset")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var exclude func(string) bool
	if *holdout != "" {
		keep, err := trainSubset(*photos, *holdout)
		if err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 2
		}
		exclude = func(name string) bool { return keep[name] }
	}
	opts := vision.TrainOptions{
		Photos:        *photos,
		Synthetic:     *synthetic,
		SyntheticSeed: *synthSeed,
		Render: func(s uint64) (gocv.Mat, []vision.Die, error) {
			return synth.Render(synth.Random(s, synth.RandomOptions{StarShare: 1.0 / 3}))
		},
		Exclude: exclude,
		Epochs:  *epochs,
		Seed:    *seed,
		Log:     stdout,
	}
	var buf bytes.Buffer
	if *out != "" {
		if err := vision.TrainFaceModel(opts, &buf); err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "readtrain: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	if *cropOut == "" {
		return 0
	}
	buf.Reset()
	opts.Epochs = *cropEpochs
	opts.Verifiers = *verifiers
	if err := vision.TrainCropModel(opts, &buf); err != nil {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*cropOut, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s\n", *cropOut)
	return 0
}

// trainSubset returns the names of the even or odd images of the
// photographs' train/ split, in name order: one half to validate on while
// the other is trained on.
func trainSubset(photos, parity string) (map[string]bool, error) {
	if parity != "even" && parity != "odd" {
		return nil, fmt.Errorf("unknown subset %q (want even or odd)", parity)
	}
	f, err := os.Open(filepath.Join(photos, "labels.csv"))
	if err != nil {
		return nil, err
	}
	labels, err := vision.ParseLabels(f)
	f.Close()
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
		if (i%2 == 0) == (parity == "even") {
			out[n] = true
		}
	}
	return out, nil
}
