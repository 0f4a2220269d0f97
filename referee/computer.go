package referee

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
)

// Computer is a seat the referee plays.
type Computer struct {
	Name string
	// Level is its play (engine/computer): random, threshold, beginner or
	// strong; empty means strong.
	Level string
	// Insight is its bonus against a person's bluff check.
	Insight int
}

// DefaultComputerPace is the pause before a computer seat acts.
const DefaultComputerPace = 1500 * time.Millisecond

// computers plays the computer seats: their strategies and seeded choices.
type computers struct {
	strategy map[string]computer.Strategy
	rng      map[string]*rand.Rand
	pending  int // len(lines) when a move was last scheduled; -1 for none
}

// newComputers prepares the strategies of the configured computer seats.
func newComputers(cs []Computer, seed int64) (*computers, error) {
	c := &computers{strategy: map[string]computer.Strategy{}, rng: map[string]*rand.Rand{}, pending: -1}
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

// withComputers names the table's computer seats in a new_game line that
// has no computer field of its own, for those of them that sit in it.
func withComputers(line []byte, cs []Computer) []byte {
	if len(cs) == 0 {
		return line
	}
	var g struct {
		Seats    []string        `json:"seats"`
		Computer json.RawMessage `json:"computer"`
	}
	if json.Unmarshal(line, &g) != nil || g.Computer != nil {
		return line
	}
	named := map[string]any{}
	for _, c := range cs {
		for _, s := range g.Seats {
			if s == c.Name {
				named[c.Name] = map[string]any{"insight": c.Insight, "level": c.Level}
			}
		}
	}
	if len(named) == 0 {
		return line
	}
	raw, _ := json.Marshal(named)
	fields, err := parseObject(line)
	if err != nil {
		return line
	}
	return encodeObject(append(fields, field{"computer", raw}))
}

// playComputers schedules the move of a computer seat whose turn it is,
// and a computer seat's show right after its own star-board bid. Moves go
// through the same path as every input, so they are journaled and replay
// like anyone's.
func (r *Referee) playComputers(last engine.Action, source string) {
	if r.comp == nil || len(r.comp.strategy) == 0 {
		return
	}
	snap := r.table.Snapshot()
	if last.Type == engine.ActBid && source == SourceSeat+":"+last.Seat && snap.ShowReroll {
		if s, ok := r.comp.strategy[last.Seat]; ok {
			if shown := s.Show(computer.ViewOf(r.table, last.Seat), r.comp.rng[last.Seat]); len(shown) > 0 {
				line := record.Encode(engine.Action{Type: engine.ActShow, Seat: last.Seat, Shown: shown})
				r.post(func() { r.apply(line, SourceSeat+":"+last.Seat) })
			}
		}
	}
	if snap.Phase != engine.PhaseBidding || snap.Turn == nil {
		return
	}
	seat := *snap.Turn
	s, ok := r.comp.strategy[seat]
	if !ok || r.comp.pending == len(r.lines) {
		return
	}
	r.comp.pending = len(r.lines)
	act := s.Choose(computer.ViewOf(r.table, seat), r.comp.rng[seat])
	if act.Type == "" {
		return
	}
	line := record.Encode(act)
	r.cfg.Clock.AfterFunc(r.cfg.ComputerPace, func() {
		r.post(func() {
			// Only if nothing happened meanwhile: otherwise the move was
			// chosen on a table that is gone, and the new one is asked.
			if r.comp.pending != len(r.lines) {
				return
			}
			if rep := r.apply(line, SourceSeat+":"+seat); !rep.OK {
				r.log.Warn("referee: a computer seat's move was refused", "seat", seat, "reason", rep.Reason)
			}
		})
	})
}

// physical leaves out of a hand's dice the computer seats', which the
// engine holds: the camera sees only people's dice.
func (r *Referee) physical(want map[string]int) map[string]int {
	for _, st := range r.table.Snapshot().Seats {
		if st.Computer {
			delete(want, st.Name)
		}
	}
	return want
}
