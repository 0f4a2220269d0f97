package computer

import (
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// move is a legal action in short: its type and, for a bid, its quantity
// and face. Strategies weigh moves and build only the chosen Action.
type move struct {
	typ  string
	q, f int
}

func (m move) action(seat string) engine.Action {
	return engine.Action{Type: m.typ, Seat: seat, Quantity: m.q, Face: m.f}
}

// Legal returns every action the view's seat may take now, in a fixed
// order: bids (ascending quantity, then face), then challenge, spot-on,
// all-in and fold. It is empty when it is not the seat's turn. Tavern
// actions pay the current stake (a nil Stake); a computer seat never raises
// the stake.
func Legal(v View) []engine.Action {
	moves := legalMoves(v)
	acts := make([]engine.Action, len(moves))
	for i, m := range moves {
		acts[i] = m.action(v.Seat)
	}
	return acts
}

func legalMoves(v View) []move {
	if !v.myTurn() {
		return nil
	}
	p, err := v.preset()
	if err != nil {
		return nil
	}
	s := v.Snapshot
	i := v.seatIndex()
	if i < 0 {
		return nil
	}
	if s.Bid != nil && (s.Bid.Face < 1 || s.Bid.Face > s.Sides || s.Bid.Quantity < 1) {
		return nil // no table stands on such a bid: nothing to weigh
	}
	canPay := true
	if p.Stakes && s.Stake != nil && s.Seats[i].Chips != nil {
		canPay = *s.Seats[i].Chips >= *s.Stake && *s.Seats[i].Chips > 0
	}
	var moves []move
	if canPay {
		moves = appendBids(moves, v, p)
		if s.Bid != nil {
			moves = append(moves, move{typ: engine.ActChallenge})
			if p.SpotOn != engine.SpotOnNone && (s.Calza == nil || *s.Calza) {
				moves = append(moves, move{typ: engine.ActSpotOn})
			}
		}
	}
	if p.Stakes {
		if !canPay && s.Bid != nil {
			moves = append(moves, move{typ: engine.ActAllIn})
		}
		moves = append(moves, move{typ: engine.ActFold})
	}
	return moves
}

// appendBids appends every bid that the rules allow now: the engine's own
// rules for a first bid (Preset.Opens) and a raise (Preset.RaisesIn), in a
// palifico hand or not.
func appendBids(moves []move, v View, p *engine.Preset) []move {
	s := v.Snapshot
	inPlay := v.diceInPlay()
	moves = slices.Grow(moves, inPlay*s.Sides+3)
	for q := 1; q <= inPlay; q++ {
		for f := 1; f <= s.Sides; f++ {
			if s.Bid == nil && !p.Opens(s.Palifico, f) {
				continue
			}
			if s.Bid != nil && !p.RaisesIn(s.Palifico, s.Bid.Quantity, s.Bid.Face, q, f) {
				continue
			}
			moves = append(moves, move{typ: engine.ActBid, q: q, f: f})
		}
	}
	return moves
}
