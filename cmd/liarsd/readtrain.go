package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

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
	out := fs.String("o", "vision/model/face.json", "where to write the weights")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var buf bytes.Buffer
	err := vision.TrainFaceModel(vision.TrainOptions{
		Photos:        *photos,
		Synthetic:     *synthetic,
		SyntheticSeed: *synthSeed,
		Render: func(s uint64) (gocv.Mat, []vision.Die, error) {
			return synth.Render(synth.Random(s, synth.RandomOptions{StarShare: 1.0 / 3}))
		},
		Epochs: *epochs,
		Seed:   *seed,
		Log:    stdout,
	}, &buf)
	if err != nil {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return 0
}
