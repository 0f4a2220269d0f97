package hardware

import "fmt"

// Color is the colour and brightness of one LED, 8 bits per channel.
// Single-colour drivers (GPIO pins, shift registers) light an LED when its
// brightest channel is at least half way (see Color.On), so dim colours are
// a colour strip's background and stay dark on single-colour boards.
type Color struct {
	R, G, B uint8
}

// The board's palette. Dim colours are backgrounds: they show on colour
// strips only.
var (
	Off    = Color{}
	White  = Color{255, 255, 255}
	Red    = Color{255, 0, 0}
	Green  = Color{0, 255, 0}
	Blue   = Color{0, 0, 255}
	Amber  = Color{255, 140, 0}
	Yellow = Color{255, 220, 0}
	Cyan   = Color{0, 200, 255}

	DimWhite  = Color{40, 40, 40}
	DimYellow = Color{60, 50, 0}
	DimRed    = Color{60, 0, 0}
	DimGreen  = Color{0, 60, 0}
)

// On reports whether a single-colour LED shows c: its brightest channel is
// at least 128.
func (c Color) On() bool {
	return max(c.R, c.G, c.B) >= 128
}

// String returns c as #rrggbb.
func (c Color) String() string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// symbol is the one-character name of c used by FormatFrame: a letter for
// each colour of the palette, lower case when dim, '.' when off and '?'
// for any other colour (upper case '#' when it would light a single-colour
// LED).
func (c Color) symbol() byte {
	switch c {
	case Off:
		return '.'
	case White:
		return 'W'
	case Red:
		return 'R'
	case Green:
		return 'G'
	case Blue:
		return 'B'
	case Amber:
		return 'A'
	case Yellow:
		return 'Y'
	case Cyan:
		return 'C'
	case DimWhite:
		return 'w'
	case DimYellow:
		return 'y'
	case DimRed:
		return 'r'
	case DimGreen:
		return 'g'
	}
	if c.On() {
		return '#'
	}
	return '?'
}
