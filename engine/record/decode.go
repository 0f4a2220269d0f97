// Package record reads game records and writes the referee's events, both
// as JSON Lines (RECORD.md). Decoding is a pure parser over one line; the
// engine decides everything else.
package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/liarsd/liarsd/engine"
)

// line holds a record line's fields before their types are checked.
type line struct {
	Type     json.RawMessage `json:"type"`
	Seat     json.RawMessage `json:"seat"`
	Quantity json.RawMessage `json:"quantity"`
	Face     json.RawMessage `json:"face"`
	Stake    json.RawMessage `json:"stake"`
	Shown    json.RawMessage `json:"shown"`
	Dice     json.RawMessage `json:"dice"`
	Rules    json.RawMessage `json:"rules"`
	Seats    json.RawMessage `json:"seats"`
	First    json.RawMessage `json:"first"`
	Seed     json.RawMessage `json:"seed"`
	Options  json.RawMessage `json:"options"`
}

// Decode parses one record line into an action. A line that is not a JSON
// object, has no known type, or has a field of the wrong type gives a
// *engine.Rejection with reason bad_input. Fields it does not know are
// ignored.
func Decode(b []byte) (engine.Action, error) {
	var l line
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return engine.Action{}, badInput("the line is not a JSON object")
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return engine.Action{}, badInput("the line is not JSON: %v", err)
	}
	var a engine.Action
	p := parser{}
	if given(l.Type) {
		a.Type = p.str(l.Type, "type")
	}
	if p.err != nil {
		return a, p.err
	}
	switch a.Type {
	case "":
		return a, badInput("the line has no type")
	case engine.ActNewGame:
		a.Rules = p.optStr(l.Rules, "rules")
		a.Seats = p.strs(l.Seats, "seats")
		a.First = p.optStr(l.First, "first")
		if given(l.Seed) {
			a.Seed = p.int64(l.Seed, "seed")
		}
		a.Options = p.options(l.Options)
	case engine.ActOpeningRoll, engine.ActReveal:
		a.Dice = p.dice(l.Dice)
	case engine.ActBid:
		a.Seat = p.str(l.Seat, "seat")
		a.Quantity = p.int(l.Quantity, "quantity")
		a.Face = p.int(l.Face, "face")
		a.Stake = p.optInt(l.Stake, "stake")
	case engine.ActShow:
		a.Seat = p.str(l.Seat, "seat")
		a.Shown = p.ints(l.Shown, "shown")
	case engine.ActChallenge:
		a.Seat = p.str(l.Seat, "seat")
		a.Stake = p.optInt(l.Stake, "stake")
	case engine.ActSpotOn, engine.ActFold, engine.ActAllIn, engine.ActLeave:
		a.Seat = p.str(l.Seat, "seat")
	default:
		return a, badInput("unknown type %q", a.Type)
	}
	if p.err != nil {
		return engine.Action{}, p.err
	}
	return a, nil
}

func badInput(format string, args ...any) *engine.Rejection {
	return &engine.Rejection{Reason: engine.BadInput, Message: fmt.Sprintf(format, args...)}
}

// given reports whether a field is present and not null.
func given(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// parser converts raw fields, keeping the first error.
type parser struct{ err *engine.Rejection }

func (p *parser) fail(field, want string) {
	if p.err == nil {
		p.err = badInput("field %q must be %s", field, want)
	}
}

func (p *parser) str(raw json.RawMessage, field string) string {
	if !given(raw) || raw[0] != '"' {
		p.fail(field, "a string")
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		p.fail(field, "a string")
	}
	return s
}

func (p *parser) optStr(raw json.RawMessage, field string) string {
	if !given(raw) {
		return ""
	}
	return p.str(raw, field)
}

func (p *parser) int64(raw json.RawMessage, field string) int64 {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		p.fail(field, "an integer")
	}
	return n
}

// int parses an integer that fits in 32 bits, so that no arithmetic on it
// can overflow.
func (p *parser) int(raw json.RawMessage, field string) int {
	if !given(raw) {
		p.fail(field, "an integer")
		return 0
	}
	n, err := strconv.ParseInt(string(raw), 10, 32)
	if err != nil {
		p.fail(field, "an integer")
	}
	return int(n)
}

func (p *parser) optInt(raw json.RawMessage, field string) *int {
	if !given(raw) {
		return nil
	}
	n := p.int(raw, field)
	return &n
}

func (p *parser) ints(raw json.RawMessage, field string) []int {
	var rs []json.RawMessage
	if !given(raw) || raw[0] != '[' || json.Unmarshal(raw, &rs) != nil {
		p.fail(field, "a list of integers")
		return nil
	}
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = p.int(r, field)
	}
	return out
}

// strs parses a list of strings; a missing list is left to the engine
// (bad_seats), a list of something else is bad_input.
func (p *parser) strs(raw json.RawMessage, field string) []string {
	if !given(raw) {
		return nil
	}
	var rs []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &rs) != nil {
		p.fail(field, "a list of strings")
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = p.str(r, field)
	}
	return out
}

func (p *parser) dice(raw json.RawMessage) map[string][]int {
	var m map[string]json.RawMessage
	if !given(raw) || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		p.fail("dice", "an object of seats and their faces")
		return nil
	}
	out := make(map[string][]int, len(m))
	for seat, r := range m {
		out[seat] = p.ints(r, "dice")
	}
	return out
}

func (p *parser) options(raw json.RawMessage) engine.Options {
	var o engine.Options
	if !given(raw) {
		return o
	}
	var m map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		p.fail("options", "an object")
		return o
	}
	for name, r := range m {
		switch name {
		case "dice":
			o.Dice = p.optInt(r, "options.dice")
		case "sides":
			o.Sides = p.optInt(r, "options.sides")
		case "games":
			o.Games = p.optInt(r, "options.games")
		case "purse":
			o.Purse = p.optInt(r, "options.purse")
		case "ante":
			o.Ante = p.optInt(r, "options.ante")
		case "wild":
			if given(r) {
				w := p.str(r, "options.wild")
				o.Wild = &w
			}
		case "die_hard":
			o.DieHard = p.optBool(r, "options.die_hard")
		case "show_reroll":
			o.ShowReroll = p.optBool(r, "options.show_reroll")
		default:
			if p.err == nil {
				p.err = badInput("unknown option %q (options are %v)", name, engine.OptionNames)
			}
		}
	}
	if p.err == nil {
		if r := engine.CheckOptionValues(o); r != nil {
			p.err = r
		}
	}
	return o
}

func (p *parser) optBool(raw json.RawMessage, field string) *bool {
	if !given(raw) {
		return nil
	}
	switch string(raw) {
	case "true":
		t := true
		return &t
	case "false":
		f := false
		return &f
	}
	p.fail(field, "true or false")
	return nil
}
