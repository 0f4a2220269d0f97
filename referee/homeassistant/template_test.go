package homeassistant_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/homeassistant"
)

// renderJinja renders a Home Assistant template with Jinja2 (Python's,
// Debian's python3-jinja2: the engine Home Assistant's templates run on)
// in a sandbox, for each payload as value_json. It skips the test where
// Jinja2 is missing.
func renderJinja(t *testing.T, tmpl string, payloads [][]byte) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is missing: the templates are not rendered")
	}
	if err := exec.Command(py, "-c", "import jinja2").Run(); err != nil {
		t.Skip("python3-jinja2 is missing (apt-get install python3-jinja2): the templates are not rendered")
	}
	in, _ := json.Marshal(struct {
		Template string            `json:"template"`
		Payloads []json.RawMessage `json:"payloads"`
	}{tmpl, func() []json.RawMessage {
		out := make([]json.RawMessage, len(payloads))
		for i, p := range payloads {
			out[i] = p
		}
		return out
	}()})
	const script = `
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
req = json.load(sys.stdin)
env = ImmutableSandboxedEnvironment()
env.filters['tojson'] = lambda v: json.dumps(v)
t = env.from_string(req['template'])
print(json.dumps([t.render(value_json=p) for p in req['payloads']]))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rendering %q: %v\n%s", tmpl, err, stderr.String())
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("rendering: %v: %s", err, out)
	}
	return got
}

// TestResultEventTemplate renders the game result entity's template
// against the events a real game publishes: a game_over and a match_over
// become Home Assistant events of those types with the winner; every
// other event renders empty (Home Assistant ignores it).
func TestResultEventTemplate(t *testing.T) {
	var events [][]byte
	apply := func(tb *engine.Table, l string) {
		evs, err := record.Apply(tb, []byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		for _, e := range evs {
			b, _ := json.Marshal(e)
			events = append(events, b)
		}
	}
	// Hands in which the seat to play bids one 4 and the next calls: the
	// bidder's 4 makes it true, so the caller loses its only die.
	play := func(first string) {
		tb := engine.NewTable()
		apply(tb, first)
		for i := 0; i < 10 && tb.Snapshot().Phase == engine.PhaseBidding; i++ {
			s := tb.Snapshot()
			bidder := *s.Turn
			apply(tb, `{"type":"bid","seat":"`+bidder+`","quantity":1,"face":4}`)
			apply(tb, `{"type":"challenge","seat":"`+*tb.Snapshot().Turn+`"}`)
			dice := map[string][]int{}
			for _, st := range s.Seats {
				if st.InHand {
					dice[st.Name] = []int{2}
				}
			}
			dice[bidder] = []int{4}
			b, _ := json.Marshal(map[string]any{"type": "reveal", "dice": dice})
			apply(tb, string(b))
		}
	}
	play(`{"type":"new_game","rules":"tavern","seats":["ann","bob"],"first":"ann","seed":1,"options":{"dice":1,"purse":5}}`)
	play(`{"type":"new_game","rules":"endurance","seats":["ann","bob","cy"],"first":"ann","seed":2,"options":{"dice":1,"games":1}}`)

	var cfg struct {
		EventTypes    []string `json:"event_types"`
		ValueTemplate string   `json:"value_template"`
	}
	for _, m := range homeassistant.Configs(homeassistant.Options{Table: "t1"}, engine.Snapshot{}) {
		if strings.HasPrefix(m.Topic, "homeassistant/event/") {
			if err := json.Unmarshal(m.Payload, &cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cfg.ValueTemplate == "" {
		t.Fatal("no event entity among the configs")
	}
	got := renderJinja(t, cfg.ValueTemplate, events)
	results := map[string]map[string]any{}
	for i, out := range got {
		var ev struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(events[i], &ev)
		if ev.Type != engine.EvGameOver && ev.Type != engine.EvMatchOver {
			if strings.TrimSpace(out) != "" {
				t.Errorf("%s: rendered %q; want nothing (Home Assistant ignores an empty payload)", events[i], out)
			}
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: rendered %q, not JSON: %v", events[i], out, err)
			continue
		}
		results[ev.Type+" "+string(events[i])] = v
		typ, _ := v["event_type"].(string)
		found := false
		for _, et := range cfg.EventTypes {
			found = found || et == typ
		}
		if !found {
			t.Errorf("%s: event_type got %q; want one of %v", events[i], typ, cfg.EventTypes)
		}
		var want struct {
			Winner string `json:"winner"`
		}
		_ = json.Unmarshal(events[i], &want)
		if v["winner"] != want.Winner || want.Winner == "" {
			t.Errorf("%s: winner got %v; want %q", events[i], v["winner"], want.Winner)
		}
	}
	var overs, matches int
	for k, v := range results {
		switch {
		case strings.HasPrefix(k, engine.EvMatchOver):
			matches++
			if w, _ := v["wins"].(map[string]any); len(w) != 3 {
				t.Errorf("match_over: wins got %v; want the three seats' rounds", v["wins"])
			}
		case strings.Contains(k, `"pot"`):
			overs++
			if v["pot"] == nil {
				t.Errorf("tavern's game_over: pot got nil; want the pot")
			}
		default:
			overs++
		}
	}
	if overs != 2 || matches != 1 {
		t.Errorf("got %d game_over and %d match_over results; want 2 (tavern, endurance's round) and 1", overs, matches)
	}
}

// TestPalificoTemplate renders the palifico entity's template against the
// states of a perudo game: OFF in a plain hand, ON in a palifico hand.
func TestPalificoTemplate(t *testing.T) {
	tb := engine.NewTable()
	var states [][]byte
	for _, l := range []string{
		`{"type":"new_game","rules":"perudo","seats":["ann","bob","cy"],"first":"ann","seed":1,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":2,"face":3}`,
		`{"type":"challenge","seat":"bob"}`,
		`{"type":"reveal","dice":{"ann":[3,4],"bob":[5,6],"cy":[2,2]}}`,
	} {
		if _, err := record.Apply(tb, []byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		b, _ := json.Marshal(tb.Snapshot())
		states = append(states, b)
	}
	var tmpl string
	for _, m := range homeassistant.Configs(homeassistant.Options{Table: "t1"}, tb.Snapshot()) {
		if strings.Contains(m.Topic, "/palifico/") {
			var c struct {
				ValueTemplate string `json:"value_template"`
			}
			if err := json.Unmarshal(m.Payload, &c); err != nil {
				t.Fatal(err)
			}
			tmpl = c.ValueTemplate
		}
	}
	if tmpl == "" {
		t.Fatal("a perudo table has no palifico entity")
	}
	got := renderJinja(t, tmpl, states)
	if want := []string{"OFF", "OFF", "OFF", "ON"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("palifico over the game: got %v; want %v", got, want)
	}
}
