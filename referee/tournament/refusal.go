package tournament

import (
	"errors"
	"fmt"
)

// Reasons for refusing an input.
const (
	BadInput        = "bad_input"        // not an input of this form
	BadSetup        = "bad_setup"        // a setup that cannot be played
	NotSetUp        = "not_set_up"       // the tournament has no setup yet
	Started         = "started"          // the tournament has started: no longer allowed
	DuplicatePlayer = "duplicate_player" // a player registered twice
	BadPlayer       = "bad_player"       // a player's name or level is not allowed
	UnknownPlayer   = "unknown_player"   // no such player
	UnknownRound    = "unknown_round"    // no such round
	UnknownTable    = "unknown_table"    // no such table, or no game there
	RoundStarted    = "round_started"    // the round has started already
	RoundInProgress = "round_in_progress"
	NotEnough       = "not_enough" // too few players, or tables
	BadSeating      = "bad_seating"
	BadOrder        = "bad_order" // an override that does not order the game's players
	NotNow          = "not_now"   // right input, wrong moment
	Finished        = "finished"  // the tournament is over
)

// Refusal is why an input was refused. A refused input changes nothing.
type Refusal struct {
	Reason  string
	Message string
}

// Error returns the message, prefixed with the package's name.
func (r *Refusal) Error() string { return "tournament: " + r.Message }

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// AsRefusal returns the Refusal in err's chain, or nil.
func AsRefusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}

func asType[T error](err error, target *T) bool { return errors.As(err, target) }
