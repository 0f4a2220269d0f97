package vision

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The reader's networks, trained by vision/recipe/train.py (make train)
// and exported to ONNX, and the bars its decision uses, chosen on the
// photographs the recipe held out by `liarsd readtrain` (-models, -o).
var (
	//go:embed model/finder.onnx
	finderONNX []byte
	//go:embed model/faces.onnx
	facesONNX []byte
	//go:embed model/reader.json
	readerJSON []byte
)

// Models are the reader's learned parts: the dice finder and the face
// classifier (ONNX, run by OpenCV's DNN module) and the bars of its
// decision. The embedded set is the default; LoadModels reads another, to
// measure a retrained set before committing it.
type Models struct {
	Finder []byte
	Faces  []byte
	Bars   Bars
}

// Bars are the probabilities the reader's decision turns on, chosen on
// held-out photographs (never on test/) for the networks they go with.
type Bars struct {
	// Found is the finder's probability above which a place is a die to
	// read; a place between Candidate and Found is read too but kept only
	// when its face is read confidently.
	Found     float64 `json:"found"`
	Candidate float64 `json:"candidate"`
	// Agreed is the face classifier's probability at or above which its
	// read is confident when the pip counter reads the same face; Alone is
	// the one when the pip counter cannot make the face out. A read the
	// pip counter contradicts is never confident.
	Agreed float64 `json:"agreed"`
	Alone  float64 `json:"alone"`
	// None is the classifier's probability of "no die" at or above which
	// a place is dropped (unless the finder is sure of it: then it is
	// reported uncertain).
	None float64 `json:"none"`
	// Possible is the face classifier's probability at or above which a
	// face is one a die in doubt may show (Die.Likely): readtrain chooses
	// it on held-out dice so that no die in doubt's true face falls
	// under it. A reader.json without it takes DefaultPossible.
	Possible float64 `json:"possible,omitempty"`
	// Turns is how many ways a die the classifier is not sure of is read
	// (its window turned by quarter turns, the reads averaged): 1 reads
	// each die once. readtrain chooses it with the other bars; a
	// reader.json without it reads once.
	Turns int `json:"turns,omitempty"`
}

// DefaultPossible is the Possible bar of a reader.json that names none.
const DefaultPossible = 1e-3

// validate says what is wrong with b, if anything.
func (b Bars) validate() error {
	for _, v := range []struct {
		name string
		p    float64
	}{{"found", b.Found}, {"candidate", b.Candidate}, {"agreed", b.Agreed}, {"alone", b.Alone}, {"none", b.None}} {
		if !(v.p > 0 && v.p < 1) {
			return fmt.Errorf("vision: bar %s is %v (want a probability between 0 and 1)", v.name, v.p)
		}
	}
	if b.Turns < 0 || b.Turns > 4 {
		return fmt.Errorf("vision: turns %d is not 1 to 4", b.Turns)
	}
	if b.Possible < 0 || b.Possible >= 0.5 {
		return fmt.Errorf("vision: bar possible %v is not from 0 to 0.5", b.Possible)
	}
	if b.Candidate > b.Found {
		return fmt.Errorf("vision: bar candidate %v is above found %v", b.Candidate, b.Found)
	}
	if b.Agreed > b.Alone {
		return fmt.Errorf("vision: bar agreed %v is above alone %v", b.Agreed, b.Alone)
	}
	return nil
}

// ParseBars parses the bars' JSON (model/reader.json).
func ParseBars(data []byte) (Bars, error) {
	var b Bars
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Bars{}, fmt.Errorf("vision: bars: %w", err)
	}
	if b.Possible == 0 {
		b.Possible = DefaultPossible
	}
	return b, b.validate()
}

// defaultModels are the embedded ones.
func defaultModels() (*Models, error) {
	bars, err := ParseBars(readerJSON)
	if err != nil {
		return nil, err
	}
	return &Models{Finder: finderONNX, Faces: facesONNX, Bars: bars}, nil
}

// LoadModels reads finder.onnx, faces.onnx and reader.json from dir, as
// make train writes them. A missing reader.json takes the embedded bars.
func LoadModels(dir string) (*Models, error) {
	m := &Models{}
	var err error
	if m.Finder, err = os.ReadFile(filepath.Join(dir, "finder.onnx")); err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	if m.Faces, err = os.ReadFile(filepath.Join(dir, "faces.onnx")); err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	bars, err := os.ReadFile(filepath.Join(dir, "reader.json"))
	if errors.Is(err, os.ErrNotExist) {
		bars = readerJSON
	} else if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	if m.Bars, err = ParseBars(bars); err != nil {
		return nil, err
	}
	return m, nil
}
