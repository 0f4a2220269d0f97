// Package leds shows the referee's table on the table's LEDs: a
// referee.Board over a *hardware.Board.
package leds

import (
	"fmt"

	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
)

// Board shows the referee's board on a *hardware.Board, mapping seat
// names to the layout's seats.
type Board struct {
	Board *hardware.Board
}

func (h Board) seat(name string) (int, error) {
	if name == "" {
		return -1, nil
	}
	i := h.Board.Layout().SeatIndex(name)
	if i < 0 {
		return 0, fmt.Errorf("leds: the board has no LED for seat %q", name)
	}
	return i, nil
}

func (h Board) seats(names []string) ([]int, error) {
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
func (h Board) ShowBid(quantity, face int, star bool) error {
	return h.Board.ShowBid(quantity, face, star)
}

// ShowTurn lights the seat to act.
func (h Board) ShowTurn(seat string) error {
	i, err := h.seat(seat)
	if err != nil {
		return err
	}
	return h.Board.ShowTurn(i)
}

// ShowCall shows a call by caller.
func (h Board) ShowCall(caller string) error {
	i, err := h.seat(caller)
	if err != nil {
		return err
	}
	return h.Board.ShowCall(i)
}

// ShowOutcome shows a resolution.
func (h Board) ShowOutcome(losers, out []string, winner string) error {
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
func (h Board) SetStatus(s referee.Status) error {
	return h.Board.SetStatus(hardwareStatus(s))
}

// Clear puts the game display out.
func (h Board) Clear() { h.Board.Clear() }

func hardwareStatus(s referee.Status) hardware.Status {
	switch s {
	case referee.StatusReady:
		return hardware.StatusReady
	case referee.StatusWaitingReveal:
		return hardware.StatusWaitingReveal
	case referee.StatusReading:
		return hardware.StatusReading
	case referee.StatusNeedsLook:
		return hardware.StatusUncertain
	case referee.StatusError:
		return hardware.StatusError
	}
	return hardware.StatusOff
}
