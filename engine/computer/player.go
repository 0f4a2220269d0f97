package computer

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// Player plays a seat from outside the referee, as a person at the table
// would: the demo's players and the tests' tables, which roll the seat's
// dice themselves. Unlike a Strategy it holds its own seeded randomness.
type Player interface {
	// Act returns the seat's move when it is its turn. A star-board bid
	// may be followed by a show (ShowAfter).
	Act(v View) engine.Action
	// ShowAfter returns the dice to show right after the seat's own bid,
	// or nil to show none.
	ShowAfter(v View, bid engine.Action) []int
}

// strategyPlayer plays a seat with one of the levels' strategies.
type strategyPlayer struct {
	strategy Strategy
	rng      *rand.Rand
}

// NewPlayer returns a player of the level ("random", "threshold",
// "beginner", "strong-v1" or "strong", as New takes) drawing from seed.
func NewPlayer(level string, seed uint64) (Player, error) {
	s, err := New(level)
	if err != nil {
		return nil, err
	}
	return &strategyPlayer{strategy: s, rng: rand.New(rand.NewPCG(seed, 0x636f6d70))}, nil
}

// Act returns the strategy's choice: its type, seat, quantity, face and
// stake.
func (p *strategyPlayer) Act(v View) engine.Action {
	cv := NewView(v.Snapshot, v.Seat, v.Dice)
	cv.Bids = v.Bids
	a := p.strategy.Choose(cv, p.rng)
	return engine.Action{Type: a.Type, Seat: a.Seat, Quantity: a.Quantity, Face: a.Face, Stake: a.Stake}
}

// ShowAfter asks the strategy what to show right after its own bid.
func (p *strategyPlayer) ShowAfter(v View, bid engine.Action) []int {
	after := NewView(v.Snapshot, v.Seat, v.Dice)
	after.Snapshot.Bid = &engine.BidSeat{Seat: v.Seat, Quantity: bid.Quantity, Face: bid.Face}
	if v.Bids != nil {
		after.Bids = append(slices.Clone(v.Bids), *after.Snapshot.Bid)
	}
	return p.strategy.Show(after, p.rng)
}

// Simple plays by expectation: it calls a bid that is well above what it
// expects to be on the table, and otherwise makes the raise it finds most
// plausible. It is a plain, legal, plausible player for every preset,
// with its randomness from its own seeded source.
type Simple struct {
	rng *rand.Rand
}

// NewSimple returns a simple player drawing from seed.
func NewSimple(seed uint64) *Simple {
	return &Simple{rng: rand.New(rand.NewPCG(seed, 0x73696d706c65))}
}

// simpleTable holds what Simple works out from a view.
type simpleTable struct {
	v      View
	preset *engine.Preset
	sides  int
	inPlay int // dice in play
	others int // dice in play that are not the seat's
	wild   bool
	star   bool
}

func newSimpleTable(v View) simpleTable {
	t := simpleTable{v: v, preset: engine.Presets[v.Snapshot.Rules], sides: v.Snapshot.Sides,
		wild: v.Snapshot.Wild, star: v.Snapshot.StarDie}
	if t.sides < 2 {
		t.sides = 6
	}
	for _, s := range v.Snapshot.Seats {
		if s.InHand {
			t.inPlay += s.Dice
		}
	}
	t.others = max(t.inPlay-len(v.Dice), 0)
	return t
}

// matches reports whether a die showing x counts for face f.
func (t simpleTable) matches(x, f int) bool {
	return x == f || (t.wild && f != 1 && x == 1)
}

// expected is the count of face f the seat expects on the table.
func (t simpleTable) expected(f int) float64 {
	mine := 0
	for _, x := range t.v.Dice {
		if t.matches(x, f) {
			mine++
		}
	}
	// Dice others have shown count for sure; their hidden ones by chance.
	shown, shownMatch := 0, 0
	for _, s := range t.v.Snapshot.Seats {
		if s.Name == t.v.Seat || !s.InHand {
			continue
		}
		for _, x := range s.Shown {
			shown++
			if t.matches(x, f) {
				shownMatch++
			}
		}
	}
	p := 1 / float64(t.sides)
	if t.wild && f != 1 {
		p = 2 / float64(t.sides)
	}
	return float64(mine+shownMatch) + float64(max(t.others-shown, 0))*p
}

// raises reports whether (q, f) raises the standing bid under the preset's
// rules (a perudo palifico hand's locked face included).
func (t simpleTable) raises(q, f int) bool {
	b := t.v.Snapshot.Bid
	if b == nil {
		return t.preset.Opens(t.v.Snapshot.Palifico, f)
	}
	return t.preset.RaisesIn(t.v.Snapshot.Palifico, b.Quantity, b.Face, q, f)
}

func (t simpleTable) chips() (chips, stake int) {
	for _, s := range t.v.Snapshot.Seats {
		if s.Name == t.v.Seat && s.Chips != nil {
			chips = *s.Chips
		}
	}
	if t.v.Snapshot.Stake != nil {
		stake = *t.v.Snapshot.Stake
	}
	return chips, stake
}

// Act chooses the seat's move.
func (p *Simple) Act(v View) engine.Action {
	t := newSimpleTable(v)
	me := v.Seat
	bid := v.Snapshot.Bid
	if t.preset == nil {
		return engine.Action{Type: engine.ActChallenge, Seat: me}
	}
	if t.preset.Stakes {
		chips, stake := t.chips()
		if chips < stake || chips == 0 {
			if bid != nil {
				return engine.Action{Type: engine.ActAllIn, Seat: me}
			}
			return engine.Action{Type: engine.ActFold, Seat: me}
		}
	}
	if bid != nil {
		e := t.expected(bid.Face)
		margin := 0.8 + p.rng.Float64()*1.2
		if float64(bid.Quantity) > e+margin {
			return engine.Action{Type: engine.ActChallenge, Seat: me}
		}
		calza := t.v.Snapshot.Calza == nil || *t.v.Snapshot.Calza // perudo's, when allowed
		if t.preset.SpotOn != engine.SpotOnNone && calza && math.Abs(float64(bid.Quantity)-e) < 0.4 && p.rng.Float64() < 0.25 {
			return engine.Action{Type: engine.ActSpotOn, Seat: me}
		}
	}
	if bid == nil {
		return p.open(t)
	}
	return p.raise(t)
}

// open is the opening bid: the face the seat holds most of, somewhat
// below what it expects.
func (p *Simple) open(t simpleTable) engine.Action {
	face, e := t.sides, -1.0
	for f := 1; f <= t.sides; f++ {
		if x := t.expected(f) + p.rng.Float64()*0.5; x > e && t.raises(1, f) {
			face, e = f, x
		}
	}
	q := max(1, min(int(e*0.7), t.inPlay))
	return engine.Action{Type: engine.ActBid, Seat: t.v.Seat, Quantity: q, Face: face}
}

// raise answers a standing bid with the raise the seat finds most
// plausible, a challenge when it finds none, or in tavern now and then a
// fold.
func (p *Simple) raise(t simpleTable) engine.Action {
	me, bid := t.v.Seat, t.v.Snapshot.Bid
	best, bestScore := engine.Action{}, math.Inf(-1)
	for f := 1; f <= t.sides; f++ {
		e := t.expected(f)
		for q := 1; q <= t.inPlay; q++ {
			if !t.raises(q, f) {
				continue
			}
			if t.preset.Raise == engine.RaiseEither && q < bid.Quantity {
				// Tavern lets a higher face drop the quantity; bidding
				// fewer dice would let a hand go round for ever.
				continue
			}
			// Plausible (not above what is expected) and modest (not far
			// above the standing bid); a little noise varies the play.
			score := -math.Max(float64(q)-e, 0)*2 - 0.15*float64(q) + p.rng.Float64()*0.6
			if score > bestScore {
				best, bestScore = engine.Action{Type: engine.ActBid, Seat: me, Quantity: q, Face: f}, score
			}
			break // the smallest raise of each face is its most plausible
		}
	}
	if best.Type == "" {
		return engine.Action{Type: engine.ActChallenge, Seat: me}
	}
	if t.preset.Stakes && bestScore < -2.5 && p.rng.Float64() < 0.5 {
		return engine.Action{Type: engine.ActFold, Seat: me}
	}
	return best
}

// ShowAfter shows, now and then, the hidden dice that back the seat's own
// star-board bid, keeping at least one hidden.
func (p *Simple) ShowAfter(v View, bid engine.Action) []int {
	if !v.Snapshot.StarDie || !v.Snapshot.ShowReroll || bid.Type != engine.ActBid || p.rng.Float64() < 0.5 {
		return nil
	}
	var shownAlready []int
	for _, s := range v.Snapshot.Seats {
		if s.Name == v.Seat {
			shownAlready = s.Shown
		}
	}
	hidden := Hidden(v.Dice, shownAlready)
	var show []int
	for _, x := range hidden {
		if (x == bid.Face || x == 1) && len(show)+1 < len(hidden) {
			show = append(show, x)
		}
	}
	if len(show) == 0 {
		return nil
	}
	return show
}

// Hidden returns the dice of all that are not among shown (as multisets),
// in order.
func Hidden(all, shown []int) []int {
	return without(all, shown)
}
