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
	// Level is its play (engine/computer): random, threshold, beginner,
	// strong-v1 or strong; empty means strong.
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
	seed     int64
	pending  int // len(lines) when a move was last scheduled; -1 for none
}

// newComputers prepares the strategies of the configured computer seats.
func newComputers(cs []Computer, seed int64) (*computers, error) {
	c := &computers{strategy: map[string]computer.Strategy{}, rng: map[string]*rand.Rand{}, seed: seed, pending: -1}
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

// strategyFor returns the strategy that plays seat, a computer seat of
// the game (new_game's computer field decides, not the configuration): the
// configured one, else one of the level the new_game named (strong when it
// named none). It returns nil for a person's seat, even a configured one
// that this game's new_game did not name: the referee has no dice for it.
func (r *Referee) strategyFor(seat string) (computer.Strategy, *rand.Rand) {
	level, ok := r.table.ComputerLevel(seat)
	if !ok {
		return nil, nil
	}
	if s, ok := r.comp.strategy[seat]; ok {
		return s, r.comp.rng[seat]
	}
	s, err := computer.New(level)
	if err != nil {
		if level != "" {
			r.log.Warn("referee: a computer seat's level is unknown; it plays strong", "seat", seat, "level", level)
		}
		s = computer.Strong()
	}
	r.comp.strategy[seat] = s
	r.comp.rng[seat] = computer.Rand(r.comp.seed, seat)
	return s, r.comp.rng[seat]
}

// playComputers schedules the move of a computer seat whose turn it is,
// and a computer seat's show right after its own star-board bid. Moves go
// through the same path as every input, so they are journaled and replay
// like anyone's.
func (r *Referee) playComputers(last engine.Action, source string) {
	if r.comp == nil {
		return
	}
	snap := r.table.Snapshot()
	if last.Type == engine.ActBid && source == SourceSeat+":"+last.Seat && snap.ShowReroll {
		if s, rng := r.strategyFor(last.Seat); s != nil {
			if shown := s.Show(computer.ViewOf(r.table, last.Seat), rng); len(shown) > 0 {
				line := record.Encode(engine.Action{Type: engine.ActShow, Seat: last.Seat, Shown: shown})
				r.post(func() { r.apply(line, SourceSeat+":"+last.Seat) })
			}
		}
	}
	if snap.Phase != engine.PhaseBidding || snap.Turn == nil {
		return
	}
	seat := *snap.Turn
	s, rng := r.strategyFor(seat)
	if s == nil || r.comp.pending == r.lineNo() {
		return
	}
	version := r.lineNo()
	r.comp.pending = version
	act := s.Choose(computer.ViewOf(r.table, seat), rng)
	r.cfg.Clock.AfterFunc(r.cfg.ComputerPace, func() {
		r.post(func() {
			if r.lineNo() != version {
				// The table moved on meanwhile (an accepted input, or a
				// person's refused one, which is journaled too): the move
				// was chosen on a table that is gone. Unless a newer move
				// is already on its way, ask again on the table as it is.
				if r.comp.pending == version {
					r.comp.pending = -1
					r.playComputers(engine.Action{}, "")
				}
				return
			}
			r.moveComputer(seat, act)
		})
	})
}

// moveComputer plays a computer seat's chosen move. Should the engine
// refuse it (it never should), the seat plays the first legal action the
// engine accepts instead, so that it never stalls the table.
func (r *Referee) moveComputer(seat string, act engine.Action) {
	source := SourceSeat + ":" + seat
	if act.Type != "" {
		rep := r.apply(record.Encode(act), source)
		if rep.OK {
			return
		}
		r.log.Warn("referee: a computer seat's move was refused", "seat", seat, "reason", rep.Reason)
	}
	for _, alt := range computer.Legal(computer.ViewOf(r.table, seat)) {
		if r.apply(record.Encode(alt), source).OK {
			return
		}
	}
	r.log.Error("referee: a computer seat has no move the engine accepts", "seat", seat)
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
