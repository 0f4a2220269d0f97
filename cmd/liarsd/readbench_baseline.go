package main

import (
	"math"

	"gocv.io/x/gocv"
)

// baselineRead is the yardstick readbench times the reader against: the
// plain OpenCV dice reader the tutorials write. It finds the pips with
// OpenCV's SimpleBlobDetector (which thresholds the grey image at levels
// 10 to 220 a step of 10 apart and keeps the round contours found at
// several), then groups pips closer than a die into dice and counts each
// group. It reads badly (a swirl is a pip, two touching dice are one); it
// only sets the pace. It returns the dice it counted, so the work cannot
// be optimised away.
func baselineRead(img gocv.Mat) []int {
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(img, &gray, gocv.ColorBGRToGray)
	gocv.MedianBlur(gray, &gray, 3)
	params := gocv.NewSimpleBlobDetectorParams()
	params.SetFilterByColor(false)
	params.SetFilterByArea(true)
	params.SetMinArea(6)
	params.SetMaxArea(400)
	params.SetFilterByCircularity(true)
	params.SetMinCircularity(0.6)
	params.SetFilterByInertia(true)
	params.SetMinInertiaRatio(0.4)
	detector := gocv.NewSimpleBlobDetectorWithParams(params)
	defer detector.Close()
	pips := detector.Detect(gray)
	// Pips within three pip diameters of each other are one die's.
	group := make([]int, len(pips))
	for i := range group {
		group[i] = i
	}
	root := func(i int) int {
		for group[i] != i {
			group[i] = group[group[i]]
			i = group[i]
		}
		return i
	}
	for i := range pips {
		for j := i + 1; j < len(pips); j++ {
			reach := 1.5 * (pips[i].Size + pips[j].Size)
			if math.Hypot(pips[i].X-pips[j].X, pips[i].Y-pips[j].Y) < reach {
				group[root(i)] = root(j)
			}
		}
	}
	counts := map[int]int{}
	for i := range pips {
		counts[root(i)]++
	}
	dice := make([]int, 0, len(counts))
	for _, n := range counts {
		dice = append(dice, n)
	}
	return dice
}
