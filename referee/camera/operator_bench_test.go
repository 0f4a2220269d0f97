package camera_test

import (
	"testing"

	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/demo"
)

// BenchmarkFrameJPEG measures what keeping a read's frame for the operator
// page adds to each camera read: encoding the demo camera's 1280x800
// frame of 20 dice as JPEG (quality 80).
func BenchmarkFrameJPEG(b *testing.B) {
	names := []string{"ann", "bob", "cy", "dee"}
	table := demo.NewTable(1)
	table.Roll(map[string]int{"ann": 5, "bob": 5, "cy": 5, "dee": 5}, 6)
	cam := demo.NewCamera(table, demo.Layout{Width: 1280, Height: 800, DieSize: 44, Seats: names}, false, 1)
	defer cam.Close()
	img, err := cam.Capture()
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	var size int
	b.ResetTimer()
	for range b.N {
		jpeg := camera.FrameJPEG(img)
		size = len(jpeg)
	}
	b.ReportMetric(float64(size)/1024, "KiB")
}
