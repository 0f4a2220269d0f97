package synth_test

import (
	"fmt"

	"github.com/liarsd/liarsd/vision/synth"
)

// Laying out a reveal: each seat's dice placed in front of it, rendered
// with the truth a perfect reader reports.
func ExamplePlace() {
	p := synth.Palettes[3] // black dice, white pips
	seat := []synth.Die{
		{Face: 1, One: synth.ShipsWheel, Colour: p.Body, PipColour: p.Pips},
		{Face: 4, Colour: p.Body, PipColour: p.Pips},
		{Face: 6, Colour: p.Body, PipColour: p.Pips},
	}
	if err := synth.Place(seat, synth.Rect{X: 40, Y: 40, W: 300, H: 120}, 48, 12, 7); err != nil {
		fmt.Println(err)
		return
	}
	img, truth, err := synth.Render(synth.Scene{Width: 400, Height: 220, Table: synth.Tables[0], Seed: 7, Dice: seat})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer img.Close()
	for _, d := range truth {
		fmt.Println(d.Face, d.Star)
	}
	// Output:
	// 1 true
	// 4 false
	// 6 false
}

// A synthetic camera for tests and the demo: each capture renders the
// next random table, and Truth says what a perfect reader reports of it.
func ExampleNewRandomSource() {
	src := synth.NewRandomSource(7, synth.RandomOptions{Width: 640, Height: 360, Dice: 12, DieSize: 44, StarShare: 1.0 / 3})
	defer src.Close()
	for range 2 {
		img, err := src.Capture()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(img.Cols(), img.Rows(), len(src.Truth()))
		img.Close()
	}
	src.Close()
	_, err := src.Capture()
	fmt.Println(err)
	// Output:
	// 640 360 12
	// 640 360 12
	// vision: source closed
}
