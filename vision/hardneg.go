package vision

import (
	"fmt"

	"gocv.io/x/gocv"
)

// hardNegativeMiss is how far (over the labelled die's side) a candidate's
// centre must be from every labelled die to be no die at all.
const hardNegativeMiss = 0.6

// mineHardNegatives runs the reader's dice finder and segmentation over
// each photograph of tables, as a read would, and keeps the candidates
// that are no labelled die in t.hard: the tray's holes, shadows and
// reflections the finder mistakes for dice. The face network learns them
// as "not a die"; random windows of the table seldom land on them. It
// returns how many it found.
func mineHardNegatives(tables []trainTable, finderNet *network, rules *faceModel) (int, error) {
	r := NewReader(Options{})
	r.model, r.finder = rules, newFinder(finderNet)
	// The committed face networks learned the places of the finder's
	// first look; mining its second look too (twice as many places)
	// would train other networks than the ones make train remakes.
	r.finder.smaller = 0
	total := 0
	for i := range tables {
		t := &tables[i]
		if !t.photo {
			// Synthetic tables hold nothing but dice, shadows and their
			// texture; random windows cover them.
			continue
		}
		found, err := r.candidatePlaces(t)
		if err != nil {
			return total, err
		}
		t.hard = t.hard[:0]
		for _, c := range found {
			if !nearDieCentre(t, c.x, c.y, hardNegativeMiss) {
				t.hard = append(t.hard, truthDie{x: c.x, y: c.y, size: c.size, class: classNotADie})
			}
		}
		total += len(t.hard)
	}
	return total, nil
}

// candidatePlaces is every place a read of t would look at: the finder's
// candidates and the segmentation's regions, in t's pixels.
func (r *Reader) candidatePlaces(t *trainTable) ([]finderCandidate, error) {
	img, err := gocv.NewMatFromBytes(t.h, t.w, gocv.MatTypeCV8UC3, t.pix)
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	defer img.Close()
	sc, err := detect(img, 0, nil)
	if err != nil {
		return nil, err
	}
	defer sc.bgr.Close()
	found, rules, err := r.look(sc)
	if err != nil {
		return nil, err
	}
	for _, rd := range rules {
		found = append(found, finderCandidate{x: rd.X, y: rd.Y, size: rd.Size})
	}
	for i := range found {
		found[i].x, found[i].y, found[i].size = found[i].x/sc.scale, found[i].y/sc.scale, found[i].size/sc.scale
	}
	return found, nil
}
