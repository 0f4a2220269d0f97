package vision

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"gocv.io/x/gocv"
)

// Source gives camera frames. Capture returns a new BGR Mat the caller
// closes. Implementations are not safe for concurrent use.
type Source interface {
	Capture() (gocv.Mat, error)
	Close() error
}

// ErrClosed is returned by Capture on a closed Source.
var ErrClosed = errors.New("vision: source closed")

// ErrNoCamera wraps the error of a camera that cannot be opened or read.
var ErrNoCamera = errors.New("vision: camera not available")

// camera is a Source reading an OpenCV VideoCapture.
type camera struct {
	mu   sync.Mutex
	name string
	vc   *gocv.VideoCapture
}

// OpenV4L2 opens a V4L2 camera (a USB camera) by device path such as
// "/dev/video0" or by index, and sets the frame size when width and height
// are not zero. A missing camera gives an error wrapping ErrNoCamera.
func OpenV4L2(device string, width, height int) (Source, error) {
	var id any = device
	var idx int
	if _, err := fmt.Sscanf(device, "%d", &idx); err == nil && fmt.Sprint(idx) == device {
		id = idx
	} else if _, err := os.Stat(device); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoCamera, device, err)
	}
	vc, err := gocv.OpenVideoCaptureWithAPI(id, gocv.VideoCaptureV4L2)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoCamera, device, err)
	}
	if !vc.IsOpened() {
		vc.Close()
		return nil, fmt.Errorf("%w: %s: cannot open", ErrNoCamera, device)
	}
	if width > 0 && height > 0 {
		vc.Set(gocv.VideoCaptureFrameWidth, float64(width))
		vc.Set(gocv.VideoCaptureFrameHeight, float64(height))
	}
	return &v4l2Camera{camera{name: device, vc: vc}}, nil
}

// v4l2Camera is a V4L2 camera: a Source whose controls (exposure, white
// balance, focus) can be set, as calibration's Controller asks.
type v4l2Camera struct{ camera }

// Set sets one of the camera's controls; on a closed camera it does nothing.
func (c *v4l2Camera) Set(prop gocv.VideoCaptureProperties, value float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vc != nil {
		c.vc.Set(prop, value)
	}
}

// Get reads one of the camera's controls (0 on a closed camera).
func (c *v4l2Camera) Get(prop gocv.VideoCaptureProperties) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vc == nil {
		return 0
	}
	return c.vc.Get(prop)
}

// OpenGStreamer opens a GStreamer pipeline ending in appsink, such as the
// Raspberry Pi camera's
// "libcamerasrc ! video/x-raw,width=1280,height=720 ! videoconvert ! appsink".
func OpenGStreamer(pipeline string) (Source, error) {
	if !strings.Contains(pipeline, "appsink") {
		return nil, fmt.Errorf("vision: gstreamer pipeline must end in appsink: %q", pipeline)
	}
	vc, err := gocv.OpenVideoCaptureWithAPI(pipeline, gocv.VideoCaptureGstreamer)
	if err != nil {
		return nil, fmt.Errorf("%w: gstreamer %q: %v", ErrNoCamera, pipeline, err)
	}
	if !vc.IsOpened() {
		vc.Close()
		return nil, fmt.Errorf("%w: gstreamer %q: cannot open", ErrNoCamera, pipeline)
	}
	return &camera{name: pipeline, vc: vc}, nil
}

// Capture reads the next frame.
func (c *camera) Capture() (gocv.Mat, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vc == nil {
		return gocv.Mat{}, ErrClosed
	}
	m := gocv.NewMat()
	if !c.vc.Read(&m) || m.Empty() {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("%w: %s: no frame", ErrNoCamera, c.name)
	}
	return m, nil
}

// Close releases the camera.
func (c *camera) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vc == nil {
		return nil
	}
	err := c.vc.Close()
	c.vc = nil
	return err
}

// files is a Source that gives image files in turn, looping.
type files struct {
	paths  []string
	next   int
	closed bool
}

// OpenImage returns a Source that gives the same still image every time.
// The image is decoded once to check it: a missing, undecodable or
// truncated file, or a folder, is an error here rather than at every
// Capture.
func OpenImage(path string) (Source, error) {
	m, err := LoadImage(path)
	if err != nil {
		return nil, err
	}
	m.Close()
	return &files{paths: []string{path}}, nil
}

// imageExts are the file extensions OpenFolder takes as images.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".bmp": true, ".tif": true, ".tiff": true, ".webp": true}

// OpenFolder returns a Source that gives the folder's images in name
// order, starting over after the last.
func OpenFolder(dir string) (Source, error) {
	paths, err := FolderImages(dir)
	if err != nil {
		return nil, err
	}
	return &files{paths: paths}, nil
}

// FolderImages lists the image files directly in dir (by extension), in
// name order. A folder with none is an error.
func FolderImages(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && imageExts[strings.ToLower(filepath.Ext(e.Name()))] {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("vision: no images in %s", dir)
	}
	sort.Strings(paths)
	return paths, nil
}

// Capture decodes the next image.
func (f *files) Capture() (gocv.Mat, error) {
	if f.closed {
		return gocv.Mat{}, ErrClosed
	}
	p := f.paths[f.next%len(f.paths)]
	f.next++
	return LoadImage(p)
}

// Close ends the source.
func (f *files) Close() error {
	f.closed = true
	return nil
}

// FuncSource adapts a function to a Source; the synthetic table uses it
// (see package synth).
type FuncSource func() (gocv.Mat, error)

// Capture calls the function.
func (f FuncSource) Capture() (gocv.Mat, error) { return f() }

// Close does nothing.
func (f FuncSource) Close() error { return nil }

// Open opens a source named by a string, as flags and config give it:
// "v4l2:/dev/video0" (or "/dev/video0", or a bare index), "gst:PIPELINE",
// "file:PATH", "dir:PATH", or a path to an image file or folder. The
// synthetic source is opened with synth.NewSource.
func Open(spec string) (Source, error) {
	kind, rest, found := strings.Cut(spec, ":")
	if found {
		switch kind {
		case "v4l2":
			return OpenV4L2(rest, 0, 0)
		case "gst", "gstreamer":
			return OpenGStreamer(rest)
		case "file", "image":
			return OpenImage(rest)
		case "dir", "folder":
			return OpenFolder(rest)
		}
	}
	if strings.HasPrefix(spec, "/dev/video") {
		return OpenV4L2(spec, 0, 0)
	}
	if _, err := fmt.Sscanf(spec, "%d", new(int)); err == nil && !strings.ContainsAny(spec, "./") {
		return OpenV4L2(spec, 0, 0)
	}
	st, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("vision: source %q: %w", spec, err)
	}
	if st.IsDir() {
		return OpenFolder(spec)
	}
	return OpenImage(spec)
}
