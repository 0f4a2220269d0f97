package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

// sameAsStrict reports how Decode and the strict path differ on line, or
// "" when they agree: the same action, or the same rejection, reason and
// message alike. A line the fast path reads must also be one the strict
// path accepts.
func sameAsStrict(line []byte) string {
	want, wantErr := decodeStrict(line)
	if fast, ok := decodeFast(bytes.TrimSpace(line)); ok {
		if wantErr != nil {
			return fmt.Sprintf("the fast path reads %+v; the strict path refuses it: %v", fast, wantErr)
		}
		if !reflect.DeepEqual(fast, want) {
			return fmt.Sprintf("the fast path reads %+v; the strict path %+v", fast, want)
		}
	}
	got, gotErr := Decode(line)
	if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) ||
		!reflect.DeepEqual(gotErr, wantErr) {
		return fmt.Sprintf("Decode gives %+v, %v; the strict path %+v, %v", got, gotErr, want, wantErr)
	}
	return ""
}

// TestDecodeFastSameAsStrict compares Decode, fast path first, with the
// strict path alone on the golden records' lines, on lines written to find
// where the two could part, and on many generated lines, most of them
// malformed.
func TestDecodeFastSameAsStrict(t *testing.T) {
	lines := seedLines(t)
	lines = append(lines,
		`{"type":"bid","seat":"A","quantity":2,"face":3}`,
		` {"type" : "bid" , "seat":"A" ,"quantity": 2,"face":3 } `,
		"{\"type\":\"bid\",\r\n\t\"seat\":\"A\",\"quantity\":2,\"face\":3}",
		"\u00a0{\"type\":\"bid\",\"seat\":\"A\",\"quantity\":2,\"face\":3}\u0085",
		`{"type":"bid","seat":"A","quantity":2,"face":3}x`,
		`{"type":"bid","seat":"A","quantity":2,"face":3}}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3}{}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3`,
		`{"type":"bid","seat":"A","quantity":2,,"face":3}`,
		`{"type":"bid","seat":"A","quantity":2 "face":3}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"seat":"B"}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"type":"fold"}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"Seat":"B","SEAT":"C"}`,
		`{"type":"bid","Seat":"A","quantity":2,"face":3}`,
		`{"type":"bid","seat":"A","quantity":02,"face":3}`,
		`{"type":"bid","seat":"A","quantity":-0,"face":-3}`,
		`{"type":"bid","seat":"A","quantity":2.0,"face":3e0}`,
		`{"type":"bid","seat":"A","quantity":2.,"face":3}`,
		`{"type":"bid","seat":"A","quantity":-,"face":3}`,
		`{"type":"bid","seat":"A","quantity":+2,"face":3}`,
		`{"type":"bid","seat":"A","quantity":999999999,"face":3}`,
		`{"type":"bid","seat":"A","quantity":1000000000,"face":3}`,
		`{"type":"bid","seat":"A","quantity":99999999999999999999,"face":3}`,
		`{"type":"bid","seat":"A","quantity":"2","face":3}`,
		`{"type":"bid","seat":"A","quantity":null,"face":3}`,
		`{"type":"bid","seat":null,"quantity":2,"face":3}`,
		`{"type":"bid","seat":"A","quantity":2}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"stake":null}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"stake":4}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"stake":"4"}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"bluff":true}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"bluff":false}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"bluff":null}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"bluff":1}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"bluff":truex}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"id":"x","n":1,"ok":true,"no":null,"l":[1,"a"],"o":{"a":{"b":[]}}}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"deep":[[[[1]]]]}`,
		`{"type":"bid","seat":"A","quantity":2,"face":3,"dice":"I had two 3s","rules":1}`,
		`{"type":"bid","seat":"A\"B","quantity":2,"face":3}`,
		`{"type":"bid","seat":"A\u0042","quantity":2,"face":3}`,
		`{"type":"bid","seat":"Ä","quantity":2,"face":3}`,
		"{\"type\":\"bid\",\"seat\":\"A\xff\",\"quantity\":2,\"face\":3}",
		"{\"type\":\"bid\",\"seat\":\"A\tB\",\"quantity\":2,\"face\":3}",
		`{"type":"bid","seat":"","quantity":2,"face":3}`,
		`{"type":"bi\u0064","seat":"A","quantity":2,"face":3}`,
		`{"type":"Bid","seat":"A","quantity":2,"face":3}`,
		`{"type":"","seat":"A"}`,
		`{"type":5,"seat":"A"}`,
		`{"seat":"A"}`,
		`{}`, `{`, `}`, ``, `   `, `[]`, `"bid"`, `null`, `{"type"}`, `{"type":}`, `{type:"bid"}`,
		`{"type":"challenge","seat":"A"}`,
		`{"type":"challenge","seat":"A","stake":3}`,
		`{"type":"challenge","seat":"A","quantity":"x"}`,
		`{"type":"spot_on","seat":"A"}`, `{"type":"fold","seat":"A"}`, `{"type":"all_in","seat":"A"}`,
		`{"type":"leave","seat":"A"}`, `{"type":"leave"}`, `{"type":"leave","seat":7}`,
		`{"type":"show","seat":"A","shown":[1,5]}`,
		`{"type":"show","seat":"A","shown":[]}`,
		`{"type":"show","seat":"A","shown":[ 1 , 5 ]}`,
		`{"type":"show","seat":"A","shown":[1,]}`,
		`{"type":"show","seat":"A","shown":[1,"5"]}`,
		`{"type":"show","seat":"A","shown":[1,null]}`,
		`{"type":"show","seat":"A","shown":[1.5]}`,
		`{"type":"show","seat":"A","shown":[[1]]}`,
		`{"type":"show","seat":"A","shown":null}`,
		`{"type":"show","seat":"A","shown":{}}`,
		`{"type":"show","seat":"A"}`,
		`{"type":"reveal","dice":{"A":[1,2],"B":[]}}`,
		`{"type":"reveal","dice":{}}`,
		`{"type":"reveal","dice":{ "A" : [ 1 ] , "B":[2] }}`,
		`{"type":"reveal","dice":{"A":[1],"A":[2]}}`,
		`{"type":"reveal","dice":{"A":null,"B":[3]}}`,
		`{"type":"reveal","dice":{"A":[null]}}`,
		`{"type":"reveal","dice":{"A":[1],}}`,
		`{"type":"reveal","dice":{"A":1}}`,
		`{"type":"reveal","dice":{"A":[1e0]}}`,
		`{"type":"reveal","dice":{"A\u0041":[1]}}`,
		`{"type":"reveal","dice":[[1]]}`,
		`{"type":"reveal","dice":null}`,
		`{"type":"reveal"}`,
		`{"type":"reveal","seat":5,"dice":{"A":[1]}}`,
		`{"type":"opening_roll","dice":{"A":[6],"B":[6]}}`,
		`{"type":"opening_roll","seat":["A"],"dice":{"A":[1]}}`,
		`{"type":"new_game","rules":"kids","seats":["A","B"],"first":"A"}`,
		`{"type":"new_game","rules":"kids","seats":["A","B"],"first":""}`,
		`{"type":"new_game","rules":"kids","seats":["A","B"],"first":null}`,
		`{"type":"new_game","rules":"kids","seats":[],"seed":-7}`,
		`{"type":"new_game","rules":"kids","seats":["A",null]}`,
		`{"type":"new_game","rules":"kids","seats":["A",5]}`,
		`{"type":"new_game","rules":"kids"}`,
		`{"type":"new_game"}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":999999999999999999,"options":{"dice":5,"purse":0,"wild":"ones","die_hard":true,"show_reroll":false,"games":3,"ante":1,"sides":6}}`,
		`{"type":"new_game","rules":"perudo","seats":["A","B","C"],"options":{"dice":3,"calza":false,"palifico":true}}`,
		`{"type":"new_game","rules":"perudo","seats":["A","B","C"],"options":{"calza":"no"}}`,
		`{"type":"new_game","rules":"perudo","seats":["A","B","C"],"options":{"palifico":1}}`,
		`{"type":"new_game","rules":"perudo","seats":["A","B","C"],"options":{"calza":true,"calza":false}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":9223372036854775807}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":-9223372036854775807}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":9223372036854775808}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":-9223372036854775808}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":9999999999999999999}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"seed":10000000000000000000}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"dice":5,"dice":6}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"dice":99}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"sides":1}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"Dice":5}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"wild":5}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"wild":"all"}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"die_hard":null}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":{"dice":{"x":1}}}`,
		`{"type":"new_game","rules":"tavern","seats":["A","B"],"options":null}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":5}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":5,"level":"strong","note":[1,{}]},"A":{}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":99}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":-1}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":null}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"level":null}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"Insight":7}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{"insight":1,"insight":2}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":{},"B":{"insight":2}}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":null}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":{"B":[]}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"computer":["B"]}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"A":2,"B":-3}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"A":2000}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"A":2,"A":3}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"A":null}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_bonus":{"A":"2"}}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_check":null}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_check":"yes"}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"bluff_check":false}`,
		`{"type":"new_game","rules":"classic","seats":["A","B"],"Rules":"kids","seat":"A","dice":[1]}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"type":"fold","seat":"A"}`,
	)
	for _, l := range lines {
		if d := sameAsStrict([]byte(l)); d != "" {
			t.Errorf("%q: %s", l, d)
		}
	}
	r := rand.New(rand.NewPCG(2026, 11))
	fast := map[string]int{}
	for range 50_000 {
		l := generatedLine(r)
		if d := sameAsStrict([]byte(l)); d != "" {
			t.Fatalf("%q: %s", l, d)
		}
		if a, ok := decodeFast(bytes.TrimSpace([]byte(l))); ok {
			fast[a.Type]++
		}
	}
	// The generated lines are to try both paths, the fast one with every
	// type of line.
	for _, typ := range []string{engine.ActNewGame, engine.ActBid, engine.ActShow, engine.ActChallenge, engine.ActReveal, engine.ActOpeningRoll} {
		if fast[typ] < 100 {
			t.Errorf("%d generated %s lines read on the fast path; want 100 or more", fast[typ], typ)
		}
	}
	t.Logf("read on the fast path: %v", fast)
}

// generatedLine writes a record line of the shapes the fast path reads,
// then, most of the time, spoils it: a byte changed, added or taken away,
// the line cut short, or a value written another way.
func generatedLine(r *rand.Rand) string {
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	num := func() string {
		if r.IntN(2) == 0 {
			return pick("1", "2", "3", "6")
		}
		return pick("0", "1", "2", "6", "-1", "-0", "10", "999999999", "1000000000", "01", "2.0", "2.5", "1e1",
			"1E+0", "-", "\"3\"", "null", "true", "[3]", "{}", "4294967296", "00", "3 ", " 3")
	}
	seat := func() string {
		if r.IntN(2) == 0 {
			return pick(`"A"`, `"B"`)
		}
		return pick(`"A"`, `"seat1"`, `"bob"`, `""`, `"a b"`, `"A\"B"`, `"\u0041"`, "\"\u00e9\"", "\"A\x01\"", `5`, `null`, `["A"]`)
	}
	faces := func() string {
		var fs []string
		for range r.IntN(6) {
			fs = append(fs, num())
		}
		return "[" + strings.Join(fs, pick(",", " , ", ",,")) + "]"
	}
	var fields []string
	switch r.IntN(8) {
	case 7:
		var seats []string
		for range r.IntN(5) {
			seats = append(seats, seat())
		}
		fields = append(fields, `"type":"new_game"`, `"rules":`+pick(`"kids"`, `"tavern"`, `"classic"`, `"x"`, `""`, "null", "5"),
			`"seats":`+pick("["+strings.Join(seats, ",")+"]", "null", `"A"`, "[]"))
		if r.IntN(2) == 0 {
			fields = append(fields, `"first":`+seat())
		}
		if r.IntN(2) == 0 {
			fields = append(fields, `"seed":`+pick(num(), "3201892794067733691", "-320189279406773369", "9223372036854775807", "9223372036854775808",
				"-9223372036854775808", "9999999999999999999", "1e18"))
		}
		if r.IntN(2) == 0 {
			var opts []string
			for range r.IntN(4) {
				opts = append(opts, pick(`"dice"`, `"sides"`, `"games"`, `"purse"`, `"ante"`, `"die_hard"`, `"show_reroll"`, `"wild"`, `"calza"`, `"palifico"`, `"Dice"`, `"x"`)+
					":"+pick(num(), "true", "false", `"ones"`, `"none"`, `"all"`))
			}
			fields = append(fields, `"options":`+pick("{"+strings.Join(opts, ",")+"}", "null", "[]"))
		}
		if r.IntN(6) == 0 {
			fields = append(fields, `"computer":`+pick(`{"B":{"insight":`+num()+`}}`, `{"B":{"level":`+seat()+`,"x":1},"A":{}}`, `{}`, `null`, `{"B":null}`))
		}
		if r.IntN(6) == 0 {
			fields = append(fields, `"bluff_bonus":`+pick(`{"A":`+num()+`}`, `{"A":1,"B":-2}`, `{}`, `null`, `[1]`))
		}
		if r.IntN(6) == 0 {
			fields = append(fields, `"bluff_check":`+pick("true", "false", "null", "1"))
		}
	case 0, 1, 2:
		fields = append(fields, `"type":"bid"`, `"seat":`+seat(), `"quantity":`+num(), `"face":`+num())
		if r.IntN(3) == 0 {
			fields = append(fields, `"stake":`+num())
		}
		if r.IntN(4) == 0 {
			fields = append(fields, `"bluff":`+pick("true", "false", "null", "1"))
		}
	case 3:
		fields = append(fields, `"type":`+pick(`"challenge"`, `"spot_on"`, `"fold"`, `"all_in"`, `"leave"`), `"seat":`+seat())
		if r.IntN(3) == 0 {
			fields = append(fields, `"stake":`+num())
		}
	case 4:
		fields = append(fields, `"type":"show"`, `"seat":`+seat(), `"shown":`+pick(faces(), "null", "{}", `"1"`))
	default:
		var seats []string
		for range r.IntN(5) {
			seats = append(seats, seat()+":"+pick(faces(), "null", "1"))
		}
		fields = append(fields, `"type":`+pick(`"reveal"`, `"opening_roll"`), `"dice":{`+strings.Join(seats, ",")+"}")
	}
	if r.IntN(4) == 0 {
		extra := pick(`"id":"x"`, `"n":1.5`, `"Seat":"B"`, `"seat":"C"`, `"dice":"I had two"`, `"rules":7`,
			`"l":[1,[2,{}]]`, `"o":{"a":null}`, `"type":"fold"`, `"deep":[[[[1]]]]`, `"t":true`)
		fields = append(fields, extra)
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	l := "{" + strings.Join(fields, pick(",", ", ", " ,\t")) + "}"
	switch r.IntN(8) {
	case 0:
		i := r.IntN(len(l))
		l = l[:i] + string(rune(pick("x", "\"", ",", "}", "]", "{", " ", "\\", "\xff", "0", ":")[0])) + l[i+1:]
	case 1:
		i := r.IntN(len(l))
		l = l[:i] + pick("x", "\"", ",", "}", " ", "1", "\x00") + l[i:]
	case 2:
		i := r.IntN(len(l))
		l = l[:i] + l[i+1:]
	case 3:
		l = l[:r.IntN(len(l)+1)]
	case 4:
		l = pick(" ", "\t", "\u00a0", "") + l + pick(" ", "\r", "x", "{}", "")
	}
	return l
}

// FuzzDecodeFast checks that Decode, fast path first, reads every line as
// the strict path alone does.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range seedLines(f) {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		f.Add([]byte(generatedLine(r)))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if d := sameAsStrict(line); d != "" {
			t.Fatalf("%q: %s", line, d)
		}
	})
}

// adjudicateStrict is Adjudicate with neither fast path: every line read
// by the strict path, every event written by encoding/json.
func adjudicateStrict(r io.Reader, w io.Writer) error {
	t := engine.NewTable()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err := ReadLines(r, func(n int, line []byte, tooLong bool) error {
		var evs []engine.Event
		if tooLong {
			evs = []engine.Event{t.Reject(n, badInput("the line is longer than %d bytes", MaxLineBytes))}
		} else if a, err := decodeStrict(line); err != nil {
			evs = []engine.Event{t.Reject(n, err)}
		} else if evs, err = t.Apply(a); err != nil {
			evs = []engine.Event{t.Reject(n, err)}
		}
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// TestAdjudicateSameAsStrict checks that the golden records, and records
// of generated lines, give the same events byte for byte with the fast
// paths as without.
func TestAdjudicateSameAsStrict(t *testing.T) {
	recs := seedRecords(t)
	r := rand.New(rand.NewPCG(7, 7))
	lines := seedLines(t)
	for range 200 {
		// A game's lines shuffled among generated ones.
		var b strings.Builder
		b.WriteString(lines[0] + "\n")
		for range 50 {
			if r.IntN(2) == 0 {
				b.WriteString(lines[r.IntN(len(lines))])
			} else {
				b.WriteString(generatedLine(r))
			}
			b.WriteByte('\n')
		}
		recs = append(recs, b.String())
	}
	// Names and messages that encoding/json escapes.
	recs = append(recs, "{\"type\":\"new_game\",\"rules\":\"kids\",\"seats\":[\"A\",\"B\"],\"first\":\"A\"}\n"+
		"{\"type\":\"bid\",\"seat\":\"\\u00e9\\u2028<&>\\\\\\\"\\u0001\\t\",\"quantity\":1,\"face\":2}\n"+
		"{\"type\":\"bid\",\"seat\":\"A\xff\",\"quantity\":1,\"face\":2}\n"+
		"{\"type\":\"bid\",\"seat\":\"A\",\"quantity\":1,\"face\":2}\n"+
		"{\"type\":\"reveal\",\"dice\":{\"A\":[2],\"B\":[2]}}\n")
	for i, rec := range recs {
		if d := adjudicateDiff(rec); d != "" {
			t.Fatalf("record %d: %s", i, d)
		}
	}
}

// adjudicateDiff returns where Adjudicate and adjudicateStrict part on
// rec, or "".
func adjudicateDiff(rec string) string {
	var got, want bytes.Buffer
	if err := Adjudicate(strings.NewReader(rec), &got); err != nil {
		return err.Error()
	}
	if err := adjudicateStrict(strings.NewReader(rec), &want); err != nil {
		return err.Error()
	}
	if got.String() == want.String() {
		return ""
	}
	g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("event line %d:\ngot  %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d event lines; want %d", len(g), len(w))
}

// TestEventEncoderSameAsJSON checks the event encoder on events of every
// type with the values where encoding/json's output changes: empty and
// nil maps and lists, left-out fields, strings to escape.
func TestEventEncoderSameAsJSON(t *testing.T) {
	one, zero := 1, 0
	yes, no := true, false
	odd := "a\"b\\c\u2028é<>&\x01\n\t\x7f\xff"
	events := []engine.Event{
		&engine.Rejected{Header: engine.Header{Type: engine.EvRejected, Seq: 1}, Line: 3, Reason: engine.BidNotHigher, Message: `two 2s does not raise "two 3s"`},
		&engine.Rejected{Header: engine.Header{Type: engine.EvRejected, Seq: 2}, Reason: engine.BadInput, Message: odd},
		&engine.HandStarted{Header: engine.Header{Type: engine.EvHandStarted, Seq: 3}, Game: 1, Hand: 2, Opener: "b", Dice: map[string]int{"b": 5, "a": 4, "B": 1, odd: -2}},
		&engine.HandStarted{Header: engine.Header{Type: engine.EvHandStarted}},
		&engine.HandStarted{Header: engine.Header{Type: engine.EvHandStarted, Seq: 6}, Game: 1, Hand: 3, Opener: "a", Dice: map[string]int{"a": 1}, Palifico: &yes},
		&engine.HandStarted{Header: engine.Header{Type: engine.EvHandStarted, Seq: 7}, Game: 1, Hand: 4, Opener: "a", Dice: map[string]int{"a": 1}, Palifico: &no},
		&engine.Folded{Header: engine.Header{Type: engine.EvFolded, Seq: 4}, Seat: "a", Dice: map[string]int{"a": -1}, Out: []string{}},
		&engine.Folded{Header: engine.Header{Type: engine.EvFolded}, Out: []string{"a", odd}},
		&engine.Revealed{Header: engine.Header{Type: engine.EvRevealed}, Dice: map[string][]int{"b": {6, 1}, "a": {}, "c": nil}},
		&engine.Revealed{Header: engine.Header{Type: engine.EvRevealed}},
		&engine.Resolved{Header: engine.Header{Type: engine.EvResolved, Seq: 5}, Call: "challenge", Bidder: "a", Caller: "b",
			Bid: &engine.BidView{Quantity: 2, Face: 3}, Count: &zero, Dice: map[string]int{"b": -1}, Out: []string{},
			Payout: map[string]int{"a": 3}, RunningPot: &one},
		&engine.Resolved{Header: engine.Header{Type: engine.EvResolved}, Call: "fold", Dice: map[string]int{}, Out: []string{}, Payout: map[string]int{}},
		&engine.Resolved{Header: engine.Header{Type: engine.EvResolved}},
		&engine.Left{Header: engine.Header{Type: engine.EvLeft, Seq: 6}, Seat: "a"},
		&engine.GameOver{Header: engine.Header{Type: engine.EvGameOver, Seq: 7}, Game: 1, Winner: "a", Pot: &one},
		&engine.GameOver{Header: engine.Header{Type: engine.EvGameOver}},
		&engine.MatchOver{Header: engine.Header{Type: engine.EvMatchOver}, Winner: "a", Wins: map[string]int{"a": 2, "b": 0}},
		&engine.MatchOver{Header: engine.Header{Type: engine.EvMatchOver}},
		&engine.BluffCheck{Header: engine.Header{Type: engine.EvBluffCheck, Seq: 8}, Seat: "a", Target: "b", Roll: 20, Bonus: -2, TargetRoll: 1, Insight: 5, Success: true},
		&engine.BluffCheck{Header: engine.Header{Type: engine.EvBluffCheck}},
	}
	for _, ev := range events {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
		got, ok := newEventEncoder().appendEvent([]byte("x"), ev)
		if !ok || string(got) != "x"+want.String() {
			t.Errorf("%T: got %q, %v; want %q, true", ev, got, ok, "x"+want.String())
		}
	}
}
