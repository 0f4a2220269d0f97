package calibration

import (
	"fmt"
	"log/slog"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// ReaderSettings are a table's own settings of its dice reader (the
// configuration's camera section), beside its calibration.
type ReaderSettings struct {
	// StarDice says the table plays with star dice (star-board): at any
	// other table a star-looking face is a doubt, and a lone mark a 1.
	StarDice bool
	// View is where the camera looks from ("top" or "bottom"): it applies
	// where the calibration's camera names no view.
	View string
	// DieSize and MinConfidence, where set (above 0), win over the
	// calibration's.
	DieSize, MinConfidence float64
	// Models is a folder of the table's own retrained networks
	// (vision.LoadModels); empty keeps the embedded ones.
	Models string
}

// ReaderOptions works out a table's reader options from its settings and
// its calibration (nil for none): the calibration's die size, confidence
// and view, the table's dice, and the settings that win over them.
func ReaderOptions(cal *File, s ReaderSettings) (vision.Options, error) {
	var o vision.Options
	if cal != nil {
		o = cal.VisionOptions()
	}
	o.StarDice, o.PlainDice = s.StarDice, !s.StarDice
	if s.View != "" && (cal == nil || cal.Camera == nil || cal.Camera.View == "") {
		v, err := vision.ParseView(s.View)
		if err != nil {
			return vision.Options{}, fmt.Errorf("calibration: %w", err)
		}
		o.View = v
	}
	if s.DieSize > 0 {
		o.DieSize = s.DieSize
	}
	if s.MinConfidence > 0 {
		o.MinConfidence = s.MinConfidence
	}
	if s.Models != "" {
		m, err := vision.LoadModels(s.Models)
		if err != nil {
			return vision.Options{}, fmt.Errorf("calibration: camera.models: %w", err)
		}
		o.Models = m
	}
	return o, nil
}

// TableReader is a table's dice reader: *Reader or *vision.Reader. Close
// it when done.
type TableReader interface {
	Read(img gocv.Mat) ([]vision.Die, error)
	Close() error
}

// NewTableReader builds a table's dice reader from its settings and its
// calibration (nil for none): with a calibration, one that knows the
// table's faces and star artwork (the dice step) and its empty board;
// without, the plain vision reader.
func NewTableReader(cal *File, s ReaderSettings) (TableReader, error) {
	o, err := ReaderOptions(cal, s)
	if err != nil {
		return nil, err
	}
	if cal != nil {
		r, err := cal.ReaderWith(o)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	r, err := vision.NewReader(o)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	return r, nil
}

// ApplyCameraSettings sets the calibration's locked camera settings
// (exposure, white balance, focus, frame size) on cam when it takes
// controls (a Controller): a camera forgets them when it is unplugged or
// the machine restarts. A camera without controls keeps its own; what
// was done is logged.
func ApplyCameraSettings(cam any, set *Camera, log *slog.Logger) {
	var applied []any
	if set.Width > 0 && set.Height > 0 {
		applied = append(applied, "width", set.Width, "height", set.Height)
	}
	for _, v := range []struct {
		name  string
		value *float64
	}{{"exposure", set.Exposure}, {"white_balance", set.WhiteBalance}, {"focus", set.Focus}} {
		if v.value != nil {
			applied = append(applied, v.name, *v.value)
		}
	}
	if len(applied) == 0 {
		return
	}
	ctl, ok := cam.(Controller)
	if !ok {
		log.Debug("calibration: the camera takes no controls; the calibration's camera settings are not applied", applied...)
		return
	}
	set.Apply(ctl)
	log.Info("calibration: the calibration's camera settings applied", applied...)
}
