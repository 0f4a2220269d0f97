package computer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer/duel"
)

// BenchmarkArenaGame measures one arena game, strong against threshold.
func BenchmarkArenaGame(b *testing.B) {
	for _, rules := range []string{"common-hand", "star-board"} {
		for _, seats := range []int{2, 4} {
			b.Run(fmt.Sprintf("%s/%d", rules, seats), func(b *testing.B) {
				a := Arena{Rules: rules, Seats: seats, Seed: 1}
				g := 0
				for b.Loop() {
					if _, err := a.Game(g, Strong(), Threshold{Below: 0.5}); err != nil {
						b.Fatal(err)
					}
					g++
				}
			})
		}
	}
}

// BenchmarkChoose measures one decision of the strong level (and of
// strong-v1) at an ordinary table (four seats of five dice) and at the largest table the engine
// allows with its widest dice (twenty seats of twenty dice of 100 sides).
func BenchmarkChoose(b *testing.B) {
	for _, tt := range []struct{ seats, dice, sides int }{{4, 5, 6}, {20, 20, 100}} {
		b.Run(fmt.Sprintf("%dx%dd%d", tt.seats, tt.dice, tt.sides), func(b *testing.B) {
			s := engine.Snapshot{Rules: "common-hand", Phase: engine.PhaseBidding, Sides: tt.sides}
			for i := range tt.seats {
				s.Seats = append(s.Seats, seatAt(fmt.Sprintf("s%d", i), tt.dice))
			}
			turn := "s1"
			s.Turn = &turn
			s.Bid = &engine.BidSeat{Seat: "s0", Quantity: tt.seats * tt.dice / tt.sides, Face: 2}
			rng := rand.New(rand.NewPCG(1, 1))
			dice := make([]int, tt.dice)
			for i := range dice {
				dice[i] = 1 + rng.IntN(tt.sides)
			}
			v := NewView(s, "s1", dice)
			for _, level := range []string{"strong", "strong-v1"} {
				b.Run(level, func(b *testing.B) {
					st, err := New(level)
					if err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						st.Choose(v, rng)
					}
				})
			}
		})
	}
}

// BenchmarkChooseSolved measures one decision of the strong level where it
// plays a solved table (two seats of two dice, after one bid), and of
// strong-v1 at the same place.
func BenchmarkChooseSolved(b *testing.B) {
	v := DuelView(duel.CommonHand, duel.Deal{D0: 2, D1: 2}, 1, []int{3, 5}, []int{7}, 2)
	for _, level := range []string{"strong", "strong-v1"} {
		b.Run(level, func(b *testing.B) {
			s, err := New(level)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			s.Choose(v, rng) // the embedded tables are read once
			for b.Loop() {
				s.Choose(v, rng)
			}
		})
	}
}
