package config

import (
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
	if c.Table != "kitchen" || len(c.Seats) != 4 || c.Seats[3].X != 1140 || c.Board == nil || c.Board.Track.StarSpaces != 10 ||
		c.Broker.Embedded.Users["scoreboard"] != "change-me" || c.Options["die_hard"] != true {
		t.Errorf("example: %+v", c)
	}
	if got, want := string(c.NewGameLine()), `{"options":{"die_hard":true},"rules":"star-board","seats":["ann","bob","cy","dee"],"type":"new_game"}`; got != want {
		t.Errorf("new game line: got %s; want %s", got, want)
	}
}

func TestErrorsNameTheSetting(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"tabel: x", "field tabel not found"},
		{"table: 'my table'", "table:"},
		{"rules: poker", `rules: no preset "poker"`},
		{"rules: kids\noptions: {dice: 3}\nseats: [{name: a}, {name: b}]", "kids does not take the option"},
		{"seats: [{name: a}]", "star-board is played by 2 to 6 seats"},
		{"seats: [{name: a}, {name: a}]", "named twice"},
		{"broker: {url: 'http://x'}", `broker.url: scheme "http"`},
		{"broker: {url: 'tcp://'}", "names no host"},
		{"broker: {embedded: {listen: nowhere}}", "broker.embedded.listen"},
		{"broker: {prefix: 'a/b'}", "broker.prefix"},
		{"camera: {view: sideways}", "camera.view"},
		{"camera: {source: /dev/video0}", "camera: a camera needs seats"},
		{"camera: {min_confidence: 2}", "camera.min_confidence"},
		{"calibration: /nonexistent/cal.yaml", "calibration:"},
		{"board: {driver: laser, seats: [a], track: {number_spaces: 4}}", "board:"},
		{"log: {level: loud}", "log.level"},
		{"camera: {retry: soon}", "line 1: cannot unmarshal !!str `soon` into time.Duration"},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v; want an error with %q", c.yaml, err, c.want)
		}
	}
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
