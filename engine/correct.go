package engine

import (
	"maps"
	"slices"
)

// ActCorrect is the record line that corrects the last accepted reveal
// (docs/corrections.md): its dice replace the reveal's and the hand is
// resolved again.
const ActCorrect = "correct"

// EvCorrected is the event of an accepted correction. The hand's new
// result follows it: revealed, resolved and what the resolution causes.
const EvCorrected = "corrected"

// Corrected reports an accepted correction of a hand's reveal. It voids
// the hand's last result (its revealed event and what followed it, or an
// earlier correction and what followed it); the events after it are the
// hand's result now.
type Corrected struct {
	Header
	Game int              `json:"game"`
	Hand int              `json:"hand"`
	Dice map[string][]int `json:"dice"`
}

// CorrectableView is the hand a correct line would correct now, and its
// dice as last accepted (already revealed at the table).
type CorrectableView struct {
	Game int              `json:"game"`
	Hand int              `json:"hand"`
	Dice map[string][]int `json:"dice"`
	// Unconfirmed are the reveal's dice the camera did not read for sure
	// (Revealed's list); a correction confirms them.
	Unconfirmed map[string][]int `json:"unconfirmed,omitempty"`
}

// correction is what a game keeps of its last accepted reveal while it
// may be corrected: the game as it stood awaiting that reveal, and the
// dice accepted for it.
type correction struct {
	before      *game
	dice        map[string][]int
	unconfirmed map[string][]int
}

// clone returns a deep copy of the game: its seats, its bid and its
// seeded source, so that the copy draws the same numbers as the game
// would. The preset and the seat names are shared (never changed); the
// pending events and any kept correction are not copied.
func (g *game) clone() *game {
	c := *g
	src := *g.src
	c.src = &src
	c.rng = randFrom(c.src)
	c.seats = make([]*seat, len(g.seats))
	for i, st := range g.seats {
		s := *st
		s.shown = slices.Clone(st.shown)
		s.hidden = slices.Clone(st.hidden)
		c.seats[i] = &s
	}
	if g.bid != nil {
		b := *g.bid
		c.bid = &b
	}
	if g.last != nil {
		l := *g.last
		c.last = &l
	}
	c.tied = slices.Clone(g.tied)
	c.events = nil
	c.correct = nil
	return &c
}

// Correctable returns the hand a correct line would correct now, with its
// dice as last accepted (revealed at the table already), or nil when a
// correct would be refused not_now. The Snapshot leaves it out: it holds
// no faces but the shown ones, and computer seats' views are made of it.
func (t *Table) Correctable() *CorrectableView {
	if t.g == nil || t.g.correct == nil {
		return nil
	}
	g := t.g
	dice := make(map[string][]int, len(g.correct.dice))
	for name, faces := range g.correct.dice {
		dice[name] = slices.Clone(faces)
	}
	var unconfirmed map[string][]int
	for name, at := range g.correct.unconfirmed {
		if unconfirmed == nil {
			unconfirmed = map[string][]int{}
		}
		unconfirmed[name] = slices.Clone(at)
	}
	return &CorrectableView{Game: g.correct.before.number, Hand: g.correct.before.hand, Dice: dice, Unconfirmed: unconfirmed}
}

// doCorrect resolves the last accepted reveal's hand again with the
// corrected dice, from the game as it stood awaiting that reveal. It
// returns the game that replaces g; g itself is not changed, so a refused
// correction changes nothing.
func (g *game) doCorrect(a Action) (*game, *Rejection) {
	// The first unknown seat in name order, so that a record gives the
	// same refusal on every run.
	if name, bad := firstName(a.Dice, func(name string) bool { _, r := g.seatOf(name); return r != nil }); bad {
		_, r := g.seatOf(name)
		return nil, r
	}
	if g.correct == nil {
		return nil, reject(NotNow, "there is no reveal to correct: a reveal can be corrected until the next accepted line after it (the next hand's first bid)")
	}
	c := g.correct.before.clone()
	ev := &Corrected{Header: Header{Type: EvCorrected}, Game: c.number, Hand: c.hand}
	c.emit(ev)
	if r := c.doReveal(a); r != nil {
		return nil, r
	}
	ev.Dice = maps.Clone(c.correct.dice)
	return c, nil
}
