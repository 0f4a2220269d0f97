package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"
)

// TestHWTestSim runs `liarsd hwtest --sim`: it walks every LED of the
// default simulated board, reports the typed presses with their commands
// and ends when the input ends.
func TestHWTestSim(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := strings.NewReader("ann u\nann u\nann f\nann bid\nbob challenge long\nzed bid\n")
	code := dispatch(context.Background(), []string{"hwtest", "--sim", "--step", "1ms", "--color", "never"}, in, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"board: simulated board; 32 LEDs: 22 track spaces (15 number, 7 star), 6 faces, 3 seats, 1 status",
		"LED 1/32: track 1: number space 1",
		"LED 3/32: track 3: star space 1",
		"LED 23/32: face 1 (star)",
		"LED 31/32: seat cy",
		"LED 32/32: status",
		"track [..W...................] faces [......] seats [...] status [.]",
		"walk done",
		`press: ann bid (short, 100ms) -> {"type":"bid","seat":"ann","quantity":3,"face":2}`,
		`press: bob challenge (long, 1s) -> {"type":"challenge","seat":"bob"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.Contains(stderr.String(), `no seat \"zed\"`) {
		t.Errorf("stderr %q does not report the unknown seat", stderr.String())
	}
}

func TestHWTestSimConfigAndDuration(t *testing.T) {
	var stdout, stderr bytes.Buffer
	// A pipe that never ends: --duration ends the command.
	never := blockingReader{}
	start := time.Now()
	code := dispatch(context.Background(), []string{"hwtest", "--sim", "--config", "../../testdata/hardware/apa102.yaml",
		"--walk=false", "--duration", "50ms"}, never, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if time.Since(start) > 10*time.Second {
		t.Error("--duration did not end the command")
	}
	if !strings.Contains(stdout.String(), "32 LEDs") || strings.Contains(stdout.String(), "LED 1/") {
		t.Errorf("output:\n%s", stdout.String())
	}
}

func TestHWTestInterrupted(t *testing.T) {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if code := dispatch(ctx, []string{"hwtest", "--sim", "--step", "1h"}, blockingReader{}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
}

func TestHWTestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"hwtest"}, 2, "usage: liarsd hwtest"},
		{[]string{"hwtest", "--sim", "--step", "0s"}, 2, "usage"},
		{[]string{"hwtest", "--sim", "--color", "pink"}, 2, "usage"},
		{[]string{"hwtest", "--config", "no-such-file.yaml"}, 1, "no-such-file.yaml"},
		{[]string{"hwtest", "--config", "../../testdata/hardware/frames.golden"}, 1, "hardware: reading the configuration"},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}

// TestHWTestNoGPIO runs a real pin map on this machine: without GPIO it
// must fail with a message naming the pin.
func TestHWTestNoGPIO(t *testing.T) {
	if _, err := host.Init(); err != nil {
		t.Skipf("host.Init: %v", err)
	}
	if len(gpioreg.All()) > 0 {
		t.Skip("this machine has GPIO: not driving real pins from a test")
	}
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), []string{"hwtest", "--config", "../../testdata/hardware/gpio.yaml"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no GPIO") || !strings.Contains(stderr.String(), "GPIO2") {
		t.Errorf("exit %d, stderr %q; want exit 1 and a no GPIO error naming GPIO2", code, stderr.String())
	}
}

// blockingReader is an input that never ends, like a quiet terminal.
type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }
