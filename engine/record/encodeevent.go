package record

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/liarsd/liarsd/engine"
)

// eventEncoder writes the engine's events as JSON without reflection,
// byte for byte as encoding/json's Encoder with SetEscapeHTML(false)
// writes them: fields in their declaration order, omitempty kept, map keys
// sorted, nil maps and lists as null. A string with a control character or
// a byte beyond ASCII is left to encoding/json, and so is an event type it
// does not know (TestEventEncoderSameAsJSON, FuzzTable).
type eventEncoder struct {
	// keys is room for a map's sorted keys.
	keys []string
	// str and enc write the strings encoding/json must escape.
	str bytes.Buffer
	enc *json.Encoder
}

func newEventEncoder() *eventEncoder {
	e := &eventEncoder{}
	e.enc = json.NewEncoder(&e.str)
	e.enc.SetEscapeHTML(false)
	return e
}

// appendEvent appends ev as a line of JSON, newline included; ok is false
// when ev is not an event type it knows, and b is then as it was.
func (e *eventEncoder) appendEvent(b []byte, ev engine.Event) (_ []byte, ok bool) {
	switch v := ev.(type) {
	case *engine.Rejected:
		b = e.head(b, v.Header)
		b = appendInt(b, ",\"line\":", v.Line)
		b = e.field(b, "reason", string(v.Reason))
		b = e.field(b, "message", v.Message)
	case *engine.HandStarted:
		b = e.head(b, v.Header)
		b = appendInt(b, ",\"game\":", v.Game)
		b = appendInt(b, ",\"hand\":", v.Hand)
		b = e.field(b, "opener", v.Opener)
		b = e.counts(append(b, ",\"dice\":"...), v.Dice)
		if v.Palifico != nil {
			b = strconv.AppendBool(append(b, ",\"palifico\":"...), *v.Palifico)
		}
	case *engine.Folded:
		b = e.head(b, v.Header)
		b = e.field(b, "seat", v.Seat)
		b = e.counts(append(b, ",\"dice\":"...), v.Dice)
		b = e.names(append(b, ",\"out\":"...), v.Out)
	case *engine.Revealed:
		b = e.head(b, v.Header)
		b = e.faces(append(b, ",\"dice\":"...), v.Dice)
		if len(v.Unconfirmed) > 0 {
			b = e.faces(append(b, ",\"unconfirmed\":"...), v.Unconfirmed)
		}
	case *engine.Resolved:
		b = e.head(b, v.Header)
		b = e.field(b, "call", v.Call)
		if v.Bidder != "" {
			b = e.field(b, "bidder", v.Bidder)
		}
		if v.Caller != "" {
			b = e.field(b, "caller", v.Caller)
		}
		if v.Bid != nil {
			b = appendInt(b, ",\"bid\":{\"quantity\":", v.Bid.Quantity)
			b = append(appendInt(b, ",\"face\":", v.Bid.Face), '}')
		}
		if v.Count != nil {
			b = appendInt(b, ",\"count\":", *v.Count)
		}
		b = e.counts(append(b, ",\"dice\":"...), v.Dice)
		b = e.names(append(b, ",\"out\":"...), v.Out)
		if len(v.Payout) > 0 {
			b = e.counts(append(b, ",\"payout\":"...), v.Payout)
		}
		if v.RunningPot != nil {
			b = appendInt(b, ",\"running_pot\":", *v.RunningPot)
		}
	case *engine.Left:
		b = e.head(b, v.Header)
		b = e.field(b, "seat", v.Seat)
	case *engine.GameOver:
		b = e.head(b, v.Header)
		b = appendInt(b, ",\"game\":", v.Game)
		b = e.field(b, "winner", v.Winner)
		if v.Pot != nil {
			b = appendInt(b, ",\"pot\":", *v.Pot)
		}
	case *engine.MatchOver:
		b = e.head(b, v.Header)
		b = e.field(b, "winner", v.Winner)
		b = e.counts(append(b, ",\"wins\":"...), v.Wins)
	case *engine.BluffCheck:
		b = e.head(b, v.Header)
		b = e.field(b, "seat", v.Seat)
		b = e.field(b, "target", v.Target)
		b = appendInt(b, ",\"roll\":", v.Roll)
		b = appendInt(b, ",\"bonus\":", v.Bonus)
		b = appendInt(b, ",\"target_roll\":", v.TargetRoll)
		b = appendInt(b, ",\"insight\":", v.Insight)
		b = strconv.AppendBool(append(b, ",\"success\":"...), v.Success)
	default:
		return b, false
	}
	return append(b, '}', '\n'), true
}

// head opens an event's object with its type and seq.
func (e *eventEncoder) head(b []byte, h engine.Header) []byte {
	b = e.string(append(b, "{\"type\":"...), h.Type)
	return appendInt(b, ",\"seq\":", h.Seq)
}

// field appends ,"name":s.
func (e *eventEncoder) field(b []byte, name, s string) []byte {
	b = append(append(append(b, ",\""...), name...), "\":"...)
	return e.string(b, s)
}

func appendInt(b []byte, prefix string, n int) []byte {
	return strconv.AppendInt(append(b, prefix...), int64(n), 10)
}

// string appends s as a JSON string.
func (e *eventEncoder) string(b []byte, s string) []byte {
	mark := len(b)
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 {
			return e.escaped(b[:mark], s)
		}
		if c == '"' || c == '\\' {
			b = append(append(b, s[start:i]...), '\\', c)
			start = i + 1
		}
	}
	return append(append(b, s[start:]...), '"')
}

// escaped appends s as encoding/json writes it.
func (e *eventEncoder) escaped(b []byte, s string) []byte {
	e.str.Reset()
	_ = e.enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(e.str.Bytes(), []byte("\n"))...)
}

// sorted returns m's keys in encoding/json's order, in e.keys.
func sorted[V any](e *eventEncoder, m map[string]V) []string {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	return e.keys
}

// object appends a map of seats and values, each value appended by value.
func object[V any](e *eventEncoder, b []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sorted(e, m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = value(append(e.string(b, k), ':'), m[k])
	}
	return append(b, '}')
}

// counts appends a map of seats and numbers.
func (e *eventEncoder) counts(b []byte, m map[string]int) []byte {
	return object(e, b, m, func(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) })
}

// faces appends a map of seats and their faces.
func (e *eventEncoder) faces(b []byte, m map[string][]int) []byte {
	return object(e, b, m, func(b []byte, f []int) []byte {
		if f == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for j, n := range f {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		return append(b, ']')
	})
}

// names appends a list of seats.
func (e *eventEncoder) names(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, n := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.string(b, n)
	}
	return append(b, ']')
}
