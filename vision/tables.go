package vision

import (
	"fmt"
	"path/filepath"

	"gocv.io/x/gocv"
)

// trainTable is one training image held in memory: BGR pixels and the
// dice on it.
type trainTable struct {
	pix   []byte
	w, h  int
	dice  []truthDie
	photo bool       // a real photograph (rather than a synthetic table)
	hard  []truthDie // places the dice finder mistakes for dice (see mineHardNegatives)
}

// truthDie is a labelled die: its centre and side in pixels and its class
// (0-5 faces 1-6, 6 the star, classUnreadable when no face can be read).
type truthDie struct {
	x, y, size float64
	class      int
}

// Classes of the face network.
const (
	classStar       = 6
	classNotADie    = 7
	classUnreadable = 8 // a die whose face cannot be read: cocked, half hidden
	faceNetClasses  = 9
)

// newTrainTable copies img (BGR) and its labels.
func newTrainTable(img gocv.Mat, labels []Label, photo bool) (trainTable, error) {
	if img.Type() != gocv.MatTypeCV8UC3 {
		return trainTable{}, fmt.Errorf("vision: training image of type %v (want BGR)", img.Type())
	}
	pix, err := img.DataPtrUint8()
	if err != nil {
		return trainTable{}, fmt.Errorf("vision: %w", err)
	}
	t := trainTable{pix: append([]byte(nil), pix...), w: img.Cols(), h: img.Rows(), photo: photo}
	for _, l := range labels {
		class := l.Face - 1
		switch {
		case l.Face == 0:
			class = classUnreadable
		case l.Star:
			class = classStar
		}
		b := l.Box
		t.dice = append(t.dice, truthDie{x: (b.MinX + b.MaxX) / 2, y: (b.MinY + b.MaxY) / 2,
			size: ((b.MaxX - b.MinX) + (b.MaxY - b.MinY)) / 2, class: class})
	}
	return t, nil
}

// loadTrainTables loads what o names: the train/ split's photographs and
// the synthetic tables.
func loadTrainTables(o TrainOptions) ([]trainTable, error) {
	var tables []trainTable
	if o.Photos != "" {
		byImage, names, err := trainLabels(o.Photos, o.Exclude, o.LabelFixes)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			img, err := LoadImage(filepath.Join(o.Photos, "train", name))
			if err != nil {
				return nil, err
			}
			t, err := newTrainTable(img, byImage[name], true)
			img.Close()
			if err != nil {
				return nil, err
			}
			tables = append(tables, t)
		}
		o.logf("photos: %d train/ images", len(names))
	}
	if o.Synthetic > 0 {
		_, err := eachSyntheticTable(o, func(img gocv.Mat, labels []Label) (int, error) {
			t, err := newTrainTable(img, labels, false)
			tables = append(tables, t)
			return len(labels), err
		})
		if err != nil {
			return nil, err
		}
		o.logf("synthetic: %d tables", o.Synthetic)
	}
	return tables, nil
}
