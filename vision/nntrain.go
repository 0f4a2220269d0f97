package vision

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// fitOptions say how a network is trained.
type fitOptions struct {
	Epochs int
	Batch  int     // examples per update
	LR     float64 // Adam's step at the start; it decays to a tenth by the end
	Decay  float64 // weight decay
	// Average, between 0 and 1, is the decay of an exponential moving
	// average of the weights over the steps (weightAverage): the network
	// ends with that average instead of the last step's weights. 0 keeps
	// the last weights.
	Average float64
	Workers int // goroutines sharing each batch
	Seed    uint64
	Logf    func(format string, args ...any)
	// Ctx stops the training between two batches when it is done; nil
	// never stops it.
	Ctx context.Context
}

// lesson fills x with example k (augmented with rng), runs the network on
// it with p, puts the loss's gradient at the output into p's last grad and
// returns the loss and how many of the example's answers the network got
// right out of how many (0 of 0 where that means nothing).
type lesson func(k int, rng *rand.Rand, x []float32, p *pass) (loss float64, right, of int)

// fit trains n by minibatch Adam over count examples. Each batch is split
// between the workers in a fixed way and their gradients are summed in
// order, so the result depends on the seed, the worker count and the BLAS
// library OpenCV multiplies matrices with (their sums round differently).
// It returns o.Ctx's error when the context ends first.
func fit(n *network, in shape, count int, o fitOptions, learn lesson) error {
	if o.Workers <= 0 {
		o.Workers = 1
	}
	type worker struct {
		p       *pass
		g       *grads
		x       []float32
		loss    float64
		hit, of int
	}
	ws := make([]*worker, o.Workers)
	for i := range ws {
		ws[i] = &worker{p: n.newPass(in, true), g: n.newGrads(), x: make([]float32, in.size())}
	}
	opt := newAdam(n)
	order := make([]int, count)
	for i := range order {
		order[i] = i
	}
	shuffle := rand.New(rand.NewPCG(o.Seed, 0xba7c4))
	steps := o.Epochs * ((count + o.Batch - 1) / o.Batch)
	step := 0
	var avg *weightAverage
	if o.Average > 0 {
		avg = newWeightAverage(n, o.Average)
	}
	for epoch := 0; epoch < o.Epochs; epoch++ {
		shuffle.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var loss float64
		hits, answers := 0, 0
		for start := 0; start < count; start += o.Batch {
			if err := stopped(o.Ctx, epoch); err != nil {
				return err
			}
			batch := order[start:min(start+o.Batch, count)]
			var wg sync.WaitGroup
			for wi, w := range ws {
				wg.Add(1)
				go func() {
					defer wg.Done()
					w.g.zero()
					w.loss, w.hit, w.of = 0, 0, 0
					rng := rand.New(rand.NewPCG(o.Seed^uint64(epoch)<<20, uint64(start)<<8|uint64(wi)))
					for j := wi; j < len(batch); j += len(ws) {
						l, right, of := learn(batch[j], rng, w.x, w.p)
						n.backward(w.x, w.p, w.g)
						w.loss += l
						w.hit += right
						w.of += of
					}
				}()
			}
			wg.Wait()
			for _, w := range ws[1:] {
				ws[0].g.add(w.g)
			}
			for _, w := range ws {
				loss += w.loss
				hits += w.hit
				answers += w.of
			}
			// Cosine decay from LR to a tenth of it.
			lr := o.LR * (0.1 + 0.9*0.5*(1+math.Cos(math.Pi*float64(step)/float64(steps))))
			opt.step(n, ws[0].g, len(batch), lr, o.Decay)
			step++
			if avg != nil {
				avg.update(n)
			}
		}
		switch {
		case o.Logf == nil:
		case answers > 0:
			o.Logf("epoch %d: loss %.4f, %.2f%% right", epoch+1, loss/float64(count), 100*float64(hits)/float64(answers))
		default:
			o.Logf("epoch %d: loss %.4f", epoch+1, loss/float64(count))
		}
	}
	if avg != nil {
		avg.apply(n)
	}
	return nil
}

// weightAverage is an exponential moving average of a network's weights
// over the steps of its training (Polyak averaging). The last step's
// weights carry the noise of its batch; their average over the last
// epochs sits nearer the middle of where the training wandered, the usual
// remedy for a spread from one training to the next. (For the face
// networks, whose step the cosine schedule already brings down to a
// tenth, it read the same held-out dice: docs/vision-history.md.)
type weightAverage struct {
	decay float64
	steps int
	w, b  [][]float32 // per layer, as n.Layers[i].W and B
}

// newWeightAverage starts an average at n's weights.
func newWeightAverage(n *network, decay float64) *weightAverage {
	a := &weightAverage{decay: decay, w: make([][]float32, len(n.Layers)), b: make([][]float32, len(n.Layers))}
	for i, l := range n.Layers {
		a.w[i], a.b[i] = slices.Clone(l.W), slices.Clone(l.B)
	}
	return a
}

// update folds n's weights into the average. Early on the average follows
// the weights closely (its decay rises to its value as (1+t)/(10+t)), so
// that the random start fades within a few steps instead of thousands.
func (a *weightAverage) update(n *network) {
	a.steps++
	d := math.Min(a.decay, float64(1+a.steps)/float64(10+a.steps))
	fold := func(avg, w []float32) {
		for i, v := range w {
			avg[i] = float32(d*float64(avg[i]) + (1-d)*float64(v))
		}
	}
	for i, l := range n.Layers {
		fold(a.w[i], l.W)
		fold(a.b[i], l.B)
	}
}

// apply puts the average into n's weights.
func (a *weightAverage) apply(n *network) {
	for i, l := range n.Layers {
		copy(l.W, a.w[i])
		copy(l.B, a.b[i])
	}
}
