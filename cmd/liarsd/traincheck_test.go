package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/vision"
)

const curveHeader = "net,step,samples,set,dice,right,sure_right,sure_wrong,found,false,minutes\n"

func TestParseCurve(t *testing.T) {
	rows, err := parseCurve(strings.NewReader(curveHeader +
		"finder,1000,16000,photos,275,,,,264,80,7.8\n" +
		"faces,11000,1408000,photos,275,268,227,0,,,150.4\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []curveRow{
		{net: "finder", set: "photos", step: 1000, dice: 275, right: -1, found: 264, sureRight: -1, sureBad: -1},
		{net: "faces", set: "photos", step: 11000, dice: 275, right: 268, found: -1, sureRight: 227, sureBad: 0},
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows; want %d", len(rows), len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: got %+v; want %+v", i, rows[i], want[i])
		}
	}
	for _, tt := range []struct{ curve, want string }{
		{"", "no header"},
		{"net,step,set\n", `no column "dice"`},
		{curveHeader + "faces,x,1,photos,275,268,,,,,1\n", `line 2: step "x" is not a whole number`},
		{curveHeader + "faces,1000,1,photos,0,268,,,,,1\n", "line 2: a row needs a step and its held-out dice"},
	} {
		if _, err := parseCurve(strings.NewReader(tt.curve)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseCurve(%q) = %v; want an error saying %q", tt.curve, err, tt.want)
		}
	}
}

func TestCompareTraining(t *testing.T) {
	committed := trainingRun{
		curve: []curveRow{
			{net: "finder", set: "photos", step: 6000, dice: 275, found: 273},
			{net: "finder", set: "photos", step: 12000, dice: 275, found: 274},
			{net: "faces", set: "photos", step: 11000, dice: 275, right: 268},
			{net: "faces", set: "rune55", step: 11000, dice: 972, right: 950},
		},
		bars: vision.Bars{Agreed: 0.9, Alone: 0.93, Possible: 1e-3, Turns: 4},
	}
	for _, tt := range []struct {
		name    string
		found   int // at step 12000
		right   int
		bars    vision.Bars
		outside []string
	}{
		{"the same", 274, 268, committed.bars, nil},
		{"within a point and a step", 272, 266, vision.Bars{Agreed: 0.93, Alone: 0.9, Possible: 2e-3, Turns: 1}, nil},
		{"faces 3 dice fewer", 274, 265, committed.bars, []string{"likeliest face"}},
		{"finder 3 dice more", 277, 268, committed.bars, []string{"dice found"}},
		{"a bar two steps off", 274, 268, vision.Bars{Agreed: 0.9, Alone: 0.97, Possible: 1e-3, Turns: 4}, []string{"alone bar"}},
		{"a bar off the list", 274, 268, vision.Bars{Agreed: 0.9, Alone: 0.93, Possible: 3e-3, Turns: 4}, []string{"possible bar"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := trainingRun{
				curve: []curveRow{
					{net: "finder", set: "photos", step: 12000, dice: 275, found: tt.found},
					{net: "faces", set: "photos", step: 11000, dice: 275, right: tt.right},
				},
				bars: tt.bars,
			}
			checks, err := compareTraining(committed, run)
			if err != nil {
				t.Fatal(err)
			}
			var outside []string
			for _, c := range checks {
				if !c.ok {
					outside = append(outside, c.what)
				}
			}
			if len(outside) != len(tt.outside) {
				t.Fatalf("got outside %q; want %q", outside, tt.outside)
			}
			for i := range outside {
				if !strings.Contains(outside[i], tt.outside[i]) {
					t.Errorf("got outside %q; want %q", outside, tt.outside)
				}
			}
		})
	}
	// A run stopped before any step the committed curve measured cannot
	// be compared: said, not passed.
	early := trainingRun{curve: []curveRow{{net: "finder", set: "photos", step: 500, dice: 275, found: 200}}, bars: committed.bars}
	if _, err := compareTraining(committed, early); err == nil || !strings.Contains(err.Error(), "no step of the finder") {
		t.Errorf("got %v; want no common step of the finder", err)
	}
}

// TestTrainCheckCommand: the committed networks reproduce themselves; a
// run outside the tolerance exits 1 and says which figure.
func TestTrainCheckCommand(t *testing.T) {
	committed := filepath.Join("..", "..", "vision", "model")
	if code, out, errOut := run1(t, "traincheck", "-want", committed, "-got", committed); code != 0 || !strings.Contains(out, "within make train's tolerance") {
		t.Fatalf("got exit %d, %q %q; want 0 and within", code, out, errOut)
	}
	// The reproduction kept in testdata is within the tolerance.
	reproduced := filepath.Join("..", "..", "testdata", "train-reproduced")
	if code, out, errOut := run1(t, "traincheck", "-want", committed, "-got", reproduced); code != 0 || !strings.Contains(out, "266/275") {
		t.Errorf("the reproduction kept in testdata: got exit %d, %q %q; want 0 and its faces' 266/275", code, out, errOut)
	}
	dir := t.TempDir()
	curve, err := os.ReadFile(filepath.Join(committed, "curve.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "curve.csv"), curve, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reader.json"), []byte(`{"agreed":0.5,"alone":0.995,"possible":0.001,"turns":4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run1(t, "traincheck", "-want", committed, "-got", dir)
	if code != 1 || !strings.Contains(out, "agreed bar") || !strings.Contains(out, "OUTSIDE") || !strings.Contains(out, "outside make train's tolerance") {
		t.Errorf("got exit %d, %q; want 1 and the agreed bar outside", code, out)
	}
	if code, _, errOut := run1(t, "traincheck"); code != 2 || !strings.Contains(errOut, "-got is required") {
		t.Errorf("got exit %d, %q; want a usage error", code, errOut)
	}
	if code, _, errOut := run1(t, "traincheck", "-got", filepath.Join(dir, "nothing")); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("got exit %d, %q; want the missing folder said", code, errOut)
	}
}
