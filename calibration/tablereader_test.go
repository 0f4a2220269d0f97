package calibration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/vision"
)

// A table's reader options: the calibration's, with the table's dice and
// its own settings over them; a view only where the calibration's camera
// names none.
func TestReaderOptions(t *testing.T) {
	cal := &File{Camera: &Camera{View: "bottom"}, Dice: &Dice{SizePx: 48, MinConfidence: 0.7}}
	noView := &File{Dice: &Dice{SizePx: 48, MinConfidence: 0.7}}
	for _, tc := range []struct {
		name string
		cal  *File
		s    ReaderSettings
		want vision.Options
	}{
		{"nothing: plain dice", nil, ReaderSettings{}, vision.Options{PlainDice: true}},
		{"star-board", nil, ReaderSettings{StarDice: true}, vision.Options{StarDice: true}},
		{"the settings alone", nil, ReaderSettings{View: "bottom", DieSize: 40, MinConfidence: 0.5},
			vision.Options{View: vision.ViewBottom, DieSize: 40, MinConfidence: 0.5, PlainDice: true}},
		{"the calibration's", cal, ReaderSettings{StarDice: true},
			vision.Options{View: vision.ViewBottom, DieSize: 48, MinConfidence: 0.7, StarDice: true}},
		{"the settings over the calibration's", cal, ReaderSettings{View: "top", DieSize: 40, MinConfidence: 0.5},
			vision.Options{View: vision.ViewBottom, DieSize: 40, MinConfidence: 0.5, PlainDice: true}},
		{"a view where the calibration names none", noView, ReaderSettings{View: "bottom"},
			vision.Options{View: vision.ViewBottom, DieSize: 48, MinConfidence: 0.7, PlainDice: true}},
	} {
		got, err := ReaderOptions(tc.cal, tc.s)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	if _, err := ReaderOptions(nil, ReaderSettings{View: "sideways"}); err == nil || !strings.HasPrefix(err.Error(), "calibration: ") {
		t.Errorf("a bad view: got %v; want a calibration error", err)
	}
	if _, err := ReaderOptions(nil, ReaderSettings{Models: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "camera.models") {
		t.Errorf("a folder without networks: got %v; want a camera.models error", err)
	}
}
