package computer

import (
	"fmt"
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	tests := []struct {
		wins, n int
		lo, hi  float64
	}{
		// Worked by hand from the Wilson formula at z = 1.96.
		{50, 100, 0.40383, 0.59617},
		{0, 10, 0, 0.27753},
		{10, 10, 0.72247, 1},
		{95, 100, 0.88825, 0.97846},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.wins, tt.n, 1.96)
		if math.Abs(lo-tt.lo) > 5e-5 || math.Abs(hi-tt.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.5f, %.5f]; want [%.5f, %.5f]", tt.wins, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
	if lo, hi := Wilson(0, 0, 1.96); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%v, %v]; want [0, 1]", lo, hi)
	}
}

// TestSeatingIsFair checks that over a full turn of the table every seat
// position is played by A as often as its share says, and that A plays
// the right number of seats in every game.
func TestSeatingIsFair(t *testing.T) {
	for _, tt := range []struct{ seats, a int }{{2, 0}, {4, 0}, {4, 1}, {5, 2}, {3, 0}} {
		arena := Arena{Rules: "common-hand", Seats: tt.seats, ASeats: tt.a}
		want := arena.aSeats()
		byPosition := make([]int, tt.seats)
		for g := range tt.seats {
			n := 0
			for j, isA := range arena.Seating(g) {
				if isA {
					n++
					byPosition[j]++
				}
			}
			if n != want {
				t.Fatalf("%d seats, game %d: A plays %d seats; want %d", tt.seats, g, n, want)
			}
		}
		for j, n := range byPosition {
			if n != want {
				t.Fatalf("%d seats: position %d is A's in %d of %d games; want %d", tt.seats, j, n, tt.seats, want)
			}
		}
	}
}

func TestArenaCheck(t *testing.T) {
	bad := []Arena{
		{Rules: "poker", Seats: 2},
		{Rules: "endurance", Seats: 2},
		{Rules: "classic", Seats: 6},
		{Rules: "common-hand", Seats: 2, ASeats: 3},
	}
	for _, a := range bad {
		if _, err := a.Play(1, Random{}, Random{}); err == nil {
			t.Errorf("%+v: no error", a)
		}
	}
}

// TestStrongBeatsWeaker is a small, seeded version of the arena figures of
// docs/computer.md: the strong level wins clearly more than its fair share
// against the random and threshold players, in two-seat and four-seat
// games of common-hand and star-board (issue 8's measure).
func TestStrongBeatsWeaker(t *testing.T) {
	for _, rules := range []string{"common-hand", "star-board"} {
		for _, seats := range []int{2, 4} {
			for _, opp := range []Strategy{Random{}, Threshold{Below: 0.5}} {
				r, err := Arena{Rules: rules, Seats: seats, Seed: 1}.Play(60, Strong(), opp)
				if err != nil {
					t.Fatal(err)
				}
				lo, _ := Wilson(r.AWins, r.Games, 1.96)
				if lo <= r.Fair() {
					t.Errorf("%s, %d seats, against %T: strong won %d of %d (interval from %.2f); want clearly above %.2f", rules, seats, opp, r.AWins, r.Games, lo, r.Fair())
				}
			}
		}
	}
}

func ExampleArena() {
	strong, _ := New("strong")
	random, _ := New("random")
	r, err := Arena{Rules: "common-hand", Seats: 2, Seed: 1}.Play(200, strong, random)
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := Wilson(r.AWins, r.Games, 1.96)
	fmt.Printf("strong won %d of %d games against random (95%% CI above %.0f%%: %v)\n", r.AWins, r.Games, 100*r.Fair(), lo > r.Fair() && hi <= 1)
	// Output: strong won 200 of 200 games against random (95% CI above 50%: true)
}
