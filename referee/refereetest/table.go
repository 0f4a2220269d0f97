package refereetest

import (
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/liarsd/liarsd/engine/computer"
)

// Table is a physical table, as a fake of the real one: each seat's dice
// as they lie (hidden under the cup, or shown), rolled from a seed. It is safe for concurrent use.
type Table struct {
	mu    sync.Mutex
	rng   *rand.Rand
	sides int
	dice  map[string][]int
	shown map[string][]int
}

// NewTable returns an empty table whose dice roll from seed.
func NewTable(seed uint64) *Table {
	return &Table{rng: rand.New(rand.NewPCG(seed, 0x7461626c65)), sides: 6,
		dice: map[string][]int{}, shown: map[string][]int{}}
}

// Roll clears the table and rolls counts[seat] dice of sides faces for
// each seat.
func (t *Table) Roll(counts map[string]int, sides int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if sides < 2 {
		sides = 6
	}
	t.sides = sides
	t.dice = make(map[string][]int, len(counts))
	t.shown = map[string][]int{}
	names := make([]string, 0, len(counts))
	for s := range counts {
		names = append(names, s)
	}
	slices.Sort(names) // map order must not change the draws
	for _, s := range names {
		d := make([]int, counts[s])
		for i := range d {
			d[i] = 1 + t.rng.IntN(sides)
		}
		t.dice[s] = d
	}
}

// Show sets out faces of seat's hidden dice face up and rerolls its other
// hidden dice (star-board's show and reroll).
func (t *Table) Show(seat string, faces []int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	hidden := computer.Hidden(t.dice[seat], t.shown[seat])
	for _, f := range faces {
		if i := slices.Index(hidden, f); i >= 0 {
			hidden = slices.Delete(hidden, i, i+1)
		}
	}
	for i := range hidden {
		hidden[i] = 1 + t.rng.IntN(t.sides)
	}
	t.shown[seat] = append(t.shown[seat], faces...)
	t.dice[seat] = append(slices.Clone(t.shown[seat]), hidden...)
}

// Remove takes a seat's dice off the table (a fold).
func (t *Table) Remove(seat string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.dice, seat)
	delete(t.shown, seat)
}

// Dice returns a copy of seat's dice.
func (t *Table) Dice(seat string) []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.dice[seat])
}

// All returns a copy of every seat's dice.
func (t *Table) All() map[string][]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string][]int, len(t.dice))
	for s, d := range t.dice {
		out[s] = slices.Clone(d)
	}
	return out
}
