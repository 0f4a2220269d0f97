package vision_test

import (
	"fmt"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// Reading the dice of a reveal: two players' dice in front of their seats,
// rendered by the synthetic table and read back by the real reader.
func Example() {
	p := synth.Palettes[0]
	alice := []synth.Die{{Face: 2}, {Face: 5}, {Face: 1, One: synth.FilledStar}}
	bob := []synth.Die{{Face: 6}, {Face: 3}}
	for _, seat := range []struct {
		dice   []synth.Die
		region synth.Rect
	}{{alice, synth.Rect{X: 20, Y: 20, W: 280, H: 140}}, {bob, synth.Rect{X: 340, Y: 200, W: 280, H: 140}}} {
		for i := range seat.dice {
			seat.dice[i].Colour, seat.dice[i].PipColour = p.Body, p.Pips
		}
		if err := synth.Place(seat.dice, seat.region, 48, 10, 1); err != nil {
			fmt.Println(err)
			return
		}
	}
	scene := synth.Scene{Width: 640, Height: 360, Table: synth.Tables[0], Texture: 0.4, Seed: 1,
		Light: synth.Lighting{Shadow: 0.5}, Dice: append(alice, bob...)}
	img, _, err := synth.Render(scene)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer img.Close()
	dice, err := vision.NewReader(vision.Options{}).Read(img)
	if err != nil {
		fmt.Println(err)
		return
	}
	counts := map[string]int{}
	for _, d := range dice {
		switch {
		case d.Uncertain:
			counts["uncertain"]++
		case d.Star:
			counts["star"]++
		default:
			counts[fmt.Sprint(d.Face)]++
		}
	}
	fmt.Println(len(dice), "dice:", counts)
	// Output: 5 dice: map[2:1 3:1 5:1 6:1 star:1]
}
