package daemon_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// A broker the daemon cannot reach: the first failed attempt is in the
// log at once with its cause, and /metrics counts the failed attempts and
// names the last one's cause while the table runs without the broker.
func TestBrokerFailuresShowInLogAndMetrics(t *testing.T) {
	c := testConfig(t, fmt.Sprintf("tcp://127.0.0.1:%d", mqtttest.FreePort(t)))
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	web := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, c, daemon.Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), HTTP: "127.0.0.1:0",
			WebStarted: func(url string) { web <- url }})
	}()
	var url string
	select {
	case url = <-web:
	case err := <-done:
		t.Fatalf("daemon: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon's web side does not start")
	}
	url = strings.Replace(url, "localhost", "127.0.0.1", 1)
	var metrics string
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(metrics, `liarsd_mqtt_last_connect_error{error="network Error : dial tcp`) {
		if time.Now().After(deadline) {
			t.Fatalf("metrics:\n%s\nwant the failed attempts and their cause", metrics)
		}
		time.Sleep(50 * time.Millisecond)
		metrics = get(t, url+"metrics")
	}
	for _, want := range []string{`liarsd_mqtt_connected{table="t1"} 0`, "connection refused"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics:\n%s\nwant %s", metrics, want)
		}
	}
	if strings.Contains(metrics, `liarsd_mqtt_connect_failures_total{table="t1"} 0`) {
		t.Errorf("metrics:\n%s\nwant failed attempts counted", metrics)
	}
	if l := logs.String(); !strings.Contains(l, `level=WARN msg="mqtt: connecting to the broker failed; trying again"`) || !strings.Contains(l, "connection refused") {
		t.Errorf("log:\n%s\nwant the failed attempt and its cause", l)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon does not stop")
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
