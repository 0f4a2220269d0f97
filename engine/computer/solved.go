package computer

import (
	_ "embed"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer/duel"
)

//go:generate go run ./duel/gen -start 1 -iters 400 -rounds 5 -o duel1.gz
//go:generate go run ./duel/gen -start 2 -iters 150 -rounds 4 -o duel2.gz
//go:generate go run ./duel/gen -rules perudo -start 1 -iters 400 -rounds 5 -o perudo1.gz
//go:generate go run ./duel/gen -rules perudo -start 2 -iters 150 -rounds 4 -o perudo2.gz

// The CFR+ solutions of two-seat common-hand and perudo with one and two
// dice a seat (duel.Solve; docs/computer.md gives their recipe and
// figures).
var (
	//go:embed duel1.gz
	duel1Data []byte
	//go:embed duel2.gz
	duel2Data []byte
	//go:embed perudo1.gz
	perudo1Data []byte
	//go:embed perudo2.gz
	perudo2Data []byte

	solutions = sync.OnceValue(func() map[*duel.Rules]*[3]*duel.Solution {
		out := map[*duel.Rules]*[3]*duel.Solution{duel.CommonHand: {}, duel.Perudo: {}}
		for _, f := range []struct {
			name  string
			rules *duel.Rules
			start int
			data  []byte
		}{
			{"duel1.gz", duel.CommonHand, 1, duel1Data},
			{"duel2.gz", duel.CommonHand, 2, duel2Data},
			{"perudo1.gz", duel.Perudo, 1, perudo1Data},
			{"perudo2.gz", duel.Perudo, 2, perudo2Data},
		} {
			sol, err := duel.Decode(f.data)
			if err == nil && (sol.Start != f.start || sol.Rules != f.rules) {
				err = fmt.Errorf("computer: %s holds %s with %d dice a seat", f.name, sol.Rules.Name, sol.Start)
			}
			if err != nil {
				// The files are the repository's own: a test decodes them.
				slog.Error("computer: an embedded solution does not decode", "file", f.name, "err", err)
				continue
			}
			out[f.rules][f.start] = sol
		}
		return out
	})
)

// solutionFor returns the solution that covers deal d of the rules in a
// game whose seats started with start dice, or nil. Common-hand's depends
// on the start (a right spot-on gives a die back below it); perudo's game
// of two seats gives no die back, so a hand of at most two dice a seat is
// the same game whatever the seats started with: the one-die solution
// covers one die each, the two-dice one the others.
func solutionFor(r *duel.Rules, start int, d duel.Deal) *duel.Solution {
	var sol *duel.Solution
	switch r {
	case duel.CommonHand:
		if start >= 1 && start <= 2 {
			sol = solutions()[r][start]
		}
	case duel.Perudo:
		if n := max(d.D0, d.D1); n >= 1 && n <= 2 {
			sol = solutions()[r][n]
		}
	}
	if sol == nil || !sol.Has(d) {
		return nil
	}
	return sol
}

// Weighted is an action and the chance that a player takes it.
type Weighted struct {
	Action engine.Action
	P      float64
}

// Mixer is a strategy whose choice is a known distribution over actions:
// Choose draws from Mix. Mix returns nil where the distribution is not
// known (a blurred or flustered choice); Choose still plays there.
type Mixer interface {
	Mix(v View) []Weighted
}

// Solved is the strong level: it plays an equilibrium where one is solved
// (two seats of common-hand, one or two dice a seat, six sides, no wilds;
// two seats of perudo with at most two dice each: the CFR+ solutions
// embedded in the binary), drawing its mixed choice from the seeded
// source, and Approx elsewhere and when flustered.
type Solved struct {
	Approx Leveled
}

// Strong is the strong level: the solved equilibrium where there is one,
// else the odds player that reads every bid of the hand, mixes close
// options, never repeats a bid and raises tavern's stake on a bid it
// believes.
func Strong() Solved { return Solved{Approx: strongApprox()} }

// strongApprox is the strong level where no solution covers the game.
func strongApprox() Leveled {
	m := StrongModel
	m.EveryBid, m.MaxReads = true, 2
	return Leveled{Model: m, Tuned: map[string]Model{"perudo": PerudoModel}, Temperature: 0.02, Fresh: true, StakeAt: 0.8}
}

// PerudoModel is the strong level's model at perudo tables: each seat's
// bids on a face read once (not twice), and a bid believed a little more
// (λ = 1.25). Bids climb to and from ones by halving and doubling, so a
// seat's second bid on a face is more often forced by the arithmetic than
// chosen; reading it twice lost to strong-v1 (four seats, seed 7, 1000
// games: 45.6% reading twice, 57.0% once; docs/computer.md).
var PerudoModel = Model{Lean: 1.25, ChallengeAt: 0.5, Softness: 0.15, ChipValue: 0.005, EveryBid: true, MaxReads: 1}

// StrongV1 is the strong level before the solved one (kept to measure the
// new one against): exact values, reading the standing bid only, always
// the best option.
func StrongV1() Leveled { return Leveled{Model: StrongModel} }

// Choose draws the solved strategy's action, or Approx's.
func (s Solved) Choose(v View, rng *rand.Rand) engine.Action {
	if mix := s.solvedMix(v); mix != nil {
		x := rng.Float64()
		for _, w := range mix {
			if x < w.P {
				return w.Action
			}
			x -= w.P
		}
		return mix[len(mix)-1].Action
	}
	return s.Approx.Choose(v, rng)
}

// Mix returns the solved strategy's distribution, or Approx's.
func (s Solved) Mix(v View) []Weighted {
	if mix := s.solvedMix(v); mix != nil {
		return mix
	}
	return s.Approx.Mix(v)
}

// Show shows what Approx shows.
func (s Solved) Show(v View, rng *rand.Rand) []int { return s.Approx.Show(v, rng) }

// solvedMix returns the solution's distribution for the view, or nil when
// no solution covers it.
func (s Solved) solvedMix(v View) []Weighted {
	r, d, seat, hand, hist, ok := duelState(v)
	if !ok {
		return nil
	}
	sol := solutionFor(r, v.startDice(), d)
	if sol == nil {
		return nil
	}
	nb := d.Bids()
	p := make([]float64, nb+2)
	sol.Act(d, seat, hand, hist, p)
	var mix []Weighted
	for a, x := range p {
		if x <= 0 {
			continue
		}
		act := engine.Action{Type: engine.ActChallenge, Seat: v.Seat}
		switch {
		case a < nb:
			q, f := r.Bid(d.Dice(), a)
			act = engine.Action{Type: engine.ActBid, Seat: v.Seat, Quantity: q, Face: f}
		case a == nb+1:
			act.Type = engine.ActSpotOn
		}
		mix = append(mix, Weighted{Action: act, P: x})
	}
	return mix
}

// startDice is the dice each seat started with.
func (v View) startDice() int {
	if v.StartDice > 0 {
		return v.StartDice
	}
	if p, err := v.preset(); err == nil {
		return p.Dice
	}
	return 0
}

// duelState maps the view to a solved game: two seats of common-hand with
// at most two dice each (started with), six sides, no wilds, or two seats
// of perudo with at most two dice each, ones wild, no calza and no
// palifico hand; nothing shown, the hand's bids known, the seat to act and
// not flustered. It returns the rules, the deal (the opener's dice first),
// the seat's place (0 opens), the index of its dice and the bids as
// indices.
func duelState(v View) (r *duel.Rules, d duel.Deal, seat, hand int, hist []int, ok bool) {
	s := v.Snapshot
	limit := 2
	switch {
	case s.Rules == "common-hand" && !s.Wild:
		r, limit = duel.CommonHand, v.startDice()
	case s.Rules == "perudo" && s.Wild && !s.Palifico && (s.Calza == nil || !*s.Calza):
		r = duel.Perudo
	default:
		return nil, d, 0, 0, nil, false
	}
	if s.Sides != duel.Sides || s.StarDie || v.Flustered ||
		limit < 1 || limit > 2 || !v.myTurn() || v.seatsInHand() != 2 {
		return nil, d, 0, 0, nil, false
	}
	if (s.Bid == nil) != (len(v.Bids) == 0) {
		return nil, d, 0, 0, nil, false
	}
	me := v.seatIndex()
	if me < 0 {
		return nil, d, 0, 0, nil, false
	}
	other := v.nextInHand(me)
	if other < 0 || len(s.Seats[me].Shown) > 0 || len(s.Seats[other].Shown) > 0 {
		return nil, d, 0, 0, nil, false
	}
	mine, theirs := s.Seats[me].Dice, s.Seats[other].Dice
	if len(v.Dice) != mine || mine > limit || theirs > limit || mine < 1 || theirs < 1 {
		return nil, d, 0, 0, nil, false
	}
	// The seat opened the hand when an even number of bids was made.
	seat = len(v.Bids) % 2
	if seat == 0 {
		d = duel.Deal{D0: mine, D1: theirs}
	} else {
		d = duel.Deal{D0: theirs, D1: mine}
	}
	hist = make([]int, len(v.Bids))
	for i, b := range v.Bids {
		// Bids alternate between the seats, the seat's own on its parity.
		if (b.Seat == v.Seat) != (i%2 == seat) {
			return nil, d, 0, 0, nil, false
		}
		if hist[i] = r.BidIndex(d.Dice(), b.Quantity, b.Face); hist[i] < 0 {
			return nil, d, 0, 0, nil, false
		}
	}
	if n := len(v.Bids); n > 0 {
		last := v.Bids[n-1]
		if last.Quantity != s.Bid.Quantity || last.Face != s.Bid.Face || last.Seat != s.Bid.Seat {
			return nil, d, 0, 0, nil, false
		}
	}
	if !slices.IsSorted(hist) {
		return nil, d, 0, 0, nil, false
	}
	hand = duel.HandIndex(v.Dice)
	if hand < 0 {
		return nil, d, 0, 0, nil, false
	}
	return r, d, seat, hand, hist, true
}
