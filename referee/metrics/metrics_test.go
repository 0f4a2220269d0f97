package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/metrics"
)

func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type: got %q; want Prometheus's text format", ct)
	}
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestMetrics(t *testing.T) {
	m := metrics.New("t1")
	tb := engine.NewTable()
	for _, l := range []string{
		`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1,"options":{"dice":1}}`,
		`{"type":"bid","seat":"ann","quantity":1,"face":3}`,
		`{"type":"challenge","seat":"bob"}`,
		`{"type":"reveal","dice":{"ann":[3],"bob":[5]}}`,
		// A correction: counted as such, not as another reveal or game.
		`{"type":"correct","dice":{"ann":[2],"bob":[5]}}`,
	} {
		evs, err := record.Apply(tb, []byte(l))
		if err != nil {
			t.Fatal(err)
		}
		m.Events(evs)
	}
	m.Event(tb.Reject(6, &engine.Rejection{Reason: engine.NoGame, Message: "over"}))
	m.Read(120*time.Millisecond, metrics.ReadOK, 0)
	m.Read(800*time.Millisecond, metrics.ReadNeedsLook, 2)
	m.Rejected("busy")
	m.QueueDepth(func() int { return 7 })
	queue := 3
	m.QueueDepth(func() int { return queue }) // a client dialled again: the latest counts

	got := scrape(t, m)
	for _, want := range []string{
		`liarsd_reveals_total{table="t1"} 1`,
		`liarsd_events_total{table="t1",type="resolved"} 2`,
		`liarsd_events_total{table="t1",type="game_over"} 2`,
		`liarsd_events_total{table="t1",type="corrected"} 1`,
		`liarsd_games_total{table="t1"} 1`,
		`liarsd_rejected_total{reason="no_game",table="t1"} 1`,
		`liarsd_rejected_total{reason="busy",table="t1"} 1`,
		`liarsd_reads_total{result="needs_look",table="t1"} 1`,
		`liarsd_uncertain_reads_total{table="t1"} 1`,
		`liarsd_uncertain_dice_total{table="t1"} 2`,
		`liarsd_read_seconds_count{table="t1"} 2`,
		`liarsd_read_seconds_bucket{table="t1",le="0.2"} 1`,
		`liarsd_last_event_seq{table="t1"} 9`,
		`liarsd_mqtt_queue_depth{table="t1"} 3`,
		`liarsd_build_info{goversion="go`,
		`opencv="4.`,
		`go_goroutines `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("scrape: no line %q in\n%s", want, grep(got, "liarsd_"))
		}
	}
	queue = 0
	if got := scrape(t, m); !strings.Contains(got, `liarsd_mqtt_queue_depth{table="t1"} 0`) {
		t.Errorf("the queue drained: got %s; want 0", grep(got, "queue"))
	}
}

// Every liarsd metric carries the table's label (docs/scoreboard.md), so
// that one Prometheus tells a venue's tables apart.
func TestEveryMetricHasTheTableLabel(t *testing.T) {
	m := metrics.New("t1")
	m.Event(&engine.Revealed{})
	m.Read(time.Second, metrics.ReadOK, 1)
	m.Rejected("busy")
	m.QueueDepth(func() int { return 1 })
	n := 0
	for _, line := range strings.Split(scrape(t, m), "\n") {
		if !strings.HasPrefix(line, metrics.Namespace+"_") {
			continue
		}
		n++
		if !strings.Contains(line, `table="t1"`) {
			t.Errorf("got %q; want a table label", line)
		}
	}
	if n == 0 {
		t.Fatal("got no liarsd metric")
	}
}

func TestNilMetrics(t *testing.T) {
	var m *metrics.Metrics
	m.Event(&engine.Revealed{})
	m.Read(time.Second, metrics.ReadError, 0)
	m.Rejected("busy")
	m.QueueDepth(func() int { return 1 })
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The MQTT client's connection: connected or not, its failed attempts and
// the last one's cause, read at each scrape; before any failure, no error.
func TestBrokerConnection(t *testing.T) {
	m := metrics.New("t1")
	b := metrics.Broker{Connected: true}
	m.BrokerConnection(func() metrics.Broker { return b })
	got := scrape(t, m)
	for _, want := range []string{`liarsd_mqtt_connected{table="t1"} 1`, `liarsd_mqtt_connect_failures_total{table="t1"} 0`} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics:\n%s\nwant %s", got, want)
		}
	}
	if strings.Contains(got, "liarsd_mqtt_last_connect_error{") {
		t.Errorf("metrics:\n%s\nwant no last error before any failure", got)
	}
	b = metrics.Broker{Failures: 3, LastError: `network Error : dial tcp 127.0.0.1:1883: connect: connection "refused"`}
	got = scrape(t, m)
	for _, want := range []string{
		`liarsd_mqtt_connected{table="t1"} 0`,
		`liarsd_mqtt_connect_failures_total{table="t1"} 3`,
		`liarsd_mqtt_last_connect_error{error="network Error : dial tcp 127.0.0.1:1883: connect: connection \"refused\"",table="t1"} 1`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics:\n%s\nwant %s", got, want)
		}
	}
}
