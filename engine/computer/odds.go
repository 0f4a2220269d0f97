package computer

import "math"

// MatchChance is the chance that one unknown die counts for a bid on face:
// 1/sides, or 2/sides when ones are wild (the star, in star-board) and the
// bid is not on the wild face itself. A star bid counts stars only.
func MatchChance(sides int, wild bool, face int) float64 {
	if sides < 1 {
		return 0
	}
	if wild && face != 1 {
		return math.Min(1, 2/float64(sides))
	}
	return 1 / float64(sides)
}

// Binomial returns the distribution of the number of n unknown dice that
// count, each with chance p: element k is the chance of exactly k.
func Binomial(n int, p float64) []float64 {
	if n < 0 {
		n = 0
	}
	pmf := make([]float64, n+1)
	switch {
	case p <= 0:
		pmf[0] = 1
		return pmf
	case p >= 1:
		pmf[n] = 1
		return pmf
	}
	// The recurrence pmf[k+1] = pmf[k] (n-k)/(k+1) p/(1-p) from (1-p)^n;
	// with at most a few hundred dice in play (1-p)^n stays far above the
	// smallest float64.
	pmf[0] = math.Pow(1-p, float64(n))
	r := p / (1 - p)
	for k := 0; k < n; k++ {
		pmf[k+1] = pmf[k] * float64(n-k) / float64(k+1) * r
	}
	return pmf
}

// AtLeast is the chance that at least k of n unknown dice count, each with
// chance p. It is 1 for k <= 0 and 0 for k > n.
func AtLeast(n, k int, p float64) float64 {
	return tail(Binomial(n, p), k)
}

// Exactly is the chance that exactly k of n unknown dice count, each with
// chance p.
func Exactly(n, k int, p float64) float64 {
	if k < 0 || k > n {
		return 0
	}
	return Binomial(n, p)[k]
}

// tail returns the chance that a count with distribution pmf is at least k.
func tail(pmf []float64, k int) float64 {
	if k <= 0 {
		return 1
	}
	t := 0.0
	for j := k; j < len(pmf); j++ {
		t += pmf[j]
	}
	return math.Min(1, t)
}

// at returns pmf[k], or 0 outside it.
func at(pmf []float64, k int) float64 {
	if k < 0 || k >= len(pmf) {
		return 0
	}
	return pmf[k]
}

// convolve returns the distribution of the sum of two independent counts.
func convolve(a, b []float64) []float64 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]float64, len(a)+len(b)-1)
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			out[i+j] += x * y
		}
	}
	return out
}

// shift returns the distribution of a count plus a known number c.
func shift(pmf []float64, c int) []float64 {
	out := make([]float64, len(pmf)+c)
	copy(out[c:], pmf)
	return out
}

// bidderPosterior is what a bid on a face tells about the bidder's n
// hidden dice. The prior is Binomial(n, p); the likelihood of making the bid
// while holding k dice that count for it is exp(lean*k): people bid what
// they hold, without always doing so. lean 0 reads nothing into the bid.
func bidderPosterior(n int, p, lean float64) []float64 {
	post := Binomial(n, p)
	if lean == 0 {
		return post
	}
	total := 0.0
	for k := range post {
		post[k] *= math.Exp(lean * float64(k))
		total += post[k]
	}
	if total > 0 {
		for k := range post {
			post[k] /= total
		}
	}
	return post
}

// counts returns how many of faces count for a bid on face.
func counts(faces []int, wild bool, face int) int {
	c := 0
	for _, x := range faces {
		if x == face || (wild && face != 1 && x == 1) {
			c++
		}
	}
	return c
}
