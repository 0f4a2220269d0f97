package duel

import (
	"cmp"
	"slices"
)

// Rules are the rules of a game solved here, as they bear on one hand of
// two seats: the order in which bids raise, the faces a hand may open on,
// what a die counts for and whether a spot-on is called.
type Rules struct {
	// Name is the engine's preset.
	Name string
	// Wild: a one counts for every other face; a bid on ones counts ones
	// only.
	Wild bool
	// NoOpeningOnes: a hand's first bid may not be on ones.
	NoOpeningOnes bool
	// SpotOn: a seat may call spot-on against the standing bid.
	SpotOn bool
	// track orders bids by perudo's raise rule (star-board's track with
	// the ones as the star) instead of quantity, then face.
	track bool
	// recall4 is the last bids a solution remembers with four dice in
	// play (Recall).
	recall4 int
	// code names the rules in a solution file (0 is common-hand, whose
	// files carry no code).
	code byte
	// order caches bids(n) for the hands solved here.
	order [maxCached + 1][]bid
}

// maxCached is the most dice in play whose order of bids is kept.
const maxCached = 8

// The rules solved here. Common-hand: bids rise by quantity, then face;
// no wilds; spot-on. Perudo with two seats left: ones wild, bids to and
// from ones by halving and doubling, no hand opened on ones, and no calza
// (refused while two seats are left, so also no palifico hand: that needs
// three seats).
var (
	CommonHand = newRules(Rules{Name: "common-hand", SpotOn: true, recall4: 2})
	Perudo     = newRules(Rules{Name: "perudo", Wild: true, NoOpeningOnes: true, track: true, recall4: 3, code: 1})
)

func newRules(r Rules) *Rules {
	for n := range r.order {
		r.order[n] = r.bids(n)
	}
	return &r
}

// RulesNamed returns the rules of a preset, or nil when none is solved.
func RulesNamed(name string) *Rules {
	for _, r := range []*Rules{CommonHand, Perudo} {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func rulesOfCode(code byte) *Rules {
	for _, r := range []*Rules{CommonHand, Perudo} {
		if r.code == code {
			return r
		}
	}
	return nil
}

// bid is a quantity of a face.
type bid struct{ q, f int }

// bids lists every bid of a hand with n dice in play (every quantity up
// to n of every face), lowest first as the rules raise them: each raises
// exactly those before it.
func (r *Rules) bids(n int) []bid {
	if n <= maxCached && r.order[n] != nil {
		return r.order[n]
	}
	out := make([]bid, 0, n*Sides)
	for q := 1; q <= n; q++ {
		for f := 1; f <= Sides; f++ {
			out = append(out, bid{q, f})
		}
	}
	if r.track {
		// q ones stand right after 2q of any face (3q-1 on the track);
		// q of a face on space q-1+(q-1)/2, the faces in order.
		space := func(b bid) int {
			if b.f == 1 {
				return 3*b.q - 1
			}
			return b.q - 1 + (b.q-1)/2
		}
		slices.SortStableFunc(out, func(a, b bid) int { return cmp.Or(cmp.Compare(space(a), space(b)), cmp.Compare(a.f, b.f)) })
	}
	return out
}

// Bid returns the quantity and face of bid i of a hand with n dice in
// play.
func (r *Rules) Bid(n, i int) (q, f int) {
	if !r.track {
		return Bid(i)
	}
	b := r.bids(n)[i]
	return b.q, b.f
}

// BidIndex returns the index of the bid (q, f) in a hand with n dice in
// play, or -1 when it is not one.
func (r *Rules) BidIndex(n, q, f int) int {
	if q < 1 || q > n || f < 1 || f > Sides {
		return -1
	}
	if !r.track {
		return BidIndex(q, f)
	}
	return slices.Index(r.bids(n), bid{q, f})
}

// Opens reports whether a hand may open on bid i of a hand with n dice.
func (r *Rules) Opens(n, i int) bool {
	if !r.NoOpeningOnes {
		return true
	}
	_, f := r.Bid(n, i)
	return f != 1
}

// counts returns how many dice of a hand's face counts count for a bid on
// face f.
func (r *Rules) counts(count *[Sides + 1]int, f int) int {
	if r.Wild && f != 1 {
		return count[f] + count[1]
	}
	return count[f]
}

// calls is the number of calls a seat may make against a standing bid:
// challenge, and spot-on where the rules have it.
func (r *Rules) calls() int {
	if r.SpotOn {
		return 2
	}
	return 1
}

// moves lists the bids a seat may make in a hand of deal d after bid last
// (-1 before the first), ascending.
func (r *Rules) moves(d Deal, last int) []int {
	out := make([]int, 0, d.Bids()-1-last)
	for j := last + 1; j < d.Bids(); j++ {
		if last >= 0 || r.Opens(d.Dice(), j) {
			out = append(out, j)
		}
	}
	return out
}
