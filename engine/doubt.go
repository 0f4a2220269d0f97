package engine

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// ReadDie is one die of a seat as a camera read it at the reveal: the
// faces it may show, likeliest first. A die read for sure has one face.
type ReadDie struct {
	Faces []int
	// Sure reports that the die was read confidently: Faces holds its
	// face alone.
	Sure bool
}

// Settlement is what a doubtful read of a reveal settles (Table.Settle).
type Settlement struct {
	// Settled reports that every reveal the read allows (each die in doubt
	// any of its faces, each unseen die any face, a die that may be
	// invented absent) resolves the call the same way: the same losers,
	// dice lost or gained, spot-on, pot and stakes, eliminations and game
	// over. Only the count and the faces of the dice in doubt may differ.
	Settled bool
	// Dice is the reveal to take when Settled: each seat's dice in the
	// read's order (a die left out as invented dropped), then its unseen
	// dice; a die in doubt shows its likeliest face, an unseen die a face
	// the bid does not count where there is one.
	Dice map[string][]int
	// Unconfirmed lists, per seat, the positions in Dice[seat] of the dice
	// not read for sure (in doubt, or not seen at all); seats with none
	// are left out.
	Unconfirmed map[string][]int
	// Why says, when the read is not Settled, what its doubt could change,
	// for people ("bob's die could make two 5s true").
	Why string
	// Matters says, per seat, for each die of the read in its order and
	// then for each unseen die, whether its doubt can change the
	// resolution. All false when Settled.
	Matters map[string][]bool
}

// maxSettleWorlds bounds the ways of choosing which dice in doubt are
// invented (a seat with more dice read than it holds): past it the read
// asks for a look.
const maxSettleWorlds = 4096

// Settle decides whether a read of the reveal that is not sure of every
// die can still settle the call: read holds, for each seat in the hand
// whose dice the camera reads (the referee's computer seats are known to
// the engine and left out), the dice read there. A seat may have fewer
// dice read than it holds (the rest were not seen: any face) or more (as
// many of its dice in doubt as it has too many were invented). It never
// changes the table; a read it cannot use (no reveal awaited, an unknown
// seat, a die read for sure that is not a face) is refused.
func (t *Table) Settle(read map[string][]ReadDie) (Settlement, *Rejection) {
	if t.g == nil {
		return Settlement{}, reject(NoGame, "no game has started")
	}
	return t.g.settle(read)
}

// slot is one die of a possible reveal: fixed to a face, or any face of
// its set, or (when it may be invented) absent.
type slot struct {
	seat  int
	read  int   // its position in the seat's read, or -1 for an unseen die
	faces []int // the faces it may show, likeliest first
	sure  bool  // read for sure
	fixed bool  // its face is known: read for sure, or a die it showed
	// invented reports that the die may be invented (its seat has more
	// dice read than it holds).
	invented bool
}

func (g *game) settle(read map[string][]ReadDie) (Settlement, *Rejection) {
	if g.phase != PhaseReveal {
		return Settlement{}, reject(NotNow, "no reveal is awaited now (the game is in its %s phase)", g.phase)
	}
	if name, bad := firstName(read, func(name string) bool { _, r := g.seatOf(name); return r != nil }); bad {
		_, r := g.seatOf(name)
		return Settlement{}, r
	}
	counts := func(f int) bool { return g.countBid(map[int][]int{0: {f}}, g.bid.face) == 1 }
	slots, invented, problem, rej := g.slotsOf(read, g.anyFace(counts))
	if rej != nil {
		return Settlement{}, rej
	}
	if problem != "" {
		return Settlement{Why: problem, Matters: g.matters(read, slots, nil)}, nil
	}

	// Every way of choosing the invented dice, and for each the counts its
	// dice allow: the resolution reads the dice only through the bid's
	// count (resolve), so one reveal for each count the read allows tells
	// every resolution it allows.
	choices, ok := inventedChoices(slots, invented)
	if !ok {
		return Settlement{Why: "too many dice in doubt", Matters: g.matters(read, slots, nil)}, nil
	}
	base := g.reveal(slots, choices[0], -1, counts)
	want := g.outcome(base)
	lo, hi := g.countOf(base), g.countOf(base)
	settled := true
	for _, w := range worldsOf(slots, choices, counts) {
		lo, hi = min(lo, w.count), max(hi, w.count)
		if settled && w.count != g.countOf(base) {
			settled = reflect.DeepEqual(g.outcome(g.reveal(slots, w.absent, w.count, counts)), want)
		}
	}
	if !settled {
		return Settlement{Why: g.why(slots, lo, hi, counts), Matters: g.matters(read, slots, counts)}, nil
	}
	return Settlement{Settled: true, Dice: base.names(g), Unconfirmed: base.unconfirmed(g)}, nil
}

// anyFace is every face an unseen die may show: the faces the bid does not
// count first.
func (g *game) anyFace(counts func(int) bool) []int {
	all := make([]int, 0, g.s.sides)
	for f := 1; f <= g.s.sides; f++ {
		if !counts(f) {
			all = append(all, f)
		}
	}
	for f := 1; f <= g.s.sides; f++ {
		if counts(f) {
			all = append(all, f)
		}
	}
	return all
}

// slotsOf makes the slots of a read: each die of a person's seat in the
// hand as read (any face of all for one in doubt that lists none), its
// unseen dice (any face), the dice it showed fixed among them, and the dice
// in doubt that may be invented where a seat has more dice read than it
// holds (invented: seat -> how many). problem says why the read cannot be
// weighed at all; a die read for sure that is not one face is refused.
func (g *game) slotsOf(read map[string][]ReadDie, all []int) (slots []slot, invented map[int]int, problem string, rej *Rejection) {
	invented = map[int]int{}
	for _, i := range g.seatsWhere(g.inHand) {
		st := g.seats[i]
		if st.computer {
			continue
		}
		dice := read[st.name]
		first := len(slots)
		sure := 0
		for k, d := range dice {
			faces := slices.DeleteFunc(slices.Clone(d.Faces), func(f int) bool { return f < 1 || f > g.s.sides })
			if d.Sure {
				if len(d.Faces) != 1 || len(faces) != 1 {
					return nil, nil, "", reject(BadReveal, "%s's die %d is read for sure but gives %v, not one face of 1 to %d", st.name, k+1, d.Faces, g.s.sides)
				}
				sure++
			} else if len(faces) == 0 {
				faces = slices.Clone(all)
			}
			slots = append(slots, slot{seat: i, read: k, faces: faces, sure: d.Sure, fixed: d.Sure})
		}
		switch {
		case sure > st.dice:
			problem = fmt.Sprintf("%s has %s and %d were read for sure", st.name, diceWord(st.dice), sure)
		case len(dice) > st.dice:
			invented[i] = len(dice) - st.dice
		}
		for n := len(dice); n < st.dice; n++ {
			slots = append(slots, slot{seat: i, read: -1, faces: slices.Clone(all)})
		}
		if p := markShownAndInvented(st, slots[first:], invented[i], len(dice)); p != "" {
			problem = p
		}
	}
	return slots, invented, problem, nil
}

// markShownAndInvented fixes among a seat's slots (mine) the dice it
// showed: a shown face the dice read for sure do not account for is a die
// in doubt or unseen, fixed. Then, when n of its dice in doubt are
// invented (read of them were read), every die not fixed may be one. It
// says why the read cannot be weighed, or "".
func markShownAndInvented(st *seat, mine []slot, n, read int) (problem string) {
	need := slices.Clone(st.shown)
	for _, s := range mine {
		if s.fixed {
			if k := slices.Index(need, s.faces[0]); k >= 0 {
				need = slices.Delete(need, k, k+1)
			}
		}
	}
	for _, f := range need {
		k := slices.IndexFunc(mine, func(s slot) bool { return !s.fixed && s.read >= 0 && slices.Contains(s.faces, f) })
		if k < 0 {
			k = slices.IndexFunc(mine, func(s slot) bool { return !s.fixed && s.read < 0 })
		}
		if k < 0 {
			problem = fmt.Sprintf("%s's dice as read do not include the dice it showed %v", st.name, st.shown)
			break
		}
		mine[k].faces, mine[k].fixed = []int{f}, true
	}
	if n > 0 {
		free := 0
		for k := range mine {
			if !mine[k].fixed {
				mine[k].invented = true
				free++
			}
		}
		if free < n {
			problem = fmt.Sprintf("%s has %s and %d were read", st.name, diceWord(st.dice), read)
		}
	}
	return problem
}

// world is one reveal a read allows, as the resolution reads it: the dice
// it leaves out as invented, and the bid's count.
type world struct {
	absent []int
	count  int
}

// worldsOf lists a world for each count the read allows, for each way of
// choosing the invented dice (the first way that reaches a count).
func worldsOf(slots []slot, choices [][]int, counts func(int) bool) []world {
	var worlds []world
	seen := map[int]bool{}
	for _, absent := range choices {
		lo, hi := 0, 0
		for k, s := range slots {
			if slices.Contains(absent, k) {
				continue
			}
			c := 0
			for _, f := range s.faces {
				if counts(f) {
					c++
				}
			}
			if c == len(s.faces) {
				lo++
			}
			if c > 0 {
				hi++
			}
		}
		for n := lo; n <= hi; n++ {
			if !seen[n] {
				seen[n] = true
				worlds = append(worlds, world{absent, n})
			}
		}
	}
	return worlds
}

// diceWord says n dice in words: "1 die", "2 dice".
func diceWord(n int) string {
	if n == 1 {
		return "1 die"
	}
	return fmt.Sprintf("%d dice", n)
}

// inventedChoices returns every way of leaving out, at each seat, as many
// of its free dice in doubt as it has too many (the slots' indices), or
// false when there are more than maxSettleWorlds.
func inventedChoices(slots []slot, invented map[int]int) ([][]int, bool) {
	choices := [][]int{nil}
	seats := make([]int, 0, len(invented))
	for i := range invented {
		seats = append(seats, i)
	}
	sort.Ints(seats)
	for _, i := range seats {
		var free []int
		for k, s := range slots {
			if s.seat == i && !s.fixed && s.read >= 0 {
				free = append(free, k)
			}
		}
		subsets := combinations(free, invented[i])
		if len(choices)*len(subsets) > maxSettleWorlds {
			return nil, false
		}
		var next [][]int
		for _, c := range choices {
			for _, s := range subsets {
				next = append(next, append(slices.Clone(c), s...))
			}
		}
		choices = next
	}
	return choices, true
}

// combinations returns every choice of n of items, in order.
func combinations(items []int, n int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for k := 0; k+n <= len(items); k++ {
		for _, rest := range combinations(items[k+1:], n-1) {
			out = append(out, append([]int{items[k]}, rest...))
		}
	}
	return out
}

// possible is one reveal the read allows: each slot's face, or -1 when
// the slot is absent.
type possible struct {
	slots []slot
	face  []int
}

// reveal builds the reveal with the slots of absent left out and, when
// count is not -1, the bid's count at count: each free slot shows its
// likeliest face, then slots are turned to a face that counts (or does
// not) until the count is reached.
func (g *game) reveal(slots []slot, absent []int, count int, counts func(int) bool) possible {
	p := possible{slots: slots, face: make([]int, len(slots))}
	n := 0
	for k, s := range slots {
		if slices.Contains(absent, k) {
			p.face[k] = -1
			continue
		}
		p.face[k] = s.faces[0]
		if counts(s.faces[0]) {
			n++
		}
	}
	for k, s := range slots {
		if count < 0 || n == count || p.face[k] < 0 || s.fixed {
			continue
		}
		up := n < count
		if counts(p.face[k]) == up {
			continue
		}
		if f := slices.IndexFunc(s.faces, func(f int) bool { return counts(f) == up }); f >= 0 {
			p.face[k] = s.faces[f]
			if up {
				n++
			} else {
				n--
			}
		}
	}
	return p
}

// names returns the possible reveal's dice by seat name: each seat's in
// its slots' order.
func (p possible) names(g *game) map[string][]int {
	out := map[string][]int{}
	for k, s := range p.slots {
		name := g.seats[s.seat].name
		if _, ok := out[name]; !ok {
			out[name] = []int{}
		}
		if p.face[k] >= 0 {
			out[name] = append(out[name], p.face[k])
		}
	}
	return out
}

// unconfirmed returns, per seat, the positions of the dice not read for
// sure in names' lists.
func (p possible) unconfirmed(g *game) map[string][]int {
	out := map[string][]int{}
	pos := map[int]int{}
	for k, s := range p.slots {
		if p.face[k] < 0 {
			continue
		}
		at := pos[s.seat]
		pos[s.seat]++
		if s.sure {
			continue
		}
		name := g.seats[s.seat].name
		out[name] = append(out[name], at)
	}
	return out
}

// countOf is the bid's count in a possible reveal.
func (g *game) countOf(p possible) int {
	dice := map[int][]int{}
	for k, s := range p.slots {
		if p.face[k] >= 0 {
			dice[s.seat] = append(dice[s.seat], p.face[k])
		}
	}
	return g.countBid(dice, g.bid.face)
}

// outcome resolves the call on a copy of the game with the possible
// reveal and returns what the resolution decides: its events but the
// revealed faces and the count.
func (g *game) outcome(p possible) []Event {
	c := g.clone()
	if r := c.doReveal(Action{Type: ActReveal, Dice: p.names(g)}); r != nil {
		return []Event{&Rejected{Reason: r.Reason, Message: r.Message}}
	}
	var out []Event
	for _, e := range c.events {
		switch v := e.(type) {
		case *Revealed:
			continue
		case *Resolved:
			r := *v
			r.Count = nil
			out = append(out, &r)
		default:
			out = append(out, e)
		}
	}
	return out
}

// why says what the doubt of the read could change: the bid's count may
// be anything from lo to hi.
func (g *game) why(slots []slot, lo, hi int, counts func(int) bool) string {
	by := map[int][2]int{} // seat -> its dice read in doubt, unseen, that matter
	var order []int
	for _, s := range slots {
		if !s.matters(counts) {
			continue
		}
		if _, ok := by[s.seat]; !ok {
			order = append(order, s.seat)
		}
		n := by[s.seat]
		if s.read >= 0 {
			n[0]++
		} else {
			n[1]++
		}
		by[s.seat] = n
	}
	var who []string
	for _, i := range order {
		n := by[i]
		var parts []string
		switch {
		case n[0] == 1:
			parts = append(parts, "die")
		case n[0] > 1:
			parts = append(parts, fmt.Sprintf("%d dice", n[0]))
		}
		switch {
		case n[1] == 1:
			parts = append(parts, "unseen die")
		case n[1] > 1:
			parts = append(parts, fmt.Sprintf("%d unseen dice", n[1]))
		}
		who = append(who, g.seats[i].name+"'s "+strings.Join(parts, " and "))
	}
	subject := strings.Join(who, " and ")
	if subject == "" {
		subject = "the dice in doubt"
	}
	bid := g.bidName(g.bid.quantity, g.bid.face)
	q := g.bid.quantity
	switch {
	case g.callKind == ActChallenge && lo < q && q <= hi:
		return fmt.Sprintf("%s could make %s true", subject, bid)
	case g.callKind == ActSpotOn && lo <= q && q <= hi:
		return fmt.Sprintf("%s could make %s exactly right or wrong", subject, bid)
	}
	return fmt.Sprintf("%s could change what %s costs (a count of %d to %d)", subject, bid, lo, hi)
}

// matters reports whether the slot's doubt could change the bid's count:
// it may show a face the bid counts and one it does not, or it may be
// invented.
func (s slot) matters(counts func(int) bool) bool {
	if s.fixed {
		return false
	}
	c := 0
	for _, f := range s.faces {
		if counts(f) {
			c++
		}
	}
	return s.invented || (c > 0 && c < len(s.faces))
}

// matters says, per seat, for each die of the read and then each unseen
// die, whether its doubt could change the resolution (slot.matters). With
// counts nil (the read cannot be used as it is) every die not read for
// sure matters.
func (g *game) matters(read map[string][]ReadDie, slots []slot, counts func(int) bool) map[string][]bool {
	out := map[string][]bool{}
	for name, dice := range read {
		out[name] = make([]bool, len(dice))
	}
	for _, s := range slots {
		name := g.seats[s.seat].name
		m := !s.sure
		if counts != nil {
			m = s.matters(counts)
		}
		if s.read >= 0 {
			out[name][s.read] = m
		} else {
			out[name] = append(out[name], m)
		}
	}
	return out
}
