package engine

import (
	"maps"
	"math/rand/v2"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Phase is where a game stands.
type Phase string

// The phases of MQTT.md's state snapshot.
const (
	PhaseIdle     Phase = "idle"
	PhaseOpening  Phase = "opening"
	PhaseBidding  Phase = "bidding"
	PhaseReveal   Phase = "reveal"
	PhaseGameOver Phase = "game_over"
)

type seat struct {
	name     string
	dice     int
	out      bool // out of the game: no dice, six dice in kids, or left
	left     bool
	roundOut bool // endurance: out of this round
	folded   bool // tavern: folded in this hand
	chips    int
	wins     int
	shown    []int // star-board: dice set out face up in this hand
	// palificoDone: the seat has been brought down to one die in this game
	// (perudo), so it has had or missed its one palifico hand.
	palificoDone bool

	computer   bool
	hidden     []int // a computer seat's dice in this hand: never published
	insight    int
	level      string // the strategy new_game named; the engine does not read it
	bluffBonus int
	flustered  bool // a bluff check succeeded against it: second-best next turn
}

type bid struct{ seat, quantity, face int }

// resolution is what the opener rules need to know of the last hand.
type resolution struct {
	call        string
	caller      int
	bidder      int
	loser       int // the seat the call went against; -1 for none
	winner      int // the seat the call went for; -1 for none
	rightSpotOn bool
	palifico    int // the seat that opens a palifico hand next; -1 for none
}

// game is one game (in endurance, one match) of one preset.
type game struct {
	p   *Preset
	s   settings
	src *rand.PCG // the seeded source rng draws from (clone copies it)
	rng *rand.Rand

	seats  []*seat
	byName map[string]int
	first  int // -1 when new_game named no first seat

	phase  Phase
	number int // game number; in endurance, the round
	hand   int
	opener int
	turn   int // -1 when nobody is to act

	bid      *bid
	bids     []bid // every bid of this hand, oldest first
	palifico bool  // this hand is a palifico hand (perudo)
	acted    bool  // an action was taken in this hand
	showOpen bool  // the last bidder may still show dice
	callKind string
	caller   int

	stake, pot, runningPot int // tavern
	antePot                int // classic
	lastFolder             int // tavern: the seat that folded last in this hand
	tied                   []int
	roundWinner            int // endurance: the last round's winner
	last                   *resolution
	bluffCheck             bool
	// correct is the last accepted reveal while a correct line may
	// replace it: from the reveal to the next accepted line.
	correct *correction

	events []Event
}

func (g *game) emit(e Event) { g.events = append(g.events, e) }

// newGame checks a new_game action and starts the game it describes.
func newGame(a Action, newSource func(seed int64) *rand.PCG) (*game, *Rejection) {
	if r := CheckOptionValues(a.Options); r != nil {
		return nil, r
	}
	if r := checkBluffNumbers(a); r != nil {
		return nil, r
	}
	p, ok := Presets[a.Rules]
	if !ok {
		if a.Rules == "" {
			return nil, reject(UnknownRules, "new_game names no rules; presets are %v", PresetNames())
		}
		return nil, reject(UnknownRules, "no preset %q; presets are %v", a.Rules, PresetNames())
	}
	s, r := p.settle(a.Options)
	if r != nil {
		return nil, r
	}
	if r := checkSeats(p, a.Seats); r != nil {
		return nil, r
	}
	g := &game{
		p: p, s: s, src: newSource(a.Seed),
		byName: make(map[string]int, len(a.Seats)),
		first:  -1, turn: -1, caller: -1, lastFolder: -1, roundWinner: -1,
		number: 1,
	}
	g.rng = randFrom(g.src)
	for i, name := range a.Seats {
		g.seats = append(g.seats, &seat{name: name, dice: s.dice, chips: s.purse})
		g.byName[name] = i
	}
	if !p.Stakes {
		for _, st := range g.seats {
			st.chips = 0
		}
	}
	if a.First != "" || a.EmptyFirst {
		i, ok := g.byName[a.First]
		if !ok {
			return nil, reject(UnknownSeat, "first seat %q is not at this table", a.First)
		}
		g.first = i
	}
	if p.Ante {
		g.antePot = s.ante * len(g.seats)
	}
	if r := g.seatComputers(a); r != nil {
		return nil, r
	}
	g.beginGame()
	return g, nil
}

// checkBluffNumbers checks the computer seats' insight and the people's
// bluff bonuses against their limits (the record package refuses them
// first; this holds for an Action built in code too).
func checkBluffNumbers(a Action) *Rejection {
	for _, name := range slices.Sorted(maps.Keys(a.Computer)) {
		if c := a.Computer[name]; c.Insight < 0 || c.Insight > MaxInsight {
			return reject(BadInput, "computer seat %q: insight must be 0 to %d", name, MaxInsight)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(a.BluffBonus)) {
		if b := a.BluffBonus[name]; b < -MaxBluffBonus || b > MaxBluffBonus {
			return reject(BadInput, "bluff bonus of %q must be -%d to %d", name, MaxBluffBonus, MaxBluffBonus)
		}
	}
	return nil
}

// seatComputers marks the computer seats and the bluff check's numbers.
func (g *game) seatComputers(a Action) *Rejection {
	g.bluffCheck = g.p.BluffCheck
	if a.BluffCheck != nil {
		g.bluffCheck = *a.BluffCheck
	}
	// Names in order, so that a game is always refused in the same words.
	for _, name := range slices.Sorted(maps.Keys(a.Computer)) {
		c := a.Computer[name]
		i, ok := g.byName[name]
		if !ok {
			return reject(UnknownSeat, "computer seat %q is not at this table", name)
		}
		g.seats[i].computer, g.seats[i].insight, g.seats[i].level = true, c.Insight, c.Level
	}
	for _, name := range slices.Sorted(maps.Keys(a.BluffBonus)) {
		bonus := a.BluffBonus[name]
		i, ok := g.byName[name]
		if !ok {
			return reject(UnknownSeat, "bluff bonus for %q, who is not at this table", name)
		}
		g.seats[i].bluffBonus = bonus
	}
	return nil
}

// roll draws n faces from the game's seeded source: a computer seat's dice.
func (g *game) roll(n int) []int {
	faces := make([]int, n)
	for i := range faces {
		faces[i] = 1 + g.rng.IntN(g.s.sides)
	}
	return faces
}

// checkSeats checks seat names and their number against the preset.
func checkSeats(p *Preset, names []string) *Rejection {
	if len(names) == 0 {
		return reject(BadSeats, "new_game names no seats")
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if !validSeatName(n) {
			return reject(BadSeats, "seat name %q is not 1 to 32 letters, digits, spaces, _ or -", n)
		}
		if seen[n] {
			return reject(BadSeats, "seat %q is named twice", n)
		}
		seen[n] = true
	}
	if len(names) < p.MinSeats || len(names) > p.MaxSeats {
		return reject(BadSeats, "%s is played by %d to %d seats, not %d", p.Name, p.MinSeats, p.MaxSeats, len(names))
	}
	return nil
}

// validSeatName reports whether n is 1 to 32 letters, digits, spaces, _ or -.
func validSeatName(n string) bool {
	if n == "" || utf8.RuneCountInString(n) > 32 {
		return false
	}
	for _, r := range n {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

// beginGame starts the first hand, or the opening roll that finds its opener.
func (g *game) beginGame() {
	g.hand = 0
	g.last = nil
	if o := g.openerFor(nil); o >= 0 {
		g.startHand(o)
		return
	}
	g.phase = PhaseOpening
	g.turn = -1
	g.tied = g.tied[:0]
	for i := range g.seats {
		if g.inGame(i) {
			g.tied = append(g.tied, i)
		}
	}
}

func (g *game) inGame(i int) bool { return !g.seats[i].out }

// inRound reports whether the seat plays the current round: in endurance
// out-of-round seats sit out; elsewhere it is inGame.
func (g *game) inRound(i int) bool { return !g.seats[i].out && !g.seats[i].roundOut }

// inHand reports whether the seat's dice are in play in this hand.
func (g *game) inHand(i int) bool { return g.inRound(i) && !g.seats[i].folded }

// nextFrom returns the first seat clockwise after i (i excluded) that
// satisfies ok, or -1.
func (g *game) nextFrom(i int, ok func(int) bool) int {
	n := len(g.seats)
	for k := 1; k <= n; k++ {
		if j := (i + k) % n; j != i && ok(j) {
			return j
		}
	}
	return -1
}

// prevFrom returns the first seat counter-clockwise before i that satisfies
// ok, or -1.
func (g *game) prevFrom(i int, ok func(int) bool) int {
	n := len(g.seats)
	for k := 1; k < n; k++ {
		if j := (i - k + n) % n; ok(j) {
			return j
		}
	}
	return -1
}

func (g *game) count(pred func(int) bool) int {
	c := 0
	for i := range g.seats {
		if pred(i) {
			c++
		}
	}
	return c
}

// diceInPlay counts every die of every seat in the hand, shown and hidden.
func (g *game) diceInPlay() int {
	total := 0
	for i, st := range g.seats {
		if g.inHand(i) {
			total += st.dice
		}
	}
	return total
}

// openerFor applies the preset's opener rule after resolution r, or for a
// game's first hand when r is nil. It returns -1 when an opening roll must
// decide.
func (g *game) openerFor(r *resolution) int {
	if r == nil {
		switch {
		case g.p.Match && g.roundWinner >= 0:
			return g.seatOrNext(g.roundWinner, g.inRound)
		case g.first >= 0 && g.inRound(g.first):
			return g.first
		case g.p.OpeningRoll:
			return -1
		}
		return g.draw(g.inRound)
	}
	switch g.p.Opener {
	case OpenAfterOut:
		return g.nextFrom(r.loser, g.inRound)
	case OpenChallenger:
		return g.seatOrNext(r.caller, g.inGame)
	case OpenLoserFewest:
		if r.loser >= 0 && g.inGame(r.loser) {
			return r.loser
		}
		return g.fewest()
	case OpenLoserElseWinner:
		if r.rightSpotOn {
			return g.seatOrNext(r.caller, g.inGame)
		}
		if g.inGame(r.loser) {
			return r.loser
		}
		return g.seatOrNext(r.winner, g.inGame)
	case OpenLoserElseNext:
		if r.rightSpotOn {
			return g.prevFrom(r.caller, g.inGame)
		}
		return g.seatOrNext(r.loser, g.inGame)
	case OpenLoserOrSpotter:
		if r.palifico >= 0 && g.inGame(r.palifico) {
			return r.palifico
		}
		if r.rightSpotOn {
			return g.seatOrNext(r.caller, g.inGame)
		}
		return g.seatOrNext(r.loser, g.inGame)
	}
	return g.nextFrom(0, g.inGame)
}

// seatOrNext returns i if ok(i), else the next seat clockwise that is.
func (g *game) seatOrNext(i int, ok func(int) bool) int {
	if i >= 0 && ok(i) {
		return i
	}
	return g.nextFrom(i, ok)
}

// draw picks a seeded random seat among those that satisfy ok.
func (g *game) draw(ok func(int) bool) int {
	var c []int
	for i := range g.seats {
		if ok(i) {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return -1
	}
	return c[g.rng.IntN(len(c))]
}

// fewest picks tavern's opener when the loser is out: fewest dice, then
// fewest chips, then a seeded draw.
func (g *game) fewest() int {
	best := -1
	for i, st := range g.seats {
		if !g.inGame(i) {
			continue
		}
		if best < 0 || st.dice < g.seats[best].dice ||
			(st.dice == g.seats[best].dice && st.chips < g.seats[best].chips) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	b := g.seats[best]
	return g.draw(func(i int) bool {
		return g.inGame(i) && g.seats[i].dice == b.dice && g.seats[i].chips == b.chips
	})
}

// startHand starts the next hand with the given opener.
func (g *game) startHand(opener int) {
	g.hand++
	// A palifico hand follows the resolution that brought its opener down
	// to one die; every other hand, a game's first included, is not one.
	g.palifico = g.p.Palifico && g.s.palifico && g.last != nil && g.last.palifico >= 0 && g.last.palifico == opener
	g.phase = PhaseBidding
	g.bid = nil
	g.bids = nil
	g.acted = false
	g.showOpen = false
	g.callKind = ""
	g.caller = -1
	g.pot = 0
	g.stake = g.hand
	g.lastFolder = -1
	for i, st := range g.seats {
		st.folded = false
		st.shown = nil
		st.flustered = false
		st.hidden = nil
		if st.computer && g.inHand(i) {
			st.hidden = g.roll(st.dice)
		}
	}
	g.announceHand(opener)
}

// announceHand makes opener the seat to act and emits hand_started.
func (g *game) announceHand(opener int) {
	g.opener = opener
	g.turn = opener
	dice := make(map[string]int)
	for i, st := range g.seats {
		if g.inHand(i) {
			dice[st.name] = st.dice
		}
	}
	hs := &HandStarted{Header: Header{Type: EvHandStarted}, Game: g.number, Hand: g.hand,
		Opener: g.seats[opener].name, Dice: dice}
	if g.p.Palifico {
		palifico := g.palifico
		hs.Palifico = &palifico
	}
	g.emit(hs)
}

// passTurn gives the turn to the next seat in the hand.
func (g *game) passTurn() { g.turn = g.nextFrom(g.turn, g.inHand) }

// raises reports whether (q, f) raises the standing bid.
func (g *game) raises(q, f int) bool {
	return g.p.RaisesIn(g.palifico, g.bid.quantity, g.bid.face, q, f)
}

// Raises reports whether a bid of quantity q on face f raises the bid
// (fromQ, fromF) under the rule.
func (r RaiseRule) Raises(fromQ, fromF, q, f int) bool {
	switch r {
	case RaiseQuantityOrFace:
		return q > fromQ || (q == fromQ && f > fromF)
	case RaiseEither:
		return q > fromQ || f > fromF
	case RaiseFaceOrQuantity:
		return f > fromF || (f == fromF && q > fromQ)
	case RaiseTrack:
		from, to := TrackSpace(fromQ, fromF), TrackSpace(q, f)
		if to != from {
			return to > from
		}
		return f != 1 && f > fromF
	case RaiseSameFace:
		return f == fromF && q > fromQ
	}
	return false
}

// TrackSpace is the index of a bid's space on the star-board track: number
// spaces 1, 2, star 1, 3, 4, star 2, ... A star bid (face 1) of k stands on
// star space k; a number bid of q on number space q.
func TrackSpace(q, f int) int {
	if f == 1 {
		return 3*q - 1
	}
	return q - 1 + (q-1)/2
}

// wildFace is the face that counts for any other in this hand, or 0 when
// none does (none in perudo's palifico hand).
func (g *game) wildFace() int {
	if g.s.wild && !g.palifico {
		return 1
	}
	return 0
}

// countBid counts the dice showing face f, with wilds for another face.
func (g *game) countBid(dice map[int][]int, f int) int {
	w := g.wildFace()
	c := 0
	for _, faces := range dice {
		for _, x := range faces {
			if x == f || (w != 0 && f != w && x == w) {
				c++
			}
		}
	}
	return c
}
