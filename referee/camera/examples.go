package camera

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/vision"
)

// ExamplesHeader is the first line of an examples folder's labels.csv: the
// form of the labelled dice photographs the reader is trained on.
const ExamplesHeader = "split,image,face,xmin,ymin,xmax,ymax"

// ExamplesInfo is what an examples folder's examples.json says of its dice.
type ExamplesInfo struct {
	Table string `json:"table"`
	// StarDice reports that a face 1 in labels.csv is the star.
	StarDice bool `json:"star_dice"`
}

// Examples keeps each reveal's frame with the dice finally accepted for it
// (after any correction) as labelled training examples, in the form of
// the dice photographs (labels.csv beside a train/ folder of images), so
// that a table can retrain its reader on its own dice and light. An
// example is written once the table has moved on (the next accepted
// input that is not a correction, or Close); a frame whose dice cannot be
// matched to the accepted faces without guessing is not written. It is
// safe for concurrent use.
type Examples struct {
	dir  string
	info ExamplesInfo

	mu      sync.Mutex
	pending *example
	written int
	skipped int
}

// example is a frame, its read and the dice accepted for it.
type example struct {
	name  string
	frame gocv.Mat
	read  []vision.Die
	zones Zones
	final map[string][]int
	// unconfirmed reports that final holds stand-ins for dice the camera
	// did not read for sure (a reveal settled in doubt): until a
	// correction names every face, the example is not kept.
	unconfirmed bool
}

// OpenExamples makes dir (and dir/train) if needed and writes
// examples.json; starDice says that the table's 1 face is the star.
func OpenExamples(dir, table string, starDice bool) (*Examples, error) {
	if err := os.MkdirAll(filepath.Join(dir, "train"), 0o755); err != nil {
		return nil, fmt.Errorf("camera: examples: %w", err)
	}
	info := ExamplesInfo{Table: table, StarDice: starDice}
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "examples.json"), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("camera: examples: %w", err)
	}
	return &Examples{dir: dir, info: info}, nil
}

// Dir returns the folder the examples are written to.
func (e *Examples) Dir() string { return e.dir }

// Counts returns how many examples were written and how many frames were
// skipped (their dice could not be labelled without guessing).
func (e *Examples) Counts() (written, skipped int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.written, e.skipped
}

// accept takes an accepted record line. A reveal or opening roll with a
// frame becomes the pending example (frame is taken, and closed by e); a
// correction replaces the pending example's dice; any other line writes
// the pending example out, unless its reveal has dice the camera did not
// read for sure and no correction named them: an unconfirmed die's face
// is a stand-in, never a label. It returns an error only when writing failed.
func (e *Examples) accept(a engine.Action, name string, frame *gocv.Mat, read []vision.Die, zones Zones) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if a.Type == engine.ActCorrect { // an example waits for it until the table moves on
		if e.pending != nil {
			e.pending.final, e.pending.unconfirmed = a.Dice, false
		}
		if frame != nil {
			frame.Close()
		}
		return nil
	}
	err := e.flushLocked()
	if (a.Type == engine.ActReveal || a.Type == engine.ActOpeningRoll) && frame != nil {
		e.pending = &example{name: name, frame: *frame, read: read, zones: zones, final: a.Dice, unconfirmed: len(a.Unconfirmed) > 0}
	} else if frame != nil {
		frame.Close()
	}
	return err
}

// Close writes the pending example out.
func (e *Examples) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.flushLocked()
}

func (e *Examples) flushLocked() error {
	p := e.pending
	if p == nil {
		return nil
	}
	e.pending = nil
	defer p.frame.Close()
	labels, ok := LabelRead(p.read, p.zones, p.final)
	if p.unconfirmed || !ok || len(labels) == 0 {
		e.skipped++
		return nil
	}
	image := p.name + ".jpg"
	if err := writeJPEG(filepath.Join(e.dir, "train", image), p.frame); err != nil {
		return fmt.Errorf("camera: examples: %w", err)
	}
	path := filepath.Join(e.dir, "labels.csv")
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("camera: examples: %w", err)
	}
	w := csv.NewWriter(f)
	if errors.Is(statErr, os.ErrNotExist) {
		_ = w.Write([]string{"split", "image", "face", "xmin", "ymin", "xmax", "ymax"})
	}
	for _, l := range labels {
		_ = w.Write([]string{"train", image, strconv.Itoa(l.Face), f2(l.XMin), f2(l.YMin), f2(l.XMax), f2(l.YMax)})
	}
	w.Flush()
	err = errors.Join(w.Error(), f.Sync(), f.Close())
	if err != nil {
		return fmt.Errorf("camera: examples: %w", err)
	}
	e.written++
	return nil
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// writeJPEG writes img to path through a temporary file, so that a crash
// never leaves half an image that labels.csv names.
func writeJPEG(path string, img gocv.Mat) error {
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, 95})
	if err != nil {
		return err
	}
	defer buf.Close()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.GetBytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Label is one die of an example: its face and its box in the frame.
type Label struct {
	Face                   int
	XMin, YMin, XMax, YMax float64
}

// LabelRead gives each die of a read the face it finally had, from final,
// the faces accepted for each seat (after any correction). A die read
// confidently keeps its face when final holds it; the rest of a seat's
// faces go to its other dice only when that is no guess: one die left, or
// every face left the same. It reports false, and no labels, when any die
// cannot be labelled so: a die outside every seat or at a seat final does
// not name, a seat whose count of dice differs from final's (a die missed
// or invented), or a seat whose faces left could go more than one way.
func LabelRead(read []vision.Die, zones Zones, final map[string][]int) ([]Label, bool) {
	if zones == nil {
		return nil, false
	}
	bySeat := map[string][]int{} // indexes into read
	for i, d := range read {
		seat, ok := zones.SeatOf(d)
		if !ok {
			return nil, false
		}
		if _, named := final[seat]; !named {
			return nil, false
		}
		bySeat[seat] = append(bySeat[seat], i)
	}
	faces := make([]int, len(read))
	for seat, want := range final {
		idx := bySeat[seat]
		if len(idx) != len(want) {
			return nil, false
		}
		left := slices.Clone(want)
		var open []int
		for _, i := range idx {
			d := read[i]
			if k := slices.Index(left, d.Face); !d.Uncertain && d.Face >= 1 && k >= 0 {
				faces[i] = d.Face
				left = slices.Delete(left, k, k+1)
				continue
			}
			open = append(open, i)
		}
		if len(open) == 0 {
			continue
		}
		slices.Sort(left)
		if len(open) > 1 && left[0] != left[len(left)-1] {
			return nil, false
		}
		for _, i := range open {
			faces[i] = left[0]
		}
	}
	labels := make([]Label, len(read))
	for i, d := range read {
		h := d.Size / 2
		labels[i] = Label{Face: faces[i], XMin: d.X - h, YMin: d.Y - h, XMax: d.X + h, YMax: d.Y + h}
	}
	return labels, true
}
