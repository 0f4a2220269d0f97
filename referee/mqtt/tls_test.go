package mqtt_test

import (
	"crypto/tls"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/mqtt"
)

// A client built from a CA file trusts a broker whose certificate it
// signed, and one built without trusts the system's authorities only.
func TestTLSConfigTrustsTheCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(nil) // its certificate is its own authority
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := srv.Listener.Addr().String()
	dial := func(tc *tls.Config) error {
		if tc == nil {
			tc = &tls.Config{}
		}
		conn, err := tls.Dial("tcp", addr, tc)
		if err == nil {
			conn.Close()
		}
		return err
	}

	tc, err := mqtt.TLSConfig(ca, false)
	if err != nil || tc == nil || tc.RootCAs == nil || tc.InsecureSkipVerify {
		t.Fatalf("TLSConfig(%s): got %+v, %v; want its authority as the roots", ca, tc, err)
	}
	if err := dial(tc); err != nil {
		t.Errorf("a broker signed by the CA file: got %v; want it trusted", err)
	}
	none, err := mqtt.TLSConfig("", false)
	if none != nil || err != nil {
		t.Errorf(`TLSConfig("", false): got %+v, %v; want nil (the system's authorities)`, none, err)
	}
	if err := dial(none); err == nil {
		t.Error("the system's authorities: got the test broker trusted; want refused")
	}
	insecure, err := mqtt.TLSConfig("", true)
	if err != nil || insecure == nil || !insecure.InsecureSkipVerify {
		t.Errorf(`TLSConfig("", true): got %+v, %v; want certificates unchecked`, insecure, err)
	}
}

func TestTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "passwd")
	os.WriteFile(notPEM, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
	for _, c := range []struct{ file, want string }{
		{notPEM, "holds no PEM certificate"},
		{filepath.Join(dir, "missing.pem"), "no such file"},
	} {
		if _, err := mqtt.TLSConfig(c.file, false); err == nil || !strings.HasPrefix(err.Error(), "mqtt: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("TLSConfig(%s): got %v; want an error with %q", c.file, err, c.want)
		}
		if _, err := mqtt.CertPool(c.file); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CertPool(%s): got %v; want an error with %q", c.file, err, c.want)
		}
	}
}

func TestCheckExposure(t *testing.T) {
	users := map[string]string{"operator": "secret"}
	for _, c := range []struct {
		tcp, ws string
		users   map[string]string
		exposed bool
	}{
		{"127.0.0.1:1883", "127.0.0.1:1884", nil, false},
		{"localhost:1883", "", nil, false},
		{"[::1]:1883", "", nil, false},
		{"0.0.0.0:1883", "", nil, true},
		{":1883", "", nil, true},
		{"127.0.0.1:1883", "0.0.0.0:1884", nil, true},
		{"0.0.0.0:1883", "0.0.0.0:1884", users, true},
	} {
		if got := mqtt.Exposed(c.tcp, c.ws); got != c.exposed {
			t.Errorf("Exposed(%q, %q): got %v; want %v", c.tcp, c.ws, got, c.exposed)
		}
		err := mqtt.CheckExposure(c.tcp, c.ws, c.users)
		if want := c.exposed && len(c.users) == 0; (err != nil) != want {
			t.Errorf("CheckExposure(%q, %q, %v): got %v; want an error: %v", c.tcp, c.ws, c.users, err, want)
		}
	}
}
