package computer

import (
	"cmp"
	"math"
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// Option is one legal action with the value a player gives it.
type Option struct {
	Action engine.Action
	// Value is the action's expected value, in dice of the seat's own: -1
	// is a die surely lost (or gained in kids, or the round lost in
	// endurance), and a die another seat loses counts 1/(seats in hand - 1).
	// A bid is valued by the next seat's likely answer: its challenge
	// settles the bid, its raise leaves the bid worth 0.
	Value float64
	// Chance is the seat's estimate that the option's bid holds: the new
	// bid for a bid, the standing bid for a challenge or all-in, the count
	// being exactly the standing bid for a spot-on; 0 for a fold.
	Chance float64
}

// Model holds the numbers a leveled player decides with.
type Model struct {
	// Lean is what a bid tells about its bidder's hand: the likelihood of
	// a bid on a face while holding k hidden dice that count for it is
	// exp(Lean*k). 0 reads nothing into bids.
	Lean float64
	// ChallengeAt and Softness model the next seat's answer to a raise: it
	// challenges with chance 1/(1+exp((c-ChallengeAt)/Softness)) where c is
	// its own estimate, from its dice, that the raise is true.
	ChallengeAt, Softness float64
	// ChipValue is what one chip is worth, in dice (tavern's stakes).
	ChipValue float64
	// EveryBid reads every bid of the hand (View.Bids), not only the
	// standing one: each bid a seat made on a face counts as one more
	// sign that it holds that face, up to MaxReads signs.
	EveryBid bool
	MaxReads int
}

// StrongModel is the strong level's model, tuned with the arena
// (docs/computer.md).
var StrongModel = Model{Lean: 1, ChallengeAt: 0.5, Softness: 0.15, ChipValue: 0.005}

// Rank values every legal option of the view with the strong level's model
// and returns them best first; ties keep Legal's order, so the lower of two
// equal bids comes first. After a successful bluff check the seat plays the
// second. It is empty when it is not the seat's turn.
func Rank(v View) []Option {
	return StrongModel.Rank(v)
}

// Rank values every legal option of the view and returns them best first.
func (m Model) Rank(v View) []Option {
	scored := m.score(v)
	slices.SortStableFunc(scored, byValue)
	opts := make([]Option, len(scored))
	for i, sc := range scored {
		opts[i] = Option{Action: sc.m.action(v.Seat), Value: sc.value, Chance: sc.chance}
	}
	return opts
}

// scored is a legal move with its value and chance (as in Option).
type scored struct {
	m             move
	value, chance float64
}

// byValue orders scored moves best first.
func byValue(a, b scored) int { return cmp.Compare(b.value, a.value) }

// score values every legal move of the view, in legalMoves' order.
func (m Model) score(v View) []scored {
	moves := legalMoves(v)
	if len(moves) == 0 {
		return nil
	}
	p, _ := v.preset() // legalMoves checked it
	ev := newEvaluator(m, v, p)
	out := make([]scored, len(moves))
	for i, mv := range moves {
		out[i] = ev.value(mv)
	}
	return out
}

// Chance is the view's estimate, from its own dice, the shown dice and what
// the bid tells of its bidder (lean as in Model), that the bid (q, face)
// is true: the dice in play that count for it are at least q.
func Chance(v View, q, face int, lean float64) float64 {
	p, err := v.preset()
	if err != nil {
		return 0
	}
	ev := newEvaluator(Model{Lean: lean}, v, p)
	return tailAt(ev.belief(face).allTail, q)
}

// evaluator computes the values of one view's options.
type evaluator struct {
	m     Model
	v     View
	p     *engine.Preset
	me    int // the seat's index
	next  int // the next seat in the hand, or -1
	n     int // seats in the hand
	w     float64
	faces []*faceBelief // by face
}

// faceBelief is what the seat knows of one face's count.
type faceBelief struct {
	chance float64
	known  int         // my dice and every shown die that count
	shown  int         // shown dice of every seat that count
	groups [][]float64 // per seat index: its hidden dice that count (nil for me and seats out of the hand)
	// all and allTail are the count's distribution and its tail (allTail[q]
	// is the chance of at least q); rest and restTail leave out the next
	// seat's hidden dice; nextTail is the tail of what the next seat does
	// not know.
	all, allTail, rest, restTail, nextTail []float64
}

// tails returns t with t[q] the chance that a count of distribution pmf is
// at least q, for q in 0..len(pmf).
func tails(pmf []float64) []float64 {
	t := make([]float64, len(pmf)+1)
	for q := len(pmf) - 1; q >= 0; q-- {
		t[q] = t[q+1] + pmf[q]
	}
	for q := range t {
		t[q] = min(1, t[q])
	}
	return t
}

// tailAt reads a tails array: 1 below 0, 0 beyond it.
func tailAt(t []float64, q int) float64 {
	switch {
	case q <= 0:
		return 1
	case q >= len(t):
		return 0
	}
	return t[q]
}

func newEvaluator(m Model, v View, p *engine.Preset) *evaluator {
	e := &evaluator{m: m, v: v, p: p, me: v.seatIndex(), n: v.seatsInHand(), faces: make([]*faceBelief, v.Snapshot.Sides+1)}
	if e.me >= 0 {
		e.next = v.nextInHand(e.me)
	} else {
		e.next = -1
	}
	e.w = 1
	if e.n > 1 {
		e.w = 1 / float64(e.n-1)
	}
	return e
}

// belief returns (and caches) what the seat knows of face.
func (e *evaluator) belief(face int) *faceBelief {
	if b := e.faces[face]; b != nil {
		return b
	}
	s := e.v.Snapshot
	b := &faceBelief{chance: MatchChance(s.Sides, s.Wild, face), groups: make([][]float64, len(s.Seats))}
	b.known = counts(e.v.Dice, s.Wild, face)
	for i, st := range s.Seats {
		if !st.InHand {
			continue
		}
		c := counts(st.Shown, s.Wild, face)
		b.shown += c
		if i == e.me {
			continue
		}
		b.known += c
		lean := e.m.Lean * float64(e.reads(st.Name, face))
		b.groups[i] = bidderPosterior(e.v.hiddenOf(i), b.chance, lean)
	}
	b.all = e.sumGroups(b, -1)
	b.allTail = tails(b.all)
	e.faces[face] = b
	return b
}

// reads returns how many bids of the seat named on face the model reads:
// the standing bid alone, or, with EveryBid and the hand's bids known,
// each of its bids on face, up to MaxReads.
func (e *evaluator) reads(seat string, face int) int {
	s := e.v.Snapshot
	// Earlier bids are read only where a raise may go to any face (common-
	// hand, kids, endurance, star-board's track). Where bids may circle
	// (tavern) or the face never goes down (classic), a seat's bids on one
	// face are forced more than chosen, and reading them was measured to
	// mislead (against strong-v1: three seats of tavern 32% reading them,
	// 68% not, fair 67%; four of classic 26%, 53%, fair 50%).
	// In perudo's palifico hand the face is locked: every bid after the
	// first is on it, forced, so only the standing bid is read.
	everyBid := (e.p.Raise == engine.RaiseQuantityOrFace || e.p.Raise == engine.RaiseTrack) && !s.Palifico
	if !e.m.EveryBid || e.v.Bids == nil || !everyBid {
		if s.Bid != nil && s.Bid.Seat == seat && s.Bid.Face == face {
			return 1
		}
		return 0
	}
	n := 0
	for _, b := range e.v.Bids {
		if b.Seat == seat && b.Face == face {
			n++
		}
	}
	return min(n, max(1, e.m.MaxReads))
}

// nextBelief adds to a face's belief what bids need: the count without the
// next seat's hidden dice, and what the next seat does not know.
func (e *evaluator) nextBelief(face int) *faceBelief {
	b := e.belief(face)
	if b.nextTail == nil && e.next >= 0 {
		s := e.v.Snapshot
		b.rest = e.sumGroups(b, e.next)
		b.restTail = tails(b.rest)
		// The next seat knows its own dice and the shown ones; the rest of
		// the dice in play are unknown to it, my hidden ones included.
		unknownToNext := e.v.diceInPlay() - e.dice(e.next)
		for i, st := range s.Seats {
			if st.InHand && i != e.next {
				unknownToNext -= len(st.Shown)
			}
		}
		b.nextTail = tails(Binomial(unknownToNext, b.chance))
	}
	return b
}

// sumGroups returns the distribution of the count of a face over the dice
// in play, leaving out the hidden dice of seat skip (-1 for none).
func (e *evaluator) sumGroups(b *faceBelief, skip int) []float64 {
	dist := []float64{1}
	for i, g := range b.groups {
		if g != nil && i != skip {
			dist = convolve(dist, g)
		}
	}
	return shift(dist, b.known)
}

func (e *evaluator) dice(i int) int { return e.v.Snapshot.Seats[i].Dice }

// stakeCost is what paying the current stake costs, in dice.
func (e *evaluator) stakeCost() float64 {
	if e.v.Snapshot.Stake == nil {
		return 0
	}
	return e.m.ChipValue * float64(*e.v.Snapshot.Stake)
}

func (e *evaluator) value(a move) scored {
	s := e.v.Snapshot
	switch a.typ {
	case engine.ActFold:
		return scored{m: a, value: -1}
	case engine.ActChallenge, engine.ActAllIn:
		dist := e.belief(s.Bid.Face).all
		o := scored{m: a, chance: tailAt(e.belief(s.Bid.Face).allTail, s.Bid.Quantity)}
		bidder := slices.IndexFunc(s.Seats, func(st engine.SeatView) bool { return st.Name == s.Bid.Seat })
		for c, pc := range dist {
			if pc > 0 {
				o.value += pc * e.challengeOutcome(s.Bid.Quantity, c, e.me, bidder)
			}
		}
		if a.typ == engine.ActChallenge {
			o.value -= e.stakeCost()
		} else if ch := s.Seats[e.me].Chips; ch != nil {
			o.value -= e.m.ChipValue * float64(*ch)
		}
		return o
	case engine.ActSpotOn:
		b := e.belief(s.Bid.Face)
		right := at(b.all, s.Bid.Quantity)
		o := scored{m: a, chance: right}
		o.value = right*e.spotOnRight() - (1 - right)
		return o
	case engine.ActBid:
		return e.bidValue(a)
	}
	return scored{m: a, value: math.Inf(-1)}
}

// challengeOutcome is the value for the seat of a challenge by caller of a
// bid of q made by bidder, when the count is c.
func (e *evaluator) challengeOutcome(q, c, caller, bidder int) float64 {
	// The value of seat i losing d dice (never more than it has).
	lose := func(i, d int) float64 {
		d = min(d, e.dice(i))
		if i == e.me {
			return -float64(d)
		}
		return e.w * float64(d)
	}
	switch e.p.Loss {
	case engine.LoseDifference:
		switch {
		case c < q:
			return lose(bidder, q-c)
		case c > q:
			return lose(caller, c-q)
		}
		// A perfect bid: every seat in the hand but the bidder loses one.
		v := 0.0
		for i, st := range e.v.Snapshot.Seats {
			if st.InHand && i != bidder {
				v += lose(i, 1)
			}
		}
		return v
	default: // one die lost (or gained in kids, or the round lost)
		if c >= q {
			return lose(caller, 1)
		}
		return lose(bidder, 1)
	}
}

// spotOnRight is the value for the seat of its own right spot-on; a wrong
// one costs it a die (-1) in every preset.
func (e *evaluator) spotOnRight() float64 {
	switch e.p.SpotOn {
	case engine.SpotOnWinsRound, engine.SpotOnOthersLose:
		return e.w * float64(e.n-1)
	case engine.SpotOnGainsBack:
		start := e.v.StartDice
		if start == 0 {
			start = e.p.Dice
		}
		if e.dice(e.me) < start {
			return 1
		}
	case engine.SpotOnReversed:
		if e.dice(e.me) > 1 {
			return 1
		}
	}
	return 0
}

// bidValue values a bid by how the next seat is likely to answer it: it
// challenges when the bid looks false from its own dice; then the count
// decides. When it raises instead, the hand goes on and the bid is worth 0.
func (e *evaluator) bidValue(a move) scored {
	q, f := a.q, a.f
	b := e.nextBelief(f)
	o := scored{m: a, chance: tailAt(b.allTail, q), value: -e.stakeCost()}
	if e.next < 0 {
		return o
	}
	nextDist := b.groups[e.next]
	for k, pk := range nextDist {
		if pk < 1e-12 {
			continue
		}
		believed := tailAt(b.nextTail, q-k-b.shown)
		challenge := 1 / (1 + math.Exp((believed-e.m.ChallengeAt)/e.m.Softness))
		if challenge < 1e-9 {
			continue
		}
		var outcome float64
		if e.p.Loss == engine.LoseDifference {
			for c, pc := range b.rest {
				if pc > 0 {
					outcome += pc * e.challengeOutcome(q, c+k, e.next, e.me)
				}
			}
		} else {
			// One die: the next seat's if the count reaches q, else mine.
			t := tailAt(b.restTail, q-k)
			outcome = t*e.challengeOutcome(q, q, e.next, e.me) + (1-t)*e.challengeOutcome(q, q-1, e.next, e.me)
		}
		o.value += pk * challenge * outcome
	}
	return o
}
