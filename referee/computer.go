package referee

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
)

// Computer is a seat the referee plays.
type Computer struct {
	Name string
	// Level is its play (engine/computer): random, threshold, beginner,
	// strong-v1 or strong; empty means strong.
	Level string
	// Insight is its bonus against a person's bluff check.
	Insight int
}

// DefaultComputerPace is the pause before a computer seat acts.
const DefaultComputerPace = 1500 * time.Millisecond

// computers plays the computer seats: it follows the table, and when a
// computer seat is to act it asks the seat's strategy (engine/computer)
// and takes the move as the seat's input. It also takes the reveal of a
// hand whose dice are all computer seats': the engine has every die.
type computers struct {
	r        *Referee
	strategy map[string]computer.Strategy
	rng      map[string]*rand.Rand
	seed     int64
	pending  int // len(lines) when a move was last scheduled; -1 for none
}

// newComputers prepares the strategies of the configured computer seats.
func newComputers(r *Referee, cs []Computer, seed int64) (*computers, error) {
	c := &computers{r: r, strategy: map[string]computer.Strategy{}, rng: map[string]*rand.Rand{}, seed: seed, pending: -1}
	for _, seat := range cs {
		level := seat.Level
		if level == "" {
			level = "strong"
		}
		s, err := computer.New(level)
		if err != nil {
			return nil, fmt.Errorf("referee: computer seat %s: %w", seat.Name, err)
		}
		c.strategy[seat.Name] = s
		c.rng[seat.Name] = computer.Rand(seed, seat.Name)
	}
	return c, nil
}

// Follow plays the computer seats after a change, and reveals a hand of
// computer seats alone.
func (c *computers) Follow(d *Desk, ch Change) {
	if kind, want := d.Awaited(); kind != "" && len(want) == 0 {
		// Only computer seats: the engine has every die.
		a := engine.Action{Type: kind, Dice: map[string][]int{}}
		d.Post(func(d *Desk) { d.Take(ActionInput(a, SourceCamera)) })
	}
	c.play(ch.Action, ch.Source)
}

// strategyFor returns the strategy that plays seat, a computer seat of
// the game (new_game's computer field decides, not the configuration): the
// configured one, else one of the level the new_game named (strong when it
// named none). It returns nil for a person's seat, even a configured one
// that this game's new_game did not name: the referee has no dice for it.
func (c *computers) strategyFor(seat string) (computer.Strategy, *rand.Rand) {
	r := c.r
	level, ok := r.table.ComputerLevel(seat)
	if !ok {
		return nil, nil
	}
	if s, ok := c.strategy[seat]; ok {
		return s, c.rng[seat]
	}
	s, err := computer.New(level)
	if err != nil {
		if level != "" {
			r.log.Warn("referee: a computer seat's level is unknown; it plays strong", "seat", seat, "level", level)
		}
		s = computer.Strong()
	}
	c.strategy[seat] = s
	c.rng[seat] = computer.Rand(c.seed, seat)
	return s, c.rng[seat]
}

// play schedules the move of a computer seat whose turn it is, and a
// computer seat's show right after its own star-board bid. Moves go
// through the same path as every input, so they are journaled and replay
// like anyone's.
func (c *computers) play(last engine.Action, source string) {
	r := c.r
	snap := r.table.Snapshot()
	if last.Type == engine.ActBid && source == SourceSeat+":"+last.Seat && snap.ShowReroll {
		if s, rng := c.strategyFor(last.Seat); s != nil {
			if shown := s.Show(computer.ViewOf(r.table, last.Seat), rng); len(shown) > 0 {
				in := ActionInput(engine.Action{Type: engine.ActShow, Seat: last.Seat, Shown: shown}, SourceSeat+":"+last.Seat)
				r.post(func() { r.apply(in) })
			}
		}
	}
	if snap.Phase != engine.PhaseBidding || snap.Turn == nil {
		return
	}
	seat := *snap.Turn
	s, rng := c.strategyFor(seat)
	if s == nil || c.pending == r.lineNo() {
		return
	}
	version := r.lineNo()
	c.pending = version
	act := s.Choose(computer.ViewOf(r.table, seat), rng)
	r.cfg.Clock.AfterFunc(r.cfg.ComputerPace, func() {
		r.post(func() {
			if r.lineNo() != version {
				// The table moved on meanwhile (an accepted input, or a
				// person's refused one, which is journaled too): the move
				// was chosen on a table that is gone. Unless a newer move
				// is already on its way, ask again on the table as it is.
				if c.pending == version {
					c.pending = -1
					c.play(engine.Action{}, "")
				}
				return
			}
			c.move(seat, act)
		})
	})
}

// move plays a computer seat's chosen move. Should the engine
// refuse it (it never should), the seat plays the first legal action the
// engine accepts instead, so that it never stalls the table.
func (c *computers) move(seat string, act engine.Action) {
	r := c.r
	source := SourceSeat + ":" + seat
	if act.Type != "" {
		rep := r.apply(ActionInput(act, source))
		if rep.OK {
			return
		}
		r.log.Warn("referee: a computer seat's move was refused", "seat", seat, "reason", rep.Reason)
	}
	for _, alt := range computer.Legal(computer.ViewOf(r.table, seat)) {
		if r.apply(ActionInput(alt, source)).OK {
			return
		}
	}
	r.log.Error("referee: a computer seat has no move the engine accepts", "seat", seat)
}
