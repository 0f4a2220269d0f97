package vision_test

import (
	"github.com/liarsd/liarsd/vision"
)

// labels turns a synthetic scene's truth into labels with boxes.
func labels(truth []vision.Die) []vision.Label {
	out := make([]vision.Label, 0, len(truth))
	for _, d := range truth {
		h := d.Size / 2
		out = append(out, vision.Label{Face: d.Face, Star: d.Star,
			Box: vision.Box{MinX: d.X - h, MinY: d.Y - h, MaxX: d.X + h, MaxY: d.Y + h}})
	}
	return out
}
