package tournament

import (
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// TableSizes splits n players into as few tables of at most seats as
// hold them, as evenly as it can, larger tables first (23 players at 5
// seats: 5, 5, 5, 4, 4). It returns nil when the smaller tables would seat
// fewer than least.
func TableSizes(n, seats, least int) []int {
	if n <= 0 || seats <= 0 {
		return nil
	}
	tables := (n + seats - 1) / seats
	base, extra := n/tables, n%tables
	if base < least {
		return nil
	}
	out := make([]int, tables)
	for i := range out {
		out[i] = base
		if i < extra {
			out[i]++
		}
	}
	return out
}

// seatable returns who a new round seats: every player not dropped, or in
// a knock-out after its first round, those who go on from the last round.
func (t *Tournament) seatable() []*player {
	if t.setup != nil && t.setup.Format == Knockout && len(t.rounds) > 0 {
		var out []*player
		for _, n := range t.advancers(t.current()) {
			out = append(out, t.byName[n])
		}
		return out
	}
	return t.active()
}

// plan seats round n. Swiss: the players in standings order (the first
// round's standings are the seed's draw), cut into tables in that order,
// the leaders at the first table; then, table by table, a player who met
// a table-mate before changes places with the next table's player
// nearest in the standings whenever that makes fewer repeat meetings at
// the two tables. Knock-out: the players in standings order dealt to the
// tables like cards, there and back (table 1, 2, ..., 2, 1, ...), so that
// the best meet last; a round that fits one table is the final.
func (t *Tournament) plan(n int) ([]Seating, error) {
	p := engine.Presets[t.setup.Rules]
	players := t.seatable()
	if len(players) < p.MinSeats {
		return nil, refuse(NotEnough, "round %d has %d players to seat; %s needs at least %d at a table", n, len(players), t.setup.Rules, p.MinSeats)
	}
	rank := map[string]int{}
	for _, s := range t.standings(t.setup.Format == Knockout) {
		rank[s.Player] = s.Rank
	}
	names := make([]string, len(players))
	for i, pl := range players {
		names[i] = pl.Name
	}
	slices.SortStableFunc(names, func(a, b string) int { return rank[a] - rank[b] })
	sizes := TableSizes(len(names), t.setup.Seats, p.MinSeats)
	if t.setup.Format == Knockout && len(names) <= t.setup.Seats {
		sizes = []int{len(names)}
	}
	if sizes == nil {
		return nil, refuse(NotEnough, "%d players cannot sit at tables of %d to %d seats", len(names), p.MinSeats, t.setup.Seats)
	}
	if len(sizes) > len(t.setup.Tables) {
		return nil, refuse(NotEnough, "round %d needs %d tables for %d players at up to %d seats; the tournament has %d", n, len(sizes), len(names), t.setup.Seats, len(t.setup.Tables))
	}
	var groups [][]string
	if t.setup.Format == Knockout {
		groups = snake(names, sizes)
	} else {
		groups = cut(names, sizes)
		t.fewerRepeats(groups, rank)
	}
	out := make([]Seating, len(groups))
	for i, g := range groups {
		out[i] = Seating{Table: t.setup.Tables[i], Seats: g}
	}
	return out, nil
}

// cut splits names, in order, into groups of sizes.
func cut(names []string, sizes []int) [][]string {
	out := make([][]string, len(sizes))
	at := 0
	for i, n := range sizes {
		out[i] = slices.Clone(names[at : at+n])
		at += n
	}
	return out
}

// snake deals names, in order, to groups of sizes: 1, 2, ..., k, k, ...,
// 1, 1, 2, ..., passing full groups.
func snake(names []string, sizes []int) [][]string {
	out := make([][]string, len(sizes))
	i, step := 0, 1
	for _, n := range names {
		for len(out[i]) >= sizes[i] {
			i, step = next(i, step, len(sizes))
		}
		out[i] = append(out[i], n)
		i, step = next(i, step, len(sizes))
	}
	return out
}

func next(i, step, n int) (int, int) {
	j := i + step
	if j < 0 || j >= n {
		return i, -step // turn at the ends: that group deals twice
	}
	return j, step
}

// met counts how often each pair of players sat at one table.
func (t *Tournament) met() map[[2]string]int {
	out := map[[2]string]int{}
	for _, r := range t.rounds {
		for _, g := range r.Games {
			for i, a := range g.Seats {
				for _, b := range g.Seats[i+1:] {
					out[pair(a, b)]++
				}
			}
		}
	}
	return out
}

func pair(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// repeats counts the pairs of a group that met before.
func repeats(g []string, met map[[2]string]int) int {
	n := 0
	for i, a := range g {
		for _, b := range g[i+1:] {
			n += met[pair(a, b)]
		}
	}
	return n
}

// repeatWindow is how many tables below its own a player who met a
// table-mate before may be moved to.
const repeatWindow = 3

// fewerRepeats swaps players between tables where that seats fewer pairs
// who met before, keeping players as near their standings as it can:
// table by table, the lower-ranked player of a repeated pair changes
// places with a player of the next tables (the nearest table first, its
// best player first, at most repeatWindow tables down) when that makes
// fewer repeats at the two tables.
func (t *Tournament) fewerRepeats(groups [][]string, rank map[string]int) {
	met := t.met()
	if len(met) == 0 {
		return
	}
	byRank := func(g []string) {
		slices.SortStableFunc(g, func(p, q string) int { return rank[p] - rank[q] })
	}
	for i := range groups {
		a := groups[i]
		for x := 0; x < len(a); x++ {
			if !repeated(a, x, met) {
				continue
			}
			swapped := false
			for j := i + 1; j < len(groups) && j <= i+repeatWindow && !swapped; j++ {
				b := groups[j]
				before := repeats(a, met) + repeats(b, met)
				for y := range b {
					a[x], b[y] = b[y], a[x]
					if repeats(a, met)+repeats(b, met) < before {
						swapped = true
						byRank(b)
						break
					}
					a[x], b[y] = b[y], a[x]
				}
			}
			if swapped {
				byRank(a)
				x = -1 // look at the table again from its best player
			}
		}
	}
}

// repeated reports whether g[x] met a player of g before, and is the
// lower-ranked of that pair (g is in standings order).
func repeated(g []string, x int, met map[[2]string]int) bool {
	for y := 0; y < x; y++ {
		if met[pair(g[x], g[y])] > 0 {
			return true
		}
	}
	return false
}
