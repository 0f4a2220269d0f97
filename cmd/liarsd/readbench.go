package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

func init() {
	register(command{
		name:    "readbench",
		summary: "measure the dice reader: accuracy on labelled photos and synthetic star dice, and speed",
		run:     runReadBench,
	})
}

func runReadBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	photos := fs.String("photos", "../shared/data/dice-photos", "folder of labelled photographs (labels.csv beside the split folders); empty skips them")
	split := fs.String("split", "test", "split of the photographs to measure (tune on train, measure on test)")
	synthetic := fs.Int("synthetic", 200, "synthetic star-dice tables to measure; 0 skips them")
	seed := fs.Int64("seed", 1, "first seed of the synthetic tables")
	glossy := fs.Int("glossy", 0, "synthetic tables of glossy star dice (every pip's rim catching the light, half of them dark translucent dice) to measure; 0 skips them")
	jpegTables := fs.Int("jpeg", 0, "synthetic tables of star dice saved as small JPEGs (quality 35 to 75, at 0.45 to 0.85 of their size, as the photographs are) to measure; 0 skips them")
	marbled := fs.Int("marbled", 0, "synthetic tables of marbled star dice (veins through every die's body) to measure; 0 skips them")
	small := fs.Int("small", 0, "synthetic tables of small star dice (640x480, 20 dice) at each side from 10 to 24 px, to see where reads stop: no die under 16 px is read confidently; 0 skips them")
	cocked := fs.Int("cocked", 0, "synthetic tables with a quarter of their dice cocked, to count cocked dice read wrong without a flag; 0 skips them")
	speed := fs.Int("speed", 50, "timed reads of a 1280x720 table with 30 dice; 0 skips the speed run")
	annotate := fs.String("annotate", "", "folder to write annotated images into")
	subset := fs.String("subset", "", "only the even or odd images of the train split (in name order), or a quarter of them (q0 to q3), to validate on the part readtrain -holdout left out")
	verbose := fs.Bool("v", false, "list every miss and wrong read")
	models := fs.String("models", "", "folder of retrained weights (face.json, finder.json, facenet.json, as readtrain writes them) to measure instead of the embedded ones")
	fixesPath := fs.String("label-fixes", defaultLabelFixes, "label corrections to score against as well as the photographs' own labels; empty skips them")
	ceiling := fs.Float64("ceiling", 0, "also read each labelled die with the face network alone, at its labelled box and at the finder's, and print how many a decision trusting it above one probability could read right with at most this share wrong (e.g. 0.005); 0 skips it")
	plain := fs.Bool("plain-dice", false, "tell the reader the photographed dice have plain 1s (the labelled photographs do); the synthetic run always reads star dice with no hint")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd readbench [flags]\n\nPrints the reader's figures: accuracy on the labelled photographs, on\nsynthetic star dice, and the median time to read a 1280x720 table of 30 dice.\nRun it as GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 taskset -c 0 liarsd readbench for\none core's speed (make bench does).")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		// Flags after it would be left unread: refuse rather than run
		// the defaults.
		return usageError(fs, stderr, "stray argument %q (readbench takes flags only)", fs.Arg(0))
	}
	for _, n := range []struct {
		name  string
		value int
	}{{"synthetic", *synthetic}, {"marbled", *marbled}, {"glossy", *glossy}, {"jpeg", *jpegTables}, {"small", *small}, {"cocked", *cocked}, {"speed", *speed}} {
		if n.value < 0 {
			return usageError(fs, stderr, "-%s %d: want 0 (skip) or more", n.name, n.value)
		}
	}
	if *ceiling < 0 || *ceiling >= 1 {
		return usageError(fs, stderr, "-ceiling %v: want a share from 0 (skip) to below 1", *ceiling)
	}
	if *subset != "" {
		if *split != "train" {
			return usageError(fs, stderr, "-subset is for the train split (-split train)")
		}
		if _, err := parseSubset(*subset); err != nil {
			return usageError(fs, stderr, "-subset: %v", err)
		}
	}
	if *annotate != "" {
		if err := os.MkdirAll(*annotate, 0o755); err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
	}
	var m *vision.Models
	if *models != "" {
		var err error
		if m, err = vision.LoadModels(*models); err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
	}
	reader := vision.NewReader(vision.Options{Models: m})
	photoReader := vision.NewReader(vision.Options{PlainDice: *plain, Models: m})
	if *photos != "" {
		if _, err := os.Stat(filepath.Join(*photos, "labels.csv")); err != nil {
			fmt.Fprintf(stdout, "photos: skipped, no labels.csv in %s (the shared data sits in ../shared beside the repository)\n", *photos)
			*photos = ""
		}
	}
	if *photos != "" {
		var only map[string]bool
		if *subset != "" {
			var err error
			if only, err = trainSubset(*photos, *subset); err != nil {
				fmt.Fprintf(stderr, "readbench: %v\n", err)
				return 1
			}
		}
		fixes, err := vision.ReadLabelFixes(*fixesPath)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		var netReads *ceilingReads
		if *ceiling > 0 {
			netReads = new(ceilingReads)
		}
		score, fixed, err := benchPhotos(ctx, photoReader, *photos, *split, only, fixes, netReads, *annotate, *verbose, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		hint := "no hints"
		if *plain {
			hint = "hint: plain dice"
		}
		fmt.Fprintf(stdout, "photos %s/%s (%s): %v\n", *photos, *split, hint, score)
		if fixed.applied > 0 {
			fmt.Fprintf(stdout, "photos %s/%s (%s), %d labels fixed by %s: %v\n", *photos, *split, hint, fixed.applied, *fixesPath, fixed.Score)
		}
		if netReads != nil {
			fixedNote := ""
			if fixed.applied > 0 {
				fixedNote = ", labels fixed"
			}
			for _, at := range []struct {
				boxes string
				reads []vision.NetworkRead
			}{{"the labelled boxes", netReads.atLabels}, {"the finder's boxes", netReads.atFinder}} {
				c := vision.RankCeiling(at.reads, *ceiling)
				fmt.Fprintf(stdout, "face network alone at %s (%d dice%s): likeliest face right %.2f%%; trusted above p %.2f, %.2f%% right and %.2f%% wrong (at most %.2f%% allowed)\n",
					at.boxes, c.Dice, fixedNote, 100*c.FirstRight, c.Threshold, 100*c.Confident, 100*c.Wrong, 100**ceiling)
			}
		}
	}
	for _, set := range []struct {
		name   string
		tables int
		kind   string
	}{{"star dice", *synthetic, "synth"}, {"marbled star dice", *marbled, "marbled"}, {"glossy star dice", *glossy, "glossy"}, {"star dice saved as small JPEGs", *jpegTables, "jpeg"}} {
		if set.tables <= 0 {
			continue
		}
		score, err := benchSynthetic(ctx, reader, *seed, set.tables, set.kind, synthKind(set.kind), *annotate, *verbose, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "synthetic %s (%d tables, seeds %d..%d): %v\n", set.name, set.tables, *seed, *seed+int64(set.tables)-1, score)
	}
	for _, side := range smallDiceSides {
		if *small <= 0 {
			break
		}
		score, err := benchSynthetic(ctx, reader, *seed, *small, fmt.Sprintf("small-%gpx", side), smallDice(side), *annotate, *verbose, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "synthetic star dice of %g px (%d tables of 640x480, seeds %d..%d): %v\n", side, *small, *seed, *seed+int64(*small)-1, score)
	}
	if *cocked > 0 {
		score, err := benchCocked(ctx, reader, *seed, *cocked, *verbose, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "synthetic cocked dice (%d tables, seeds %d..%d): %v\n", *cocked, *seed, *seed+int64(*cocked)-1, score)
	}
	if *speed > 0 {
		med, cpu, err := benchSpeed(ctx, reader, *speed)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "speed: median %.1f ms wall, %.1f ms CPU mean, to read a 1280x720 table of 30 dice (%d reads, GOMAXPROCS=%s)\n", med, cpu, *speed, gomaxprocs())
	}
	return 0
}

// fixedScore is a score against the labels with fixes applied, and how
// many fixes applied.
type fixedScore struct {
	vision.Score
	applied int
}

// ceilingReads are the face network's reads of the labelled dice that
// readbench -ceiling ranks: at the labelled boxes and at the finder's.
type ceilingReads struct {
	atLabels, atFinder []vision.NetworkRead
}

// add reads the labelled dice of img both ways.
func (c *ceilingReads) add(reader *vision.Reader, img gocv.Mat, labels []vision.Label) error {
	reads, err := reader.NetworkReads(img, labels)
	if err != nil {
		return err
	}
	c.atLabels = append(c.atLabels, reads...)
	if reads, err = reader.FinderReads(img, labels); err != nil {
		return err
	}
	c.atFinder = append(c.atFinder, reads...)
	return nil
}

// benchPhotos reads the photographs of split (those in only, if not nil)
// and scores the reads against their labels, and against the labels with
// fixes applied. With netReads it adds there the face network's reads of
// every die at its (fixed) labelled box and at the finder's.
func benchPhotos(ctx context.Context, reader *vision.Reader, dir, split string, only map[string]bool, fixes []vision.LabelFix, netReads *ceilingReads, annotate string, verbose bool, out io.Writer) (vision.Score, fixedScore, error) {
	var fixed fixedScore
	labels, err := vision.ReadLabels(dir)
	if err != nil {
		return vision.Score{}, fixed, err
	}
	byImage := map[string][]vision.Label{}
	for _, l := range labels {
		if l.Split == split && (only == nil || only[l.Image]) {
			byImage[l.Image] = append(byImage[l.Image], l)
		}
	}
	if len(byImage) == 0 {
		return vision.Score{}, fixed, fmt.Errorf("no labelled images in split %q", split)
	}
	names := make([]string, 0, len(byImage))
	for n := range byImage {
		names = append(names, n)
	}
	sort.Strings(names)
	var total vision.Score
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return total, fixed, err
		}
		path := filepath.Join(dir, split, name)
		img, err := vision.LoadImage(path)
		if err != nil {
			return total, fixed, err
		}
		dice, err := reader.Read(img)
		if err != nil {
			img.Close()
			return total, fixed, err
		}
		s, errs := vision.Compare(dice, byImage[name])
		total.Add(s)
		right, applied := vision.FixLabels(byImage[name], fixes)
		s, _ = vision.Compare(dice, right)
		fixed.Add(s)
		fixed.applied += applied
		if netReads != nil {
			if err := netReads.add(reader, img, right); err != nil {
				img.Close()
				return total, fixed, err
			}
		}
		if verbose {
			for _, e := range errs {
				fmt.Fprintf(out, "%s: %s\n", name, e)
			}
		}
		if annotate != "" {
			vision.Annotate(&img, dice)
			gocv.IMWrite(filepath.Join(annotate, name), img)
		}
		img.Close()
	}
	return total, fixed, nil
}

// defaultLabelFixes is the repository's corrections to the photographs'
// labels (see docs/vision.md).
const defaultLabelFixes = "testdata/photos/label-fixes.csv"

func gomaxprocs() string {
	if v := os.Getenv("GOMAXPROCS"); v != "" {
		return v
	}
	return "default"
}
