package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// player makes random actions for a table: mostly legal, some not. It
// knows the table only through its snapshot, as a client would.
type player struct {
	rng *rand.Rand
	t   *engine.Table
}

func (p *player) seatNames(s engine.Snapshot) []string {
	var names []string
	for _, st := range s.Seats {
		if !st.Left {
			names = append(names, st.Name)
		}
	}
	return names
}

func (p *player) roll(n, sides int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = 1 + p.rng.IntN(sides)
	}
	return d
}

// next returns an action; legal tells whether it was meant to be legal
// (the engine may still refuse a raise that does not raise).
func (p *player) next(s engine.Snapshot) engine.Action {
	names := p.seatNames(s)
	any := names[p.rng.IntN(len(names))]
	if p.rng.IntN(12) == 0 { // something out of place
		switch p.rng.IntN(6) {
		case 0:
			return engine.Action{Type: engine.ActBid, Seat: any, Quantity: p.rng.IntN(40) - 5, Face: p.rng.IntN(10) - 1}
		case 1:
			return engine.Action{Type: engine.ActChallenge, Seat: any}
		case 2:
			return engine.Action{Type: engine.ActReveal, Dice: map[string][]int{any: p.roll(3, 6)}}
		case 3:
			return engine.Action{Type: engine.ActSpotOn, Seat: "nobody"}
		case 4:
			return engine.Action{Type: engine.ActShow, Seat: any, Shown: []int{p.rng.IntN(8)}}
		default:
			return engine.Action{Type: engine.ActLeave, Seat: any}
		}
	}
	switch s.Phase {
	case engine.PhaseOpening:
		dice := map[string][]int{}
		for _, name := range s.Rolling {
			if !isComputer(s, name) {
				dice[name] = p.roll(diceOf(s, name), s.Sides)
			}
		}
		return engine.Action{Type: engine.ActOpeningRoll, Dice: dice}
	case engine.PhaseReveal:
		dice := map[string][]int{}
		for _, st := range s.Seats {
			if st.InHand && st.Computer {
				if p.rng.IntN(2) == 0 { // the engine knows them; they may be given too
					dice[st.Name] = p.t.HiddenDice(st.Name)
				}
			} else if st.InHand {
				faces := append([]int(nil), st.Shown...)
				dice[st.Name] = append(faces, p.roll(st.Dice-len(st.Shown), s.Sides)...)
				p.rng.Shuffle(len(dice[st.Name]), func(i, j int) {
					dice[st.Name][i], dice[st.Name][j] = dice[st.Name][j], dice[st.Name][i]
				})
			}
		}
		return engine.Action{Type: engine.ActReveal, Dice: dice}
	}
	turn := *s.Turn
	inPlay := 0
	for _, st := range s.Seats {
		if st.InHand {
			inPlay += st.Dice
		}
	}
	switch r := p.rng.IntN(100); {
	case r < 2 && s.Bid == nil:
		return engine.Action{Type: engine.ActLeave, Seat: turn}
	case r < 6 && s.Rules == "tavern":
		return engine.Action{Type: engine.ActFold, Seat: turn}
	case r < 9 && s.Rules == "tavern":
		return engine.Action{Type: engine.ActAllIn, Seat: turn}
	case r < 14 && s.Bid != nil && s.Bid.Seat != turn && s.StarDie:
		shown := p.roll(1+p.rng.IntN(2), 6)
		if hidden := p.t.HiddenDice(s.Bid.Seat); hidden != nil && len(hidden) > len(shown) {
			shown = hidden[len(hidden)-len(shown):]
		}
		return engine.Action{Type: engine.ActShow, Seat: s.Bid.Seat, Shown: shown}
	case r < 30 && s.Bid != nil:
		return engine.Action{Type: engine.ActChallenge, Seat: turn}
	case r < 36 && s.Bid != nil:
		return engine.Action{Type: engine.ActSpotOn, Seat: turn}
	}
	a := engine.Action{Type: engine.ActBid, Seat: turn, Quantity: 1 + p.rng.IntN(max(1, inPlay/2+1)), Face: 1 + p.rng.IntN(s.Sides)}
	if s.Bid != nil && p.rng.IntN(2) == 0 {
		a.Quantity = min(inPlay, s.Bid.Quantity+1)
	}
	if s.Rules == "classic" && p.rng.IntN(3) == 0 {
		a.Bluff = true
	}
	if s.Stake != nil && p.rng.IntN(4) == 0 {
		stake := *s.Stake + p.rng.IntN(3)
		a.Stake = &stake
	}
	return a
}

func isComputer(s engine.Snapshot, name string) bool {
	for _, st := range s.Seats {
		if st.Name == name {
			return st.Computer
		}
	}
	return false
}

func diceOf(s engine.Snapshot, name string) int {
	for _, st := range s.Seats {
		if st.Name == name {
			return st.Dice
		}
	}
	return 0
}

// randomGame is a new_game of the preset with random seats and options.
func randomGame(rng *rand.Rand, preset string) engine.Action {
	p := engine.Presets[preset]
	n := p.MinSeats + rng.IntN(min(p.MaxSeats, 6)-p.MinSeats+1)
	a := engine.Action{Type: engine.ActNewGame, Rules: preset, Seed: rng.Int64()}
	for i := range n {
		a.Seats = append(a.Seats, fmt.Sprintf("seat%d", i+1))
	}
	if rng.IntN(2) == 0 {
		a.First = a.Seats[rng.IntN(n)]
	}
	if p.FixedDice == 0 {
		d := 1 + rng.IntN(5)
		a.Options.Dice = &d
	}
	switch preset {
	case "tavern":
		purse := rng.IntN(60)
		a.Options.Purse = &purse
	case "endurance":
		g := 1 + rng.IntN(3)
		a.Options.Games = &g
	case "star-board":
		dh := rng.IntN(2) == 0
		a.Options.DieHard = &dh
	case "perudo":
		// Mostly both on (the default), so that palifico hands and calzas
		// are played; now and then either off.
		if rng.IntN(4) == 0 {
			calza := rng.IntN(2) == 0
			a.Options.Calza = &calza
		}
		if rng.IntN(4) == 0 {
			palifico := rng.IntN(2) == 0
			a.Options.Palifico = &palifico
		}
	}
	if rng.IntN(2) == 0 {
		a.Computer = map[string]engine.ComputerSeat{}
		for _, name := range a.Seats {
			if rng.IntN(3) == 0 {
				a.Computer[name] = engine.ComputerSeat{Insight: rng.IntN(5)}
			}
		}
	}
	if !p.StarDie && !p.WildOnes && rng.IntN(3) == 0 {
		w := "ones"
		a.Options.Wild = &w
	}
	return a
}

// playRandomGame plays one game to its end and checks the invariants.
// It returns every action tried (refused ones too), the accepted ones and
// their events.
func playRandomGame(t *testing.T, seed uint64, preset string) (tried, actions []engine.Action, events []engine.Event) {
	rng := rand.New(rand.NewPCG(seed, 7))
	tb := engine.NewTable()
	start := randomGame(rng, preset)
	evs, err := tb.Apply(start)
	if err != nil {
		t.Fatalf("seed %d: new_game refused: %v", seed, err)
	}
	tried = append(tried, start)
	actions = append(actions, start)
	events = append(events, evs...)
	p := &player{rng: rng, t: tb}
	purse := 0
	if start.Options.Purse != nil {
		purse = *start.Options.Purse * len(start.Seats)
	}
	over := false
	for step := 0; !over; step++ {
		if step > 20000 {
			t.Fatalf("seed %d (%s): the game did not end in 20000 actions", seed, preset)
		}
		before := tb.Snapshot()
		a := p.next(before)
		tried = append(tried, a)
		evs, err := tb.Apply(a)
		if err != nil {
			if after := tb.Snapshot(); !reflect.DeepEqual(before, after) {
				t.Fatalf("seed %d: refused %+v changed the state:\n%s\n%s", seed, a, js(before), js(after))
			}
			continue
		}
		actions = append(actions, a)
		events = append(events, evs...)
		s := tb.Snapshot()
		for _, st := range s.Seats {
			if st.Dice < 0 || (preset == "kids" && st.Dice > 6) {
				t.Fatalf("seed %d: %s has %d dice", seed, st.Name, st.Dice)
			}
		}
		if preset == "tavern" {
			total := *s.Pot + *s.RunningPot
			for _, st := range s.Seats {
				total += *st.Chips
			}
			if total != purse {
				t.Fatalf("seed %d: chips are %d, not the %d there were", seed, total, purse)
			}
		}
		over = s.Phase == engine.PhaseGameOver
	}
	// Nothing after the end but the next game's events.
	if evs, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: start.Seats[0], Quantity: 1, Face: 2}); err == nil || len(evs) > 0 {
		t.Fatalf("seed %d: an action after game_over was taken", seed)
	}
	checkEnding(t, seed, preset, events)
	return tried, actions, events
}

// checkEnding checks that the events name exactly one winner: one
// game_over per game (per round and one match_over in endurance), last.
func checkEnding(t *testing.T, seed uint64, preset string, events []engine.Event) {
	t.Helper()
	overs, matches := 0, 0
	for i, e := range events {
		switch e := e.(type) {
		case *engine.GameOver:
			overs++
			if preset != "endurance" && i != len(events)-1 {
				t.Fatalf("seed %d: events after game_over: %s", seed, js(events[i+1:]))
			}
			if e.Winner == "" {
				t.Fatalf("seed %d: game_over without a winner", seed)
			}
		case *engine.MatchOver:
			matches++
			if i != len(events)-1 {
				t.Fatalf("seed %d: events after match_over", seed)
			}
		}
	}
	switch {
	case preset == "endurance" && (matches != 1 || overs < 1):
		t.Fatalf("seed %d: %d match_over and %d game_over", seed, matches, overs)
	case preset != "endurance" && overs != 1:
		t.Fatalf("seed %d: %d game_over; want 1", seed, overs)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRandomGames(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 30
	}
	for _, preset := range engine.PresetNames() {
		t.Run(preset, func(t *testing.T) {
			for seed := range uint64(games) {
				playRandomGame(t, seed, preset)
			}
		})
	}
}

// TestReplay checks that a record replays to the same events: the engine
// has no hidden state and no randomness beyond the game's seed.
func TestReplay(t *testing.T) {
	for _, preset := range engine.PresetNames() {
		_, actions, events := playRandomGame(t, 99, preset)
		tb := engine.NewTable()
		var again []engine.Event
		for _, a := range actions {
			evs, err := tb.Apply(a)
			if err != nil {
				t.Fatalf("%s: replay refused %+v: %v", preset, a, err)
			}
			again = append(again, evs...)
		}
		if got, want := js(again), js(events); got != want {
			t.Fatalf("%s: replay gave other events:\ngot  %s\nwant %s", preset, got, want)
		}
	}
}
