package duel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Policy is a seat's mixed strategy in the hands of a game.
type Policy interface {
	// Act writes into out (of length d.Bids()+2, zeroed) the chance of
	// each action of the seat (0 opens the hand) holding hand (an index
	// into Hands) after the bids of hist: bid i at out[i], a challenge at
	// out[d.Bids()], a spot-on at out[d.Bids()+1].
	Act(d Deal, seat, hand int, hist []int, out []float64)
}

// Stated is a policy that depends on the history only through a state
// (Solution's: the bids a seat remembers): two histories of one state
// have the same future. The best response then remembers the value of a
// state for a reach of the other seat's hands and searches it once.
type Stated interface {
	State(d Deal, hist []int) int
}

// ErrTooBig reports a best response whose search passed its budget.
var ErrTooBig = errors.New("duel: the best response's search passed its budget of states")

// bestResponse searches one hand exhaustively for the seat br against the
// policy of the other seat.
type bestResponse struct {
	r       *Rules
	d       Deal
	br      int
	pol     Policy
	o       Outcome // values for br
	hb, ho  []Hand
	budget  int
	visited int
	stated  Stated
	memo    map[string][]float64
	record  map[string]int // the best action at each information set, when kept
}

// recordKey names an information set of the best response.
func recordKey(d Deal, seat, hand int, hist []int) string {
	k := []byte{byte(d.D0), byte(d.D1), byte(seat), byte(hand)}
	for _, b := range hist {
		k = append(k, byte(b))
	}
	return string(k)
}

// memoKey is the key of a state and reach, or "" when the policy has no
// states.
func (b *bestResponse) memoKey(hist []int, ro []float64) string {
	if b.stated == nil {
		return ""
	}
	st := b.stated.State(b.d, hist)
	if st < 0 {
		return ""
	}
	k := make([]byte, 0, 4+8*len(ro))
	k = binary.LittleEndian.AppendUint32(k, uint32(st))
	for _, x := range ro {
		k = binary.LittleEndian.AppendUint64(k, math.Float64bits(x))
	}
	return string(k)
}

// value returns, for each of br's hands, its best expected value times
// the hand's chance, after hist with the other seat's hands reached with
// ro (chance left out).
func (b *bestResponse) value(hist []int, ro []float64) ([]float64, error) {
	k := b.memoKey(hist, ro)
	if k != "" {
		if v, ok := b.memo[k]; ok {
			return v, nil
		}
	}
	v, err := b.search(hist, ro)
	if err == nil && k != "" && len(b.memo) < maxMemo {
		b.memo[k] = v
	}
	return v, err
}

// maxMemo bounds the states a best response remembers.
const maxMemo = 4_000_000

// search is value without the memo.
func (b *bestResponse) search(hist []int, ro []float64) ([]float64, error) {
	b.visited++
	if b.visited > b.budget {
		return nil, ErrTooBig
	}
	nb := b.d.Bids()
	last := -1
	if len(hist) > 0 {
		last = hist[len(hist)-1]
	}
	actor := len(hist) % 2
	out := make([]float64, len(b.hb))
	terminal := func(spot bool, dst []float64) {
		q, f := b.r.Bid(b.d.Dice(), last)
		for i, h := range b.hb {
			v := 0.0
			for j, g := range b.ho {
				if ro[j] != 0 {
					c := h.count[f] + g.count[f]
					if b.r.Wild && f != 1 {
						c += h.count[1] + g.count[1]
					}
					v += g.P * ro[j] * b.o.terminal(q, c, actor, spot)
				}
			}
			dst[i] = h.P * v
		}
	}
	if actor == b.br {
		for i := range out {
			out[i] = math.Inf(-1)
		}
		tmp := make([]float64, len(b.hb))
		best := make([]int, len(b.hb))
		take := func(v []float64, a int) {
			for i, x := range v {
				if x > out[i] {
					out[i], best[i] = x, a
				}
			}
		}
		if last >= 0 {
			terminal(false, tmp)
			take(tmp, nb)
			if b.r.SpotOn {
				terminal(true, tmp)
				take(tmp, nb+1)
			}
		}
		for j := last + 1; j < nb; j++ {
			if last < 0 && !b.r.Opens(b.d.Dice(), j) {
				continue
			}
			v, err := b.value(append(hist, j), ro)
			if err != nil {
				return nil, err
			}
			take(v, j)
		}
		if b.record != nil {
			for i, a := range best {
				b.record[recordKey(b.d, b.br, i, hist)] = a
			}
		}
		return out, nil
	}
	// The other seat: its policy for each hand it may hold.
	act := make([][]float64, len(b.ho))
	for j := range b.ho {
		if ro[j] == 0 {
			continue
		}
		act[j] = make([]float64, nb+2)
		b.pol.Act(b.d, actor, j, hist, act[j])
	}
	next := make([]float64, len(b.ho))
	tmp := make([]float64, len(b.hb))
	for a := last + 1; a < nb+2; a++ {
		if last < 0 && a >= nb || a == nb+1 && !b.r.SpotOn {
			break
		}
		if last < 0 && !b.r.Opens(b.d.Dice(), a) {
			continue
		}
		any := false
		for j := range b.ho {
			next[j] = 0
			if act[j] != nil {
				next[j] = ro[j] * act[j][a]
				any = any || next[j] != 0
			}
		}
		if !any {
			continue
		}
		var v []float64
		if a >= nb {
			saved := ro
			ro = next
			terminal(a == nb+1, tmp)
			ro = saved
			v = tmp
		} else {
			var err error
			v, err = b.value(append(hist, a), next)
			if err != nil {
				return nil, err
			}
		}
		for i, x := range v {
			out[i] += x
		}
	}
	return out, nil
}

// Exploitation is a best response's chance of winning a game against a
// policy.
type Exploitation struct {
	// Start is the dice each seat starts with.
	Start int
	// Open and Respond are the best response's chance of winning when it
	// opens the first hand and when the policy does.
	Open, Respond float64
	// States counts the histories the last sweep searched.
	States int
	// Sweeps counts the value iterations over the game's states.
	Sweeps int
}

// Mean is the best response's chance averaged over both seatings.
func (e Exploitation) Mean() float64 { return (e.Open + e.Respond) / 2 }

// Exploit computes exactly the best response to pol in the game of the
// rules where each seat starts with start dice (1 or 2): within every hand
// it searches every history (expectimax, remembering every bid), and
// across hands it iterates the chance of winning from each count of dice
// and opener until it settles. budget bounds the histories one hand's
// search may visit.
func Exploit(r *Rules, start int, pol Policy, budget int) (Exploitation, error) {
	e, _, err := exploit(r, start, pol, budget, false)
	return e, err
}

// Responder is a best response's play: its action at each information set
// that the policy it answers lets it reach.
type Responder struct {
	act map[string]int
}

// Action returns the best response's action (a bid index, Bids for a
// challenge, Bids+1 for a spot-on) for the seat holding hand after hist,
// and false where the search did not reach.
func (r *Responder) Action(d Deal, seat, hand int, hist []int) (int, bool) {
	a, ok := r.act[recordKey(d, seat, hand, hist)]
	return a, ok
}

// BestResponse is Exploit that also returns the best response's play, to
// replay it through the engine. Its record is whole for policies without
// states (or whose states are whole histories, as one die a seat).
func BestResponse(r *Rules, start int, pol Policy, budget int) (Exploitation, *Responder, error) {
	return exploit(r, start, pol, budget, true)
}

func exploit(r *Rules, start int, pol Policy, budget int, keep bool) (Exploitation, *Responder, error) {
	if start < 1 || start > 2 {
		return Exploitation{}, nil, fmt.Errorf("duel: start dice %d: want 1 or 2", start)
	}
	var record map[string]int
	if keep {
		record = map[string]int{}
	}
	// w[a][b][o]: the best response holds a dice, the other b; o = 0 when
	// the best response opens.
	var w [3][3][2]float64
	for a := 1; a <= start; a++ {
		for b := 1; b <= start; b++ {
			w[a][b][0], w[a][b][1] = 0.5, 0.5
		}
	}
	get := func(a, b, o int) float64 {
		switch {
		case a == 0:
			return 0
		case b == 0:
			return 1
		}
		return w[min(a, start)][min(b, start)][o]
	}
	e := Exploitation{Start: start}
	for e.Sweeps < 200 {
		e.Sweeps++
		e.States = 0
		change := 0.0
		for a := 1; a <= start; a++ {
			for b := 1; b <= start; b++ {
				for o := range 2 {
					br := o // the best response's seat: 0 when it opens
					var out Outcome
					// The seat that loses a die opens the next hand; the
					// caller of a right spot-on opens it, a die richer
					// below the start.
					out.Lose[br] = get(a-1, b, 0)
					out.Lose[1-br] = get(a, b-1, 1)
					out.Right[br] = get(a+1, b, 0)
					out.Right[1-br] = get(a, b+1, 1)
					d := Deal{D0: a, D1: b}
					if br == 1 {
						d = Deal{D0: b, D1: a}
					}
					s := &bestResponse{r: r, d: d, br: br, pol: pol, o: out, budget: budget, memo: map[string][]float64{}, record: record}
					s.stated, _ = pol.(Stated)
					s.hb, s.ho = Hands(a), Hands(b)
					ro := make([]float64, len(s.ho))
					for j := range ro {
						ro[j] = 1
					}
					v, err := s.value(make([]int, 0, d.Bids()), ro)
					if err != nil {
						return e, nil, fmt.Errorf("duel: %s: %w", d, err)
					}
					e.States += s.visited
					total := 0.0
					for _, x := range v {
						total += x
					}
					change = max(change, math.Abs(total-w[a][b][o]))
					w[a][b][o] = total
				}
			}
		}
		if change < 1e-10 {
			break
		}
	}
	e.Open, e.Respond = w[start][start][0], w[start][start][1]
	var resp *Responder
	if keep {
		resp = &Responder{act: record}
	}
	return e, resp, nil
}
