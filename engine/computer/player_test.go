package computer_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
)

// TestPlayersPlayEveryPreset plays whole games with the levels' players (and
// the Simple player) at a table whose dice are rolled as physical dice
// would be: every move the players send is accepted.
func TestPlayersPlayEveryPreset(t *testing.T) {
	for _, preset := range engine.PresetNames() {
		for _, level := range []string{"random", "strong", "simple"} {
			t.Run(preset+"/"+level, func(t *testing.T) {
				tb := engine.NewTable()
				names := []string{"ann", "bob", "cy"}
				if _, err := record.Apply(tb, []byte(fmt.Sprintf(`{"type":"new_game","rules":%q,"seats":["ann","bob","cy"],"first":"ann","seed":5}`, preset))); err != nil {
					t.Fatal(err)
				}
				players := map[string]computer.Player{}
				for i, n := range names {
					if level == "simple" {
						players[n] = computer.NewSimple(uint64(i + 1))
						continue
					}
					p, err := computer.NewPlayer(level, uint64(i+1))
					if err != nil {
						t.Fatal(err)
					}
					players[n] = p
				}
				rng := rand.New(rand.NewPCG(9, 9))
				dice := map[string][]int{}
				roll := func() {
					for _, st := range tb.Snapshot().Seats {
						dice[st.Name] = make([]int, st.Dice)
						for i := range dice[st.Name] {
							dice[st.Name][i] = 1 + rng.IntN(tb.Snapshot().Sides)
						}
					}
				}
				roll()
				hand := [2]int{tb.Snapshot().Game, tb.Snapshot().Hand}
				for step := 0; step < 5000; step++ {
					s := tb.Snapshot()
					if s.Phase == engine.PhaseGameOver {
						return
					}
					if now := [2]int{s.Game, s.Hand}; now != hand { // a new hand: everyone rolls
						roll()
						hand = now
					}
					var line []byte
					if s.Phase == engine.PhaseReveal {
						reveal := map[string][]int{}
						for _, st := range s.Seats {
							if st.InHand {
								reveal[st.Name] = dice[st.Name]
							}
						}
						b, _ := json.Marshal(map[string]any{"type": engine.ActReveal, "dice": reveal})
						line = b
					} else {
						v := computer.View{Snapshot: s, Seat: *s.Turn, Dice: dice[*s.Turn]}
						m := players[*s.Turn].Act(v)
						line = record.Encode(m)
						if _, err := record.Apply(tb, line); err != nil {
							t.Fatalf("%s played %s: refused: %v", *s.Turn, line, err)
						}
						if m.Type == engine.ActBid {
							if show := players[m.Seat].ShowAfter(v, m); len(show) > 0 {
								sm := engine.Action{Type: engine.ActShow, Seat: m.Seat, Shown: show}
								if _, err := record.Apply(tb, record.Encode(sm)); err != nil {
									t.Fatalf("%s showed %v: refused: %v", m.Seat, show, err)
								}
								// Every shown die stays; the hidden ones are rolled again.
								var shown []int
								for _, st := range tb.Snapshot().Seats {
									if st.Name == m.Seat {
										shown = st.Shown
									}
								}
								kept := append([]int(nil), shown...)
								for len(kept) < len(dice[m.Seat]) {
									kept = append(kept, 1+rng.IntN(s.Sides))
								}
								dice[m.Seat] = kept
							}
						}
						continue
					}
					if _, err := record.Apply(tb, line); err != nil {
						t.Fatalf("reveal %s refused: %v", line, err)
					}
				}
				t.Fatal("the game did not end in 5000 moves")
			})
		}
	}
}
