package homeassistant_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/homeassistant"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func snapshot(t *testing.T, lines ...string) engine.Snapshot {
	t.Helper()
	tb := engine.NewTable()
	for _, l := range lines {
		if _, err := record.Apply(tb, []byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	return tb.Snapshot()
}

// schema is what Home Assistant's MQTT discovery requires or liarsd
// promises, per component: required keys, and keys every entity has.
var schema = map[string][]string{
	"sensor":        {"state_topic", "unique_id", "name", "device", "availability_topic", "payload_available", "payload_not_available", "value_template"},
	"binary_sensor": {"state_topic", "unique_id", "name", "device", "payload_on", "payload_off"},
	"event":         {"state_topic", "unique_id", "name", "device", "availability_topic", "event_types", "value_template"},
}

var topicRE = regexp.MustCompile(`^homeassistant/(sensor|binary_sensor|event)/liarsd_t1/([A-Za-z0-9_-]+)/config$`)
var valueJSON = regexp.MustCompile(`value_json\.([a-z_]+)`)

// fields lists the JSON keys a snapshot and the events may carry.
func fields(t *testing.T) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	for _, v := range []any{engine.Snapshot{}, engine.Resolved{}, engine.GameOver{}, engine.BidSeat{}} {
		collect(t, v, keys)
	}
	return keys
}

func collect(t *testing.T, v any, keys map[string]bool) {
	t.Helper()
	// The zero value's JSON names the fields that are always there; the
	// ones left out when empty are listed by hand below.
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for k := range m {
		keys[k] = true
	}
	for _, k := range []string{"turn", "bid", "call", "wins", "stake", "pot", "running_pot", "star_die", "wild", "quantity", "face",
		"caller", "bidder", "count", "winner", "type", "seat", "palifico", "calza",
		"last", "status", "game_number"} { // the referee adds these to the engine's snapshot
		keys[k] = true // omitempty or nil in the zero value
	}
}

func TestConfigsSchema(t *testing.T) {
	known := fields(t)
	tables := map[string]engine.Snapshot{
		"star-board": snapshot(t, `{"type":"new_game","rules":"star-board","seats":["ann","Ann","cy z"],"first":"ann","seed":1}`,
			`{"type":"bid","seat":"ann","quantity":2,"face":1}`),
		"tavern":    snapshot(t, `{"type":"new_game","rules":"tavern","seats":["ann","bob"],"first":"ann","seed":1}`),
		"endurance": snapshot(t, `{"type":"new_game","rules":"endurance","seats":["ann","bob","cy"],"first":"ann","seed":1}`),
		"perudo":    snapshot(t, `{"type":"new_game","rules":"perudo","seats":["ann","bob","cy"],"first":"ann","seed":1}`),
		"idle":      {Phase: engine.PhaseIdle, Seats: []engine.SeatView{}},
	}
	var golden bytes.Buffer
	for _, name := range []string{"idle", "star-board", "tavern", "endurance", "perudo"} {
		msgs := homeassistant.Configs(homeassistant.Options{Table: "t1", Version: "test", ConfigurationURL: "http://bar-1.lan:8080/"}, tables[name])
		fmt.Fprintf(&golden, "# %s\n", name)
		ids := map[string]bool{}
		for _, m := range msgs {
			fmt.Fprintf(&golden, "%s %s\n", m.Topic, m.Payload)
			sub := topicRE.FindStringSubmatch(m.Topic)
			if sub == nil {
				t.Errorf("%s: topic %q is not homeassistant/<component>/liarsd_t1/<object id>/config", name, m.Topic)
				continue
			}
			var c map[string]any
			if err := json.Unmarshal(m.Payload, &c); err != nil {
				t.Errorf("%s: %s: %v", name, m.Topic, err)
				continue
			}
			for _, k := range schema[sub[1]] {
				if v, ok := c[k]; !ok || v == "" {
					t.Errorf("%s: %s: no %s", name, m.Topic, k)
				}
			}
			dev, _ := c["device"].(map[string]any)
			if ids, _ := dev["identifiers"].([]any); len(ids) == 0 {
				t.Errorf("%s: %s: the device has no identifiers", name, m.Topic)
			}
			if got := dev["configuration_url"]; got != "http://bar-1.lan:8080/" {
				t.Errorf("%s: %s: configuration_url got %v; want the table's page http://bar-1.lan:8080/", name, m.Topic, got)
			}
			uid, _ := c["unique_id"].(string)
			if ids[uid] {
				t.Errorf("%s: unique_id %s repeated", name, uid)
			}
			ids[uid] = true
			st, _ := c["state_topic"].(string)
			if !strings.HasPrefix(st, "liarsdice/t1/") {
				t.Errorf("%s: %s: state_topic %q is not one of the table's", name, m.Topic, st)
			}
			if key := sub[2]; (key == "game" || key == "hand") && c["state_class"] != nil {
				// A game or hand number is an ordinal, not a measurement:
				// Home Assistant would graph and average it.
				t.Errorf("%s: %s: state_class %v; want none for an ordinal counter", name, m.Topic, c["state_class"])
			}
			tmpl, _ := c["value_template"].(string)
			for _, ref := range valueJSON.FindAllStringSubmatch(tmpl, -1) {
				if !known[ref[1]] {
					t.Errorf("%s: %s: the template reads value_json.%s, which the table never publishes", name, m.Topic, ref[1])
				}
			}
		}
	}
	for name, want := range map[string][]string{
		"star-board": {"dice_ann", "dice_Ann", "dice_cy_z_", "bid", "turn", "last_result", "online", "result"},
		"tavern":     {"chips_ann", "pot"},
		"endurance":  {"wins_cy"},
		"perudo":     {"palifico", "dice_cy"},
	} {
		var got []string
		for _, m := range homeassistant.Configs(homeassistant.Options{Table: "t1"}, tables[name]) {
			got = append(got, topicRE.FindStringSubmatch(m.Topic)[2])
		}
		for _, w := range want {
			found := false
			for _, g := range got {
				found = found || strings.HasPrefix(g, w)
			}
			if !found {
				t.Errorf("%s: got entities %v; want one named %s", name, got, w)
			}
		}
	}
	path := filepath.Join("testdata", "configs.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, golden.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(golden.Bytes(), want) {
		t.Errorf("configs differ from %s (go test -update rewrites it after a deliberate change)", path)
	}
}

type recorder struct {
	mu   sync.Mutex
	msgs []homeassistant.Message
}

func (r *recorder) publish(topic string, payload []byte, retained bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !retained {
		panic("discovery configs must be retained")
	}
	r.msgs = append(r.msgs, homeassistant.Message{Topic: topic, Payload: payload})
}

func (r *recorder) take() []homeassistant.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.msgs
	r.msgs = nil
	return m
}

func TestPublisher(t *testing.T) {
	rec := &recorder{}
	p := homeassistant.NewPublisher(homeassistant.Options{Table: "t1"}, rec.publish)
	p.HomeAssistantStatus([]byte("online"))
	if got := rec.take(); len(got) != 0 {
		t.Errorf("online before any state: got %d messages; want 0", len(got))
	}
	three := snapshot(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":1}`)
	p.Update(three)
	first := rec.take()
	if len(first) != len(homeassistant.Configs(homeassistant.Options{Table: "t1"}, three)) {
		t.Errorf("first update: got %d messages; want every config", len(first))
	}
	p.Update(three)
	if got := rec.take(); len(got) != 0 {
		t.Errorf("same entities again: got %d messages; want 0", len(got))
	}
	two := snapshot(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":2}`)
	p.Update(two)
	got := rec.take()
	if len(got) != 1 || got[0].Topic != "homeassistant/sensor/liarsd_t1/dice_cy/config" || len(got[0].Payload) != 0 {
		t.Errorf("cy leaves the table: got %v; want cy's dice sensor removed (empty payload)", got)
	}
	p.HomeAssistantStatus([]byte("offline"))
	if got := rec.take(); len(got) != 0 {
		t.Errorf("offline: got %d messages; want 0", len(got))
	}
	p.HomeAssistantStatus([]byte("online"))
	if got := rec.take(); len(got) != len(first)-1 {
		t.Errorf("Home Assistant back online: got %d messages; want all %d configs again", len(got), len(first)-1)
	}
	p.Remove()
	removed := rec.take()
	for _, m := range removed {
		if len(m.Payload) != 0 {
			t.Errorf("remove: %s got a payload; want empty", m.Topic)
		}
	}
	if len(removed) != len(first)-1 {
		t.Errorf("remove: got %d removals; want %d", len(removed), len(first)-1)
	}
	// A config left on the broker by an earlier run, for a seat no
	// longer there, goes at the next update.
	p2 := homeassistant.NewPublisher(homeassistant.Options{Table: "t1"}, rec.publish)
	p2.Known("homeassistant/sensor/liarsd_t1/dice_zed/config", []byte(`{"name":"zed dice"}`))
	p2.Update(two)
	var gone bool
	for _, m := range rec.take() {
		gone = gone || (m.Topic == "homeassistant/sensor/liarsd_t1/dice_zed/config" && len(m.Payload) == 0)
	}
	if !gone {
		t.Error("a leftover config of a seat no longer at the table was not removed")
	}
}

// TestRunAgainstBroker runs the discovery client against the embedded
// broker, as the daemon does: configs appear retained, come again when
// Home Assistant says online, and RemoveAll clears them.
func TestRunAgainstBroker(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	state := snapshot(t, `{"type":"new_game","rules":"tavern","seats":["ann","bob"],"first":"ann","seed":1}`)
	sb, _ := json.Marshal(state)
	pubCli := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("referee"))
	if tok := pubCli.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer pubCli.Disconnect(100)
	pubCli.Publish("liarsdice/t1/state", 1, true, sb).Wait()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- homeassistant.Run(ctx, homeassistant.RunOptions{Options: homeassistant.Options{Table: "t1"}, Broker: b.URL()})
	}()
	want := homeassistant.Configs(homeassistant.Options{Table: "t1"}, state)
	sub := mqtttest.Subscribe(t, b.URL(), "ha-watch", "homeassistant/#")
	configs := func(ms []mqtttest.Message) int {
		n := 0
		for _, m := range ms {
			if strings.HasSuffix(m.Topic, "/config") && len(m.Payload) > 0 {
				n++
			}
		}
		return n
	}
	sub.Wait(t, 10*time.Second, "every config", func(ms []mqtttest.Message) bool { return configs(ms) >= len(want) })
	pubCli.Publish("homeassistant/status", 1, false, []byte("online")).Wait()
	sub.Wait(t, 10*time.Second, "configs again after online", func(ms []mqtttest.Message) bool { return configs(ms) >= 2*len(want) })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer rcancel()
	if err := homeassistant.RemoveAll(rctx, homeassistant.RunOptions{Options: homeassistant.Options{Table: "t1"}, Broker: b.URL()}); err != nil {
		t.Fatal(err)
	}
	// A newcomer finds no config retained.
	after := mqtttest.Subscribe(t, b.URL(), "ha-after", "homeassistant/#")
	time.Sleep(500 * time.Millisecond)
	var left []string
	for _, m := range after.Messages() {
		if len(m.Payload) > 0 {
			left = append(left, m.Topic)
		}
	}
	sort.Strings(left)
	if len(left) != 0 {
		t.Errorf("after RemoveAll: got retained configs %v; want none", left)
	}
}

// syncBuffer is a log's output that the test reads while the logger writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunOverTLS runs discovery against a broker with TLS, a test
// authority and a password, as broker.url, broker.ca_file and the login
// configure it: the configs arrive. Without the authority the client
// cannot connect, and says so at warn.
func TestRunOverTLS(t *testing.T) {
	m := mqtttest.StartMosquittoTLS(t, "liarsd", "s3cret")
	login := mqtttest.Login{URL: m.URL(), Username: "liarsd", Password: "s3cret", CAFile: m.CAFile}
	state := snapshot(t, `{"type":"new_game","rules":"kids","seats":["ann","bob"],"first":"ann","seed":1}`)
	sb, _ := json.Marshal(state)
	login.ClientID = "referee"
	referee := mqtttest.SubscribeWith(t, login, "liarsdice/t1/reply")
	if tok := referee.Client().Publish("liarsdice/t1/state", 1, true, sb); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	login.ClientID = "ha-watch"
	sub := mqtttest.SubscribeWith(t, login, "homeassistant/#")

	run := func(o homeassistant.RunOptions, log *syncBuffer) (stop func() error) {
		o.Options, o.Broker, o.Username, o.Password = homeassistant.Options{Table: "t1"}, m.URL(), "liarsd", "s3cret"
		o.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- homeassistant.Run(ctx, o) }()
		return func() error { cancel(); return <-done }
	}

	// Without the authority: refused, and the log says so.
	var untrusted syncBuffer
	stop := run(homeassistant.RunOptions{ClientID: "ha-untrusted"}, &untrusted)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(untrusted.String(), "level=WARN") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if log := untrusted.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "cannot connect") || !strings.Contains(log, "certificate") {
		t.Errorf("discovery without the broker's authority: got log %q; want a warning that it cannot connect", log)
	}
	if n := len(sub.Messages()); n != 0 {
		t.Fatalf("discovery without the broker's authority: got %d configs; want none", n)
	}

	// With it: every config.
	var trusted syncBuffer
	stop = run(homeassistant.RunOptions{CAFile: m.CAFile}, &trusted)
	want := homeassistant.Configs(homeassistant.Options{Table: "t1"}, state)
	sub.Wait(t, 10*time.Second, "every config over TLS", func(ms []mqtttest.Message) bool { return len(ms) >= len(want) })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(trusted.String(), "level=WARN") {
		t.Errorf("discovery with the broker's authority: got warnings %q", trusted.String())
	}
}

// A CA file that holds no certificate stops discovery with an error that
// says so, as it stops the referee's own client.
func TestRunWithABadCAFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(bad, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
	o := homeassistant.RunOptions{Options: homeassistant.Options{Table: "t1"}, Broker: "ssl://127.0.0.1:1", CAFile: bad}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := homeassistant.Run(ctx, o); err == nil || !strings.HasPrefix(err.Error(), "homeassistant: ") || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("Run: got %v; want an error naming the CA file", err)
	}
	if err := homeassistant.RemoveAll(ctx, o); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("RemoveAll: got %v; want an error naming the CA file", err)
	}
}

// MQTT.md: a table's id is letters, digits, - and _. Discovery for any
// other id (a wildcard, a topic level separator, nothing) would subscribe
// to or publish on other tables' topics; Run and RemoveAll refuse it
// before connecting.
func TestRunRefusesABadTableID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, table := range []string{"", "a/b", "+", "#", "t 1"} {
		o := homeassistant.RunOptions{Options: homeassistant.Options{Table: table}, Broker: "tcp://127.0.0.1:1"}
		for name, run := range map[string]func(context.Context, homeassistant.RunOptions) error{"Run": homeassistant.Run, "RemoveAll": homeassistant.RemoveAll} {
			err := run(ctx, o)
			if err == nil || !strings.HasPrefix(err.Error(), "homeassistant: ") || !strings.Contains(err.Error(), "table id") {
				t.Errorf("%s(table %q): got %v; want an error about the table id", name, table, err)
			}
		}
	}
}

// TestRunSurvivesBadStates: payloads on the table's state topic that are
// not a snapshot (not JSON, not an object, fields of the wrong type) are
// logged and left out; discovery carries on and follows the next good
// state.
func TestRunSurvivesBadStates(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pubCli := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("referee"))
	if tok := pubCli.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer pubCli.Disconnect(100)
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- homeassistant.Run(ctx, homeassistant.RunOptions{Options: homeassistant.Options{Table: "t1"}, Broker: b.URL(),
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
	}()
	sub := mqtttest.Subscribe(t, b.URL(), "ha-watch", "homeassistant/#")
	// Run subscribes some time after it starts, and a retained state
	// replaces the last: the bad states go out again until it has heard one.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "not a snapshot"); {
		if time.Now().After(deadline) {
			t.Fatalf("bad states: got log %q; want a warning that the state is not a snapshot", log.String())
		}
		for _, bad := range []string{`nope`, `[]`, `"x"`, `{"seats":"x"}`, `{"seats":[{"name":5}]}`, `{"bid":[1,2]}`} {
			pubCli.Publish("liarsdice/t1/state", 1, true, []byte(bad)).Wait()
		}
		time.Sleep(20 * time.Millisecond)
	}
	state := snapshot(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`)
	sb, _ := json.Marshal(state)
	pubCli.Publish("liarsdice/t1/state", 1, true, sb).Wait()
	want := homeassistant.Configs(homeassistant.Options{Table: "t1"}, state)
	sub.Wait(t, 10*time.Second, "every config after bad states", func(ms []mqtttest.Message) bool {
		n := 0
		for _, m := range ms {
			if strings.HasSuffix(m.Topic, "/dice_bob/config") && len(m.Payload) > 0 {
				n++
			}
		}
		return n > 0 && len(ms) >= len(want)
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
