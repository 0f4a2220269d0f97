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
	"syscall"
	"testing"
	"time"

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
		// An empty first is given, and names no seat; a null one is left out.
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"first":""}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}, EmptyFirst: true}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"first":null}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}}},
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
		{line: `{"type":"new_game","rules":"perudo","options":{"calza":"yes"}}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"perudo","options":{"palifico":null,"calza":false}}`,
			want: engine.Action{Type: "new_game", Rules: "perudo", Options: engine.Options{Calza: ptr(false)}}},
		{line: `{"type":"new_game","rules":"kids","options":{"sides":1}}`, reason: engine.BadInput},
		// "seat" is a field of the acting seat's lines only: on a reveal,
		// an opening roll or a new_game it is a field the reader does not
		// know, ignored whatever its type.
		{line: `{"type":"reveal","seat":5,"dice":{"A":[1]}}`,
			want: engine.Action{Type: "reveal", Dice: map[string][]int{"A": {1}}}},
		{line: `{"type":"opening_roll","seat":["A"],"dice":{"A":[1]}}`,
			want: engine.Action{Type: "opening_roll", Dice: map[string][]int{"A": {1}}}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seat":"A"}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}}},
		// A null among the seat names is a field of the wrong type, not a
		// malformed name.
		{line: `{"type":"new_game","rules":"kids","seats":["A",null]}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"kids","seats":"A"}`, reason: engine.BadInput},
		// seed, options and the computer seats' numbers are integers as
		// quantity is: whole however written.
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":2.0}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}, Seed: 2}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":-1e3}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}, Seed: -1000}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":9223372036854775807}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}, Seed: math.MaxInt64}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":1e30}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}, Seed: math.MaxInt64}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":-9223372036854775809}`,
			want: engine.Action{Type: "new_game", Rules: "kids", Seats: []string{"A", "B"}, Seed: math.MinInt64}},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":1.5}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"kids","seats":["A","B"],"seed":"1"}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"purse":5.0}}`,
			want: engine.Action{Type: "new_game", Rules: "tavern", Seats: []string{"A", "B"}, Options: engine.Options{Purse: &five}}},
		{line: `{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"purse":5.5}}`, reason: engine.BadInput},
		{line: `{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":5.0}},"bluff_bonus":{"A":-2e0}}`,
			want: engine.Action{Type: "new_game", Rules: "classic", Seats: []string{"A", "B"},
				Computer: map[string]engine.ComputerSeat{"B": {Insight: 5}}, BluffBonus: map[string]int{"A": -2}}},
		// A computer seat's field names are exact too: "Insight" is not
		// "insight".
		{line: `{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"Insight":30,"level":"x"}}}`,
			want: engine.Action{Type: "new_game", Rules: "classic", Seats: []string{"A", "B"},
				Computer: map[string]engine.ComputerSeat{"B": {Level: "x"}}}},
		{line: `{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":"5"}}}`, reason: engine.BadInput},
		// Whole numbers are read exactly, not through a float: these have
		// a fraction, however small.
		{line: `{"type":"bid","seat":"ann","quantity":2.0000000000000001,"face":3}`, reason: engine.BadInput},
		{line: `{"type":"bid","seat":"ann","quantity":1e-400,"face":3}`, reason: engine.BadInput},
		{line: `{"type":"bid","seat":"ann","quantity":20e-1,"face":0e9}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: 2, Face: 0}},
		{line: `{"type":"bid","seat":"ann","quantity":1E+99999999999999999999,"face":-0}`,
			want: engine.Action{Type: "bid", Seat: "ann", Quantity: math.MaxInt32, Face: 0}},
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

// TestDecodeMessages checks the sentences of some bad_input lines.
func TestDecodeMessages(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"type":"new_game","rules":"kids","seats":["A",null]}`, `field "seats" must be a list of strings`},
		{`{"type":"new_game","rules":"kids","seats":["A","B"],"seed":1.5}`, `field "seed" must be an integer`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":"5"}}}`, `field "computer.insight" must be an integer`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"level":5}}}`, `field "computer.level" must be a string`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":["B"]}`, `field "computer" must be an object of seats and their computer settings`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"A":"1"}}`, `field "bluff_bonus" must be an integer`},
		{`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"purse":0.5}}`, `field "options.purse" must be an integer`},
		{`{"type":"reveal","dice":{"A":[1.5]}}`, `field "dice" must be an integer`},
		{`{"type":"reveal","dice":{"A":null,"B":[3]}}`, `field "dice" must give "A" a list of faces, not null`},
		{`{"type":"opening_roll","dice":{"A":null}}`, `field "dice" must give "A" a list of faces, not null`},
		{`{"type":"new_game","rules":"kids","seats":["A","B"],"options":{"x":1,"Dice":3,"y":2}}`, `unknown option "Dice" (options are dice, sides, wild, die_hard, show_reroll, games, purse, ante, calza, palifico)`},
		{`{"type":"reveal","dice":{"Zed":null,"Bee":null,"Cy":null}}`, `field "dice" must give "Bee" a list of faces, not null`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"Z":{"insight":99},"C":{"insight":99}}}`, `computer seat "C": insight must be 0 to 20`},
		{"{\"type\":\"new_game\",\"rules\":\"kids\",\"seats\":[\"A\",\"B\xffB\"]}", `the line is not UTF-8 text`},
		{`{"type":"bid","seat":"A","quantity":2.0000000000000001,"face":3}`, `field "quantity" must be an integer`},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.line))
		var r *engine.Rejection
		if !errors.As(err, &r) || r.Reason != engine.BadInput || r.Message != tt.want {
			t.Errorf("Decode(%s): got %v; want bad_input %q", tt.line, err, tt.want)
		}
	}
}

func TestParseWhole(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"0.000", 0, true}, {"0e-999999999999999999999", 0, true},
		{"7", 7, true}, {"-7", -7, true}, {"7.0", 7, true}, {"70e-1", 7, true}, {"0.7e1", 7, true}, {"7E+0", 7, true},
		{"2147483647", math.MaxInt32, true}, {"2147483648", math.MaxInt32, true},
		{"-2147483648", math.MinInt32, true}, {"-2147483649", math.MinInt32, true},
		{"1e19", math.MaxInt32, true}, {"-1e400", math.MinInt32, true},
		{"7.5", 0, false}, {"2.0000000000000001", 0, false}, {"1e-400", 0, false}, {"-1e-99999999999999999999", 0, false},
		{"null", 0, false}, {`"7"`, 0, false}, {"[7]", 0, false}, {"true", 0, false}, {"{}", 0, false},
		// Exponents near 2^63: the arithmetic once wrapped, and a slice
		// was sized with the result.
		{"1e9223372036854775807", math.MaxInt32, true}, {"-1e9223372036854775807", math.MinInt32, true},
		{"1e+9223372036854775807", math.MaxInt32, true}, {"10e9223372036854775807", math.MaxInt32, true},
		{"1.5e9223372036854775807", math.MaxInt32, true}, {"0.5e-9223372036854775808", 0, false},
		{"5e-9223372036854775808", 0, false}, {"0e9223372036854775807", 0, true},
	}
	for _, tt := range tests {
		got, ok := parseWhole([]byte(tt.in), math.MinInt32, math.MaxInt32)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseWhole(%s): got %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"9223372036854775807", math.MaxInt64}, {"9223372036854775808", math.MaxInt64}, {"99999999999999999999", math.MaxInt64},
		{"-9223372036854775808", math.MinInt64}, {"-9223372036854775809", math.MinInt64}, {"-92233720368547758.08e2", math.MinInt64},
		{"1234567890123456789", 1234567890123456789}, {"-123456789012345678.9e1", -1234567890123456789},
	} {
		if got, ok := parseWhole([]byte(tt.in), math.MinInt64, math.MaxInt64); got != tt.want || !ok {
			t.Errorf("parseWhole(%s) in 64 bits: got %d, %v; want %d, true", tt.in, got, ok, tt.want)
		}
	}
}

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

// TestReadLinesLength checks that a line's length is its text's: a line of
// exactly MaxLineBytes is read whatever ends it, one byte more is too long.
func TestReadLinesLength(t *testing.T) {
	atMost := strings.Repeat("x", MaxLineBytes)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"at most, then \\n", atMost + "\nc\n", []string{"1:read", "2:read"}},
		{"at most, then \\r\\n", atMost + "\r\nc\r\n", []string{"1:read", "2:read"}},
		{"at most, at the end", "c\n" + atMost, []string{"1:read", "2:read"}},
		{"one more, then \\n", atMost + "x\nc\n", []string{"1:too long", "2:read"}},
		{"one more, at the end", "c\n" + atMost + "x", []string{"1:read", "2:too long"}},
	}
	for _, tt := range tests {
		got, err := linesSeen(tt.in, func([]byte) string { return "read" })
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// linesSeen lists what ReadLines hands on from in: "N:too long", or "N:"
// and what show makes of the line.
func linesSeen(in string, show func(line []byte) string) ([]string, error) {
	var got []string
	err := ReadLines(strings.NewReader(in), func(n int, line []byte, tooLong bool) error {
		if tooLong {
			got = append(got, fmt.Sprintf("%d:too long", n))
		} else {
			got = append(got, fmt.Sprintf("%d:%s", n, show(line)))
		}
		return nil
	})
	return got, err
}

// TestReadLines checks the lines handed on and their numbers: blank lines
// are skipped however long (RECORD.md: "Blank lines are skipped") but
// counted, a line too long is said so, and a UTF-8 byte order mark before
// the first line, which some editors write, is not part of it.
func TestReadLines(t *testing.T) {
	long := `{"type":"bid","seat":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	tests := []struct {
		name, in string
		want     []string
	}{
		{"lines", "a\r\n\n  \nb\n" + long + "\nc", []string{"1:a", "4:b", "5:too long", "6:c"}},
		{"long blank line", "a\n" + strings.Repeat(" ", 2*MaxLineBytes) + "\nb\n", []string{"1:a", "3:b"}},
		{"long blank line at the end", "a\n" + strings.Repeat("\t", MaxLineBytes+1), []string{"1:a"}},
		{"long line, blank at first", "a\n" + strings.Repeat(" ", 2*MaxLineBytes) + "x\nb\n", []string{"1:a", "2:too long", "3:b"}},
		{"byte order mark", "\ufeffa\nb\n", []string{"1:a", "2:b"}},
		{"byte order mark, blank line", "\ufeff\nb\n", []string{"2:b"}},
		{"byte order mark on a later line", "a\n\ufeffb\n", []string{"1:a", "2:\ufeffb"}},
	}
	for _, tt := range tests {
		got, err := linesSeen(tt.in, func(line []byte) string { return string(line) })
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// TestRefusalsSameWords checks that a line naming several wrong seats is
// refused naming the first in name order, every time: the names come from
// a JSON object, read into a map, which Go iterates in no fixed order.
func TestRefusalsSameWords(t *testing.T) {
	game := `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann"}` + "\n"
	call := `{"type":"bid","seat":"ann","quantity":1,"face":2}` + "\n" + `{"type":"challenge","seat":"bob"}` + "\n"
	tests := []struct{ rec, want string }{
		{game + call + `{"type":"reveal","dice":{"zed":[1],"cy":[1],"dee":[1],"ann":[1,1,1,1,1]}}`, `"cy" is not at this table`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"Z":{},"D":{},"X":{}}}`, `computer seat \"D\" is not at this table`},
		{`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"Z":1,"D":1,"X":1}}`, `bluff bonus for \"D\", who is not at this table`},
		{`{"type":"new_game","rules":"star-board","seats":["A","B"]}` + "\n" + `{"type":"opening_roll","dice":{"zed":[1],"cy":[1],"A":[1]}}`, `\"cy\" is not at this table`},
	}
	for _, tt := range tests {
		for range 20 {
			var out bytes.Buffer
			if err := Adjudicate(strings.NewReader(tt.rec), &out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), strings.ReplaceAll(tt.want, `"cy"`, `\"cy\"`)) {
				t.Fatalf("%s:\ngot  %s\nwant a refusal %s", tt.rec, out.String(), tt.want)
			}
		}
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
	f.Add([]byte(`{"type":"new_game","rules":"kids","seats":["A","B"],"first":""}`))
	f.Add([]byte(`{"type":"bid","seat":"A","quantity":1e9223372036854775807,"face":2}`))
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

// FuzzTable feeds fuzzed records to the engine: it must never panic, must
// number its events without gaps, and must write the same events as with
// neither fast path (adjudicateStrict).
func FuzzTable(f *testing.F) {
	for _, s := range seedRecords(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rec string) {
		var out bytes.Buffer
		if err := Adjudicate(strings.NewReader(rec), &out); err != nil {
			t.Fatal(err)
		}
		if d := adjudicateDiff(rec); d != "" {
			t.Fatal(d)
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

// benchRecord builds a record of n lines: the seed records' whole games of
// every preset, refused lines included, one after another.
func benchRecord(b *testing.B, n int) []byte {
	var one []string
	for _, r := range seedRecords(b) {
		one = append(one, strings.Split(strings.TrimSpace(r), "\n")...)
	}
	var rec bytes.Buffer
	for i := range n {
		rec.WriteString(one[i%len(one)])
		rec.WriteByte('\n')
	}
	return rec.Bytes()
}

// benchAdjudicate adjudicates a record of n lines and reports lines/s:
// by the clock, and by the CPU time the process took (cpu-lines/s), which
// on a machine shared with other work is what one core does (run with
// GOMAXPROCS=1).
func benchAdjudicate(b *testing.B, n int) {
	data := benchRecord(b, n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	for range b.N {
		if err := Adjudicate(bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	reportLines(b, n, cpuTime(b)-cpu)
}

// reportLines reports lines/s by the clock and cpu-lines/s by the CPU
// time cpu.
func reportLines(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "cpu-lines/s")
}

// cpuTime is the user and system CPU time the process has taken.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAdjudicate100k adjudicates a record of 100,000 lines: whole
// games of every preset, refused lines included, one after another.
func BenchmarkAdjudicate100k(b *testing.B) { benchAdjudicate(b, 100_000) }

// BenchmarkAdjudicate1M adjudicates a record of 1,000,000 lines, as
// BenchmarkAdjudicate100k.
func BenchmarkAdjudicate1M(b *testing.B) { benchAdjudicate(b, 1_000_000) }

// BenchmarkAdjudicateParts100k measures each part of adjudicating
// BenchmarkAdjudicate100k's record alone: decoding its lines (on the fast
// path where it reads them, and all on the strict path), the engine
// applying the decoded actions, and writing their events.
func BenchmarkAdjudicateParts100k(b *testing.B) {
	const n = 100_000
	var lines [][]byte
	err := ReadLines(bytes.NewReader(benchRecord(b, n)), func(_ int, line []byte, _ bool) error {
		lines = append(lines, bytes.Clone(line))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var actions []engine.Action
	var events []engine.Event
	t := engine.NewTable()
	for i, l := range lines {
		evs, _ := ApplyLine(t, i+1, l)
		events = append(events, evs...)
		if a, err := Decode(l); err == nil {
			actions = append(actions, a)
		} else {
			actions = append(actions, engine.Action{Type: "bad"})
		}
	}
	// part times run, once over the record, as a sub-benchmark.
	part := func(name string, run func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime(b)
			for range b.N {
				if err := run(); err != nil {
					b.Fatal(err)
				}
			}
			reportLines(b, n, cpuTime(b)-cpu)
		})
	}
	part("decode", func() error {
		for _, l := range lines {
			_, _ = Decode(l)
		}
		return nil
	})
	part("decode-strict", func() error {
		for _, l := range lines {
			_, _ = decodeStrict(l)
		}
		return nil
	})
	part("engine", func() error {
		t := engine.NewTable()
		for _, a := range actions {
			_, _ = t.Apply(a)
		}
		return nil
	})
	part("events", func() error {
		ew := NewEventWriter(io.Discard)
		if err := ew.Write(events...); err != nil {
			return err
		}
		return ew.Flush()
	})
}

// TestDecodeOptions: a new_game's options alone read as in a line, and
// refused in the same words.
func TestDecodeOptions(t *testing.T) {
	o, err := DecodeOptions([]byte(`{"dice":3,"wild":"ones"}`))
	if err != nil || o.Dice == nil || *o.Dice != 3 || o.Wild == nil || *o.Wild != "ones" || o.Sides != nil {
		t.Errorf("got %+v, %v; want dice 3, wild ones, nothing else", o, err)
	}
	for _, tt := range []struct{ options, want string }{
		{`{"dices":3}`, `unknown option "dices"`},
		{`{"dice":"3"}`, `must be`},
		{`[1]`, `options`},
	} {
		_, err := DecodeOptions([]byte(tt.options))
		_, lineErr := Decode([]byte(`{"type":"new_game","rules":"common-hand","seats":["a","b"],"options":` + tt.options + `}`))
		if err == nil || !strings.Contains(err.Error(), tt.want) || lineErr == nil || err.Error() != lineErr.Error() {
			t.Errorf("DecodeOptions(%s) = %v; want %q, as in a line (%v)", tt.options, err, tt.want, lineErr)
		}
	}
}
