package hardware

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/gpio"
)

// Strip is a chain of LEDs that shows frames. Every driver implements it;
// Board.Run feeds it.
type Strip interface {
	// Len returns the number of LEDs, the length of every frame.
	Len() int
	// Write shows frame. A frame of the wrong length is refused.
	Write(frame []Color) error
}

// checkFrame refuses frames whose length is not n.
func checkFrame(frame []Color, n int) error {
	if len(frame) != n {
		return fmt.Errorf("hardware: frame of %d LEDs for a strip of %d", len(frame), n)
	}
	return nil
}

// GPIOStrip drives one single-colour LED per GPIO pin: the smallest boards.
// An LED is lit when its Color is On.
type GPIOStrip struct {
	pins      []gpio.PinOut
	activeLow bool
	levels    []gpio.Level
	known     bool // levels holds what the pins were last set to
}

// NewGPIOStrip returns a strip driving pins, one LED each in frame order.
// With activeLow, a pin is driven low to light its LED (the LED wired from
// 3.3 V to the pin). The LEDs are put out at once.
func NewGPIOStrip(pins []gpio.PinOut, activeLow bool) (*GPIOStrip, error) {
	if len(pins) == 0 {
		return nil, errors.New("hardware: a GPIO strip needs at least one pin")
	}
	for i, p := range pins {
		if p == nil {
			return nil, fmt.Errorf("hardware: GPIO strip pin %d is missing", i)
		}
	}
	s := &GPIOStrip{pins: append([]gpio.PinOut(nil), pins...), activeLow: activeLow, levels: make([]gpio.Level, len(pins))}
	if err := s.Write(make([]Color, len(pins))); err != nil {
		return nil, err
	}
	return s, nil
}

// Len returns the number of pins.
func (s *GPIOStrip) Len() int { return len(s.pins) }

// Write sets every pin whose LED changes.
func (s *GPIOStrip) Write(frame []Color) error {
	if err := checkFrame(frame, len(s.pins)); err != nil {
		return err
	}
	var errs []error
	for i, c := range frame {
		l := gpio.Level(c.On() != s.activeLow)
		if s.known && s.levels[i] == l {
			continue
		}
		if err := s.pins[i].Out(l); err != nil {
			errs = append(errs, fmt.Errorf("hardware: LED %d on %s: %w", i, s.pins[i], err))
			continue
		}
		s.levels[i] = l
	}
	// Only trust the cache once every pin has been set successfully.
	s.known = len(errs) == 0 || s.known
	return errors.Join(errs...)
}
