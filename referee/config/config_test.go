package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultsAreValid(t *testing.T) {
	c, err := Decode(strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if c.Table != "table1" || c.Rules != "star-board" || c.Broker.URL != "" || c.Broker.Embedded.Listen != "127.0.0.1:1883" ||
		c.Camera.Retry != 2*time.Second || c.JournalPath() != "/var/lib/liarsd/table1.journal" {
		t.Errorf("defaults: %+v", c)
	}
}

func TestExampleFile(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "testdata", "referee", "liarsd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if dee := c.Seats[len(c.Seats)-1]; !dee.Computer || dee.Level != "strong" || dee.Insight != 2 {
		t.Errorf("example: got seat %+v; want dee played by the referee (computer, strong, insight 2)", dee)
	}
	if c.Table != "kitchen" || len(c.Seats) != 4 || c.Seats[3].X != 1140 || c.Board == nil || c.Board.Track.StarSpaces != 10 ||
		c.Broker.Embedded.Users["scoreboard"] != "change-me" || c.Options["die_hard"] != true {
		t.Errorf("example: %+v", c)
	}
	if got, want := string(c.NewGameLine()), `{"options":{"die_hard":true},"rules":"star-board","seats":["ann","bob","cy","dee"],"type":"new_game"}`; got != want {
		t.Errorf("new game line: got %s; want %s", got, want)
	}
}

// TestDocExampleIsTheFile keeps docs/configuration.md's example the file it
// says it is: testdata/referee/liarsd.yaml below its opening comment.
func TestDocExampleIsTheFile(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## An example\n\n`testdata/referee/liarsd.yaml`")
	_, rest, opened := strings.Cut(section, "```yaml\n")
	example, _, closed := strings.Cut(rest, "```\n")
	if !ok || !opened || !closed {
		t.Fatal("docs/configuration.md: no example of testdata/referee/liarsd.yaml under its heading")
	}
	file, err := os.ReadFile(filepath.Join("..", "..", "testdata", "referee", "liarsd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(file), "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		lines = lines[1:]
	}
	if got := strings.Join(lines, ""); got != example {
		t.Errorf("testdata/referee/liarsd.yaml below its comment:\n%s\nwant docs/configuration.md's example:\n%s", got, example)
	}
}

func TestErrorsNameTheSetting(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"tabel: x", `line 1: unknown key "tabel" (the keys here: bluff_check, board,`},
		{"table: 'my table'", "table:"},
		{"rules: poker", `rules: no preset "poker"`},
		{"rules: kids\noptions: {dice: 3}\nseats: [{name: a}, {name: b}]", "kids does not take the option"},
		{"rules: common-hand\noptions: {calza: false}\nseats: [{name: a}, {name: b}]", `common-hand does not take the option "calza"`},
		{"rules: perudo\noptions: {wild: none}\nseats: [{name: a}, {name: b}]", `perudo does not take the option "wild"`},
		{"rules: perudo\noptions: {palifico: sometimes}\nseats: [{name: a}, {name: b}]", "palifico"},
		{"seats: [{name: a}]", "star-board is played by 2 to 6 seats"},
		{"seats: [{name: a}, {name: a}]", "named twice"},
		{"broker: {url: 'http://x'}", `broker.url: scheme "http"`},
		{"broker: {url: 'tcp://'}", "names no host"},
		{"broker: {embedded: {listen: nowhere}}", "broker.embedded.listen"},
		{"broker: {embedded: {listen: '0.0.0.0:1883'}}", "broker.embedded.users: mqtt: the embedded broker listens beyond loopback but no users"},
		{"broker: {embedded: {listen: ':1883', websocket: 'off'}}", "broker.embedded.users:"},
		{"broker: {embedded: {websocket: '0.0.0.0:1884'}}", "broker.embedded.users:"},
		{"broker: {url: 'tcp://broker.lan:1883', websocket: 'http://broker.lan:9001'}", `broker.websocket: "http://broker.lan:9001" is not a ws:// or wss:// URL`},
		{"broker: {url: 'tcp://broker.lan:1883', websocket: 'broker.lan:9001'}", "broker.websocket:"},
		{"broker: {url: 'tcp://broker.lan:1883', websocket: 'ws://'}", "broker.websocket: \"ws://\" names no host"},
		{"broker: {websocket: 'ws://broker.lan:9001'}", "broker.websocket: only with an external broker"},
		{"broker: {url: 'ssl://broker.lan:8883', ca_file: /nonexistent/ca.pem}", "broker.ca_file:"},
		{"broker: {prefix: 'a/b'}", "broker.prefix"},
		{"camera: {view: sideways}", "camera.view"},
		{"camera: {source: /dev/video0}", "camera: a camera needs seats"},
		{"camera: {min_confidence: 2}", "camera.min_confidence"},
		{"calibration: /nonexistent/cal.yaml", "calibration:"},
		{"board: {driver: laser, seats: [a], track: {number_spaces: 4}}", "board:"},
		{"log: {level: loud}", "log.level"},
		{"web: {public_url: 'ftp://bar-1.lan/'}", `web.public_url: "ftp://bar-1.lan/" is not an http:// or https:// URL`},
		{"web: {public_url: 'http://'}", `web.public_url: "http://" names no host`},
		{"web: {public_url: 'http://bar-1.lan:8080/?table=x'}", "web.public_url: \"http://bar-1.lan:8080/?table=x\" has a query or a fragment"},
		{"seats: [{name: a, bluff_bonus: 21}, {name: b}]", "seats: a: bluff_bonus must be -20 to 20"},
		{"seats: [{name: a, bluff_bonus: 2}, {name: b, computer: true, bluff_bonus: 1}]", "seats: b: a computer seat has insight, not a bluff bonus"},
		{"camera: {retry: soon}", `line 1: camera.retry: "soon" is not a duration (500ms, 2s, 1m)`},
		{"board: {intensity: 9600}", `line 1: board.intensity: "9600" is not a whole number from 0 to 255`},
		{"start_game: maybe", `line 1: start_game: "maybe" is not true or false`},
		{"broker: {urll: x}", `line 1: unknown key "urll" (the keys here: ca_file, client_id,`},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v; want an error with %q", c.yaml, err, c.want)
		}
	}
}

// TestBluffCheckSettings puts a table's bluff check in its game: on at a
// preset whose default is off, and a person's bonus.
func TestBluffCheckSettings(t *testing.T) {
	c, err := Decode(strings.NewReader("rules: common-hand\nbluff_check: true\nseats: [{name: ann, bluff_bonus: 3}, {name: bot, computer: true, insight: 2}]"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.NewGameLine()), `{"bluff_bonus":{"ann":3},"bluff_check":true,"rules":"common-hand","seats":["ann","bot"],"type":"new_game"}`; got != want {
		t.Errorf("new game line: got %s; want %s", got, want)
	}
}

func TestValidSettings(t *testing.T) {
	for _, y := range []string{
		"broker: {embedded: {listen: '0.0.0.0:1883', websocket: '0.0.0.0:1884', users: {operator: secret}}}",
		"broker: {embedded: {listen: 'localhost:1883', websocket: 'off'}}",
		"broker: {url: 'tcp://broker.lan:1883', websocket: 'ws://broker.lan:9001'}",
		"broker: {url: 'ssl://broker.lan:8883', websocket: 'wss://broker.lan/mqtt'}",
		// An external broker: the embedded broker's listeners are not used.
		"broker: {url: 'tcp://broker.lan:1883', embedded: {listen: '0.0.0.0:1883'}}",
	} {
		if _, err := Decode(strings.NewReader(y)); err != nil {
			t.Errorf("%q: got %v; want it valid", y, err)
		}
	}
}

// Files named by the configuration are read as the daemon reads them, so
// that liarsd run --check refuses what liarsd run would refuse.
func TestFilesAreReadAsAtStart(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	passwd := write("passwd", "root:x:0:0:root:/root:/bin/bash\n")
	cal := write("calibration.json", `{"version":1,"table":"kitchen"}`)
	oldCal := write("old.json", `{"version":99}`)
	ca := write("ca.pem", string(testCA(t)))
	cases := []struct{ yaml, want string }{
		{"calibration: " + passwd, "calibration: " + passwd + ": not a calibration file"},
		{"calibration: " + oldCal, "calibration: " + oldCal + ": the file is version 99"},
		{"calibration: " + cal, ""},
		{"broker: {url: 'ssl://broker.lan:8883', ca_file: " + passwd + "}", "broker.ca_file: mqtt: CA file " + passwd + " holds no PEM certificate"},
		{"broker: {url: 'ssl://broker.lan:8883', ca_file: " + ca + "}", ""},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(c.yaml))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: got %v; want it valid", c.yaml, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v; want an error with %q", c.yaml, err, c.want)
		}
	}
}

// testCA returns the PEM of a self-signed certificate authority.
func testCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "liarsd test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.yaml"))
	if err == nil || !strings.HasPrefix(err.Error(), "config: ") || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("got %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// Settings that do not fit others, and errors named as the package does.
func TestMoreErrorsNameTheSetting(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"camera: {retry: -1s}", "config: camera.retry: -1s is negative"},
		{"table: a\n---\ntable: b", "config: more than one YAML document"},
		{"seats: [{name: ann}, {name: bob}]\ncamera: {source: /dev/video0}",
			"config: seats: ann and bob are both at x 0, y 0: with a camera and no calibration, each seat needs its own position"},
		{"seats: [{name: ann}, {name: bob}]\nboard: {driver: sim, seats: [ann, Bob], track: {number_spaces: 10}}",
			"config: board.seats: bob is a seat of the table but not of the board (board seats: ann, Bob)"},
		{"tabel: x", `config: line 1: unknown key "tabel"`},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v; want an error with %q", c.yaml, err, c.want)
		}
	}
	// Validate alone (liarsd run --broker) says which package speaks.
	c := Default()
	c.Table = "a table"
	if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "config: table: ") {
		t.Errorf("Validate: got %v; want an error starting with %q", err, "config: table: ")
	}
}

func TestMoreValidSettings(t *testing.T) {
	for _, y := range []string{
		"---\ntable: a\n",
		"table: a\n...\n",
		// A board may have more seats than the table plays.
		"seats: [{name: ann}, {name: bob}]\nboard: {driver: sim, seats: [ann, bob, cy], track: {number_spaces: 10}}",
		// A computer seat needs no button, nor a place in the image.
		"seats: [{name: ann, x: 10, y: 10}, {name: bob, x: 90, y: 10}, {name: bot, computer: true}]\ncamera: {source: /dev/video0}\nboard: {driver: sim, seats: [ann, bob], track: {number_spaces: 10}}",
		"camera: {retry: 0s}",
	} {
		if _, err := Decode(strings.NewReader(y)); err != nil {
			t.Errorf("%q: got %v; want it valid", y, err)
		}
	}
}

// TestABadPresetIsNamedOnce: an unknown preset is one error, in words, not
// again in Go's slice syntax from the engine's check of the seats.
func TestABadPresetIsNamedOnce(t *testing.T) {
	_, err := Decode(strings.NewReader("table: t1\nrules: poker\nseats:\n  - name: ann\n  - name: bob\n"))
	if err == nil {
		t.Fatal("rules: poker: no error")
	}
	if got := strings.Count(err.Error(), "poker"); got != 1 || strings.Contains(err.Error(), "[") {
		t.Errorf("got %q; want the preset named once, with the presets listed in words", err)
	}
}

// TestExamplePasswordBeyondLoopback: the install example's password is
// refused where the broker listens beyond loopback, and allowed on it.
func TestExamplePasswordBeyondLoopback(t *testing.T) {
	conf := func(listen string) string {
		return "table: t1\nbroker:\n  embedded:\n    listen: " + listen + "\n    users:\n      operator: " + ExamplePassword + "\n"
	}
	_, err := Decode(strings.NewReader(conf("0.0.0.0:1883")))
	if err == nil || !strings.Contains(err.Error(), "operator has the example configuration's password") {
		t.Errorf("beyond loopback: got %v; want the example password refused", err)
	}
	if _, err := Decode(strings.NewReader(conf("127.0.0.1:1883"))); err != nil {
		t.Errorf("on loopback: got %v; want it accepted", err)
	}
}

// TestPerudoTable: a perudo table with its options is a configuration the
// referee takes, and its new_game carries them.
func TestPerudoTable(t *testing.T) {
	c, err := Decode(strings.NewReader("rules: perudo\noptions: {dice: 3, calza: false, palifico: true}\nseats: [{name: ann}, {name: bob}, {name: cy}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.NewGameLine()), `{"options":{"calza":false,"dice":3,"palifico":true},"rules":"perudo","seats":["ann","bob","cy"],"type":"new_game"}`; got != want {
		t.Errorf("new_game: got %s; want %s", got, want)
	}
}
