package vision

import (
	"bytes"
	"context"
	"encoding/json"
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
		if err := TrainFaceModel(context.Background(), TrainOptions{Synthetic: 2, SyntheticSeed: 5, Render: render, Epochs: 2, Hidden: 8, Seed: 3}, &buf); err != nil {
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
	if err := TrainFaceModel(context.Background(), TrainOptions{}, &bytes.Buffer{}); err == nil {
		t.Error("training on nothing: got no error")
	}
}
