package camera_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// doubtReader reads the synthetic truth but doubts one die, with a wrong
// guess, as the reader does with a face it cannot make out.
type doubtReader struct {
	src   *synth.Source
	doubt int
}

func (r doubtReader) Read(gocv.Mat) ([]vision.Die, error) {
	dice := r.src.Truth()
	d := &dice[r.doubt]
	d.Face, d.Uncertain, d.Confidence = 1+d.Face%6, true, 0.4
	return dice, nil
}

// A doubtful reveal that the operator enters becomes a labelled example
// once the table moves on: the frame as the camera took it and every die
// with the face the operator gave, the doubted one included.
func TestExamplesKeepTheOperatorsReveal(t *testing.T) {
	truth, h, ex, dir := examplesTable(t, [4]int{3, 6, 5, 2}, 2)
	if rep := h.Do(t, `{"type":"reveal","dice":{"ann":[6,3],"bob":[2,5]}}`); !rep.OK {
		t.Fatalf("operator's reveal: %+v", rep)
	}
	if w, _ := ex.Counts(); w != 0 {
		t.Fatalf("%d examples written before the table moved on; want 0 (a correction may still come)", w)
	}
	// The next hand's first bid (ann lost a die: she opens): the reveal
	// is final.
	if rep := h.Do(t, `{"type":"bid","seat":"ann","quantity":1,"face":2}`); !rep.OK {
		t.Fatalf("bid: %+v", rep)
	}
	h.Stop()
	if w, s := ex.Counts(); w != 1 || s != 0 {
		t.Fatalf("written %d, skipped %d; want 1, 0", w, s)
	}
	rows := readCSV(t, filepath.Join(dir, "labels.csv"))
	if got, want := rows[0], []string{"split", "image", "face", "xmin", "ymin", "xmax", "ymax"}; !slices.Equal(got, want) {
		t.Fatalf("header %v; want %v", got, want)
	}
	if len(rows) != 1+len(truth) {
		t.Fatalf("%d label rows; want %d", len(rows)-1, len(truth))
	}
	for i, row := range rows[1:] {
		x, _ := strconv.ParseFloat(row[3], 64)
		y, _ := strconv.ParseFloat(row[4], 64)
		want := -1
		for _, d := range truth {
			if math.Abs(d.X-x-20) < 3 && math.Abs(d.Y-y-20) < 3 {
				want = d.Face
			}
		}
		if row[0] != "train" || row[2] != strconv.Itoa(want) {
			t.Errorf("row %d: %v; want split train, face %d", i, row, want)
		}
	}
	img := gocv.IMRead(filepath.Join(dir, "train", rows[1][1]), gocv.IMReadColor)
	defer img.Close()
	if img.Cols() != 640 || img.Rows() != 480 {
		t.Errorf("the example's frame is %dx%d; want 640x480", img.Cols(), img.Rows())
	}
	if _, err := os.Stat(filepath.Join(dir, "examples.json")); err != nil {
		t.Error(err)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestLabelRead(t *testing.T) {
	zones := camera.NearestSeat{Positions: []camera.SeatPosition{{Name: "ann", X: 100, Y: 100}, {Name: "bob", X: 500, Y: 100}}}
	die := func(x float64, face int, uncertain bool) vision.Die {
		return vision.Die{X: x, Y: 100, Size: 40, Face: face, Uncertain: uncertain}
	}
	cases := []struct {
		name  string
		read  []vision.Die
		final map[string][]int
		faces []int // nil: not labelled
	}{
		{"all confident", []vision.Die{die(90, 3, false), die(110, 4, false), die(500, 6, false)},
			map[string][]int{"ann": {4, 3}, "bob": {6}}, []int{3, 4, 6}},
		{"one doubt per seat", []vision.Die{die(90, 3, false), die(110, 2, true), die(500, 1, true)},
			map[string][]int{"ann": {3, 5}, "bob": {6}}, []int{3, 5, 6}},
		{"a confident read corrected", []vision.Die{die(90, 3, false), die(110, 4, false)},
			map[string][]int{"ann": {3, 5}, "bob": {}}, []int{3, 5}},
		{"two doubts, the same face", []vision.Die{die(90, 2, true), die(110, 1, true)},
			map[string][]int{"ann": {4, 4}, "bob": {}}, []int{4, 4}},
		{"two doubts, two faces", []vision.Die{die(90, 2, true), die(110, 1, true)},
			map[string][]int{"ann": {4, 5}, "bob": {}}, nil},
		{"a die missed", []vision.Die{die(90, 3, false)},
			map[string][]int{"ann": {3, 5}, "bob": {}}, nil},
		{"a seat not in the hand", []vision.Die{die(90, 3, false), die(500, 2, false)},
			map[string][]int{"ann": {3}}, nil},
	}
	for _, c := range cases {
		labels, ok := camera.LabelRead(c.read, zones, c.final)
		if ok != (c.faces != nil) {
			t.Errorf("%s: labelled %v; want %v", c.name, ok, c.faces != nil)
			continue
		}
		var got []int
		for _, l := range labels {
			got = append(got, l.Face)
		}
		if !slices.Equal(got, c.faces) {
			t.Errorf("%s: got faces %v; want %v", c.name, got, c.faces)
		}
		if ok && (labels[0].XMax-labels[0].XMin != 40 || labels[0].XMin != c.read[0].X-20) {
			t.Errorf("%s: box %+v; want the die's 40 px box around x %v", c.name, labels[0], c.read[0].X)
		}
	}
}

// A correction after the operator's reveal is what the example keeps.
func TestExamplesKeepTheCorrection(t *testing.T) {
	_, h, ex, dir := examplesTable(t, [4]int{4, 6, 2, 3}, 0)
	// A hurried operator types ann's die wrong, then corrects it.
	for _, line := range []string{`{"type":"reveal","dice":{"ann":[5,6],"bob":[2,3]}}`, `{"type":"correct","dice":{"ann":[4,6],"bob":[2,3]}}`} {
		if rep := h.Do(t, line); !rep.OK {
			t.Fatalf("%s: %+v", line, rep)
		}
	}
	h.Stop()
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "labels.csv"))
	var faces []string
	for _, row := range rows[1:] {
		faces = append(faces, row[2])
	}
	slices.Sort(faces)
	if want := []string{"2", "3", "4", "6"}; !slices.Equal(faces, want) {
		t.Errorf("kept faces %v; want %v (the correction's)", faces, want)
	}
}

// examplesTable starts a referee keeping examples, two seats of two dice
// with faces (ann's two, then bob's), the die doubt of the read in doubt,
// and plays to a reveal that needs a look. It returns the dice on the
// table, the harness, the examples and their folder.
func examplesTable(t *testing.T, faces [4]int, doubt int) ([]synth.Die, *harness, *camera.Examples, string) {
	t.Helper()
	// Two 2s: the die in doubt (any face: the reader lists none) could
	// make the bid true, so the referee asks for a look.
	truth, h, ex, dir := examplesTableBid(t, faces, doubt, `{"type":"bid","seat":"ann","quantity":2,"face":2}`)
	h.Rec.WaitFor(t, "a look asked for", func() bool {
		return len(h.Rec.VisionMessages()) >= 1
	})
	return truth, h, ex, dir
}

// examplesTableBid is examplesTable with the bid that bob challenges: it
// returns once the challenge is taken.
func examplesTableBid(t *testing.T, faces [4]int, doubt int, bid string) ([]synth.Die, *harness, *camera.Examples, string) {
	t.Helper()
	layout := demo.Layout{Width: 640, Height: 480, DieSize: 40, Seats: []string{"ann", "bob"}}
	pos := layout.Positions()
	white := synth.Palettes[0]
	truth := make([]synth.Die, 4)
	for i, f := range faces {
		truth[i] = synth.Die{X: pos[i/2].X - 30 + 60*float64(i%2), Y: pos[i/2].Y, Face: f, Colour: white.Body, PipColour: white.Pips}
	}
	src := synth.NewSource(func(frame int) synth.Scene {
		return synth.Scene{Width: 640, Height: 480, DieSize: 40, Table: synth.Tables[0], Seed: uint64(frame), Dice: truth}
	})
	dir := filepath.Join(t.TempDir(), "examples")
	ex, err := camera.OpenExamples(dir, "t1", false)
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, filepath.Join(t.TempDir(), "t1.journal"), camera.Options{
		Source: sourceCamera{src}, Reader: doubtReader{src: src, doubt: doubt},
		Zones: camera.NearestSeat{Positions: pos}, Retry: time.Hour, Examples: ex,
	})
	h.Do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`)
	h.Do(t, bid)
	h.Do(t, `{"type":"challenge","seat":"bob"}`)
	return truth, h, ex, dir
}

// A reveal settled with a die the camera did not read for sure is not
// kept: the die's face is a stand-in, never a label. A correction that
// names every face makes it an example again.
func TestExamplesSkipUnconfirmedDice(t *testing.T) {
	for _, correct := range []bool{false, true} {
		// One 2: bob's 2 makes it true whatever the die in doubt shows.
		_, h, ex, dir := examplesTableBid(t, [4]int{3, 6, 5, 2}, 2, `{"type":"bid","seat":"ann","quantity":1,"face":2}`)
		h.Rec.WaitFor(t, "the reveal settled", func() bool { return strings.Contains(h.Rec.EventLines(), `"unconfirmed":{"bob":[0]}`) })
		if correct {
			if rep := h.Do(t, `{"type":"correct","dice":{"ann":[3,6],"bob":[5,2]}}`); !rep.OK {
				t.Fatalf("correction: %+v", rep)
			}
		}
		if rep := h.Do(t, `{"type":"bid","seat":"bob","quantity":1,"face":2}`); !rep.OK {
			t.Fatalf("bid: %+v", rep)
		}
		h.Stop()
		w, s := ex.Counts()
		if want := map[bool]int{false: 0, true: 1}[correct]; w != want || s != 1-want {
			t.Errorf("corrected %v: written %d, skipped %d; want %d, %d", correct, w, s, want, 1-want)
		}
		if correct {
			faces := []string{}
			for _, row := range readCSV(t, filepath.Join(dir, "labels.csv"))[1:] {
				faces = append(faces, row[2])
			}
			slices.Sort(faces)
			if want := []string{"2", "3", "5", "6"}; !slices.Equal(faces, want) {
				t.Errorf("kept faces %v; want %v", faces, want)
			}
		}
	}
}
