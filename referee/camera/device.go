package camera

import (
	"sync"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// Device is a table's camera (a vision source) as the adapter uses it. It
// captures one frame at a time (vision sources are not safe for
// concurrent use, and a retry may overlap a slow capture), and it opens
// the source again when the source is missing or a capture fails, so that
// a camera plugged in late, or unplugged and plugged in again, comes back
// without a restart.
type Device struct {
	mu     sync.Mutex
	spec   string
	open   func(spec string) (vision.Source, error)
	opened func(vision.Source) // after each opening: the calibration's settings
	src    vision.Source
}

// NewDevice returns the camera spec names (vision.Open's spec), opened by
// open (vision.Open) at the first capture or Connect; opened, when set,
// is called after each opening (to set the calibration's camera
// settings).
func NewDevice(spec string, open func(spec string) (vision.Source, error), opened func(vision.Source)) *Device {
	return &Device{spec: spec, open: open, opened: opened}
}

// Connect opens the source if it is not open.
func (c *Device) Connect() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connect()
}

func (c *Device) connect() error {
	if c.src != nil {
		return nil
	}
	src, err := c.open(c.spec)
	if err != nil {
		return err
	}
	c.src = src
	if c.opened != nil {
		c.opened(src)
	}
	return nil
}

// Capture reads a frame, opening the source first when it is not open; a
// failed capture closes it, to be opened again at the next capture.
func (c *Device) Capture() (gocv.Mat, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.connect(); err != nil {
		return gocv.Mat{}, err
	}
	img, err := c.src.Capture()
	if err != nil {
		c.src.Close()
		c.src = nil
	}
	return img, err
}

// Close releases the source.
func (c *Device) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.src == nil {
		return nil
	}
	err := c.src.Close()
	c.src = nil
	return err
}
