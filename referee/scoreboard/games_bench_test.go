package scoreboard_test

import (
	"fmt"
	"testing"

	"github.com/liarsd/liarsd/referee/scoreboard"
)

// journalOf returns a journal of n short games (5 lines each).
func journalOf(n int) [][]byte {
	var lines [][]byte
	for i := 0; i < n; i++ {
		for j, l := range journalLines[:5] {
			if j == 0 {
				l = fmt.Sprintf(`{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","seed":%d,"options":{"dice":1}}`, i)
			}
			lines = append(lines, []byte(l))
		}
	}
	return lines
}

// BenchmarkGames replays a journal of 2,000 games (10,000 lines), as each
// request of the history or the records does.
func BenchmarkGames(b *testing.B) {
	lines := journalOf(2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if g := scoreboard.Games(lines); len(g) != 2000 {
			b.Fatalf("got %d games", len(g))
		}
	}
}
