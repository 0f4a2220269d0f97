package computer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// computerGame starts a game of the preset whose seats are all computer
// seats: the engine rolls their dice from the seed.
func computerGame(t *testing.T, rules string, seats int, seed int64) (*engine.Table, []engine.Event) {
	t.Helper()
	a := engine.Action{Type: engine.ActNewGame, Rules: rules, Seed: seed, Computer: map[string]engine.ComputerSeat{}}
	for i := range seats {
		name := fmt.Sprintf("cpu%d", i+1)
		a.Seats = append(a.Seats, name)
		a.Computer[name] = engine.ComputerSeat{Level: "strong"}
	}
	a.First = a.Seats[0]
	tb := engine.NewTable()
	evs, err := tb.Apply(a)
	if err != nil {
		t.Fatalf("%s: new_game: %v", rules, err)
	}
	return tb, evs
}

// dieFaces finds a JSON array of numbers: the only way dice faces appear in
// an event.
var dieFaces = regexp.MustCompile(`\[\s*\d`)

// TestComputerSeatsThroughEngine plays whole games of computer seats whose
// dice the engine rolls, each seat deciding from ViewOf alone. It checks
// that the engine accepts every action, that each view holds its own seat's
// dice and nobody else's, and that no event shows a die face before the
// revealed event.
func TestComputerSeatsThroughEngine(t *testing.T) {
	levels := allLevels(t)
	for _, rules := range engine.PresetNames() {
		p := engine.Presets[rules]
		for _, level := range Levels {
			seats := min(p.MaxSeats, max(p.MinSeats, 3))
			tb, evs := computerGame(t, rules, seats, 21)
			checkEvents(t, evs)
			rng := rand.New(rand.NewPCG(21, 0))
			reveals, shows := 0, 0
			for step := 0; tb.Snapshot().Phase != engine.PhaseGameOver; step++ {
				if step > 100000 {
					t.Fatalf("%s: the game did not end", rules)
				}
				s := tb.Snapshot()
				var act engine.Action
				switch s.Phase {
				case engine.PhaseReveal:
					reveals++
					act = engine.Action{Type: engine.ActReveal, Dice: map[string][]int{}}
				case engine.PhaseBidding:
					v := ViewOf(tb, *s.Turn)
					checkPrivate(t, tb, v)
					act = levels[level].Choose(v, rng)
				default:
					t.Fatalf("%s: phase %s", rules, s.Phase)
				}
				evs, err := tb.Apply(act)
				if err != nil {
					t.Fatalf("%s, %s: engine refused %+v: %v", rules, level, act, err)
				}
				checkEvents(t, evs)
				if act.Type == engine.ActBid && p.StarDie {
					v := ViewOf(tb, act.Seat)
					if shown := levels[level].Show(v, rng); len(shown) > 0 {
						shows++
						if _, err := tb.Apply(engine.Action{Type: engine.ActShow, Seat: act.Seat, Shown: shown}); err != nil {
							t.Fatalf("%s, %s: engine refused the show of %v from %v: %v", rules, level, shown, v.Dice, err)
						}
						after := ViewOf(tb, act.Seat)
						if !containsAll(after.Dice, shown) || len(after.Dice) != len(v.Dice) {
							t.Fatalf("%s: after showing %v the seat holds %v", rules, shown, after.Dice)
						}
					}
				}
			}
			if reveals == 0 || (rules == "star-board" && level == "random" && shows == 0) {
				t.Fatalf("%s, %s: %d reveals, %d shows", rules, level, reveals, shows)
			}
		}
	}
}

// checkPrivate checks that a view holds the seat's own dice (as the engine
// keeps them) and, apart from them, only dice every seat may see: the ones
// shown on the table. It walks every field of the view, so a field added
// later that carries dice fails here.
func checkPrivate(t *testing.T, tb *engine.Table, v View) {
	t.Helper()
	if own := tb.HiddenDice(v.Seat); !slices.Equal(v.Dice, own) || len(own) == 0 {
		t.Fatalf("view of %s holds %v; its dice are %v", v.Seat, v.Dice, own)
	}
	shown := map[string][]int{}
	for _, st := range v.Snapshot.Seats {
		shown[st.Name] = st.Shown
	}
	walkInts(reflect.ValueOf(v), "View", func(path string, faces []int, owner string) {
		switch {
		case path == "View.Dice":
		case owner != "" && path == "View.Snapshot.Seats["+owner+"].Shown":
			if !slices.Equal(faces, shown[owner]) {
				t.Fatalf("%s holds %v, not the shown dice %v", path, faces, shown[owner])
			}
		default:
			t.Fatalf("view of %s carries dice at %s: %v", v.Seat, path, faces)
		}
	})
}

// walkInts calls visit with every []int or map of []int reachable from v.
// Seats are named in the path by their Name.
func walkInts(v reflect.Value, path string, visit func(path string, faces []int, owner string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkInts(v.Elem(), path, visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walkInts(v.Field(i), path+"."+v.Type().Field(i).Name, visit)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Int {
			if v.Len() > 0 {
				visit(path, v.Interface().([]int), "")
			}
			return
		}
		for i := range v.Len() {
			el := v.Index(i)
			name := fmt.Sprint(i)
			if sv, ok := el.Interface().(engine.SeatView); ok {
				name = sv.Name
				if len(sv.Shown) > 0 {
					visit(path+"["+name+"].Shown", sv.Shown, name)
				}
				continue
			}
			walkInts(el, path+"["+name+"]", visit)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			walkInts(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), visit)
		}
	}
}

// checkEvents checks that only a revealed event carries die faces.
func checkEvents(t *testing.T, evs []engine.Event) {
	t.Helper()
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if e.Head().Type != engine.EvRevealed && dieFaces.Match(b) {
			t.Fatalf("event carries die faces before the reveal: %s", b)
		}
	}
}

// TestArenaViewsArePrivate checks the arena's side of privacy: the view a
// strategy gets holds its own seat's dice, which the reveal then shows,
// and nothing else that is hidden.
func TestArenaViewsArePrivate(t *testing.T) {
	// Presets whose every hand ends in a reveal (tavern's can end in folds).
	for _, rules := range []string{"common-hand", "classic", "kids"} {
		spy := &spyStrategy{Strategy: Strong()}
		var record []engine.Action
		a := Arena{Rules: rules, Seats: 3, Seed: 8, Workers: 1, Trace: func(_ int, act engine.Action) { record = append(record, act) }}
		if _, err := a.Game(0, spy, spy); err != nil {
			t.Fatal(err)
		}
		// The dice each seat saw in a hand are the dice the reveal showed
		// for it (no show and reroll outside star-board).
		hand, seen := 0, 0
		for _, act := range record {
			if act.Type != engine.ActReveal {
				continue
			}
			for _, v := range spy.views {
				if v.hand == hand && v.Snapshot.Seats[v.seatIndex()].InHand {
					if faces, ok := act.Dice[v.Seat]; ok {
						seen++
						if !slices.Equal(v.Dice, faces) {
							t.Fatalf("%s hand %d: %s saw %v; the reveal shows %v", rules, hand, v.Seat, v.Dice, faces)
						}
					}
				}
			}
			hand++
		}
		if seen == 0 {
			t.Fatalf("%s: no view checked", rules)
		}
		for _, v := range spy.views {
			walkInts(reflect.ValueOf(v.View), "View", func(path string, faces []int, owner string) {
				if path != "View.Dice" && owner == "" {
					t.Fatalf("%s: view carries dice at %s", rules, path)
				}
			})
		}
	}
}

// spyStrategy records the views it is given, numbered by hand from 0.
type spyStrategy struct {
	Strategy
	views []spyView
}

type spyView struct {
	View
	hand int
}

func (s *spyStrategy) Choose(v View, rng *rand.Rand) engine.Action {
	s.views = append(s.views, spyView{View: v, hand: v.Snapshot.Hand - 1})
	return s.Strategy.Choose(v, rng)
}

// TestBluffCheck plays the bluff check of RULINGS.md through the engine: a
// person's bid with a bluff check against the computer seat to its left;
// when it succeeds the computer seat's view is flustered and it plays
// Rank's second option.
func TestBluffCheck(t *testing.T) {
	successes := 0
	for seed := range int64(30) {
		tb := engine.NewTable()
		_, err := tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "classic", Seats: []string{"ann", "cpu"},
			First: "ann", Seed: seed, Computer: map[string]engine.ComputerSeat{"cpu": {Insight: 2, Level: "strong"}},
			BluffBonus: map[string]int{"ann": 5}})
		if err != nil {
			t.Fatal(err)
		}
		evs, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: "ann", Quantity: 2, Face: 3, Bluff: true})
		if err != nil {
			t.Fatalf("seed %d: bid with a bluff check: %v", seed, err)
		}
		var check *engine.BluffCheck
		for _, e := range evs {
			if c, ok := e.(*engine.BluffCheck); ok {
				check = c
			}
		}
		if check == nil {
			t.Fatalf("seed %d: no bluff_check event in %v", seed, evs)
		}
		checkEvents(t, evs)
		v := ViewOf(tb, "cpu")
		if v.Flustered != check.Success {
			t.Fatalf("seed %d: check success %v, view flustered %v", seed, check.Success, v.Flustered)
		}
		ranked := Rank(v)
		got := StrongV1().Choose(v, rand.New(rand.NewPCG(1, 2)))
		want := ranked[0].Action
		if check.Success {
			successes++
			want = ranked[1].Action
			// The strong level, flustered, plays its own ranking's second.
			strong := Strong()
			second := strong.Approx.Model.Rank(v)[1].Action
			if got := strong.Choose(v, rand.New(rand.NewPCG(1, 2))); !reflect.DeepEqual(got, second) {
				t.Fatalf("seed %d: flustered strong plays %+v; want %+v", seed, got, second)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (flustered %v): strong plays %+v; want %+v", seed, v.Flustered, got, want)
		}
		if _, err := tb.Apply(got); err != nil {
			t.Fatalf("seed %d: engine refused %+v: %v", seed, got, err)
		}
	}
	if successes == 0 || successes == 30 {
		t.Fatalf("%d of 30 bluff checks succeeded; want some of each", successes)
	}
}

// TestViewOfPerson checks that a person's seat gets no dice from ViewOf: the
// engine does not know them.
func TestViewOfPerson(t *testing.T) {
	tb, _ := tableWithBid(t, "common-hand", 5, 1, 2)
	if v := ViewOf(tb, "s2"); len(v.Dice) != 0 {
		t.Fatalf("view of a person's seat holds %v", v.Dice)
	}
	var rej *engine.Rejection
	if _, err := tb.Apply(engine.Action{Type: engine.ActBid, Seat: "s1", Quantity: 3, Face: 2, Bluff: true}); !errors.As(err, &rej) {
		t.Fatalf("a bluff check against a person's seat: %v; want a rejection", err)
	}
}
