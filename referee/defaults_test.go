package referee

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/liarsd/liarsd/engine/record"
)

// The new_game defaults as the referee applied them before it read a
// command once: on the line's text, decoded again after each step. They
// are the reference completeNewGame is held against.

// field is one member of a JSON object, in the order it was written.
type refField struct {
	key string
	raw json.RawMessage
}

// refParseObject reads a JSON object's members in order. It fails on
// anything but one object.
func refParseObject(b []byte) ([]refField, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var fields []refField
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		fields = append(fields, refField{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return fields, nil
}

// refWithSeed returns line with "seed" set to seed when it has no seed (or a
// null one); ok reports whether it was added.
func refWithSeed(line []byte, seed int64) (out []byte, ok bool) {
	fields, err := refParseObject(line)
	if err != nil {
		return line, false
	}
	for i, f := range fields {
		if f.key == "seed" {
			if string(f.raw) != "null" {
				return line, false
			}
			fields[i].raw = json.RawMessage(strconv.FormatInt(seed, 10))
			return refEncodeObject(fields), true
		}
	}
	fields = append(fields, refField{"seed", json.RawMessage(strconv.FormatInt(seed, 10))})
	return refEncodeObject(fields), true
}

func refEncodeObject(fields []refField) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(refCompact(f.raw))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func refCompact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// refWithDefaults fills a new_game line's missing rules and seats (and its
// options and bluff check settings, when it names no rules either) from
// def, the table's configured game, so that {"type":"new_game"} starts the
// table's usual game.
func refWithDefaults(line, def []byte) []byte {
	if len(def) == 0 {
		return line
	}
	fields, err := refParseObject(line)
	if err != nil {
		return line
	}
	defs, err := refParseObject(def)
	if err != nil {
		return line
	}
	has := map[string]bool{}
	for _, f := range fields {
		if string(f.raw) != "null" {
			has[f.key] = true
		}
	}
	changed := false
	for _, d := range defs {
		switch d.key {
		case "rules", "seats":
		case "options", "bluff_check", "bluff_bonus":
			if has["rules"] {
				continue
			}
		default:
			continue
		}
		if !has[d.key] {
			fields = append(fields, d)
			changed = true
		}
	}
	if !changed {
		return line
	}
	return refEncodeObject(fields)
}

// refWithComputers names the table's computer seats in a new_game line that
// has no computer field of its own, for those of them that sit in it.
func refWithComputers(line []byte, cs []Computer) []byte {
	if len(cs) == 0 {
		return line
	}
	var g struct {
		Seats    []string        `json:"seats"`
		Computer json.RawMessage `json:"computer"`
	}
	if json.Unmarshal(line, &g) != nil || g.Computer != nil {
		return line
	}
	named := map[string]any{}
	for _, c := range cs {
		for _, s := range g.Seats {
			if s == c.Name {
				named[c.Name] = map[string]any{"insight": c.Insight, "level": c.Level}
			}
		}
	}
	if len(named) == 0 {
		return line
	}
	raw, _ := json.Marshal(named)
	fields, err := refParseObject(line)
	if err != nil {
		return line
	}
	return refEncodeObject(append(fields, refField{"computer", raw}))
}

// TestNewGameDefaultsAsTheLineSaysThem holds the typed defaults against
// the reference: the same line journaled, the same action taken.
func TestNewGameDefaultsAsTheLineSaysThem(t *testing.T) {
	defs := []string{
		"",
		`{"type":"new_game","rules":"classic","seats":["ann","bot","cy"],"options":{"dice":3},"bluff_check":true,"bluff_bonus":{"ann":2}}`,
		`{"type":"new_game","rules":"kids","seats":["ann","bob"]}`,
	}
	computers := [][]Computer{nil, {{Name: "bot", Level: "beginner", Insight: 3}}, {{Name: "bot"}, {Name: "zed", Insight: 99}}}
	lines := []string{
		`{"type":"new_game"}`,
		`{"type":"new_game","id":"g1"}`,
		`{"type":"new_game","seed":null}`,
		`{"type":"new_game","seed":0}`,
		`{"type":"new_game","seed":null,"seed":7}`,
		`{"type":"new_game","seed":5,"seed":null}`,
		`{"type":"new_game","rules":null,"seats":null}`,
		`{"type":"new_game","rules":"tavern"}`,
		`{"type":"new_game","rules":"tavern","seats":["bot","cy"],"first":"cy"}`,
		`{"type":"new_game","seats":["ann","bot","zed"]}`,
		`{"type":"new_game","seats":["ann","bot"],"computer":null}`,
		`{"type":"new_game","seats":["ann","bot"],"computer":{"bot":{"level":"random"}}}`,
		`{"type":"new_game", "seats": ["ann", "bot"], "options": {"dice": 2}, "note": "x"}`,
		`{"type":"new_game","seats":["a\u006e\u006e","bot"],"<":1}`,
	}
	for _, def := range defs {
		for _, cs := range computers {
			for _, line := range lines {
				r := &Referee{cfg: Config{Computers: cs, NewSeed: func() int64 { return 42 }}}
				var err error
				if r.defaults, err = readNewGame([]byte(def)); err != nil {
					t.Fatal(err)
				}
				in := ParseCommand([]byte(line), SourceMQTT)
				if in.err != nil {
					t.Fatalf("%s: %v", line, in.err)
				}
				got, gotErr := r.completeNewGame(in)

				id, l := splitForTest([]byte(line))
				l = refWithDefaults(l, []byte(def))
				if seeded, added := refWithSeed(l, 42); added {
					l = seeded
				}
				l = refWithComputers(l, cs)
				want, wantErr := record.Decode(l)
				if !bytes.Equal(got.line, l) || !bytes.Equal(got.id, id) {
					t.Errorf("def %s, computers %v, %s:\ngot  %s (id %s)\nwant %s (id %s)", def, cs, line, got.line, got.id, l, id)
				}
				if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
					t.Errorf("def %s, computers %v, %s: got error %v; want %v", def, cs, line, gotErr, wantErr)
				} else if gotErr == nil && !reflect.DeepEqual(got.action, want) {
					t.Errorf("def %s, computers %v, %s:\ngot  %+v\nwant %+v", def, cs, line, got.action, want)
				}
			}
		}
	}
}

// splitForTest is the reference's split of a command into its id and its
// line.
func splitForTest(payload []byte) (json.RawMessage, []byte) {
	fields, err := refParseObject(payload)
	if err != nil {
		return json.RawMessage("null"), payload
	}
	id := json.RawMessage("null")
	kept := fields[:0]
	for _, f := range fields {
		if f.key == "id" {
			id = refCompact(f.raw)
			continue
		}
		kept = append(kept, f)
	}
	return id, refEncodeObject(kept)
}
