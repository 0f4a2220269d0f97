package computer

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// position is a hand-made bidding position: two seats, "me" to act after
// "them" bid (q, f).
func position(rules string, wild bool, mine []int, theirs, q, f int) View {
	s := engine.Snapshot{Rules: rules, Phase: engine.PhaseBidding, Sides: 6, Wild: wild,
		StarDie: rules == "star-board"}
	turn := "me"
	s.Turn = &turn
	s.Seats = []engine.SeatView{seatAt("them", theirs), seatAt("me", len(mine))}
	s.Bid = &engine.BidSeat{Seat: "them", Quantity: q, Face: f}
	return NewView(s, "me", mine)
}

func allLevels(t *testing.T) map[string]Strategy {
	t.Helper()
	out := map[string]Strategy{}
	for _, l := range Levels {
		s, err := New(l)
		if err != nil {
			t.Fatalf("New(%q): %v", l, err)
		}
		out[l] = s
	}
	return out
}

// TestCertainBids checks the ranking at the edges: a bid that is certainly
// true is never challenged, a certainly false one always is, by every
// level but random.
func TestCertainBids(t *testing.T) {
	tests := []struct {
		name      string
		v         View
		challenge bool
	}{
		{"common-hand true", position("common-hand", false, []int{6, 6, 6, 6, 6}, 5, 4, 6), false},
		{"common-hand false", position("common-hand", false, []int{2, 3, 4, 5, 2}, 5, 9, 6), true},
		{"ones wild true", position("common-hand", true, []int{1, 1, 4, 4, 2}, 5, 4, 4), false},
		{"star-board true", position("star-board", true, []int{1, 5, 5, 1, 2}, 5, 4, 5), false},
		{"star-board false", position("star-board", true, []int{2, 3, 4, 6, 6}, 5, 7, 5), true},
		{"star bid false", position("star-board", true, []int{2, 3, 4, 6, 6}, 5, 6, 1), true},
		{"classic false", position("classic", false, []int{2, 3, 4, 5, 2}, 5, 6, 6), true},
		{"kids true", position("kids", false, []int{3}, 1, 1, 3), false},
		{"endurance false", position("endurance", false, []int{2, 2, 2, 2, 2}, 5, 6, 4), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chance := Chance(tt.v, tt.v.Snapshot.Bid.Quantity, tt.v.Snapshot.Bid.Face, 0)
			if want := map[bool]float64{false: 1, true: 0}[tt.challenge]; chance != want {
				t.Fatalf("the bid's chance is %v; want %v", chance, want)
			}
			ranked := Rank(tt.v)
			if got := ranked[0].Action.Type == engine.ActChallenge; got != tt.challenge {
				t.Fatalf("Rank's best is %+v (value %.3f); want a challenge: %v", ranked[0].Action, ranked[0].Value, tt.challenge)
			}
			for name, s := range allLevels(t) {
				if name == "random" {
					continue
				}
				for seed := range uint64(50) {
					a := s.Choose(tt.v, rand.New(rand.NewPCG(seed, 1)))
					if got := a.Type == engine.ActChallenge; got != tt.challenge {
						t.Fatalf("%s plays %+v; want a challenge: %v", name, a, tt.challenge)
					}
				}
			}
		})
	}
}

// TestRankValues checks the ranking's values against hand-worked cases.
func TestRankValues(t *testing.T) {
	// Two seats, no bid can be true beyond 10 dice; the standing nine 6s is
	// false for sure (I hold none, they hold five at most): challenging
	// wins their die (+1), a spot-on loses mine (-1).
	v := position("common-hand", false, []int{2, 3, 4, 5, 2}, 5, 9, 6)
	for _, o := range Rank(v) {
		switch o.Action.Type {
		case engine.ActChallenge:
			if math.Abs(o.Value-1) > 1e-9 {
				t.Errorf("challenge of a false bid is worth %v; want 1", o.Value)
			}
		case engine.ActSpotOn:
			if math.Abs(o.Value+1) > 1e-9 {
				t.Errorf("spot-on of an impossible count is worth %v; want -1", o.Value)
			}
		case engine.ActBid:
			if o.Value > 0 {
				t.Errorf("raise %d of %d is worth %v; want at most 0", o.Action.Quantity, o.Action.Face, o.Value)
			}
		}
	}
	// Ranked best first.
	r := Rank(v)
	if !slices.IsSortedFunc(r, func(a, b Option) int {
		switch {
		case a.Value > b.Value:
			return -1
		case a.Value < b.Value:
			return 1
		}
		return 0
	}) {
		t.Fatalf("Rank is not best first")
	}
	// Star-board: a standing seven 5s with none of mine counting and five
	// dice of theirs: the count is at most 5, so they lose at least two.
	v = position("star-board", true, []int{2, 3, 4, 6, 6}, 5, 7, 5)
	if o := Rank(v)[0]; o.Action.Type != engine.ActChallenge || o.Value < 2 {
		t.Fatalf("star-board best %+v worth %v; want a challenge worth at least 2 dice", o.Action, o.Value)
	}
}

// TestSecondBest checks the bluff check's rule: a flustered seat plays
// Rank's second option.
func TestSecondBest(t *testing.T) {
	views := []View{
		position("common-hand", false, []int{6, 6, 2, 3, 4}, 5, 2, 6),
		position("classic", false, []int{1, 3, 3, 5, 6}, 5, 3, 3),
		position("star-board", true, []int{1, 5, 5, 2, 2}, 5, 3, 5),
	}
	for _, v := range views {
		ranked := Rank(v)
		calm := Strong().Choose(v, rand.New(rand.NewPCG(1, 1)))
		v.Flustered = true
		flustered := Strong().Choose(v, rand.New(rand.NewPCG(1, 1)))
		if !reflect.DeepEqual(calm, ranked[0].Action) {
			t.Errorf("%s: strong plays %+v; want Rank's best %+v", v.Snapshot.Rules, calm, ranked[0].Action)
		}
		if !reflect.DeepEqual(flustered, ranked[1].Action) {
			t.Errorf("%s: flustered strong plays %+v; want Rank's second %+v", v.Snapshot.Rules, flustered, ranked[1].Action)
		}
		// The beginner's second best is the second of its own blurred
		// ranking, drawn from the same seed.
		b := Beginner()
		blurred := b.Ranked(v, rand.New(rand.NewPCG(9, 9)))
		if got := b.Choose(v, rand.New(rand.NewPCG(9, 9))); !reflect.DeepEqual(got, blurred[1].Action) {
			t.Errorf("%s: flustered beginner plays %+v; want its second %+v", v.Snapshot.Rules, got, blurred[1].Action)
		}
		// The threshold player falls back to its other choice.
		th := Threshold{Below: 0.5}
		v.Flustered = false
		first := th.Choose(v, nil)
		v.Flustered = true
		if second := th.Choose(v, nil); reflect.DeepEqual(first, second) {
			t.Errorf("%s: flustered threshold player still plays %+v", v.Snapshot.Rules, first)
		}
	}
}

// TestDeterminism checks that a seed decides everything: the same arena
// gives the same games, whatever the number of workers.
func TestDeterminism(t *testing.T) {
	for _, rules := range []string{"common-hand", "star-board", "tavern"} {
		var records [3][]engine.Action
		var results [3]Result
		for i, workers := range []int{1, 1, 2} {
			rec := &records[i]
			a := Arena{Rules: rules, Seats: 3, Seed: 5, Workers: workers}
			if workers == 1 {
				a.Trace = func(g int, act engine.Action) {
					if g == 3 {
						*rec = append(*rec, act)
					}
				}
			}
			r, err := a.Play(8, Beginner(), Random{})
			if err != nil {
				t.Fatalf("%s: %v", rules, err)
			}
			results[i] = r
		}
		if !reflect.DeepEqual(records[0], records[1]) || len(records[0]) == 0 {
			t.Fatalf("%s: the same game played twice gave different records", rules)
		}
		if results[0] != results[2] {
			t.Fatalf("%s: one worker gave %+v, two gave %+v", rules, results[0], results[2])
		}
	}
	v := position("common-hand", false, []int{6, 6, 2, 3, 4}, 5, 2, 6)
	for seed := range uint64(20) {
		a := Beginner().Choose(v, rand.New(rand.NewPCG(seed, 0)))
		b := Beginner().Choose(v, rand.New(rand.NewPCG(seed, 0)))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: %+v then %+v", seed, a, b)
		}
	}
}

// TestEveryStrategyPlaysLegally plays games between every pair of levels at
// every preset; the arena fails on any action the engine refuses.
func TestEveryStrategyPlaysLegally(t *testing.T) {
	levels := allLevels(t)
	for _, rules := range engine.PresetNames() {
		p := engine.Presets[rules]
		for _, a := range Levels {
			for _, b := range Levels {
				arena := Arena{Rules: rules, Seats: min(p.MaxSeats, max(p.MinSeats, 3)), Seed: 2}
				r, err := arena.Play(4, levels[a], levels[b])
				if err != nil {
					t.Fatalf("%s, %s against %s: %v", rules, a, b, err)
				}
				if r.Hands == 0 || r.Actions == 0 {
					t.Fatalf("%s, %s against %s: %+v", rules, a, b, r)
				}
			}
		}
	}
}

func TestNewLevels(t *testing.T) {
	for _, l := range Levels {
		if _, err := New(l); err != nil {
			t.Errorf("New(%q): %v", l, err)
		}
	}
	if _, err := New("grandmaster"); err == nil {
		t.Errorf("New(grandmaster) gave no error")
	}
}

func TestShow(t *testing.T) {
	v := position("star-board", true, []int{1, 5, 2, 3, 5}, 5, 2, 5)
	v.Snapshot.Bid.Seat = "me"
	l := Leveled{Model: StrongModel, ShowDice: true}
	if got, want := l.Show(v, nil), []int{1, 5, 5}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Show = %v; want %v", got, want)
	}
	if got := Strong().Show(v, nil); got != nil {
		t.Fatalf("strong shows %v; want nothing", got)
	}
	// Random never shows every hidden die.
	for seed := range uint64(100) {
		shown := Random{}.Show(v, rand.New(rand.NewPCG(seed, 0)))
		if len(shown) >= len(v.Dice) || !containsAll(v.Dice, shown) {
			t.Fatalf("random shows %v of %v", shown, v.Dice)
		}
	}
}
