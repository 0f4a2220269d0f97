// Package demo plays a table on its own: computer-driven seats roll real
// (seeded) dice, a synthetic camera renders them into images at each
// reveal, and the referee reads them with the real vision reader, lights a
// simulated board and publishes on MQTT, exactly as at a real table.
//
// The seats' dice live in Table, the physical table (refereetest.Table). Nothing here prints or
// publishes a die before its reveal: the narrator works from the referee's
// events and accepted inputs only.
package demo

import (
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/refereetest"
	"github.com/liarsd/liarsd/vision/synth"
)

// Table is the physical table: each seat's dice as they lie.
type Table = refereetest.Table

// NewTable returns an empty table whose dice roll from seed.
func NewTable(seed uint64) *Table { return refereetest.NewTable(seed) }

// Layout places seats around the image, each with a region where its dice
// lie.
type Layout struct {
	Width, Height int
	DieSize       float64
	Seats         []string
}

// Positions returns each seat's centre, on an ellipse around the image.
func (l Layout) Positions() []camera.SeatPosition {
	n := len(l.Seats)
	cx, cy := float64(l.Width)/2, float64(l.Height)/2
	rx, ry := cx-l.regionW()/2-l.DieSize*0.5, cy-l.regionH()/2-l.DieSize*0.5
	pos := make([]camera.SeatPosition, n)
	for i, s := range l.Seats {
		a := math.Pi/2 + 2*math.Pi*float64(i)/float64(n)
		pos[i] = camera.SeatPosition{Name: s, X: math.Round(cx + rx*math.Cos(a)), Y: math.Round(cy + ry*math.Sin(a))}
	}
	return pos
}

func (l Layout) regionW() float64 { return l.DieSize * 5.6 }
func (l Layout) regionH() float64 { return l.DieSize * 3.9 }

// Camera is the demo's synthetic camera: each capture renders the dice on
// the physical table in front of their seats. Rendering a frame takes far
// longer than a real camera takes to give one, so Warm renders the table's
// current state ahead, the way a video camera always has its latest frame
// ready; a second capture of the same state renders afresh (new noise, new
// placement), like a camera capturing again.
type Camera struct {
	table  *Table
	layout Layout
	star   bool
	seed   uint64
	// Doubt is the share of lies of the dice (0 to 1) in which one die is
	// hidden from the camera (under a glass, behind a hand): the read
	// then needs a look, for the operator page to fix. The same lie
	// hides the same die at every capture, as a real obstruction would.
	Doubt float64

	mu      sync.Mutex
	frame   uint64
	cached  *gocv.Mat
	key     string
	used    bool // the cached frame was given once
	warming bool
	again   bool
}

// NewCamera returns a camera over t laid out as l; star draws 1 faces as
// the board game's star.
func NewCamera(t *Table, l Layout, star bool, seed uint64) *Camera {
	return &Camera{table: t, layout: l, star: star, seed: seed}
}

// Capture gives the table as it lies now.
func (c *Camera) Capture() (gocv.Mat, error) {
	all := c.table.All()
	key := fmt.Sprint(all)
	c.mu.Lock()
	if c.cached != nil && c.key == key && !c.used {
		c.used = true
		img := c.cached.Clone()
		c.mu.Unlock()
		return img, nil
	}
	c.frame++
	frame := c.frame
	c.mu.Unlock()
	return c.render(all, frame)
}

// Warm renders the table's current state in the background, unless it is
// the frame already cached.
func (c *Camera) Warm() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warming {
		c.again = true
		return
	}
	c.warming = true
	go c.warm()
}

func (c *Camera) warm() {
	for {
		all := c.table.All()
		key := fmt.Sprint(all)
		c.mu.Lock()
		fresh := c.cached != nil && c.key == key
		c.frame++
		frame := c.frame
		c.mu.Unlock()
		if !fresh {
			if img, err := c.render(all, frame); err == nil {
				c.mu.Lock()
				if c.cached != nil {
					c.cached.Close()
				}
				c.cached, c.key, c.used = &img, key, false
				c.mu.Unlock()
			}
		}
		c.mu.Lock()
		if !c.again {
			c.warming = false
			c.mu.Unlock()
			return
		}
		c.again = false
		c.mu.Unlock()
	}
}

// Prerender renders the table's current state now and keeps it for the
// next capture, as Warm does in the background.
func (c *Camera) Prerender() error {
	all := c.table.All()
	c.mu.Lock()
	c.frame++
	frame := c.frame
	c.mu.Unlock()
	img, err := c.render(all, frame)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cached != nil {
		c.cached.Close()
	}
	c.cached, c.key, c.used = &img, fmt.Sprint(all), false
	return nil
}

// Close releases the cached frame.
func (c *Camera) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cached != nil {
		c.cached.Close()
		c.cached = nil
	}
	return nil
}

func (c *Camera) render(all map[string][]int, frame uint64) (gocv.Mat, error) {
	rng := rand.New(rand.NewPCG(c.seed, frame))
	scene := synth.Scene{
		Width: c.layout.Width, Height: c.layout.Height, DieSize: c.layout.DieSize,
		Table: synth.Tables[0],
		Light: synth.Lighting{Gradient: 0.15, Angle: 30, Vignette: 0.1, Shadow: 0.4, Glare: 0.05},
		Blur:  0.5, Noise: 2, Seed: c.seed + frame,
	}
	one := synth.Pip
	if c.star {
		one = synth.FilledStar
	}
	hideSeat, hideDie := c.hidden(all)
	for i, p := range c.layout.Positions() {
		faces := all[p.Name]
		if p.Name == hideSeat {
			faces = slices.Delete(slices.Clone(faces), hideDie, hideDie+1)
		}
		if len(faces) == 0 {
			continue
		}
		pal := synth.Palettes[i%len(synth.Palettes)]
		if pal.Body == synth.Palettes[5].Body || dark(pal.Body) {
			// Green dice vanish on the green felt, and black ones in its
			// shadowed edges: on 30 frames the reader missed 18 of 150 black
			// dice there, and 4 of 450 dice of the other colours.
			pal = synth.Palettes[0]
		}
		ds := make([]synth.Die, len(faces))
		for k, f := range faces {
			ds[k] = synth.Die{Face: f, One: one, Colour: pal.Body, PipColour: pal.Pips}
		}
		w, h := c.layout.regionW(), c.layout.regionH()
		region := synth.Rect{X: p.X - w/2, Y: p.Y - h/2, W: w, H: h}
		placed := false
		for gap := c.layout.DieSize * 0.35; gap >= 0 && !placed; gap -= c.layout.DieSize * 0.1 {
			placed = synth.Place(ds, region, c.layout.DieSize, math.Max(gap, 0), rng.Uint64()) == nil
		}
		if !placed {
			// Too many dice for the region: a tidy grid instead.
			grid(ds, region, c.layout.DieSize)
		}
		scene.Dice = append(scene.Dice, ds...)
	}
	img, _, err := synth.Render(scene)
	return img, err
}

// hidden picks the die that this lie of the dice hides from the camera
// (Doubt of the lies): its seat and index, or "" when none is hidden. It
// depends only on the dice and the seed, so captures again hide it again.
func (c *Camera) hidden(all map[string][]int) (string, int) {
	if c.Doubt <= 0 {
		return "", 0
	}
	h := fnv.New64a()
	fmt.Fprint(h, c.seed, all)
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x6f70))
	if rng.Float64() >= c.Doubt {
		return "", 0
	}
	total := 0
	for _, p := range c.layout.Positions() {
		total += len(all[p.Name])
	}
	if total == 0 {
		return "", 0
	}
	k := rng.IntN(total)
	for _, p := range c.layout.Positions() {
		if n := len(all[p.Name]); k < n {
			return p.Name, k
		} else {
			k -= n
		}
	}
	return "", 0
}

// grid lays dice out in rows inside region.
func grid(ds []synth.Die, region synth.Rect, size float64) {
	step := size * 1.5
	perRow := max(1, int(region.W/step))
	for i := range ds {
		ds[i].Rotation = 0
		ds[i].X = region.X + step/2 + float64(i%perRow)*step
		ds[i].Y = region.Y + step/2 + float64(i/perRow)*step
	}
}

// imageSize is the demo camera's frame.
var imageSize = image.Point{X: 1280, Y: 800}

// dark reports whether a die's body is near black.
func dark(c color.RGBA) bool { return int(c.R)+int(c.G)+int(c.B) < 150 }
