package mqtt

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// Failed attempts for the same cause are logged once every
// ConnectLogEvery, saying how many were not; a new cause at once.
func TestFailedConnectLogsAreRateLimited(t *testing.T) {
	var logs bytes.Buffer
	now := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	c := &Client{opts: Options{Clock: func() time.Time { return now }}, log: slog.New(slog.NewTextHandler(&logs, nil))}
	refused := errors.New("dial tcp 127.0.0.1:1883: connect: connection refused")
	badCert := errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority")
	steps := []struct {
		after time.Duration
		err   error
		want  string // the line logged, "" for none
	}{
		{0, refused, "attempts=1"},
		{time.Second, refused, ""},
		{time.Second, refused, ""},
		{time.Second, badCert, "attempts=4"},
		{time.Second, badCert, ""},
		{ConnectLogEvery, badCert, "attempts=6 not_logged=1"},
		{time.Second, refused, "attempts=7"},
	}
	for i, s := range steps {
		now = now.Add(s.after)
		logs.Reset()
		c.connectFailed(s.err)
		got := strings.TrimSpace(logs.String())
		switch {
		case s.want == "" && got != "":
			t.Errorf("step %d: logged %q; want nothing", i, got)
		case s.want != "" && (!strings.Contains(got, s.want) || !strings.Contains(got, s.err.Error())):
			t.Errorf("step %d: logged %q; want a line with %q and the cause", i, got, s.want)
		}
	}
	if conn := c.Connection(); conn.Failures != 7 || conn.LastError != refused.Error() || !conn.LastErrorAt.Equal(now) {
		t.Errorf("Connection(): got %+v; want 7 failures, the last refused", conn)
	}
}
