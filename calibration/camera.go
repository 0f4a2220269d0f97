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
//
// It locks only what the camera allows: a control the camera reports no
// value for (OpenCV gives a negative number; none of these V4L2 controls
// takes one) is left as the camera has it, and nil in the result.
func LockCamera(c Controller, want Camera) Camera {
	got := want
	controls := []struct {
		prop gocv.VideoCaptureProperties
		want *float64
		got  **float64
	}{
		{gocv.VideoCaptureExposure, want.Exposure, &got.Exposure},
		{gocv.VideoCaptureWBTemperature, want.WhiteBalance, &got.WhiteBalance},
		{gocv.VideoCaptureFocus, want.Focus, &got.Focus},
	}
	for _, k := range controls {
		*k.got = nil
		if current := c.Get(k.prop); current >= 0 {
			v := pick(k.want, current)
			*k.got = &v
		}
	}
	got.Apply(c)
	for _, k := range controls {
		if *k.got == nil {
			continue
		}
		if v := c.Get(k.prop); v >= 0 {
			*k.got = &v
		} else {
			*k.got = nil
		}
	}
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
