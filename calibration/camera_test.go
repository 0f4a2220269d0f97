package calibration

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// fakeCamera is a V4L2 camera as OpenCV shows it: the controls it has
// hold values, one it lacks reads -1 and ignores a Set; max clamps a
// control as a driver does.
type fakeCamera struct {
	values map[gocv.VideoCaptureProperties]float64
	max    map[gocv.VideoCaptureProperties]float64
	sets   map[gocv.VideoCaptureProperties]float64
}

func newFakeCamera(values map[gocv.VideoCaptureProperties]float64) *fakeCamera {
	return &fakeCamera{values: values, max: map[gocv.VideoCaptureProperties]float64{}, sets: map[gocv.VideoCaptureProperties]float64{}}
}

func (c *fakeCamera) Get(p gocv.VideoCaptureProperties) float64 {
	if v, ok := c.values[p]; ok {
		return v
	}
	return -1
}

func (c *fakeCamera) Set(p gocv.VideoCaptureProperties, v float64) {
	c.sets[p] = v
	if _, ok := c.values[p]; !ok {
		return
	}
	if m, ok := c.max[p]; ok && v > m {
		v = m
	}
	c.values[p] = v
}

func ptr(v float64) *float64 { return &v }

func TestLockCamera(t *testing.T) {
	const (
		exposure = gocv.VideoCaptureExposure
		wb       = gocv.VideoCaptureWBTemperature
		focus    = gocv.VideoCaptureFocus
		autoExp  = gocv.VideoCaptureAutoExposure
		autoWB   = gocv.VideoCaptureAutoWB
		autoF    = gocv.VideoCaptureAutoFocus
	)
	full := func() map[gocv.VideoCaptureProperties]float64 {
		return map[gocv.VideoCaptureProperties]float64{exposure: 156, wb: 4600, focus: 30, autoExp: 3, autoWB: 1, autoF: 1}
	}
	noFocus := full()
	delete(noFocus, focus)
	delete(noFocus, autoF)
	tests := []struct {
		name   string
		camera map[gocv.VideoCaptureProperties]float64
		max    map[gocv.VideoCaptureProperties]float64
		want   Camera
		// locked: the settings the result holds (nil: left to the camera).
		exposure, wb, focus *float64
		// sets: every control set on the camera.
		sets map[gocv.VideoCaptureProperties]float64
	}{
		{
			name: "locked where they settled", camera: full(),
			exposure: ptr(156), wb: ptr(4600), focus: ptr(30),
			sets: map[gocv.VideoCaptureProperties]float64{autoExp: 1, exposure: 156, autoWB: 0, wb: 4600, autoF: 0, focus: 30},
		},
		{
			name: "a value named wins", camera: full(), want: Camera{Exposure: ptr(300), Width: 1280, Height: 720},
			exposure: ptr(300), wb: ptr(4600), focus: ptr(30),
			sets: map[gocv.VideoCaptureProperties]float64{gocv.VideoCaptureFrameWidth: 1280, gocv.VideoCaptureFrameHeight: 720,
				autoExp: 1, exposure: 300, autoWB: 0, wb: 4600, autoF: 0, focus: 30},
		},
		{
			name: "as the camera reports it", camera: full(), want: Camera{Exposure: ptr(5000)},
			max:      map[gocv.VideoCaptureProperties]float64{exposure: 2047},
			exposure: ptr(2047), wb: ptr(4600), focus: ptr(30),
			sets: map[gocv.VideoCaptureProperties]float64{autoExp: 1, exposure: 5000, autoWB: 0, wb: 4600, autoF: 0, focus: 30},
		},
		{
			name: "a fixed-focus camera", camera: noFocus,
			exposure: ptr(156), wb: ptr(4600), focus: nil,
			sets: map[gocv.VideoCaptureProperties]float64{autoExp: 1, exposure: 156, autoWB: 0, wb: 4600},
		},
	}
	str := func(v *float64) string {
		if v == nil {
			return "nil"
		}
		return fmt.Sprint(*v)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCamera(tt.camera)
			if tt.max != nil {
				c.max = tt.max
			}
			got := LockCamera(c, tt.want)
			for _, k := range []struct {
				name      string
				got, want *float64
			}{{"exposure", got.Exposure, tt.exposure}, {"white balance", got.WhiteBalance, tt.wb}, {"focus", got.Focus, tt.focus}} {
				if str(k.got) != str(k.want) {
					t.Errorf("%s: got %s; want %s", k.name, str(k.got), str(k.want))
				}
			}
			if !maps.Equal(c.sets, tt.sets) {
				t.Errorf("controls set: got %v; want %v", c.sets, tt.sets)
			}
			if got.Width != tt.want.Width || got.Height != tt.want.Height {
				t.Errorf("frame size: got %dx%d; want %dx%d", got.Width, got.Height, tt.want.Width, tt.want.Height)
			}
		})
	}
}

// TestCameraStep locks a camera without a focus control through the
// session, keeps the file's view, and the file reads back with what was
// locked (the control the camera lacks left out).
func TestCameraStep(t *testing.T) {
	c := newFakeCamera(map[gocv.VideoCaptureProperties]float64{
		gocv.VideoCaptureExposure: 156, gocv.VideoCaptureWBTemperature: 4600})
	f := &File{Version: Version, Camera: &Camera{View: "bottom", Exposure: ptr(10)}}
	var out strings.Builder
	s := &Session{File: f, In: bufio.NewReader(strings.NewReader("\n")), Out: &out}
	if err := s.Camera(c); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cal.json")
	if err := Save(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cam := got.Camera
	if cam.View != "bottom" || cam.Exposure == nil || *cam.Exposure != 156 || cam.WhiteBalance == nil || *cam.WhiteBalance != 4600 || cam.Focus != nil {
		t.Fatalf("after the camera step: %+v; want view bottom, exposure 156 (where it settled), white balance 4600, no focus", cam)
	}
	if want := "focus: the camera does not allow it"; !strings.Contains(out.String(), want) {
		t.Errorf("the step said %q; want it to say %q", out.String(), want)
	}
	// With nobody at the terminal the step locks all the same.
	s2 := &Session{File: &File{}, Out: io.Discard}
	if err := s2.Camera(newFakeCamera(map[gocv.VideoCaptureProperties]float64{gocv.VideoCaptureExposure: 80})); err != nil || s2.File.Camera == nil || *s2.File.Camera.Exposure != 80 {
		t.Fatalf("camera step without an installer: %v, %+v", err, s2.File.Camera)
	}
}
