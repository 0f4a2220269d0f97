package scoreboard_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/scoreboard"
)

// TestLink: the address a phone opens a table's page at, for the QR
// codes: the public URL when one is set; else the host the browser asked
// for, unless it is this machine's loopback; then the machine's address
// on the network; and none (with the reason) when only this machine can
// reach the server.
func TestLink(t *testing.T) {
	for _, c := range []struct {
		name, public, host, hostURL, query string
		want                               string // "" for a refusal
	}{
		{"public URL", "https://liars.example.org/bar-1", "localhost:8080", "", "", "https://liars.example.org/bar-1/"},
		{"public URL, another table", "https://liars.example.org/", "bar-1.lan:8080", "", "?table=bar-2", "https://liars.example.org/?table=bar-2"},
		{"the host asked for", "", "bar-1.local:8080", "", "", "http://bar-1.local:8080/"},
		{"an address asked for", "", "192.168.1.20:8080", "http://10.0.0.9:8080/", "", "http://192.168.1.20:8080/"},
		{"this table named", "", "bar-1.local:8080", "", "?table=bar-1", "http://bar-1.local:8080/"},
		{"loopback: the machine's address", "", "127.0.0.1:8080", "http://192.168.1.20:8080/", "", "http://192.168.1.20:8080/"},
		{"localhost: the machine's address", "", "localhost:8080", "http://192.168.1.20:8080/", "?table=bar-2", "http://192.168.1.20:8080/?table=bar-2"},
		{"IPv6 loopback", "", "[::1]:8080", "http://192.168.1.20:8080/", "", "http://192.168.1.20:8080/"},
		{"loopback only", "", "localhost:8080", "", "", ""},
		{"not a table", "", "bar-1.local:8080", "", "?table=a%2Fb", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := scoreboard.Handler(scoreboard.Options{Table: "bar-1", PublicURL: c.public, HostURL: c.hostURL})
			r := httptest.NewRequest(http.MethodGet, "/link.json"+c.query, nil)
			r.Host = c.host
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			var got struct {
				URL   string `json:"url"`
				Error string `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatalf("link.json: %v: %s", err, w.Body.String())
			}
			if c.want == "" {
				if got.URL != "" || got.Error == "" {
					t.Errorf("got %d %s; want no URL and the reason", w.Code, w.Body.String())
				}
				return
			}
			if w.Code != http.StatusOK || got.URL != c.want {
				t.Errorf("got %d %q; want %q", w.Code, got.URL, c.want)
			}

			r = httptest.NewRequest(http.MethodGet, "/qr.svg"+c.query, nil)
			r.Host = c.host
			w = httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if ct := w.Header().Get("Content-Type"); w.Code != http.StatusOK || ct != "image/svg+xml" ||
				!strings.HasPrefix(w.Body.String(), "<svg ") || !strings.Contains(w.Body.String(), "<title>"+strings.ReplaceAll(c.want, "&", "&amp;")+"</title>") {
				t.Errorf("qr.svg: got %d %s %.120s; want an SVG of %s", w.Code, ct, w.Body.String(), c.want)
			}
		})
	}
	r := httptest.NewRequest(http.MethodGet, "/link.json", nil)
	r.Host = "localhost:8080"
	w := httptest.NewRecorder()
	scoreboard.Handler(scoreboard.Options{Table: "bar-1"}).ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), "web.public_url") {
		t.Errorf("loopback only: got %s; want the reason to name web.public_url", w.Body.String())
	}
}

// TestLANURL: the pages' address on the network for a listener.
func TestLANURL(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1:8080", ""},
		{"[::1]:8080", ""},
		{"localhost:8080", ""},
		{"192.168.1.5:8080", "http://192.168.1.5:8080/"},
		{"bar-1.lan:8080", "http://bar-1.lan:8080/"},
		{"nonsense", ""},
	} {
		if got := scoreboard.LANURL(c.addr); got != c.want {
			t.Errorf("LANURL(%q): got %q; want %q", c.addr, got, c.want)
		}
	}
	// Every address: the machine's own on an interface that is up, never
	// loopback (none on a machine without a network).
	if got := scoreboard.LANURL("0.0.0.0:8080"); got != "" && (strings.HasPrefix(got, "http://127.") || !strings.HasSuffix(got, ":8080/")) {
		t.Errorf("LANURL(0.0.0.0:8080): got %q; want the machine's address on the network, port 8080", got)
	}
}

// BenchmarkQRSVG draws a table page's address as a QR code, as qr.svg
// does at every request.
func BenchmarkQRSVG(b *testing.B) {
	var n int
	for i := 0; i < b.N; i++ {
		svg, err := scoreboard.QRSVG("http://192.168.100.200:8080/?table=bar-12")
		if err != nil {
			b.Fatal(err)
		}
		n = len(svg)
	}
	b.ReportMetric(float64(n), "bytes/svg")
}
