package duel

import (
	"slices"
)

// Tree is a hand's abstract game: a node is what a seat remembers of the
// bidding (the last K bids, whether more came before them and whose turn
// it is), so histories that end alike share a node. With K at least the
// number of bids a seat remembers every bid and the tree is the full game.
type Tree struct {
	Rules *Rules
	Deal  Deal
	// K is the number of last bids a seat remembers.
	K     int
	hands [2][]Hand
	nodes []node
	index map[string]int32
	// offset of each seat's strategy arrays: node n's table for seat
	// actor is at nodes[n].off + h*nodes[n].nact.
	size [2]int
}

// node is an abstract state of the bidding.
type node struct {
	actor int
	last  int // the standing bid, -1 before the first
	tail  []int
	deep  bool  // more bids came before the tail
	moves []int // the bids the actor may make, ascending
	nact  int   // the moves, then challenge (and spot-on)
	off   int
	child []int32 // node of bid moves[j]
}

// key encodes what a seat remembers of a history.
func key(tail []int, actor int, deep bool) string {
	b := make([]byte, 0, len(tail)+2)
	b = append(b, byte(actor))
	if deep {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, x := range tail {
		b = append(b, byte(x))
	}
	return string(b)
}

// NewTree builds the abstract game of a deal under the rules remembering
// the last k bids.
func NewTree(r *Rules, d Deal, k int) *Tree {
	t := &Tree{Rules: r, Deal: d, K: k, index: map[string]int32{}}
	t.hands[0], t.hands[1] = Hands(d.D0), Hands(d.D1)
	t.add(nil, 0, false, -1)
	for i := 0; i < len(t.nodes); i++ {
		n := t.nodes[i]
		child := make([]int32, len(n.moves))
		for x, j := range n.moves {
			tail := append(slices.Clone(n.tail), j)
			deep := n.deep
			if len(tail) > k {
				tail, deep = tail[len(tail)-k:], true
			}
			child[x] = t.add(tail, 1-n.actor, deep, j)
		}
		t.nodes[i].child = child
	}
	// Topological order: the standing bid only rises.
	order := make([]int32, len(t.nodes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return t.nodes[a].last - t.nodes[b].last })
	remap := make([]int32, len(order))
	for newI, old := range order {
		remap[old] = int32(newI)
	}
	nodes := make([]node, len(t.nodes))
	for old, n := range t.nodes {
		for j := range n.child {
			n.child[j] = remap[n.child[j]]
		}
		nodes[remap[old]] = n
	}
	t.nodes = nodes
	for k, v := range t.index {
		t.index[k] = remap[v]
	}
	for i := range t.nodes {
		n := &t.nodes[i]
		n.off = t.size[n.actor]
		t.size[n.actor] += len(t.hands[n.actor]) * n.nact
	}
	return t
}

func (t *Tree) add(tail []int, actor int, deep bool, last int) int32 {
	k := key(tail, actor, deep)
	if i, ok := t.index[k]; ok {
		return i
	}
	moves := t.Rules.moves(t.Deal, last)
	nact := len(moves)
	if last >= 0 {
		nact += t.Rules.calls()
	}
	t.nodes = append(t.nodes, node{actor: actor, last: last, tail: tail, deep: deep, moves: moves, nact: nact})
	t.index[k] = int32(len(t.nodes) - 1)
	return int32(len(t.nodes) - 1)
}

// Nodes is the number of abstract states of the bidding.
func (t *Tree) Nodes() int { return len(t.nodes) }

// InfoSets is the number of information sets: states times hands.
func (t *Tree) InfoSets() int {
	n := 0
	for _, nd := range t.nodes {
		n += len(t.hands[nd.actor])
	}
	return n
}

// Size is the number of strategy entries of seat 0 and seat 1.
func (t *Tree) Size() [2]int { return t.size }

// Find returns the node a seat is at after the history of bids, and the
// seat to act, or -1 when the history is not a rising list of this deal's
// bids that the rules let open.
func (t *Tree) Find(hist []int) (int, int) {
	last := -1
	for _, b := range hist {
		if b <= last || b >= t.Deal.Bids() {
			return -1, 0
		}
		last = b
	}
	if len(hist) > 0 && !t.Rules.Opens(t.Deal.Dice(), hist[0]) {
		return -1, 0
	}
	tail, deep := hist, false
	if len(tail) > t.K {
		tail, deep = tail[len(tail)-t.K:], true
	}
	actor := len(hist) % 2
	i, ok := t.index[key(tail, actor, deep)]
	if !ok {
		return -1, 0
	}
	return int(i), actor
}
