package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine/record"
)

// ruleCase is a record and the events it must give. Each line of want is a
// JSON object whose fields the event at that position must have (other
// fields may be there too); the events must be exactly as many as the lines.
type ruleCase struct {
	name   string
	record string
	want   string
}

func runCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := adjudicate(t, c.record)
			want := jsonLines(t, c.want)
			for i := 0; i < len(got) || i < len(want); i++ {
				switch {
				case i >= len(got):
					t.Fatalf("event %d: got none; want %s", i+1, show(want[i]))
				case i >= len(want):
					t.Fatalf("event %d: got %s; want no more events", i+1, show(got[i]))
				}
				if diff := subset(want[i], got[i]); diff != "" {
					t.Fatalf("event %d: got %s; want %s (%s)", i+1, show(got[i]), show(want[i]), diff)
				}
			}
		})
	}
}

// adjudicate runs a record through the adjudicator and decodes its events.
func adjudicate(t testing.TB, rec string) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := record.Adjudicate(strings.NewReader(rec), &out); err != nil {
		t.Fatalf("Adjudicate: %v", err)
	}
	evs := jsonLines(t, out.String())
	for i, e := range evs {
		if seq := e["seq"]; seq != float64(i+1) {
			t.Fatalf("event %d has seq %v; want %d", i+1, seq, i+1)
		}
	}
	return evs
}

func jsonLines(t testing.TB, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// subset returns "" when every field of want is in got with the same value.
func subset(want, got map[string]any) string {
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			return fmt.Sprintf("no field %q", k)
		}
		if !reflect.DeepEqual(w, g) {
			return fmt.Sprintf("field %q is %s, not %s", k, show(g), show(w))
		}
	}
	return ""
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
