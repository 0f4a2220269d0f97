package vision

import (
	"math"
	"math/rand/v2"
)

// convNet is a small convolutional network: two 3x3 convolutions (each
// with ReLU and 2x2 max pooling), a hidden layer and a softmax. It reads a
// Grid x Grid map. It is pure Go so the reader needs no inference
// runtime; `liarsd readtrain` trains it.
type convNet struct {
	Grid, C1, C2, Hidden, Classes int
	W1, B1                        []float32 // C1 x 3 x 3
	W2, B2                        []float32 // C2 x C1 x 3 x 3
	W3, B3                        []float32 // Hidden x C2*(Grid/4)^2
	W4, B4                        []float32 // Classes x Hidden
	// Trained records how the weights were made.
	Trained string
}

// convScratch holds one pass's activations (and, when training, their
// gradients), so that inference allocates once per call.
type convScratch struct {
	a1, p1, a2, p2, h []float32
	i1, i2            []int32
	probs             []float64
	// Gradients.
	dp2, da2, dp1, da1, dh []float32
}

func newConvNet(grid, c1, c2, hidden, classes int, seed uint64) *convNet {
	q := grid / 4
	n := &convNet{Grid: grid, C1: c1, C2: c2, Hidden: hidden, Classes: classes,
		W1: make([]float32, c1*9), B1: make([]float32, c1),
		W2: make([]float32, c2*c1*9), B2: make([]float32, c2),
		W3: make([]float32, hidden*c2*q*q), B3: make([]float32, hidden),
		W4: make([]float32, classes*hidden), B4: make([]float32, classes)}
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	init := func(w []float32, fanIn int) {
		s := math.Sqrt(2 / float64(fanIn))
		for i := range w {
			w[i] = float32(rng.NormFloat64() * s)
		}
	}
	init(n.W1, 9)
	init(n.W2, c1*9)
	init(n.W3, c2*q*q)
	init(n.W4, hidden)
	return n
}

func (n *convNet) scratch(training bool) *convScratch {
	g, h := n.Grid, n.Grid/2
	q := n.Grid / 4
	s := &convScratch{
		a1: make([]float32, n.C1*g*g), p1: make([]float32, n.C1*h*h), i1: make([]int32, n.C1*h*h),
		a2: make([]float32, n.C2*h*h), p2: make([]float32, n.C2*q*q), i2: make([]int32, n.C2*q*q),
		h: make([]float32, n.Hidden), probs: make([]float64, n.Classes),
	}
	if training {
		s.dp2, s.da2 = make([]float32, len(s.p2)), make([]float32, len(s.a2))
		s.dp1, s.da1 = make([]float32, len(s.p1)), make([]float32, len(s.a1))
		s.dh = make([]float32, n.Hidden)
	}
	return s
}

// conv3 is a 3x3 convolution with zero padding of cin g x g maps into
// cout, plus bias, then ReLU.
func conv3(in []float32, cin, g int, w, b []float32, cout int, out []float32) {
	gg := g * g
	for o := 0; o < cout; o++ {
		dst := out[o*gg : (o+1)*gg]
		for i := range dst {
			dst[i] = b[o]
		}
		for c := 0; c < cin; c++ {
			src := in[c*gg : (c+1)*gg]
			for ky := -1; ky <= 1; ky++ {
				y0, y1 := max(0, -ky), min(g, g-ky)
				for kx := -1; kx <= 1; kx++ {
					wv := w[((o*cin+c)*3+ky+1)*3+kx+1]
					x0, x1 := max(0, -kx), min(g, g-kx)
					for y := y0; y < y1; y++ {
						d := dst[y*g+x0 : y*g+x1]
						s := src[(y+ky)*g+x0+kx : (y+ky)*g+x1+kx]
						for i := range d {
							d[i] += wv * s[i]
						}
					}
				}
			}
		}
		for i, v := range dst {
			if v < 0 {
				dst[i] = 0
			}
		}
	}
}

// conv3Back accumulates the gradients of conv3's weights (scaled by -lr,
// applied at once) and, when dIn is not nil, of its input. dOut is the
// gradient at the output, already masked by the ReLU.
func conv3Back(in []float32, cin, g int, w, b []float32, cout int, dOut, dIn []float32, lr float32) {
	gg := g * g
	if dIn != nil {
		for i := range dIn {
			dIn[i] = 0
		}
	}
	for o := 0; o < cout; o++ {
		dd := dOut[o*gg : (o+1)*gg]
		var db float32
		for _, v := range dd {
			db += v
		}
		for c := 0; c < cin; c++ {
			src := in[c*gg : (c+1)*gg]
			for ky := -1; ky <= 1; ky++ {
				y0, y1 := max(0, -ky), min(g, g-ky)
				for kx := -1; kx <= 1; kx++ {
					wi := ((o*cin+c)*3+ky+1)*3 + kx + 1
					wv := w[wi]
					x0, x1 := max(0, -kx), min(g, g-kx)
					var dw float32
					for y := y0; y < y1; y++ {
						d := dd[y*g+x0 : y*g+x1]
						s := src[(y+ky)*g+x0+kx : (y+ky)*g+x1+kx]
						for i := range d {
							dw += d[i] * s[i]
						}
						if dIn != nil {
							di := dIn[c*gg+(y+ky)*g+x0+kx : c*gg+(y+ky)*g+x1+kx]
							for i := range d {
								di[i] += wv * d[i]
							}
						}
					}
					w[wi] -= lr * dw
				}
			}
		}
		b[o] -= lr * db
	}
}

// pool2 is 2x2 max pooling of c g x g maps, recording where each maximum
// came from.
func pool2(in []float32, c, g int, out []float32, idx []int32) {
	h := g / 2
	for ch := 0; ch < c; ch++ {
		for y := 0; y < h; y++ {
			for x := 0; x < h; x++ {
				base := ch*g*g + 2*y*g + 2*x
				best := base
				for _, o := range [3]int{1, g, g + 1} {
					if in[base+o] > in[best] {
						best = base + o
					}
				}
				out[ch*h*h+y*h+x] = in[best]
				idx[ch*h*h+y*h+x] = int32(best)
			}
		}
	}
}

// forward fills s.probs with the class probabilities of x.
func (n *convNet) forward(x []float32, s *convScratch) {
	g, h := n.Grid, n.Grid/2
	conv3(x, 1, g, n.W1, n.B1, n.C1, s.a1)
	pool2(s.a1, n.C1, g, s.p1, s.i1)
	conv3(s.p1, n.C1, h, n.W2, n.B2, n.C2, s.a2)
	pool2(s.a2, n.C2, h, s.p2, s.i2)
	in := len(s.p2)
	for j := 0; j < n.Hidden; j++ {
		v := n.B3[j]
		row := n.W3[j*in : (j+1)*in]
		for i, p := range s.p2 {
			v += row[i] * p
		}
		s.h[j] = max(v, 0)
	}
	maxLogit := math.Inf(-1)
	for c := 0; c < n.Classes; c++ {
		v := n.B4[c]
		row := n.W4[c*n.Hidden : (c+1)*n.Hidden]
		for j, a := range s.h {
			v += row[j] * a
		}
		s.probs[c] = float64(v)
		maxLogit = math.Max(maxLogit, s.probs[c])
	}
	sum := 0.0
	for c := range s.probs {
		s.probs[c] = math.Exp(s.probs[c] - maxLogit)
		sum += s.probs[c]
	}
	for c := range s.probs {
		s.probs[c] /= sum
	}
}

// step runs one sample forward and back, updating the weights by
// stochastic gradient descent on softmax cross-entropy.
func (n *convNet) step(x []float32, class int, lr float32, s *convScratch) {
	n.forward(x, s)
	g, h := n.Grid, n.Grid/2
	in := len(s.p2)
	for j := range s.dh {
		s.dh[j] = 0
	}
	for c := 0; c < n.Classes; c++ {
		d := float32(s.probs[c])
		if c == class {
			d--
		}
		row := n.W4[c*n.Hidden : (c+1)*n.Hidden]
		for j, a := range s.h {
			s.dh[j] += d * row[j]
			row[j] -= lr * d * a
		}
		n.B4[c] -= lr * d
	}
	for i := range s.dp2 {
		s.dp2[i] = 0
	}
	for j := 0; j < n.Hidden; j++ {
		if s.h[j] <= 0 {
			continue
		}
		d := s.dh[j]
		row := n.W3[j*in : (j+1)*in]
		for i, p := range s.p2 {
			s.dp2[i] += d * row[i]
			row[i] -= lr * d * p
		}
		n.B3[j] -= lr * d
	}
	unpool(s.dp2, s.i2, s.a2, s.da2)
	conv3Back(s.p1, n.C1, h, n.W2, n.B2, n.C2, s.da2, s.dp1, lr)
	unpool(s.dp1, s.i1, s.a1, s.da1)
	conv3Back(x, 1, g, n.W1, n.B1, n.C1, s.da1, nil, lr)
}

// unpool routes pooled gradients back to where each maximum came from,
// through the ReLU before the pooling.
func unpool(dp []float32, idx []int32, a, da []float32) {
	for i := range da {
		da[i] = 0
	}
	for i, d := range dp {
		if a[idx[i]] > 0 {
			da[idx[i]] += d
		}
	}
}
