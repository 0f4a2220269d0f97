package duel

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

func TestHands(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 6}, {2, 21}, {3, 56}} {
		hs := Hands(c.n)
		if len(hs) != c.want {
			t.Fatalf("Hands(%d): got %d hands; want %d", c.n, len(hs), c.want)
		}
		total := 0.0
		for i, h := range hs {
			total += h.P
			if got := HandIndex(slices.Clone(h.Faces)); got != i {
				t.Errorf("HandIndex(%v): got %d; want %d", h.Faces, got, i)
			}
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("Hands(%d): chances sum to %v; want 1", c.n, total)
		}
	}
	if got := HandIndex([]int{6, 1}); got != HandIndex([]int{1, 6}) {
		t.Errorf("HandIndex depends on the order of the dice: %d", got)
	}
	if got := HandIndex([]int{7}); got != -1 {
		t.Errorf("HandIndex([7]): got %d; want -1", got)
	}
}

func TestBidIndex(t *testing.T) {
	for _, c := range []struct{ i, q, f int }{{0, 1, 1}, {5, 1, 6}, {6, 2, 1}, {23, 4, 6}} {
		if q, f := Bid(c.i); q != c.q || f != c.f {
			t.Errorf("Bid(%d): got %dx%d; want %dx%d", c.i, q, f, c.q, c.f)
		}
		if got := BidIndex(c.q, c.f); got != c.i {
			t.Errorf("BidIndex(%d, %d): got %d; want %d", c.q, c.f, got, c.i)
		}
	}
}

// TestTreeRecall checks that a tree remembering every bid has one state
// per rising list of bids, and that a shorter memory merges them.
func TestTreeRecall(t *testing.T) {
	full := NewTree(CommonHand, Deal{1, 1}, 12)
	if got, want := full.Nodes(), 1<<12; got != want {
		t.Errorf("full tree of 1v1: got %d states; want %d", got, want)
	}
	short := NewTree(CommonHand, Deal{1, 1}, 2)
	if short.Nodes() >= full.Nodes() {
		t.Errorf("a 2-bid memory has %d states; want fewer than %d", short.Nodes(), full.Nodes())
	}
	a, _ := short.Find([]int{0, 3, 5, 7})
	b, _ := short.Find([]int{1, 2, 5, 7})
	if a < 0 || a != b {
		t.Errorf("histories ending alike: states %d and %d; want one", a, b)
	}
	if n, _ := short.Find([]int{3, 3}); n != -1 {
		t.Errorf("a history that does not rise: state %d; want -1", n)
	}
}

func TestQuantize(t *testing.T) {
	p := []float64{0.5, 0.3333, 0.1667, 0}
	quantize(p, Steps)
	total := 0.0
	for _, x := range p {
		total += x
		if u := x * Steps; math.Abs(u-math.Round(u)) > 1e-9 {
			t.Errorf("quantize: %v is not a multiple of 1/%d", x, Steps)
		}
	}
	if math.Abs(total-1) > 1e-12 {
		t.Errorf("quantize: sums to %v; want 1", total)
	}
}

// alwaysChallenge bids one of the lowest face when it opens and challenges
// every bid.
type alwaysChallenge struct{}

func (alwaysChallenge) Act(d Deal, seat, hand int, hist []int, out []float64) {
	if len(hist) == 0 {
		out[0] = 1
		return
	}
	out[d.Bids()] = 1
}

// TestExploitKnown checks the best response against a policy whose best
// answer is known: against "always challenge" in the one-die game, the
// opener bids one of its own face, which is always true, and wins every
// game; answering, it does better than even.
func TestExploitKnown(t *testing.T) {
	e, err := Exploit(CommonHand, 1, alwaysChallenge{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Open-1) > 1e-9 {
		t.Errorf("opening against always-challenge: got %v; want 1", e.Open)
	}
	if e.Respond <= 0.5 || e.Respond > 1 {
		t.Errorf("answering always-challenge: got %v; want in (0.5, 1]", e.Respond)
	}
}

// TestSolveSmall runs a short CFR+ on the one-die game: its best response
// must be close to even, and the opener's value near the solved 51.9%.
func TestSolveSmall(t *testing.T) {
	sol, err := Solve(CommonHand, 1, 60, 3)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Exploit(CommonHand, 1, sol, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if e.Mean() > 0.53 {
		t.Errorf("best response against 180 iterations: got %.4f; want at most 0.53", e.Mean())
	}
	if v := sol.Values[1][1]; v < 0.5 || v > 0.54 {
		t.Errorf("opener's value: got %.4f; want near 0.519", v)
	}
	var buf bytes.Buffer
	sol.Quantize(Steps)
	if err := sol.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	e2, err := Exploit(CommonHand, 1, back, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	e3, err := Exploit(CommonHand, 1, sol, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e2.Mean()-e3.Mean()) > 1e-12 {
		t.Errorf("decoded solution: best response %v; want %v as encoded", e2.Mean(), e3.Mean())
	}
	if _, err := Decode(buf.Bytes()[:buf.Len()/2]); err == nil {
		t.Error("Decode of half a file: no error")
	}
}

func TestBadStart(t *testing.T) {
	if _, err := Solve(CommonHand, 3, 1, 1); err == nil {
		t.Error("Solve(3): no error")
	}
	if _, err := Exploit(CommonHand, 0, alwaysChallenge{}, 10); err == nil {
		t.Error("Exploit(0): no error")
	}
	if _, err := Exploit(CommonHand, 2, alwaysChallenge{}, 10); err == nil {
		t.Error("Exploit with a budget of 10 histories: no error")
	}
}

// actOnly hides a policy's states from the best response.
type actOnly struct{ p Policy }

func (a actOnly) Act(d Deal, seat, hand int, hist []int, out []float64) {
	a.p.Act(d, seat, hand, hist, out)
}

// TestExploitMemo checks that remembering the value of a state (a
// solution that forgets all but the last two bids) changes no figure.
func TestExploitMemo(t *testing.T) {
	d := Deal{1, 1}
	tr := NewTree(CommonHand, d, 2)
	s := NewSolver(tr, Outcome{Lose: [2]float64{0, 1}, Right: [2]float64{0.52, 0.48}})
	s.Run(30)
	sol := &Solution{Rules: CommonHand, Start: 1, trees: map[Deal]*Tree{d: tr}, strat: map[Deal][2][]float64{d: s.Average()}}
	withMemo, err := Exploit(CommonHand, 1, sol, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Exploit(CommonHand, 1, actOnly{sol}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(withMemo.Open-without.Open) > 1e-12 || math.Abs(withMemo.Respond-without.Respond) > 1e-12 {
		t.Errorf("with states: got %+v; want %+v as without", withMemo, without)
	}
	if withMemo.States >= without.States {
		t.Errorf("with states the search visited %d histories; want fewer than %d", withMemo.States, without.States)
	}
}

// TestPerudoBids checks perudo's order of bids against the engine's raise
// rule: each bid raises exactly the bids before it, for every count of
// dice in play the solutions use, and only bids off ones open a hand.
func TestPerudoBids(t *testing.T) {
	p := engine.Presets["perudo"]
	for n := 1; n <= 6; n++ {
		nb := Deal{D0: n, D1: 0}.Bids()
		for i := range nb {
			q, f := Perudo.Bid(n, i)
			if got := Perudo.BidIndex(n, q, f); got != i {
				t.Fatalf("%d dice: BidIndex(%d, %d) = %d; want %d", n, q, f, got, i)
			}
			if got, want := Perudo.Opens(n, i), f != 1; got != want {
				t.Errorf("%d dice: bid %dx%d opens: got %v; want %v", n, q, f, got, want)
			}
			for j := range nb {
				q2, f2 := Perudo.Bid(n, j)
				if got, want := p.RaisesIn(false, q, f, q2, f2), j > i; got != want {
					t.Fatalf("%d dice: %dx%d after %dx%d raises: engine %v; order %v", n, q2, f2, q, f, got, want)
				}
			}
		}
		if got := Perudo.BidIndex(n, n+1, 2); got != -1 {
			t.Errorf("%d dice: BidIndex of %d 2s: got %d; want -1", n, n+1, got)
		}
	}
	// Two dice in play: 1 to 2 of the faces 2..6, one one, two ones.
	var order []int
	for i := range 12 {
		q, f := Perudo.Bid(2, i)
		order = append(order, 10*q+f)
	}
	want := []int{12, 13, 14, 15, 16, 22, 23, 24, 25, 26, 11, 21}
	if !slices.Equal(order, want) {
		t.Errorf("perudo's bids with two dice: got %v; want %v", order, want)
	}
}

// TestPerudoTree checks that a perudo hand does not open on ones and has
// no spot-on.
func TestPerudoTree(t *testing.T) {
	tr := NewTree(Perudo, Deal{1, 1}, 12)
	if got := len(tr.nodes[0].moves); got != 10 {
		t.Errorf("opening moves with two dice: got %d; want the 10 bids off ones", got)
	}
	ones := Perudo.BidIndex(2, 1, 1)
	if n, _ := tr.Find([]int{ones}); n != -1 {
		t.Errorf("a hand opened on one one: state %d; want -1", n)
	}
	n, _ := tr.Find([]int{0, ones})
	if n < 0 {
		t.Fatal("one 2, one one: no state")
	}
	if nd := tr.nodes[n]; nd.nact != len(nd.moves)+1 {
		t.Errorf("after a bid: %d actions for %d bids; want a challenge and no spot-on", nd.nact, len(nd.moves))
	}
}

// TestPerudoSolveSmall runs a short CFR+ on one-die perudo: its best
// response must be close to even, the file must keep its rules, and a
// seat that opens cannot win against "always challenge" unless a bid off
// ones is sure: with one die it always is (its die, or a wild one).
func TestPerudoSolveSmall(t *testing.T) {
	sol, err := Solve(Perudo, 1, 60, 3)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Exploit(Perudo, 1, sol, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if e.Mean() > 0.53 {
		t.Errorf("best response against 180 iterations: got %.4f; want at most 0.53", e.Mean())
	}
	sol.Quantize(Steps)
	var buf bytes.Buffer
	if err := sol.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back.Rules != Perudo || back.Start != 1 {
		t.Fatalf("decoded: %s with %d dice; want perudo with 1", back.Rules.Name, back.Start)
	}
	e2, err := Exploit(Perudo, 1, back, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	e3, err := Exploit(Perudo, 1, sol, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e2.Mean()-e3.Mean()) > 1e-12 {
		t.Errorf("decoded solution: best response %v; want %v as encoded", e2.Mean(), e3.Mean())
	}
	known, err := Exploit(Perudo, 1, alwaysChallenge{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(known.Open-1) > 1e-9 {
		t.Errorf("opening against always-challenge: got %v; want 1", known.Open)
	}
}
