package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
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
	c.Broker.WebSocket, c.Broker.CAFile, c.Broker.InsecureSkipVerify = "wss://broker.example.org:9001/mqtt", "/etc/liarsd/ca.pem", true
	if s := web.FromConfig(c, ":8080", nil, nil); s.WebSocket != "wss://broker.example.org:9001/mqtt" || s.CAFile != "/etc/liarsd/ca.pem" || !s.InsecureSkipVerify {
		t.Errorf("external broker with broker.websocket and TLS: got %+v; want its WebSocket URL and TLS settings", s)
	}
}

// An external broker's WebSocket address (broker.websocket) reaches the
// pages through /config.json, so that they can follow the table.
func TestExternalBrokerWebSocketInConfigJSON(t *testing.T) {
	c, err := config.Decode(strings.NewReader("table: bar-2\nbroker: {url: 'tcp://broker.lan:1883', websocket: 'ws://broker.lan:9001'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := start(t, web.FromConfig(c, "127.0.0.1:0", nil, nil))
	code, body := get(t, w.URL()+"config.json")
	var got struct {
		Table     string `json:"table"`
		WebSocket string `json:"websocket"`
		PageHost  bool   `json:"websocket_page_host"`
	}
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
		t.Fatalf("GET /config.json: got %d %q (%v)", code, body, err)
	}
	if got.Table != "bar-2" || got.WebSocket != "ws://broker.lan:9001/" || got.PageHost {
		t.Errorf("config.json: got %+v; want table bar-2, websocket ws://broker.lan:9001/ as it is", got)
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
		"metrics":     `liarsd_mqtt_queue_depth{table="t1"} 2`,
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
	example, err := os.ReadFile("../../../docs/install/liarsd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// As it stands, its password is refused: it listens beyond loopback.
	if _, err := config.Decode(bytes.NewReader(example)); err == nil || !strings.Contains(err.Error(), config.ExamplePassword) {
		t.Errorf("the example as it stands: got %v; want its example password refused", err)
	}
	// make install puts a random password in its place.
	c, err := config.Decode(bytes.NewReader(bytes.ReplaceAll(example, []byte(config.ExamplePassword), []byte("k3Xq9vLr2Tz8"))))
	if err != nil {
		t.Fatalf("the example configuration: %v", err)
	}
	s := web.FromConfig(c, web.DefaultListen, nil, nil)
	if s.WebSocket != "0.0.0.0:1884" || s.Broker != "tcp://127.0.0.1:1883" || s.Username == "" || s.Journal != "/var/lib/liarsd/bar-1.journal" {
		t.Errorf("the example's web side: got %+v; want the broker's WebSocket on every address, a user, the journal in /var/lib/liarsd", s)
	}
}

// TestOperatorLoginBeyondLoopback: the operator's read is open on a
// loopback listener and needs one of the users' login on any other.
func TestOperatorLoginBeyondLoopback(t *testing.T) {
	users := map[string]string{"op": "s3cret"}
	for _, tc := range []struct {
		listen string
		user   string
		want   int
	}{
		{"127.0.0.1:0", "", http.StatusOK},
		{"0.0.0.0:0", "", http.StatusUnauthorized},
		{"0.0.0.0:0", "op", http.StatusOK},
	} {
		w, err := web.Start(context.Background(), web.Setup{Listen: tc.listen, Table: "t1", Users: users})
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := net.SplitHostPort(w.Addr)
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+port+"/api/operator/read", nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, users[tc.user])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		w.Close()
		if res.StatusCode != tc.want {
			t.Errorf("listening on %s, login %q: got %d; want %d", tc.listen, tc.user, res.StatusCode, tc.want)
		}
	}
}

// The pages' address for phones and Home Assistant: web.public_url as it
// is; without it, none while the server listens on loopback only.
func TestPageURL(t *testing.T) {
	c, err := config.Decode(strings.NewReader("table: bar-3\nweb: {public_url: 'https://liars.example.org/bar-3/'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := web.FromConfig(c, "127.0.0.1:0", nil, nil)
	w := start(t, s)
	if got := w.PageURL(); got != "https://liars.example.org/bar-3/" {
		t.Errorf("with web.public_url: got %q; want it as it is", got)
	}
	// The QR code's link says the same, whichever host the page came from.
	code, body := get(t, w.URL()+"link.json")
	if code != http.StatusOK || !strings.Contains(body, `"url":"https://liars.example.org/bar-3/"`) {
		t.Errorf("link.json: got %d %s; want the public URL", code, body)
	}

	s.PublicURL = ""
	if got := start(t, s).PageURL(); got != "" {
		t.Errorf("listening on loopback without web.public_url: got %q; want none (no phone reaches it)", got)
	}
}

// start serves s without its journal until the test ends.
func start(t *testing.T, s web.Setup) *web.Server {
	t.Helper()
	s.Journal = ""
	w, err := web.Start(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}
