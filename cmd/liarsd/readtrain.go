package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/liarsd/liarsd/vision"
)

func init() {
	register(command{
		name:    "readtrain",
		summary: "choose the dice reader's decision bar on held-out photographs and synthetic tables (make train's last step)",
		run:     runReadTrain,
	})
}

// faceBars are the bars readtrain tries for the face classifier's read,
// alone (the pip counter silent) and agreed (the counter reading the same
// face).
var faceBars = []float64{0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995}

// minAgreed is the lowest agreed bar readtrain chooses: the witnesses
// are independent in how they read, not in what they see, and a die half
// hidden or seen from the side can show both the same wrong face (a 3
// with a pip covered is a 2's diagonal to each), which the held-out sets
// hold too few of to weigh.
const minAgreed = 0.9

// sweepFloor is the bar the held-out sets are read at once: every read a
// higher bar could keep is reported, with its probability and the pip
// counter's opinion, and each bar pair is then applied to those reads.
const sweepFloor = 0.3

func runReadTrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readtrain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	photos := fs.String("photos", "../shared/data/dice-photos", "folder of labelled photographs: the train split's held-out ones (every fifth) choose the bars")
	models := fs.String("models", "vision/model", "folder of the networks (finder.onnx, faces.onnx) to choose bars for")
	out := fs.String("o", "", "where to write the bars (reader.json); empty prints them only")
	tables := fs.Int("synthetic", 60, "held-out varied synthetic tables (synth.Varied from seed 900000, never trained on) that must also be read without a confident error")
	maxWrong := fs.Float64("max-wrong", 0, "the share of confidently wrong reads allowed on the held-out photographs")
	maxSynthWrong := fs.Float64("max-wrong-synthetic", 0, "the share of confidently wrong reads (phantoms included) allowed on the held-out synthetic tables")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd readtrain [flags]\n\nReads the photographs the recipe held out of training (train/, every fifth\nin name order) and held-out synthetic tables with the networks in -models,\nthen tries each pair of face bars (agreed: the pip counter reads the same\nface; alone: it reads none) and keeps the pair that reads the most dice\nright with no more than -max-wrong of the photographs' dice confidently wrong\nand -max-wrong-synthetic of the synthetic ones (none by default). It never looks at test/.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q (readtrain takes flags only)", fs.Arg(0))
	}
	if *maxWrong < 0 || *maxWrong >= 1 {
		return usageError(fs, stderr, "-max-wrong %v: want a share from 0 to below 1", *maxWrong)
	}
	if *maxSynthWrong < 0 || *maxSynthWrong >= 1 {
		return usageError(fs, stderr, "-max-wrong-synthetic %v: want a share from 0 to below 1", *maxSynthWrong)
	}
	if *tables < 0 {
		return usageError(fs, stderr, "-synthetic %d: want 0 or more", *tables)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "readtrain: %v\n", err)
		return 1
	}
	m, err := vision.LoadModels(*models)
	if err != nil {
		return fail(err)
	}
	byImage, names, err := photoLabels(*photos, "train", "held")
	if err != nil {
		return fail(err)
	}
	// The bars are chosen for each number of turns a die in doubt is read
	// (Bars.Turns), and the turns that read the most dice right kept:
	// more turns cost more only where they read more.
	best := sweepResult{value: math.Inf(-1)}
	for _, turns := range []int{1, 4} {
		r, err := sweepBars(ctx, *m, turns, *photos, names, byImage, *tables, *maxWrong, *maxSynthWrong, stdout)
		if err != nil {
			return fail(err)
		}
		if r.ok && r.value > best.value {
			best = r
		}
	}
	if !best.ok {
		fmt.Fprintln(stderr, "readtrain: no bars read the held-out dice within -max-wrong: the networks are not good enough to ship")
		return 1
	}
	chosenAgreed, chosenAlone := best.agreed, best.alone
	m.Bars.Turns = best.turns
	m.Bars.Agreed, m.Bars.Alone = chosenAgreed, chosenAlone
	possible, err := choosePossible(ctx, *m, *photos, names, byImage, *tables, stdout)
	if err != nil {
		return fail(err)
	}
	m.Bars.Possible = possible
	data, err := json.MarshalIndent(m.Bars, "", "  ")
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "chosen: agreed bar %.3f, alone bar %.3f, turns %d\n%s\n", chosenAgreed, chosenAlone, m.Bars.Turns, data)
	if *out != "" {
		if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
			return fail(err)
		}
	}
	return 0
}

// atBars returns dice as a reader with the given face bars would report
// them, from a read at sweepFloor: a read that was confident stays so only
// where the network's probability reaches the bar that applies.
func atBars(dice []vision.Die, agreed, alone float64) []vision.Die {
	out := make([]vision.Die, len(dice))
	for i, d := range dice {
		if !d.Uncertain && d.Net != nil {
			bar := alone
			if d.Pips != nil && d.Pips.Face == d.Net.Face && d.Net.Face > 1 && !d.Net.Star {
				bar = agreed
			}
			if d.Net.Probability < bar {
				d.Uncertain, d.Reason = true, "the network is unsure"
			}
		}
		out[i] = d
	}
	return out
}

// possibleBars are the Possible bars readtrain tries, highest first.
var possibleBars = []float64{1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5}

// choosePossible chooses the Possible bar: the highest under which no
// held-out die's true face falls (but those no bar tried holds), so that
// a die in doubt's list of faces (vision.Die.Likely) holds its face. Every die is read as in
// doubt (bars at their top), with every face it may show down to the
// lowest bar tried, and the true face's probability is taken where the
// pip counter does not name it.
func choosePossible(ctx context.Context, m vision.Models, photos string, names []string, byImage map[string][]vision.Label, tables int, stdout io.Writer) (float64, error) {
	all := m
	all.Bars.Agreed, all.Bars.Alone, all.Bars.Possible = 0.999999, 0.999999, possibleBars[len(possibleBars)-1]
	reader, err := vision.NewReader(vision.Options{Models: &all, MinConfidence: 0.999})
	if err != nil {
		return 0, err
	}
	defer reader.Close()
	var lowest []float64 // each read die's true face's probability
	take := func(dice []vision.Die, labels []vision.Label) {
		for li, k := range vision.Match(dice, labels) {
			if k < 0 || len(dice[k].Likely) == 0 {
				continue
			}
			l := labels[li]
			p := 0.0
			for _, o := range dice[k].Likely {
				if o.Face == l.Face && o.Star == l.Star {
					p = o.Probability
					if dice[k].Pips != nil && dice[k].Pips.Face == l.Face && dice[k].Pips.Star == l.Star {
						p = 1 // the counter's face is always listed
					}
				}
			}
			lowest = append(lowest, p)
		}
	}
	for _, name := range names {
		img, err := vision.LoadImage(filepath.Join(photos, "train", name))
		if err != nil {
			return 0, err
		}
		dice, err := reader.Read(img)
		img.Close()
		if err != nil {
			return 0, err
		}
		take(dice, byImage[name])
	}
	for i := 0; i < tables; i++ {
		c, img, err := readVaried(ctx, reader, uint64(variedSeed+i))
		if err != nil {
			return 0, err
		}
		img.Close()
		take(c.dice, c.labels)
	}
	under := func(bar float64) int {
		out := 0
		for _, p := range lowest {
			if p < bar {
				out++
			}
		}
		return out
	}
	// A die whose true face lies under the lowest bar was read wrong, not
	// in doubt (a side face, a die matched to its neighbour's label): no
	// bar can list its face, so the bar is the highest that leaves out no
	// more faces than the lowest does.
	floor := under(possibleBars[len(possibleBars)-1])
	for _, bar := range possibleBars {
		if out := under(bar); out <= floor {
			fmt.Fprintf(stdout, "possible bar %g: every true face of %d held-out dice at or above it but %d no bar tried holds\n", bar, len(lowest), out)
			return bar, nil
		}
	}
	return possibleBars[len(possibleBars)-1], nil
}

// sweepResult is the best pair of face bars for a number of turns.
type sweepResult struct {
	turns         int
	agreed, alone float64
	value         float64 // right rates summed, photographs and synthetic
	ok            bool
}

// sweepBars reads the held-out photographs and synthetic tables once at
// sweepFloor with the dice in doubt read turns ways, then tries each pair
// of face bars on those reads and returns the pair that reads the most
// dice right with no more than maxWrong of the photographs' dice
// confidently wrong and maxSynthWrong of the synthetic ones.
func sweepBars(ctx context.Context, m vision.Models, turns int, photos string, names []string, byImage map[string][]vision.Label, tables int, maxWrong, maxSynthWrong float64, stdout io.Writer) (sweepResult, error) {
	floor := m
	floor.Bars.Agreed, floor.Bars.Alone, floor.Bars.Turns = sweepFloor, sweepFloor, turns
	reader, err := vision.NewReader(vision.Options{Models: &floor})
	if err != nil {
		return sweepResult{}, err
	}
	defer reader.Close()
	photoReads := make([][]vision.Die, len(names))
	for i, name := range names {
		img, err := vision.LoadImage(filepath.Join(photos, "train", name))
		if err != nil {
			return sweepResult{}, err
		}
		photoReads[i], err = reader.Read(img)
		img.Close()
		if err != nil {
			return sweepResult{}, err
		}
	}
	synthReads := make([]variedRead, tables)
	for i := range synthReads {
		c, img, err := readVaried(ctx, reader, uint64(variedSeed+i))
		if err != nil {
			return sweepResult{}, err
		}
		img.Close()
		synthReads[i] = c
	}
	scoreAt := func(agreed, alone float64) (photo, synthetic vision.Score) {
		for i, name := range names {
			s, _ := vision.Compare(atBars(photoReads[i], agreed, alone), byImage[name])
			photo.Add(s)
		}
		for _, c := range synthReads {
			s, _ := c.score(atBars(c.dice, agreed, alone))
			synthetic.Add(s)
		}
		return photo, synthetic
	}
	best := sweepResult{turns: turns, value: math.Inf(-1)}
	fmt.Fprintf(stdout, "turns %d\nalone  best agreed  held-out photographs (%d)                    synthetic (%d tables)\n", turns, len(names), tables)
	for _, alone := range faceBars {
		rowAgreed, rowBest := -1.0, math.Inf(-1)
		var rowPhoto, rowSynth vision.Score
		for _, agreed := range faceBars {
			if agreed > alone {
				break
			}
			if agreed < minAgreed {
				continue
			}
			photo, synthetic := scoreAt(agreed, alone)
			ok := photo.WrongRate() <= maxWrong && photo.Extra == 0 && synthetic.WrongRate() <= maxSynthWrong
			value := photo.RightRate() + synthetic.RightRate()
			if !ok {
				value -= 10 // a row shows its best pair even when none passes
			}
			if value > rowBest {
				rowAgreed, rowBest, rowPhoto, rowSynth = agreed, value, photo, synthetic
			}
			if ok && value > best.value {
				best.agreed, best.alone, best.value, best.ok = agreed, alone, value, true
			}
		}
		if rowAgreed < 0 {
			continue // below minAgreed: no pair to try
		}
		fmt.Fprintf(stdout, "%.3f  %.3f        %6.2f%% right %5.2f%% wrong (%d wrong, %d phantom)   %6.2f%% right %5.2f%% wrong (%d wrong, %d phantom)\n",
			alone, rowAgreed, 100*rowPhoto.RightRate(), 100*rowPhoto.WrongRate(), rowPhoto.Wrong, rowPhoto.Extra,
			100*rowSynth.RightRate(), 100*rowSynth.WrongRate(), rowSynth.Wrong, rowSynth.Extra)
	}
	if best.ok {
		fmt.Fprintf(stdout, "turns %d: best agreed %.3f, alone %.3f\n", turns, best.agreed, best.alone)
	}
	return best, nil
}
