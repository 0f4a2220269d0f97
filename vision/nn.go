package vision

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"gocv.io/x/gocv"
)

// The reader's two learned parts, the dice finder and the face network,
// are small convolutional networks built from the layers below. They are
// pure Go, so the reader needs no inference runtime and training needs
// nothing but `liarsd readtrain`.

// Layer kinds.
const (
	layerConv  = "conv"  // 3x3 convolution, same padding, stride 1
	layerPool  = "pool"  // 2x2 max pooling
	layerDense = "dense" // fully connected, over the flattened input
)

// nnLayer is one layer of a network. Weights are stored as base64 of
// little-endian float32 so that the model files stay small and exact.
type nnLayer struct {
	Kind    string     `json:"kind"`
	In      int        `json:"in,omitempty"`
	Out     int        `json:"out,omitempty"`
	ReLU    bool       `json:"relu,omitempty"`
	W       floatSlice `json:"w,omitempty"`
	B       floatSlice `json:"b,omitempty"`
	Dilated int        `json:"dilated,omitempty"` // conv: spacing of the taps (0 or 1: adjacent)
}

// floatSlice is a []float32 that marshals as base64.
type floatSlice []float32

func (f floatSlice) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(buf))
}

func (f *floatSlice) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	buf, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	if len(buf)%4 != 0 {
		return fmt.Errorf("vision: weights of %d bytes", len(buf))
	}
	*f = make([]float32, len(buf)/4)
	for i := range *f {
		(*f)[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return nil
}

// network is a stack of layers over a c x h x w input.
type network struct {
	Layers []nnLayer `json:"layers"`
	// Trained records how the weights were made.
	Trained string `json:"trained"`
}

// shape is a tensor's channels, height and width.
type shape struct{ c, h, w int }

func (s shape) size() int { return s.c * s.h * s.w }

func (l *nnLayer) outShape(in shape) shape {
	switch l.Kind {
	case layerConv:
		return shape{l.Out, in.h, in.w}
	case layerPool:
		return shape{in.c, in.h / 2, in.w / 2}
	default:
		return shape{l.Out, 1, 1}
	}
}

// check reports whether the network fits an input of the given shape.
func (n *network) check(in shape) error {
	s := in
	for i := range n.Layers {
		l := &n.Layers[i]
		switch l.Kind {
		case layerConv:
			if l.In != s.c || len(l.W) != l.Out*l.In*9 || len(l.B) != l.Out {
				return fmt.Errorf("vision: layer %d: conv %d->%d does not fit %d channels", i, l.In, l.Out, s.c)
			}
		case layerPool:
			if s.h < 2 || s.w < 2 {
				return fmt.Errorf("vision: layer %d: nothing left to pool", i)
			}
		case layerDense:
			if l.In != s.size() || len(l.W) != l.Out*l.In || len(l.B) != l.Out {
				return fmt.Errorf("vision: layer %d: dense %d->%d does not fit %d inputs", i, l.In, l.Out, s.size())
			}
		default:
			return fmt.Errorf("vision: layer %d: unknown kind %q", i, l.Kind)
		}
		s = l.outShape(s)
	}
	return nil
}

// newNetwork makes a network of the given layers with He-initialised
// weights drawn from seed.
func newNetwork(seed uint64, in shape, layers ...nnLayer) *network {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := in
	for i := range layers {
		l := &layers[i]
		switch l.Kind {
		case layerConv:
			l.In = s.c
			l.W, l.B = make([]float32, l.Out*l.In*9), make([]float32, l.Out)
			heInit(rng, l.W, l.In*9)
		case layerDense:
			l.In = s.size()
			l.W, l.B = make([]float32, l.Out*l.In), make([]float32, l.Out)
			heInit(rng, l.W, l.In)
		}
		s = l.outShape(s)
	}
	return &network{Layers: layers}
}

func heInit(rng *rand.Rand, w []float32, fanIn int) {
	sd := math.Sqrt(2 / float64(fanIn))
	for i := range w {
		w[i] = float32(rng.NormFloat64() * sd)
	}
}

// pass holds one forward pass's activations (and, when training, what the
// backward pass needs), reused between calls of the same input shape.
type pass struct {
	in   shape
	acts [][]float32 // acts[i] is layer i's output
	idx  [][]int32   // pool layers: where each maximum came from
	grad [][]float32 // gradients at each layer's output (training)
	// Convolutions run as matrix products through OpenCV (BLAS), see
	// convGemm. cols is their scratch, one for the whole pass when
	// inferring, one for each convolution when training (the backward
	// pass needs the unrolled input again); back is the backward pass's
	// scratch.
	cols   []float32
	colsOf [][]float32
	back   []float32
	// inGo marks convolutions whose matrix product failed and that ran
	// in Go instead (so their backward pass must too).
	inGo []bool
}

func (n *network) newPass(in shape, training bool) *pass {
	p := &pass{in: in, acts: make([][]float32, len(n.Layers)), idx: make([][]int32, len(n.Layers)), inGo: make([]bool, len(n.Layers))}
	if training {
		p.grad = make([][]float32, len(n.Layers))
		p.colsOf = make([][]float32, len(n.Layers))
	}
	s := in
	cols, back := 0, 0
	for i := range n.Layers {
		if l := &n.Layers[i]; l.Kind == layerConv {
			size := convScratch(l, s)
			cols = max(cols, size)
			back = max(back, convBackScratch(l, s))
			if training {
				p.colsOf[i] = make([]float32, size)
			}
		}
		s = n.Layers[i].outShape(s)
		p.acts[i] = make([]float32, s.size())
		if n.Layers[i].Kind == layerPool {
			p.idx[i] = make([]int32, s.size())
		}
		if training {
			p.grad[i] = make([]float32, s.size())
		}
	}
	if training {
		p.back = make([]float32, back)
	} else {
		p.cols = make([]float32, cols)
	}
	return p
}

// forward runs the network on x (shape p.in) and returns the last layer's
// output (raw: no softmax).
func (n *network) forward(x []float32, p *pass) []float32 {
	in, s := x, p.in
	for i := range n.Layers {
		l := &n.Layers[i]
		out := p.acts[i]
		switch l.Kind {
		case layerConv:
			cols := p.cols
			if p.colsOf != nil {
				cols = p.colsOf[i]
			}
			p.inGo[i] = convGemm(in, s, l, out, cols) != nil
			if p.inGo[i] {
				convForward(in, s, l, out)
			}
		case layerPool:
			poolForward(in, s, out, p.idx[i])
		case layerDense:
			denseForward(in, l, out)
		}
		s = l.outShape(s)
		in = out
	}
	return in
}

func relu(v []float32) {
	for i, x := range v {
		if x < 0 {
			v[i] = 0
		}
	}
}

// convForward is a 3x3 convolution with zero padding: for each output
// channel, input channel and tap, one multiply-add over whole rows, which
// the compiler keeps free of bounds checks.
func convForward(in []float32, s shape, l *nnLayer, out []float32) {
	hw := s.h * s.w
	d := max(l.Dilated, 1)
	for o := 0; o < l.Out; o++ {
		dst := out[o*hw : (o+1)*hw]
		for i := range dst {
			dst[i] = l.B[o]
		}
		for c := 0; c < l.In; c++ {
			src := in[c*hw : (c+1)*hw]
			for t := 0; t < 9; t++ {
				wv := l.W[(o*l.In+c)*9+t]
				if wv == 0 {
					continue
				}
				ky, kx := (t/3-1)*d, (t%3-1)*d
				y0, y1 := max(0, -ky), min(s.h, s.h-ky)
				x0, x1 := max(0, -kx), min(s.w, s.w-kx)
				if x0 >= x1 {
					continue
				}
				for y := y0; y < y1; y++ {
					axpy(wv, src[(y+ky)*s.w+x0+kx:(y+ky)*s.w+x1+kx], dst[y*s.w+x0:y*s.w+x1])
				}
			}
		}
		if l.ReLU {
			relu(dst)
		}
	}
}

// axpy adds a*x to y (len(y) <= len(x)).
func axpy(a float32, x, y []float32) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a * x[i]
		y[i+1] += a * x[i+1]
		y[i+2] += a * x[i+2]
		y[i+3] += a * x[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// dot is the dot product of x and y (len(y) <= len(x)).
func dot(x, y []float32) float32 {
	x = x[:len(y)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(y); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(y); i++ {
		s0 += x[i] * y[i]
	}
	return s0 + s1 + s2 + s3
}

func poolForward(in []float32, s shape, out []float32, idx []int32) {
	oh, ow := s.h/2, s.w/2
	for c := 0; c < s.c; c++ {
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				base := c*s.h*s.w + 2*y*s.w + 2*x
				best := base
				for _, o := range [3]int{1, s.w, s.w + 1} {
					if in[base+o] > in[best] {
						best = base + o
					}
				}
				k := (c*oh+y)*ow + x
				out[k], idx[k] = in[best], int32(best)
			}
		}
	}
}

func denseForward(in []float32, l *nnLayer, out []float32) {
	for o := 0; o < l.Out; o++ {
		out[o] = l.B[o] + dot(in, l.W[o*l.In:(o+1)*l.In])
	}
	if l.ReLU {
		relu(out)
	}
}

// grads holds gradients for every layer's weights.
type grads struct {
	w, b [][]float32
}

func (n *network) newGrads() *grads {
	g := &grads{w: make([][]float32, len(n.Layers)), b: make([][]float32, len(n.Layers))}
	for i, l := range n.Layers {
		g.w[i], g.b[i] = make([]float32, len(l.W)), make([]float32, len(l.B))
	}
	return g
}

func (g *grads) zero() {
	for i := range g.w {
		clear(g.w[i])
		clear(g.b[i])
	}
}

func (g *grads) add(o *grads) {
	for i := range g.w {
		axpy(1, o.w[i], g.w[i])
		axpy(1, o.b[i], g.b[i])
	}
}

// backward accumulates into g the gradients of the loss whose gradient at
// the network's (raw) output is in p.grad[last], for input x.
func (n *network) backward(x []float32, p *pass, g *grads) {
	shapes := make([]shape, len(n.Layers)+1)
	shapes[0] = p.in
	for i := range n.Layers {
		shapes[i+1] = n.Layers[i].outShape(shapes[i])
	}
	for i := len(n.Layers) - 1; i >= 0; i-- {
		l := &n.Layers[i]
		dOut := p.grad[i]
		in := x
		if i > 0 {
			in = p.acts[i-1]
		}
		var dIn []float32
		if i > 0 {
			dIn = p.grad[i-1]
			clear(dIn)
		}
		if l.ReLU {
			for k, v := range p.acts[i] {
				if v <= 0 {
					dOut[k] = 0
				}
			}
		}
		switch l.Kind {
		case layerConv:
			if p.inGo[i] || convBackwardGemm(p.colsOf[i], shapes[i], l, dOut, dIn, g.w[i], g.b[i], p.back) != nil {
				convBackward(in, shapes[i], l, dOut, dIn, g.w[i], g.b[i])
			}
		case layerPool:
			if dIn != nil {
				for k, j := range p.idx[i] {
					dIn[j] += dOut[k]
				}
			}
		case layerDense:
			for o := 0; o < l.Out; o++ {
				d := dOut[o]
				if d == 0 {
					continue
				}
				g.b[i][o] += d
				axpy(d, in, g.w[i][o*l.In:(o+1)*l.In])
				if dIn != nil {
					axpy(d, l.W[o*l.In:(o+1)*l.In], dIn)
				}
			}
		}
	}
}

// convBackward is the Go backward pass of a convolution: it adds the
// gradients of the weights and biases to gw and gb and (when dIn is not
// nil) of the input to dIn.
func convBackward(in []float32, s shape, l *nnLayer, dOut, dIn, gw, gb []float32) {
	hw := s.h * s.w
	d := max(l.Dilated, 1)
	for o := 0; o < l.Out; o++ {
		dd := dOut[o*hw : (o+1)*hw]
		var db float32
		for _, v := range dd {
			db += v
		}
		gb[o] += db
		for c := 0; c < l.In; c++ {
			src := in[c*hw : (c+1)*hw]
			for t := 0; t < 9; t++ {
				wi := (o*l.In+c)*9 + t
				wv := l.W[wi]
				ky, kx := (t/3-1)*d, (t%3-1)*d
				y0, y1 := max(0, -ky), min(s.h, s.h-ky)
				x0, x1 := max(0, -kx), min(s.w, s.w-kx)
				if x0 >= x1 {
					continue
				}
				var dw float32
				for y := y0; y < y1; y++ {
					row := dd[y*s.w+x0 : y*s.w+x1]
					off := (y+ky)*s.w + x0 + kx
					dw += dot(src[off:off+len(row)], row)
					if dIn != nil {
						axpy(wv, row, dIn[c*hw+off:c*hw+off+len(row)])
					}
				}
				gw[wi] += dw
			}
		}
	}
}

// adam is the Adam optimiser's state for a network.
type adam struct {
	m, v *grads
	t    int
}

func newAdam(n *network) *adam { return &adam{m: n.newGrads(), v: n.newGrads()} }

// step applies the gradients g (summed over a batch of the given size).
func (a *adam) step(n *network, g *grads, batch int, lr, decay float64) {
	a.t++
	const b1, b2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(b1, float64(a.t))
	c2 := 1 - math.Pow(b2, float64(a.t))
	inv := 1 / float64(batch)
	upd := func(w, gr, m, v []float32, wd float64) {
		for i := range w {
			gi := float64(gr[i])*inv + wd*float64(w[i])
			mi := b1*float64(m[i]) + (1-b1)*gi
			vi := b2*float64(v[i]) + (1-b2)*gi*gi
			m[i], v[i] = float32(mi), float32(vi)
			w[i] -= float32(lr * (mi / c1) / (math.Sqrt(vi/c2) + eps))
		}
	}
	for i := range n.Layers {
		upd(n.Layers[i].W, g.w[i], a.m.w[i], a.v.w[i], decay)
		upd(n.Layers[i].B, g.b[i], a.m.b[i], a.v.b[i], 0)
	}
}

// softmax writes the softmax of logits into probs and returns it.
func softmax(logits []float32, probs []float64) []float64 {
	m := float64(logits[0])
	for _, v := range logits {
		m = math.Max(m, float64(v))
	}
	var sum float64
	for i, v := range logits {
		probs[i] = math.Exp(float64(v) - m)
		sum += probs[i]
	}
	for i := range probs {
		probs[i] /= sum
	}
	return probs
}

// gemmRows is the rows the matrix products of a convolution on an input
// of shape s run with: a row per pixel, and at least gemmMinRows (the
// rows past the pixels are padding whose products are not read).
func gemmRows(s shape) int { return max(s.h*s.w, gemmMinRows) }

// gemmMinRows is the fewest rows of a first matrix that OpenCV hands to
// BLAS: it multiplies smaller ones in its own loops, about seven times
// slower here.
const gemmMinRows = 100

// convScratch is how many values convGemm needs as scratch for layer l
// on an input of shape s: the unrolled input and the product.
func convScratch(l *nnLayer, s shape) int { return (l.In*9 + l.Out) * gemmRows(s) }

// convBackScratch is how many values convBackwardGemm needs as scratch.
func convBackScratch(l *nnLayer, s shape) int {
	return (l.Out+l.In*9)*gemmRows(s) + l.Out*l.In*9
}

// convGemm computes what convForward does through OpenCV's matrix product
// (BLAS's SIMD kernels are several times faster than Go's scalar loops):
// the input unrolled into one row of in*9 values per pixel, times the
// weights transposed, gives one row of out values per pixel. The products
// are laid out so that their first matrix has a row per pixel, padded to
// gemmMinRows, because OpenCV hands only products whose first matrix has
// that many rows to BLAS. scratch holds at least convScratch(l, s) values;
// its first in*9*gemmRows(s) are the unrolled input, which
// convBackwardGemm reads.
func convGemm(in []float32, s shape, l *nnLayer, out, scratch []float32) error {
	hw, rows := s.h*s.w, gemmRows(s)
	k := l.In * 9
	cols, prod := scratch[:rows*k], scratch[rows*k:rows*(k+l.Out)]
	unroll(in, s, l, cols)
	if err := gemm(cols, rows, k, l.W, k, gemmSecondT, prod); err != nil {
		return err
	}
	for o := 0; o < l.Out; o++ {
		dst := out[o*hw : (o+1)*hw]
		b := l.B[o]
		for p := range dst {
			v := prod[p*l.Out+o] + b
			if l.ReLU && v < 0 {
				v = 0
			}
			dst[p] = v
		}
	}
	return nil
}

// convBackwardGemm is convBackward through OpenCV's matrix product, from
// the unrolled input that convGemm left at the start of cols: with dOut
// turned to a row per pixel, the weights' gradient is the unrolled input
// transposed times it, and the input's gradient is it times the weights,
// rolled back up. scratch holds at least convBackScratch(l, s) values.
func convBackwardGemm(cols []float32, s shape, l *nnLayer, dOut, dIn, gw, gb, scratch []float32) error {
	hw, rows := s.h*s.w, gemmRows(s)
	k := l.In * 9
	cols = cols[:rows*k]
	dOutT, dCols, dW := scratch[:rows*l.Out], scratch[rows*l.Out:rows*(l.Out+k)], scratch[rows*(l.Out+k):rows*(l.Out+k)+k*l.Out]
	for o := 0; o < l.Out; o++ {
		var db float32
		for p, v := range dOut[o*hw : (o+1)*hw] {
			db += v
			dOutT[p*l.Out+o] = v
		}
		gb[o] += db
	}
	// The padding rows of the unrolled input may hold anything: zero
	// gradients there keep it out of the weights' gradient.
	clear(dOutT[hw*l.Out:])
	// dW is k x out: the weights' gradient transposed.
	if err := gemm(cols, rows, k, dOutT, l.Out, gemmFirstT, dW); err != nil {
		return err
	}
	for o := 0; o < l.Out; o++ {
		g := gw[o*k : (o+1)*k]
		for j := range g {
			g[j] += dW[j*l.Out+o]
		}
	}
	if dIn == nil {
		return nil
	}
	if err := gemm(dOutT, rows, l.Out, l.W, k, 0, dCols); err != nil {
		return err
	}
	d := max(l.Dilated, 1)
	for c := 0; c < l.In; c++ {
		dst := dIn[c*hw : (c+1)*hw]
		for t := 0; t < 9; t++ {
			ky, kx := (t/3-1)*d, (t%3-1)*d
			y0, y1 := max(0, -ky), min(s.h, s.h-ky)
			x0, x1 := max(0, -kx), min(s.w, s.w-kx)
			j := c*9 + t
			for y := y0; y < y1; y++ {
				row := dst[(y+ky)*s.w+x0+kx : (y+ky)*s.w+x1+kx]
				for x := range row {
					row[x] += dCols[(y*s.w+x0+x)*k+j]
				}
			}
		}
	}
	return nil
}

// unroll writes the 3x3 neighbourhoods of in (shape s) for layer l into
// cols, one row of in*9 values per pixel: value c*9+t of a row is channel
// c shifted by tap t, zero outside. Rows past the pixels are left as they
// are.
func unroll(in []float32, s shape, l *nnLayer, cols []float32) {
	hw := s.h * s.w
	k := l.In * 9
	d := max(l.Dilated, 1)
	// border writes the row of a pixel some of whose taps fall outside the
	// input: the taps inside, found once for every channel, the rest zero.
	border := func(y, x int) {
		row := cols[(y*s.w+x)*k : (y*s.w+x+1)*k]
		var at [9]int
		for t := range at {
			sy, sx := y+(t/3-1)*d, x+(t%3-1)*d
			at[t] = -1
			if sy >= 0 && sy < s.h && sx >= 0 && sx < s.w {
				at[t] = sy*s.w + sx
			}
		}
		for c := 0; c < l.In; c++ {
			plane, r := in[c*hw:(c+1)*hw], row[c*9:c*9+9]
			for t, i := range at {
				if i < 0 {
					r[t] = 0
				} else {
					r[t] = plane[i]
				}
			}
		}
	}
	for y := 0; y < s.h; y++ {
		if y < d || y >= s.h-d || s.w <= 2*d {
			for x := 0; x < s.w; x++ {
				border(y, x)
			}
			continue
		}
		for x := 0; x < d; x++ {
			border(y, x)
			border(y, s.w-1-x)
		}
		// Inside: no tap falls outside the input. A channel's three input
		// rows at a time, read along.
		for c := 0; c < l.In; c++ {
			plane := in[c*hw : (c+1)*hw]
			r0 := plane[(y-d)*s.w : (y-d+1)*s.w]
			r1 := plane[y*s.w : (y+1)*s.w]
			r2 := plane[(y+d)*s.w : (y+d+1)*s.w]
			for x := d; x < s.w-d; x++ {
				i := (y*s.w+x)*k + c*9
				o := cols[i : i+9]
				o[0], o[1], o[2] = r0[x-d], r0[x], r0[x+d]
				o[3], o[4], o[5] = r1[x-d], r1[x], r1[x+d]
				o[6], o[7], o[8] = r2[x-d], r2[x], r2[x+d]
			}
		}
	}
}

// OpenCV's gemm flags: read the first or the second matrix transposed.
const (
	gemmFirstT  = 1
	gemmSecondT = 2
)

// gemm writes into out the product of a (rows x inner as stored) and b
// (stored x bCols), each read transposed as flags say: out is m x n where
// m is a's rows (columns when gemmFirstT) and n b's columns (rows when
// gemmSecondT). The matrices are the Go slices themselves, wrapped, not
// copied; OpenCV writes the product straight into out.
func gemm(a []float32, aRows, aCols int, b []float32, bCols, flags int, out []float32) error {
	bRows := len(b) / bCols
	m, n := aRows, bCols
	if flags&gemmFirstT != 0 {
		m = aCols
	}
	if flags&gemmSecondT != 0 {
		n = bRows
	}
	if len(out) < m*n || len(a) < aRows*aCols {
		return fmt.Errorf("vision: gemm of %dx%d and %dx%d does not fit", aRows, aCols, bRows, bCols)
	}
	am, err := gocv.NewMatFromBytes(aRows, aCols, gocv.MatTypeCV32F, floatBytes(a[:aRows*aCols]))
	if err != nil {
		return fmt.Errorf("vision: %w", err)
	}
	defer am.Close()
	bm, err := gocv.NewMatFromBytes(bRows, bCols, gocv.MatTypeCV32F, floatBytes(b[:bRows*bCols]))
	if err != nil {
		return fmt.Errorf("vision: %w", err)
	}
	defer bm.Close()
	om, err := gocv.NewMatFromBytes(m, n, gocv.MatTypeCV32F, floatBytes(out[:m*n]))
	if err != nil {
		return fmt.Errorf("vision: %w", err)
	}
	defer om.Close()
	none := gocv.NewMat()
	defer none.Close()
	gocv.Gemm(am, bm, 1, none, 0, &om, flags)
	if om.Rows() != m || om.Cols() != n {
		return fmt.Errorf("vision: gemm gave %dx%d, want %dx%d", om.Rows(), om.Cols(), m, n)
	}
	if p, err := om.DataPtrFloat32(); err != nil || &p[0] != &out[0] {
		// OpenCV made a matrix of its own: copy the product over.
		if err != nil {
			return fmt.Errorf("vision: %w", err)
		}
		copy(out, p)
	}
	return nil
}

// floatBytes is the memory of f as bytes.
func floatBytes(f []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}
