package main

import (
	"encoding/csv"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// photoView says how readbench shows each labelled photograph to the
// reader: resized by scale, and, with window above 0, as windows of that
// many px around each labelled die enlarged to windowSide px (the dice as
// a camera near the table sees them: a sixth of the frame from 256 px
// windows of the shared photographs).
type photoView struct {
	scale  float64
	window int
}

// windowSide is the side of an enlarged window.
const windowSide = 640

// String names the view for readbench's lines ("" for the photographs as
// they are).
func (v photoView) String() string {
	s := ""
	if v.scale != 1 && v.scale != 0 {
		s += fmt.Sprintf(", resized to %gx", v.scale)
	}
	if v.window > 0 {
		s += fmt.Sprintf(", %d px windows around each die enlarged to %d px", v.window, windowSide)
	}
	return s
}

// labelledImage is an image to read and the labels of its dice.
type labelledImage struct {
	img    gocv.Mat
	labels []vision.Label
}

// of returns the views of a photograph and its labels; the caller closes
// their images.
func (v photoView) of(photo gocv.Mat, labels []vision.Label) []labelledImage {
	img := photo.Clone()
	if v.scale != 1 && v.scale != 0 {
		interp := gocv.InterpolationArea
		if v.scale > 1 {
			interp = gocv.InterpolationLinear
		}
		small := gocv.NewMat()
		gocv.Resize(img, &small, image.Point{}, v.scale, v.scale, interp)
		img.Close()
		img = small
		scaled := make([]vision.Label, len(labels))
		for i, l := range labels {
			l.Box = vision.Box{MinX: l.Box.MinX * v.scale, MinY: l.Box.MinY * v.scale, MaxX: l.Box.MaxX * v.scale, MaxY: l.Box.MaxY * v.scale}
			scaled[i] = l
		}
		labels = scaled
	}
	if v.window <= 0 {
		return []labelledImage{{img, labels}}
	}
	defer img.Close()
	out := make([]labelledImage, 0, len(labels))
	for _, l := range labels {
		win := windowAround(img.Cols(), img.Rows(), (l.Box.MinX+l.Box.MaxX)/2, (l.Box.MinY+l.Box.MaxY)/2, v.window)
		crop := img.Region(win)
		big := gocv.NewMat()
		gocv.Resize(crop, &big, image.Pt(windowSide, windowSide), 0, 0, gocv.InterpolationLinear)
		crop.Close()
		out = append(out, labelledImage{big, labelsIn(labels, win, float64(windowSide)/float64(win.Dx()), float64(windowSide)/float64(win.Dy()))})
	}
	return out
}

// windowAround is the window of side px (at most the image) centred on
// (x, y), moved to lie inside a w x h image.
func windowAround(w, h int, x, y float64, side int) image.Rectangle {
	sw, sh := min(side, w), min(side, h)
	x0 := min(max(0, int(math.Round(x))-sw/2), w-sw)
	y0 := min(max(0, int(math.Round(y))-sh/2), h-sh)
	return image.Rect(x0, y0, x0+sw, y0+sh)
}

// labelsIn returns the labels of the dice at least half inside win, their
// boxes clipped to it, in the window's pixels enlarged by kx, ky: a die
// the window cuts more than that is no die to read.
func labelsIn(labels []vision.Label, win image.Rectangle, kx, ky float64) []vision.Label {
	var out []vision.Label
	for _, l := range labels {
		b := l.Box
		x0, y0 := math.Max(b.MinX, float64(win.Min.X)), math.Max(b.MinY, float64(win.Min.Y))
		x1, y1 := math.Min(b.MaxX, float64(win.Max.X)), math.Min(b.MaxY, float64(win.Max.Y))
		if x1 <= x0 || y1 <= y0 || (x1-x0)*(y1-y0) < 0.5*(b.MaxX-b.MinX)*(b.MaxY-b.MinY) {
			continue
		}
		ox, oy := float64(win.Min.X), float64(win.Min.Y)
		l.Box = vision.Box{MinX: (x0 - ox) * kx, MinY: (y0 - oy) * ky, MaxX: (x1 - ox) * kx, MaxY: (y1 - oy) * ky}
		out = append(out, l)
	}
	return out
}

// stemHoldout returns, for a photograph folder with a groups.csv (the
// Rune55 photographs, which hold each photograph several times), whether
// each image is held out as the recipe holds it out: by upstream stem,
// every fifth of the sorted stems. It returns nil for a folder without
// one.
func stemHoldout(dir string) (map[string]bool, error) {
	f, err := os.Open(filepath.Join(dir, "groups.csv"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if len(rows) == 0 || len(rows[0]) < 3 || rows[0][0] != "image" {
		return nil, fmt.Errorf("%s: want a header image,subset,source_stem", f.Name())
	}
	stem := map[string]string{}
	set := map[string]bool{}
	for _, r := range rows[1:] {
		if len(r) < 3 {
			continue
		}
		stem[r[0]] = r[1] + "/" + r[2]
		set[r[1]+"/"+r[2]] = true
	}
	stems := make([]string, 0, len(set))
	for s := range set {
		stems = append(stems, s)
	}
	sort.Strings(stems)
	held := map[string]bool{}
	for i, s := range stems {
		held[s] = heldOut(i)
	}
	out := make(map[string]bool, len(stem))
	for img, s := range stem {
		out[img] = held[s]
	}
	return out, nil
}
