package computer

import "github.com/liarsd/liarsd/engine"

// Raises reports whether a bid of quantity q on face f raises the bid
// (fromQ, fromF) under the rule. It mirrors the engine's own check (engine's
// game.raises); TestRaisesMatchEngine pins the two together through
// Table.Apply.
func Raises(rule engine.RaiseRule, fromQ, fromF, q, f int) bool {
	switch rule {
	case engine.RaiseQuantityOrFace:
		return q > fromQ || (q == fromQ && f > fromF)
	case engine.RaiseEither:
		return q > fromQ || f > fromF
	case engine.RaiseFaceOrQuantity:
		return f > fromF || (f == fromF && q > fromQ)
	case engine.RaiseTrack:
		from, to := TrackSpace(fromQ, fromF), TrackSpace(q, f)
		if to != from {
			return to > from
		}
		return f != 1 && f > fromF
	}
	return false
}

// TrackSpace is the index of a bid's space on the star-board bidding track:
// number spaces 1, 2, star 1, 3, 4, star 2, ... A star bid (face 1) of k
// stands on star space k, a number bid of q on number space q.
func TrackSpace(q, f int) int {
	if f == 1 {
		return 3*q - 1
	}
	return q - 1 + (q-1)/2
}

// Legal returns every action the view's seat may take now, in a fixed
// order: bids (ascending quantity, then face), then challenge, spot-on,
// all-in and fold. It is empty when it is not the seat's turn. Tavern
// actions pay the current stake (a nil Stake); a computer seat never raises
// the stake.
func Legal(v View) []engine.Action {
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
	canPay := true
	if p.Stakes && s.Stake != nil && s.Seats[i].Chips != nil {
		canPay = *s.Seats[i].Chips >= *s.Stake && *s.Seats[i].Chips > 0
	}
	var acts []engine.Action
	if canPay {
		acts = appendBids(acts, v, p)
		if s.Bid != nil {
			acts = append(acts, engine.Action{Type: engine.ActChallenge, Seat: v.Seat})
			if p.SpotOn != engine.SpotOnNone {
				acts = append(acts, engine.Action{Type: engine.ActSpotOn, Seat: v.Seat})
			}
		}
	}
	if p.Stakes {
		if !canPay && s.Bid != nil {
			acts = append(acts, engine.Action{Type: engine.ActAllIn, Seat: v.Seat})
		}
		acts = append(acts, engine.Action{Type: engine.ActFold, Seat: v.Seat})
	}
	return acts
}

// appendBids appends every bid that the rules allow now.
func appendBids(acts []engine.Action, v View, p *engine.Preset) []engine.Action {
	s := v.Snapshot
	inPlay := v.diceInPlay()
	for q := 1; q <= inPlay; q++ {
		for f := 1; f <= s.Sides; f++ {
			if s.Bid != nil && !Raises(p.Raise, s.Bid.Quantity, s.Bid.Face, q, f) {
				continue
			}
			acts = append(acts, engine.Action{Type: engine.ActBid, Seat: v.Seat, Quantity: q, Face: f})
		}
	}
	return acts
}
