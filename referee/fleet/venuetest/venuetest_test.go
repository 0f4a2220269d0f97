package venuetest

import (
	"strings"
	"testing"
)

func TestConfigure(t *testing.T) {
	conf := "listener 1883\nset_tcp_nodelay true\npersistence_location /var/lib/mosquitto/\nlistener 1884\nprotocol websockets\n\nconnection venue\naddress venue.lan:1883\ntopic a out 1\n"
	got, err := Configure(conf, 1, 2, "/tmp/x", map[string]string{"venue": "127.0.0.1:3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listener 1 127.0.0.1\n", "listener 2 127.0.0.1\nprotocol websockets\n", "address 127.0.0.1:3\n", "persistence_location /tmp/x/\n", "topic a out 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to hold %q", got, want)
		}
	}
	if strings.Contains(got, "/var/lib/mosquitto") || strings.Index(got, "persistence_location /tmp/x/") > strings.Index(got, "connection venue") {
		t.Errorf("got\n%s\nwant the test's persistence, before the bridge (global)", got)
	}
	if got, _ := Configure(conf, 1, 0, "/tmp/x", map[string]string{"venue": "a:1"}); !strings.Contains(got, "# listener 1884") || !strings.Contains(got, "# protocol websockets") {
		t.Errorf("without a WebSocket port: got\n%s\nwant the second listener left out", got)
	}
	if _, err := Configure(conf, 1, 0, "/tmp/x", nil); err == nil || !strings.Contains(err.Error(), `no address for the bridge "venue"`) {
		t.Errorf("no address: got %v; want the bridge named", err)
	}
}
