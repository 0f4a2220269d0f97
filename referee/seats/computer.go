package seats

import (
	"math/rand/v2"
	"slices"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
)

// Computer plays a seat with one of engine/computer's strategies, from the
// seat's own dice: the demo's seats, and any seat a program plays.
type Computer struct {
	strategy computer.Strategy
	rng      *rand.Rand
}

// NewComputer returns a player of the level ("random", "threshold",
// "beginner", "strong-v1" or "strong") drawing from seed.
func NewComputer(level string, seed uint64) (*Computer, error) {
	s, err := computer.New(level)
	if err != nil {
		return nil, err
	}
	return &Computer{strategy: s, rng: rand.New(rand.NewPCG(seed, 0x636f6d70))}, nil
}

// Act returns the strategy's choice.
func (c *Computer) Act(v View) Move {
	cv := computer.NewView(v.Snapshot, v.Seat, v.Dice)
	cv.Bids = v.Bids
	a := c.strategy.Choose(cv, c.rng)
	return Move{Type: a.Type, Seat: a.Seat, Quantity: a.Quantity, Face: a.Face, Stake: a.Stake}
}

// ShowAfter asks the strategy what to show right after its own bid.
func (c *Computer) ShowAfter(v View, bid Move) []int {
	after := computer.NewView(v.Snapshot, v.Seat, v.Dice)
	after.Snapshot.Bid = &engine.BidSeat{Seat: v.Seat, Quantity: bid.Quantity, Face: bid.Face}
	if v.Bids != nil {
		after.Bids = append(slices.Clone(v.Bids), *after.Snapshot.Bid)
	}
	return c.strategy.Show(after, c.rng)
}
