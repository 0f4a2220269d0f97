package computer

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/liarsd/liarsd/engine"
)

// Strategy decides for a computer seat.
type Strategy interface {
	// Choose returns an action the engine accepts for the view: a bid
	// that raises, a challenge, a spot-on where the preset has one, or in
	// tavern a fold or an all-in. It is called only when it is the view's
	// seat's turn; otherwise it returns an action with an empty Type.
	Choose(v View, rng *rand.Rand) engine.Action
	// Show returns the dice to set out face up right after the seat's own
	// bid in star-board (with show_reroll on): some of its hidden dice,
	// never all of them. Nil shows nothing.
	Show(v View, rng *rand.Rand) []int
}

// Levels are the names New takes, weakest first.
var Levels = []string{"random", "threshold", "beginner", "strong-v1", "strong"}

// New returns the strategy of a level: "random", "threshold", "beginner",
// "strong-v1" (the strong level before the solved one) or "strong".
func New(level string) (Strategy, error) {
	switch strings.ToLower(level) {
	case "strong-v1":
		return StrongV1(), nil
	case "random":
		return Random{}, nil
	case "threshold":
		return Threshold{Below: 0.5}, nil
	case "beginner":
		return Beginner(), nil
	case "strong":
		return Strong(), nil
	}
	return nil, fmt.Errorf("computer: no level %q (levels are %s)", level, strings.Join(Levels, ", "))
}

// Random picks uniformly among the legal actions and shows a random part of
// its hidden dice half the time.
type Random struct{}

// Choose returns a uniformly random legal action.
func (Random) Choose(v View, rng *rand.Rand) engine.Action {
	acts := Legal(v)
	if len(acts) == 0 {
		return engine.Action{}
	}
	return acts[rng.IntN(len(acts))]
}

// Mix returns the uniform distribution over the legal actions.
func (Random) Mix(v View) []Weighted {
	acts := Legal(v)
	out := make([]Weighted, len(acts))
	for i, a := range acts {
		out[i] = Weighted{Action: a, P: 1 / float64(len(acts))}
	}
	return out
}

// Show shows a random part of the hidden dice, keeping at least one
// hidden, half the time after its own bid.
func (Random) Show(v View, rng *rand.Rand) []int {
	if bid := v.Snapshot.Bid; bid == nil || bid.Seat != v.Seat || !v.Snapshot.ShowReroll {
		return nil
	}
	hidden := v.myHidden()
	if len(hidden) < 2 || rng.IntN(2) == 0 {
		return nil
	}
	rng.Shuffle(len(hidden), func(i, j int) { hidden[i], hidden[j] = hidden[j], hidden[i] })
	return hidden[:1+rng.IntN(len(hidden)-1)]
}

// Threshold challenges when its chance of the standing bid, from its own
// dice and the shown ones, is below Below; otherwise it makes the lowest
// raise whose chance is at least Below (when none is, the raise it
// believes most). It never calls spot-on and never shows. In tavern it goes
// all in, or folds, when it cannot pay. Its second choice, when
// flustered, is the other branch: the raise instead of the challenge, or
// the challenge instead of the raise.
type Threshold struct {
	Below float64
}

// Choose returns the threshold player's action.
func (t Threshold) Choose(v View, rng *rand.Rand) engine.Action {
	order := t.order(v)
	if len(order) == 0 {
		return engine.Action{}
	}
	if v.Flustered && len(order) > 1 {
		return order[1]
	}
	return order[0]
}

// order returns the threshold player's choice first and its next choice
// second (what a bluff check makes it play).
func (t Threshold) order(v View) []engine.Action {
	moves := legalMoves(v)
	if len(moves) == 0 {
		return nil
	}
	p, _ := v.preset()
	var bids, calls []move
	for _, m := range moves {
		switch m.typ {
		case engine.ActBid:
			bids = append(bids, m)
		case engine.ActChallenge, engine.ActAllIn:
			calls = append(calls, m)
		}
	}
	if len(bids) == 0 && len(calls) == 0 {
		return Legal(v) // only fold
	}
	slices.SortStableFunc(bids, func(a, b move) int { return bidOrder(p.Raise, a, b) })
	ev := newEvaluator(Model{}, v, p)
	chance := func(q, f int) float64 { return tailAt(ev.belief(f).allTail, q) }
	believed := -1
	for i, b := range bids {
		if chance(b.q, b.f) >= t.Below {
			believed = i
			break
		}
	}
	likeliest := -1 // the raise it believes most, when it believes none
	if believed < 0 {
		best := -1.0
		for i, b := range bids {
			if c := chance(b.q, b.f); c > best {
				likeliest, best = i, c
			}
		}
	}
	var order []move
	bid := v.Snapshot.Bid
	switch {
	case bid != nil && len(calls) > 0 && chance(bid.Quantity, bid.Face) < t.Below:
		order = append(order, calls[0])
		if believed >= 0 {
			order = append(order, bids[believed])
		} else if likeliest >= 0 {
			order = append(order, bids[likeliest])
		}
	case believed >= 0:
		order = append(order, bids[believed])
		if len(calls) > 0 {
			order = append(order, calls[0])
		} else if believed+1 < len(bids) {
			order = append(order, bids[believed+1])
		}
	case likeliest >= 0:
		order = append(order, bids[likeliest])
		if len(calls) > 0 {
			order = append(order, calls[0])
		} else if len(bids) > 1 {
			order = append(order, bids[(likeliest+1)%len(bids)])
		}
	default:
		order = append(order, calls[0])
	}
	acts := make([]engine.Action, len(order))
	for i, m := range order {
		acts[i] = m.action(v.Seat)
	}
	return acts
}

// Show shows nothing.
func (Threshold) Show(View, *rand.Rand) []int { return nil }

// bidOrder orders bids from lowest to highest as the raise rule climbs.
func bidOrder(rule engine.RaiseRule, a, b move) int {
	switch rule {
	case engine.RaiseFaceOrQuantity:
		return cmp.Or(cmp.Compare(a.f, b.f), cmp.Compare(a.q, b.q))
	case engine.RaiseTrack:
		return cmp.Or(cmp.Compare(engine.TrackSpace(a.q, a.f), engine.TrackSpace(b.q, b.f)), cmp.Compare(a.f, b.f))
	}
	return cmp.Or(cmp.Compare(a.q, b.q), cmp.Compare(a.f, b.f))
}

// Leveled ranks every legal option with its Model and plays the best, or
// the second best when flustered. Noise blurs each value with a normal
// error (of standard deviation Noise for a bid at even odds, see blur)
// before the choice, as a person's sense of the odds is blurred; 0 plays
// exactly.
type Leveled struct {
	Model Model
	// Tuned replaces Model at the tables of a preset (by name) where the
	// arena found other numbers better (perudo: docs/computer.md).
	Tuned map[string]Model
	Noise float64
	// ShowDice: after its own star-board bid, show the hidden dice that
	// count for it and reroll the others (their chance to count then rises
	// from 0 to 1/3). The arena measured it a loss (the next seat learns
	// more than the reroll gains; docs/computer.md), so no level does it.
	ShowDice bool
	// Temperature mixes: the seat plays each option with a chance
	// proportional to exp(value/Temperature), so that close options are
	// mixed and its bids do not give its dice away; 0 plays the best.
	Temperature float64
	// Fresh: never make a bid already made Repeats+1 times in the hand
	// (tavern's raise rule lets bids climb in a circle), so every hand
	// ends; when every raise it would make is spent, the seat calls. It
	// needs the view's Bids.
	Fresh   bool
	Repeats int
	// StakeAt raises tavern's stake on a bid whose chance is at least
	// StakeAt, when the raise prices the next seat out (it then must go
	// all in against the bid or fold, losing a die) for at most twice the
	// hand's minimum stake more than the current stake, and the seat can
	// pay it; 0 never raises.
	StakeAt float64
}

// Beginner is the beginner level: the strong level's odds player (every
// bid read, no bid repeated) with its values blurred, a normal error of
// about a third of a die on an even bid and none on a certain one, in place
// of the strong level's mixing; it plays no solved table.
func Beginner() Leveled {
	l := strongApprox()
	l.Noise, l.Temperature = 0.35, 0
	return l
}

// Ranked returns the options as this player ranks them for the view, best
// first, its blur included (so it draws from rng when Noise > 0).
func (l Leveled) Ranked(v View, rng *rand.Rand) []Option {
	sc := l.scored(v)
	slices.SortStableFunc(sc, byValue)
	opts := make([]Option, len(sc))
	for i, x := range sc {
		opts[i] = Option{Action: x.m.action(v.Seat), Value: x.value, Chance: x.chance}
	}
	if l.Noise > 0 && len(opts) > 1 {
		for i := range opts {
			opts[i].Value += rng.NormFloat64() * l.blur(opts[i].Chance)
		}
		slices.SortStableFunc(opts, func(a, b Option) int { return cmp.Compare(b.Value, a.Value) })
	}
	return opts
}

// blur is the standard deviation of the error on the value of an option
// whose bid has the given chance: Noise at even odds, less as the bid grows
// sure either way, and none for a certain or impossible bid, which nobody
// misjudges. A fold (chance 0) is not blurred either.
func (l Leveled) blur(chance float64) float64 {
	return l.Noise * 2 * math.Sqrt(max(0, chance*(1-chance)))
}

// Choose plays the best option, or the second best when flustered. It
// finds the two best without sorting them all, drawing the blur in the
// same order as Ranked so that both agree for one seed.
func (l Leveled) Choose(v View, rng *rand.Rand) engine.Action {
	sc := l.scored(v)
	if len(sc) == 0 {
		return engine.Action{}
	}
	if l.Temperature > 0 && !v.Flustered && l.Noise == 0 {
		w := l.weights(sc)
		x := rng.Float64()
		i := 0
		for ; i < len(w)-1 && x >= w[i]; i++ {
			x -= w[i]
		}
		return l.stake(v, sc[i])
	}
	if l.Noise > 0 && len(sc) > 1 {
		// Rank's order first, as Ranked blurs it.
		slices.SortStableFunc(sc, byValue)
		for i := range sc {
			sc[i].value += rng.NormFloat64() * l.blur(sc[i].chance)
		}
	}
	best, second := -1, -1
	for i := range sc {
		switch {
		case best < 0 || sc[i].value > sc[best].value:
			best, second = i, best
		case second < 0 || sc[i].value > sc[second].value:
			second = i
		}
	}
	if v.Flustered && second >= 0 {
		return l.stake(v, sc[second])
	}
	return l.stake(v, sc[best])
}

// scored values the view's legal moves, leaving out with Fresh the bids
// already made in the hand (unless nothing else is left).
func (l Leveled) scored(v View) []scored {
	m, ok := l.Tuned[v.Snapshot.Rules]
	if !ok {
		m = l.Model
	}
	sc := m.score(v)
	if !l.Fresh || len(v.Bids) == 0 {
		return sc
	}
	fresh := sc[:0:0]
	for _, x := range sc {
		if x.m.typ == engine.ActBid {
			made := 0
			for _, b := range v.Bids {
				if b.Quantity == x.m.q && b.Face == x.m.f {
					made++
				}
			}
			if made > l.Repeats {
				continue
			}
		}
		fresh = append(fresh, x)
	}
	if len(fresh) == 0 {
		return sc
	}
	return fresh
}

// weights returns the chance of playing each scored move with
// Temperature: exp(value/Temperature), normalised.
func (l Leveled) weights(sc []scored) []float64 {
	top := math.Inf(-1)
	for _, x := range sc {
		top = max(top, x.value)
	}
	w := make([]float64, len(sc))
	total := 0.0
	for i, x := range sc {
		w[i] = math.Exp((x.value - top) / l.Temperature)
		total += w[i]
	}
	for i := range w {
		w[i] /= total
	}
	return w
}

// Mix returns the chance of each action the player may take for the view
// when its choice is a known distribution: without blur (Noise 0), not
// flustered and with a Temperature. Otherwise it returns nil.
func (l Leveled) Mix(v View) []Weighted {
	if l.Noise != 0 || v.Flustered || l.Temperature <= 0 {
		return nil
	}
	sc := l.scored(v)
	w := l.weights(sc)
	out := make([]Weighted, len(sc))
	for i, x := range sc {
		out[i] = Weighted{Action: l.stake(v, x), P: w[i]}
	}
	return out
}

// stake builds the move's action, raising tavern's stake as StakeAt says.
func (l Leveled) stake(v View, x scored) engine.Action {
	a := x.m.action(v.Seat)
	s := v.Snapshot
	if l.StakeAt <= 0 || a.Type != engine.ActBid || x.chance < l.StakeAt || s.Stake == nil {
		return a
	}
	i := v.seatIndex()
	if i < 0 || s.Seats[i].Chips == nil {
		return a
	}
	next := v.nextInHand(i)
	if next < 0 || s.Seats[next].Chips == nil {
		return a
	}
	theirs := *s.Seats[next].Chips
	raised := theirs + 1
	if theirs >= *s.Stake && raised <= *s.Stake+2*max(1, s.Hand) && raised <= *s.Seats[i].Chips {
		a.Stake = &raised
	}
	return a
}

// Show sets out the hidden dice that count for the seat's standing bid when
// at least one other hidden die is left to reroll.
func (l Leveled) Show(v View, _ *rand.Rand) []int {
	bid := v.Snapshot.Bid
	if !l.ShowDice || bid == nil || bid.Seat != v.Seat {
		return nil
	}
	var show, keep []int
	for _, d := range v.myHidden() {
		if counts([]int{d}, v.Snapshot.Wild, bid.Face) == 1 {
			show = append(show, d)
		} else {
			keep = append(keep, d)
		}
	}
	if len(show) == 0 || len(keep) == 0 {
		return nil
	}
	return show
}
