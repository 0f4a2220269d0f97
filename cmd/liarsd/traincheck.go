package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/liarsd/liarsd/vision"
)

func init() {
	register(command{
		name:    "traincheck",
		summary: "say whether a training run reproduced the committed networks within make train's tolerance (make train-check)",
		run:     runTrainCheck,
	})
}

// The tolerance make train is held to (docs/vision.md, Reproducing):
// PyTorch promises no identical bytes across machines and thread counts,
// so a run is held to its figures.
const (
	// foundWithin is how far, in points of the held-out photographs'
	// dice, the finder's dice found may be from the committed run's.
	foundWithin = 1.0
	// rightWithin is the same for the face network's likeliest face.
	rightWithin = 1.0
	// barSteps is how many steps of readtrain's lists a chosen bar may be
	// from the committed one.
	barSteps = 1
)

// turnsTried are the turns readtrain chooses from (runReadTrain).
var turnsTried = []float64{1, 4}

func runTrainCheck(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("traincheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	want := fs.String("want", "vision/model", "folder of the committed run: curve.csv and reader.json")
	got := fs.String("got", "", "folder a run wrote (train.py's --out, readtrain's -o): curve.csv and reader.json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd traincheck -got DIR [-want vision/model]\n\nCompares a training run's learning curve and chosen bars with the committed\nrun's: at the last step both curves reached, the held-out photographs' dice\nthe finder found and the face network's likeliest face right must be within\n1 point, and each of readtrain's bars within one step of its list. Exits 1\nwhen the run is outside that tolerance.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q (traincheck takes flags only)", fs.Arg(0))
	}
	if *got == "" {
		return usageError(fs, stderr, "-got is required: the folder the run to check wrote")
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "traincheck: %v\n", err)
		return 1
	}
	wantRun, err := getTrainingRun(*want)
	if err != nil {
		return fail(err)
	}
	gotRun, err := getTrainingRun(*got)
	if err != nil {
		return fail(err)
	}
	checks, err := compareTraining(wantRun, gotRun)
	if err != nil {
		return fail(err)
	}
	within := true
	fmt.Fprintf(stdout, "%-44s %12s %12s  %s\n", "figure", *want, *got, "")
	for _, c := range checks {
		verdict := "within"
		if !c.ok {
			verdict, within = "OUTSIDE", false
		}
		fmt.Fprintf(stdout, "%-44s %12s %12s  %s\n", c.what, c.want, c.got, verdict)
	}
	if !within {
		fmt.Fprintln(stdout, "traincheck: the run is outside make train's tolerance")
		return 1
	}
	fmt.Fprintln(stdout, "traincheck: the run reproduces the committed networks within make train's tolerance")
	return 0
}

// trainingRun is what a training run leaves to compare: its learning
// curve and the bars readtrain chose for its networks.
type trainingRun struct {
	curve []curveRow
	bars  vision.Bars
}

// getTrainingRun reads dir's curve.csv and reader.json.
func getTrainingRun(dir string) (trainingRun, error) {
	f, err := os.Open(filepath.Join(dir, "curve.csv"))
	if err != nil {
		return trainingRun{}, err
	}
	defer f.Close()
	curve, err := parseCurve(f)
	if err != nil {
		return trainingRun{}, fmt.Errorf("%s: %w", f.Name(), err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "reader.json"))
	if err != nil {
		return trainingRun{}, err
	}
	var bars vision.Bars
	if err := json.Unmarshal(data, &bars); err != nil {
		return trainingRun{}, fmt.Errorf("%s: %w", filepath.Join(dir, "reader.json"), err)
	}
	return trainingRun{curve: curve, bars: bars}, nil
}

// curveRow is one row of a learning curve as vision/recipe/train.py
// writes it: a network, a step, a held-out set and what was measured on
// it (right for the face network, found for the finder; -1 where the
// row has no figure).
type curveRow struct {
	net, set           string
	step, dice         int
	right, found       int
	sureRight, sureBad int
}

// parseCurve reads a learning curve (curve.csv), its columns found by
// their names.
func parseCurve(r io.Reader) ([]curveRow, error) {
	records, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, errors.New("no header")
	}
	col := map[string]int{}
	for i, name := range records[0] {
		col[name] = i
	}
	for _, name := range []string{"net", "step", "set", "dice", "right", "found"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("no column %q", name)
		}
	}
	number := func(rec []string, name string, line int) (int, error) {
		i, ok := col[name]
		if !ok || rec[i] == "" {
			return -1, nil
		}
		n, err := strconv.Atoi(rec[i])
		if err != nil {
			return 0, fmt.Errorf("line %d: %s %q is not a whole number", line, name, rec[i])
		}
		return n, nil
	}
	var rows []curveRow
	for n, rec := range records[1:] {
		line := n + 2
		row := curveRow{net: rec[col["net"]], set: rec[col["set"]]}
		for _, f := range []struct {
			name string
			to   *int
		}{{"step", &row.step}, {"dice", &row.dice}, {"right", &row.right}, {"found", &row.found}, {"sure_right", &row.sureRight}, {"sure_wrong", &row.sureBad}} {
			v, err := number(rec, f.name, line)
			if err != nil {
				return nil, err
			}
			*f.to = v
		}
		if row.step < 0 || row.dice <= 0 {
			return nil, fmt.Errorf("line %d: a row needs a step and its held-out dice", line)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// trainCheck is one figure compared: the committed run's, the run's, and
// whether they are within the tolerance.
type trainCheck struct {
	what, want, got string
	ok              bool
}

// compareTraining compares the held-out photographs' figures at the last
// step both curves reached, for each network, and the chosen bars.
func compareTraining(want, got trainingRun) ([]trainCheck, error) {
	var checks []trainCheck
	for _, f := range []struct {
		net, what string
		value     func(curveRow) int
		within    float64
	}{
		{"finder", "photographs' dice found", func(r curveRow) int { return r.found }, foundWithin},
		{"faces", "photographs' likeliest face right", func(r curveRow) int { return r.right }, rightWithin},
	} {
		w, g, err := atLastCommonStep(want.curve, got.curve, f.net, "photos")
		if err != nil {
			return nil, err
		}
		wv, gv := f.value(w), f.value(g)
		if wv < 0 || gv < 0 {
			return nil, fmt.Errorf("the %s rows at step %d have no figure", f.net, w.step)
		}
		wp, gp := 100*float64(wv)/float64(w.dice), 100*float64(gv)/float64(g.dice)
		checks = append(checks, trainCheck{
			what: fmt.Sprintf("%s, step %d", f.what, w.step),
			want: fmt.Sprintf("%d/%d", wv, w.dice), got: fmt.Sprintf("%d/%d", gv, g.dice),
			ok: w.dice == g.dice && math.Abs(wp-gp) <= f.within+1e-9,
		})
	}
	for _, b := range []struct {
		what      string
		want, got float64
		list      []float64
	}{
		{"agreed bar", want.bars.Agreed, got.bars.Agreed, faceBars},
		{"alone bar", want.bars.Alone, got.bars.Alone, faceBars},
		{"possible bar", orDefault(want.bars.Possible, vision.DefaultPossible), orDefault(got.bars.Possible, vision.DefaultPossible), possibleBars},
		{"turns", float64(max(want.bars.Turns, 1)), float64(max(got.bars.Turns, 1)), turnsTried},
	} {
		wi, gi := slices.Index(b.list, b.want), slices.Index(b.list, b.got)
		checks = append(checks, trainCheck{
			what: b.what,
			want: strconv.FormatFloat(b.want, 'g', -1, 64), got: strconv.FormatFloat(b.got, 'g', -1, 64),
			ok: wi >= 0 && gi >= 0 && abs(wi-gi) <= barSteps,
		})
	}
	return checks, nil
}

// atLastCommonStep returns the rows of net on set at the last step both
// curves have.
func atLastCommonStep(want, got []curveRow, net, set string) (curveRow, curveRow, error) {
	steps := map[int]curveRow{}
	for _, r := range got {
		if r.net == net && r.set == set {
			steps[r.step] = r
		}
	}
	var w, g curveRow
	found := false
	for _, r := range want {
		if r.net != net || r.set != set {
			continue
		}
		if o, ok := steps[r.step]; ok && (!found || r.step > w.step) {
			w, g, found = r, o, true
		}
	}
	if !found {
		return curveRow{}, curveRow{}, fmt.Errorf("the curves have no step of the %s on the held-out %s in common", net, set)
	}
	return w, g, nil
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
