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
	rf, code, done := parseReadBench(args, stderr)
	if done {
		return code
	}
	if rf.annotate != "" {
		if err := os.MkdirAll(rf.annotate, 0o755); err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
	}
	b := &readBencher{readbenchFlags: rf, ctx: ctx, out: stdout}
	if rf.models != "" {
		var err error
		if b.models, err = vision.LoadModels(rf.models); err != nil {
			fmt.Fprintf(stderr, "readbench: %v\n", err)
			return 1
		}
	}
	if err := b.run(); err != nil {
		fmt.Fprintf(stderr, "readbench: %v\n", err)
		return 1
	}
	return 0
}

// readbenchFlags are liarsd readbench's flags, read and checked.
type readbenchFlags struct {
	photos, split, subset                                         string
	synthetic, glossy, jpegTables, marbled, small, cocked, varied int
	speed, windows, reveals                                       int
	seed                                                          int64
	annotate, models                                              string
	verbose, plain                                                bool
	scale                                                         float64
}

// parseReadBench reads liarsd readbench's flags; done says the command
// ends with code (help, or a usage error).
func parseReadBench(args []string, stderr io.Writer) (rf readbenchFlags, code int, done bool) {
	fs := flag.NewFlagSet("readbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&rf.photos, "photos", "../shared/data/dice-photos", "folder of labelled photographs (labels.csv beside the split folders); empty skips them")
	fs.StringVar(&rf.split, "split", "test", "split of the photographs to measure (tune on train, measure on test)")
	fs.StringVar(&rf.subset, "subset", "", "of the train split, only the photographs the recipe holds out (held: every fifth in name order, or of the stems a groups.csv names) or trains on (trained)")
	fs.IntVar(&rf.synthetic, "synthetic", 200, "synthetic star-dice tables to measure (read with no hint and with -star-dice); 0 skips them")
	fs.Int64Var(&rf.seed, "seed", 1, "first seed of the synthetic tables")
	fs.IntVar(&rf.glossy, "glossy", 0, "synthetic tables of glossy star dice (every pip's rim catching the light, half of them dark translucent dice); 0 skips them")
	fs.IntVar(&rf.jpegTables, "jpeg", 0, "synthetic tables of star dice saved as small JPEGs (quality 35 to 75, at 0.45 to 0.85 of their size); 0 skips them")
	fs.IntVar(&rf.marbled, "marbled", 0, "synthetic tables of marbled star dice; 0 skips them")
	fs.IntVar(&rf.small, "small", 0, "synthetic tables of small star dice (640x480, 20 dice) at each side from 10 to 24 px; 0 skips them")
	fs.IntVar(&rf.cocked, "cocked", 0, "synthetic tables with a quarter of their dice cocked, to count cocked dice read wrong without a flag; 0 skips them")
	fs.IntVar(&rf.varied, "varied", 0, "held-out varied synthetic tables (tilted cameras, desks, clutter, any dice: synth.Varied from seed 900000, never trained on); 0 skips them")
	fs.IntVar(&rf.speed, "speed", 50, "timed reads of a 1280x720 table with 30 dice; 0 skips the speed run")
	fs.StringVar(&rf.annotate, "annotate", "", "folder to write annotated images into")
	fs.BoolVar(&rf.verbose, "v", false, "list every miss, doubt and wrong read")
	fs.StringVar(&rf.models, "models", "", "folder of retrained networks (finder.onnx, faces.onnx, reader.json, as make train writes them) to measure instead of the embedded ones")
	fs.BoolVar(&rf.plain, "plain-dice", false, "tell the reader the photographed dice have plain 1s (they do)")
	fs.Float64Var(&rf.scale, "scale", 1, "resize each photograph by this factor before reading it (0.6: the dice smaller)")
	fs.IntVar(&rf.windows, "windows", 0, "read, instead of each photograph, a window of this many px around each labelled die enlarged to 640 px (256: dice a sixth of the frame, as a camera near the table sees them); 0 reads the photographs")
	fs.IntVar(&rf.reveals, "reveals", 0, "replay each photograph as this many reveals of random bids for each preset, and count the reveals that wait for a person before and after doubts that cannot change the verdict are settled; 0 skips them")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd readbench [flags]\n\nPrints the reader's figures: accuracy on the labelled photographs (with a\nreliability table of the face network's probability, and the read time per\nphotograph beside a plain threshold-and-contours pipeline's), on synthetic\ntables, and the time to read a 1280x720 table of 30 dice. Run it as\nGOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 taskset -c 0 liarsd readbench for one\ncore's speed (make bench does).")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return rf, code, true
	}
	if fs.NArg() != 0 {
		return rf, usageError(fs, stderr, "stray argument %q (readbench takes flags only)", fs.Arg(0)), true
	}
	if msg := rf.check(); msg != "" {
		return rf, usageError(fs, stderr, "%s", msg), true
	}
	return rf, 0, false
}

// check says what is wrong with the flags' values, or "" when nothing is.
func (rf readbenchFlags) check() string {
	for _, n := range []struct {
		name  string
		value int
	}{{"synthetic", rf.synthetic}, {"marbled", rf.marbled}, {"glossy", rf.glossy}, {"jpeg", rf.jpegTables}, {"small", rf.small}, {"cocked", rf.cocked}, {"varied", rf.varied}, {"speed", rf.speed}} {
		if n.value < 0 {
			return fmt.Sprintf("-%s %d: want 0 (skip) or more", n.name, n.value)
		}
	}
	switch {
	case !(rf.scale > 0.05 && rf.scale <= 4):
		return fmt.Sprintf("-scale %v: want a factor from 0.05 to 4", rf.scale)
	case rf.windows < 0 || (rf.windows > 0 && rf.windows < 64):
		return fmt.Sprintf("-windows %d: want 0 (off) or a side of 64 px or more", rf.windows)
	case rf.reveals < 0:
		return fmt.Sprintf("-reveals %d: want 0 (skip) or more", rf.reveals)
	case rf.subset != "" && rf.split != "train":
		return "-subset is for the train split (-split train)"
	case rf.subset != "" && rf.subset != "held" && rf.subset != "trained":
		return fmt.Sprintf("-subset %q: want held or trained", rf.subset)
	}
	return ""
}

// readBencher runs readbench's measures in turn: the photographs, the
// synthetic sets, the small, cocked and varied tables, and the speed.
type readBencher struct {
	readbenchFlags
	ctx    context.Context
	out    io.Writer
	models *vision.Models // nil: the embedded networks
}

// newReader makes a reader with the networks measured.
func (b *readBencher) newReader(o vision.Options) (*vision.Reader, error) {
	o.Models = b.models
	return vision.NewReader(o)
}

func (b *readBencher) run() error {
	if b.photos != "" {
		if _, err := os.Stat(filepath.Join(b.photos, "labels.csv")); err != nil {
			fmt.Fprintf(b.out, "photos: skipped, no labels.csv in %s (the shared data sits in ../shared beside the repository)\n", b.photos)
			b.photos = ""
		}
	}
	if b.photos != "" {
		if err := b.photographs(); err != nil {
			return err
		}
	}
	if err := b.syntheticSets(); err != nil {
		return err
	}
	reader, err := b.newReader(vision.Options{})
	if err != nil {
		return err
	}
	defer reader.Close()
	if err := b.tables(reader); err != nil {
		return err
	}
	if b.speed > 0 {
		return b.speeds(reader)
	}
	return nil
}

// photographs measures the labelled photographs, and replays them as
// reveals with -reveals.
func (b *readBencher) photographs() error {
	reader, err := b.newReader(vision.Options{PlainDice: b.plain})
	if err != nil {
		return err
	}
	defer reader.Close()
	view := photoView{scale: b.scale, window: b.windows}
	res, err := benchPhotos(b.ctx, reader, b.photos, b.split, b.subset, view, b.annotate, b.verbose, b.out)
	if err != nil {
		return err
	}
	hint := "no hints"
	if b.plain {
		hint = "hint: plain dice"
	}
	name := b.split
	if b.subset != "" {
		name += " (" + b.subset + ")"
	}
	name += view.String()
	fmt.Fprintf(b.out, "photos %s (%s): %v\n", name, hint, res.score)
	fmt.Fprintf(b.out, "photos %s speed: median %.1f ms a photograph for the reader, %.1f ms for a plain threshold-contours-pips pipeline (%.2fx), GOMAXPROCS=%s\n",
		name, res.readMS, res.baselineMS, res.readMS/res.baselineMS, gomaxprocs())
	fmt.Fprintln(b.out, "reliability: the face network's probability for its likeliest face against how often that face is right, over the labelled dice found")
	res.reliability.print(b.out)
	if b.reveals <= 0 {
		return nil
	}
	var readerErr error
	newReader := func(o vision.Options) *vision.Reader {
		r, err := b.newReader(o)
		if err != nil {
			readerErr = err
			return nil
		}
		return r
	}
	err = benchReveals(b.ctx, b.photos, b.split, b.subset, b.reveals, newReader, b.out)
	if readerErr != nil {
		return readerErr // benchReveals's own error only says it had no reader
	}
	return err
}

// syntheticSets measures the synthetic star, marbled, glossy and JPEG
// tables, each with no hint and with the star dice hinted.
func (b *readBencher) syntheticSets() error {
	for _, set := range []struct {
		name   string
		tables int
		kind   string
	}{{"star dice", b.synthetic, "synth"}, {"marbled star dice", b.marbled, "marbled"}, {"glossy star dice", b.glossy, "glossy"}, {"star dice saved as small JPEGs", b.jpegTables, "jpeg"}} {
		if set.tables <= 0 {
			continue
		}
		for _, starDice := range []bool{false, true} {
			reader, err := b.newReader(vision.Options{StarDice: starDice})
			if err != nil {
				return err
			}
			score, err := benchSynthetic(b.ctx, reader, b.seed, set.tables, set.kind, synthKind(set.kind), b.annotate, b.verbose, b.out)
			reader.Close()
			if err != nil {
				return err
			}
			hint := "no hint"
			if starDice {
				hint = "hint: star dice"
			}
			fmt.Fprintf(b.out, "synthetic %s (%d tables, seeds %d..%d, %s): %v\n", set.name, set.tables, b.seed, b.seed+int64(set.tables)-1, hint, score)
		}
	}
	return nil
}

// tables measures the small, cocked and varied synthetic tables with
// reader.
func (b *readBencher) tables(reader *vision.Reader) error {
	for _, side := range smallDiceSides {
		if b.small <= 0 {
			break
		}
		score, err := benchSynthetic(b.ctx, reader, b.seed, b.small, fmt.Sprintf("small-%gpx", side), smallDice(side), b.annotate, b.verbose, b.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "synthetic star dice of %g px (%d tables of 640x480, seeds %d..%d): %v\n", side, b.small, b.seed, b.seed+int64(b.small)-1, score)
	}
	if b.cocked > 0 {
		score, err := benchCocked(b.ctx, reader, b.seed, b.cocked, b.verbose, b.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "synthetic cocked dice (%d tables, seeds %d..%d): %v\n", b.cocked, b.seed, b.seed+int64(b.cocked)-1, score)
	}
	if b.varied > 0 {
		score, off, err := benchVaried(b.ctx, reader, b.varied, b.annotate, b.verbose, b.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "synthetic varied tables (%d, seeds %d..%d): %v\n", b.varied, variedSeed, variedSeed+b.varied-1, score)
		fmt.Fprintf(b.out, "synthetic varied tables, side faces: %v\n", off)
	}
	return nil
}

// speeds times the speed scene's reads with the die size calibrated, then
// with reader, which has no die size (the scale search).
func (b *readBencher) speeds(reader *vision.Reader) error {
	sized, err := b.newReader(vision.Options{DieSize: speedDieSize()})
	if err != nil {
		return err
	}
	defer sized.Close()
	for _, r := range []struct {
		reader *vision.Reader
		how    string
	}{{sized, "the die size calibrated"}, {reader, "no die size given (the scale search)"}} {
		med, cpu, err := benchSpeed(b.ctx, r.reader, b.speed)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "speed: median %.1f ms wall, %.1f ms CPU mean, to read a 1280x720 table of 30 dice, %s (%d reads, GOMAXPROCS=%s)\n", med, cpu, r.how, b.speed, gomaxprocs())
	}
	return nil
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
