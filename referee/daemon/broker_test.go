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

// A stop (SIGTERM) while the broker cannot be reached is a clean stop:
// Run returns nil at once, and the log says what was not delivered and
// that it is kept. It once waited out FlushTimeout and ended in an error,
// "1 messages not delivered" (liarsd run's exit 1), though nothing was
// lost.
func TestAStopWithTheBrokerAwayIsClean(t *testing.T) {
	c := testConfig(t, fmt.Sprintf("tcp://127.0.0.1:%d", mqtttest.FreePort(t)))
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, c, daemon.Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), FlushTimeout: 10 * time.Second})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "mqtt: connecting to the broker failed") {
		if time.Now().After(deadline) {
			t.Fatalf("log:\n%s\nwant a failed connection attempt", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: got %v; want a clean stop", err)
		}
		if took := time.Since(stopped); took > 2*time.Second {
			t.Errorf("the stop took %v; want no wait for a broker that cannot be reached", took)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon does not stop")
	}
	if l := logs.String(); !strings.Contains(l, `level=WARN msg="daemon: stopped with messages not delivered; each is kept`) || !strings.Contains(l, "states=1") {
		t.Errorf("log:\n%s\nwant what was kept said", l)
	}
}
