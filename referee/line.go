package referee

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// field is one member of a JSON object, in the order it was written.
type field struct {
	key string
	raw json.RawMessage
}

// parseObject reads a JSON object's members in order. It fails on
// anything but one object.
func parseObject(b []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var fields []field
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
		fields = append(fields, field{key, raw})
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

// CommandID returns a command's id as given, or null: the id its reply
// names it by, also when the referee cannot take it (busy, stopped).
func CommandID(payload []byte) json.RawMessage {
	if len(payload) > MaxCommandBytes {
		return json.RawMessage("null")
	}
	id, _ := splitCommand(payload)
	return id
}

// splitCommand takes a command as it arrives (a record line with an
// optional id) and returns its id (null when absent or unreadable) and
// the record line to apply and journal: compact, on one line, without the
// id. A payload that is not one JSON object is returned as it is, for the
// decoder to refuse with its own message.
func splitCommand(payload []byte) (id json.RawMessage, line []byte) {
	fields, err := parseObject(payload)
	if err != nil {
		return json.RawMessage("null"), payload
	}
	id = json.RawMessage("null")
	kept := fields[:0]
	for _, f := range fields {
		if f.key == "id" {
			id = compact(f.raw)
			continue
		}
		kept = append(kept, f)
	}
	return id, encodeObject(kept)
}

// withSeed returns line with "seed" set to seed when it has no seed (or a
// null one); ok reports whether it was added.
func withSeed(line []byte, seed int64) (out []byte, ok bool) {
	fields, err := parseObject(line)
	if err != nil {
		return line, false
	}
	for i, f := range fields {
		if f.key == "seed" {
			if string(f.raw) != "null" {
				return line, false
			}
			fields[i].raw = json.RawMessage(strconv.FormatInt(seed, 10))
			return encodeObject(fields), true
		}
	}
	fields = append(fields, field{"seed", json.RawMessage(strconv.FormatInt(seed, 10))})
	return encodeObject(fields), true
}

func encodeObject(fields []field) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(compact(f.raw))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// diceLine is the record line of a reveal or an opening roll (kind).
func diceLine(kind string, dice map[string][]int) []byte {
	b, err := json.Marshal(struct {
		Type string           `json:"type"`
		Dice map[string][]int `json:"dice"`
	}{kind, dice})
	if err != nil {
		panic(fmt.Sprintf("referee: marshalling a %s: %v", kind, err)) // maps of ints always marshal
	}
	return b
}

// revealLine is a reveal whose dice at the positions unconfirmed lists
// were not read for sure (record line "unconfirmed").
func revealLine(dice, unconfirmed map[string][]int) []byte {
	return record.Encode(engine.Action{Type: engine.ActReveal, Dice: dice, Unconfirmed: unconfirmed})
}

// withDefaults fills a new_game line's missing rules and seats (and its
// options and bluff check settings, when it names no rules either) from
// def, the table's configured game, so that {"type":"new_game"} starts the
// table's usual game.
func withDefaults(line, def []byte) []byte {
	if len(def) == 0 {
		return line
	}
	fields, err := parseObject(line)
	if err != nil {
		return line
	}
	defs, err := parseObject(def)
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
	return encodeObject(fields)
}

// withID returns line with the command's id appended (RECORD.md lets a
// line carry fields readers do not know), so that the journal remembers
// which commands it holds; a null id adds nothing.
func withID(line []byte, id json.RawMessage) []byte {
	if len(id) == 0 || string(id) == "null" {
		return line
	}
	fields, err := parseObject(line)
	if err != nil {
		return line
	}
	return encodeObject(append(fields, field{"id", id}))
}
