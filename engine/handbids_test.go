package engine

import (
	"reflect"
	"testing"
)

// TestHandBids checks that a table lists the hand's bids in order and
// forgets them when the hand ends.
func TestHandBids(t *testing.T) {
	tb := NewTable()
	if got := tb.HandBids(); got != nil {
		t.Fatalf("before a game: got %v; want nil", got)
	}
	mustApply := func(a Action) {
		t.Helper()
		if _, err := tb.Apply(a); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
	}
	mustApply(Action{Type: ActNewGame, Rules: "common-hand", Seats: []string{"a", "b"}, First: "a", Seed: 1})
	if got := tb.HandBids(); len(got) != 0 {
		t.Fatalf("before a bid: got %v; want none", got)
	}
	mustApply(Action{Type: ActBid, Seat: "a", Quantity: 2, Face: 3})
	mustApply(Action{Type: ActBid, Seat: "b", Quantity: 2, Face: 5})
	want := []BidSeat{{Seat: "a", Quantity: 2, Face: 3}, {Seat: "b", Quantity: 2, Face: 5}}
	if got := tb.HandBids(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v; want %v", got, want)
	}
	mustApply(Action{Type: ActChallenge, Seat: "a"})
	if got := tb.HandBids(); !reflect.DeepEqual(got, want) {
		t.Fatalf("awaiting the reveal: got %v; want %v", got, want)
	}
	mustApply(Action{Type: ActReveal, Dice: map[string][]int{"a": {1, 2, 3, 4, 5}, "b": {5, 5, 6, 6, 2}}})
	if got := tb.HandBids(); len(got) != 0 {
		t.Fatalf("next hand: got %v; want none", got)
	}
}
