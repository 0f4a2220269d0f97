package engine

import (
	"errors"
	"math/rand/v2"
)

// Table referees one table: a sequence of games, each begun by a new_game
// action. It numbers its events with seq, 1, 2, 3, ... without gaps.
type Table struct {
	seq       int
	g         *game
	newSource func(seed int64) *rand.PCG
}

// NewTable returns a table with no game yet.
func NewTable() *Table {
	return &Table{newSource: seededSource}
}

// SeededRand is the engine's source of randomness for a game's seed: the
// same seed always gives the same draws.
func SeededRand(seed int64) *rand.Rand {
	return randFrom(seededSource(seed))
}

// seededSource is SeededRand's source, which a game keeps so that a copy
// of the game (for a correction) draws the same numbers.
func seededSource(seed int64) *rand.PCG {
	return rand.NewPCG(uint64(seed), 0x6c69617273646963)
}

func randFrom(src *rand.PCG) *rand.Rand { return rand.New(src) }

// Apply checks one action and carries it out. It returns the events the
// action caused, numbered, or a *Rejection that says why it was refused; a
// refused action changes nothing.
func (t *Table) Apply(a Action) ([]Event, error) {
	if r := t.apply(a); r != nil {
		return nil, r
	}
	evs := t.g.events
	t.g.events = nil
	for _, e := range evs {
		t.seq++
		e.Head().Seq = t.seq
	}
	return evs, nil
}

func (t *Table) apply(a Action) *Rejection {
	if a.Type == ActNewGame {
		if t.newSource == nil { // a zero Table seeds like NewTable's
			t.newSource = seededSource
		}
		g, r := newGame(a, t.newSource)
		if r != nil {
			return r
		}
		t.g = g // a game in progress is abandoned
		return nil
	}
	if !knownAction(a.Type) {
		return reject(BadInput, "unknown type %q", a.Type)
	}
	if a.Type == ActShow {
		if r := checkShown(a); r != nil {
			return r // bad_input comes before no_game, unknown_seat and not_allowed
		}
	}
	if t.g == nil {
		return reject(NoGame, "no game has started; a new_game comes first")
	}
	if a.Type == ActCorrect {
		// A correction may undo the end of a game: it is taken after
		// game_over while the window is open.
		g, r := t.g.doCorrect(a)
		if r != nil {
			return r
		}
		t.g = g
		return nil
	}
	if t.g.phase == PhaseGameOver {
		return reject(NoGame, "the game is over; a new_game starts the next")
	}
	if r := t.g.apply(a); r != nil {
		return r
	}
	if a.Type != ActReveal {
		t.g.correct = nil // the window of a correction closes
	}
	return nil
}

func knownAction(typ string) bool {
	switch typ {
	case ActNewGame, ActOpeningRoll, ActBid, ActShow, ActChallenge, ActSpotOn, ActReveal, ActFold, ActAllIn, ActLeave, ActCorrect:
		return true
	}
	return false
}

// Reject numbers the rejected event of a refused record line. A
// *Rejection wrapped in err keeps its reason; any other error is bad_input.
func (t *Table) Reject(line int, err error) *Rejected {
	var r *Rejection
	switch {
	case errors.As(err, &r):
	case err == nil:
		r = &Rejection{Reason: BadInput, Message: "the line was refused"}
	default:
		r = &Rejection{Reason: BadInput, Message: err.Error()}
	}
	t.seq++
	return &Rejected{Header: Header{Type: EvRejected, Seq: t.seq}, Line: line, Reason: r.Reason, Message: r.Message}
}

// Seq returns the seq of the last event.
func (t *Table) Seq() int { return t.seq }

// ResumeAt numbers the table's next event seq+1. A referee that rebuilt
// the game in progress from a checkpoint of its journal (the game's lines
// replayed through a new table) goes on with the journal's numbering.
func (t *Table) ResumeAt(seq int) { t.seq = seq }
