package vision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"

	"gocv.io/x/gocv"
)

// TrainOptions say what the face classifier learns from.
type TrainOptions struct {
	// Photos is the folder of labelled photographs (labels.csv beside the
	// split folders); only its train/ split is used. Empty skips it.
	Photos string
	// Synthetic is how many synthetic tables to add, rendered by Render
	// from seeds SyntheticSeed, SyntheticSeed+1, ... (keep them apart from
	// the seeds accuracy is measured on).
	Synthetic     int
	SyntheticSeed uint64
	// Render draws a synthetic table: the image and its truth. Package
	// synth provides it; vision does not import synth.
	Render func(seed uint64) (gocv.Mat, []Die, error)
	// Exclude leaves out the train/ images it returns true for (to hold
	// some out for validation); nil keeps them all.
	Exclude func(image string) bool
	Epochs  int    // the rules' face classifier's passes (default 40)
	Hidden  int    // the rules' face classifier's hidden units (default 96)
	Seed    uint64 // the training's own randomness
	// FinderEpochs and FaceNetEpochs are the dice finder's and the face
	// network's passes (defaults 60 and 100); FaceNets is how many face
	// networks, from different seeds, are averaged (default 2).
	FinderEpochs, FaceNetEpochs, FaceNets int
	// FaceNetAverage, between 0 and 1, is the decay of the moving average
	// of each face network's weights it ends with (Polyak averaging); 0
	// keeps the last step's weights.
	FaceNetAverage float64
	// FaceNetHardWeight, 0 or more, counts a photographed die in the face
	// networks' training more the worse they read it when they last saw
	// it, up to 1 + FaceNetHardWeight times (hardDieWeight); 0 counts
	// every die alike.
	FaceNetHardWeight float64
	// PhotoWeight is how many times a photographed die counts against a
	// synthetic one, for the face classifier and the face network (default
	// 2): the photographs are fewer and harder.
	PhotoWeight int
	// LabelFixes correct the photographs' labels where they are wrong.
	LabelFixes []LabelFix
	// Models, when not nil, are the weights whose dice finder and rules
	// find the face network's hard negatives when the finder is not
	// trained in the same run; nil uses the embedded ones.
	Models *Models
	// Workers is how many goroutines share the work (default 2).
	Workers int
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

type sample struct {
	fr    faceRead
	class int // 0-5 faces 1-6, 6 the star
}

// TrainFaceModel trains the face classifier and writes its weights as
// JSON (the format of vision/model/face.json). It stops, writing nothing,
// when ctx ends.
func TrainFaceModel(ctx context.Context, o TrainOptions, w io.Writer) error {
	if o.Epochs <= 0 {
		o.Epochs = 40
	}
	if o.Hidden <= 0 {
		o.Hidden = 96
	}
	logf := o.logf
	var samples []sample
	if o.Photos != "" {
		s, err := photoSamples(o.Photos, o.Exclude, o.LabelFixes)
		if err != nil {
			return err
		}
		logf("photos: %d faces from train/, each used %d times", len(s), o.photoWeight())
		for range o.photoWeight() {
			samples = append(samples, s...)
		}
	}
	if o.Synthetic > 0 {
		n, err := eachSyntheticTable(o, func(img gocv.Mat, labels []Label) (int, error) {
			s, err := imageSamples(img, labels)
			samples = append(samples, s...)
			return len(s), err
		})
		if err != nil {
			return err
		}
		logf("synthetic: %d faces from %d tables", n, o.Synthetic)
	}
	if len(samples) == 0 {
		return errors.New("vision: nothing to train on")
	}
	m := newFaceModel(featureSide*featureSide, o.Hidden, o.Seed)
	err := trainNet(ctx, m, len(samples), func(k int, rng *rand.Rand, x []float32) int {
		s := samples[k]
		// Any quarter turn, and a little more or less: the face's sides
		// are found to a few degrees.
		faceFeatures(s.fr, float64(rng.IntN(4))*math.Pi/2+(rng.Float64()-0.5)*0.2, x)
		return s.class
	}, o.Epochs, o.Seed, logf)
	if err != nil {
		return err
	}
	m.Trained = fmt.Sprintf("%d faces (photos train/ split and %d synthetic tables from seed %d), %d epochs, seed %d",
		len(samples), o.Synthetic, o.SyntheticSeed, o.Epochs, o.Seed)
	enc := json.NewEncoder(w)
	return enc.Encode(m)
}

// trainNet trains m by stochastic gradient descent on softmax
// cross-entropy. sample fills x with sample k's features (augmented with
// rng) and returns its class. It returns ctx's error when ctx ends first.
func trainNet(ctx context.Context, m *faceModel, n int, sample func(k int, rng *rand.Rand, x []float32) int, epochs int, seed uint64, logf func(string, ...any)) error {
	rng := rand.New(rand.NewPCG(seed, 0x7a1e))
	x := make([]float32, m.Inputs)
	hidden := make([]float32, m.Hidden)
	nc := classes
	probs := make([]float64, nc)
	dHidden := make([]float32, m.Hidden)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for epoch := 0; epoch < epochs; epoch++ {
		if err := stopped(ctx, epoch); err != nil {
			return err
		}
		lr := float32(0.02 * math.Pow(0.93, float64(epoch)))
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		loss, right := 0.0, 0
		for _, k := range order {
			class := sample(k, rng, x)
			m.forward(x, hidden, probs)
			loss -= math.Log(math.Max(probs[class], 1e-9))
			best := 0
			for c := range probs {
				if probs[c] > probs[best] {
					best = c
				}
			}
			if best == class {
				right++
			}
			// Backpropagate softmax cross-entropy.
			for h := range dHidden {
				dHidden[h] = 0
			}
			for c := 0; c < nc; c++ {
				g := float32(probs[c])
				if c == class {
					g -= 1
				}
				row := m.W2[c*m.Hidden : (c+1)*m.Hidden]
				for h, v := range hidden {
					dHidden[h] += g * row[h]
					row[h] -= lr * g * v
				}
				m.B2[c] -= lr * g
			}
			for h := 0; h < m.Hidden; h++ {
				if hidden[h] <= 0 {
					continue
				}
				g := dHidden[h]
				row := m.W1[h*m.Inputs : (h+1)*m.Inputs]
				for i, v := range x {
					row[i] -= lr * g * v
				}
				m.B1[h] -= lr * g
			}
		}
		logf("epoch %d: loss %.4f, %.2f%% right", epoch+1, loss/float64(n), 100*float64(right)/float64(n))
	}
	return nil
}

// photoSamples reads the faces of the train/ split's labelled dice.
func photoSamples(dir string, exclude func(string) bool, fixes []LabelFix) ([]sample, error) {
	byImage, names, err := trainLabels(dir, exclude, fixes)
	if err != nil {
		return nil, err
	}
	var out []sample
	for _, name := range names {
		img, err := LoadImage(filepath.Join(dir, "train", name))
		if err != nil {
			return nil, err
		}
		s, err := imageSamples(img, byImage[name])
		img.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// trainLabels reads the labels of the train/ split's images, with fixes
// applied, by image, and the images' names in order.
func trainLabels(dir string, exclude func(string) bool, fixes []LabelFix) (map[string][]Label, []string, error) {
	labels, err := ReadLabels(dir)
	if err != nil {
		return nil, nil, err
	}
	labels, _ = FixLabels(labels, fixes)
	byImage := map[string][]Label{}
	for _, l := range labels {
		if l.Split == "train" && (exclude == nil || !exclude(l.Image)) {
			byImage[l.Image] = append(byImage[l.Image], l)
		}
	}
	names := make([]string, 0, len(byImage))
	for n := range byImage {
		names = append(names, n)
	}
	sort.Strings(names)
	return byImage, names, nil
}

// imageSamples finds the dice in img as the reader does and pairs each
// readable face with the label whose box holds its centre.
func imageSamples(img gocv.Mat, labels []Label) ([]sample, error) {
	faces, err := findFaces(img, 0)
	if err != nil {
		return nil, err
	}
	var out []sample
	for _, f := range faces {
		for _, l := range labels {
			if l.Face == 0 || f.x < l.Box.MinX || f.x > l.Box.MaxX || f.y < l.Box.MinY || f.y > l.Box.MaxY {
				continue
			}
			class := l.Face - 1
			if l.Star {
				class = 6
			}
			out = append(out, sample{fr: f.fr, class: class})
			break
		}
	}
	return out, nil
}

// foundFace is a candidate's face read by the rules, with its centre in
// the image.
type foundFace struct {
	fr   faceRead
	x, y float64
}

// findFaces runs the reader's detection and rule-based reading on a BGR
// image at its own scale.
func findFaces(img gocv.Mat, dieSize float64) ([]foundFace, error) {
	cands, err := findCandidates(img, dieSize, nil)
	if err != nil {
		return nil, err
	}
	pix, err := img.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	var out []foundFace
	for _, c := range cands {
		p := cutPatch(pix, img.Cols(), img.Rows(), c, 1)
		fr := readFace(p)
		if fr.side == 0 {
			continue
		}
		out = append(out, foundFace{fr: fr, x: float64(p.x0) + fr.cx, y: float64(p.y0) + fr.cy})
	}
	return out, nil
}

// eachSyntheticTable renders the options' synthetic tables and hands each
// image, with the labels of its readable dice, to use; it returns the
// samples use counted.
func eachSyntheticTable(o TrainOptions, use func(img gocv.Mat, labels []Label) (int, error)) (int, error) {
	if o.Render == nil {
		return 0, errors.New("vision: training on synthetic tables needs TrainOptions.Render")
	}
	n := 0
	for i := 0; i < o.Synthetic; i++ {
		img, truth, err := o.Render(o.SyntheticSeed + uint64(i))
		if err != nil {
			return n, err
		}
		labels := make([]Label, len(truth))
		for j, d := range truth {
			h := d.Size / 2
			labels[j] = Label{Face: d.Face, Star: d.Star, Box: Box{d.X - h, d.Y - h, d.X + h, d.Y + h}}
			if d.Uncertain {
				labels[j].Face = 0 // not a readable face: left out
			}
		}
		k, err := use(img, labels)
		img.Close()
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// photoWeight is o.PhotoWeight or its default.
func (o TrainOptions) photoWeight() int {
	if o.PhotoWeight <= 0 {
		return 2
	}
	return o.PhotoWeight
}

// stopped is the error that ends a training at epoch (from 0) when ctx
// has ended, or nil; a nil ctx never ends.
func stopped(ctx context.Context, epoch int) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("vision: training stopped at epoch %d: %w", epoch+1, ctx.Err())
}

// logf writes a line of training progress to o.Log, if any.
func (o TrainOptions) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}
