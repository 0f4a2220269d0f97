package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/liarsd/liarsd/engine"
)

// Field is one field of a record line: its name and its value's JSON,
// compact.
type Field struct {
	Name  string
	Value json.RawMessage
}

// Command is a record line as a command carries it (MQTT.md): the line's
// fields with, besides them, an optional "id" its reply names it by.
type Command struct {
	// ID is the command's id as given (compact JSON), or null when it has
	// none or is not one JSON object.
	ID json.RawMessage
	// Fields are the line's fields in their order, the id left out; nil
	// when the command is not one JSON object.
	Fields []Field
	// raw is the command as given when it is not one JSON object: the
	// line a refusal names.
	raw []byte
}

// null is the id of a command that has none.
var null = json.RawMessage("null")

// DecodeCommand reads a command once: its id, the fields of its record
// line and the action they say, as Decode says it of the line without the
// id. A command Decode refuses gives its rejection (bad_input) with what
// could be read of the command: its id, and its fields when it is one
// JSON object (the line a refusal is journaled as).
//
// The plain commands most tables send are read in one pass (the fast
// path of Decode); any other is split into its fields first, then its
// line decoded.
func DecodeCommand(b []byte) (Command, engine.Action, error) {
	var buf [maxFastFields + 1]fastField // the fields and the id
	if fields, ok := scanFast(bytes.TrimSpace(b), buf[:0]); ok {
		if a, ok := fastAction(fields); ok {
			if c, ok := fastCommand(fields); ok {
				return c, a, nil
			}
		}
	}
	c := SplitCommand(b)
	a, err := Decode(c.Line())
	return c, a, err
}

// fastCommand makes a command of fields read on the fast path, as
// SplitCommand would: ok is false when a name would be written otherwise
// than as it was read (encoding/json escapes <, > and &), or when the
// line has more fields than the fast path reads.
func fastCommand(fields []fastField) (Command, bool) {
	c := Command{ID: null, Fields: make([]Field, 0, len(fields))}
	if len(fields) > maxFastFields && !slices.ContainsFunc(fields, func(f fastField) bool { return string(f.name) == "id" }) {
		return Command{}, false
	}
	for _, f := range fields {
		if bytes.ContainsAny(f.name, "<>&") {
			return Command{}, false
		}
		v := json.RawMessage(f.value)
		if bytes.ContainsAny(v, " \t\r\n") {
			v = compact(v)
		}
		if string(f.name) == "id" {
			c.ID = v
			continue
		}
		c.Fields = append(c.Fields, Field{Name: string(f.name), Value: v})
	}
	return c, true
}

// SplitCommand splits a command into its id and its record line's fields
// without reading the line's action (the id of a journaled line, the
// fields of a line Decode refuses). A command that is not one JSON object
// has a null id and no fields: its Line is the command as given.
func SplitCommand(b []byte) Command {
	fields, err := objectFields(b)
	if err != nil {
		return Command{ID: null, raw: b}
	}
	c := Command{ID: null, Fields: fields[:0]}
	for _, f := range fields {
		if f.Name == "id" {
			c.ID = f.Value
			continue
		}
		c.Fields = append(c.Fields, f)
	}
	return c
}

// CommandID returns the id of a command or a journaled line, or null: on
// the fast path when it can, without reading more than the fields.
func CommandID(b []byte) json.RawMessage {
	var buf [maxFastFields + 1]fastField
	if fields, ok := scanFast(bytes.TrimSpace(b), buf[:0]); ok {
		if c, ok := fastCommand(fields); ok {
			return c.ID
		}
	}
	return SplitCommand(b).ID
}

// IsObject reports whether the command was one JSON object.
func (c Command) IsObject() bool { return c.Fields != nil }

// Has reports whether the line has the field name with a value other than
// null.
func (c Command) Has(name string) bool {
	for _, f := range c.Fields {
		if f.Name == name && string(f.Value) != "null" {
			return true
		}
	}
	return false
}

// Line returns the record line: its fields in order, compact and on one
// line, without the id (the command as given when it is not one JSON
// object).
func (c Command) Line() []byte {
	if c.Fields == nil {
		return c.raw
	}
	return appendObject(nil, c.Fields)
}

// Journaled returns the line as the journal keeps it: with the command's
// id last (RECORD.md lets a line carry fields readers do not know), so
// that the journal remembers which commands it holds; a null id adds
// nothing.
func (c Command) Journaled() []byte {
	if c.Fields == nil || len(c.ID) == 0 || string(c.ID) == "null" {
		return c.Line()
	}
	return appendObject(nil, append(c.Fields[:len(c.Fields):len(c.Fields)], Field{Name: "id", Value: c.ID}))
}

// appendObject appends the JSON object of fields to b, compact.
func appendObject(b []byte, fields []Field) []byte {
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendName(b, f.Name)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}')
}

// appendName appends a field's name as encoding/json writes it.
func appendName(b []byte, name string) []byte {
	plain := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, name...)
		return append(b, '"')
	}
	k, _ := json.Marshal(name)
	return append(b, k...)
}

// objectFields reads a JSON object's fields in order, each value compact.
// It fails on anything but one object.
func objectFields(b []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	fields := []Field{}
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
		fields = append(fields, Field{Name: key, Value: compact(raw)})
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

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
