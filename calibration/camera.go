package calibration

import "gocv.io/x/gocv"

// Controller is the part of a camera that takes controls; gocv's
// *VideoCapture is one (through V4L2 for a USB camera).
type Controller interface {
	Set(prop gocv.VideoCaptureProperties, value float64)
	Get(prop gocv.VideoCaptureProperties) float64
}

// V4L2 values of the auto-exposure control (V4L2_CID_EXPOSURE_AUTO), which
// OpenCV's V4L2 backend passes through.
const (
	v4l2ExposureManual = 1
)

// LockCamera turns off the camera's automatic exposure, white balance and
// focus, so that readings do not drift through an evening. Each setting
// keeps the value the camera had settled on, unless want names one. It
// returns the settings as the camera reports them after locking.
func LockCamera(c Controller, want Camera) Camera {
	got := want
	exposure := pick(want.Exposure, c.Get(gocv.VideoCaptureExposure))
	wb := pick(want.WhiteBalance, c.Get(gocv.VideoCaptureWBTemperature))
	focus := pick(want.Focus, c.Get(gocv.VideoCaptureFocus))
	got.Exposure, got.WhiteBalance, got.Focus = &exposure, &wb, &focus
	got.Apply(c)
	e, w, f := c.Get(gocv.VideoCaptureExposure), c.Get(gocv.VideoCaptureWBTemperature), c.Get(gocv.VideoCaptureFocus)
	got.Exposure, got.WhiteBalance, got.Focus = &e, &w, &f
	return got
}

// Apply sets the locked settings on a camera; settings left nil stay
// automatic.
func (cam *Camera) Apply(c Controller) {
	if cam.Width > 0 && cam.Height > 0 {
		c.Set(gocv.VideoCaptureFrameWidth, float64(cam.Width))
		c.Set(gocv.VideoCaptureFrameHeight, float64(cam.Height))
	}
	if cam.Exposure != nil {
		c.Set(gocv.VideoCaptureAutoExposure, v4l2ExposureManual)
		c.Set(gocv.VideoCaptureExposure, *cam.Exposure)
	}
	if cam.WhiteBalance != nil {
		c.Set(gocv.VideoCaptureAutoWB, 0)
		c.Set(gocv.VideoCaptureWBTemperature, *cam.WhiteBalance)
	}
	if cam.Focus != nil {
		c.Set(gocv.VideoCaptureAutoFocus, 0)
		c.Set(gocv.VideoCaptureFocus, *cam.Focus)
	}
}

func pick(given *float64, current float64) float64 {
	if given != nil {
		return *given
	}
	return current
}
