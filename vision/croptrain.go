package vision

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"

	"gocv.io/x/gocv"
)

// verifierC1 and verifierC2 are the verifier's channels after its first
// and second convolutions.
const verifierC1, verifierC2 = 12, 24

// cropSample is one candidate region for training the verifier.
type cropSample struct {
	p                   cropPatch
	cx, cy, side, angle float64
	class               int
}

// TrainCropModel trains the die verifier (the network that checks each
// candidate region against the image) and writes its weights as JSON (the
// format of vision/model/crop.json). It learns from the candidates the
// reader finds in the train/ split's photographs and in synthetic tables:
// a candidate centred on a labelled die is that die's face, one on no die
// is "not a die".
func TrainCropModel(o TrainOptions, w io.Writer) error {
	if o.Epochs <= 0 {
		o.Epochs = 36
	}
	if o.Hidden <= 0 {
		o.Hidden = 64
	}
	logf := o.logf
	var samples []cropSample
	if o.Photos != "" {
		byImage, names, err := trainLabels(o.Photos, o.Exclude)
		if err != nil {
			return err
		}
		n := 0
		for _, name := range names {
			img, err := LoadImage(filepath.Join(o.Photos, "train", name))
			if err != nil {
				return err
			}
			s, err := cropSamples(img, byImage[name])
			img.Close()
			if err != nil {
				return err
			}
			n += len(s)
			// Real photographs are fewer and harder than synthetic tables:
			// they count double.
			samples = append(samples, s...)
			samples = append(samples, s...)
		}
		logf("photos: %d candidates from %d train/ images, each used twice", n, len(names))
	}
	if o.Synthetic > 0 {
		n, err := eachSyntheticTable(o, func(img gocv.Mat, labels []Label) (int, error) {
			s, err := cropSamples(img, labels)
			samples = append(samples, s...)
			return len(s), err
		})
		if err != nil {
			return err
		}
		logf("synthetic: %d candidates from %d tables", n, o.Synthetic)
	}
	if len(samples) == 0 {
		return errors.New("vision: nothing to train on")
	}
	if o.Verifiers <= 0 {
		o.Verifiers = 2
	}
	// The networks train at once, one goroutine each, each from its own
	// seed: the result does not depend on the scheduling.
	v := verifier{Nets: make([]*convNet, o.Verifiers)}
	logs := make([][]string, o.Verifiers)
	var wg sync.WaitGroup
	for i := range v.Nets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.Nets[i] = trainConvNet(samples, o.Epochs, o.Hidden, o.Seed+uint64(i), func(format string, args ...any) {
				logs[i] = append(logs[i], fmt.Sprintf("verifier %d: "+format, append([]any{i + 1}, args...)...))
			})
			v.Nets[i].Trained = fmt.Sprintf("%d candidates (photos train/ split and %d synthetic tables from seed %d), %d epochs, seed %d",
				len(samples), o.Synthetic, o.SyntheticSeed, o.Epochs, o.Seed+uint64(i))
		}()
	}
	wg.Wait()
	for _, l := range logs {
		for _, line := range l {
			logf("%s", line)
		}
	}
	return json.NewEncoder(w).Encode(v)
}

// trainConvNet trains one of the verifier's networks on the samples by
// stochastic gradient descent, with the augmentations the reader's
// candidates call for.
func trainConvNet(samples []cropSample, epochs, hidden int, seed uint64, logf func(string, ...any)) *convNet {
	m := newConvNet(cropGrid, verifierC1, verifierC2, hidden, cropClasses, seed)
	rng := rand.New(rand.NewPCG(seed, 0x7a1e))
	scratch := m.scratch(true)
	x := make([]float32, cropGrid*cropGrid)
	for epoch := 0; epoch < epochs; epoch++ {
		lr := float32(0.02 * math.Pow(0.93, float64(epoch)))
		loss, right := 0.0, 0
		for _, k := range rng.Perm(len(samples)) {
			s := samples[k]
			// Any quarter turn and a little more, mirrored or not, and the
			// candidate's centre and size as loosely as the segmentation
			// finds them.
			angle := s.angle + float64(rng.IntN(4))*math.Pi/2 + (rng.Float64()-0.5)*0.3
			side := s.side * (0.9 + 0.2*rng.Float64())
			cx := s.cx + (rng.Float64()-0.5)*0.12*s.side
			cy := s.cy + (rng.Float64()-0.5)*0.12*s.side
			cropFeatures(s.p, cx, cy, side, angle, rng.IntN(2) == 1, x)
			m.step(x, s.class, lr, scratch)
			loss -= math.Log(math.Max(scratch.probs[s.class], 1e-9))
			best := 0
			for c := range scratch.probs {
				if scratch.probs[c] > scratch.probs[best] {
					best = c
				}
			}
			if best == s.class {
				right++
			}
		}
		logf("epoch %d: loss %.4f, %.2f%% right", epoch+1, loss/float64(len(samples)), 100*float64(right)/float64(len(samples)))
	}
	return m
}

// cropSamples finds the candidates in img as the reader does and labels
// each: the face of the die it is centred on, "not a die" when it lies on
// none, left out when it is off a die's centre (half a die, two dice) or
// on a die labelled unreadable (face 0).
func cropSamples(img gocv.Mat, labels []Label) ([]cropSample, error) {
	det, err := detect(img, 0)
	if err != nil {
		return nil, err
	}
	defer det.bgr.Close()
	w, h := det.bgr.Cols(), det.bgr.Rows()
	var out []cropSample
	for _, c := range det.cands {
		cx, cy, side := c.cx/det.segScale, c.cy/det.segScale, c.side/det.segScale
		// Labels are in the original image's pixels.
		ox, oy := cx/det.scale, cy/det.scale
		class := notADie
		for _, l := range labels {
			lw, lh := l.Box.MaxX-l.Box.MinX, l.Box.MaxY-l.Box.MinY
			lx, ly := (l.Box.MinX+l.Box.MaxX)/2, (l.Box.MinY+l.Box.MaxY)/2
			if math.Abs(ox-lx) > lw*0.75 || math.Abs(oy-ly) > lh*0.75 {
				continue
			}
			class = -1
			if l.Face != 0 && math.Abs(ox-lx) < lw*0.25 && math.Abs(oy-ly) < lh*0.25 {
				class = l.Face - 1
				if l.Star {
					class = 6
				}
				break
			}
		}
		if class < 0 {
			continue
		}
		out = append(out, cropSample{
			p:  newCropPatch(det.pix, w, h, cx, cy, side),
			cx: cx, cy: cy, side: side, angle: math.Atan2(c.uy, c.ux),
			class: class,
		})
	}
	return out, nil
}
