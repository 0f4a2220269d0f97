package vision

import (
	"errors"
	"fmt"
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
		nr := NetworkRead{Face: l.Face, P: v.p}
		switch {
		case v.class == classStar:
			nr.Read = 1
		case v.class < classStar:
			nr.Read = v.class + 1
		}
		reads = append(reads, nr)
	}
	return reads, nil
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
