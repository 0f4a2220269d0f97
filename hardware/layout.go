package hardware

import (
	"errors"
	"fmt"
)

// FaceLEDs is the number of face LEDs beside the track: star (or 1) to 6.
const FaceLEDs = 6

// MaxSeats is the most seats a board has LEDs and buttons for.
const MaxSeats = 20

// Layout is the order of a board's LEDs in a frame: the track's spaces
// first (in the order people read them), then the six face LEDs, one LED
// per seat (clockwise, as configured) and the status LED last. Every Strip
// takes frames in this order; wiring follows it (see docs/hardware.md).
type Layout struct {
	numberSpaces int
	starSpaces   int
	seats        []string
}

// NewLayout returns the layout of a board whose track has numberSpaces
// number spaces and starSpaces star spaces (0 for presets without the star
// track), with one LED for each of seats.
//
// Star space k stands right after number space 2k (RULINGS.md), so a track
// has at most numberSpaces/2 star spaces.
func NewLayout(numberSpaces, starSpaces int, seats []string) (Layout, error) {
	switch {
	case numberSpaces < 1:
		return Layout{}, fmt.Errorf("hardware: the track needs at least one number space, not %d", numberSpaces)
	case starSpaces < 0:
		return Layout{}, fmt.Errorf("hardware: negative number of star spaces (%d)", starSpaces)
	case starSpaces > numberSpaces/2:
		return Layout{}, fmt.Errorf("hardware: %d star spaces need %d number spaces (star space k follows number space 2k), the track has %d",
			starSpaces, 2*starSpaces, numberSpaces)
	case len(seats) == 0:
		return Layout{}, errors.New("hardware: no seats")
	case len(seats) > MaxSeats:
		return Layout{}, fmt.Errorf("hardware: %d seats, at most %d", len(seats), MaxSeats)
	}
	seen := make(map[string]bool, len(seats))
	for _, s := range seats {
		if s == "" {
			return Layout{}, errors.New("hardware: empty seat name")
		}
		if seen[s] {
			return Layout{}, fmt.Errorf("hardware: seat %q named twice", s)
		}
		seen[s] = true
	}
	return Layout{numberSpaces: numberSpaces, starSpaces: starSpaces, seats: append([]string(nil), seats...)}, nil
}

// NumberSpaces returns the number of number spaces on the track.
func (l Layout) NumberSpaces() int { return l.numberSpaces }

// StarSpaces returns the number of star spaces on the track (0 without the
// star track).
func (l Layout) StarSpaces() int { return l.starSpaces }

// Seats returns the seats' names, clockwise.
func (l Layout) Seats() []string { return append([]string(nil), l.seats...) }

// TrackLen returns the number of LEDs on the track.
func (l Layout) TrackLen() int { return l.numberSpaces + l.starSpaces }

// Len returns the number of LEDs on the board: the length of every frame.
func (l Layout) Len() int { return l.TrackLen() + FaceLEDs + len(l.seats) + 1 }

// NumberSpace returns the LED of number space q (1-based).
func (l Layout) NumberSpace(q int) (int, error) {
	if q < 1 || q > l.numberSpaces {
		return 0, fmt.Errorf("hardware: no number space %d on a track of %d", q, l.numberSpaces)
	}
	// Number q is preceded by q-1 numbers and by the star spaces after
	// numbers 2, 4, ... below it.
	return q - 1 + min((q-1)/2, l.starSpaces), nil
}

// StarSpace returns the LED of star space k (1-based).
func (l Layout) StarSpace(k int) (int, error) {
	if k < 1 || k > l.starSpaces {
		return 0, fmt.Errorf("hardware: no star space %d on a track of %d", k, l.starSpaces)
	}
	return 3*k - 1, nil
}

// Face returns the LED of face f, 1 (star) to 6.
func (l Layout) Face(f int) (int, error) {
	if f < 1 || f > FaceLEDs {
		return 0, fmt.Errorf("hardware: no face LED %d (faces 1 to %d)", f, FaceLEDs)
	}
	return l.TrackLen() + f - 1, nil
}

// Seat returns the LED of the seat at index i (0-based, clockwise).
func (l Layout) Seat(i int) (int, error) {
	if i < 0 || i >= len(l.seats) {
		return 0, fmt.Errorf("hardware: no seat %d (%d seats)", i, len(l.seats))
	}
	return l.TrackLen() + FaceLEDs + i, nil
}

// SeatIndex returns the index of the named seat, or -1.
func (l Layout) SeatIndex(name string) int {
	for i, s := range l.seats {
		if s == name {
			return i
		}
	}
	return -1
}

// Status returns the LED of the status light.
func (l Layout) Status() int { return l.Len() - 1 }

// Describe names LED i for people wiring a board, for example
// "track 3: star space 1", "face 1 (star)", "seat ann" or "status".
func (l Layout) Describe(i int) string {
	switch {
	case i < 0 || i >= l.Len():
		return fmt.Sprintf("no LED %d", i)
	case i < l.TrackLen():
		for k := 1; k <= l.starSpaces; k++ {
			if 3*k-1 == i {
				return fmt.Sprintf("track %d: star space %d", i+1, k)
			}
		}
		// Invert NumberSpace: the numbers before i are i minus the stars before it.
		stars := 0
		for k := 1; k <= l.starSpaces && 3*k-1 < i; k++ {
			stars++
		}
		return fmt.Sprintf("track %d: number space %d", i+1, i-stars+1)
	case i < l.TrackLen()+FaceLEDs:
		f := i - l.TrackLen() + 1
		if f == 1 {
			return "face 1 (star)"
		}
		return fmt.Sprintf("face %d", f)
	case i < l.Status():
		return "seat " + l.seats[i-l.TrackLen()-FaceLEDs]
	}
	return "status"
}
