package vision

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"gocv.io/x/gocv"
)

// TestEmbeddedModel checks the committed weights load and have the shape
// the features give.
func TestEmbeddedModel(t *testing.T) {
	if defaultModel == nil {
		t.Fatal("vision/model/face.json did not load; run liarsd readtrain")
	}
	m := defaultModel
	if m.Inputs != featureSide*featureSide || len(m.W1) != m.Inputs*m.Hidden || len(m.W2) != classes*m.Hidden {
		t.Errorf("model %v: inputs %d, %d and %d weights; want %d inputs", m, m.Inputs, len(m.W1), len(m.W2), featureSide*featureSide)
	}
}

// TestTrainFaceModel trains a tiny model on a few rendered tables: it must
// run, be reproducible and write weights NewReader can use.
func TestTrainFaceModel(t *testing.T) {
	render := func(seed uint64) (gocv.Mat, []Die, error) {
		return renderForTest(seed)
	}
	train := func() []byte {
		var buf bytes.Buffer
		if err := TrainFaceModel(TrainOptions{Synthetic: 2, SyntheticSeed: 5, Render: render, Epochs: 2, Hidden: 8, Seed: 3}, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b := train(), train()
	if !bytes.Equal(a, b) {
		t.Error("two trainings with the same seeds gave different weights")
	}
	var m faceModel
	if err := json.Unmarshal(a, &m); err != nil {
		t.Fatal(err)
	}
	if m.Hidden != 8 || len(m.W1) != 8*featureSide*featureSide {
		t.Errorf("got %d hidden, %d weights; want 8 and %d", m.Hidden, len(m.W1), 8*featureSide*featureSide)
	}
	if err := TrainFaceModel(TrainOptions{}, &bytes.Buffer{}); err == nil {
		t.Error("training on nothing: got no error")
	}
}

// TestEmbeddedCropModel checks the committed verifier loads and reads the
// verifier's input.
func TestEmbeddedCropModel(t *testing.T) {
	if defaultCropModel == nil {
		t.Fatal("vision/model/crop.json did not load; run liarsd readtrain")
	}
	if g := defaultCropModel.Nets[0].Grid; g != cropGrid {
		t.Errorf("verifier grid %d; want %d", g, cropGrid)
	}
}

// TestConvNetGradient checks the network's backpropagation against finite
// differences of its loss.
func TestConvNetGradient(t *testing.T) {
	n := newConvNet(8, 2, 3, 5, 3, 7)
	x := make([]float32, 64)
	for i := range x {
		x[i] = float32((i*37)%11) / 11
	}
	const class = 1
	loss := func(n *convNet) float64 {
		s := n.scratch(false)
		n.forward(x, s)
		return -math.Log(s.probs[class])
	}
	// One step with a tiny rate moves each weight by rate times its
	// gradient.
	const lr = 1e-3
	stepped := cloneNet(n)
	stepped.step(x, class, lr, stepped.scratch(true))
	layers := []struct {
		name          string
		before, after []float32
	}{
		{"W1", n.W1, stepped.W1}, {"W2", n.W2, stepped.W2}, {"W3", n.W3, stepped.W3}, {"W4", n.W4, stepped.W4},
	}
	for _, l := range layers {
		for _, i := range []int{0, len(l.before) / 2, len(l.before) - 1} {
			got := float64(l.before[i]-l.after[i]) / lr
			const eps = 1e-2
			plus, minus := cloneNet(n), cloneNet(n)
			weights(plus, l.name)[i] += eps
			weights(minus, l.name)[i] -= eps
			want := (loss(plus) - loss(minus)) / (2 * eps)
			if math.Abs(got-want) > 0.02+0.1*math.Abs(want) {
				t.Errorf("%s[%d]: got gradient %.4f; want %.4f", l.name, i, got, want)
			}
		}
	}
}

func cloneNet(n *convNet) *convNet {
	c := *n
	c.W1, c.W2, c.W3, c.W4 = slices.Clone(n.W1), slices.Clone(n.W2), slices.Clone(n.W3), slices.Clone(n.W4)
	c.B1, c.B2, c.B3, c.B4 = slices.Clone(n.B1), slices.Clone(n.B2), slices.Clone(n.B3), slices.Clone(n.B4)
	return &c
}

func weights(n *convNet, name string) []float32 {
	return map[string][]float32{"W1": n.W1, "W2": n.W2, "W3": n.W3, "W4": n.W4}[name]
}

// TestTrainCropModel trains a tiny verifier on a few rendered tables: it
// must run, be reproducible and write weights the reader accepts.
func TestTrainCropModel(t *testing.T) {
	train := func() []byte {
		var buf bytes.Buffer
		if err := TrainCropModel(TrainOptions{Synthetic: 2, SyntheticSeed: 5, Render: renderForTest, Epochs: 2, Hidden: 8, Seed: 3}, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b := train(), train()
	if !bytes.Equal(a, b) {
		t.Error("two trainings with the same seeds gave different weights")
	}
	var v verifier
	if err := json.Unmarshal(a, &v); err != nil {
		t.Fatal(err)
	}
	if !v.valid() || len(v.Nets) != 2 || v.Nets[0].Hidden != 8 {
		t.Errorf("got %d networks, valid %v; want 2 valid networks of 8 hidden units", len(v.Nets), v.valid())
	}
	if err := TrainCropModel(TrainOptions{}, &bytes.Buffer{}); err == nil {
		t.Error("training on nothing: got no error")
	}
}

// TestVerifierAlone checks when the verifier's read may stand without the
// rules': very sure in every view, on a pip face, never the star.
func TestVerifierAlone(t *testing.T) {
	tests := []struct {
		name string
		v    cropVerdict
		want bool
	}{
		{"sure five", cropVerdict{class: 4, p: 0.99, worst: 0.95}, true},
		{"sure on average, not in one view", cropVerdict{class: 4, p: 0.99, worst: 0.5}, false},
		{"unsure", cropVerdict{class: 4, p: 0.9, worst: 0.9}, false},
		{"star", cropVerdict{class: 6, p: 1, worst: 1}, false},
		{"not a die", cropVerdict{class: notADie, p: 1, worst: 1}, false},
		{"no verifier", cropVerdict{class: -1}, false},
	}
	for _, tt := range tests {
		if got := tt.v.alone(); got != tt.want {
			t.Errorf("%s: alone() = %v; want %v", tt.name, got, tt.want)
		}
	}
}
