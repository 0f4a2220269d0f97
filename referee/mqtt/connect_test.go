package mqtt_test

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// logBuffer is a log's text, safe for paho's goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitUntil polls cond until it holds, failing after 20 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func closeClient(c *mqtt.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// A broker that refuses the connection, one whose certificate another
// authority signed, and one whose certificate does not name the address
// the client dials: the first failed attempt is logged at once with its
// cause, and every attempt is counted with the last cause (Connection,
// which the daemon's metrics show).
func TestFailedConnectsAreLoggedWithTheirCause(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil) // its own authority; for 127.0.0.1 and example.com
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cases := []struct {
		name, broker, ca, cause string
	}{
		{"nothing listening", fmt.Sprintf("tcp://127.0.0.1:%d", mqtttest.FreePort(t)), "", "connection refused"},
		{"another authority", "ssl://127.0.0.1:" + port, "", "certificate signed by unknown authority"},
		{"a certificate without the broker's address", "ssl://localhost:" + port, ca, "not localhost"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logBuffer{}
			c, err := mqtt.Dial(mqtt.Options{Broker: tc.broker, CAFile: tc.ca, Table: "t1", StoreDir: t.TempDir(),
				Logger: slog.New(slog.NewTextHandler(logs, nil)), RetryInterval: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer closeClient(c)
			waitUntil(t, "two failed attempts", func() bool { return c.Connection().Failures >= 2 })
			conn := c.Connection()
			if conn.Connected || !strings.Contains(conn.LastError, tc.cause) || conn.LastErrorAt.IsZero() {
				t.Errorf("Connection(): got %+v; want not connected, the last error saying %q", conn, tc.cause)
			}
			var failed []string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "mqtt: connecting to the broker failed") {
					failed = append(failed, l)
				}
			}
			if len(failed) == 0 || !strings.Contains(failed[0], tc.cause) || !strings.Contains(failed[0], "level=WARN") || !strings.Contains(failed[0], "attempts=1") {
				t.Errorf("log:\n%s\nwant the first failed attempt logged as a warning with its cause %q", logs, tc.cause)
			}
			if len(failed) > conn.Failures {
				t.Errorf("%d log lines for %d failed attempts; want at most one each", len(failed), conn.Failures)
			}
		})
	}
}

// A broker that comes up after failed attempts: the client connects, says
// after how many, and keeps the count of failures.
func TestConnectedAfterFailedAttempts(t *testing.T) {
	port := mqtttest.FreePort(t)
	logs := &logBuffer{}
	// A client id of its own: the referee's (liarsd-t1) is the embedded
	// broker's own account's alone, whose password the broker makes when
	// it starts, after this client.
	c, err := mqtt.Dial(mqtt.Options{Broker: fmt.Sprintf("tcp://127.0.0.1:%d", port), Table: "t1", ClientID: "late-broker", StoreDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(logs, nil)), RetryInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer closeClient(c)
	waitUntil(t, "a failed attempt", func() bool { return c.Connection().Failures >= 1 })
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: fmt.Sprintf("127.0.0.1:%d", port), Table: "t1", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	select {
	case <-c.Ready():
	case <-time.After(20 * time.Second):
		t.Fatal("the client does not connect once the broker is up")
	}
	conn := c.Connection()
	if !conn.Connected || conn.Failures < 1 || !strings.Contains(conn.LastError, "connection refused") {
		t.Errorf("Connection(): got %+v; want connected, the failures kept", conn)
	}
	if !strings.Contains(logs.String(), `msg="mqtt: connected" broker=`) || !strings.Contains(logs.String(), "failed_attempts=") {
		t.Errorf("log:\n%s\nwant the connection logged with the failed attempts before it", logs)
	}
}

// The watermark is saved with the journal's id and the line count of the
// last state the broker acknowledged; a client of another journal drops
// it (the journal was replaced: every event is published again).
func TestAWatermarkOfAnotherJournalIsDropped(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	store := t.TempDir()
	user, password := b.Credentials()
	dial := func(journal string) *mqtt.Client {
		c, err := mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: store, Username: user, Password: password, Logger: quiet(), Journal: journal})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := dial("a")
	for i := 1; i <= 3; i++ {
		c.Event(i, event(i, "left"))
	}
	c.StateAt([]byte(`{}`), 7)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if w := mqtt.ReadWatermark(store); w.Seq != 3 || w.Hash == "" || w.Journal != "a" || w.Lines != 7 {
		t.Errorf("watermark: got %+v; want seq 3 with its hash, journal a, 7 lines", w)
	}
	for _, tc := range []struct {
		journal string
		want    int
	}{{"b", 0}, {"a", 3}, {"", 3}} {
		c := dial(tc.journal)
		if got := c.Watermark(); got != tc.want {
			t.Errorf("a client of journal %q: got watermark %d; want %d", tc.journal, got, tc.want)
		}
		closeClient(c)
	}
}
