package vision

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// The learned face classifier: a small neural network (one hidden layer)
// that reads a face from its distance-from-body map, sampled upright
// around the face's centre. It is a second, independent reader: the
// reader trusts a face when the rules and the network agree. Its weights
// are in model/face.json; `liarsd readtrain` makes them again from the
// train/ split of the labelled photographs and synthetic tables.

// featureSide is the side of the sampled map; the face spans featureFace
// of it.
const (
	featureSide = 20
	featureFace = 15
	classes     = 7 // faces 1-6, and the star
)

// faceFeatures samples the face's map, upright along its own sides and
// then turned by angle radians, into out (featureSide squared values in
// 0-1).
func faceFeatures(fr faceRead, angle float64, out []float32) {
	angle += fr.angle
	step := fr.side / featureFace
	ca, sa := math.Cos(angle)*step, math.Sin(angle)*step
	t := float64(max(fr.threshold, 1))
	for j := 0; j < featureSide; j++ {
		v := float64(j) - featureSide/2 + 0.5
		for i := 0; i < featureSide; i++ {
			u := float64(i) - featureSide/2 + 0.5
			x := fr.cx + u*ca - v*sa
			y := fr.cy + u*sa + v*ca
			out[j*featureSide+i] = float32(math.Min(bilinear(fr.dist, fr.w, fr.h, x, y)/t, 2) / 2)
		}
	}
}

func bilinear(m []uint8, w, h int, x, y float64) float64 {
	if x < 0 || y < 0 || x > float64(w-1) || y > float64(h-1) {
		return 0
	}
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	a := float64(m[y0*w+x0])*(1-fx) + float64(m[y0*w+x1])*fx
	b := float64(m[y1*w+x0])*(1-fx) + float64(m[y1*w+x1])*fx
	return a*(1-fy) + b*fy
}

// faceModel is the network's weights.
type faceModel struct {
	Inputs, Hidden int
	W1             []float32 // Hidden x Inputs
	B1             []float32
	W2             []float32 // classes x Hidden
	B2             []float32
	// Trained records how the weights were made.
	Trained string
}

//go:embed model/face.json
var faceModelJSON []byte

// defaultModel is the embedded model, or nil when none is embedded yet.
var defaultModel = func() *faceModel {
	var m faceModel
	if err := json.Unmarshal(faceModelJSON, &m); err != nil || m.Hidden == 0 {
		return nil
	}
	return &m
}()

func newFaceModel(inputs, hidden int, seed uint64) *faceModel {
	m := &faceModel{Inputs: inputs, Hidden: hidden,
		W1: make([]float32, hidden*inputs), B1: make([]float32, hidden),
		W2: make([]float32, classes*hidden), B2: make([]float32, classes)}
	// A small deterministic generator keeps training reproducible.
	state := seed*2862933555777941757 + 3037000493
	rnd := func() float32 {
		state = state*6364136223846793005 + 1442695040888963407
		return float32(int64(state>>33)%2000-1000) / 1000
	}
	s1 := float32(math.Sqrt(2 / float64(inputs)))
	for i := range m.W1 {
		m.W1[i] = rnd() * s1
	}
	s2 := float32(math.Sqrt(2 / float64(hidden)))
	for i := range m.W2 {
		m.W2[i] = rnd() * s2
	}
	return m
}

// forward returns the class probabilities; hidden is scratch of length
// Hidden.
func (m *faceModel) forward(x []float32, hidden []float32, probs []float64) {
	for h := 0; h < m.Hidden; h++ {
		s := m.B1[h]
		row := m.W1[h*m.Inputs : (h+1)*m.Inputs]
		for i, v := range x {
			s += row[i] * v
		}
		if s < 0 {
			s = 0
		}
		hidden[h] = s
	}
	maxLogit := math.Inf(-1)
	for c := 0; c < classes; c++ {
		s := m.B2[c]
		row := m.W2[c*m.Hidden : (c+1)*m.Hidden]
		for h, v := range hidden {
			s += row[h] * v
		}
		probs[c] = float64(s)
		maxLogit = math.Max(maxLogit, probs[c])
	}
	sum := 0.0
	for c := range probs {
		probs[c] = math.Exp(probs[c] - maxLogit)
		sum += probs[c]
	}
	for c := range probs {
		probs[c] /= sum
	}
}

// probabilities returns the probability of each class (faces 1-6, then
// the star), averaged over the face's four quarter turns.
func (m *faceModel) probabilities(fr faceRead) [classes]float64 {
	x := make([]float32, featureSide*featureSide)
	hidden := make([]float32, m.Hidden)
	probs := make([]float64, classes)
	var avg [classes]float64
	for k := 0; k < 4; k++ {
		faceFeatures(fr, float64(k)*math.Pi/2, x)
		m.forward(x, hidden, probs)
		for c := range avg {
			avg[c] += probs[c] / 4
		}
	}
	return avg
}

func (m *faceModel) String() string {
	return fmt.Sprintf("face model %d-%d-%d (%s)", m.Inputs, m.Hidden, classes, m.Trained)
}
