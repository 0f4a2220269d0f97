package computer_test

import (
	"fmt"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
)

// A computer seat at a table that rolls its dice: the referee builds the
// seat's view from the table (its own dice and the public state, nothing
// else) and plays what its strategy chooses.
func Example() {
	tb := engine.NewTable()
	tb.Apply(engine.Action{Type: engine.ActNewGame, Rules: "common-hand", Seats: []string{"ann", "cpu"},
		First: "ann", Seed: 42, Computer: map[string]engine.ComputerSeat{"cpu": {Level: "strong"}}})
	tb.Apply(engine.Action{Type: engine.ActBid, Seat: "ann", Quantity: 9, Face: 6})

	strong, _ := computer.New("strong")
	v := computer.ViewOf(tb, "cpu")
	act := strong.Choose(v, computer.Rand(42, "cpu"))
	if _, err := tb.Apply(act); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("nine 6s of ten dice: cpu plays %s\n", act.Type)
	// Output: nine 6s of ten dice: cpu plays challenge
}

// Rank lists every legal option with its value, best first; a seat
// flustered by a bluff check plays the second.
func ExampleRank() {
	turn := "me"
	v := computer.NewView(engine.Snapshot{
		Rules: "common-hand", Phase: engine.PhaseBidding, Sides: 6, Turn: &turn,
		Bid: &engine.BidSeat{Seat: "them", Quantity: 3, Face: 5},
		Seats: []engine.SeatView{
			{Name: "them", Dice: 2, InHand: true},
			{Name: "me", Dice: 3, InHand: true},
		},
	}, "me", []int{5, 5, 2})
	for _, o := range computer.Rank(v)[:3] {
		fmt.Printf("%-9s %d %d  chance %.3f  value %+.3f\n", o.Action.Type, o.Action.Quantity, o.Action.Face, o.Chance, o.Value)
	}
	// Output:
	// spot_on   0 0  chance 0.456  value -0.087
	// challenge 0 0  chance 0.580  value -0.161
	// bid       4 5  chance 0.124  value -0.728
}
