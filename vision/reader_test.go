package vision_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// faceScene puts one die per face and artwork on a table: the six faces
// with plain pips and the star in each of its three artworks.
func faceScene(seed uint64, table color.RGBA, p synth.Palette) (synth.Scene, []string) {
	type spec struct {
		face int
		one  synth.Artwork
		name string
	}
	specs := []spec{
		{1, synth.Pip, "1"}, {2, synth.Pip, "2"}, {3, synth.Pip, "3"},
		{4, synth.Pip, "4"}, {5, synth.Pip, "5"}, {6, synth.Pip, "6"},
		{1, synth.FilledStar, "filled-star"}, {1, synth.OutlinedStar, "outlined-star"}, {1, synth.ShipsWheel, "ships-wheel"},
	}
	s := synth.Scene{
		Width: 640, Height: 360, Table: table, Texture: 0.5, Seed: seed,
		Light: synth.Lighting{Gradient: 0.25, Angle: 30, Vignette: 0.15, Shadow: 0.5},
		Blur:  0.6, Noise: 3,
	}
	var names []string
	for i, sp := range specs {
		s.Dice = append(s.Dice, synth.Die{
			X: float64(90 + (i%5)*115), Y: float64(100 + (i/5)*150),
			Face: sp.face, One: sp.one, Colour: p.Body, PipColour: p.Pips,
			Rotation: float64(i*17) + float64(seed%40),
		})
		names = append(names, sp.name)
	}
	return s, names
}

// TestReadEverySymbol reads every face and the three star artworks, light
// pips on dark dice and dark on light, on light and dark tables: every die
// found, none confidently wrong, most of them read confidently.
func TestReadEverySymbol(t *testing.T) {
	cases := []struct {
		name    string
		table   color.RGBA
		palette synth.Palette
	}{
		{"white dice black pips on green felt", synth.Tables[0], synth.Palettes[0]},
		{"red dice white pips on grey board", synth.Tables[2], synth.Palettes[2]},
		{"black dice white pips on wood", synth.Tables[1], synth.Palettes[3]},
		{"yellow dice black pips on blue felt", synth.Tables[5], synth.Palettes[6]},
		{"purple dice gold pips on grey board", synth.Tables[2], synth.Palettes[7]},
	}
	r := visiontest.NewReader(t, vision.Options{})
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			scene, names := faceScene(uint64(i+1), tc.table, tc.palette)
			img, truth, err := synth.Render(scene)
			if err != nil {
				t.Fatal(err)
			}
			defer img.Close()
			dice, err := r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			doubts := 0
			for j, want := range truth {
				got, ok := nearest(dice, want)
				if !ok {
					t.Errorf("%s: no die found near (%.0f,%.0f)", names[j], want.X, want.Y)
					continue
				}
				switch {
				case got.Uncertain:
					doubts++
				case got.Face != want.Face || got.Star != want.Star:
					t.Errorf("%s: got %v; want face %d star %v or a doubt", names[j], got, want.Face, want.Star)
				}
			}
			// The reader may leave a die it is not sure enough of to the
			// operator (a 1 the classifier also finds a little star-like
			// is one), never most of them.
			if doubts > len(truth)/3 {
				t.Errorf("%d of %d dice uncertain; want at most a third: %v", doubts, len(truth), dice)
			}
			if len(dice) != len(truth) {
				t.Errorf("found %d dice; want %d: %v", len(dice), len(truth), dice)
			}
		})
	}
}

// TestViewBottom reads the same table from below: the reader reports the
// top face, 7 minus the bottom, and 6 for a star seen below.
func TestViewBottom(t *testing.T) {
	scene, _ := faceScene(9, synth.Tables[0], synth.Palettes[0])
	img, truth, err := synth.Render(scene)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	for _, starDice := range []bool{false, true} {
		r := visiontest.NewReader(t, vision.Options{View: vision.ViewBottom, StarDice: starDice})
		dice, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		for _, seen := range truth {
			got, ok := nearest(dice, seen)
			if !ok {
				t.Errorf("no die near (%.0f,%.0f)", seen.X, seen.Y)
				continue
			}
			wantFace, wantStar := 7-seen.Face, false
			switch {
			case seen.Star:
				wantFace = 6
			case seen.Face == 6:
				wantFace, wantStar = 1, starDice
			}
			if got.Face != wantFace || got.Star != wantStar || got.Uncertain {
				t.Errorf("starDice=%v: bottom %d (star %v): got %v; want top %d star %v", starDice, seen.Face, seen.Star, got, wantFace, wantStar)
			}
		}
	}
}

// TestUncertainDice flags dice that cannot be read instead of guessing:
// cocked against another die and half hidden under a hand (which may
// instead be left out, never read confidently wrong).
func TestUncertainDice(t *testing.T) {
	p := synth.Palettes[2]
	s := synth.Scene{
		Width: 640, Height: 360, Table: synth.Tables[0], Texture: 0.4, Seed: 3,
		Light: synth.Lighting{Shadow: 0.5},
		Blur:  0.5, Noise: 2,
		Dice: []synth.Die{
			{X: 120, Y: 120, Face: 5, Colour: p.Body, PipColour: p.Pips, Rotation: 10},
			{X: 320, Y: 120, Face: 4, Colour: p.Body, PipColour: p.Pips, Rotation: 20, Tilt: 40},
			{X: 500, Y: 120, Face: 6, Colour: p.Body, PipColour: p.Pips, Rotation: 35, Tilt: 55},
			{X: 120, Y: 260, Face: 3, Colour: p.Body, PipColour: p.Pips, Rotation: 5, Hidden: 0.5},
			{X: 320, Y: 260, Face: 6, Colour: p.Body, PipColour: p.Pips, Rotation: 50, Hidden: 0.45},
			{X: 500, Y: 260, Face: 2, Colour: p.Body, PipColour: p.Pips, Rotation: 70},
		},
	}
	img, truth, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	dice, err := visiontest.NewReader(t, vision.Options{}).Read(img)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range truth {
		got, found := nearest(dice, want)
		switch {
		case !want.Uncertain:
			if !found || got.Uncertain || got.Face != want.Face {
				t.Errorf("die %d: got %v (found %v); want a confident %d", i, got, found, want.Face)
			}
		case !found && s.Dice[i].Hidden > 0:
			// Half a die is also what the classifier learned as "no die":
			// a die left out is safe, for the referee counts each seat's
			// dice and asks for a look at one missing.
			t.Logf("die %d (hidden %.2f, face %d): not reported (the seat's count asks for a look)", i, s.Dice[i].Hidden, want.Face)
		case !found:
			t.Errorf("die %d (tilt %.0f, face %d): not reported; want it flagged uncertain", i, s.Dice[i].Tilt, want.Face)
		case !got.Uncertain && got.Face != want.Face:
			t.Errorf("die %d (tilt %.0f, hidden %.2f): got %v; want uncertain (confidently wrong)", i, s.Dice[i].Tilt, s.Dice[i].Hidden, got)
		case !got.Uncertain:
			t.Logf("die %d (tilt %.0f, hidden %.2f): read right despite it: %v", i, s.Dice[i].Tilt, s.Dice[i].Hidden, got)
		}
	}
}

// TestTooSmallToRead: a die the reader measures under 16 px across (a
// camera too far or too coarse for the table) and an image of noise are
// flagged uncertain, never read confidently. Before the reader's floor on
// a die's side, a third of 10 px dice were read confidently and one in
// seven of those wrong, and noise gave confident dice of 9-14 px. (A die
// the finder measures at twice its size escapes the floor: 3 of 800 dice
// of 10 px on the tuning seeds; docs/vision.md.)
func TestTooSmallToRead(t *testing.T) {
	r := visiontest.NewReader(t, vision.Options{})
	check := func(name string, img gocv.Mat) {
		t.Helper()
		defer img.Close()
		dice, err := r.Read(img)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, d := range dice {
			if !d.Uncertain && d.Size < 16 {
				t.Errorf("%s: got a confident %+v; want a die under 16 px flagged uncertain", name, d)
			}
		}
	}
	for _, seed := range []uint64{500, 501} {
		img, _, err := synth.Render(synth.Random(seed, synth.RandomOptions{Width: 640, Height: 480, Dice: 20, DieSize: 10}))
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("10 px dice, seed %d", seed), img)
	}
	noise := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8UC3)
	gocv.RandU(&noise, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	check("noise", noise)
}

// TestSyntheticTables reads random tables of star dice with glare, blur,
// noise and perspective, and allows no confidently wrong read.
func TestSyntheticTables(t *testing.T) {
	r := visiontest.NewReader(t, vision.Options{})
	var total vision.Score
	for seed := uint64(100); seed < 104; seed++ {
		img, truth, err := synth.Render(synth.Random(seed, synth.RandomOptions{StarShare: 1.0 / 3}))
		if err != nil {
			t.Fatal(err)
		}
		dice, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		s, errs := vision.Compare(dice, labels(truth))
		total.Add(s)
		for _, e := range errs {
			t.Logf("seed %d: %s", seed, e)
		}
	}
	t.Log(total)
	if total.Wrong+total.Extra > 0 {
		t.Errorf("%d confidently wrong reads; want none", total.Wrong+total.Extra)
	}
	// Measured: 85.8% (docs/vision.md); the rest is left uncertain.
	if total.RightRate() < 0.8 {
		t.Errorf("read %.1f%% right and confident; want at least 80%%", 100*total.RightRate())
	}
}

// TestRealPhotos reads part of the labelled photographs' test split, when
// the shared data sits beside the repository.
func TestRealPhotos(t *testing.T) {
	dir := vision.SharedPhotos(t)
	all, err := vision.ReadLabels(dir)
	if err != nil {
		t.Fatal(err)
	}
	byImage := map[string][]vision.Label{}
	var names []string
	for _, l := range all {
		if l.Split != "test" {
			continue
		}
		if _, ok := byImage[l.Image]; !ok {
			names = append(names, l.Image)
		}
		byImage[l.Image] = append(byImage[l.Image], l)
	}
	if len(names) > 12 {
		names = names[:12] // the whole split is for `liarsd readbench`
	}
	r := visiontest.NewReader(t, vision.Options{})
	var total vision.Score
	for _, name := range names {
		dice, err := r.ReadFile(filepath.Join(dir, "test", name))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := vision.Compare(dice, byImage[name])
		total.Add(s)
	}
	t.Log(total)
	// A guard against regressions, not the target: see docs/vision.md.
	if total.WrongRate() > 0.03 {
		t.Errorf("%.1f%% confidently wrong; want at most 3%%", 100*total.WrongRate())
	}
}

func TestReadErrors(t *testing.T) {
	r := visiontest.NewReader(t, vision.Options{})
	if _, err := r.Read(gocv.NewMat()); err == nil || !strings.HasPrefix(err.Error(), "vision: ") {
		t.Errorf("empty Mat: got %v; want a vision error", err)
	}
	tiny := gocv.NewMatWithSize(8, 8, gocv.MatTypeCV8UC3)
	defer tiny.Close()
	if _, err := r.Read(tiny); err == nil {
		t.Error("8x8 image: got no error")
	}
	float := gocv.NewMatWithSize(64, 64, gocv.MatTypeCV32FC1)
	defer float.Close()
	if _, err := r.Read(float); err == nil {
		t.Error("float image: got no error")
	}
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.jpg")
	if err := os.WriteFile(garbage, []byte("not a jpeg at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{garbage, filepath.Join(dir, "missing.png")} {
		if _, err := r.ReadFile(path); err == nil {
			t.Errorf("ReadFile(%s): got no error", filepath.Base(path))
		}
	}
	if _, err := r.ReadImage(nil); err == nil {
		t.Error("ReadImage(nil): got no error")
	}
}

// TestEmptyTable finds nothing on a table with no dice.
func TestEmptyTable(t *testing.T) {
	img, _, err := synth.Render(synth.Scene{Width: 640, Height: 360, Table: synth.Tables[1], Texture: 0.8, Noise: 4, Blur: 0.8,
		Light: synth.Lighting{Gradient: 0.4, Vignette: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	dice, err := visiontest.NewReader(t, vision.Options{}).Read(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(dice) != 0 {
		t.Errorf("got %v; want no dice", dice)
	}
}

// TestReadImageAndGray reads through image.Image and from a gray Mat.
func TestReadImageAndGray(t *testing.T) {
	scene, _ := faceScene(4, synth.Tables[0], synth.Palettes[0])
	img, truth, err := synth.Render(scene)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	goImg, err := img.ToImage()
	if err != nil {
		t.Fatal(err)
	}
	r := visiontest.NewReader(t, vision.Options{})
	dice, err := r.ReadImage(goImg)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := r.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dice, direct) {
		t.Errorf("through image.Image: %v; want what the Mat reads: %v", dice, direct)
	}
	if s, errs := vision.Compare(dice, labels(truth)); s.Wrong+s.Extra > 0 || s.Right < len(truth)-2 {
		t.Errorf("through image.Image: %v %v; want none wrong and all but two right", s, errs)
	}
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(img, &gray, gocv.ColorBGRToGray)
	if _, err := r.Read(gray); err != nil {
		t.Errorf("gray image: %v", err)
	}
	_ = image.Point{}
}

// TestLargeImage reads a 4K frame, which the reader scales down.
func TestLargeImage(t *testing.T) {
	if runtime.GOARCH == "arm" {
		t.Skip("slow on 32-bit ARM")
	}
	s := synth.Random(5, synth.RandomOptions{Width: 3200, Height: 1800, Dice: 12, DieSize: 120, Clean: true})
	img, truth, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	dice, err := visiontest.NewReader(t, vision.Options{}).Read(img)
	if err != nil {
		t.Fatal(err)
	}
	score, errs := vision.Compare(dice, labels(truth))
	if score.Wrong+score.Extra > 0 || score.Right < len(truth)-3 {
		t.Errorf("%v: %v; want none confidently wrong and all but three right", score, errs)
	}
}

func nearest(dice []vision.Die, want vision.Die) (vision.Die, bool) {
	best, bd := vision.Die{}, math.Inf(1)
	for _, d := range dice {
		if dd := math.Hypot(d.X-want.X, d.Y-want.Y); dd < bd {
			best, bd = d, dd
		}
	}
	return best, bd < want.Size/2
}

// TestDiceHints: with StarDice a lone mark is the star, whatever its
// shape; with PlainDice a star-like face is a 1 flagged uncertain.
func TestDiceHints(t *testing.T) {
	scene, names := faceScene(12, synth.Tables[0], synth.Palettes[0])
	img, truth, err := synth.Render(scene)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	for _, tc := range []struct {
		opts vision.Options
		want func(face int, star bool) (int, bool, bool) // face, star, uncertain
	}{
		{vision.Options{StarDice: true}, func(f int, s bool) (int, bool, bool) { return f, f == 1, false }},
		{vision.Options{PlainDice: true}, func(f int, s bool) (int, bool, bool) { return f, false, s }},
	} {
		dice, err := visiontest.NewReader(t, tc.opts).Read(img)
		if err != nil {
			t.Fatal(err)
		}
		for i, seen := range truth {
			got, ok := nearest(dice, seen)
			if !ok {
				t.Errorf("%+v: %s: not found", tc.opts, names[i])
				continue
			}
			face, star, mustDoubt := tc.want(seen.Face, seen.Star)
			if got.Face != face || got.Star != star || (mustDoubt && !got.Uncertain) {
				t.Errorf("%+v: %s: got %v; want face %d star %v uncertain %v", tc.opts, names[i], got, face, star, mustDoubt)
			}
		}
	}
}
