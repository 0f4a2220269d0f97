package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// referenceSplit is how the referee split a command before DecodeCommand:
// encoding/json's tokens, every field written again.
func referenceSplit(payload []byte) (id json.RawMessage, line []byte) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	type field struct {
		key string
		raw json.RawMessage
	}
	var fields []field
	parse := func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return errors.New("not an object")
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, ok := tok.(string)
			if !ok {
				return errors.New("not an object")
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			fields = append(fields, field{key, raw})
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		if dec.More() {
			return errors.New("more")
		}
		if _, err := dec.Token(); err == nil {
			return errors.New("more")
		}
		return nil
	}
	if parse() != nil {
		return json.RawMessage("null"), payload
	}
	id = json.RawMessage("null")
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, f := range fields {
		if f.key == "id" {
			id = compact(f.raw)
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(compact(f.raw))
	}
	b.WriteByte('}')
	return id, b.Bytes()
}

// checkCommand holds DecodeCommand of payload against referenceSplit and
// Decode of the line it gives.
func checkCommand(t *testing.T, payload []byte) {
	t.Helper()
	c, a, err := DecodeCommand(payload)
	wantID, wantLine := referenceSplit(payload)
	wantA, wantErr := Decode(wantLine)
	if !bytes.Equal(c.ID, wantID) || !bytes.Equal(c.Line(), wantLine) {
		t.Errorf("%q: got id %s, line %s; want id %s, line %s", payload, c.ID, c.Line(), wantID, wantLine)
	}
	if !reflect.DeepEqual(a, wantA) || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Errorf("%q: got %+v, %v; want %+v, %v", payload, a, err, wantA, wantErr)
	}
	if got := CommandID(payload); !bytes.Equal(got, wantID) {
		t.Errorf("%q: CommandID %s; want %s", payload, got, wantID)
	}
	journaled := wantLine
	switch {
	case string(wantID) == "null":
	case string(wantLine) == "{}":
		journaled = []byte(`{"id":` + string(wantID) + `}`)
	default:
		journaled = append(bytes.TrimSuffix(wantLine, []byte("}")), []byte(`,"id":`+string(wantID)+`}`)...)
	}
	if got := c.Journaled(); !bytes.Equal(got, journaled) {
		t.Errorf("%q: journaled %s; want %s", payload, got, journaled)
	}
}

var commandCases = []string{
	`{"type":"bid","seat":"ann","quantity":3,"face":4}`,
	`{"id":"c1","type":"bid","seat":"ann","quantity":3,"face":4}`,
	`{"type":"bid","id":7,"seat":"ann","quantity":3,"face":4}`,
	` { "type" : "bid", "seat": "ann", "quantity": 3, "face": 4, "id": {"n": [1, 2]} } `,
	`{"type":"new_game","rules":"star-board","seats":["ann","bob"],"options":{"dice":3},"id":"g1"}`,
	`{"type":"new_game","seats":["ann","bob"],"seed":null,"id":"operator-1"}`,
	`{"type":"new_game","rules":"classic","seats":["ann","bot"],"computer":{"bot":{"insight":2}},"bluff_bonus":{"ann":1}}`,
	`{"type":"reveal","dice":{"ann":[1, 2],"bob":[3]},"id":"x y"}`,
	`{"type":"reveal","dice":{"ann":[1,2]},"unconfirmed":{"ann":[1]}}`,
	`{"type":"bid","seat":"\u0061nn","quantity":3,"face":4,"id":"e\u00e9"}`,
	`{"type":"bid","seat":"ann","quantity":3,"face":4,"a<b":1,"id":"<&>"}`,
	`{"type":"bid","seat":"ann","quantity":3.0,"face":4}`,
	`{"type":"bid","seat":"ann","quantity":"3","face":4,"id":1}`,
	`{"type":"bid","seat":"ann","id":1,"id":2}`,
	`{"type":"nope","id":3}`,
	`{"id":3}`,
	`{}`,
	`[1,2]`,
	`not json`,
	``,
	"{\"type\":\"bid\",\"seat\":\"ann\",\"quantity\":3,\"face\":4}\n",
	`{"type":"bid","seat":"ann","quantity":3,"face":4} {"id":1}`,
	`{"type":"bid","seat":"ann","quantity":3,"face":4,"n1":1,"n2":2,"n3":3,"n4":4,"n5":5,"n6":6,"n7":7,"n8":8,"n9":9,"n10":10,"n11":11,"n12":12,"n13":13}`,
	`{"type":"bid","seat":"ann","quantity":3,"face":4,"n1":1,"n2":2,"n3":3,"n4":4,"n5":5,"n6":6,"n7":7,"n8":8,"n9":9,"n10":10,"n11":11,"n12":12,"id":0}`,
}

func TestDecodeCommandIsSplitThenDecode(t *testing.T) {
	for _, c := range commandCases {
		checkCommand(t, []byte(c))
	}
}

// FuzzDecodeCommand holds DecodeCommand's one pass against the split and
// the decode it stands for.
func FuzzDecodeCommand(f *testing.F) {
	for _, c := range commandCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		checkCommand(t, payload)
	})
}

func TestCommandHas(t *testing.T) {
	c := SplitCommand([]byte(`{"type":"new_game","seed":null,"rules":"kids"}`))
	for _, tc := range []struct {
		name string
		want bool
	}{{"type", true}, {"seed", false}, {"rules", true}, {"seats", false}} {
		if got := c.Has(tc.name); got != tc.want {
			t.Errorf("Has(%q): got %v; want %v", tc.name, got, tc.want)
		}
	}
}

func BenchmarkDecodeCommand(b *testing.B) {
	line := []byte(`{"id":"c1","type":"bid","seat":"ann","quantity":3,"face":4}`)
	for b.Loop() {
		if _, _, err := DecodeCommand(line); err != nil {
			b.Fatal(err)
		}
	}
}

// The plain commands a table sends, a new_game from MQTT among them, are
// read in one pass: their fields are scanned once, and the action, the id
// and the journal's line all come of that scan.
func TestPlainCommandsAreReadInOnePass(t *testing.T) {
	for _, c := range []string{
		`{"id":"g1","type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","seed":12,"options":{"dice":3}}`,
		`{"id":"operator-1","type":"new_game","seats":["ann","bot"],"computer":{"bot":{"insight":2,"level":"strong"}}}`,
		`{"id":7,"type":"bid","seat":"ann","quantity":3,"face":4}`,
		`{"type":"reveal","dice":{"ann":[1,2],"bob":[3]},"id":"r"}`,
	} {
		var buf [maxFastFields + 1]fastField
		fields, ok := scanFast([]byte(c), buf[:0])
		if !ok {
			t.Errorf("%s: not scanned in one pass", c)
			continue
		}
		if _, ok := fastAction(fields); !ok {
			t.Errorf("%s: its action is not read from the scan", c)
		}
		if _, ok := fastCommand(fields); !ok {
			t.Errorf("%s: its line is not made from the scan", c)
		}
	}
}
