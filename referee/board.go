package referee

import (
	"fmt"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/hardware"
)

// showOnBoard puts an accepted action and its events on the LEDs. Board
// errors (a bid beyond the track, a seat without an LED) are logged: the
// LEDs never stop the game.
func (r *Referee) showOnBoard(a engine.Action, evs []engine.Event, snap engine.Snapshot) {
	b := r.cfg.Board
	if b == nil {
		return
	}
	warn := func(what string, err error) {
		if err != nil {
			r.log.Debug("referee: board", "what", what, "err", err)
		}
	}
	if a.Type == engine.ActNewGame || a.Type == engine.ActCorrect {
		// A correction's events show the hand's result again from a
		// clear board: the next hand's turn or the winner it shows now.
		b.Clear()
	}
	switch a.Type {
	case engine.ActBid:
		warn("bid", showBid(b, snap, a.Quantity, a.Face))
		warn("turn", b.ShowTurn(turnOf(snap)))
	case engine.ActFold:
		if snap.Phase == engine.PhaseBidding {
			warn("turn", b.ShowTurn(turnOf(snap)))
		}
	case engine.ActChallenge, engine.ActSpotOn, engine.ActAllIn:
		warn("call", b.ShowCall(a.Seat))
	}
	for _, e := range evs {
		switch e := e.(type) {
		case *engine.HandStarted:
			b.Clear()
			warn("turn", b.ShowTurn(e.Opener))
		case *engine.Resolved:
			warn("outcome", b.ShowOutcome(losers(snap.Rules, e), e.Out, ""))
		case *engine.GameOver:
			warn("winner", b.ShowOutcome(nil, nil, e.Winner))
		}
	}
}

// refreshBoard shows the table's state as a whole, after a restart.
func (r *Referee) refreshBoard(snap engine.Snapshot) {
	b := r.cfg.Board
	if b == nil {
		return
	}
	b.Clear()
	if snap.Bid != nil {
		_ = showBid(b, snap, snap.Bid.Quantity, snap.Bid.Face)
	}
	if snap.Call != nil {
		_ = b.ShowCall(snap.Call.Caller)
	} else if snap.Turn != nil {
		_ = b.ShowTurn(*snap.Turn)
	}
	_ = b.SetStatus(r.status)
}

// showBid puts a bid on the track. Star-board's star bids stand on a star
// space, and so do perudo's bids on wild ones: q ones come right after 2q
// of any face, where star space q stands. A perudo board built without
// star spaces shows a ones bid on number space q with the face LED of the
// one. In a palifico hand ones are not wild and a ones bid is a number bid.
func showBid(b Board, snap engine.Snapshot, q, f int) error {
	p := engine.Presets[snap.Rules]
	ones := p != nil && p.WildOnes && snap.Wild && f == 1
	err := b.ShowBid(q, f, (f == 1 && snap.StarDie) || ones)
	if err != nil && ones {
		return b.ShowBid(q, f, false)
	}
	return err
}

func turnOf(snap engine.Snapshot) string {
	if snap.Turn == nil {
		return ""
	}
	return *snap.Turn
}

// losers are the seats a resolution went against: those that lost dice (in
// kids, gained them) or, in endurance, went out.
func losers(rules string, e *engine.Resolved) []string {
	var ls []string
	for seat, change := range e.Dice {
		if (rules == "kids" && change > 0) || (rules != "kids" && change < 0) {
			ls = append(ls, seat)
		}
	}
	if rules == "endurance" {
		ls = append(ls, e.Out...)
	}
	return ls
}

// HardwareBoard shows the referee's board on a *hardware.Board, mapping
// seat names to the layout's seats.
type HardwareBoard struct {
	Board *hardware.Board
}

func (h HardwareBoard) seat(name string) (int, error) {
	if name == "" {
		return -1, nil
	}
	i := h.Board.Layout().SeatIndex(name)
	if i < 0 {
		return 0, fmt.Errorf("referee: the board has no LED for seat %q", name)
	}
	return i, nil
}

func (h HardwareBoard) seats(names []string) ([]int, error) {
	out := make([]int, 0, len(names))
	for _, n := range names {
		i, err := h.seat(n)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, nil
}

// ShowBid shows a bid on the track.
func (h HardwareBoard) ShowBid(quantity, face int, star bool) error {
	return h.Board.ShowBid(quantity, face, star)
}

// ShowTurn lights the seat to act.
func (h HardwareBoard) ShowTurn(seat string) error {
	i, err := h.seat(seat)
	if err != nil {
		return err
	}
	return h.Board.ShowTurn(i)
}

// ShowCall shows a call by caller.
func (h HardwareBoard) ShowCall(caller string) error {
	i, err := h.seat(caller)
	if err != nil {
		return err
	}
	return h.Board.ShowCall(i)
}

// ShowOutcome shows a resolution.
func (h HardwareBoard) ShowOutcome(losers, out []string, winner string) error {
	ls, err := h.seats(losers)
	if err != nil {
		return err
	}
	os, err := h.seats(out)
	if err != nil {
		return err
	}
	w, err := h.seat(winner)
	if err != nil {
		return err
	}
	return h.Board.ShowOutcome(ls, os, w)
}

// SetStatus sets the status light.
func (h HardwareBoard) SetStatus(s Status) error {
	return h.Board.SetStatus(hardwareStatus(s))
}

// Clear puts the game display out.
func (h HardwareBoard) Clear() { h.Board.Clear() }

func hardwareStatus(s Status) hardware.Status {
	switch s {
	case StatusReady:
		return hardware.StatusReady
	case StatusWaitingReveal:
		return hardware.StatusWaitingReveal
	case StatusReading:
		return hardware.StatusReading
	case StatusNeedsLook:
		return hardware.StatusUncertain
	case StatusError:
		return hardware.StatusError
	}
	return hardware.StatusOff
}
