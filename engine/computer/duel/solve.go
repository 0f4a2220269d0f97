package duel

import (
	"fmt"
	"math"
)

// Solution is an equilibrium of the game where each seat starts with
// Start dice: a strategy for every hand of it, one per count of dice.
type Solution struct {
	Rules *Rules
	Start int
	// Values[a][b] is the chance that the opener of a hand, holding a dice
	// against b, wins the game, both seats playing the solution.
	Values [3][3]float64
	trees  map[Deal]*Tree
	strat  map[Deal][2][]float64
}

// Recall is how many last bids the solution remembers in a deal: every
// bid with 2 dice in play, the last 3 with 3 dice, and with 4 the last 2 in
// common-hand (a state of 4 dice remembering 3 bids costs CFR+ seven
// times as much) and the last 3 in perudo, whose bids to and from ones
// say less in two bids: remembering two, the best response won 55.2% of
// two-dice games against the solution, remembering three 52.0%
// (docs/computer.md).
func (r *Rules) Recall(d Deal) int {
	switch d.D0 + d.D1 {
	case 2:
		return d.Bids()
	case 3:
		return 3
	}
	return r.recall4
}

// deals lists the deals of a game of start dice a seat, fewest dice first.
func deals(start int) []Deal {
	var ds []Deal
	for total := 2; total <= 2*start; total++ {
		for a := 1; a <= start; a++ {
			if b := total - a; b >= 1 && b <= start {
				ds = append(ds, Deal{D0: a, D1: b})
			}
		}
	}
	return ds
}

// Solve finds an equilibrium of the game of the rules with start dice a
// seat (1 or 2) by CFR+ in every deal, iters iterations a round, rounds
// rounds: after each round the chance of winning from each deal is updated
// from the average strategies, so the ends of hands are valued by the game
// that follows.
func Solve(r *Rules, start, iters, rounds int) (*Solution, error) {
	if start < 1 || start > 2 {
		return nil, fmt.Errorf("duel: start dice %d: want 1 or 2", start)
	}
	sol := &Solution{Rules: r, Start: start, trees: map[Deal]*Tree{}, strat: map[Deal][2][]float64{}}
	solvers := map[Deal]*Solver{}
	for _, d := range deals(start) {
		sol.Values[d.D0][d.D1] = 0.5
		t := NewTree(r, d, r.Recall(d))
		sol.trees[d] = t
		solvers[d] = NewSolver(t, Outcome{})
	}
	for range rounds {
		for _, d := range deals(start) {
			s := solvers[d]
			s.Outcome = sol.outcome(d)
			s.Run(iters)
			st := s.Average()
			sol.strat[d] = st
			sol.Values[d.D0][d.D1] = s.Value(st)
		}
	}
	return sol, nil
}

// outcome values the ends of a hand of deal d for its opener from the
// solution's values.
func (sol *Solution) outcome(d Deal) Outcome {
	v := func(opener, other int) float64 {
		switch {
		case opener == 0:
			return 0
		case other == 0:
			return 1
		}
		return sol.Values[min(opener, sol.Start)][min(other, sol.Start)]
	}
	var o Outcome
	// The loser of a die opens the next hand; so does the caller of a
	// right spot-on, a die richer below the start.
	o.Lose[0] = v(d.D0-1, d.D1)
	o.Lose[1] = 1 - v(d.D1-1, d.D0)
	o.Right[0] = v(d.D0+1, d.D1)
	o.Right[1] = 1 - v(d.D1+1, d.D0)
	return o
}

// rules returns the solution's rules: common-hand's where none are set.
func (sol *Solution) rules() *Rules {
	if sol.Rules == nil {
		return CommonHand
	}
	return sol.Rules
}

// Has reports whether the solution covers a deal.
func (sol *Solution) Has(d Deal) bool { return sol.trees[d] != nil }

// Act plays the solution: see Policy.
func (sol *Solution) Act(d Deal, seat, hand int, hist []int, out []float64) {
	t := sol.trees[d]
	if t == nil {
		return
	}
	n, actor := t.Find(hist)
	if n < 0 || actor != seat || hand < 0 || hand >= len(t.hands[seat]) {
		return
	}
	nd := &t.nodes[n]
	p := sol.strat[d][seat][nd.off+hand*nd.nact : nd.off+(hand+1)*nd.nact]
	nb := d.Bids()
	for a, x := range p {
		switch {
		case a < len(nd.moves):
			out[nd.moves[a]] = x
		default:
			out[nb+a-len(nd.moves)] = x
		}
	}
}

// State returns the tree node of a history: what the seat to act
// remembers of it (see Stated), or -1.
func (sol *Solution) State(d Deal, hist []int) int {
	t := sol.trees[d]
	if t == nil {
		return -1
	}
	n, _ := t.Find(hist)
	return n
}

// Purify drops every action played with a chance below min and
// renormalises, so that the strategy is sparse; Quantize after it.
func (sol *Solution) Purify(min float64) {
	sol.each(func(p []float64) {
		total, top, topP := 0.0, 0, -1.0
		for a, x := range p {
			if x > topP {
				top, topP = a, x
			}
			if x < min {
				p[a] = 0
			}
			total += p[a]
		}
		if total == 0 {
			p[top], total = 1, 1
		}
		for a := range p {
			p[a] /= total
		}
	})
}

// each calls fn with the distribution of every information set.
func (sol *Solution) each(fn func(p []float64)) {
	for d, st := range sol.strat {
		t := sol.trees[d]
		for n := range t.nodes {
			nd := &t.nodes[n]
			for h := range t.hands[nd.actor] {
				fn(st[nd.actor][nd.off+h*nd.nact : nd.off+(h+1)*nd.nact])
			}
		}
	}
}

// Quantize rounds every probability to a multiple of 1/steps, keeping each
// distribution whole, so that the strategy played is exactly the one
// stored.
func (sol *Solution) Quantize(steps int) {
	sol.each(func(p []float64) { quantize(p, steps) })
}

// quantize rounds p to multiples of 1/steps that sum to 1 (largest
// remainders).
func quantize(p []float64, steps int) {
	units := make([]int, len(p))
	left := steps
	for i, x := range p {
		units[i] = int(math.Floor(x * float64(steps)))
		left -= units[i]
	}
	for ; left > 0; left-- {
		best, bestRem := 0, -1.0
		for i, x := range p {
			if rem := x*float64(steps) - float64(units[i]); rem > bestRem {
				best, bestRem = i, rem
			}
		}
		units[best]++
		p[best] = -1 // taken: no second unit from its remainder
	}
	for i := range p {
		p[i] = float64(units[i]) / float64(steps)
	}
}
