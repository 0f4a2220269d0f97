package calibration

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// Dice learns the table's dice from a calibration roll: the installer lays
// one row of dice showing, left to right, the star (or 1), 2, 3, 4, 5 and
// 6, and a row like it for each other kind of die at the table. It keeps
// the dice's size in pixels, their colours and the star's artwork.
func (s *Session) Dice() error {
	s.say("Dice: lay a row of six dice showing, left to right, the star, 2, 3, 4, 5 and 6 (one row per kind of die, rows one under the other).")
	img, err := s.capture("Calibration roll laid out?")
	if err != nil {
		return err
	}
	defer img.Close()
	o := s.File.VisionOptions()
	o.Unknown = true // the row's star may be an artwork the networks never saw
	reader, err := vision.NewReader(o)
	if err != nil {
		return fmt.Errorf("calibration: %w", err)
	}
	defer reader.Close()
	dice, err := reader.Read(img)
	if err != nil {
		return err
	}
	rows, err := calibrationRows(dice)
	if err != nil {
		return err
	}
	d := &Dice{}
	if s.File.Dice != nil {
		d.MinConfidence = s.File.Dice.MinConfidence
	}
	var sizes []float64
	misread, contradicted := 0, 0
	for r, row := range rows {
		for i, die := range row {
			sizes = append(sizes, die.Size)
			if i > 0 && (die.Uncertain || die.Face != i+1) {
				misread++
				s.say("  row %d: the die showing %d reads as %v", r+1, i+1, die)
				if !die.Uncertain {
					contradicted++
				}
			}
		}
	}
	// A face the reader is sure is another one says the row was laid out
	// otherwise than asked: its templates would teach the wrong faces.
	if contradicted > 0 {
		err := fmt.Errorf("calibration: %d of the numbered dice read surely as another face: lay each row as the star, 2, 3, 4, 5, 6 from left to right and run this step again", contradicted)
		if s.In == nil {
			return err
		}
		s.say("  %v", err)
		answer, aerr := s.ask("Are the rows laid out as asked all the same (keep this roll)? [y/N]")
		if aerr != nil {
			return aerr
		}
		if !strings.EqualFold(answer, "y") && !strings.EqualFold(answer, "yes") {
			return err
		}
	}
	for r, row := range rows {
		for i, die := range row {
			t, err := vision.LearnFaceTemplate(img, die, i+1)
			if err != nil {
				return fmt.Errorf("calibration: face %d of row %d: %w", i+1, r+1, err)
			}
			d.Templates = append(d.Templates, t)
		}
		body, pips := dieColours(img, row[5]) // the 6 shows the most pips
		d.Body, d.Pips = append(d.Body, body), append(d.Pips, pips)
	}
	sort.Float64s(sizes)
	d.SizePx = sizes[len(sizes)/2]
	s.File.Dice = d
	s.say("  %d kind(s) of dice, %.0f px across; every face and the star's artwork learned", len(rows), d.SizePx)
	if unsure := misread - contradicted; unsure > 0 {
		s.say("  %d of the numbered dice read uncertain before this step: if 'liarsd calibrate check' still finds doubts, check the light and the camera's focus", unsure)
	}
	return nil
}

// calibrationRows groups the dice of a calibration roll into rows of six,
// each sorted left to right.
func calibrationRows(dice []vision.Die) ([][]vision.Die, error) {
	if len(dice) == 0 || len(dice)%6 != 0 {
		return nil, fmt.Errorf("calibration: found %d dice; lay out rows of six (the star, 2, 3, 4, 5, 6)", len(dice))
	}
	sorted := slices.Clone(dice)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Y < sorted[j].Y })
	var rows [][]vision.Die
	for i := 0; i < len(sorted); i += 6 {
		row := slices.Clone(sorted[i : i+6])
		sort.Slice(row, func(a, b int) bool { return row[a].X < row[b].X })
		rows = append(rows, row)
	}
	return rows, nil
}

// dieColours samples a die's body (its face, most of the patch) and pips
// (the pixels furthest from the body) as RGB.
func dieColours(img gocv.Mat, d vision.Die) (body, pips [3]uint8) {
	x0, y0 := int(d.X-d.Size*0.35), int(d.Y-d.Size*0.35)
	n := int(d.Size * 0.7)
	if x0 < 0 || y0 < 0 || x0+n > img.Cols() || y0+n > img.Rows() || img.Channels() != 3 {
		return
	}
	var px []color.RGBA
	for y := y0; y < y0+n; y++ {
		for x := x0; x < x0+n; x++ {
			v := img.GetVecbAt(y, x)
			px = append(px, color.RGBA{R: v[2], G: v[1], B: v[0]})
		}
	}
	median := func(c []color.RGBA) [3]uint8 {
		var r, g, b []int
		for _, p := range c {
			r, g, b = append(r, int(p.R)), append(g, int(p.G)), append(b, int(p.B))
		}
		sort.Ints(r)
		sort.Ints(g)
		sort.Ints(b)
		return [3]uint8{uint8(r[len(r)/2]), uint8(g[len(g)/2]), uint8(b[len(b)/2])}
	}
	body = median(px)
	dist := func(p color.RGBA) int {
		return abs(int(p.R)-int(body[0])) + abs(int(p.G)-int(body[1])) + abs(int(p.B)-int(body[2]))
	}
	sort.Slice(px, func(i, j int) bool { return dist(px[i]) > dist(px[j]) })
	pips = median(px[:max(1, len(px)/10)])
	return body, pips
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Reader reads a calibrated table's dice: the vision reader with the
// table's die size and thresholds, then the table's faces and star artwork.
type Reader struct {
	reader *vision.Reader
	faces  *vision.FaceMatcher
	// plain is set for plain dice (vision.Options.PlainDice): the face
	// the dice step learned as the star is then their plain 1.
	plain bool
}

// NewReader returns the reader for this table.
func (f *File) NewReader() (*Reader, error) { return f.ReaderWith(f.VisionOptions()) }

// ReaderWith returns the reader for this table with other reader options
// (a configuration's overrides of the calibration's), the table's face
// templates and its empty board (the background step's image).
func (f *File) ReaderWith(o vision.Options) (*Reader, error) {
	if o.Background == nil && f.Background != "" {
		bg, err := f.LoadBackground()
		if err != nil {
			return nil, err
		}
		o.Background = bg
	}
	r := &Reader{plain: o.PlainDice}
	if f.Dice != nil && len(f.Dice.Templates) > 0 {
		m, err := vision.NewFaceMatcher(f.Dice.Templates)
		if err != nil {
			return nil, fmt.Errorf("calibration: %w", err)
		}
		r.faces = m
		// The table's star may be an artwork the networks never saw: its
		// dice are kept, in doubt, for the templates to read, and a die
		// no template reads is left to the operator rather than missed.
		o.Unknown = true
	}
	vr, err := vision.NewReader(o)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	r.reader = vr
	return r, nil
}

// Close frees the reader's networks.
func (r *Reader) Close() error { return r.reader.Close() }

// Read finds and reads every die in img.
func (r *Reader) Read(img gocv.Mat) ([]vision.Die, error) {
	dice, err := r.reader.Read(img)
	if err != nil || r.faces == nil {
		return dice, err
	}
	dice = r.faces.Recheck(img, dice, vision.DefaultStarMatch)
	for i, d := range dice {
		if d.Reason == vision.ReasonUnknown && !d.Uncertain {
			dice[i].Reason = "" // the table's own star, read by its template
		}
	}
	if r.plain {
		// The calibration roll's first die was a plain 1: a die that fits
		// it is a 1, not a star.
		for i := range dice {
			dice[i].Star = false
		}
	}
	return dice, nil
}

// Report is how well the table reads now.
type Report struct {
	Found, Confident, Uncertain int
	// Expected is the number of dice the installer laid out (0: not said).
	Expected int
	Faces    map[int]int
}

// Healthy reports whether every die was found and read confidently.
func (r Report) Healthy() bool {
	return r.Found > 0 && r.Uncertain == 0 && (r.Expected == 0 || r.Found == r.Expected)
}

func (r Report) String() string {
	verdict := "ready"
	if !r.Healthy() {
		verdict = "needs attention"
	}
	exp := ""
	if r.Expected > 0 {
		exp = fmt.Sprintf(" of %d laid out", r.Expected)
	}
	return fmt.Sprintf("%d dice found%s, %d read confidently, %d uncertain: %s", r.Found, exp, r.Confident, r.Uncertain, verdict)
}

// Check reads a test roll with the table's calibration and reports how
// well it reads: a quick health check for a venue before opening.
func (s *Session) Check(expected int) (Report, error) {
	img, err := s.capture("Roll some dice onto the board.")
	if err != nil {
		return Report{}, err
	}
	defer img.Close()
	r, err := s.File.NewReader()
	if err != nil {
		return Report{}, err
	}
	dice, err := r.Read(img)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Found: len(dice), Expected: expected, Faces: map[int]int{}}
	for _, d := range dice {
		if d.Uncertain {
			rep.Uncertain++
			continue
		}
		rep.Confident++
		rep.Faces[d.Face]++
	}
	s.say("  %s", rep)
	if rep.Found == 0 {
		return rep, errors.New("calibration: no dice found: is the camera on the board?")
	}
	return rep, nil
}

// LoadBackground reads the background step's image of the empty board,
// for the reader's segmentation. A file without one gives nil.
func (f *File) LoadBackground() (*vision.Background, error) {
	if f.Background == "" {
		return nil, nil
	}
	path := f.Background
	if !filepath.IsAbs(path) {
		path = filepath.Join(f.dir, path)
	}
	img := gocv.IMRead(path, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		return nil, fmt.Errorf("calibration: cannot read the background image %s: run liarsd calibrate background again", path)
	}
	bg, err := vision.NewBackground(img)
	if err != nil {
		return nil, fmt.Errorf("calibration: background image %s: %w", path, err)
	}
	return bg, nil
}
