// Package config reads a table's configuration file (YAML): the table's
// id, its rules and seats, the camera, the broker, the board's pin map, the
// calibration file and the journal. Every setting has a default; Load
// fills them in and Validate says clearly what is wrong.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/mqtt"
)

// DefaultPath is where liarsd run looks for its configuration.
const DefaultPath = "/etc/liarsd/liarsd.yaml"

// Config is a table's configuration file.
type Config struct {
	// Table is the table's id: letters, digits, - and _ (MQTT topics).
	Table string `yaml:"table"`
	// Rules is the preset a new game plays when a new_game names none.
	Rules string `yaml:"rules"`
	// Options are the preset's options (RULINGS.md), as in new_game.
	Options map[string]any `yaml:"options,omitempty"`
	// BluffCheck turns the bluff check on or off (nil: the preset's way,
	// on in classic only).
	BluffCheck *bool `yaml:"bluff_check,omitempty"`
	// Seats are the table's seats, clockwise.
	Seats []Seat `yaml:"seats"`
	// StartGame starts a game with Rules and Seats when the journal is
	// empty, so that a fresh table is ready to play.
	StartGame bool `yaml:"start_game"`
	// StateDir holds the journal (unless Journal says otherwise), the MQTT
	// store and the watermark.
	StateDir string `yaml:"state_dir"`
	// Journal is the journal's directory (default STATE_DIR/TABLE.journal);
	// an older journal's file there is moved into it at start.
	Journal string `yaml:"journal"`
	// JournalSegmentLines is the number of record lines after which the
	// journal starts a new segment, which begins with a checkpoint: a
	// start replays about this many lines (journal.DefaultSegmentLines).
	JournalSegmentLines int              `yaml:"journal_segment_lines"`
	Broker              Broker           `yaml:"broker"`
	Camera              Camera           `yaml:"camera"`
	Calibration         string           `yaml:"calibration,omitempty"`
	Board               *hardware.Config `yaml:"board,omitempty"`
	Log                 Log              `yaml:"log"`
	Web                 Web              `yaml:"web,omitempty"`
}

// Web is about the scoreboard's pages.
type Web struct {
	// PublicURL is the address phones and Home Assistant open the pages
	// at (http://bar-1.lan:8080/, https://liars.example.org/bar-1/):
	// the QR codes on the pages and the device's link in Home Assistant.
	// Empty: the host a browser asked for, or the machine's own address
	// on the network.
	PublicURL string `yaml:"public_url,omitempty"`
}

// Seat is one seat at the table.
type Seat struct {
	Name string `yaml:"name"`
	// X and Y are where the seat's dice lie in the camera's image, in
	// pixels: without calibration, each die goes to the nearest seat.
	X float64 `yaml:"x"`
	Y float64 `yaml:"y"`
	// Computer seats are played by the referee: their dice are rolled from
	// the game's seed and shown only at the reveal.
	Computer bool `yaml:"computer,omitempty"`
	// Level is a computer seat's play: random, threshold, beginner,
	// strong-v1 or strong (strong).
	Level string `yaml:"level,omitempty"`
	// Insight is a computer seat's bonus against a person's bluff check.
	Insight int `yaml:"insight,omitempty"`
	// BluffBonus is a person's bonus to the bluff check (-20 to 20).
	BluffBonus int `yaml:"bluff_bonus,omitempty"`
}

// Broker says where MQTT goes.
type Broker struct {
	// URL of an external broker (tcp://, ssl://, ws://, wss://); empty
	// starts the embedded broker.
	URL      string `yaml:"url"`
	Username string `yaml:"username,omitempty"`
	Password string `yaml:"password,omitempty"`
	// WebSocket is the address browsers reach an external broker's
	// WebSocket listener at (ws://host:9001, wss://...), for the scoreboard
	// and the venue dashboard; the embedded broker's is Embedded.WebSocket.
	WebSocket string `yaml:"websocket,omitempty"`
	// CAFile is a PEM file of the broker's certificate authority.
	CAFile             string `yaml:"ca_file,omitempty"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify,omitempty"`
	// Prefix is the topics' first level (liarsdice).
	Prefix string `yaml:"prefix"`
	// ClientID defaults to liarsd-TABLE.
	ClientID string   `yaml:"client_id,omitempty"`
	Embedded Embedded `yaml:"embedded"`
	// HomeAssistant publishes Home Assistant's MQTT discovery configs
	// (default true).
	HomeAssistant *bool `yaml:"home_assistant,omitempty"`
}

// Embedded configures the embedded broker.
type Embedded struct {
	// Listen is the MQTT listener (127.0.0.1:1883).
	Listen string `yaml:"listen"`
	// WebSocket is the listener for browsers (127.0.0.1:1884); "off" for
	// none.
	WebSocket string `yaml:"websocket"`
	// Users may send commands when a listener is beyond loopback: name to
	// password.
	Users map[string]string `yaml:"users,omitempty"`
}

// Camera says where images come from and how they are read.
type Camera struct {
	// Source is a vision source ("/dev/video0", "gst:PIPELINE",
	// "file:PATH", "dir:PATH"), or "" for none: reveals then come from
	// commands.
	Source string `yaml:"source"`
	// View is top (the camera looks down) or bottom (up through a glass
	// board).
	View string `yaml:"view"`
	// DieSize is a die's extent in pixels, the side of its box as the
	// camera sees it (vision.Options.DieSize; 0: the reader estimates it).
	DieSize float64 `yaml:"die_size,omitempty"`
	// MinConfidence below which a die is uncertain (0: the reader's
	// default).
	MinConfidence float64 `yaml:"min_confidence,omitempty"`
	// Retry is the wait before capturing again after a read that needs a
	// look.
	Retry time.Duration `yaml:"retry"`
	// MaxSeatDistance: a die farther than this (pixels) from every seat
	// belongs to none and needs a look (0: no limit).
	MaxSeatDistance float64 `yaml:"max_seat_distance,omitempty"`
	// Learn keeps each reveal's frame with its final dice (after any
	// operator's correction) under the state folder's examples/, as
	// labelled photographs the reader can be retrained on (docs/vision.md).
	Learn bool `yaml:"learn,omitempty"`
	// Models is a folder of retrained networks (finder.onnx, faces.onnx,
	// reader.json, as make train-house writes them) to read with instead
	// of the embedded ones; "" for the embedded ones.
	Models string `yaml:"models,omitempty"`
}

// Log configures logging.
type Log struct {
	// Level is debug, info, warn or error.
	Level string `yaml:"level"`
	// Format is text or json.
	Format string `yaml:"format"`
}

// Default returns the configuration of a table with nothing configured.
func Default() Config {
	return Config{
		Table:               "table1",
		Rules:               "star-board",
		StateDir:            "/var/lib/liarsd",
		JournalSegmentLines: journal.DefaultSegmentLines,
		Broker: Broker{
			Prefix:   mqtt.DefaultPrefix,
			Embedded: Embedded{Listen: "127.0.0.1:1883", WebSocket: "127.0.0.1:1884"},
		},
		Camera: Camera{View: "top", Retry: 2 * time.Second},
		Log:    Log{Level: "info", Format: "text"},
	}
}

// ExamplePassword is the password of docs/install/liarsd.yaml's operator:
// a broker that listens beyond loopback refuses it, since anyone who read
// the docs knows it.
const ExamplePassword = "change-this-password"

// Load reads the file at path over the defaults and validates it.
func Load(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	c, err := decode(f)
	if err != nil {
		return Config{}, fmt.Errorf("config: %s: %w", path, err)
	}
	return c, nil
}

// Decode reads a configuration over the defaults and validates it. Unknown
// keys are errors, so that a typo does not go unnoticed.
func Decode(r io.Reader) (Config, error) {
	c, err := decode(r)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// decode is Decode with its errors unprefixed (Load names the file).
func decode(r io.Reader) (Config, error) {
	c := Default()
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, err
	}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return Config{}, explainYAML(data, err)
		}
		// One file is one document: a second one (after ---) would be
		// silently ignored.
		var more yaml.Node
		if err := dec.Decode(&more); err != io.EOF {
			return Config{}, errors.New("more than one YAML document (a --- line): the file is one document")
		}
	}
	c.fill()
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// fill sets the defaults that depend on other settings.
func (c *Config) fill() {
	if c.Broker.Prefix == "" {
		c.Broker.Prefix = mqtt.DefaultPrefix
	}
	if c.Broker.Embedded.Listen == "" {
		c.Broker.Embedded.Listen = "127.0.0.1:1883"
	}
	if c.JournalSegmentLines == 0 { // a negative one is an error (Validate)
		c.JournalSegmentLines = journal.DefaultSegmentLines
	}
	if c.Camera.Retry == 0 { // a negative one is an error (Validate)
		c.Camera.Retry = 2 * time.Second
	}
	if c.Camera.View == "" {
		c.Camera.View = "top"
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "text"
	}
}

// JournalPath is the journal's directory.
func (c Config) JournalPath() string {
	if c.Journal != "" {
		return c.Journal
	}
	return filepath.Join(c.StateDir, c.Table+".journal")
}

// MQTTStoreDir is where the MQTT client keeps its store and watermark.
func (c Config) MQTTStoreDir() string {
	return filepath.Join(c.StateDir, c.Table+".mqtt")
}

// SeatNames returns the seats' names, clockwise.
func (c Config) SeatNames() []string {
	names := make([]string, len(c.Seats))
	for i, s := range c.Seats {
		names[i] = s.Name
	}
	return names
}

// NewGameLine is the record line of a new game with the table's rules,
// options and seats.
func (c Config) NewGameLine() []byte {
	line := map[string]any{"type": "new_game", "rules": c.Rules, "seats": c.SeatNames()}
	if len(c.Options) > 0 {
		line["options"] = c.Options
	}
	if c.BluffCheck != nil {
		line["bluff_check"] = *c.BluffCheck
	}
	bonus := map[string]int{}
	for _, s := range c.Seats {
		if s.BluffBonus != 0 {
			bonus[s.Name] = s.BluffBonus
		}
	}
	if len(bonus) > 0 {
		line["bluff_bonus"] = bonus
	}
	b, _ := json.Marshal(line)
	return b
}

// ReaderSettings are the table's own settings of its dice reader, beside
// its calibration (calibration.NewTableReader): only star-board is played
// with star dice.
func (c Config) ReaderSettings() calibration.ReaderSettings {
	return calibration.ReaderSettings{StarDice: c.Rules == "star-board", View: c.Camera.View,
		DieSize: c.Camera.DieSize, MinConfidence: c.Camera.MinConfidence, Models: c.Camera.Models}
}

// Validate checks every setting and names each one that is wrong.
func (c Config) Validate() error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

func (c Config) validate() error {
	var p problems
	c.checkGame(&p)
	c.checkBroker(&p)
	c.checkCamera(&p)
	c.checkHardware(&p)
	return errors.Join(p...)
}

// problems are the settings found wrong, in the order checked.
type problems []error

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Errorf(format, args...)) }

// checkGame checks the table, its rules, its state and its seats, and
// the game they make as the engine will take it.
func (c Config) checkGame(p *problems) {
	if !mqtt.ValidTable(c.Table) {
		p.add("table: %q is not 1 to 64 letters, digits, - or _", c.Table)
	}
	if _, ok := engine.Presets[c.Rules]; !ok {
		p.add("rules: no preset %q (presets: %s)", c.Rules, strings.Join(engine.PresetNames(), ", "))
	}
	if c.StateDir == "" {
		p.add("state_dir: empty")
	}
	if c.JournalSegmentLines < 1 {
		p.add("journal_segment_lines: %d; want 1 or more (%d by default)", c.JournalSegmentLines, journal.DefaultSegmentLines)
	}
	for _, s := range c.Seats {
		if s.Computer && s.BluffBonus != 0 {
			p.add("seats: %s: a computer seat has insight, not a bluff bonus", s.Name)
		}
		if s.BluffBonus < -engine.MaxBluffBonus || s.BluffBonus > engine.MaxBluffBonus {
			p.add("seats: %s: bluff_bonus must be -%d to %d", s.Name, engine.MaxBluffBonus, engine.MaxBluffBonus)
		}
		if !s.Computer && (s.Level != "" || s.Insight != 0) {
			p.add("seats: %s has a level or insight but is not a computer seat (computer: true)", s.Name)
		}
		if s.Computer && s.Level != "" {
			if _, err := computer.New(s.Level); err != nil {
				p.add("seats: %s: %v", s.Name, err)
			}
		}
		if s.Insight < 0 || s.Insight > engine.MaxInsight {
			p.add("seats: %s: insight must be 0 to %d", s.Name, engine.MaxInsight)
		}
	}
	if _, ok := engine.Presets[c.Rules]; ok && (len(c.Seats) > 0 || c.StartGame) {
		// The engine checks names, count and options exactly as it will
		// for the game itself.
		if a, err := record.Decode(c.NewGameLine()); err != nil {
			p.add("rules/options/seats: %v", err)
		} else if _, err := engine.NewTable().Apply(a); err != nil {
			var rej *engine.Rejection
			if errors.As(err, &rej) {
				p.add("rules/options/seats: %s", rej.Message)
			} else {
				p.add("rules/options/seats: %v", err)
			}
		}
	}
}

// checkBroker checks the broker's settings and the pages' address.
func (c Config) checkBroker(p *problems) {
	if c.Broker.URL != "" {
		u, err := url.Parse(c.Broker.URL)
		switch {
		case err != nil:
			p.add("broker.url: %v", err)
		case u.Scheme != "tcp" && u.Scheme != "ssl" && u.Scheme != "tls" && u.Scheme != "mqtt" && u.Scheme != "mqtts" && u.Scheme != "ws" && u.Scheme != "wss":
			p.add("broker.url: scheme %q (want tcp, ssl, ws or wss)", u.Scheme)
		case u.Host == "":
			p.add("broker.url: %q names no host", c.Broker.URL)
		}
	}
	if ws := c.Broker.WebSocket; ws != "" {
		u, err := url.Parse(ws)
		switch {
		case c.Broker.URL == "":
			p.add("broker.websocket: only with an external broker (broker.url); the embedded broker's is broker.embedded.websocket")
		case err != nil:
			p.add("broker.websocket: %v", err)
		case u.Scheme != "ws" && u.Scheme != "wss":
			p.add("broker.websocket: %q is not a ws:// or wss:// URL", ws)
		case u.Host == "":
			p.add("broker.websocket: %q names no host", ws)
		}
	}
	if pu := c.Web.PublicURL; pu != "" {
		u, err := url.Parse(pu)
		switch {
		case err != nil:
			p.add("web.public_url: %v", err)
		case u.Scheme != "http" && u.Scheme != "https":
			p.add("web.public_url: %q is not an http:// or https:// URL", pu)
		case u.Host == "":
			p.add("web.public_url: %q names no host", pu)
		case u.RawQuery != "" || u.Fragment != "":
			p.add("web.public_url: %q has a query or a fragment; give the pages' address only", pu)
		}
	}
	if c.Broker.CAFile != "" {
		// Read as the MQTT client reads it: a file that holds no
		// certificate is refused here, not at start.
		if _, err := mqtt.CertPool(c.Broker.CAFile); err != nil {
			p.add("broker.ca_file: %v", err)
		}
	}
	if strings.ContainsAny(c.Broker.Prefix, "+#/") {
		p.add("broker.prefix: %q must be one topic level without wildcards", c.Broker.Prefix)
	}
	if c.Broker.URL == "" {
		if err := checkAddr(c.Broker.Embedded.Listen); err != nil {
			p.add("broker.embedded.listen: %v", err)
		}
		ws := c.Broker.Embedded.WebSocket
		if ws == "off" {
			ws = ""
		}
		if ws != "" {
			if err := checkAddr(ws); err != nil {
				p.add("broker.embedded.websocket: %v", err)
			}
		}
		// The broker's own rule, so that --check refuses what the broker
		// would refuse at start.
		if err := mqtt.CheckExposure(c.Broker.Embedded.Listen, ws, c.Broker.Embedded.Users); err != nil {
			p.add("broker.embedded.users: %v", err)
		}
		if mqtt.Exposed(c.Broker.Embedded.Listen, ws) {
			for _, name := range slices.Sorted(maps.Keys(c.Broker.Embedded.Users)) {
				if c.Broker.Embedded.Users[name] == ExamplePassword {
					p.add("broker.embedded.users: %s has the example configuration's password %q, and the broker listens beyond loopback: choose another", name, ExamplePassword)
				}
			}
		}
	}
}

// checkCamera checks the camera and how its dice are assigned to seats.
func (c Config) checkCamera(p *problems) {
	switch c.Camera.View {
	case "top", "bottom":
	default:
		p.add("camera.view: %q (want top or bottom)", c.Camera.View)
	}
	if c.Camera.MinConfidence < 0 || c.Camera.MinConfidence > 1 {
		p.add("camera.min_confidence: %v is not 0 to 1", c.Camera.MinConfidence)
	}
	if c.Camera.DieSize < 0 || c.Camera.MaxSeatDistance < 0 {
		p.add("camera: die_size and max_seat_distance must not be negative")
	}
	if c.Camera.Retry < 0 {
		p.add("camera.retry: %v is negative", c.Camera.Retry)
	}
	if c.Camera.Source != "" && len(c.Seats) == 0 && c.Calibration == "" {
		p.add("camera: a camera needs seats with positions (or a calibration) to assign dice to seats")
	}
	if c.Camera.Source != "" && c.Calibration == "" {
		// Without calibration each die goes to the nearest seat: two seats
		// at one place (x and y left out) would share every die.
		at := map[[2]float64]string{}
		for _, s := range c.Seats {
			if s.Computer { // the camera reads no computer seat's dice
				continue
			}
			xy := [2]float64{s.X, s.Y}
			if other, ok := at[xy]; ok {
				p.add("seats: %s and %s are both at x %v, y %v: with a camera and no calibration, each seat needs its own position", other, s.Name, s.X, s.Y)
			}
			at[xy] = s.Name
		}
	}
}

// checkHardware checks the calibration file, the board and the logs.
func (c Config) checkHardware(p *problems) {
	if c.Calibration != "" {
		// Read as the daemon reads it at start: a file that is not a
		// calibration file, or of another version, is refused here.
		if _, err := os.Stat(c.Calibration); err != nil {
			p.add("calibration: %v", err)
		} else if _, err := calibration.Load(c.Calibration); err != nil {
			p.add("calibration: %s: %s", c.Calibration, strings.TrimPrefix(err.Error(), "calibration: "))
		}
	}
	if c.Board != nil {
		if err := c.Board.Validate(); err != nil {
			p.add("board: %v", err)
		}
		// The board shows seats and reads their buttons by name: a person's
		// seat the board does not name would have neither.
		for _, s := range c.Seats {
			if !s.Computer && !slices.Contains(c.Board.Seats, s.Name) {
				p.add("board.seats: %s is a seat of the table but not of the board (board seats: %s)", s.Name, strings.Join(c.Board.Seats, ", "))
			}
		}
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		p.add("log.level: %q (want debug, info, warn or error)", c.Log.Level)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		p.add("log.format: %q (want text or json)", c.Log.Format)
	}
}

func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if port == "" {
		return fmt.Errorf("%q has no port", addr)
	}
	return nil
}
