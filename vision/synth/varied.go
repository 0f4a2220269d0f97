package synth

import (
	"image/color"
	"math"
	"math/rand/v2"

	"github.com/liarsd/liarsd/vision"
)

// truthDie is what a perfect reader reports of d seen at (x, y), size
// pixels across.
func truthDie(d Die, x, y, size float64) vision.Die {
	return vision.Die{Face: d.Face, Star: d.Face == 1 && d.One != Pip, X: x, Y: y, Size: size, Confidence: 1}
}

// Streams of Random's knobs: each draws from its own, so that a scene is
// the same with a knob off as it was before the knob existed.
const (
	streamSurface = 0x5f0 + iota
	streamColour
	streamStyle
	streamSize
	streamCamera
	streamPlace
	streamClutter
)

// freeColour gives d a body of any hue, light or dark, and pips that
// stand out on it, keeping it off the table's colour.
func freeColour(d *Die, table color.RGBA, rng *rand.Rand) {
	for try := 0; try < 20; try++ {
		body := hsv(rng.Float64()*360, rng.Float64(), 0.12+0.88*rng.Float64())
		if colourDistance(body, table) < 70 {
			continue
		}
		var pips color.RGBA
		if luma(body) > 120 {
			pips = []color.RGBA{rgb(15, 15, 15), rgb(20, 30, 110), rgb(170, 20, 25), rgb(30, 30, 30)}[rng.IntN(4)]
		} else {
			pips = []color.RGBA{rgb(250, 250, 250), rgb(240, 230, 200), rgb(230, 190, 60), rgb(240, 240, 240)}[rng.IntN(4)]
		}
		if colourDistance(body, pips) < 150 {
			continue
		}
		d.Colour, d.PipColour = body, pips
		return
	}
}

// style gives d its own make: sharp or rounded corners, small or large
// pips, and now and then the casino die, translucent and sharp-cornered
// with flush painted white pips.
func style(d *Die, table color.RGBA, rng *rand.Rand) {
	if rng.Float64() < 0.15 {
		casino := []color.RGBA{rgb(190, 20, 30), rgb(20, 120, 60), rgb(30, 60, 170), rgb(110, 30, 130)}
		if c := casino[rng.IntN(len(casino))]; colourDistance(c, table) >= 60 {
			d.Colour, d.PipColour, d.Translucent = c, rgb(250, 250, 250), true
			d.Swirl = color.RGBA{}
			d.Corner, d.PipScale = 0.02+0.02*rng.Float64(), 0.9+0.2*rng.Float64()
			return
		}
	}
	d.Corner = 0.04 + 0.18*rng.Float64()
	d.PipScale = 0.7 + 0.65*rng.Float64()
}

// applyKnobs applies Random's newer knobs to the scene it drew: the
// surface, free colours, makes, sizes, the camera, clutter. Each draws
// from a stream of its own.
func applyKnobs(s *Scene, dice []Die, o RandomOptions, seed uint64) {
	stream := func(k uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xab0000+k)) }
	if len(o.Surfaces) > 0 {
		rng := stream(streamSurface)
		s.Surface = o.Surfaces[rng.IntN(len(o.Surfaces))]
		if s.Surface != Felt {
			s.Table = surfaceColour(s.Surface, rng)
			s.Texture = 0.2 + 0.6*rng.Float64()
			// Keep the dice off the new table's colour.
			for i := range dice {
				for try := 0; try < 20 && colourDistance(dice[i].Colour, s.Table) < 60; try++ {
					p := Palettes[rng.IntN(len(Palettes))]
					dice[i].Colour, dice[i].PipColour, dice[i].Translucent = p.Body, p.Pips, false
				}
			}
		}
	}
	if o.AnyColour > 0 {
		rng := stream(streamColour)
		for i := range dice {
			if rng.Float64() < o.AnyColour {
				freeColour(&dice[i], s.Table, rng)
			}
		}
	}
	if o.Styles > 0 {
		rng := stream(streamStyle)
		for i := range dice {
			if rng.Float64() < o.Styles {
				style(&dice[i], s.Table, rng)
			}
		}
	}
	if o.SizeSpread > 0 {
		rng := stream(streamSize)
		for i := range dice {
			dice[i].Size = s.DieSize * (1 + o.SizeSpread*(2*rng.Float64()-1))
		}
	}
	if o.MaxCameraTilt > 0 {
		rng := stream(streamCamera)
		s.CameraTilt = math.Min(o.MaxCameraTilt, 50) * rng.Float64()
		s.CameraTurn = 360 * rng.Float64()
		s.Lens = 0.75 + 0.55*rng.Float64()
		s.Perspective = 0
	}
}

// placeTilted places the dice where the tilted camera sees all of each
// inside the image, no die's outline overlapping another's, at any turn;
// it returns the dice that fit.
func placeTilted(s Scene, dice []Die, seed uint64) []Die {
	rng := rand.New(rand.NewPCG(seed, 0xab0000+streamPlace))
	cam := newCamera(s)
	margin := 0.015 * math.Min(cam.w, cam.h)
	type placed struct{ outline []pt }
	var done []placed
	var kept []Die
	for _, d := range dice {
		for try := 0; try < 200; try++ {
			x, y := cam.unproject(margin+rng.Float64()*(cam.w-2*margin), margin+rng.Float64()*(cam.h-2*margin))
			d.X, d.Y = x, y
			if s.Units == Millimetres {
				d.X, d.Y = x/s.pxPerMM(), y/s.pxPerMM()
			}
			d.Rotation = 360 * rng.Float64()
			outline, top := silhouette(cam, s, d)
			b := boxOf(outline)
			if b.MinX < margin || b.MinY < margin || b.MaxX > cam.w-margin || b.MaxY > cam.h-margin {
				continue
			}
			gap := math.Sqrt(area(top)) * 0.15
			ok := true
			for _, p := range done {
				if overlap(p.outline, outline, gap) {
					ok = false
					break
				}
			}
			if ok {
				done = append(done, placed{outline})
				kept = append(kept, d)
				break
			}
		}
	}
	return kept
}

// randomClutter draws about mean things (a Poisson count) where the image
// shows the table, partly out of view now and then.
func randomClutter(s Scene, mean float64, seed uint64) []Thing {
	rng := rand.New(rand.NewPCG(seed, 0xab0000+streamClutter))
	// Knuth's Poisson draw.
	n, p, limit := 0, rng.Float64(), math.Exp(-mean)
	for p > limit && n < 8 {
		n++
		p *= rng.Float64()
	}
	weights := map[Kind]float64{Keyboard: 3, Cable: 3, Coin: 2, Pen: 1.5, Card: 1.5, Phone: 1, Sheet: 1, Stickers: 1.5, Note: 1}
	total := 0.0
	for _, k := range Kinds {
		total += weights[k]
	}
	w, h := float64(s.Width), float64(s.Height)
	var cam *camera
	if s.tilted() {
		c := newCamera(s)
		cam = &c
	}
	things := make([]Thing, 0, n)
	keyboards := 0
	for i := 0; i < n; i++ {
		r := rng.Float64() * total
		kind := Kinds[len(Kinds)-1]
		for _, k := range Kinds {
			if r < weights[k] {
				kind = k
				break
			}
			r -= weights[k]
		}
		if kind == Keyboard {
			if keyboards++; keyboards > 1 {
				kind = Cable // one keyboard to a desk
			}
		}
		t := Thing{Kind: kind, Rotation: 360 * rng.Float64(), Seed: rng.Uint64()}
		t.Size = usualSize[kind] * s.mmPer() * (0.85 + 0.3*rng.Float64())
		// Dice lie beside a keyboard, a phone or a pen more often than on
		// them: try for a place clear of them, and now and then keep one
		// that is not.
		clear := rng.Float64() < 0.8
		for try := 0; try < 30; try++ {
			x, y := w*(-0.1+1.2*rng.Float64()), h*(-0.1+1.2*rng.Float64())
			if cam != nil {
				x, y = cam.unproject(x, y)
			}
			t.X, t.Y = x, y
			if !clear || !covers(s, t) {
				break
			}
		}
		if s.Units == Millimetres {
			t.X, t.Y, t.Size = t.X/s.pxPerMM(), t.Y/s.pxPerMM(), t.Size/s.pxPerMM()
		}
		things = append(things, t)
		if kind == Coin {
			// Coins come in handfuls.
			for c := rng.IntN(4); c > 0; c-- {
				d := t
				d.X += (rng.Float64() - 0.5) * t.Size * 4
				d.Y += (rng.Float64() - 0.5) * t.Size * 4
				d.Seed = rng.Uint64()
				things = append(things, d)
			}
		}
	}
	return things
}

// covers reports whether a raised thing (a keyboard, a phone, a pen)
// would lie under one of the scene's dice; t is in table units.
func covers(s Scene, t Thing) bool {
	var hw, hh float64
	switch t.Kind {
	case Keyboard:
		hw, hh = t.Size/2, t.Size*6.9/16/2
	case Phone:
		hw, hh = t.Size*0.48/2, t.Size/2
	case Pen:
		hw, hh = t.Size/2, t.Size*0.06
	default:
		return false
	}
	ca, sa := math.Cos(t.Rotation*math.Pi/180), math.Sin(t.Rotation*math.Pi/180)
	for _, d := range s.Dice {
		dx, dy := s.px(d.X)-t.X, s.px(d.Y)-t.Y
		lx, ly := dx*ca+dy*sa, -dx*sa+dy*ca
		m := s.dieSide(d)
		if math.Abs(lx) < hw+m && math.Abs(ly) < hh+m {
			return true
		}
	}
	return false
}

// wild makes a varied scene's colours as wild as real tables' in about
// half the scenes: felt of any hue (magenta, yellow, orange, teal), and
// dice of any bright colour on it with pips that stand out, as real
// dice trays and dice sets are; in a tenth of all scenes the dice are
// larger (64 to 110 px), as a phone or webcam near the table sees them.
// It draws from a stream of its own.
func wild(s *Scene, rng *rand.Rand) {
	if s.Surface == Felt && rng.Float64() < 0.5 {
		s.Table = hsv(rng.Float64()*360, 0.35+0.6*rng.Float64(), 0.3+0.65*rng.Float64())
		share := rng.Float64()
		for i := range s.Dice {
			if rng.Float64() < share || colourDistance(s.Dice[i].Colour, s.Table) < 70 {
				freeColour(&s.Dice[i], s.Table, rng)
			}
		}
	}
	if rng.Float64() < 0.1 && !s.tilted() && s.Units == Pixels {
		// Larger dice: as many as fit, placed again.
		size := 64 + 46*rng.Float64()
		n := min(len(s.Dice), max(1, int(0.25*float64(s.Width*s.Height)/(size*size*2.2))))
		dice := s.Dice[:n]
		for i := range dice {
			dice[i].Size = size * (0.9 + 0.2*rng.Float64())
		}
		if Place(dice, Rect{W: float64(s.Width), H: float64(s.Height)}, size, 0.3*size, rng.Uint64()) == nil {
			s.DieSize, s.Dice = size, dice
		}
	}
}

// Varied returns a random scene for training a reader that must work on
// photographs it never saw: any image size from 640x480 to 1280x720 (w
// and h, when above 0, fix it), 6 to 40 dice of 14 to 64 px (per scene,
// spread), the camera tilted 0 to 45 degrees in about half the scenes,
// every surface, clutter in half, star dice in half (all three
// artworks), free colours and makes, marbled, glossy, translucent and
// casino dice, a few cocked or half-hidden ones, blur, noise, glare, and
// a JPEG's loss in about half (quality 35 to 90). All from seed.
func Varied(seed uint64, w, h int) Scene {
	rng := rand.New(rand.NewPCG(seed, 0xa1ed))
	if w <= 0 || h <= 0 {
		sizes := [][2]int{{640, 480}, {800, 600}, {960, 540}, {1024, 576}, {1280, 720}, {720, 540}, {854, 480}}
		sz := sizes[rng.IntN(len(sizes))]
		w, h = sz[0], sz[1]
	}
	o := RandomOptions{
		Width: w, Height: h,
		DieSize:    14 + 50*rng.Float64(),
		SizeSpread: 0.2 * rng.Float64(),
		Surfaces:   Surfaces,
		AnyColour:  0.5 * rng.Float64(),
		Styles:     0.5 * rng.Float64(),
		Cocked:     0.04,
		Marbled:    0.25 * rng.Float64(),
		Glossy:     0.3 * rng.Float64(),
	}
	if rng.Float64() < 0.5 {
		o.MaxCameraTilt = 50
	}
	if rng.Float64() < 0.5 {
		o.Clutter = 1 + 3*rng.Float64()
	}
	if rng.Float64() < 0.5 {
		o.Stars = []Artwork{Pip}
	} else {
		o.Stars = [][]Artwork{Stars, {FilledStar}, {OutlinedStar}, {ShipsWheel}}[rng.IntN(4)]
		if rng.Float64() < 0.5 {
			o.StarShare = 0.25
		}
	}
	// As many dice as the table holds with room between them.
	fit := int(0.3 * float64(w*h) / math.Pow(o.DieSize*(1+o.SizeSpread)*1.5, 2))
	o.Dice = max(1, min(6+rng.IntN(35), fit))
	s := Random(seed, o)
	wild(&s, rand.New(rand.NewPCG(seed, 0xa1ed02)))
	hidden := rand.New(rand.NewPCG(seed, 0xa1ed01))
	for i := range s.Dice {
		if hidden.Float64() < 0.03 {
			s.Dice[i].Hidden = 0.25 + 0.35*hidden.Float64()
		}
	}
	s.Blur = 0.2 + 1.2*rng.Float64()
	s.Noise = 1 + 7*rng.Float64()
	s.Light.Glare = 0.4 * rng.Float64()
	s.Light.Gradient = 0.5 * rng.Float64()
	s.Light.Vignette = 0.4 * rng.Float64()
	if rng.Float64() < 0.5 {
		s.JPEGQuality = 35 + rng.IntN(56)
		if rng.Float64() < 0.5 {
			s.JPEGScale = 0.6 + 0.35*rng.Float64()
		}
	}
	return s
}
