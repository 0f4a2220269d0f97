package tournament

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The sources of a result.
const (
	// FromEvents: the table's events (its eliminations and game_over).
	FromEvents = "events"
	// FromTime: the game ran past its time limit; the dice left decide.
	FromTime = "time"
	// FromOverride: the organiser set it, with a reason.
	FromOverride = "override"
)

// The table event types the tournament keeps (RECORD.md, and corrected
// from docs/corrections.md). The others (revealed, rejected, ...) say
// nothing about who went out.
const (
	evHandStarted = "hand_started"
	evResolved    = "resolved"
	evFolded      = "folded"
	evLeft        = "left"
	evGameOver    = "game_over"
	evCorrected   = "corrected"
)

// Kept reports whether the tournament keeps events of this type.
func Kept(typ string) bool {
	switch typ {
	case evHandStarted, evResolved, evFolded, evLeft, evGameOver, evCorrected:
		return true
	}
	return false
}

// Result is a game's finishing order: Order's first group won, the next
// finished second, and so on; players out in one resolution share their
// place.
type Result struct {
	Order  [][]string `json:"order"`
	Source string     `json:"source"`
	// Reason is an override's (or a time call's) reason.
	Reason string `json:"reason,omitempty"`
	// Start is the seq of the table's first event of the game (its first
	// hand_started), Seq that of the event the result was taken at (its
	// game_over, or the last before time was called): the game is the
	// table's events Start to Seq, as liarsd adjudicate of its journal
	// gives them.
	Start int       `json:"start,omitempty"`
	Seq   int       `json:"seq,omitempty"`
	At    time.Time `json:"at"`
}

// Places returns each player's place: 1 for the first group, and one more
// than the players ahead for the others (two out together after two
// others: both third).
func (r Result) Places() map[string]int {
	out := map[string]int{}
	ahead := 0
	for _, g := range r.Order {
		for _, p := range g {
			out[p] = ahead + 1
		}
		ahead += len(g)
	}
	return out
}

// Points returns each player's points: one for every player of the game
// who finished below them.
func (r Result) Points() map[string]int {
	out := map[string]int{}
	total := 0
	for _, g := range r.Order {
		total += len(g)
	}
	ahead := 0
	for _, g := range r.Order {
		for _, p := range g {
			out[p] = total - ahead - len(g)
		}
		ahead += len(g)
	}
	return out
}

// Game is one table's game of a round.
type Game struct {
	Round   int
	Table   string
	Seats   []string
	Attempt int
	// After: the game is the first the table starts after its event
	// After with exactly these seats.
	After int
	Seed  int64
	// Since is when the game was asked for: its time limit counts from
	// there.
	Since time.Time

	// Start is the seq of the table's first hand_started of the game
	// once it started, 0 before.
	Start int
	// log holds the table's kept events of the game, a correction's
	// voided ones taken out.
	log []TableEvent
	// Refused is the table's refusal of the new_game.
	Refused *TableReply
	// Abandoned says why the game the table was playing for the
	// tournament is no longer it (another game started there).
	Abandoned string
	// TimeCalled is set once time was called on the game.
	TimeCalled bool
	Result     *Result
	// Late counts corrections that came after the round was over: the
	// result stands.
	Late int
	// Overridden keeps the result the events gave before an override.
	Overridden *Result
}

// ID is the command id of the game's new_game: the table's referee
// answers the same id once, however often it is sent.
func (g *Game) ID(tournament string) string {
	return fmt.Sprintf("tournament:%s:r%d:%s:a%d", tournament, g.Round, g.Table, g.Attempt)
}

// Started reports whether the table started the game.
func (g *Game) Started() bool { return g.Start > 0 }

// progress is what a game's kept events say: the dice each seat has, the
// groups of seats that went out in order, and the winner.
type progress struct {
	dice   map[string]int
	out    [][]string
	winner string
	hand   int
	seq    int
}

// progressOf folds a game's kept events.
func progressOf(seats []string, log []TableEvent) progress {
	p := progress{dice: map[string]int{}}
	in := map[string]bool{}
	for _, s := range seats {
		in[s] = true
	}
	gone := map[string]bool{}
	for _, ev := range log {
		p.seq = ev.Seq
		switch ev.Type {
		case evHandStarted:
			p.hand = ev.Hand
			for s, n := range ev.Dice {
				if in[s] {
					p.dice[s] = n
				}
			}
		case evResolved, evFolded:
			for s, d := range ev.Dice {
				if in[s] {
					p.dice[s] = max(0, p.dice[s]+d)
				}
			}
			var group []string
			for _, s := range ev.Out {
				if in[s] && !gone[s] {
					gone[s] = true
					group = append(group, s)
				}
			}
			if len(group) > 0 {
				slices.Sort(group)
				p.out = append(p.out, group)
			}
		case evLeft:
			if in[ev.Seat] && !gone[ev.Seat] {
				gone[ev.Seat] = true
				p.out = append(p.out, []string{ev.Seat})
			}
		case evGameOver:
			if in[ev.Winner] {
				p.winner = ev.Winner
			}
		}
	}
	return p
}

// orderFromEvents is the finishing order of a game that is over: the
// winner, then the groups that went out, the last first. A seat neither
// won nor seen going out (its elimination was never seen) shares the
// place after the winner; missing names it.
func orderFromEvents(seats []string, p progress) (order [][]string, missing []string) {
	order = [][]string{{p.winner}}
	placed := map[string]bool{p.winner: true}
	for _, g := range p.out {
		for _, s := range g {
			placed[s] = true
		}
	}
	for _, s := range seats {
		if !placed[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		order = append(order, missing)
	}
	for i := len(p.out) - 1; i >= 0; i-- {
		var g []string
		for _, s := range p.out[i] {
			if s != p.winner {
				g = append(g, s)
			}
		}
		if len(g) > 0 {
			order = append(order, g)
		}
	}
	return order, missing
}

// orderByDice is the finishing order of a game cut at its time limit: the
// seats still in, most dice first (equal dice share a place), then the
// groups that went out, the last first.
func orderByDice(seats []string, p progress) [][]string {
	gone := map[string]bool{}
	for _, g := range p.out {
		for _, s := range g {
			gone[s] = true
		}
	}
	byDice := map[int][]string{}
	var counts []int
	for _, s := range seats {
		if gone[s] {
			continue
		}
		n := p.dice[s]
		if _, ok := byDice[n]; !ok {
			counts = append(counts, n)
		}
		byDice[n] = append(byDice[n], s)
	}
	slices.Sort(counts)
	var order [][]string
	for i := len(counts) - 1; i >= 0; i-- {
		g := byDice[counts[i]]
		slices.Sort(g)
		order = append(order, g)
	}
	for i := len(p.out) - 1; i >= 0; i-- {
		order = append(order, p.out[i])
	}
	return order
}

// take adds one kept event of the table's game to g. A correction voids
// what the corrected hand's reveal caused: g's events from that hand's
// first resolution on (its folds stay), and the events that follow are
// the hand's result now.
func (g *Game) take(ev TableEvent) {
	if ev.Type != evCorrected {
		g.log = append(g.log, ev)
		return
	}
	start := -1
	for i := len(g.log) - 1; i >= 0; i-- {
		if g.log[i].Type == evHandStarted && g.log[i].Hand == ev.Hand {
			start = i
			break
		}
	}
	if start < 0 {
		return // a hand this game never saw start: nothing of it is kept
	}
	cut := len(g.log)
	for i := start + 1; i < len(g.log); i++ {
		if g.log[i].Type != evFolded {
			cut = i
			break
		}
	}
	g.log = g.log[:cut]
}

// settle takes the result from the events when the game is over, or
// withdraws one a correction undid. A result by time or by the organiser
// stands.
func (g *Game) settle(at time.Time) (note string) {
	if g.Result != nil && g.Result.Source != FromEvents {
		return ""
	}
	p := progressOf(g.Seats, g.log)
	if p.winner == "" {
		g.Result = nil
		return ""
	}
	order, missing := orderFromEvents(g.Seats, p)
	g.Result = &Result{Order: order, Source: FromEvents, Start: g.Start, Seq: p.seq, At: at}
	if len(missing) > 0 {
		return fmt.Sprintf("table %s's game from seq %d ended without an elimination seen for %s: they share the place after the winner", g.Table, g.Start, strings.Join(missing, ", "))
	}
	return ""
}

// status is the game's state in words for the pages: waiting, playing,
// finished, time, refused, abandoned, no result.
func (g *Game) status() string {
	switch {
	case g.Result != nil && g.Result.Source == FromOverride:
		return "overridden"
	case g.Result != nil && g.Result.Source == FromTime:
		return "time"
	case g.Result != nil:
		return "finished"
	case g.Refused != nil:
		return "refused"
	case g.TimeCalled:
		return "no result"
	case g.Abandoned != "":
		return "abandoned"
	case g.Started():
		return "playing"
	}
	return "waiting"
}

// problem says what the organiser must see to about the game, if anything.
func (g *Game) problem() string {
	switch {
	case g.Result != nil:
		return ""
	case g.Refused != nil:
		return fmt.Sprintf("table %s refused the game (%s: %s): set it right at the table and restart the game, or override its result", g.Table, g.Refused.Reason, g.Refused.Message)
	case g.TimeCalled:
		return fmt.Sprintf("time was called at table %s before the game started: override its result or restart the game", g.Table)
	case g.Abandoned != "":
		return g.Abandoned + ": restart the game, or override its result"
	}
	return ""
}

// ParseEvent reads a table's event (RECORD.md, docs/corrections.md) from
// its JSON into the part the tournament keeps (of a type it does not keep,
// which Kept tells: its type and seq only). It returns false for what is
// not an event (no type, no seq, not JSON).
func ParseEvent(table string, payload []byte) (TableEvent, bool) {
	var head struct {
		Type string `json:"type"`
		Seq  int    `json:"seq"`
	}
	if json.Unmarshal(payload, &head) != nil || head.Seq < 1 || head.Type == "" {
		return TableEvent{}, false
	}
	if !Kept(head.Type) {
		// Its other fields (a revealed event's faces) are none of the
		// tournament's.
		return TableEvent{Table: table, Type: head.Type, Seq: head.Seq}, true
	}
	var e struct {
		Game   int            `json:"game"`
		Hand   int            `json:"hand"`
		Dice   map[string]int `json:"dice"`
		Out    []string       `json:"out"`
		Seat   string         `json:"seat"`
		Winner string         `json:"winner"`
	}
	if json.Unmarshal(payload, &e) != nil {
		// A kept type with fields of other types: not an event of
		// RECORD.md; its seq still counts.
		return TableEvent{Table: table, Type: "malformed", Seq: head.Seq}, true
	}
	te := TableEvent{Table: table, Type: head.Type, Seq: head.Seq, Game: e.Game, Hand: e.Hand, Out: e.Out, Seat: e.Seat, Winner: e.Winner}
	if head.Type == evHandStarted || head.Type == evResolved || head.Type == evFolded {
		te.Dice = e.Dice
	}
	return te, true
}

// OrderOf returns the finishing order that a finished game's events give
// (the table's events from the game's first hand_started to its
// game_over, as liarsd adjudicate of the table's journal gives them; the
// types the tournament does not keep are skipped), as the tournament
// takes it from them; false when they hold no game_over won by one of
// seats.
func OrderOf(seats []string, evs []TableEvent) ([][]string, bool) {
	g := &Game{Seats: seats}
	for _, ev := range evs {
		if Kept(ev.Type) {
			g.take(ev)
		}
	}
	p := progressOf(seats, g.log)
	if p.winner == "" {
		return nil, false
	}
	order, _ := orderFromEvents(seats, p)
	return order, true
}
