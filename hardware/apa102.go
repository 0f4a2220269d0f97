package hardware

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/spi"
	"periph.io/x/devices/v3/apa102"
)

// DefaultAPA102Intensity caps an APA102 strip's brightness (0-255, on the
// driver's perceptual scale): bright enough for a bar, and a 60-LED strip
// stays within a 5 V 2 A supply (see docs/hardware.md).
const DefaultAPA102Intensity = 128

// APA102Strip drives an APA102 (DotStar) colour strip on SPI through
// periph's apa102 driver.
type APA102Strip struct {
	dev *apa102.Dev
	n   int
	rgb []byte
}

// OpenAPA102Strip returns a strip of n LEDs on port, with the given
// intensity (0-255; 0 means DefaultAPA102Intensity). Colours are sent as
// given: no temperature correction.
func OpenAPA102Strip(port spi.Port, n int, intensity uint8) (*APA102Strip, error) {
	if port == nil {
		return nil, errors.New("hardware: an APA102 strip needs an SPI port")
	}
	if n < 1 {
		return nil, fmt.Errorf("hardware: an APA102 strip of %d LEDs", n)
	}
	if intensity == 0 {
		intensity = DefaultAPA102Intensity
	}
	opts := apa102.PassThruOpts
	opts.NumPixels = n
	opts.Intensity = intensity
	dev, err := apa102.New(port, &opts)
	if err != nil {
		return nil, fmt.Errorf("hardware: APA102 on %s: %w", port, err)
	}
	s := &APA102Strip{dev: dev, n: n, rgb: make([]byte, 3*n)}
	if err := s.Write(make([]Color, n)); err != nil {
		return nil, err
	}
	return s, nil
}

// Len returns the number of LEDs.
func (s *APA102Strip) Len() int { return s.n }

// Write sends frame to the strip.
func (s *APA102Strip) Write(frame []Color) error {
	if err := checkFrame(frame, s.n); err != nil {
		return err
	}
	for i, c := range frame {
		s.rgb[3*i], s.rgb[3*i+1], s.rgb[3*i+2] = c.R, c.G, c.B
	}
	if _, err := s.dev.Write(s.rgb); err != nil {
		return fmt.Errorf("hardware: APA102: %w", err)
	}
	return nil
}

// Halt puts the strip out.
func (s *APA102Strip) Halt() error {
	return s.dev.Halt()
}
