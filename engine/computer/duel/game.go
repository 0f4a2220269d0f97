// Package duel solves the smallest real games of Liar's Dice: two seats
// with one or two dice each, of common-hand (no wilds, spot-on) or of
// perudo (ones wild, bids to and from ones, no calza with two seats left).
// It builds the hand's game tree, finds an equilibrium with CFR+ over an
// abstraction that remembers the last few bids (all of them for one die a
// seat), and computes an exact best response to any policy by exhaustive
// expectimax.
//
// Seat 0 opens the hand. Bids are numbered as the Rules raise them (in
// common-hand bid i is the quantity i/Sides+1 of the face i%Sides+1); with
// Bids bids in the hand, action Bids is a challenge and Bids+1 a spot-on.
//
// Everything is deterministic: the solver draws nothing at random.
package duel

import "fmt"

// Sides is the number of faces of a die in the games solved here.
const Sides = 6

// Hand is one seat's dice as a multiset, with the chance of rolling it.
type Hand struct {
	// Faces are the dice, in ascending order.
	Faces []int
	// P is the chance of rolling these faces.
	P float64
	// count[f] is the number of dice showing f.
	count [Sides + 1]int
}

// Hands lists every multiset of n dice, in ascending lexicographic order of
// their sorted faces, with its chance.
func Hands(n int) []Hand {
	var out []Hand
	var rec func(faces []int, from int)
	rec = func(faces []int, from int) {
		if len(faces) == n {
			h := Hand{Faces: append([]int(nil), faces...)}
			for _, f := range faces {
				h.count[f]++
			}
			h.P = multinomial(h.count[:], n)
			out = append(out, h)
			return
		}
		for f := from; f <= Sides; f++ {
			rec(append(faces, f), f)
		}
	}
	rec(nil, 1)
	return out
}

// multinomial returns the chance of rolling the counts with n fair dice.
func multinomial(count []int, n int) float64 {
	p := 1.0
	for i := 1; i <= n; i++ {
		p *= float64(i) / Sides
	}
	for _, c := range count {
		for i := 2; i <= c; i++ {
			p /= float64(i)
		}
	}
	return p
}

// HandIndex returns the index in Hands(len(faces)) of the dice, whatever
// their order, or -1 when a face is out of 1..Sides.
func HandIndex(faces []int) int {
	var count [Sides + 1]int
	for _, f := range faces {
		if f < 1 || f > Sides {
			return -1
		}
		count[f]++
	}
	for i, h := range Hands(len(faces)) {
		if h.count == count {
			return i
		}
	}
	return -1
}

// Bid returns the quantity and face of bid i of common-hand, whose order
// does not depend on the dice in play.
func Bid(i int) (q, f int) { return i/Sides + 1, i%Sides + 1 }

// BidIndex returns the index of common-hand's bid (q, f).
func BidIndex(q, f int) int { return (q-1)*Sides + f - 1 }

// Hand is the deal of one hand: the dice of the opener (seat 0) and of the
// other seat (seat 1).
type Deal struct{ D0, D1 int }

// Bids is the number of bids of the hand: every quantity up to the dice in
// play, of every face.
func (d Deal) Bids() int { return d.Dice() * Sides }

// Dice is the number of dice in play.
func (d Deal) Dice() int { return d.D0 + d.D1 }

// String names the deal.
func (d Deal) String() string { return fmt.Sprintf("%dv%d", d.D0, d.D1) }

// Outcome values the end of a hand for seat 0: what its chance of winning
// the game becomes when seat i loses a die (Lose[i]) or calls a right
// spot-on (Right[i]).
type Outcome struct {
	Lose, Right [2]float64
}

// terminal returns seat 0's value when actor calls (spotOn or a challenge)
// a bid of quantity q when the dice count c for it.
func (o Outcome) terminal(q, c, actor int, spotOn bool) float64 {
	if spotOn {
		if c == q {
			return o.Right[actor]
		}
		return o.Lose[actor]
	}
	if c >= q {
		return o.Lose[actor]
	}
	return o.Lose[1-actor]
}
