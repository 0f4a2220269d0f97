package duel

// Solver runs CFR+ on a Tree: regret matching+ with alternating updates
// and linearly weighted averages, over every deal of the dice at once
// (no sampling). On an abstraction that forgets bids it is the
// fixed-strategy iteration of Neller and Hnath: a state's reach sums
// every history that leads to it.
type Solver struct {
	T *Tree
	// Outcome values the ends of the hand for seat 0.
	Outcome Outcome
	// Iterations counts the iterations run.
	Iterations int

	regret, avg, cur [2][]float64
	reach            [2][][]float64   // [seat][node][hand]
	u                [][]float64      // [node][h0*H1+h1], seat 0's value
	w                []float64        // chance of each deal h0*H1+h1
	count            [][Sides + 1]int // the dice of each deal that count for a bid on each face
}

// NewSolver prepares CFR+ on the tree.
func NewSolver(t *Tree, o Outcome) *Solver {
	s := &Solver{T: t, Outcome: o}
	h0, h1 := t.hands[0], t.hands[1]
	for p := range 2 {
		s.regret[p] = make([]float64, t.size[p])
		s.avg[p] = make([]float64, t.size[p])
		s.cur[p] = make([]float64, t.size[p])
		s.reach[p] = make([][]float64, len(t.nodes))
		for n := range t.nodes {
			s.reach[p][n] = make([]float64, len(t.hands[p]))
		}
	}
	s.u = make([][]float64, len(t.nodes))
	for n := range t.nodes {
		s.u[n] = make([]float64, len(h0)*len(h1))
	}
	s.w = make([]float64, len(h0)*len(h1))
	s.count = make([][Sides + 1]int, len(h0)*len(h1))
	for i, a := range h0 {
		for j, b := range h1 {
			s.w[i*len(h1)+j] = a.P * b.P
			var both [Sides + 1]int
			for f := 1; f <= Sides; f++ {
				both[f] = a.count[f] + b.count[f]
			}
			for f := 1; f <= Sides; f++ {
				s.count[i*len(h1)+j][f] = t.Rules.counts(&both, f)
			}
		}
	}
	return s
}

// current fills cur with the regret-matching strategy.
func (s *Solver) current() {
	for n := range s.T.nodes {
		nd := &s.T.nodes[n]
		p := nd.actor
		for h := range s.T.hands[p] {
			o := nd.off + h*nd.nact
			normalize(s.regret[p][o:o+nd.nact], s.cur[p][o:o+nd.nact])
		}
	}
}

// normalize writes into out the positive part of in, normalised, or the
// uniform distribution when none is positive.
func normalize(in, out []float64) {
	total := 0.0
	for _, x := range in {
		if x > 0 {
			total += x
		}
	}
	for i, x := range in {
		switch {
		case total > 0 && x > 0:
			out[i] = x / total
		case total > 0:
			out[i] = 0
		default:
			out[i] = 1 / float64(len(in))
		}
	}
}

// Run runs n iterations.
func (s *Solver) Run(n int) {
	for range n {
		s.Iterations++
		s.current()
		s.iterate(s.cur, s.Iterations%2, float64(s.Iterations))
	}
}

// forward sums the reach of every state for both seats under strategy st.
func (s *Solver) forward(st [2][]float64) {
	t := s.T
	for p := range 2 {
		for n := range t.nodes {
			clear(s.reach[p][n])
		}
		for h := range s.reach[p][0] {
			s.reach[p][0][h] = 1
		}
	}
	for n := range t.nodes {
		nd := &t.nodes[n]
		p := nd.actor
		for j, c := range nd.child {
			for h, r := range s.reach[p][n] {
				if r != 0 {
					s.reach[p][c][h] += r * st[p][nd.off+h*nd.nact+j]
				}
			}
			for h, r := range s.reach[1-p][n] {
				s.reach[1-p][c][h] += r
			}
		}
	}
}

// iterate runs one pass under strategy st: it values every state for seat
// 0 and, when weight > 0, updates seat upd's regrets and average.
func (s *Solver) iterate(st [2][]float64, upd int, weight float64) {
	t := s.T
	s.forward(st)
	H1 := len(t.hands[1])
	val := make([]float64, len(s.w))
	av := make([]float64, 0, t.Deal.Bids()+2)
	for n := len(t.nodes) - 1; n >= 0; n-- {
		nd := &t.nodes[n]
		p := nd.actor
		u := s.u[n]
		clear(u)
		av = av[:0]
		hp := t.hands[p]
		for a := range nd.nact {
			// The value of action a for each deal.
			nbid := len(nd.child)
			switch {
			case a < nbid:
				copy(val, s.u[nd.child[a]])
			default:
				q, f := t.Rules.Bid(t.Deal.Dice(), nd.last)
				spot := a == nbid+1
				for d := range val {
					val[d] = s.Outcome.terminal(q, s.count[d][f], p, spot)
				}
			}
			for d, x := range val {
				var h int
				if p == 0 {
					h = d / H1
				} else {
					h = d % H1
				}
				u[d] += st[p][nd.off+h*nd.nact+a] * x
			}
			if weight > 0 && p == upd {
				// Counterfactual value of a for each of p's hands.
				for h := range hp {
					av = append(av, s.counterfactual(p, h, s.reach[1-p][n], val))
				}
			}
		}
		if weight > 0 && p == upd {
			// av holds action-major values: av[a*len(hp)+h].
			for h := range hp {
				base := s.counterfactual(p, h, s.reach[1-p][n], u)
				o := nd.off + h*nd.nact
				rp := s.reach[p][n][h]
				for a := range nd.nact {
					r := s.regret[p][o+a] + av[a*len(hp)+h] - base
					s.regret[p][o+a] = max(0, r)
					s.avg[p][o+a] += weight * rp * st[p][o+a]
				}
			}
		}
	}
}

// counterfactual returns seat p's value, holding hand h, of per-deal values
// for seat 0 (val), weighted by the chance of each deal and the other
// seat's reach ro.
func (s *Solver) counterfactual(p, h int, ro, val []float64) float64 {
	H1 := len(s.T.hands[1])
	v := 0.0
	for o, r := range ro {
		d := h*H1 + o
		if p == 1 {
			d = o*H1 + h
		}
		v += s.w[d] * r * val[d]
	}
	if p == 1 {
		return -v
	}
	return v
}

// Average returns the average strategy of both seats, in the tree's
// layout: seat p's entry for node n, hand h and action a is at
// Offset(n) + h*Actions(n) + a.
func (s *Solver) Average() [2][]float64 {
	var out [2][]float64
	for p := range 2 {
		out[p] = make([]float64, len(s.avg[p]))
	}
	for n := range s.T.nodes {
		nd := &s.T.nodes[n]
		p := nd.actor
		for h := range s.T.hands[p] {
			o := nd.off + h*nd.nact
			normalize(s.avg[p][o:o+nd.nact], out[p][o:o+nd.nact])
		}
	}
	return out
}

// Value returns seat 0's expected value when both seats play st.
func (s *Solver) Value(st [2][]float64) float64 {
	s.iterate(st, 0, 0)
	v := 0.0
	for d, x := range s.u[0] {
		v += s.w[d] * x
	}
	return v
}
