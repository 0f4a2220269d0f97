package vision_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gocv.io/x/gocv"

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
	// A calibrated table knows its dice's size (extent, in pixels).
	r, err := vision.NewReader(vision.Options{DieSize: 56})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	dice, err := r.Read(img)
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

// Reading a folder of images as a camera: a source gives each image in
// name order, starting over after the last. Open takes the same specs as
// a table's configuration: "dir:PATH", "file:PATH", "v4l2:/dev/video0",
// "gst:PIPELINE", or a path.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "frames")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for i, faces := range [][]int{{3, 5}, {6, 2, 4}} {
		p := synth.Palettes[0]
		var dice []synth.Die
		for _, f := range faces {
			dice = append(dice, synth.Die{Face: f, Colour: p.Body, PipColour: p.Pips})
		}
		if err := synth.Place(dice, synth.Rect{X: 40, Y: 40, W: 560, H: 400}, 48, 12, uint64(i+1)); err != nil {
			fmt.Println(err)
			return
		}
		img, _, err := synth.Render(synth.Scene{Width: 640, Height: 480, Table: synth.Tables[0], Seed: uint64(i + 1), Dice: dice})
		if err != nil {
			fmt.Println(err)
			return
		}
		gocv.IMWrite(filepath.Join(dir, fmt.Sprintf("frame-%d.png", i+1)), img)
		img.Close()
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image: skipped"), 0o644)

	src, err := vision.Open("dir:" + dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	r, err := vision.NewReader(vision.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for range 3 {
		img, err := src.Capture()
		if err != nil {
			fmt.Println(err)
			return
		}
		dice, err := r.Read(img)
		img.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		var faces []int
		for _, d := range dice {
			faces = append(faces, d.Face)
		}
		slices.Sort(faces)
		fmt.Println(faces)
	}
	// Output:
	// [3 5]
	// [2 4 6]
	// [3 5]
}

// A truncated file is a clear error, not a half-grey image read as if it
// were whole (OpenCV's own decoder would fill the missing part).
func ExampleDecodeImage() {
	img, _, err := synth.Render(synth.Scene{Width: 320, Height: 240, Table: synth.Tables[0]})
	if err != nil {
		fmt.Println(err)
		return
	}
	buf, err := gocv.IMEncode(gocv.JPEGFileExt, img)
	img.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Close()
	whole := buf.GetBytes()
	for _, data := range [][]byte{whole, whole[:len(whole)/2]} {
		m, err := vision.DecodeImage(data, "table.jpg")
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(m.Cols(), "x", m.Rows())
		m.Close()
	}
	// Output:
	// 320 x 240
	// vision: table.jpg: truncated JPEG: the data ends before the image does
}

// A camera looking up through a glass board sees the dice's bottoms: the
// reader then reports each top face, 7 minus the bottom.
func ExampleParseView() {
	for _, s := range []string{"top", "bottom", "sideways"} {
		v, err := vision.ParseView(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(v, vision.Options{View: v}.View == vision.ViewBottom)
	}
	// Output:
	// top false
	// bottom true
	// vision: unknown view "sideways" (want top or bottom)
}

// A die as logs and test messages show it.
func ExampleDie_String() {
	fmt.Println(vision.Die{Face: 1, Star: true, X: 120, Y: 80, Size: 48, Confidence: 0.97})
	fmt.Println(vision.Die{Face: 4, X: 300, Y: 82, Size: 47, Confidence: 0.41, Uncertain: true})
	// Output:
	// star@(120,80) size 48 conf 0.97
	// 4@(300,82) size 47 conf 0.41 uncertain
}

// A missing camera is an error wrapping ErrNoCamera, never a panic.
func ExampleOpenV4L2() {
	_, err := vision.OpenV4L2("/dev/video-not-there", 1280, 720)
	fmt.Println(errors.Is(err, vision.ErrNoCamera))
	// Output: true
}
