package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// given is a number a record line gave, for a message: record.Decode holds
// one beyond 32 bits at the nearest 32-bit bound (1e308 as 2147483647), so
// a bound is said to be too large, or too small, rather than shown as the
// number the line never held.
func given(v int) string {
	switch {
	case v >= math.MaxInt32:
		return "a number too large"
	case v <= math.MinInt32:
		return "a number too small"
	}
	return strconv.Itoa(v)
}

// apply checks one action against the game and, when it is accepted,
// carries it out. The checks follow RECORD.md's order of reasons, and
// nothing changes before every check has passed.
func (g *game) apply(a Action) *Rejection {
	switch a.Type {
	case ActBid:
		return g.doBid(a)
	case ActChallenge:
		return g.doCall(a, ActChallenge)
	case ActSpotOn:
		return g.doCall(a, ActSpotOn)
	case ActAllIn:
		return g.doCall(a, ActAllIn)
	case ActFold:
		return g.doFold(a)
	case ActShow:
		return g.doShow(a)
	case ActReveal:
		return g.doReveal(a)
	case ActOpeningRoll:
		return g.doOpeningRoll(a)
	case ActLeave:
		return g.doLeave(a)
	}
	return reject(BadInput, "unknown type %q", a.Type)
}

// seatOf finds an acting seat; a seat that left is no longer at the table.
func (g *game) seatOf(name string) (int, *Rejection) {
	i, ok := g.byName[name]
	if !ok || g.seats[i].left {
		return -1, reject(UnknownSeat, "%q is not at this table", name)
	}
	return i, nil
}

func (g *game) checkTurn(i int, what string) *Rejection {
	switch {
	case g.phase == PhaseOpening:
		return reject(NotNow, "the opening roll must decide who opens before anyone can %s", what)
	case g.phase == PhaseReveal:
		return reject(NotNow, "a reveal is awaited; nobody can %s now", what)
	case g.turn != i:
		return reject(NotYourTurn, "it is %s's turn, not %s's", g.seats[g.turn].name, g.seats[i].name)
	}
	return nil
}

// checkStake checks what a tavern seat pays with a bid or challenge and
// returns the stake.
func (g *game) checkStake(i int, given *int) (int, *Rejection) {
	stake := g.stake
	if given != nil {
		stake = *given
	}
	if stake < g.stake {
		return 0, reject(StakeTooLow, "a stake of %d is below the current stake of %d", stake, g.stake)
	}
	if stake > g.seats[i].chips {
		return 0, reject(InsufficientChips, "%s has %d chips and cannot pay a stake of %d", g.seats[i].name, g.seats[i].chips, stake)
	}
	return stake, nil
}

func (g *game) pay(i, stake int) {
	g.seats[i].chips -= stake
	g.pot += stake
	if stake > g.stake {
		g.stake = stake
	}
}

func (g *game) doBid(a Action) *Rejection {
	i, r := g.seatOf(a.Seat)
	if r != nil {
		return r
	}
	target := -1
	if a.Bluff {
		if target, r = g.bluffTarget(i); r != nil {
			return r
		}
	}
	if r := g.checkTurn(i, "bid"); r != nil {
		return r
	}
	if inPlay := g.diceInPlay(); a.Quantity < 1 || a.Quantity > inPlay {
		return reject(BadBid, "the quantity must be 1 to %d (the dice in play), not %s", inPlay, given(a.Quantity))
	}
	if a.Face < 1 || a.Face > g.s.sides {
		return reject(BadBid, "the face must be 1 to %d, not %s", g.s.sides, given(a.Face))
	}
	if g.bid == nil && !g.p.Opens(g.palifico, a.Face) {
		return reject(BadBid, "the first bid of a hand may not be on ones (they are wild), except in a palifico hand")
	}
	if g.bid != nil && !g.raises(a.Quantity, a.Face) {
		return reject(BidNotHigher, "%s does not raise %s%s", g.bidName(a.Quantity, a.Face), g.bidName(g.bid.quantity, g.bid.face), g.raiseHint(a.Face))
	}
	stake := 0
	if g.p.Stakes {
		if stake, r = g.checkStake(i, a.Stake); r != nil {
			return r
		}
		g.pay(i, stake)
	}
	g.bid = &bid{seat: i, quantity: a.Quantity, face: a.Face}
	g.bids = append(g.bids, *g.bid)
	g.acted = true
	g.showOpen = g.p.StarDie && g.s.showReroll
	g.seats[i].flustered = false
	g.passTurn()
	if target >= 0 {
		g.rollBluffCheck(i, target)
	}
	return nil
}

// bluffTarget checks that the bidder may roll a bluff check and returns the
// computer seat to its left that it is rolled against.
func (g *game) bluffTarget(i int) (int, *Rejection) {
	switch {
	case !g.bluffCheck:
		return -1, reject(NotAllowed, "this table has no bluff check")
	case g.seats[i].computer:
		return -1, reject(NotAllowed, "only a person rolls a bluff check")
	}
	t := g.nextFrom(i, g.inHand)
	if t < 0 || !g.seats[t].computer {
		return -1, reject(NotAllowed, "a bluff check is rolled against the computer seat to the bidder's left, and %s has none", g.seats[i].name)
	}
	return t, nil
}

// rollBluffCheck rolls d20 + the person's bonus against d20 + the computer
// seat's insight; a higher total flusters the computer seat.
func (g *game) rollBluffCheck(i, t int) {
	p, c := g.seats[i], g.seats[t]
	roll, targetRoll := 1+g.rng.IntN(20), 1+g.rng.IntN(20)
	success := roll+p.bluffBonus > targetRoll+c.insight
	if success {
		c.flustered = true
	}
	g.emit(&BluffCheck{Header: Header{Type: EvBluffCheck}, Seat: p.name, Target: c.name,
		Roll: roll, Bonus: p.bluffBonus, TargetRoll: targetRoll, Insight: c.insight, Success: success})
}

// doCall handles challenge, spot_on and all_in: the seat to act calls the
// standing bid and a reveal is awaited.
func (g *game) doCall(a Action, kind string) *Rejection {
	i, r := g.seatOf(a.Seat)
	if r != nil {
		return r
	}
	switch {
	case kind == ActSpotOn && g.p.SpotOn == SpotOnNone:
		return reject(NotAllowed, "%s has no spot-on", g.p.Name)
	case kind == ActSpotOn && !g.s.spotOn:
		return reject(NotAllowed, "calza is off at this table (option calza)")
	case kind == ActSpotOn && g.count(g.inGame) < g.p.SpotOnSeats:
		return reject(NotNow, "calza is refused while only %d seats are left in the game; the bid stands", g.count(g.inGame))
	case kind == ActAllIn && !g.p.Stakes:
		return reject(NotAllowed, "%s has no all-in: chips are not played", g.p.Name)
	case kind == ActAllIn && g.phase == PhaseBidding && g.seats[i].chips >= g.stake && g.seats[i].chips > 0:
		return reject(NotAllowed, "%s can pay the stake of %d and so cannot go all in", g.seats[i].name, g.stake)
	}
	if r := g.checkTurn(i, "call"); r != nil {
		return r
	}
	if g.bid == nil {
		return reject(NoBidToCall, "there is no bid to call in this hand")
	}
	if g.p.Stakes {
		if kind == ActAllIn {
			g.pay(i, g.seats[i].chips)
		} else {
			stake, r := g.checkStake(i, a.Stake)
			if r != nil {
				return r
			}
			g.pay(i, stake)
		}
	}
	if kind == ActAllIn {
		kind = ActChallenge
	}
	g.seats[i].flustered = false
	g.callKind = kind
	g.caller = i
	g.acted = true
	g.showOpen = false
	g.phase = PhaseReveal
	g.turn = -1
	return nil
}

func (g *game) doFold(a Action) *Rejection {
	i, r := g.seatOf(a.Seat)
	if r != nil {
		return r
	}
	if !g.p.Stakes {
		return reject(NotAllowed, "%s has no fold", g.p.Name)
	}
	if r := g.checkTurn(i, "fold"); r != nil {
		return r
	}
	st := g.seats[i]
	st.folded = true
	st.flustered = false
	st.dice--
	out := []string{}
	if st.dice == 0 {
		st.out = true
		out = append(out, st.name)
	}
	g.acted = true
	g.showOpen = false
	g.lastFolder = i
	g.emit(&Folded{Header: Header{Type: EvFolded}, Seat: st.name, Dice: map[string]int{st.name: -1}, Out: out})
	if g.count(g.inHand) > 1 {
		g.passTurn()
		return nil
	}
	// One seat has not folded: it takes half the pot and the hand ends.
	taker := g.nextFrom(i, g.inHand)
	res := &Resolved{Header: Header{Type: EvResolved}, Call: "fold", Dice: map[string]int{}, Out: []string{}}
	if g.bid != nil {
		res.Bidder = g.seats[g.bid.seat].name
		res.Bid = &BidView{Quantity: g.bid.quantity, Face: g.bid.face}
	}
	g.settlePot(res, taker)
	g.emit(res)
	g.endHand(&resolution{call: "fold", caller: -1, bidder: -1, loser: i, winner: taker, palifico: -1})
	return nil
}

// settlePot gives half the hand's pot to the taker and the rest to the
// running pot, and records both on the resolution.
func (g *game) settlePot(res *Resolved, taker int) {
	half := g.pot / 2
	g.seats[taker].chips += half
	g.runningPot += g.pot - half
	g.pot = 0
	running := g.runningPot
	res.Payout = map[string]int{g.seats[taker].name: half}
	res.RunningPot = &running
}

func (g *game) doShow(a Action) *Rejection {
	i, r := g.seatOf(a.Seat)
	if r != nil {
		return r
	}
	st := g.seats[i]
	switch {
	case !g.p.StarDie:
		return reject(NotAllowed, "%s has no show and reroll", g.p.Name)
	case !g.s.showReroll:
		return reject(NotAllowed, "show and reroll is off at this table")
	case g.phase != PhaseBidding || !g.showOpen || g.bid == nil || g.bid.seat != i:
		return reject(NotAllowed, "only the last bidder may show, right after its own bid and before the next seat acts")
	case len(st.shown)+len(a.Shown) >= st.dice:
		return reject(NotAllowed, "%s has %d dice (%d already shown) and must keep at least one hidden", st.name, st.dice, len(st.shown))
	}
	if st.computer && !containsAll(st.hidden, append(append([]int(nil), st.shown...), a.Shown...)) {
		return reject(NotAllowed, "%s can show only dice it has", st.name)
	}
	st.shown = append(st.shown, a.Shown...)
	g.showOpen = false
	if st.computer { // the shown dice stay; the rest are rolled again
		st.hidden = append(append([]int(nil), st.shown...), g.roll(st.dice-len(st.shown))...)
	}
	return nil
}

// checkShown checks the form of a show's faces. Its refusal is bad_input,
// the first reason of RECORD.md's table, so Table.apply calls it before any
// check of the game, the seat or the moment.
func checkShown(a Action) *Rejection {
	if len(a.Shown) == 0 {
		return reject(BadInput, "show names no dice")
	}
	for _, f := range a.Shown {
		if f < 1 || f > starSides {
			return reject(BadInput, "a shown face must be 1 to %d, not %s", starSides, given(f))
		}
	}
	return nil
}

// checkDice checks the seats and faces of a reveal or opening roll against
// the seats expected and the dice each must show.
func (g *game) checkDice(dice map[string][]int, want []int, what string) (map[int][]int, *Rejection) {
	if r := g.unknownSeatIn(dice); r != nil {
		return nil, r
	}
	if g.phaseFor(what) != g.phase {
		return nil, reject(NotNow, "no %s is awaited now (the game is in its %s phase)", what, g.phase)
	}
	byIdx := make(map[int][]int, len(dice))
	for _, i := range want {
		st := g.seats[i]
		faces, ok := dice[st.name]
		if st.computer {
			// The engine rolls or knows a computer seat's dice: faces given
			// for it are ignored, whatever they are. Checking them would
			// make a refusal tell, before the reveal, which dice it hides.
			continue
		}
		if !ok {
			return nil, reject(BadReveal, "the %s has no dice for %s", what, st.name)
		}
		if len(faces) != st.dice {
			return nil, reject(BadReveal, "%s has %d dice, and the %s gives %d", st.name, st.dice, what, len(faces))
		}
		for _, f := range faces {
			if f < 1 || f > g.s.sides {
				return nil, reject(BadReveal, "%s's face %d is not 1 to %d", st.name, f, g.s.sides)
			}
		}
		if what != "opening roll" && !containsAll(faces, st.shown) {
			return nil, reject(BadReveal, "%s's dice %v do not include the dice it showed %v", st.name, faces, st.shown)
		}
		byIdx[i] = faces
	}
	if len(dice) != len(byIdx) {
		if name, ok := firstName(dice, func(name string) bool { return !slices.Contains(want, g.byName[name]) }); ok {
			return nil, reject(BadReveal, "%s is not in this %s", name, what)
		}
	}
	return byIdx, nil
}

// unknownSeatIn refuses dice given for a seat not at the table, naming the
// first such seat in name order, so that a record is always refused in the
// same words.
func (g *game) unknownSeatIn(dice map[string][]int) *Rejection {
	if name, ok := firstName(dice, func(name string) bool { _, r := g.seatOf(name); return r != nil }); ok {
		_, r := g.seatOf(name)
		return r
	}
	return nil
}

// firstName returns the first name of dice, in name order, for which bad
// is true; ok is false when there is none.
func firstName[V any](dice map[string]V, bad func(name string) bool) (first string, ok bool) {
	for name := range dice {
		if (!ok || name < first) && bad(name) {
			first, ok = name, true
		}
	}
	return first, ok
}

func (g *game) phaseFor(what string) Phase {
	if what == "opening roll" {
		return PhaseOpening
	}
	return PhaseReveal // a reveal, or a correction from the game awaiting it
}

// containsAll reports whether faces holds every die of sub (as multisets).
func containsAll(faces, sub []int) bool {
	if len(sub) == 0 {
		return true
	}
	left := make(map[int]int, len(faces))
	for _, f := range faces {
		left[f]++
	}
	for _, f := range sub {
		if left[f] == 0 {
			return false
		}
		left[f]--
	}
	return true
}

func (g *game) seatsWhere(ok func(int) bool) []int {
	var s []int
	for i := range g.seats {
		if ok(i) {
			s = append(s, i)
		}
	}
	return s
}

func (g *game) doReveal(a Action) *Rejection {
	what := "reveal"
	if a.Type == ActCorrect {
		what = "correction"
	}
	dice, r := g.checkDice(a.Dice, g.seatsWhere(g.inHand), what)
	if r != nil {
		return r
	}
	unconfirmed, r := g.checkUnconfirmed(a, dice)
	if r != nil {
		return r
	}
	before := g.clone() // the game awaiting this reveal, for a correction
	revealed := make(map[string][]int, len(dice))
	for i, faces := range dice {
		revealed[g.seats[i].name] = faces
	}
	for i, st := range g.seats {
		if _, given := dice[i]; st.computer && !given && g.inHand(i) {
			dice[i] = st.hidden
			revealed[st.name] = st.hidden
		}
	}
	g.emit(&Revealed{Header: Header{Type: EvRevealed}, Dice: revealed, Unconfirmed: unconfirmed})
	g.resolve(dice)
	g.correct = &correction{before: before, dice: revealed, unconfirmed: unconfirmed}
	return nil
}

// checkUnconfirmed checks a reveal's unconfirmed dice: each a position, in
// increasing order, among the dice given for a seat whose dice were
// given. A correction confirms every die: its list is ignored. It returns
// the list without empty seats (nil when none is left).
func (g *game) checkUnconfirmed(a Action, dice map[int][]int) (map[string][]int, *Rejection) {
	if a.Type != ActReveal || len(a.Unconfirmed) == 0 {
		return nil, nil
	}
	if name, bad := firstName(a.Unconfirmed, func(name string) bool {
		i, r := g.seatOf(name)
		_, given := dice[i]
		return r != nil || !given
	}); bad {
		return nil, reject(BadReveal, "unconfirmed names %s, whose dice the reveal does not give", name)
	}
	out := make(map[string][]int, len(a.Unconfirmed))
	for name, at := range a.Unconfirmed {
		i, _ := g.seatOf(name)
		for k, p := range at {
			if p < 0 || p >= len(dice[i]) || (k > 0 && p <= at[k-1]) {
				return nil, reject(BadReveal, "unconfirmed %v is not a list of %s's dice in increasing order (0 to %d)", at, name, len(dice[i])-1)
			}
		}
		if len(at) > 0 {
			out[name] = slices.Clone(at)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (g *game) doOpeningRoll(a Action) *Rejection {
	if r := g.unknownSeatIn(a.Dice); r != nil {
		return r
	}
	if !g.p.OpeningRoll {
		return reject(NotAllowed, "%s has no opening roll", g.p.Name)
	}
	dice, r := g.checkDice(a.Dice, g.tied, "opening roll")
	if r != nil {
		return r
	}
	for _, i := range g.tied {
		if _, given := dice[i]; !given { // a computer seat rolls from the seed
			dice[i] = g.roll(g.seats[i].dice)
		}
	}
	// Most stars opens; a tie goes to the highest sum of the other dice; a
	// tie that remains is rolled again by the seats still tied.
	type score struct{ stars, sum int }
	scores := make(map[int]score, len(dice))
	var best score
	for _, i := range g.tied {
		var s score
		for _, f := range dice[i] {
			if f == 1 {
				s.stars++
			} else {
				s.sum += f
			}
		}
		scores[i] = s
		if s.stars > best.stars || (s.stars == best.stars && s.sum > best.sum) {
			best = s
		}
	}
	var still []int
	for _, i := range g.tied {
		if scores[i] == best {
			still = append(still, i)
		}
	}
	g.tied = still
	if len(still) == 1 {
		g.startHand(still[0])
	}
	return nil
}

func (g *game) doLeave(a Action) *Rejection {
	i, r := g.seatOf(a.Seat)
	if r != nil {
		return r
	}
	if g.phase != PhaseOpening && (g.phase != PhaseBidding || g.acted) {
		return reject(NotNow, "a seat may leave only between hands")
	}
	st := g.seats[i]
	wasOpener := g.phase == PhaseBidding && g.opener == i && g.inHand(i)
	st.left, st.out = true, true
	g.emit(&Left{Header: Header{Type: EvLeft}, Seat: st.name})
	if g.p.Match {
		if g.count(g.inRound) <= 1 {
			g.endRound(g.nextFrom(i, g.inRound))
			return nil
		}
	} else if g.count(g.inGame) <= 1 {
		g.endGame(g.nextFrom(i, g.inGame))
		return nil
	}
	switch {
	case g.phase == PhaseOpening:
		g.tied = slices.DeleteFunc(g.tied, func(j int) bool { return j == i })
		if len(g.tied) == 1 {
			g.startHand(g.tied[0])
		}
	case wasOpener:
		// A palifico hand is its opener's: without it, the hand is plain.
		g.palifico = false
		o := g.openerFor(g.last)
		if o < 0 {
			g.beginGame() // the first opener was to be rolled for
			return nil
		}
		g.announceHand(o)
	}
	return nil
}

// raiseHint says, after a bid on face f that does not raise the standing
// bid, what the least raise would be where the preset's arithmetic is not
// plain: a palifico hand's locked face, perudo's bids to and from ones.
func (g *game) raiseHint(f int) string {
	b := g.bid
	switch {
	case g.palifico:
		if f != b.face {
			return fmt.Sprintf(": in a palifico hand the face stays %s and only the quantity rises", g.bidName(2, b.face)[len("two "):])
		}
	case !g.p.WildOnes || g.wildFace() != 1:
	case f == 1 && b.face != 1:
		return fmt.Sprintf(": after %s a bid on ones needs at least %d (half, rounded up)", g.bidName(b.quantity, b.face), (b.quantity+1)/2)
	case f != 1 && b.face == 1:
		return fmt.Sprintf(": after %s a bid on another face needs at least %d (twice, plus one)", g.bidName(b.quantity, b.face), 2*b.quantity+1)
	}
	return ""
}

// bidName names a bid for people: "two 3s", "four stars", "three ones".
func (g *game) bidName(q, f int) string {
	face := fmt.Sprintf("%ds", f)
	switch {
	case g.p.StarDie && f == 1:
		face = "stars"
	case g.p.WildOnes && f == 1:
		face = "ones"
	}
	if q == 1 {
		face = face[:len(face)-1]
	}
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if q >= 0 && q < len(words) {
		return words[q] + " " + face
	}
	return fmt.Sprintf("%d %s", q, face)
}
