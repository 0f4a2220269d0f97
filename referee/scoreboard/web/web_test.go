package web_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/metrics"
	"github.com/liarsd/liarsd/referee/scoreboard/web"
)

func TestFromConfig(t *testing.T) {
	c := config.Default()
	c.Table = "bar-1"
	c.Broker.Embedded.Listen = "0.0.0.0:1883"
	c.Broker.Embedded.WebSocket = "0.0.0.0:1884"
	c.Broker.Embedded.Users = map[string]string{"operator": "secret"}
	s := web.FromConfig(c, ":8080", nil, nil)
	if s.Broker != "tcp://127.0.0.1:1883" || s.WebSocket != "0.0.0.0:1884" || s.Username != "operator" || s.Password != "secret" ||
		s.Journal != "/var/lib/liarsd/bar-1.journal" || s.Prefix != "liarsdice" || s.Table != "bar-1" {
		t.Errorf("embedded broker: got %+v", s)
	}
	c.Broker.Embedded.WebSocket = "off"
	if s := web.FromConfig(c, ":8080", nil, nil); s.WebSocket != "" {
		t.Errorf("websocket off: got %q; want none", s.WebSocket)
	}
	c.Broker.URL, c.Broker.Username = "ssl://broker.example.org:8883", "bar"
	if s := web.FromConfig(c, ":8080", nil, nil); s.Broker != "ssl://broker.example.org:8883" || s.Username != "bar" || s.WebSocket != "" {
		t.Errorf("external broker: got %+v", s)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestStart(t *testing.T) {
	m := metrics.New("t1")
	m.QueueDepth(func() int { return 2 })
	w, err := web.Start(context.Background(), web.Setup{Listen: "127.0.0.1:0", Table: "t1", WebSocket: "127.0.0.1:1884", Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !strings.HasPrefix(w.URL(), "http://127.0.0.1:") {
		t.Errorf("URL: got %q", w.URL())
	}
	for path, want := range map[string]string{
		"":            "static/scoreboard.js",
		"venue":       "static/venue.js",
		"config.json": `"table":"t1"`,
		"metrics":     "liarsd_mqtt_queue_depth 2",
	} {
		code, body := get(t, w.URL()+path)
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET /%s: got %d %.100q; want 200 with %q", path, code, body, want)
		}
	}
	w.Close()
	if _, err := http.Get(w.URL()); err == nil {
		t.Error("still serving after Close")
	}

	off, err := web.Start(context.Background(), web.Setup{Listen: "off"})
	if err != nil || off.URL() != "" {
		t.Errorf("off: got %q, %v; want no server", off.URL(), err)
	}
	off.Close()
	if _, err := web.Start(context.Background(), web.Setup{Listen: "off", HomeAssistant: true}); err == nil {
		t.Error("Home Assistant without a broker: got no error")
	}
}

// TestExampleConfig keeps docs/install/liarsd.yaml, the configuration
// `make install` installs, valid and serving browsers on the network.
func TestExampleConfig(t *testing.T) {
	c, err := config.Load("../../../docs/install/liarsd.yaml")
	if err != nil {
		t.Fatalf("the example configuration: %v", err)
	}
	s := web.FromConfig(c, web.DefaultListen, nil, nil)
	if s.WebSocket != "0.0.0.0:1884" || s.Broker != "tcp://127.0.0.1:1883" || s.Username == "" || s.Journal != "/var/lib/liarsd/bar-1.journal" {
		t.Errorf("the example's web side: got %+v; want the broker's WebSocket on every address, a user, the journal in /var/lib/liarsd", s)
	}
}
