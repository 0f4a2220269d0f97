package hardware

import (
	"errors"
	"fmt"
	"slices"
)

// RemapStrip shows frames on a strip whose LEDs were wired in another order
// than the board model's: LED i of a frame lights position order[i] of the
// chain. The order comes from the calibration's LED walk.
type RemapStrip struct {
	strip Strip
	order []int
	buf   []Color
}

// NewRemapStrip returns a strip that reorders frames onto strip. order must
// name every position of the chain once.
func NewRemapStrip(strip Strip, order []int) (*RemapStrip, error) {
	if strip == nil {
		return nil, errors.New("hardware: no strip to remap")
	}
	if len(order) != strip.Len() {
		return nil, fmt.Errorf("hardware: the LED order has %d entries for a chain of %d LEDs", len(order), strip.Len())
	}
	seen := make([]bool, len(order))
	for i, p := range order {
		if p < 0 || p >= len(order) || seen[p] {
			return nil, fmt.Errorf("hardware: the LED order names chain position %d twice or out of range (entry %d)", p, i)
		}
		seen[p] = true
	}
	// A copy: the caller's slice may change after the checks.
	return &RemapStrip{strip: strip, order: slices.Clone(order), buf: make([]Color, len(order))}, nil
}

// Len returns the number of LEDs.
func (r *RemapStrip) Len() int { return len(r.order) }

// Write shows frame with each LED at its wired position.
func (r *RemapStrip) Write(frame []Color) error {
	if err := checkFrame(frame, len(r.order)); err != nil {
		return err
	}
	for i, c := range frame {
		r.buf[r.order[i]] = c
	}
	return r.strip.Write(r.buf)
}
