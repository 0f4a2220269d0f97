package hardware

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SeatButton names one seat's button, written "seat/button" ("ann/bid") in
// the calibration file.
type SeatButton struct {
	Seat   string
	Button Button
}

// String writes b as "seat/button".
func (b SeatButton) String() string { return b.Seat + "/" + string(b.Button) }

// parseSeatButton reads "seat/button" for a table of seats. Its errors are
// wrapped by the caller, which names the entry.
func parseSeatButton(s string, seats []string) (SeatButton, error) {
	seat, button, ok := strings.Cut(s, "/")
	if !ok || seat == "" || button == "" {
		return SeatButton{}, errors.New("not seat/button")
	}
	if !slices.Contains(seats, seat) {
		return SeatButton{}, fmt.Errorf("seat %q is not at the table (seats: %s)", seat, strings.Join(seats, ", "))
	}
	b := SeatButton{Seat: seat, Button: Button(button)}
	if !b.Button.valid() {
		return SeatButton{}, fmt.Errorf("unknown button %q (buttons: %s)", button, buttonNames())
	}
	return b, nil
}

// PressMap reads a press that arrives as another button as the button that
// was pressed, where the wiring differs from the pin map. The calibration's
// buttons step records the differences. A nil PressMap changes nothing.
type PressMap struct {
	to map[SeatButton]SeatButton
}

// NewPressMap returns the PressMap that m describes: each key is a press as
// it arrives and its value the button pressed, both written "seat/button"
// ("bob/face": "ann/bid"). Every seat must be one of seats and every button
// one of Buttons, and no two arrivals may name the same button pressed. An
// empty m gives a nil PressMap.
func NewPressMap(m map[string]string, seats []string) (*PressMap, error) {
	if len(m) == 0 {
		return nil, nil
	}
	keys := slices.Sorted(maps.Keys(m)) // stable errors
	pm := &PressMap{to: make(map[SeatButton]SeatButton, len(m))}
	from := make(map[SeatButton]string, len(m))
	for _, k := range keys {
		arrives, err := parseSeatButton(k, seats)
		if err != nil {
			return nil, fmt.Errorf("hardware: button wiring %q: %w", k, err)
		}
		pressed, err := parseSeatButton(m[k], seats)
		if err != nil {
			return nil, fmt.Errorf("hardware: button wiring %q: %q: %w", k, m[k], err)
		}
		if first, dup := from[pressed]; dup {
			return nil, fmt.Errorf("hardware: button wiring: %q and %q both arrive for %s", first, k, pressed)
		}
		from[pressed] = k
		pm.to[arrives] = pressed
	}
	return pm, nil
}

// Map returns p as the button pressed: p with the seat and button it was
// wired to when it arrives as another button, else p unchanged.
func (pm *PressMap) Map(p Press) Press {
	if pm == nil {
		return p
	}
	if to, ok := pm.to[SeatButton{Seat: p.Seat, Button: p.Button}]; ok {
		p.Seat, p.Button = to.Seat, to.Button
	}
	return p
}
