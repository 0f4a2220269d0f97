package computer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// mixedGame is one seeded game at a table of computer seats (whose dice the
// engine rolls) and people (whose dice the test rolls and reveals), with
// random options of the preset and the bluff check on or off.
type mixedGame struct {
	t      *testing.T
	rng    *rand.Rand
	tb     *engine.Table
	people map[string][]int // each person's dice in this hand
	levels map[string]Strategy
	log    []byte // every event, to compare replays
}

func randomMixedStart(rng *rand.Rand, rules string) (engine.Action, map[string]Strategy) {
	p := engine.Presets[rules]
	n := p.MinSeats + rng.IntN(min(p.MaxSeats, 5)-p.MinSeats+1)
	a := engine.Action{Type: engine.ActNewGame, Rules: rules, Seed: rng.Int64(),
		Computer: map[string]engine.ComputerSeat{}, BluffBonus: map[string]int{}}
	on := rng.IntN(2) == 0
	a.BluffCheck = &on
	levels := map[string]Strategy{}
	for i := range n {
		name := fmt.Sprintf("s%d", i+1)
		a.Seats = append(a.Seats, name)
		if i == 0 || rng.IntN(3) > 0 { // at least one computer seat
			s, _ := New(Levels[rng.IntN(len(Levels))])
			levels[name] = s
			a.Computer[name] = engine.ComputerSeat{Insight: rng.IntN(engine.MaxInsight + 1)}
		} else {
			a.BluffBonus[name] = rng.IntN(2*engine.MaxBluffBonus+1) - engine.MaxBluffBonus
		}
	}
	if rng.IntN(2) == 0 {
		a.First = a.Seats[rng.IntN(n)]
	}
	if p.FixedDice == 0 {
		d := 1 + rng.IntN(5)
		a.Options.Dice = &d
	}
	if !p.StarDie && !p.WildOnes && rng.IntN(3) == 0 {
		w := "ones"
		a.Options.Wild = &w
	}
	switch rules {
	case "tavern":
		purse := rng.IntN(30)
		a.Options.Purse = &purse
	case "endurance":
		g := 1 + rng.IntN(2)
		a.Options.Games = &g
	case "star-board":
		dh, sr := rng.IntN(2) == 0, rng.IntN(3) > 0
		a.Options.DieHard, a.Options.ShowReroll = &dh, &sr
	case "classic":
		ante := rng.IntN(3)
		a.Options.Ante = &ante
	case "perudo":
		calza, palifico := rng.IntN(4) > 0, rng.IntN(4) > 0
		a.Options.Calza, a.Options.Palifico = &calza, &palifico
	}
	return a, levels
}

func (m *mixedGame) apply(a engine.Action, what string) {
	m.t.Helper()
	if err := m.try(a); err != nil {
		m.t.Fatalf("%s: engine refused %+v: %v", what, a, err)
	}
}

// try applies an action and follows its events; a refusal changes nothing.
func (m *mixedGame) try(a engine.Action) error {
	m.t.Helper()
	evs, err := m.tb.Apply(a)
	if err != nil {
		return err
	}
	checkEvents(m.t, evs)
	snap := m.tb.Snapshot()
	for _, e := range evs {
		b, _ := json.Marshal(e)
		m.log = append(append(m.log, b...), '\n')
		if hs, ok := e.(*engine.HandStarted); ok {
			clear(m.people)
			for _, st := range snap.Seats {
				if n, in := hs.Dice[st.Name]; in && m.levels[st.Name] == nil {
					m.people[st.Name] = m.roll(n, snap.Sides)
				}
			}
		}
	}
	return nil
}

func (m *mixedGame) roll(n, sides int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = 1 + m.rng.IntN(sides)
	}
	return d
}

// play plays the game to its end and returns its events.
func (m *mixedGame) play(start engine.Action) []byte {
	m.apply(start, "new_game")
	random := Random{}
	for step := 0; ; step++ {
		if step > 200000 {
			m.t.Fatalf("%s: the game did not end", start.Rules)
		}
		s := m.tb.Snapshot()
		switch s.Phase {
		case engine.PhaseGameOver:
			return m.log
		case engine.PhaseOpening:
			dice := map[string][]int{}
			for _, name := range s.Rolling {
				if m.levels[name] == nil {
					dice[name] = m.roll(seatDice(s, name), s.Sides)
				}
			}
			m.apply(engine.Action{Type: engine.ActOpeningRoll, Dice: dice}, "opening roll")
		case engine.PhaseReveal:
			dice := map[string][]int{}
			for name, faces := range m.people {
				if slices.ContainsFunc(s.Seats, func(st engine.SeatView) bool { return st.Name == name && st.InHand }) {
					dice[name] = faces
				}
			}
			m.apply(engine.Action{Type: engine.ActReveal, Dice: dice}, "reveal")
		case engine.PhaseBidding:
			seat := *s.Turn
			var act engine.Action
			if st := m.levels[seat]; st != nil {
				v := ViewOf(m.tb, seat)
				if !slices.Equal(v.Dice, m.tb.HiddenDice(seat)) || len(v.Dice) == 0 {
					m.t.Fatalf("%s: %s's view holds %v", s.Rules, seat, v.Dice)
				}
				act = st.Choose(v, m.rng)
				if act.Type == "" {
					m.t.Fatalf("%s: %s (%T) has no move on its turn: %+v", s.Rules, seat, st, s)
				}
				m.apply(act, fmt.Sprintf("%s (%T, flustered %v)", seat, st, v.Flustered))
			} else {
				act = random.Choose(NewView(s, seat, m.people[seat]), m.rng)
				i := slices.IndexFunc(s.Seats, func(x engine.SeatView) bool { return x.Name == seat })
				if next := NewView(s, seat, nil).nextInHand(i); act.Type == engine.ActBid && next >= 0 &&
					m.levels[s.Seats[next].Name] != nil && m.rng.IntN(2) == 0 {
					if m.try(engine.Action{Type: engine.ActBid, Seat: seat, Quantity: act.Quantity, Face: act.Face, Bluff: true}) == nil {
						// Taken only where the table has the bluff check.
						continue
					}
				}
				m.apply(act, "person "+seat)
			}
			if act.Type == engine.ActBid && s.ShowReroll {
				if st := m.levels[seat]; st != nil {
					if shown := st.Show(ViewOf(m.tb, seat), m.rng); len(shown) > 0 {
						m.apply(engine.Action{Type: engine.ActShow, Seat: seat, Shown: shown}, "show of "+seat)
					}
				}
			}
		}
	}
}

// TestEveryPresetNeverStalls plays seeded games of every preset with random
// options, seat counts, levels, people and bluff checks: every computer
// seat has a move on each of its turns, the engine accepts every move and
// show, every game ends, and a seed replays the same events.
func TestEveryPresetNeverStalls(t *testing.T) {
	games := 150
	if testing.Short() {
		games = 15
	}
	checks, flustered := 0, 0
	for _, rules := range engine.PresetNames() {
		t.Run(rules, func(t *testing.T) {
			for g := range games {
				play := func() []byte {
					rng := rand.New(rand.NewPCG(uint64(g), 99))
					start, levels := randomMixedStart(rng, rules)
					m := &mixedGame{t: t, rng: rng, tb: engine.NewTable(), people: map[string][]int{}, levels: levels}
					return m.play(start)
				}
				a, b := play(), play()
				if string(a) != string(b) {
					t.Fatalf("game %d: the same seed gave other events", g)
				}
				checks += strings.Count(string(a), `"type":"bluff_check"`)
				flustered += strings.Count(string(a), `"success":true`)
			}
		})
	}
	if checks == 0 || flustered == 0 {
		t.Fatalf("%d bluff checks, %d succeeded; want some of each", checks, flustered)
	}
}
