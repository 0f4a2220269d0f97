package computer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/liarsd/liarsd/engine"
)

// Arena plays seeded games between two strategies, A and B, through a real
// engine.Table: it rolls every seat's dice, asks the strategy of the seat
// to act, and builds the reveal. Game g of an arena is the same whatever
// else the arena plays, so results replay from the seed.
type Arena struct {
	// Rules is the preset.
	Rules string
	// Seats is the number of seats at the table.
	Seats int
	// ASeats is how many of them A plays, spread around the table; 0 means
	// half, rounded up. B plays the others.
	ASeats int
	// Options are the new_game options of every game.
	Options engine.Options
	// Seed seeds every game (its engine seed, its dice, the strategies'
	// draws).
	Seed int64
	// Workers is how many games Play plays at once; 0 means one per CPU
	// (GOMAXPROCS). Strategies hold no state, so they may play several
	// games at once.
	Workers int
	// Trace, when set, is called with every action the table accepts, in
	// order: the game's record. With more than one worker it is called from
	// several goroutines at once.
	Trace func(game int, a engine.Action)
}

// Result is what an arena's games came to.
type Result struct {
	Rules         string
	Seats, ASeats int
	Games         int
	// AWins counts the games won by a seat that A plays.
	AWins int
	// Hands and Actions count the hands played and the actions the
	// strategies took, over every game.
	Hands, Actions int
}

// Share is A's share of the games won.
func (r Result) Share() float64 {
	if r.Games == 0 {
		return 0
	}
	return float64(r.AWins) / float64(r.Games)
}

// Fair is the share A would win if the two strategies played alike: its
// share of the seats.
func (r Result) Fair() float64 {
	if r.Seats == 0 {
		return 0
	}
	return float64(r.ASeats) / float64(r.Seats)
}

// Wilson returns the Wilson score interval of a proportion of wins in n
// games at the normal quantile z (1.96 for 95%).
func Wilson(wins, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p := float64(wins) / float64(n)
	nf := float64(n)
	denom := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return max(0, centre-half), min(1, centre+half)
}

// maxActions bounds one game; no game of strategies that raise comes near.
const maxActions = 1_000_000

// Check reports whether the arena describes a table the preset allows.
func (a Arena) Check() error {
	p, ok := engine.Presets[a.Rules]
	if !ok {
		return fmt.Errorf("computer: no preset %q (presets are %v)", a.Rules, engine.PresetNames())
	}
	if a.Seats < p.MinSeats || a.Seats > p.MaxSeats {
		return fmt.Errorf("computer: %s is played by %d to %d seats, not %d", a.Rules, p.MinSeats, p.MaxSeats, a.Seats)
	}
	if a.ASeats < 0 || a.ASeats > a.Seats {
		return fmt.Errorf("computer: A cannot play %d of %d seats", a.ASeats, a.Seats)
	}
	return nil
}

func (a Arena) aSeats() int {
	if a.ASeats == 0 {
		return (a.Seats + 1) / 2
	}
	return a.ASeats
}

// Play plays games 0..games-1 and counts A's wins. The result does not
// depend on Workers: each game is seeded by its number alone.
func (a Arena) Play(games int, sa, sb Strategy) (Result, error) {
	if err := a.Check(); err != nil {
		return Result{}, err
	}
	workers := a.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outs := make([]Outcome, games)
	errs := make([]error, games)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(games, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				g := int(next.Add(1) - 1)
				if g >= games {
					return
				}
				outs[g], errs[g] = a.Game(g, sa, sb)
			}
		}()
	}
	wg.Wait()
	r := Result{Rules: a.Rules, Seats: a.Seats, ASeats: a.aSeats(), Games: games}
	for g, out := range outs {
		if errs[g] != nil {
			return r, errs[g]
		}
		if out.AWon {
			r.AWins++
		}
		r.Hands += out.Hands
		r.Actions += out.Actions
	}
	return r, nil
}

// Outcome is one arena game's result.
type Outcome struct {
	Winner  string
	AWon    bool
	Hands   int
	Actions int
}

// Seating returns who plays each seat of game g, clockwise: true for A.
// A's seats are spread evenly and the pattern turns one seat per game, so
// over games every seat position is played by A and B alike.
func (a Arena) Seating(g int) []bool {
	n, k := a.Seats, a.aSeats()
	pattern := make([]bool, n)
	for i := range k {
		pattern[i*n/k] = true
	}
	seats := make([]bool, n)
	for j := range n {
		seats[j] = pattern[(j+g)%n]
	}
	return seats
}

// Game plays game g of the arena to its end.
func (a Arena) Game(g int, sa, sb Strategy) (Outcome, error) {
	if err := a.Check(); err != nil {
		return Outcome{}, err
	}
	diceRng := rand.New(rand.NewPCG(uint64(a.Seed), uint64(2*g)))
	choiceRng := rand.New(rand.NewPCG(uint64(a.Seed), uint64(2*g+1)))
	seating := a.Seating(g)
	names := make([]string, len(seating))
	strategy := map[string]Strategy{}
	isA := map[string]bool{}
	na, nb := 0, 0
	for j, playsA := range seating {
		if playsA {
			na++
			names[j] = fmt.Sprintf("A%d", na)
			strategy[names[j]] = sa
		} else {
			nb++
			names[j] = fmt.Sprintf("B%d", nb)
			strategy[names[j]] = sb
		}
		isA[names[j]] = playsA
	}
	p := engine.Presets[a.Rules]
	showReroll := p.StarDie && (a.Options.ShowReroll == nil || *a.Options.ShowReroll)

	tb := engine.NewTable()
	pl := &arenaGame{tb: tb, rng: diceRng, hands: map[string][]int{}}
	if a.Trace != nil {
		pl.trace = func(act engine.Action) { a.Trace(g, act) }
	}
	if err := pl.apply(engine.Action{Type: engine.ActNewGame, Rules: a.Rules, Seats: names,
		Seed: diceRng.Int64(), Options: a.Options}); err != nil {
		return Outcome{}, err
	}
	out := Outcome{}
	for pl.winner == "" {
		if out.Actions > maxActions {
			return out, fmt.Errorf("computer: game %d of %s did not end in %d actions", g, a.Rules, maxActions)
		}
		s := tb.Snapshot()
		switch s.Phase {
		case engine.PhaseOpening:
			dice := map[string][]int{}
			for _, name := range s.Rolling {
				dice[name] = pl.roll(seatDice(s, name), s.Sides)
			}
			if err := pl.apply(engine.Action{Type: engine.ActOpeningRoll, Dice: dice}); err != nil {
				return out, err
			}
		case engine.PhaseReveal:
			dice := map[string][]int{}
			for _, st := range s.Seats {
				if st.InHand {
					dice[st.Name] = slices.Clone(pl.hands[st.Name])
				}
			}
			if err := pl.apply(engine.Action{Type: engine.ActReveal, Dice: dice}); err != nil {
				return out, err
			}
		case engine.PhaseBidding:
			seat := *s.Turn
			v := NewView(s, seat, pl.hands[seat])
			v.Bids = tb.HandBids()
			act := strategy[seat].Choose(v, choiceRng)
			out.Actions++
			if err := pl.apply(act); err != nil {
				return out, fmt.Errorf("computer: %s's action %+v: %w", seat, act, err)
			}
			if act.Type == engine.ActBid && showReroll {
				if err := pl.show(seat, strategy[seat], choiceRng); err != nil {
					return out, err
				}
			}
		default:
			return out, fmt.Errorf("computer: game %d of %s stopped in phase %s", g, a.Rules, s.Phase)
		}
	}
	out.Winner, out.AWon, out.Hands = pl.winner, isA[pl.winner], pl.handCount
	return out, nil
}

// arenaGame is one game's table and the dice the arena rolled for it.
type arenaGame struct {
	tb        *engine.Table
	rng       *rand.Rand
	hands     map[string][]int
	winner    string
	handCount int
	trace     func(engine.Action)
}

func (pl *arenaGame) roll(n, sides int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = 1 + pl.rng.IntN(sides)
	}
	return d
}

// apply applies an action and follows its events: a new hand rolls every
// seat's dice; a game_over (a match_over in endurance) names the winner.
func (pl *arenaGame) apply(a engine.Action) error {
	evs, err := pl.tb.Apply(a)
	if err != nil {
		return err
	}
	if pl.trace != nil {
		pl.trace(a)
	}
	snap := pl.tb.Snapshot()
	match := engine.Presets[snap.Rules] != nil && engine.Presets[snap.Rules].Match
	for _, e := range evs {
		switch e := e.(type) {
		case *engine.HandStarted:
			pl.handCount++
			clear(pl.hands)
			// Roll in seat order, not the map's, so a seed replays.
			for _, st := range snap.Seats {
				if n, ok := e.Dice[st.Name]; ok {
					pl.hands[st.Name] = pl.roll(n, snap.Sides)
				}
			}
		case *engine.GameOver:
			if !match {
				pl.winner = e.Winner
			}
		case *engine.MatchOver:
			pl.winner = e.Winner
		}
	}
	return nil
}

// show asks the seat that just bid whether to show dice, checks that it
// shows dice it has hidden, and rerolls the rest of its hidden dice.
func (pl *arenaGame) show(seat string, st Strategy, rng *rand.Rand) error {
	s := pl.tb.Snapshot()
	v := NewView(s, seat, pl.hands[seat])
	shown := st.Show(v, rng)
	if len(shown) == 0 {
		return nil
	}
	hidden := v.myHidden()
	if !containsAll(hidden, shown) {
		return fmt.Errorf("computer: %s shows %v, not among its hidden dice %v", seat, shown, hidden)
	}
	if err := pl.apply(engine.Action{Type: engine.ActShow, Seat: seat, Shown: shown}); err != nil {
		return fmt.Errorf("computer: %s's show %v: %w", seat, shown, err)
	}
	after := pl.tb.Snapshot()
	all := slices.Clone(after.Seats[slices.IndexFunc(after.Seats, func(x engine.SeatView) bool { return x.Name == seat })].Shown)
	pl.hands[seat] = append(all, pl.roll(len(pl.hands[seat])-len(all), after.Sides)...)
	return nil
}

// containsAll reports whether faces holds every die of sub (as multisets).
func containsAll(faces, sub []int) bool {
	return len(without(faces, sub)) == len(faces)-len(sub)
}

func seatDice(s engine.Snapshot, name string) int {
	for _, st := range s.Seats {
		if st.Name == name {
			return st.Dice
		}
	}
	return 0
}
