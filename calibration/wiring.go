package calibration

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/liarsd/liarsd/hardware"
)

// LEDs walks the chain: it lights each position in turn and asks the
// installer which LED of the board is lit (Enter when it is the one the
// wiring plan expects there). The answers give the chain's order, which the
// referee applies with hardware.NewRemapStrip.
func (s *Session) LEDs(strip hardware.Strip, layout hardware.Layout) error {
	n := layout.Len()
	if strip.Len() != n {
		return fmt.Errorf("calibration: the strip has %d LEDs and the board model %d", strip.Len(), n)
	}
	s.say("LEDs: each LED of the chain lights in turn. Say which it is: Enter when it is the one named, else its number (1-%d, as 'liarsd hwtest' lists them).", n)
	order := make([]int, n) // model LED -> chain position
	for i := range order {
		order[i] = -1
	}
	frame := make([]hardware.Color, n)
	defer strip.Write(make([]hardware.Color, n))
	for pos := range n {
		clear(frame)
		frame[pos] = hardware.Color{R: 255, G: 255, B: 255}
		if err := strip.Write(frame); err != nil {
			return fmt.Errorf("calibration: lighting LED %d: %w", pos+1, err)
		}
		answer, err := s.ask(fmt.Sprintf("  chain LED %d lit: is it %d (%s)?", pos+1, pos+1, layout.Describe(pos)))
		if err != nil {
			return err
		}
		model := pos
		if answer != "" {
			k, err := strconv.Atoi(answer)
			if err != nil || k < 1 || k > n {
				return fmt.Errorf("calibration: %q is not an LED number 1-%d", answer, n)
			}
			model = k - 1
		}
		if order[model] >= 0 {
			return fmt.Errorf("calibration: LED %d (%s) was named twice, at chain positions %d and %d", model+1, layout.Describe(model), order[model]+1, pos+1)
		}
		order[model] = pos
	}
	if s.File.Wiring == nil {
		s.File.Wiring = &Wiring{}
	}
	s.File.Wiring.LEDOrder = order
	return nil
}

// Buttons asks the installer to press each seat's buttons in turn and
// checks where each press arrives. A press that arrives as another button
// is recorded, so that the referee reads it as the button pressed; a
// button that gives nothing within wait is an error that names it.
func (s *Session) Buttons(ctx context.Context, src hardware.PressSource, seats []string, buttons []hardware.Button, wait time.Duration) error {
	if src == nil {
		return errors.New("calibration: this board has no buttons to check")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	presses := make(chan hardware.Press, 16)
	go src.Run(ctx, func(p hardware.Press) {
		select {
		case presses <- p:
		default: // a press nobody asked for
		}
	})
	moved := map[string]string{}
	pressedAs := map[string]string{} // a press as it arrives -> the button pressed
	var missing []string
	for _, seat := range seats {
		for _, b := range buttons {
			want := seat + "/" + string(b)
			s.say("  press %s's %s button", seat, strings.ReplaceAll(string(b), "_", " "))
			select {
			case p := <-presses:
				got := p.Seat + "/" + string(p.Button)
				if first, twice := pressedAs[got]; twice {
					// Two buttons arrive as one: no map tells them apart.
					return fmt.Errorf("calibration: %s and %s both arrive as %s: check the wiring and the pin map", first, want, got)
				}
				pressedAs[got] = want
				if got != want {
					moved[got] = want
					s.say("    it arrived as %s: recorded", got)
				}
			case <-time.After(wait):
				missing = append(missing, want)
				s.say("    nothing arrived")
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("calibration: no press arrived from %s: check the wiring and the pin map", strings.Join(missing, ", "))
	}
	if s.File.Wiring == nil {
		s.File.Wiring = &Wiring{}
	}
	s.File.Wiring.Buttons = moved
	return nil
}
