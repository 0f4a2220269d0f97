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

// liarsd run --check refuses what liarsd run would refuse at start, naming
// the setting (the systemd unit checks the file before each start).
func TestRunCheckRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notCalibration := write("passwd", "root:x:0:0:root:/root:/bin/bash\n")
	for _, c := range []struct{ name, yaml, want string }{
		{"exposed.yaml", "broker: {embedded: {listen: '0.0.0.0:1883'}}\n",
			"broker.embedded.users: mqtt: the embedded broker listens beyond loopback but no users are configured"},
		{"exposed-ws.yaml", "broker: {embedded: {websocket: '0.0.0.0:1884'}}\n", "broker.embedded.users:"},
		{"calibration.yaml", "calibration: " + notCalibration + "\n", "calibration: " + notCalibration + ": not a calibration file"},
		{"ca.yaml", "broker: {url: 'ssl://broker.lan:8883', ca_file: " + notCalibration + "}\n", "broker.ca_file: mqtt: CA file " + notCalibration + " holds no PEM certificate"},
		{"websocket.yaml", "broker: {url: 'tcp://broker.lan:1883', websocket: 'http://broker.lan:9001'}\n", "broker.websocket:"},
	} {
		var out, errOut bytes.Buffer
		code := dispatch(context.Background(), []string{"run", "--check", "--config", write(c.name, c.yaml)}, nil, &out, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), c.want) || strings.Contains(out.String(), "valid") {
			t.Errorf("run --check on %s: got code %d, out %q, err %q; want 1 and an error with %q", c.name, code, out.String(), errOut.String(), c.want)
		}
	}
}

// Without --config and without the default file, --check says the file is
// missing and that run uses the defaults; it does not call it valid.
func TestRunCheckWithoutTheDefaultFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "liarsd.yaml")
	defer func(p string) { defaultConfig = p }(defaultConfig)
	defaultConfig = missing
	var out, errOut bytes.Buffer
	code := dispatch(context.Background(), []string{"run", "--check"}, nil, &out, &errOut)
	want := "liarsd run: " + missing + ` does not exist: liarsd run uses the defaults: table "table1", star-board, 0 seats`
	if code != 0 || !strings.HasPrefix(out.String(), want) || strings.Contains(out.String(), "is valid") {
		t.Errorf("run --check without the default file: got code %d, out %q, err %q; want 0 and %q", code, out.String(), errOut.String(), want)
	}
	// Named with --config, a missing file is an error.
	out.Reset()
	errOut.Reset()
	code = dispatch(context.Background(), []string{"run", "--check", "--config", missing}, nil, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "no such file") {
		t.Errorf("run --check --config MISSING: got code %d, err %q; want 1 and the file missing", code, errOut.String())
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
