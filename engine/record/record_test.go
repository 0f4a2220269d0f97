package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

func TestDecode(t *testing.T) {
	five := 5
	tests := []struct {
		line   string
		want   engine.Action
		reason engine.Reason // "" when the line must decode
	}{
		{line: `{"type":"bid","seat":"ann","quantity":2,"face":3}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: 2, Face: 3}},
		{line: `{"type":"bid","seat":"ann","quantity":2,"face":3,"stake":5,"id":"abc"}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: 2, Face: 3, Stake: &five}},
		{line: ` {"type":"challenge","seat":"bob","stake":null} `,
			want: engine.Action{Type: "challenge", Seat: "bob"}},
		{line: `{"type":"show","seat":"A","shown":[1,5]}`,
			want: engine.Action{Type: "show", Seat: "A", Shown: []int{1, 5}}},
		{line: `{"type":"reveal","dice":{"A":[1,2],"B":[]}}`,
			want: engine.Action{Type: "reveal", Dice: map[string][]int{"A": {1, 2}, "B": {}}}},
		{line: `{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":-7,"options":{"purse":5,"wild":"ones"}}`,
			want: engine.Action{Type: "new_game", Rules: "tavern", Seats: []string{"A", "B"}, Seed: -7,
				Options: engine.Options{Purse: &five, Wild: ptr("ones")}}},
		{line: `{"type":"bid","seat":"ann","quantity":2,"face":3`, reason: engine.BadInput},
		{line: `"bid"`, reason: engine.BadInput},
		{line: `{}`, reason: engine.BadInput},
		{line: `{"type":"Bid","seat":"ann"}`, reason: engine.BadInput},
		// A whole number is one however it is written; one beyond 32 bits
		// is held at the bound, for the engine to call out of range.
		{line: `{"type":"bid","seat":"ann","quantity":1e2,"face":3.0}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: 100, Face: 3}},
		{line: `{"type":"bid","seat":"ann","quantity":99999999999,"face":-1e400}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: math.MaxInt32, Face: math.MinInt32}},
		{line: `{"type":"bid","seat":"ann","quantity":2.5,"face":3}`, reason: engine.BadInput},
		{line: `{"type":"bid","seat":"ann","quantity":"2","face":3}`, reason: engine.BadInput},
		{line: `{"type":"reveal","dice":{"A":[null],"B":[3]}}`, reason: engine.BadInput},
		// Field names are exact: "Seat" is a field the reader does not
		// know, so this bid has no seat, and "TYPE" is no type.
		{line: `{"type":"bid","Seat":"ann","quantity":2,"face":3}`, reason: engine.BadInput},
		{line: `{"TYPE":"bid","seat":"ann","quantity":2,"face":3}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"Options":{"dice":3},"RULES":"tavern","Seed":4}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}}},
		// A field another type of line has is one this line does not know.
		{line: `{"type":"bid","seat":"ann","quantity":2,"face":3,"dice":"I had two 3s","rules":1}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: 2, Face: 3}},
		{line: `{"type":"bid","seat":["ann"],"quantity":1,"face":3}`, reason: engine.BadInput},
		{line: `{"type":"fold"}`, reason: engine.BadInput},
		{line: `{"type":"show","seat":"A","shown":"5"}`, reason: engine.BadInput},
		{line: `{"type":"reveal","dice":{"A":[1,"2"]}}`, reason: engine.BadInput},
		{line: `{"type":"opening_roll"}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":5}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"kids","options":[]}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"kids","options":{"die_hard":"yes"}}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"kids","options":{"sides":1}}`, reason: engine.BadInput},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.line))
		if tt.reason != "" {
			var r *engine.Rejection
			if !errors.As(err, &r) || r.Reason != tt.reason {
				t.Errorf("Decode(%s): got error %v; want reason %s", tt.line, err, tt.reason)
			}
			continue
		}
		if err != nil {
			t.Errorf("Decode(%s): got error %v; want none", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decode(%s):\ngot  %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestEncodeDecode checks that Encode is Decode's inverse on every line of
// the golden records.
func TestEncodeDecode(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/records/random-*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no records in testdata/records")
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ".events.jsonl") {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		err = ReadLines(f, func(n int, line []byte, _ bool) error {
			a, err := Decode(line)
			if err != nil {
				return nil
			}
			again, err := Decode(Encode(a))
			if err != nil || !reflect.DeepEqual(a, again) {
				t.Errorf("%s:%d: Encode then Decode gave %+v, %v; want %+v", p, n, again, err, a)
			}
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadLines(t *testing.T) {
	long := `{"type":"bid","seat":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	in := "a\r\n\n  \nb\n" + long + "\nc"
	var got []string
	err := ReadLines(strings.NewReader(in), func(n int, line []byte, tooLong bool) error {
		if tooLong {
			got = append(got, fmt.Sprintf("%d:too long", n))
		} else {
			got = append(got, fmt.Sprintf("%d:%s", n, line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1:a", "4:b", "5:too long", "6:c"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q; want %q", got, want)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestAdjudicateReadError(t *testing.T) {
	if err := Adjudicate(failingReader{}, io.Discard); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v; want the read error", err)
	}
}

func TestAdjudicateLongLine(t *testing.T) {
	in := `{"type":"new_game","rules":"kids","seats":["A","B"],"first":"A"}` + "\n" +
		`{"type":"bid","seat":"` + strings.Repeat("x", 2*MaxLineBytes) + `"}` + "\n" +
		`{"type":"bid","seat":"A","quantity":1,"face":2}` + "\n"
	var out bytes.Buffer
	if err := Adjudicate(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"line":2,"reason":"bad_input"`) {
		t.Fatalf("got %q; want hand_started then bad_input for line 2", lines)
	}
}

// FuzzDecodeLine checks that no line makes the decoder panic, and that a
// decoded line encodes and decodes to itself.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range seedLines(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		a, err := Decode(line)
		if err != nil {
			return
		}
		again, err := Decode(Encode(a))
		if err != nil {
			t.Fatalf("Encode(%+v) does not decode: %v", a, err)
		}
		if !reflect.DeepEqual(a, again) {
			t.Fatalf("round trip changed %+v to %+v", a, again)
		}
	})
}

// FuzzTable feeds fuzzed records to the engine: it must never panic and
// must number its events without gaps.
func FuzzTable(f *testing.F) {
	for _, s := range seedRecords(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rec string) {
		var out bytes.Buffer
		if err := Adjudicate(strings.NewReader(rec), &out); err != nil {
			t.Fatal(err)
		}
		seq := 0
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l == "" {
				continue
			}
			seq++
			if !strings.Contains(l, fmt.Sprintf(`"seq":%d,`, seq)) {
				t.Fatalf("event %d has the wrong seq: %s", seq, l)
			}
		}
	})
}

func seedRecords(tb testing.TB) []string {
	paths, _ := filepath.Glob("../../testdata/records/*.jsonl")
	var recs []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".events.jsonl") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, string(b))
	}
	return recs
}

func seedLines(tb testing.TB) []string {
	var lines []string
	for _, r := range seedRecords(tb) {
		lines = append(lines, strings.Split(r, "\n")...)
	}
	return lines
}

// BenchmarkAdjudicate100k adjudicates a record of 100,000 lines: whole
// games of every preset, refused lines included, one after another.
func BenchmarkAdjudicate100k(b *testing.B) {
	var rec bytes.Buffer
	lines := 0
	for lines < 100_000 {
		for _, r := range seedRecords(b) {
			for _, l := range strings.Split(strings.TrimSpace(r), "\n") {
				if lines == 100_000 {
					break
				}
				rec.WriteString(l)
				rec.WriteByte('\n')
				lines++
			}
		}
	}
	data := rec.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := Adjudicate(bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
