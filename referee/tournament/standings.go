package tournament

import (
	"cmp"
	"fmt"
	"slices"
)

// Standing is one player's line of the standings.
type Standing struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	// Points: in each game, one for every player who finished below.
	Points int `json:"points"`
	// Wins are the games won (first place, shared or not).
	Wins int `json:"wins"`
	// Games are the games played that have a result.
	Games int `json:"games"`
	// Opponents is the sum of the points of every player met, once for
	// each game played together (the strength of the tables played).
	Opponents int `json:"opponents"`
	// Places holds the place in each round's game (0: not seated, or no
	// result yet).
	Places []int `json:"places"`
	// Reached is the last round the player was seated in (a knock-out's
	// first order), and Place the place in that round's game.
	Reached  int    `json:"reached,omitempty"`
	Place    int    `json:"place,omitempty"`
	Computer string `json:"computer,omitempty"`
	Dropped  bool   `json:"dropped,omitempty"`
	// Out: knocked out of a knock-out.
	Out bool `json:"out,omitempty"`
}

// TieBreaks says how the standings are ordered, for the pages and docs.
func TieBreaks(format string) string {
	if format == Knockout {
		return "the last round reached, then the place in that round's game, then points, then games won, then opponents' points, then a draw from the tournament's seed"
	}
	return "points, then games won, then opponents' points (the points of every player met, once for each game together), then a draw from the tournament's seed"
}

// draw is a player's last tie-break: a number drawn from the tournament's
// seed and the name, the same at every replay.
func (t *Tournament) draw(name string) uint64 {
	var seed int64
	if t.setup != nil {
		seed = t.setup.Seed
	}
	return hash64(fmt.Sprintf("%d/draw/%s", seed, name))
}

// Standings returns every registered player's standing, best first, by
// the tie-breaks TieBreaks states. Results count once they are in, also
// in a round being played.
func (t *Tournament) Standings() []Standing {
	return t.standings(t.setup != nil && t.setup.Format == Knockout)
}

// standings computes the standings, ordered as a knock-out orders them
// (rounds reached first) or by points and tie-breaks alone.
func (t *Tournament) standings(knockout bool) []Standing {
	idx := map[string]int{}
	out := make([]Standing, len(t.players))
	for i, p := range t.players {
		idx[p.Name] = i
		out[i] = Standing{Player: p.Name, Computer: p.Computer, Dropped: p.Dropped != 0, Places: make([]int, len(t.rounds))}
	}
	type met struct{ game, player int }
	var meetings []met
	for ri, r := range t.rounds {
		for gi, g := range r.Games {
			for _, s := range g.Seats {
				if i, ok := idx[s]; ok {
					out[i].Reached = r.Number
					out[i].Place = 0
				}
			}
			if g.Result == nil {
				continue
			}
			places, points := g.Result.Places(), g.Result.Points()
			for _, s := range g.Seats {
				i, ok := idx[s]
				if !ok {
					continue
				}
				out[i].Points += points[s]
				out[i].Games++
				out[i].Places[ri] = places[s]
				out[i].Place = places[s]
				if places[s] == 1 {
					out[i].Wins++
				}
				meetings = append(meetings, met{game: ri<<20 | gi, player: i})
			}
		}
	}
	// Opponents' points: the final points of everyone met.
	byGame := map[int][]int{}
	for _, m := range meetings {
		byGame[m.game] = append(byGame[m.game], m.player)
	}
	for _, ps := range byGame {
		for _, a := range ps {
			for _, b := range ps {
				if a != b {
					out[a].Opponents += out[b].Points
				}
			}
		}
	}
	if knockout {
		going := t.goingOn()
		for i := range out {
			out[i].Out = out[i].Reached > 0 && !going[out[i].Player]
		}
	}
	t.sortStandings(out, knockout)
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// sortStandings orders standings best first.
func (t *Tournament) sortStandings(s []Standing, knockout bool) {
	draws := make(map[string]uint64, len(s))
	for _, st := range s {
		draws[st.Player] = t.draw(st.Player)
	}
	place := func(p int) int {
		if p == 0 {
			return 1 << 30 // no result yet: below every place
		}
		return p
	}
	slices.SortStableFunc(s, func(a, b Standing) int {
		if knockout {
			if c := cmp.Compare(b.Reached, a.Reached); c != 0 {
				return c
			}
			if c := cmp.Compare(place(a.Place), place(b.Place)); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(b.Points, a.Points); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Wins, a.Wins); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Opponents, a.Opponents); c != 0 {
			return c
		}
		return cmp.Compare(draws[a.Player], draws[b.Player])
	})
}

// goingOn returns the players of a knock-out still in: those seated in
// the round being played, or those who go on from the last round when it
// is over (nobody once the final is over).
func (t *Tournament) goingOn() map[string]bool {
	out := map[string]bool{}
	r := t.current()
	if r == nil {
		return out
	}
	if !t.complete(r) {
		for _, g := range r.Games {
			for _, s := range g.Seats {
				out[s] = true
			}
		}
		return out
	}
	if len(r.Games) == 1 {
		return out
	}
	for _, p := range t.advancers(r) {
		out[p] = true
	}
	return out
}

// advancers returns the players who go on from knock-out round r: the
// best Advance of each game that play on, by place, ties broken by the
// standings.
func (t *Tournament) advancers(r *round) []string {
	rank := map[string]int{}
	for _, s := range t.standings(false) {
		rank[s.Player] = s.Rank
	}
	var out []string
	for _, g := range r.Games {
		if g.Result == nil {
			continue
		}
		places := g.Result.Places()
		seats := slices.Clone(g.Seats)
		slices.SortStableFunc(seats, func(a, b string) int {
			if c := cmp.Compare(places[a], places[b]); c != 0 {
				return c
			}
			return cmp.Compare(rank[a], rank[b])
		})
		n := 0
		for _, s := range seats {
			if n == t.setup.Advance {
				break
			}
			if p := t.byName[s]; p != nil && p.Dropped == 0 {
				out = append(out, s)
				n++
			}
		}
	}
	return out
}
