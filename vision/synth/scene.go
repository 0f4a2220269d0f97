// Package synth renders realistic top-down images of a table with known
// dice on it, for tests, benchmarks and the demo: pips and the three star
// artworks, many colours, rotation, shadows, glare, uneven light, blur,
// camera noise and perspective, all driven by a seed.
//
// A Scene says exactly what is on the table; Render draws it and returns,
// beside the image, what a perfect reader should report for it.
package synth

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
)

// Artwork is what a die prints on its 1 face.
type Artwork int

const (
	// Pip is a plain single pip: the face reads as 1.
	Pip Artwork = iota
	// FilledStar is a filled five-pointed star: the wild star.
	FilledStar
	// OutlinedStar is the outline of a five-pointed star: the wild star.
	OutlinedStar
	// ShipsWheel is a ship's wheel (rim, spokes, handles): the wild star.
	ShipsWheel
)

// Stars lists the three star artworks.
var Stars = []Artwork{FilledStar, OutlinedStar, ShipsWheel}

// String names the artwork.
func (a Artwork) String() string {
	switch a {
	case FilledStar:
		return "filled-star"
	case OutlinedStar:
		return "outlined-star"
	case ShipsWheel:
		return "ships-wheel"
	}
	return "pip"
}

// Units says what a Scene's positions and sizes are measured in.
type Units int

const (
	// Pixels measures positions and sizes in image pixels.
	Pixels Units = iota
	// Millimetres measures them on the table; Scene.PxPerMM converts.
	Millimetres
)

// Die is one die on the table.
type Die struct {
	// X and Y are the die's centre, in the scene's units.
	X, Y float64
	// Size is the die's side in the scene's units; 0 means Scene.DieSize.
	Size float64
	// Face is the face on top, 1 to 6.
	Face int
	// One is what the die prints on its 1 face; anything but Pip is the star.
	One Artwork
	// Colour is the body's colour and PipColour the pips'.
	Colour, PipColour color.RGBA
	// Rotation is the die's turn in degrees.
	Rotation float64
	// Translucent dice let the table show through their body.
	Translucent bool
	// Swirl is the colour of a marbled die's veins; a zero Swirl (alpha
	// 0) is a plain body. SwirlSeed draws the veins' pattern.
	Swirl     color.RGBA
	SwirlSeed uint64
	// Tilt is how far, in degrees, a cocked die leans against something;
	// 0 lies flat. A reader should flag a cocked die uncertain.
	Tilt float64
	// Hidden is the share of the die covered by something (a hand, a cup's
	// rim), 0 to 1. A reader should flag a half-hidden die uncertain.
	Hidden float64
	// Glints draws the rims of recessed, glossy pips catching the light:
	// a white crescent on each pip's far side from the light, which on a
	// dark die can look like a pip of its own.
	Glints bool
	// Corner is the radius of the die's rounded corners as a share of its
	// side, from sharp casino dice (0.02) to well-worn ones (0.3); 0 means
	// 0.12.
	Corner float64
	// PipScale scales the pips (and star artworks' strokes stay as they
	// are), 0.6 to 1.5; 0 means 1.
	PipScale float64
}

// Lighting describes uneven light on the table.
type Lighting struct {
	// Gradient is how much brighter one side of the table is than the
	// other, 0 (even) to about 0.6.
	Gradient float64
	// Angle is the direction, in degrees, the light comes from.
	Angle float64
	// Vignette darkens the corners, 0 to about 0.5.
	Vignette float64
	// Shadow is the strength of the dice's shadows, 0 to 1.
	Shadow float64
	// Glare is the chance that a die catches a highlight, 0 to 1.
	Glare float64
}

// Scene is everything on the table and how the camera sees it.
type Scene struct {
	// Width and Height are the image's size in pixels.
	Width, Height int
	// Units measures the dice's positions and sizes; PxPerMM converts
	// millimetres to pixels (default 3).
	Units   Units
	PxPerMM float64
	// DieSize is the side of dice that do not set their own (default 48 px
	// or 16 mm).
	DieSize float64
	// Table is the table's colour; Texture the strength of its grain, 0-1.
	Table   color.RGBA
	Texture float64
	Light   Lighting
	// Blur is the camera's blur (Gaussian sigma, px); Noise its noise
	// (sigma, grey levels); Perspective how far the camera is off straight
	// down (corner displacement as a share of the image, 0 to about 0.08).
	Blur, Noise, Perspective float64
	// JPEGQuality, when 1 to 100, saves the image as a JPEG of that
	// quality (4:2:0, as phones and most cameras do) and reads it back:
	// the coarse colour and ringing around small pips of a compressed
	// photograph. 0 leaves the image as drawn. JPEGScale, between 0 and
	// 1, saves the JPEG at that share of the image's size and enlarges it
	// back: dice as small in the JPEG as the photographs' (20-45 px).
	JPEGQuality int
	JPEGScale   float64
	// Seed drives every random choice in rendering (texture, noise, which
	// dice catch glare, the perspective's direction).
	Seed uint64
	Dice []Die
	// CameraTilt is how far, in degrees, the camera looks off straight
	// down, 0 to 50; CameraTurn the direction it looks from, in degrees (0:
	// from the flat image's bottom edge, 90: from its right; nothing
	// when the tilt is 0, which draws the flat table of old). A tilted
	// camera sees each die as a cube: its top face and the sides
	// that face the camera, each with its own face's pips, and the table
	// foreshortened. Positions stay on the table, in the scene's units;
	// the table point at the flat image's centre stays at the image's
	// centre, where a length across the view keeps its size. Perspective
	// is ignored then (the camera is a true perspective).
	CameraTilt, CameraTurn float64
	// Lens is the tilted camera's focal length as a share of the image's
	// longer side, 0.5 to 2; 0 means 1 (a normal lens, 53 degrees across
	// the longer side).
	Lens float64
	// Surface is what the table is made of; Table is its main colour and
	// Texture the strength of its grain.
	Surface Surface
	// Clutter is what else lies on the table, under the dice.
	Clutter []Thing
}

// Validate reports what is wrong with a scene.
func (s Scene) Validate() error {
	if s.Width < 32 || s.Height < 32 || s.Width > 8192 || s.Height > 8192 {
		return fmt.Errorf("synth: image size %dx%d out of range", s.Width, s.Height)
	}
	if s.JPEGQuality < 0 || s.JPEGQuality > 100 || s.JPEGScale < 0 || s.JPEGScale > 1 {
		return fmt.Errorf("synth: JPEG quality %d or scale %v not in 0-100 and 0-1", s.JPEGQuality, s.JPEGScale)
	}
	if !(s.CameraTilt >= 0 && s.CameraTilt <= 50) || math.IsNaN(s.CameraTurn) || math.IsInf(s.CameraTurn, 0) {
		return fmt.Errorf("synth: camera tilt %v not in 0-50 degrees, or turn %v not a number", s.CameraTilt, s.CameraTurn)
	}
	if s.Lens != 0 && !(s.Lens >= 0.5 && s.Lens <= 2) {
		return fmt.Errorf("synth: lens %v not in 0.5-2", s.Lens)
	}
	if s.Surface < Felt || s.Surface > Tray {
		return fmt.Errorf("synth: unknown surface %d", int(s.Surface))
	}
	for i, d := range s.Dice {
		if d.Face < 1 || d.Face > 6 {
			return fmt.Errorf("synth: die %d: face %d not in 1-6", i, d.Face)
		}
		if d.Size < 0 || d.Hidden < 0 || d.Hidden > 1 {
			return fmt.Errorf("synth: die %d: bad size or hidden share", i)
		}
		if !(d.Corner >= 0 && d.Corner <= 0.45) || d.PipScale != 0 && !(d.PipScale >= 0.3 && d.PipScale <= 1.6) {
			return fmt.Errorf("synth: die %d: corner %v not in 0-0.45 or pip scale %v not in 0.3-1.6", i, d.Corner, d.PipScale)
		}
		if s.dieSide(d)*supersample < 4 || s.dieSide(d) > float64(max(s.Width, s.Height)) {
			return fmt.Errorf("synth: die %d: side %.1f px out of range", i, s.dieSide(d))
		}
	}
	for i, t := range s.Clutter {
		if err := t.validate(); err != nil {
			return fmt.Errorf("synth: thing %d: %w", i, err)
		}
	}
	return nil
}

// px converts a length in the scene's units to pixels.
func (s Scene) px(v float64) float64 {
	if s.Units == Millimetres {
		return v * s.pxPerMM()
	}
	return v
}

func (s Scene) pxPerMM() float64 {
	if s.PxPerMM > 0 {
		return s.PxPerMM
	}
	return 3
}

func (s Scene) dieSide(d Die) float64 {
	if d.Size > 0 {
		return s.px(d.Size)
	}
	if s.DieSize > 0 {
		return s.px(s.DieSize)
	}
	return 48
}

// Rect is a region of the table, in the scene's units.
type Rect struct{ X, Y, W, H float64 }

// ErrNoRoom is returned by Place when the dice do not fit in the region.
var ErrNoRoom = errors.New("synth: the dice do not fit in the region")

// Place sets the position and rotation of each die so that all lie inside
// region without touching (gap, in the scene's units, between their
// circumscribed circles), choosing positions with seed. Sizes are the
// dice's own or size. It is the way to put a player's dice in front of a
// seat.
func Place(dice []Die, region Rect, size, gap float64, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	// Random placement can corner itself (two dice far apart leave no room
	// for a third between them): start over until everything fits.
	for attempt := 0; attempt < 200; attempt++ {
		if placeOnce(dice, region, size, gap, rng) {
			return nil
		}
	}
	return ErrNoRoom
}

func placeOnce(dice []Die, region Rect, size, gap float64, rng *rand.Rand) bool {
	type disc struct{ x, y, r float64 }
	placed := make([]disc, 0, len(dice))
	for i := range dice {
		s := dice[i].Size
		if s <= 0 {
			s = size
		}
		r := s*math.Sqrt2/2 + gap/2
		if 2*r > region.W || 2*r > region.H {
			return false
		}
		ok := false
		for try := 0; try < 300 && !ok; try++ {
			x := region.X + r + rng.Float64()*(region.W-2*r)
			y := region.Y + r + rng.Float64()*(region.H-2*r)
			ok = true
			for _, p := range placed {
				if math.Hypot(p.x-x, p.y-y) < p.r+r {
					ok = false
					break
				}
			}
			if ok {
				placed = append(placed, disc{x, y, r})
				dice[i].X, dice[i].Y = x, y
				dice[i].Rotation = rng.Float64() * 90
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Palette is a die colour with a pip colour that shows on it.
type Palette struct{ Body, Pips color.RGBA }

// Palettes are common dice: light pips on dark bodies and dark on light.
var Palettes = []Palette{
	{rgb(245, 245, 240), rgb(20, 20, 20)},   // white, black pips
	{rgb(240, 235, 215), rgb(180, 20, 20)},  // ivory, red pips
	{rgb(200, 25, 30), rgb(250, 250, 250)},  // red, white pips
	{rgb(20, 20, 22), rgb(245, 245, 245)},   // black, white pips
	{rgb(25, 60, 170), rgb(250, 250, 250)},  // blue, white pips
	{rgb(20, 130, 60), rgb(250, 250, 250)},  // green, white pips
	{rgb(240, 200, 20), rgb(15, 15, 15)},    // yellow, black pips
	{rgb(110, 40, 140), rgb(240, 200, 60)},  // purple, gold pips
	{rgb(235, 120, 20), rgb(20, 20, 20)},    // orange, black pips
	{rgb(20, 20, 22), rgb(220, 30, 30)},     // black, red pips
	{rgb(120, 70, 40), rgb(240, 230, 200)},  // wood brown, cream pips
	{rgb(40, 150, 160), rgb(255, 255, 255)}, // teal, white pips
}

// Tints are translucent dice's tinted bodies and their pips: dark, with
// red or light pips, the hardest dice of the photographs to read.
var Tints = []Palette{
	{rgb(45, 40, 48), rgb(200, 30, 40)},   // smoke, red pips
	{rgb(30, 70, 150), rgb(210, 30, 40)},  // blue, red pips
	{rgb(80, 30, 100), rgb(210, 40, 50)},  // purple, red pips
	{rgb(70, 20, 28), rgb(230, 230, 225)}, // garnet, white pips
	{rgb(20, 90, 70), rgb(230, 230, 225)}, // emerald, white pips
	{rgb(40, 40, 45), rgb(220, 180, 60)},  // smoke, gold pips
}

// Tables are common table surfaces.
var Tables = []color.RGBA{
	rgb(35, 90, 50),    // green felt
	rgb(120, 80, 50),   // wood
	rgb(190, 190, 185), // grey board
	rgb(40, 40, 45),    // dark mat
	rgb(150, 30, 35),   // red felt
	rgb(30, 50, 100),   // blue felt
}

// Swirls are the colours of marbled dice's veins; a body's own colour,
// lighter or darker, is drawn too.
var Swirls = []color.RGBA{
	rgb(235, 235, 230), // white
	rgb(160, 160, 165), // grey
	rgb(15, 15, 18),    // black
	rgb(210, 170, 60),  // gold
}

// marble gives d a marbled body: veins of a swirl colour, and often the
// red or white pips such dice have.
func marble(d *Die, rng *rand.Rand) {
	switch k := rng.IntN(len(Swirls) + 1); k {
	case len(Swirls):
		// The body's own colour: darker veins in a light body, lighter
		// in a dark one.
		to, t := rgb(0, 0, 0), 0.6
		if luma(d.Colour) < 100 {
			to, t = rgb(255, 255, 255), 0.45
		}
		d.Swirl = mixRGB(d.Colour, to, t)
	default:
		d.Swirl = Swirls[k]
	}
	// Half of them get red or white pips, unless the body would hide
	// them: no maker sells those.
	pips := []color.RGBA{rgb(200, 25, 30), rgb(245, 245, 245)}[rng.IntN(2)]
	if rng.Float64() < 0.5 && colourDistance(pips, d.Colour) > 150 {
		d.PipColour = pips
	}
	d.SwirlSeed = rng.Uint64()
}

// mixRGB is a + t(b - a), opaque.
func mixRGB(a, b color.RGBA, t float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
}

// luma is a colour's brightness, 0 to 255 (ITU-R BT.601 weights).
func luma(c color.RGBA) float64 {
	return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B)
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }

// RandomOptions shape a random scene.
type RandomOptions struct {
	Width, Height int     // default 1280x720
	Dice          int     // default 30
	DieSize       float64 // px, default 48
	// StarShare is the share of dice showing the star face (default 0: a
	// fair die's one in six); Stars are the artworks to draw it with
	// (default all three).
	StarShare float64
	Stars     []Artwork
	// Clean turns off glare, blur, noise and perspective.
	Clean bool
	// Cocked is the share of dice leaning against something (20 to 60
	// degrees): unreadable, so marked uncertain. Default 0.
	Cocked float64
	// Marbled is the share of dice with a marbled body: veins of another
	// colour through it, which a reader must not take for pips. Default 0.
	Marbled float64
	// Glossy is the share of dice with glossy, recessed pips whose rims
	// catch the light (Die.Glints); half of them are also tinted
	// translucent dice (Tints), as many of the photographs' dice are.
	// Default 0.
	Glossy float64
	// JPEG is the share of scenes saved as a small JPEG, as the
	// photographs are (Scene.JPEGQuality 35 to 75, JPEGScale 0.45 to
	// 0.85: dice of about 22 to 41 px in the JPEG). Default 0.
	JPEG float64

	// The knobs below draw from random streams of their own: with each
	// off (its zero value) a scene is what it was before the knob existed.

	// Surfaces are the surfaces to draw the table from (and its colour
	// and grain, dice kept off its colour); default felt alone, as ever.
	Surfaces []Surface
	// Clutter is the mean number of things (a Poisson count: keyboards,
	// cables, coins, pens, cards, phones, sheets, stickers, notes) on the
	// table under the dice, anywhere in view. Default 0.
	Clutter float64
	// MaxCameraTilt tilts the camera by up to that many degrees (at most
	// 50), from any side, with a lens of 0.75 to 1.3 (Scene.Lens); the
	// dice are placed where the camera sees them whole and apart, and
	// those that do not fit are left out. Default 0: straight down.
	MaxCameraTilt float64
	// AnyColour is the share of dice with a body of any hue, light or
	// dark, and pips that stand out on it. Default 0.
	AnyColour float64
	// Styles is the share of dice of their own make: corners from sharp
	// to well rounded, pips from small to large, and now and then a
	// casino die (translucent, sharp, flush white pips). Default 0.
	Styles float64
	// SizeSpread varies each die's side by up to that share of DieSize,
	// either way. Default 0.
	SizeSpread float64
}

// Random returns a realistic random scene: a table, dice of many colours
// at random faces, positions and rotations, uneven light, shadows, glare,
// blur, noise and a little perspective, all from seed.
func Random(seed uint64, o RandomOptions) Scene {
	rng := rand.New(rand.NewPCG(seed, 0xd1ce))
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1280, 720
	}
	if o.Dice <= 0 {
		o.Dice = 30
	}
	if o.DieSize <= 0 {
		o.DieSize = 48
	}
	if len(o.Stars) == 0 {
		o.Stars = Stars
	}
	s := Scene{
		Width: o.Width, Height: o.Height,
		DieSize: o.DieSize * (0.9 + 0.2*rng.Float64()),
		Table:   Tables[rng.IntN(len(Tables))],
		Texture: 0.3 + 0.5*rng.Float64(),
		Light: Lighting{
			Gradient: 0.4 * rng.Float64(),
			Angle:    360 * rng.Float64(),
			Vignette: 0.3 * rng.Float64(),
			Shadow:   0.3 + 0.5*rng.Float64(),
			Glare:    0.3 * rng.Float64(),
		},
		Seed: seed,
	}
	if !o.Clean {
		s.Blur = 0.4 + 0.8*rng.Float64()
		s.Noise = 2 + 4*rng.Float64()
		s.Perspective = 0.04 * rng.Float64()
	}
	// The marbling draws from its own stream, so that a scene is the same
	// with and without it but for the veins.
	marbles := rand.New(rand.NewPCG(seed, 0x3a7b1e))
	gloss := rand.New(rand.NewPCG(seed, 0x91e75))
	if o.JPEG > 0 {
		// Its own stream too: the scene is the same but for the saving.
		jpeg := rand.New(rand.NewPCG(seed, 0x19e6))
		if jpeg.Float64() < o.JPEG {
			s.JPEGQuality = 35 + jpeg.IntN(41)
			s.JPEGScale = 0.45 + 0.4*jpeg.Float64()
		}
	}
	dice := make([]Die, o.Dice)
	for i := range dice {
		p := Palettes[rng.IntN(len(Palettes))]
		// Keep the dice off the table's own colour so they can be seen.
		for colourDistance(p.Body, s.Table) < 60 {
			p = Palettes[rng.IntN(len(Palettes))]
		}
		d := Die{
			Face:        1 + rng.IntN(6),
			One:         o.Stars[rng.IntN(len(o.Stars))],
			Colour:      p.Body,
			PipColour:   p.Pips,
			Translucent: rng.Float64() < 0.15,
		}
		if o.StarShare > 0 {
			if rng.Float64() < o.StarShare {
				d.Face = 1
			} else {
				d.Face = 2 + rng.IntN(5)
			}
		}
		// Drawn only when asked for, so that scenes without cocked dice
		// stay as they were.
		if o.Cocked > 0 && rng.Float64() < o.Cocked {
			d.Tilt = 20 + 40*rng.Float64()
		}
		if o.Marbled > 0 && marbles.Float64() < o.Marbled {
			marble(&d, marbles)
		}
		if o.Glossy > 0 && gloss.Float64() < o.Glossy {
			d.Glints = true
			if t := Tints[gloss.IntN(len(Tints))]; gloss.Float64() < 0.5 && colourDistance(t.Body, s.Table) >= 60 {
				d.Colour, d.PipColour, d.Translucent = t.Body, t.Pips, true
			}
		}
		dice[i] = d
	}
	applyKnobs(&s, dice, o, seed)
	if s.tilted() {
		dice = placeTilted(s, dice, seed)
	} else {
		margin := s.DieSize
		region := Rect{margin, margin, float64(s.Width) - 2*margin, float64(s.Height) - 2*margin}
		for gap := s.DieSize * 0.3; gap >= 0; gap -= s.DieSize * 0.1 {
			if Place(dice, region, s.DieSize, math.Max(gap, 0), seed) == nil {
				break
			}
		}
	}
	s.Dice = dice
	if o.Clutter > 0 {
		s.Clutter = randomClutter(s, o.Clutter, seed)
	}
	return s
}

func colourDistance(a, b color.RGBA) float64 {
	dr := float64(a.R) - float64(b.R)
	dg := float64(a.G) - float64(b.G)
	db := float64(a.B) - float64(b.B)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}
