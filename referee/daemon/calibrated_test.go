package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
	"github.com/liarsd/liarsd/vision"
)

// startDaemon runs daemon.Run on c with o until the returned stop is
// called (or the test ends), once the referee runs.
func startDaemon(t *testing.T, c config.Config, o daemon.Options) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan string, 1)
	done := make(chan error, 1)
	o.Started = func(_ *referee.Referee, url string) { started <- url }
	go func() { done <- daemon.Run(ctx, c, o) }()
	select {
	case url = <-started:
	case err := <-done:
		cancel()
		t.Fatalf("daemon: %v", err)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatal("daemon does not start")
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("daemon: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Error("daemon does not stop")
			}
		})
	}
	t.Cleanup(stop)
	return url, stop
}

// saveCalibration writes f as a calibration file in a temporary folder.
func saveCalibration(t *testing.T, f *calibration.File) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calibration.json")
	if err := calibration.Save(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeCalibration writes f as a calibration file as it is, unchecked (as
// a hand-edited or damaged file may be).
func writeCalibration(t *testing.T, f *calibration.File) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "calibration.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// boardConfig is a two-seat common-hand table on a simulated board of
// 10 + 6 + 2 + 1 LEDs.
func boardConfig(t *testing.T) config.Config {
	c := testConfig(t, "")
	c.Rules, c.StartGame = "common-hand", true
	c.Seats = []config.Seat{{Name: "ann"}, {Name: "bob"}}
	c.Board = &hardware.Config{Driver: hardware.DriverSim, Seats: []string{"ann", "bob"}, Track: hardware.TrackConfig{NumberSpaces: 10}}
	return c
}

// A calibrated wiring: the face LEDs were chained in reverse and each seat's
// face and spot-on buttons were swapped. The board shows the bid on the
// LEDs wired for it, and a press of the spot-on pin steps the face.
func TestCalibratedWiring(t *testing.T) {
	c := boardConfig(t)
	order := make([]int, 19)
	for i := range order {
		order[i] = i
	}
	for i := range hardware.FaceLEDs { // faces are LEDs 10 to 15
		order[10+i] = 15 - i
	}
	c.Calibration = saveCalibration(t, &calibration.File{Wiring: &calibration.Wiring{
		LEDOrder: order,
		Buttons: map[string]string{
			"ann/spot_on": "ann/face", "ann/face": "ann/spot_on",
			"bob/spot_on": "bob/face", "bob/face": "bob/spot_on",
		},
	}})
	presses, pressW := io.Pipe()
	defer pressW.Close()
	frames := &syncBuffer{}
	url, stop := startDaemon(t, c, daemon.Options{
		Logger: testLogger(), SimInput: presses, SimOutput: frames, BoardPeriod: 10 * time.Millisecond,
	})
	turn := waitTurn(t, url)
	// Two presses of the pin wired to the face button, then bid: one 3.
	fmt.Fprintf(pressW, "%s s\n%s s\n%s b\n", turn, turn, turn)
	want := fmt.Sprintf(`{"type":"bid","seat":%q,"quantity":1,"face":3}`, turn)
	waitJournal(t, c.JournalPath(), want, "the remapped presses' bid")
	// Face 3 is the fourth face LED of the reversed chain.
	waitFrame(t, frames, "track [W.........] faces [...W..]", "one 3 on face LED 4 of the chain")
	stop()
}

// waitTurn waits for the configured game and returns whose turn it is.
func waitTurn(t *testing.T, url string) string {
	t.Helper()
	sub := mqtttest.Subscribe(t, url, "turn-watch", "liarsdice/t1/state")
	defer sub.Client().Disconnect(100)
	var turn string
	sub.Wait(t, 10*time.Second, "the configured game", func(ms []mqtttest.Message) bool {
		for _, m := range ms {
			var s struct{ Turn *string }
			if json.Unmarshal(m.Payload, &s) == nil && s.Turn != nil {
				turn = *s.Turn
				return true
			}
		}
		return false
	})
	return turn
}

// A calibration whose wiring does not fit the board stops the start with
// an error that names the file, not a panic.
func TestCalibratedWiringMismatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wiring calibration.Wiring
		want   string
	}{
		{"an LED order for another board", calibration.Wiring{LEDOrder: []int{2, 1, 0}},
			"the LED order has 3 entries for a chain of 19 LEDs"},
		// Refused as the file is read (calibration.Load), before the board.
		{"an LED order naming a position twice", calibration.Wiring{LEDOrder: make([]int, 19)},
			"must name each of 0 to 18 once"},
		{"buttons of a stranger", calibration.Wiring{Buttons: map[string]string{"zed/bid": "ann/bid"}},
			`button wiring "zed/bid": seat "zed" is not at the table`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := boardConfig(t)
			c.Calibration = writeCalibration(t, &calibration.File{Version: calibration.Version, Wiring: &tc.wiring})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := daemon.Run(ctx, c, daemon.Options{Logger: testLogger()})
			if err == nil || !strings.Contains(err.Error(), c.Calibration) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want an error naming %s with %q", err, c.Calibration, tc.want)
			}
		})
	}
}

// plainCamera is a camera without controls.
type plainCamera struct{}

func (plainCamera) Capture() (gocv.Mat, error) {
	return gocv.Mat{}, errors.New("no frame in this test")
}

// controlCamera is a camera that takes controls, as a V4L2 camera does; it
// keeps what was set.
type controlCamera struct {
	plainCamera
	mu  sync.Mutex
	set map[gocv.VideoCaptureProperties]float64
}

func (c *controlCamera) Set(prop gocv.VideoCaptureProperties, value float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil {
		c.set = map[gocv.VideoCaptureProperties]float64{}
	}
	c.set[prop] = value
}

func (c *controlCamera) Get(prop gocv.VideoCaptureProperties) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set[prop]
}

type noReader struct{}

func (noReader) Read(gocv.Mat) ([]vision.Die, error) { return nil, errors.New("no reads in this test") }

// The calibration's locked camera settings are set again at every start on
// a camera that takes controls; a camera without them keeps its own.
func TestCalibratedCameraSettings(t *testing.T) {
	exposure, wb, focus := 156.0, 4600.0, 30.0
	path := saveCalibration(t, &calibration.File{Camera: &calibration.Camera{
		Width: 1280, Height: 720, Exposure: &exposure, WhiteBalance: &wb, Focus: &focus, View: "top",
	}})
	withControls := &controlCamera{}
	for _, tc := range []struct {
		name    string
		cam     camera.Source
		wantSet map[gocv.VideoCaptureProperties]float64
		wantLog string
	}{
		{"a camera with controls", withControls, map[gocv.VideoCaptureProperties]float64{
			gocv.VideoCaptureFrameWidth: 1280, gocv.VideoCaptureFrameHeight: 720,
			gocv.VideoCaptureAutoExposure: 1, gocv.VideoCaptureExposure: 156,
			gocv.VideoCaptureAutoWB: 0, gocv.VideoCaptureWBTemperature: 4600,
			gocv.VideoCaptureAutoFocus: 0, gocv.VideoCaptureFocus: 30,
		}, `level=INFO msg="calibration: the calibration's camera settings applied" width=1280 height=720 exposure=156 white_balance=4600 focus=30`},
		{"a camera without controls", plainCamera{}, nil,
			`level=DEBUG msg="calibration: the camera takes no controls; the calibration's camera settings are not applied"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t, "")
			c.Seats = []config.Seat{{Name: "ann", X: 160, Y: 240}, {Name: "bob", X: 480, Y: 240}}
			c.Calibration = path
			logs := &syncBuffer{}
			_, stop := startDaemon(t, c, daemon.Options{
				Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
				Camera: tc.cam, Reader: noReader{},
			})
			stop()
			if cc, ok := tc.cam.(*controlCamera); ok {
				cc.mu.Lock()
				got := maps.Clone(cc.set)
				cc.mu.Unlock()
				if !maps.Equal(got, tc.wantSet) {
					t.Errorf("got camera controls %v; want %v", got, tc.wantSet)
				}
			}
			if !strings.Contains(logs.String(), tc.wantLog) {
				t.Errorf("got logs:\n%s\nwant a line with %s", logs.String(), tc.wantLog)
			}
		})
	}
}
