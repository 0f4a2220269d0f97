package refereetest

import (
	"encoding/json"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
)

// Script plays games offline with simple players and seeded dice and
// returns at least n record lines, every one accepted in order: a game
// record for tests and benchmarks that drive a referee from outside. Games
// follow one another (each a new_game with the next seed) and the last
// line may fall anywhere in a game.
func Script(rules string, names []string, options map[string]any, seed uint64, n int) [][]byte {
	lines, _ := script(rules, names, options, seed, n)
	return lines
}

// script is Script, also counting the players' moves the engine refused.
func script(rules string, names []string, options map[string]any, seed uint64, n int) ([][]byte, int) {
	refused := 0
	t := engine.NewTable()
	dice := NewTable(seed)
	players := map[string]computer.Player{}
	for i, s := range names {
		players[s] = computer.NewSimple(seed*7 + uint64(i))
	}
	var lines [][]byte
	apply := func(line []byte) bool {
		evs, err := record.Apply(t, line)
		if err != nil {
			return false
		}
		lines = append(lines, line)
		for _, e := range evs {
			if h, ok := e.(*engine.HandStarted); ok {
				dice.Roll(h.Dice, t.Snapshot().Sides)
			}
		}
		return true
	}
	games := 0
	newGame := func() {
		games++
		line := map[string]any{"type": "new_game", "rules": rules, "seats": names, "first": names[0], "seed": int64(seed) + int64(games)}
		if len(options) > 0 {
			line["options"] = options
		}
		b, _ := json.Marshal(line)
		if !apply(b) {
			panic("demo: script: new_game refused: " + string(b))
		}
	}
	newGame()
	for len(lines) < n {
		s := t.Snapshot()
		switch s.Phase {
		case engine.PhaseGameOver, engine.PhaseIdle, engine.PhaseOpening:
			newGame()
		case engine.PhaseReveal:
			b := record.Encode(engine.Action{Type: engine.ActReveal, Dice: dice.All()})
			if !apply(b) {
				panic("demo: script: reveal refused: " + string(b))
			}
		case engine.PhaseBidding:
			seat := *s.Turn
			v := computer.View{Snapshot: s, Seat: seat, Dice: dice.Dice(seat)}
			m := players[seat].Act(v)
			if !apply(record.Encode(m)) {
				refused++
				ok := false
				for _, fb := range []engine.Action{{Type: engine.ActChallenge, Seat: seat}, {Type: engine.ActFold, Seat: seat}, {Type: engine.ActAllIn, Seat: seat}} {
					if apply(record.Encode(fb)) {
						ok = true
						break
					}
				}
				if !ok {
					panic("demo: script: no move for " + seat)
				}
				if m.Type == engine.ActFold {
					dice.Remove(seat)
				}
				continue
			}
			switch m.Type {
			case engine.ActFold:
				dice.Remove(seat)
			case engine.ActBid:
				if show := players[seat].ShowAfter(v, m); len(show) > 0 {
					sm := engine.Action{Type: engine.ActShow, Seat: seat, Shown: show}
					if apply(record.Encode(sm)) {
						dice.Show(seat, show)
					} else {
						refused++
					}
				}
			}
		}
	}
	return lines, refused
}
