package vision

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNetworkGradients checks the backward pass against finite
// differences of a loss, for every kind of layer.
func TestNetworkGradients(t *testing.T) {
	in := shape{2, 8, 6}
	n := newNetwork(3, in,
		nnLayer{Kind: layerConv, Out: 3, ReLU: true},
		nnLayer{Kind: layerConv, Out: 3, Dilated: 2},
		nnLayer{Kind: layerPool},
		nnLayer{Kind: layerDense, Out: 4, ReLU: true},
		nnLayer{Kind: layerDense, Out: 3},
	)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, in.size())
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	target := []float32{0.3, -0.2, 0.5}
	// loss is half the squared distance of the output from target.
	loss := func() float64 {
		p := n.newPass(in, false)
		out := n.forward(x, p)
		var l float64
		for i, v := range out {
			l += 0.5 * float64(v-target[i]) * float64(v-target[i])
		}
		return l
	}
	p := n.newPass(in, true)
	out := n.forward(x, p)
	last := p.grad[len(p.grad)-1]
	for i, v := range out {
		last[i] = v - target[i]
	}
	g := n.newGrads()
	n.backward(x, p, g)
	const h = 1e-2
	checked := 0
	for li := range n.Layers {
		w := n.Layers[li].W
		for i := 0; i < len(w); i += 1 + len(w)/12 {
			old := w[i]
			w[i] = old + h
			up := loss()
			w[i] = old - h
			down := loss()
			w[i] = old
			num := (up - down) / (2 * h)
			if got := float64(g.w[li][i]); math.Abs(got-num) > 2e-2*math.Max(1, math.Abs(num)) {
				t.Errorf("layer %d weight %d: gradient %.5f; finite difference %.5f", li, i, got, num)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d weights; want at least 20", checked)
	}
}

// TestNetworkJSONRoundTrip checks that weights survive their file exactly.
func TestNetworkJSONRoundTrip(t *testing.T) {
	in := shape{3, 8, 8}
	n := newNetwork(7, in, nnLayer{Kind: layerConv, Out: 2, ReLU: true}, nnLayer{Kind: layerPool}, nnLayer{Kind: layerDense, Out: 2})
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(n); err != nil {
		t.Fatal(err)
	}
	var back network
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if err := back.check(in); err != nil {
		t.Fatal(err)
	}
	for i := range n.Layers {
		for j, v := range n.Layers[i].W {
			if back.Layers[i].W[j] != v {
				t.Fatalf("layer %d weight %d: got %v; want %v", i, j, back.Layers[i].W[j], v)
			}
		}
	}
	if err := back.check(shape{1, 8, 8}); err == nil {
		t.Error("a network for 3 channels accepted 1")
	}
}

// gemmShapes are inputs small enough for OpenCV's own product and large
// enough (100 pixels or more) for BLAS's, and one so small that a dilated
// tap falls outside it from every pixel.
var gemmShapes = []shape{{3, 7, 9}, {5, 12, 11}, {2, 3, 4}}

// TestConvGemm checks OpenCV's matrix product gives what the Go
// convolution does, plain and dilated.
func TestConvGemm(t *testing.T) {
	for _, in := range gemmShapes {
		for _, dil := range []int{0, 2} {
			n := newNetwork(5, in, nnLayer{Kind: layerConv, Out: 4, ReLU: true, Dilated: dil})
			l := &n.Layers[0]
			for i := range l.B {
				l.B[i] = 0.1 * float32(i)
			}
			x := randomFloats(rand.New(rand.NewPCG(3, 4)), in.size())
			want := make([]float32, 4*in.h*in.w)
			got := make([]float32, len(want))
			convForward(x, in, l, want)
			if err := convGemm(x, in, l, got, make([]float32, convScratch(l, in))); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-4 {
					t.Fatalf("%v dilated %d: output %d: got %v; want %v", in, dil, i, got[i], want[i])
				}
			}
		}
	}
}

func randomFloats(rng *rand.Rand, size int) []float32 {
	v := make([]float32, size)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestConvBackwardGemm checks the backward pass through OpenCV's matrix
// product against the Go one, with and without dilation.
func TestConvBackwardGemm(t *testing.T) {
	for _, in := range gemmShapes {
		for _, dil := range []int{0, 2} {
			n := newNetwork(5, in, nnLayer{Kind: layerConv, Out: 4, Dilated: dil})
			l := &n.Layers[0]
			rng := rand.New(rand.NewPCG(3, 4))
			x, dOut := randomFloats(rng, in.size()), randomFloats(rng, 4*in.h*in.w)
			wantW, wantB, wantIn := randomFloats(rng, len(l.W)), randomFloats(rng, 4), randomFloats(rng, in.size())
			gotW, gotB, gotIn := slices.Clone(wantW), slices.Clone(wantB), slices.Clone(wantIn)
			convBackward(x, in, l, dOut, wantIn, wantW, wantB)
			cols := make([]float32, convScratch(l, in))
			if err := convGemm(x, in, l, make([]float32, 4*in.h*in.w), cols); err != nil {
				t.Fatal(err)
			}
			if err := convBackwardGemm(cols, in, l, dOut, gotIn, gotW, gotB, make([]float32, convBackScratch(l, in))); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want []float32
			}{{"weights", gotW, wantW}, {"biases", gotB, wantB}, {"input", gotIn, wantIn}} {
				for i := range c.want {
					if math.Abs(float64(c.got[i]-c.want[i])) > 1e-4 {
						t.Fatalf("%v dilated %d: %s gradient %d: got %v; want %v", in, dil, c.name, i, c.got[i], c.want[i])
					}
				}
			}
		}
	}
}

// BenchmarkConv compares the Go convolution with OpenCV's matrix product
// on a layer of the dice finder's size.
func BenchmarkConv(b *testing.B) {
	in := shape{24, 40, 66}
	n := newNetwork(1, in, nnLayer{Kind: layerConv, Out: 32, ReLU: true})
	x := make([]float32, in.size())
	out := make([]float32, 32*40*66)
	b.Run("go", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			convForward(x, in, &n.Layers[0], out)
		}
	})
	cols := make([]float32, convScratch(&n.Layers[0], in))
	b.Run("gemm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := convGemm(x, in, &n.Layers[0], out, cols); err != nil {
				b.Fatal(err)
			}
		}
	})
	l := &n.Layers[0]
	dIn, gw, gb := make([]float32, in.size()), make([]float32, len(l.W)), make([]float32, len(l.B))
	b.Run("go-backward", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			convBackward(x, in, l, out, dIn, gw, gb)
		}
	})
	scratch := make([]float32, convBackScratch(l, in))
	b.Run("gemm-backward", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := convBackwardGemm(cols, in, l, out, dIn, gw, gb, scratch); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFaceNetLesson is one training example of the face network:
// forward and backward.
func BenchmarkFaceNetLesson(b *testing.B) {
	n := newFaceNet(1)
	p := n.newPass(faceNetShape, true)
	g := n.newGrads()
	x := randomFloats(rand.New(rand.NewPCG(1, 2)), faceNetShape.size())
	for i := 0; i < b.N; i++ {
		out := n.forward(x, p)
		copy(p.grad[len(p.grad)-1], out)
		n.backward(x, p, g)
	}
}

// TestWeightAverage checks the moving average against the formula, its
// fast start included.
func TestWeightAverage(t *testing.T) {
	n := newNetwork(1, shape{1, 1, 1}, nnLayer{Kind: layerDense, Out: 1})
	n.Layers[0].W[0], n.Layers[0].B[0] = 10, -10
	a := newWeightAverage(n, 0.5)
	want := []float64{10, -10}
	for step, w := range []float32{1, 2, 3, 4} {
		n.Layers[0].W[0], n.Layers[0].B[0] = w, -w
		a.update(n)
		d := math.Min(0.5, float64(2+step)/float64(11+step))
		want[0] = d*want[0] + (1-d)*float64(w)
		want[1] = d*want[1] - (1-d)*float64(w)
	}
	a.apply(n)
	if got := n.Layers[0].W[0]; math.Abs(float64(got)-want[0]) > 1e-5 {
		t.Errorf("averaged weight %v; want %v", got, want[0])
	}
	if got := n.Layers[0].B[0]; math.Abs(float64(got)-want[1]) > 1e-5 {
		t.Errorf("averaged bias %v; want %v", got, want[1])
	}
}

// TestFitAverage trains a one-weight network on noisy targets: the last
// step's weights wander with the noise, their average settles near the
// answer (0.5).
func TestFitAverage(t *testing.T) {
	in := shape{1, 1, 1}
	train := func(seed uint64, average float64) float64 {
		n := newNetwork(seed, in, nnLayer{Kind: layerDense, Out: 1})
		err := fit(n, in, 64, fitOptions{Epochs: 40, Batch: 1, LR: 0.2, Seed: seed, Average: average},
			func(_ int, rng *rand.Rand, x []float32, p *pass) (float64, int, int) {
				x[0] = 1
				out := n.forward(x, p)
				target := 0.5 + float32(rng.NormFloat64())
				p.grad[len(p.grad)-1][0] = out[0] - target
				return 0.5 * float64((out[0]-target)*(out[0]-target)), 0, 0
			})
		if err != nil {
			t.Fatal(err)
		}
		return math.Abs(float64(n.Layers[0].W[0]+n.Layers[0].B[0]) - 0.5)
	}
	var last, averaged float64
	for seed := uint64(1); seed <= 8; seed++ {
		last += train(seed, 0)
		averaged += train(seed, 0.995)
	}
	if averaged > last/2 {
		t.Errorf("mean distance from the answer: averaged %.4f, last weights %.4f; want the average at most half as far", averaged/8, last/8)
	}
}
