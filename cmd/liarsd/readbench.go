package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

func init() {
	register(command{
		name:    "readbench",
		summary: "measure the dice reader: accuracy on labelled photos and synthetic tables, reliability, and speed",
		run:     runReadBench,
	})
}

func runReadBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	photos := fs.String("photos", "../shared/data/dice-photos", "folder of labelled photographs (labels.csv beside the split folders); empty skips them")
	split := fs.String("split", "test", "split of the photographs to measure (tune on train, measure on test)")
	subset := fs.String("subset", "", "of the train split, only the photographs the recipe holds out (held: every fifth in name order, or of the stems a groups.csv names) or trains on (trained)")
	synthetic := fs.Int("synthetic", 200, "synthetic star-dice tables to measure (read with no hint and with -star-dice); 0 skips them")
	seed := fs.Int64("seed", 1, "first seed of the synthetic tables")
	glossy := fs.Int("glossy", 0, "synthetic tables of glossy star dice (every pip's rim catching the light, half of them dark translucent dice); 0 skips them")
	jpegTables := fs.Int("jpeg", 0, "synthetic tables of star dice saved as small JPEGs (quality 35 to 75, at 0.45 to 0.85 of their size); 0 skips them")
	marbled := fs.Int("marbled", 0, "synthetic tables of marbled star dice; 0 skips them")
	small := fs.Int("small", 0, "synthetic tables of small star dice (640x480, 20 dice) at each side from 10 to 24 px; 0 skips them")
	cocked := fs.Int("cocked", 0, "synthetic tables with a quarter of their dice cocked, to count cocked dice read wrong without a flag; 0 skips them")
	varied := fs.Int("varied", 0, "held-out varied synthetic tables (tilted cameras, desks, clutter, any dice: synth.Varied from seed 900000, never trained on); 0 skips them")
	speed := fs.Int("speed", 50, "timed reads of a 1280x720 table with 30 dice; 0 skips the speed run")
	annotate := fs.String("annotate", "", "folder to write annotated images into")
	verbose := fs.Bool("v", false, "list every miss, doubt and wrong read")
	models := fs.String("models", "", "folder of retrained networks (finder.onnx, faces.onnx, reader.json, as make train writes them) to measure instead of the embedded ones")
	plain := fs.Bool("plain-dice", false, "tell the reader the photographed dice have plain 1s (they do)")
	scale := fs.Float64("scale", 1, "resize each photograph by this factor before reading it (0.6: the dice smaller)")
	windows := fs.Int("windows", 0, "read, instead of each photograph, a window of this many px around each labelled die enlarged to 640 px (256: dice a sixth of the frame, as a camera near the table sees them); 0 reads the photographs")
	reveals := fs.Int("reveals", 0, "replay each photograph as this many reveals of random bids for each preset, and count the reveals that wait for a person before and after doubts that cannot change the verdict are settled; 0 skips them")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd readbench [flags]\n\nPrints the reader's figures: accuracy on the labelled photographs (with a\nreliability table of the face network's probability, and the read time per\nphotograph beside a plain threshold-and-contours pipeline's), on synthetic\ntables, and the time to read a 1280x720 table of 30 dice. Run it as\nGOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 taskset -c 0 liarsd readbench for one\ncore's speed (make bench does).")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q (readbench takes flags only)", fs.Arg(0))
	}
	for _, n := range []struct {
		name  string
		value int
	}{{"synthetic", *synthetic}, {"marbled", *marbled}, {"glossy", *glossy}, {"jpeg", *jpegTables}, {"small", *small}, {"cocked", *cocked}, {"varied", *varied}, {"speed", *speed}} {
		if n.value < 0 {
			return usageError(fs, stderr, "-%s %d: want 0 (skip) or more", n.name, n.value)
		}
	}
	if !(*scale > 0.05 && *scale <= 4) {
		return usageError(fs, stderr, "-scale %v: want a factor from 0.05 to 4", *scale)
	}
	if *windows < 0 || (*windows > 0 && *windows < 64) {
		return usageError(fs, stderr, "-windows %d: want 0 (off) or a side of 64 px or more", *windows)
	}
	if *reveals < 0 {
		return usageError(fs, stderr, "-reveals %d: want 0 (skip) or more", *reveals)
	}
	if *subset != "" {
		if *split != "train" {
			return usageError(fs, stderr, "-subset is for the train split (-split train)")
		}
		if *subset != "held" && *subset != "trained" {
			return usageError(fs, stderr, "-subset %q: want held or trained", *subset)
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
	newReader := func(o vision.Options) *vision.Reader {
		o.Models = m
		r, err := vision.NewReader(o)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return nil
		}
		return r
	}
	if *photos != "" {
		if _, err := os.Stat(filepath.Join(*photos, "labels.csv")); err != nil {
			fmt.Fprintf(stdout, "photos: skipped, no labels.csv in %s (the shared data sits in ../shared beside the repository)\n", *photos)
			*photos = ""
		}
	}
	if *photos != "" {
		reader := newReader(vision.Options{PlainDice: *plain})
		if reader == nil {
			return 1
		}
		defer reader.Close()
		view := photoView{scale: *scale, window: *windows}
		res, err := benchPhotos(ctx, reader, *photos, *split, *subset, view, *annotate, *verbose, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		hint := "no hints"
		if *plain {
			hint = "hint: plain dice"
		}
		name := *split
		if *subset != "" {
			name += " (" + *subset + ")"
		}
		name += view.String()
		fmt.Fprintf(stdout, "photos %s (%s): %v\n", name, hint, res.score)
		fmt.Fprintf(stdout, "photos %s speed: median %.1f ms a photograph for the reader, %.1f ms for a plain threshold-contours-pips pipeline (%.2fx), GOMAXPROCS=%s\n",
			name, res.readMS, res.baselineMS, res.readMS/res.baselineMS, gomaxprocs())
		fmt.Fprintln(stdout, "reliability: the face network's probability for its likeliest face against how often that face is right, over the labelled dice found")
		res.reliability.print(stdout)
		if *reveals > 0 {
			if err := benchReveals(ctx, *photos, *split, *subset, *reveals, newReader, stdout); err != nil {
				fmt.Fprintf(stderr, "readbench: %v\n", err)
				return 1
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
		for _, starDice := range []bool{false, true} {
			reader := newReader(vision.Options{StarDice: starDice})
			if reader == nil {
				return 1
			}
			score, err := benchSynthetic(ctx, reader, *seed, set.tables, set.kind, synthKind(set.kind), *annotate, *verbose, stdout)
			reader.Close()
			if err != nil {
				fmt.Fprintf(stderr, "readbench: %v\n", err)
				return 1
			}
			hint := "no hint"
			if starDice {
				hint = "hint: star dice"
			}
			fmt.Fprintf(stdout, "synthetic %s (%d tables, seeds %d..%d, %s): %v\n", set.name, set.tables, *seed, *seed+int64(set.tables)-1, hint, score)
		}
	}
	reader := newReader(vision.Options{})
	if reader == nil {
		return 1
	}
	defer reader.Close()
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
	if *varied > 0 {
		score, err := benchVaried(ctx, reader, *varied, *annotate, *verbose, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "synthetic varied tables (%d, seeds %d..%d): %v\n", *varied, variedSeed, variedSeed+*varied-1, score)
	}
	if *speed > 0 {
		sized := newReader(vision.Options{DieSize: speedDieSize()})
		if sized == nil {
			return 1
		}
		defer sized.Close()
		for _, r := range []struct {
			reader *vision.Reader
			how    string
		}{{sized, "the die size calibrated"}, {reader, "no die size given (the scale search)"}} {
			med, cpu, err := benchSpeed(ctx, r.reader, *speed)
			if err != nil {
				fmt.Fprintf(stderr, "readbench: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "speed: median %.1f ms wall, %.1f ms CPU mean, to read a 1280x720 table of 30 dice, %s (%d reads, GOMAXPROCS=%s)\n", med, cpu, r.how, *speed, gomaxprocs())
		}
	}
	return 0
}

// photoResult is what benchPhotos measures.
type photoResult struct {
	score              vision.Score
	readMS, baselineMS float64 // medians per photograph
	reliability        reliability
}

// heldOut reports whether the i-th photograph of train/ (in name order) is
// one the recipe holds out (vision/recipe/train.py: every fifth).
func heldOut(i int) bool { return i%5 == 4 }

// photoLabels returns the labels of split's photographs by image, only
// the held-out or the trained ones of train/ when subset says so.
func photoLabels(dir, split, subset string) (map[string][]vision.Label, []string, error) {
	labels, err := vision.ReadLabels(dir)
	if err != nil {
		return nil, nil, err
	}
	byImage := map[string][]vision.Label{}
	for _, l := range labels {
		if l.Split == split {
			byImage[l.Image] = append(byImage[l.Image], l)
		}
	}
	if len(byImage) == 0 {
		return nil, nil, fmt.Errorf("no labelled images in split %q", split)
	}
	names := make([]string, 0, len(byImage))
	for n := range byImage {
		names = append(names, n)
	}
	sort.Strings(names)
	if subset != "" {
		byStem, err := stemHoldout(dir)
		if err != nil {
			return nil, nil, err
		}
		kept := names[:0]
		for i, n := range names {
			held := heldOut(i)
			if byStem != nil {
				held = byStem[n]
			}
			if held == (subset == "held") {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	return byImage, names, nil
}

// benchPhotos reads the photographs of split (of subset, if given), scores
// the reads against their labels, times each read and the baseline
// pipeline's on the same photograph, and tallies the network's
// probabilities against the labels.
func benchPhotos(ctx context.Context, reader *vision.Reader, dir, split, subset string, view photoView, annotate string, verbose bool, out io.Writer) (photoResult, error) {
	var res photoResult
	byImage, names, err := photoLabels(dir, split, subset)
	if err != nil {
		return res, err
	}
	var reads, baseline []float64
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		photo, err := vision.LoadImage(filepath.Join(dir, split, name))
		if err != nil {
			return res, err
		}
		views := view.of(photo, byImage[name])
		photo.Close()
		for k, v := range views {
			if err := benchView(reader, v, fmt.Sprintf("%s#%d", name, k), &res, &reads, &baseline, annotate, verbose, out); err != nil {
				for _, rest := range views[k:] {
					rest.img.Close()
				}
				return res, err
			}
		}
	}
	res.readMS, res.baselineMS = medianOf(reads), medianOf(baseline)
	return res, nil
}

// benchView reads one view of a photograph (and closes it), scores it and
// times it beside the baseline pipeline.
func benchView(reader *vision.Reader, v labelledImage, name string, res *photoResult, reads, baseline *[]float64, annotate string, verbose bool, out io.Writer) error {
	img, labels := v.img, v.labels
	defer img.Close()
	{
		start := time.Now()
		dice, err := reader.Read(img)
		*reads = append(*reads, msSince(start))
		if err != nil {
			return err
		}
		start = time.Now()
		baselineRead(img)
		*baseline = append(*baseline, msSince(start))
		s, errs := vision.Compare(dice, labels)
		res.score.Add(s)
		res.reliability.add(dice, labels)
		if verbose {
			for _, e := range errs {
				fmt.Fprintf(out, "%s: %s\n", name, e)
			}
		}
		if annotate != "" {
			vision.Annotate(&img, dice)
			gocv.IMWrite(filepath.Join(annotate, strings.ReplaceAll(name, "#", "-")+".jpg"), img)
		}
	}
	return nil
}

// reliability tallies, per band of the face network's probability, the
// labelled dice read and how many of them its likeliest face got right;
// and what the pip counter made of the same dice, beside the network.
type reliability struct {
	dice, right [8]int // one per band
	// The pip counter: unread, right, wrong; and of its wrong reads, the
	// ones on dice the network read right (a right read it vetoes), and
	// of the network's wrong reads, the ones it contradicts (caught).
	pipsUnread, pipsRight, pipsWrong, vetoes, caught, netWrong int
}

// reliabilityBands are the bands' edges.
var reliabilityBands = [9]float64{0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 1.0001}

func (r *reliability) add(found []vision.Die, labels []vision.Label) {
	for li, di := range vision.Match(found, labels) {
		if di < 0 || found[di].Net == nil {
			continue
		}
		n, l := found[di].Net, labels[li]
		netRight := n.Face == l.Face && n.Star == l.Star
		switch p := found[di].Pips; {
		case p == nil:
			r.pipsUnread++
		case p.Face == l.Face:
			r.pipsRight++
		default:
			r.pipsWrong++
			if netRight {
				r.vetoes++
			}
		}
		if !netRight {
			r.netWrong++
			if p := found[di].Pips; p != nil && p.Face != n.Face {
				r.caught++
			}
		}
		for b := range r.dice {
			if n.Probability >= reliabilityBands[b] && n.Probability < reliabilityBands[b+1] {
				r.dice[b]++
				if n.Face == labels[li].Face && n.Star == labels[li].Star {
					r.right[b]++
				}
			}
		}
	}
}

func (r reliability) print(out io.Writer) {
	fmt.Fprintf(out, "  pip counter: %d right, %d wrong (%d on dice the network read right), %d unread; the network's likeliest face wrong on %d dice, %d of them contradicted by the counter\n",
		r.pipsRight, r.pipsWrong, r.vetoes, r.pipsUnread, r.netWrong, r.caught)
	fmt.Fprintln(out, "  probability   dice   right")
	for b := range r.dice {
		if r.dice[b] == 0 {
			continue
		}
		fmt.Fprintf(out, "  %.2f-%.2f  %6d  %6.2f%%\n", reliabilityBands[b], min(1, reliabilityBands[b+1]), r.dice[b], 100*float64(r.right[b])/float64(r.dice[b]))
	}
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func gomaxprocs() string {
	if v := os.Getenv("GOMAXPROCS"); v != "" {
		return v
	}
	return "default"
}
