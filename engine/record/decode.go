// Package record reads game records and writes the referee's events, both
// as JSON Lines (RECORD.md). Decoding is a pure parser over one line; the
// engine decides everything else.
package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/liarsd/liarsd/engine"
)

// line is a record line with every field typed: one json.Unmarshal checks
// them all. Integers are 32-bit (wholeNumber) so that nothing a line holds
// can overflow the engine's arithmetic.
type line struct {
	Type     *string                  `json:"type"`
	Seat     *string                  `json:"seat"`
	Quantity *wholeNumber             `json:"quantity"`
	Face     *wholeNumber             `json:"face"`
	Stake    *wholeNumber             `json:"stake"`
	Shown    []wholeNumber            `json:"shown"`
	Dice     map[string][]wholeNumber `json:"dice"`
	Rules    *string                  `json:"rules"`
	Seats    []string                 `json:"seats"`
	First    *string                  `json:"first"`
	Seed     *int64                   `json:"seed"`
	Options  *options                 `json:"options"`
	// Computer seats and the bluff check (new_game, bid).
	Computer   map[string]computerSeat `json:"computer"`
	BluffBonus map[string]int32        `json:"bluff_bonus"`
	BluffCheck *bool                   `json:"bluff_check"`
	Bluff      *bool                   `json:"bluff"`
}

// fieldsOf names the fields each type of line has besides type and seat.
// Decode reads those alone, by their exact names (RECORD.md: field names
// are exact, and readers ignore fields they do not know): "Seat" is not
// "seat", and a "dice" on a bid is a field a bid does not have.
var fieldsOf = map[string][]string{
	engine.ActNewGame:     {"rules", "seats", "first", "seed", "options", "computer", "bluff_bonus", "bluff_check"},
	engine.ActOpeningRoll: {"dice"},
	engine.ActReveal:      {"dice"},
	engine.ActBid:         {"quantity", "face", "stake", "bluff"},
	engine.ActShow:        {"shown"},
	engine.ActChallenge:   {"stake"},
	engine.ActSpotOn:      nil,
	engine.ActFold:        nil,
	engine.ActAllIn:       nil,
	engine.ActLeave:       nil,
}

type computerSeat struct {
	Insight *int32  `json:"insight"`
	Level   *string `json:"level"`
}

type options struct {
	Dice       *int32  `json:"dice"`
	Sides      *int32  `json:"sides"`
	Wild       *string `json:"wild"`
	DieHard    *bool   `json:"die_hard"`
	ShowReroll *bool   `json:"show_reroll"`
	Games      *int32  `json:"games"`
	Purse      *int32  `json:"purse"`
	Ante       *int32  `json:"ante"`
}

// Decode parses one record line into an action. A line that is not a JSON
// object, has no known type, lacks a field its type needs, or has a field of
// the wrong type gives a *engine.Rejection with reason bad_input. Fields it
// does not know are ignored: those of other names, by exact comparison, and
// those another type of line has (fieldsOf).
func Decode(b []byte) (engine.Action, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return engine.Action{}, badInput("the line is not a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return engine.Action{}, badInput("the line is not JSON: %v", err)
	}
	var typ string
	if raw, ok := fields["type"]; ok && json.Unmarshal(raw, &typ) != nil {
		return engine.Action{}, badInput("field %q must be a string", "type")
	}
	if typ == "" {
		return engine.Action{}, badInput("the line has no type")
	}
	names, ok := fieldsOf[typ]
	if !ok {
		return engine.Action{}, badInput("unknown type %q", typ)
	}
	known := make(map[string]json.RawMessage, len(names)+2)
	for _, n := range append([]string{"type", "seat"}, names...) {
		if raw, ok := fields[n]; ok {
			known[n] = raw
		}
	}
	b, err := json.Marshal(known)
	if err != nil {
		return engine.Action{}, badInput("the line is not JSON: %v", err)
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		var te *json.UnmarshalTypeError
		var uo unknownOptionError
		if errors.As(err, &uo) {
			return engine.Action{}, badInput("unknown option %q (options are %s)", string(uo), strings.Join(engine.OptionNames, ", "))
		}
		if errors.As(err, &te) {
			return engine.Action{}, badInput("field %q must be %s", te.Field, kindOf(te.Type.String()))
		}
		return engine.Action{}, badInput("the line is not JSON: %v", err)
	}
	a := engine.Action{Type: *l.Type, Seat: deref(l.Seat)}
	var missing string
	need := func(ok bool, field string) {
		if !ok && missing == "" {
			missing = field
		}
	}
	switch a.Type {
	case engine.ActNewGame:
		a.Rules, a.Seats, a.First = deref(l.Rules), l.Seats, deref(l.First)
		if l.Seed != nil {
			a.Seed = *l.Seed
		}
		if l.Options != nil {
			a.Options = l.Options.engine()
			if r := engine.CheckOptionValues(a.Options); r != nil {
				return engine.Action{}, r
			}
		}
		a.BluffCheck = l.BluffCheck
		if r := decodeComputers(&a, l); r != nil {
			return engine.Action{}, r
		}
	case engine.ActOpeningRoll, engine.ActReveal:
		need(l.Dice != nil, "dice")
		a.Dice = make(map[string][]int, len(l.Dice))
		for seat, faces := range l.Dice {
			a.Dice[seat] = ints(faces)
		}
	case engine.ActBid:
		need(l.Seat != nil, "seat")
		need(l.Quantity != nil, "quantity")
		need(l.Face != nil, "face")
		a.Quantity, a.Face, a.Stake = intOf(l.Quantity), intOf(l.Face), intPtr(l.Stake)
		a.Bluff = l.Bluff != nil && *l.Bluff
	case engine.ActShow:
		need(l.Seat != nil, "seat")
		need(l.Shown != nil, "shown")
		a.Shown = ints(l.Shown)
	case engine.ActChallenge:
		need(l.Seat != nil, "seat")
		a.Stake = intPtr(l.Stake)
	case engine.ActSpotOn, engine.ActFold, engine.ActAllIn, engine.ActLeave:
		need(l.Seat != nil, "seat")
	}
	if missing != "" {
		return engine.Action{}, badInput("a %s needs the field %q", a.Type, missing)
	}
	return a, nil
}

// decodeComputers reads the computer seats and the people's bluff bonuses
// of a new_game.
func decodeComputers(a *engine.Action, l line) *engine.Rejection {
	if len(l.Computer) > 0 {
		a.Computer = make(map[string]engine.ComputerSeat, len(l.Computer))
	}
	for name, c := range l.Computer {
		seat := engine.ComputerSeat{Insight: intOf(c.Insight), Level: deref(c.Level)}
		if seat.Insight < 0 || seat.Insight > engine.MaxInsight {
			return badInput("computer seat %q: insight must be 0 to %d", name, engine.MaxInsight)
		}
		a.Computer[name] = seat
	}
	if len(l.BluffBonus) > 0 {
		a.BluffBonus = make(map[string]int, len(l.BluffBonus))
	}
	for name, b := range l.BluffBonus {
		if b < -engine.MaxBluffBonus || b > engine.MaxBluffBonus {
			return badInput("bluff bonus of %q must be -%d to %d", name, engine.MaxBluffBonus, engine.MaxBluffBonus)
		}
		a.BluffBonus[name] = int(b)
	}
	return nil
}

// engine converts the options; unknown option names are found by
// checkOptionNames, since json.Unmarshal ignores them.
func (o *options) engine() engine.Options {
	var e engine.Options
	e.Dice, e.Sides, e.Games, e.Purse, e.Ante = intPtr(o.Dice), intPtr(o.Sides), intPtr(o.Games), intPtr(o.Purse), intPtr(o.Ante)
	e.Wild, e.DieHard, e.ShowReroll = o.Wild, o.DieHard, o.ShowReroll
	return e
}

// UnmarshalJSON refuses option names the referee does not know, so that a
// typo in a table's configuration is caught.
func (o *options) UnmarshalJSON(b []byte) error {
	var names map[string]json.RawMessage
	if err := json.Unmarshal(b, &names); err != nil {
		return &json.UnmarshalTypeError{Value: "options", Type: reflect.TypeFor[options](), Field: "options"}
	}
	for n := range names {
		if !knownOption(n) {
			return unknownOptionError(n)
		}
	}
	type plain options // without this method
	return json.Unmarshal(b, (*plain)(o))
}

// unknownOptionError names an option the referee does not know.
type unknownOptionError string

func (e unknownOptionError) Error() string { return "unknown option " + string(e) }

func knownOption(n string) bool {
	for _, k := range engine.OptionNames {
		if k == n {
			return true
		}
	}
	return false
}

func badInput(format string, args ...any) *engine.Rejection {
	return &engine.Rejection{Reason: engine.BadInput, Message: fmt.Sprintf(format, args...)}
}

// kindOf names a Go type for people.
func kindOf(goType string) string {
	switch {
	case strings.Contains(goType, "map"):
		return "an object of seats and their faces"
	case strings.HasPrefix(goType, "[]string"):
		return "a list of strings"
	case strings.HasPrefix(goType, "[]"):
		return "a list of integers"
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.Contains(goType, "bool"):
		return "true or false"
	case strings.Contains(goType, "options"):
		return "an object"
	}
	return "a string"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func intOf[T wholeNumber | int32](n *T) int {
	if n == nil {
		return 0
	}
	return int(*n)
}

func intPtr[T wholeNumber | int32](n *T) *int {
	if n == nil {
		return nil
	}
	v := int(*n)
	return &v
}

func ints(ns []wholeNumber) []int {
	out := make([]int, len(ns))
	for i, n := range ns {
		out[i] = int(n)
	}
	return out
}

// wholeNumber is a field that holds a whole number: a JSON number with no
// fraction (2, 2.0 and 2e0 alike). One beyond 32 bits is held at the
// nearest 32-bit bound, so that a bid of 3000000000 dice is a bid out of
// range (bad_bid), not a field of the wrong type.
type wholeNumber int32

func (n *wholeNumber) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || f != math.Trunc(f) {
		// Not a number (null, a string, a list) or not a whole one.
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int32]()}
	}
	*n = wholeNumber(math.Max(math.MinInt32, math.Min(math.MaxInt32, f)))
	return nil
}
