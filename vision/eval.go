package vision

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gocv.io/x/gocv"
)

// Label is one die of a labelled photograph: its face and bounding box.
type Label struct {
	Split string
	Image string
	Face  int
	Star  bool
	Box   Box
}

// Box is an axis-aligned box in pixels.
type Box struct{ MinX, MinY, MaxX, MaxY float64 }

// ParseLabels parses a labels file: a header line, then
// "split,image,face,xmin,ymin,xmax,ymax" rows. A face of "star" (or "*")
// is the star.
func ParseLabels(r io.Reader) ([]Label, error) {
	rows, err := readLabelRows(r, 7, "labels")
	if err != nil {
		return nil, err
	}
	out := make([]Label, 0, len(rows))
	for i, row := range rows {
		l, err := parseLabel(row)
		if err != nil {
			return nil, fmt.Errorf("vision: labels line %d: %w", i+2, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// readLabelRows reads a CSV file of fields columns and drops its header.
func readLabelRows(r io.Reader, fields int, what string) ([][]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = fields
	cr.TrimLeadingSpace = true
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("vision: %s: %w", what, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("vision: %s: empty file", what)
	}
	return rows[1:], nil
}

// parseLabel parses the first seven fields of a labels row.
func parseLabel(row []string) (Label, error) {
	l := Label{Split: row[0], Image: row[1]}
	switch strings.ToLower(row[2]) {
	case "star", "*":
		l.Face, l.Star = 1, true
	default:
		f, err := strconv.Atoi(row[2])
		if err != nil || f < 1 || f > 6 {
			return Label{}, fmt.Errorf("bad face %q", row[2])
		}
		l.Face = f
	}
	var v [4]float64
	for j := range v {
		var err error
		if v[j], err = strconv.ParseFloat(row[3+j], 64); err != nil {
			return Label{}, err
		}
	}
	if v[2] <= v[0] || v[3] <= v[1] {
		return Label{}, errors.New("empty box")
	}
	l.Box = Box{v[0], v[1], v[2], v[3]}
	return l, nil
}

// ReadLabels reads the labels of a folder of labelled photographs: its
// labels.csv, as ParseLabels parses it. In a table's examples folder
// whose examples.json says star dice, a face 1 is the star.
func ReadLabels(dir string) ([]Label, error) {
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	defer f.Close()
	labels, err := ParseLabels(f)
	if err != nil {
		return nil, err
	}
	// A table's examples folder (camera.learn) says in examples.json
	// whether its dice carry the star on their 1 face.
	if b, err := os.ReadFile(filepath.Join(dir, "examples.json")); err == nil {
		var info struct {
			StarDice bool `json:"star_dice"`
		}
		if err := json.Unmarshal(b, &info); err != nil {
			return nil, fmt.Errorf("vision: %s: %w", filepath.Join(dir, "examples.json"), err)
		}
		for i := range labels {
			labels[i].Star = info.StarDice && labels[i].Face == 1
		}
	}
	return labels, nil
}

// Score tallies how a reader did against labelled dice.
type Score struct {
	Labelled int // labelled dice
	Right    int // read right and confidently
	Unsure   int // found and flagged uncertain
	Wrong    int // read wrong without an uncertain flag
	Missed   int // not found at all
	Extra    int // found where there is no die, not flagged uncertain
	ExtraOK  int // found where there is no die, flagged uncertain
}

// Add adds another score to s.
func (s *Score) Add(o Score) {
	s.Labelled += o.Labelled
	s.Right += o.Right
	s.Unsure += o.Unsure
	s.Wrong += o.Wrong
	s.Missed += o.Missed
	s.Extra += o.Extra
	s.ExtraOK += o.ExtraOK
}

// RightRate is the share of labelled dice read right and confidently.
func (s Score) RightRate() float64 { return ratio(s.Right, s.Labelled) }

// WrongRate is the share of confidently wrong reads, counting dice found
// where there is none, over the labelled dice.
func (s Score) WrongRate() float64 { return ratio(s.Wrong+s.Extra, s.Labelled) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// String formats the score for people.
func (s Score) String() string {
	return fmt.Sprintf("%d dice: %.2f%% right and confident, %.2f%% confidently wrong (%d wrong, %d phantom), %d uncertain, %d missed, %d uncertain phantoms",
		s.Labelled, 100*s.RightRate(), 100*s.WrongRate(), s.Wrong, s.Extra, s.Unsure, s.Missed, s.ExtraOK)
}

// Errors describes what went wrong on one image, for people tuning.
type Errors []string

// Match pairs each label with a found die: the nearest one, not paired
// yet, whose centre lies in the label's box. It returns, per label, the
// index of its die in found, or -1.
func Match(found []Die, labels []Label) []int {
	pairs := make([]int, len(labels))
	used := make([]bool, len(found))
	for li, l := range labels {
		cx, cy := (l.Box.MinX+l.Box.MaxX)/2, (l.Box.MinY+l.Box.MaxY)/2
		best, bd := -1, math.Inf(1)
		for i, d := range found {
			if used[i] || d.X < l.Box.MinX || d.X > l.Box.MaxX || d.Y < l.Box.MinY || d.Y > l.Box.MaxY {
				continue
			}
			if dd := math.Hypot(d.X-cx, d.Y-cy); dd < bd {
				best, bd = i, dd
			}
		}
		pairs[li] = best
		if best >= 0 {
			used[best] = true
		}
	}
	return pairs
}

// Compare matches found dice to labelled ones (Match) and scores the
// reads: a die no label holds counts as an extra, a confident one as a
// confident error.
func Compare(found []Die, labels []Label) (Score, Errors) {
	s := Score{Labelled: len(labels)}
	var errs Errors
	pairs := Match(found, labels)
	used := make([]bool, len(found))
	for li, l := range labels {
		best := pairs[li]
		if best < 0 {
			cx, cy := (l.Box.MinX+l.Box.MaxX)/2, (l.Box.MinY+l.Box.MaxY)/2
			s.Missed++
			errs = append(errs, fmt.Sprintf("missed %d at (%.0f,%.0f)", l.Face, cx, cy))
			continue
		}
		used[best] = true
		d := found[best]
		switch {
		case d.Uncertain:
			s.Unsure++
			errs = append(errs, fmt.Sprintf("uncertain %v (is %d): %s", d, l.Face, d.Reason))
		case d.Face == l.Face && d.Star == l.Star:
			s.Right++
		default:
			s.Wrong++
			errs = append(errs, fmt.Sprintf("WRONG %v (is %d star=%v)", d, l.Face, l.Star))
		}
	}
	for i, d := range found {
		if used[i] {
			continue
		}
		if d.Uncertain {
			s.ExtraOK++
			errs = append(errs, fmt.Sprintf("uncertain phantom %v", d))
		} else {
			s.Extra++
			errs = append(errs, fmt.Sprintf("PHANTOM %v", d))
		}
	}
	return s, errs
}

// Annotate draws the dice on img: a box per die, green when confident and
// red when uncertain, with the face read.
func Annotate(img *gocv.Mat, dice []Die) {
	for _, d := range dice {
		c := color.RGBA{0, 200, 0, 255}
		if d.Uncertain {
			c = color.RGBA{0, 0, 255, 255}
		}
		h := d.Size / 2
		r := image.Rect(int(d.X-h), int(d.Y-h), int(d.X+h), int(d.Y+h))
		gocv.Rectangle(img, r, c, 1)
		txt := strconv.Itoa(d.Face)
		if d.Star {
			txt = "*"
		}
		gocv.PutText(img, txt, image.Pt(r.Min.X, r.Min.Y-2), gocv.FontHersheySimplex, 0.45, c, 1)
	}
}
