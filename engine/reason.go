package engine

import "fmt"

// Reason is the code of a refused input, as RECORD.md lists them. When
// several apply, the first in this list is given.
type Reason string

// The reasons of RECORD.md, in order of precedence.
const (
	BadInput          Reason = "bad_input"
	UnknownRules      Reason = "unknown_rules"
	BadSeats          Reason = "bad_seats"
	NoGame            Reason = "no_game"
	UnknownSeat       Reason = "unknown_seat"
	NotAllowed        Reason = "not_allowed"
	NotNow            Reason = "not_now"
	NotYourTurn       Reason = "not_your_turn"
	NoBidToCall       Reason = "no_bid_to_call"
	BadBid            Reason = "bad_bid"
	BidNotHigher      Reason = "bid_not_higher"
	BadReveal         Reason = "bad_reveal"
	StakeTooLow       Reason = "stake_too_low"
	InsufficientChips Reason = "insufficient_chips"
)

// Rejection is the error of an input the referee refuses. A refused input
// changes nothing.
type Rejection struct {
	Reason  Reason
	Message string
}

func (r *Rejection) Error() string { return "engine: " + string(r.Reason) + ": " + r.Message }

func reject(reason Reason, format string, args ...any) *Rejection {
	return &Rejection{Reason: reason, Message: fmt.Sprintf(format, args...)}
}
