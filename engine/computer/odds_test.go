package computer

import (
	"fmt"
	"math"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

const tolerance = 1e-12

// enumerate calls visit with every outcome of n dice of the given sides,
// each outcome equally likely.
func enumerate(n, sides int, visit func(faces []int)) {
	faces := make([]int, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			visit(faces)
			return
		}
		for f := 1; f <= sides; f++ {
			faces[i] = f
			rec(i + 1)
		}
	}
	rec(0)
}

// exactCounts returns, by exhaustive enumeration of n unknown dice, the
// chance of each count of dice that count for face.
func exactCounts(n, sides int, wild bool, face int) []float64 {
	dist := make([]float64, n+1)
	total := math.Pow(float64(sides), float64(n))
	enumerate(n, sides, func(faces []int) {
		dist[counts(faces, wild, face)] += 1 / total
	})
	return dist
}

func TestOddsAgainstEnumeration(t *testing.T) {
	for _, sides := range []int{2, 3, 6, 8} {
		for _, wild := range []bool{false, true} {
			for face := 1; face <= sides; face++ {
				p := MatchChance(sides, wild, face)
				for n := 0; n <= 4; n++ {
					want := exactCounts(n, sides, wild, face)
					for k := -1; k <= n+1; k++ {
						wantExactly, wantAtLeast := 0.0, 0.0
						for c, pc := range want {
							if c == k {
								wantExactly += pc
							}
							if c >= k {
								wantAtLeast += pc
							}
						}
						if got := Exactly(n, k, p); math.Abs(got-wantExactly) > tolerance {
							t.Errorf("sides %d wild %v face %d: Exactly(%d, %d) = %v; want %v", sides, wild, face, n, k, got, wantExactly)
						}
						if got := AtLeast(n, k, p); math.Abs(got-wantAtLeast) > tolerance {
							t.Errorf("sides %d wild %v face %d: AtLeast(%d, %d) = %v; want %v", sides, wild, face, n, k, got, wantAtLeast)
						}
					}
				}
			}
		}
	}
}

func TestMatchChance(t *testing.T) {
	tests := []struct {
		sides int
		wild  bool
		face  int
		want  float64
	}{
		{6, false, 3, 1.0 / 6},
		{6, true, 3, 2.0 / 6},
		{6, true, 1, 1.0 / 6}, // a star (or ones) bid counts its own face only
		{8, false, 8, 1.0 / 8},
		{2, true, 2, 1},
	}
	for _, tt := range tests {
		if got := MatchChance(tt.sides, tt.wild, tt.face); math.Abs(got-tt.want) > tolerance {
			t.Errorf("MatchChance(%d, %v, %d) = %v; want %v", tt.sides, tt.wild, tt.face, got, tt.want)
		}
	}
}

// seatAt is a seat of a hand-made snapshot.
func seatAt(name string, dice int, shown ...int) engine.SeatView {
	return engine.SeatView{Name: name, Dice: dice, InHand: true, Shown: shown}
}

// TestChanceAgainstEnumeration checks a view's chance of a bid, which
// counts its own dice and every shown die as known, against enumerating
// every outcome of the other seats' hidden dice.
func TestChanceAgainstEnumeration(t *testing.T) {
	type hand struct {
		dice  int
		shown []int
	}
	tests := []struct {
		rules string
		wild  bool
		mine  []int
		shown []int // my shown dice, among mine
		other []hand
	}{
		{rules: "common-hand", mine: []int{3, 3, 5}, other: []hand{{dice: 2}, {dice: 2}}},
		{rules: "common-hand", wild: true, mine: []int{1, 4}, other: []hand{{dice: 3}}},
		{rules: "star-board", wild: true, mine: []int{1, 5, 5, 2}, shown: []int{5}, other: []hand{{dice: 3, shown: []int{1}}, {dice: 2}}},
		{rules: "star-board", wild: true, mine: []int{6}, other: []hand{{dice: 4, shown: []int{6, 1}}, {dice: 2, shown: []int{4}}}},
		{rules: "tavern", mine: []int{2, 2}, other: []hand{{dice: 4}}},
	}
	for ti, tt := range tests {
		s := engine.Snapshot{Rules: tt.rules, Phase: engine.PhaseBidding, Sides: 6, Wild: tt.wild, StarDie: tt.rules == "star-board"}
		s.Seats = append(s.Seats, seatAt("me", len(tt.mine), tt.shown...))
		unknown := 0
		var shownDice []int
		for i, o := range tt.other {
			s.Seats = append(s.Seats, seatAt(fmt.Sprintf("o%d", i), o.dice, o.shown...))
			unknown += o.dice - len(o.shown)
			shownDice = append(shownDice, o.shown...)
		}
		v := NewView(s, "me", tt.mine)
		total := len(tt.mine) + unknown + len(shownDice)
		for face := 1; face <= 6; face++ {
			known := counts(tt.mine, tt.wild, face) + counts(shownDice, tt.wild, face)
			dist := make([]float64, total+1)
			enumerate(unknown, 6, func(faces []int) {
				dist[known+counts(faces, tt.wild, face)] += 1 / math.Pow(6, float64(unknown))
			})
			for q := 1; q <= total; q++ {
				want := 0.0
				for c := q; c <= total; c++ {
					want += dist[c]
				}
				if got := Chance(v, q, face, 0); math.Abs(got-want) > tolerance {
					t.Errorf("case %d: Chance(%d of face %d) = %v; want %v", ti, q, face, got, want)
				}
			}
		}
	}
}

// TestBidderPosterior checks that a bid makes the bidder's hand stronger in
// the face bid, and that lean 0 reads nothing into it.
func TestBidderPosterior(t *testing.T) {
	prior := Binomial(5, 1.0/3)
	same := bidderPosterior(5, 1.0/3, 0)
	post := bidderPosterior(5, 1.0/3, 1)
	mean := func(d []float64) float64 {
		m := 0.0
		for k, p := range d {
			m += float64(k) * p
		}
		return m
	}
	sum := 0.0
	for k := range post {
		sum += post[k]
		if math.Abs(same[k]-prior[k]) > tolerance {
			t.Fatalf("lean 0 changed the prior: %v; want %v", same, prior)
		}
	}
	if math.Abs(sum-1) > tolerance {
		t.Fatalf("posterior sums to %v; want 1", sum)
	}
	if mean(post) <= mean(prior) {
		t.Fatalf("posterior mean %v; want above the prior's %v", mean(post), mean(prior))
	}
}

func TestBinomialLargeTable(t *testing.T) {
	// Twenty seats of twenty dice: the distribution must still sum to 1.
	for _, p := range []float64{0.01, 1.0 / 6, 2.0 / 3, 1} {
		sum := 0.0
		for _, x := range Binomial(400, p) {
			if math.IsNaN(x) || x < 0 {
				t.Fatalf("Binomial(400, %v) has %v", p, x)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("Binomial(400, %v) sums to %v; want 1", p, sum)
		}
	}
}

// TestChanceWithBidAgainstEnumeration checks what a bid tells: the
// standing bidder's hidden dice are weighted by exp(lean*k) for k of them
// that count for the face it bid (and not for other faces). Enumerating
// every outcome of the other seats' dice with those weights must give
// Chance exactly, with wilds and shown dice.
func TestChanceWithBidAgainstEnumeration(t *testing.T) {
	tests := []struct {
		rules      string
		wild       bool
		mine       []int
		bidder     int   // the bidder's dice
		shown      []int // the bidder's shown dice
		other      int   // a third seat's dice (0: none)
		bidQ, bidF int
	}{
		{rules: "common-hand", mine: []int{3, 5}, bidder: 3, bidQ: 2, bidF: 3},
		{rules: "common-hand", wild: true, mine: []int{1, 4, 4}, bidder: 3, other: 2, bidQ: 3, bidF: 4},
		{rules: "star-board", wild: true, mine: []int{2, 6}, bidder: 4, shown: []int{1}, other: 1, bidQ: 2, bidF: 6},
		{rules: "star-board", wild: true, mine: []int{1, 1, 5}, bidder: 3, bidQ: 1, bidF: 1},
	}
	for ti, tt := range tests {
		for _, lean := range []float64{0, 0.5, 1, 2.5} {
			s := engine.Snapshot{Rules: tt.rules, Phase: engine.PhaseBidding, Sides: 6, Wild: tt.wild, StarDie: tt.rules == "star-board"}
			s.Seats = []engine.SeatView{seatAt("me", len(tt.mine)), seatAt("them", tt.bidder, tt.shown...)}
			if tt.other > 0 {
				s.Seats = append(s.Seats, seatAt("else", tt.other))
			}
			s.Bid = &engine.BidSeat{Seat: "them", Quantity: tt.bidQ, Face: tt.bidF}
			v := NewView(s, "me", tt.mine)
			hiddenThem := tt.bidder - len(tt.shown)
			unknown := hiddenThem + tt.other
			total := len(tt.mine) + tt.bidder + tt.other
			for face := 1; face <= 6; face++ {
				known := counts(tt.mine, tt.wild, face) + counts(tt.shown, tt.wild, face)
				dist := make([]float64, total+1)
				weight := 0.0
				enumerate(unknown, 6, func(faces []int) {
					w := 1.0
					if face == tt.bidF {
						w = math.Exp(lean * float64(counts(faces[:hiddenThem], tt.wild, tt.bidF)))
					}
					dist[known+counts(faces, tt.wild, face)] += w
					weight += w
				})
				for q := 1; q <= total; q++ {
					want := 0.0
					for c := q; c <= total; c++ {
						want += dist[c] / weight
					}
					if got := Chance(v, q, face, lean); math.Abs(got-want) > 1e-12 {
						t.Errorf("case %d lean %v: Chance(%d of face %d) = %v; want %v", ti, lean, q, face, got, want)
					}
				}
			}
		}
	}
}
