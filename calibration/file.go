package calibration

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/google/renameio/v2"
	"os"
	"path/filepath"

	"github.com/liarsd/liarsd/vision"
)

// Version is the version of the calibration file this code writes. Files
// of another version are refused: a table must not be read with geometry it
// does not understand.
const Version = 1

// File is everything a table knows about itself. Every part is optional: a
// table works uncalibrated, and each calibration step fills in its part.
type File struct {
	Version int `json:"version"`
	// Table is the table's id, for people reading the file.
	Table  string  `json:"table,omitempty"`
	Camera *Camera `json:"camera,omitempty"`
	Board  *Board  `json:"board,omitempty"`
	// Background is an image of the empty board under this table's light,
	// relative to the file's folder.
	Background string  `json:"background,omitempty"`
	Seats      []Seat  `json:"seats,omitempty"`
	Dice       *Dice   `json:"dice,omitempty"`
	Wiring     *Wiring `json:"wiring,omitempty"`

	// dir is the folder the file was loaded from: Background is there.
	dir string
}

// Camera holds the camera's settings, locked so that readings do not drift
// through an evening. A nil value is left to the camera.
type Camera struct {
	Width        int      `json:"width,omitempty"`
	Height       int      `json:"height,omitempty"`
	Exposure     *float64 `json:"exposure,omitempty"`
	WhiteBalance *float64 `json:"white_balance,omitempty"`
	Focus        *float64 `json:"focus,omitempty"`
	// View is "top" (looking down) or "bottom" (up through a glass board).
	View string `json:"view,omitempty"`
}

// Dice holds what a calibration roll taught: the dice's size and colours
// and the star's artwork.
type Dice struct {
	SizePx float64 `json:"size_px"`
	SizeMM float64 `json:"size_mm,omitempty"`
	// Body and Pips are the dice's colours, as RGB.
	Body [][3]uint8 `json:"body,omitempty"`
	Pips [][3]uint8 `json:"pips,omitempty"`
	// Templates are every face (the star's artwork among them) as the
	// calibration roll showed them, six per kind of die.
	Templates []vision.FaceTemplate `json:"templates,omitempty"`
	// MinConfidence is the reader's threshold for this table.
	MinConfidence float64 `json:"min_confidence,omitempty"`
}

// Wiring is what the installer confirmed of the board's wiring.
type Wiring struct {
	// LEDOrder maps each LED of the board model to its position on the
	// chain, as walked and confirmed.
	LEDOrder []int `json:"led_order,omitempty"`
	// Buttons maps a press as it arrives ("bob/face") to the button the
	// installer pressed ("ann/bid"), where the wiring differs from the pin
	// map.
	Buttons map[string]string `json:"buttons,omitempty"`
}

// Load reads a calibration file. A file of another version, or one that is
// not a calibration file, is refused with an error that says so.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, err
	}
	f.dir = filepath.Dir(path)
	return f, nil
}

// Parse reads a calibration file's contents.
func Parse(b []byte) (*File, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("calibration: not a calibration file: %w", err)
	}
	switch {
	case probe.Version == nil:
		return nil, errors.New("calibration: the file has no version")
	case *probe.Version != Version:
		return nil, fmt.Errorf("calibration: the file is version %d; this liarsd reads version %d (calibrate again, or use a liarsd that matches)", *probe.Version, Version)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Check checks the file's parts for values no table can have.
func (f *File) Check() error {
	if f.Board != nil {
		if err := f.Board.check(); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, s := range f.Seats {
		if s.Name == "" || seen[s.Name] {
			return fmt.Errorf("calibration: seat zone %q is unnamed or named twice", s.Name)
		}
		seen[s.Name] = true
		if len(s.Zone) < 3 {
			return fmt.Errorf("calibration: the zone of seat %q has %d corners; it needs 3 or more", s.Name, len(s.Zone))
		}
	}
	if f.Dice != nil && (f.Dice.SizePx < 0 || f.Dice.MinConfidence < 0 || f.Dice.MinConfidence > 1) {
		return errors.New("calibration: dice size must be positive and min_confidence 0 to 1")
	}
	if f.Dice != nil && len(f.Dice.Templates) > 0 {
		if _, err := vision.NewFaceMatcher(f.Dice.Templates); err != nil {
			return fmt.Errorf("calibration: the dice's face templates: %w (run liarsd calibrate dice again)", err)
		}
	}
	if f.Camera != nil {
		if _, err := vision.ParseView(f.Camera.View); err != nil {
			return fmt.Errorf("calibration: the camera's view: %w", err)
		}
	}
	if f.Wiring != nil {
		// The LED order maps each LED of the board to a place on the
		// chain: every place once.
		seenAt := make([]bool, len(f.Wiring.LEDOrder))
		for led, at := range f.Wiring.LEDOrder {
			if at < 0 || at >= len(seenAt) || seenAt[at] {
				return fmt.Errorf("calibration: the wiring's LED order names chain place %d for LED %d: it must name each of 0 to %d once (run liarsd calibrate leds again)", at, led, len(seenAt)-1)
			}
			seenAt[at] = true
		}
	}
	return nil
}

// Save writes the file so that a crash or a full disk never leaves a
// corrupt or partial file in place of a good one: it writes a temporary
// file beside it, syncs it, and renames it over the old one (renameio).
func Save(path string, f *File) error {
	f.Version = Version
	if err := f.Check(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("calibration: %w", err)
	}
	return writeFile(path, append(b, '\n'))
}

// writeFile replaces path with data atomically: a crash or a full disk
// leaves the old file, never a partial one.
func writeFile(path string, data []byte) error {
	if err := renameio.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("calibration: writing %s: %w", path, err)
	}
	return nil
}
