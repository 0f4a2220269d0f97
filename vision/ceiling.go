package vision

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// The ceiling measure asks how far any decision built on the face
// network's probability could go: it reads each labelled die at its
// labelled box (no finder, no rules) and ranks the reads by the network's
// certainty. When the reader's figure sits near this ceiling, thresholds
// cannot raise it; only a better network can.

// NetworkRead is the face network's read of one labelled die at its box.
type NetworkRead struct {
	Face int     // the labelled face, 1-6
	Read int     // the network's likeliest face (its star counts as 1), 0 when that is no face
	P    float64 // the network's probability of Read, averaged over its nets and views
}

// NetworkReads runs the reader's face network, as it looks at a die it is
// unsure of (every net, every quarter turn), on each labelled die of img
// at the centre and side of its box. Labels with no face (0) are skipped.
func (r *Reader) NetworkReads(img gocv.Mat, labels []Label) ([]NetworkRead, error) {
	if r.learned == nil {
		return nil, errors.New("vision: the reader has no face network")
	}
	if err := checkImage(img); err != nil {
		return nil, err
	}
	bgr, scale := workImage(img)
	defer bgr.Close()
	pix, err := bgr.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	reads := make([]NetworkRead, 0, len(labels))
	for _, l := range labels {
		if l.Face < 1 || l.Face > 6 {
			continue
		}
		b := l.Box
		v := r.learned.faces.read(r.faces, pix, bgr.Cols(), bgr.Rows(), scale*(b.MinX+b.MaxX)/2, scale*(b.MinY+b.MaxY)/2,
			scale*((b.MaxX-b.MinX)+(b.MaxY-b.MinY))/2, faceNetViews)
		reads = append(reads, networkRead(l.Face, v))
	}
	return reads, nil
}

// FinderReads is NetworkReads at the boxes the reader's dice finder puts
// on img, where a read starts, instead of the labelled ones: each labelled
// die is read at the finder's nearest candidate within half its side,
// every net at every quarter turn, and closer and wider as the reader
// looks at a die it is unsure of. A die the finder has no candidate for is
// a read of no face. The difference from NetworkReads is what the finder's
// centres and sizes cost the network.
func (r *Reader) FinderReads(img gocv.Mat, labels []Label) ([]NetworkRead, error) {
	if r.learned == nil {
		return nil, errors.New("vision: the reader has no face network")
	}
	sc, err := r.prepare(img)
	if err != nil {
		return nil, err
	}
	defer sc.bgr.Close()
	cands, err := r.findDice(sc)
	if err != nil {
		return nil, err
	}
	w, h := sc.bgr.Cols(), sc.bgr.Rows()
	reads := make([]NetworkRead, 0, len(labels))
	for _, l := range labels {
		if l.Face < 1 || l.Face > 6 {
			continue
		}
		b := l.Box
		x, y := sc.scale*(b.MinX+b.MaxX)/2, sc.scale*(b.MinY+b.MaxY)/2
		best, bestDist := -1, sc.scale*((b.MaxX-b.MinX)+(b.MaxY-b.MinY))/4
		for i, c := range cands {
			if d := math.Hypot(c.x-x, c.y-y); d < bestDist {
				best, bestDist = i, d
			}
		}
		if best < 0 {
			reads = append(reads, NetworkRead{Face: l.Face})
			continue
		}
		c := cands[best]
		v := r.learned.faces.read(r.faces, sc.pix, w, h, c.x, c.y, c.size, faceNetViews)
		r.otherSizes(sc.pix, w, h, c, &v)
		reads = append(reads, networkRead(l.Face, v))
	}
	return reads, nil
}

// networkRead is the face network's verdict v on a die labelled face.
func networkRead(face int, v faceVerdict) NetworkRead {
	nr := NetworkRead{Face: face, P: v.p}
	switch {
	case v.class == classStar:
		nr.Read = 1
	case v.class < classStar:
		nr.Read = v.class + 1
	}
	return nr
}

// Ceiling is what a decision that trusts the face network above one
// probability, and flags every die below it, would score on some reads.
type Ceiling struct {
	Dice int
	// FirstRight is the share of dice whose likeliest face is right.
	FirstRight float64
	// Confident is the largest share of dice read right above a threshold
	// under which at most the allowed share is read wrong; Wrong is that
	// share, and Threshold the lowest probability trusted.
	Confident, Wrong, Threshold float64
}

// RankCeiling sorts reads by probability and finds the lowest threshold at
// which the reads above it hold at most maxWrong (a share of all dice)
// wrong ones; a read of no face is never trusted, so never wrong. Reads of
// equal probability stand or fall together, as a threshold would take
// them.
func RankCeiling(reads []NetworkRead, maxWrong float64) Ceiling {
	c := Ceiling{Dice: len(reads), Threshold: 1}
	if len(reads) == 0 {
		return c
	}
	sorted := append([]NetworkRead(nil), reads...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].P > sorted[j].P })
	n := float64(len(sorted))
	right, wrong := 0, 0
	for i, nr := range sorted {
		switch {
		case nr.Read == nr.Face:
			right++
		case nr.Read != 0:
			// A read of no face is flagged, not wrong.
			wrong++
		}
		if i+1 < len(sorted) && sorted[i+1].P == nr.P {
			continue
		}
		if float64(wrong)/n <= maxWrong {
			c.Confident, c.Wrong, c.Threshold = float64(right)/n, float64(wrong)/n, nr.P
		}
	}
	c.FirstRight = float64(right) / n // every read, trusted or not
	return c
}
