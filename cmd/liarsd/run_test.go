package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

func TestRunCheck(t *testing.T) {
	var out, errOut bytes.Buffer
	code := dispatch(context.Background(), []string{"run", "--check", "--config", filepath.Join("..", "..", "testdata", "referee", "liarsd.yaml")}, nil, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), `is valid: table "kitchen", star-board, 4 seats`) {
		t.Errorf("run --check: code %d, out %q, err %q", code, out.String(), errOut.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("table: kitchen\nrules: poker\n"), 0o644)
	out.Reset()
	errOut.Reset()
	code = dispatch(context.Background(), []string{"run", "--check", "--config", bad}, nil, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), `rules: no preset "poker"`) {
		t.Errorf("run --check on a bad file: code %d, err %q", code, errOut.String())
	}
	code = dispatch(context.Background(), []string{"run", "--check", "--config", filepath.Join(t.TempDir(), "missing.yaml")}, nil, &out, &errOut)
	if code != 1 {
		t.Errorf("run --check on a missing file: code %d", code)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{{"--rules", "poker"}, {"--seats", "9"}, {"--board", "neon"}, {"--options", "{"}, {"extra"}} {
		var out, errOut bytes.Buffer
		code := dispatch(context.Background(), append([]string{"demo", "--duration", "1s"}, args...), nil, &out, &errOut)
		if code == 0 || errOut.Len() == 0 {
			t.Errorf("demo %v: code %d, err %q", args, code, errOut.String())
		}
	}
}

// The demo on its embedded defaults plays and stops cleanly after its
// duration.
func TestDemoRunsForItsDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a demo")
	}
	var out, errOut bytes.Buffer
	code := dispatch(context.Background(), []string{"demo", "--duration", "4s", "--listen", "127.0.0.1:0", "--pace", "50ms", "--rules", "kids", "--seats", "3", "--seed", "4"}, nil, &out, &errOut)
	if code != 0 {
		t.Fatalf("demo: code %d\n%s\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"new game of kids", "bids", "MQTT subscriber:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output has no %q:\n%s", want, out.String())
		}
	}
}

// liarsd demo --broker tcp://127.0.0.1:PORT --rules star-board --duration D
// plays against an external Mosquitto.
func TestDemoAgainstMosquitto(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a demo")
	}
	m := mqtttest.StartMosquitto(t)
	sub := mqtttest.Subscribe(t, m.URL(), "outside", "liarsdice/demo/events")
	var out, errOut bytes.Buffer
	code := dispatch(context.Background(), []string{"demo", "--broker", m.URL(), "--rules", "star-board", "--duration", "5s", "--pace", "50ms", "--seed", "8"}, nil, &out, &errOut)
	if code != 0 {
		t.Fatalf("demo: code %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "new game of star-board") || !strings.Contains(out.String(), " 0 gaps") {
		t.Errorf("demo output:\n%s", out.String())
	}
	if len(sub.Messages()) == 0 {
		t.Error("no event reached a subscriber of the external broker")
	}
}
