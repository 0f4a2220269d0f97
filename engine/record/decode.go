// Package record reads game records and writes the referee's events, both
// as JSON Lines (RECORD.md). Decoding is a pure parser over one line; the
// engine decides everything else.
package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// Unconfirmed marks a reveal's dice the camera did not read for sure.
	Unconfirmed map[string][]wholeNumber `json:"unconfirmed"`
	Rules       *string                  `json:"rules"`
	Seats       []seatName               `json:"seats"`
	First       *string                  `json:"first"`
	Seed        *seedNumber              `json:"seed"`
	Options     *options                 `json:"options"`
	// Computer seats and the bluff check (new_game, bid).
	Computer   map[string]computerSeat `json:"computer"`
	BluffBonus map[string]wholeNumber  `json:"bluff_bonus"`
	BluffCheck *bool                   `json:"bluff_check"`
	Bluff      *bool                   `json:"bluff"`
}

// onlyKnown reports whether every field of a line is type or one of names.
func onlyKnown(fields map[string]json.RawMessage, names []string) bool {
	for k := range fields {
		if k != "type" && !slices.Contains(names, k) {
			return false
		}
	}
	return true
}

// fieldsOf names the fields each type of line has besides type. Decode
// reads those alone, by their exact names (RECORD.md: field names are
// exact, and readers ignore fields they do not know): "Seat" is not
// "seat", a "dice" on a bid is a field a bid does not have, and so is a
// "seat" on a reveal.
var fieldsOf = map[string][]string{
	engine.ActNewGame:     {"rules", "seats", "first", "seed", "options", "computer", "bluff_bonus", "bluff_check"},
	engine.ActOpeningRoll: {"dice"},
	engine.ActReveal:      {"dice", "unconfirmed"},
	engine.ActCorrect:     {"dice"},
	engine.ActBid:         {"seat", "quantity", "face", "stake", "bluff"},
	engine.ActShow:        {"seat", "shown"},
	engine.ActChallenge:   {"seat", "stake"},
	engine.ActSpotOn:      {"seat"},
	engine.ActFold:        {"seat"},
	engine.ActAllIn:       {"seat"},
	engine.ActLeave:       {"seat"},
}

type computerSeat struct {
	Insight *wholeNumber `json:"insight"`
	Level   *string      `json:"level"`
}

// UnmarshalJSON reads a computer seat's fields by their exact names, like
// a line's: "Insight" is a field the reader does not know.
func (c *computerSeat) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[computerSeat]()}
	}
	*c = computerSeat{}
	if raw, ok := fields["insight"]; ok {
		if err := json.Unmarshal(raw, &c.Insight); err != nil {
			return &json.UnmarshalTypeError{Value: string(raw), Type: reflect.TypeFor[int32](), Field: "insight"}
		}
	}
	if raw, ok := fields["level"]; ok {
		if err := json.Unmarshal(raw, &c.Level); err != nil {
			return &json.UnmarshalTypeError{Value: string(raw), Type: reflect.TypeFor[string](), Field: "level"}
		}
	}
	return nil
}

type options struct {
	Dice       *wholeNumber `json:"dice"`
	Sides      *wholeNumber `json:"sides"`
	Wild       *string      `json:"wild"`
	DieHard    *bool        `json:"die_hard"`
	ShowReroll *bool        `json:"show_reroll"`
	Games      *wholeNumber `json:"games"`
	Purse      *wholeNumber `json:"purse"`
	Ante       *wholeNumber `json:"ante"`
	Calza      *bool        `json:"calza"`
	Palifico   *bool        `json:"palifico"`
}

// Decode parses one record line into an action. A line that is not a JSON
// object, has no known type, lacks a field its type needs, or has a field of
// the wrong type gives a *engine.Rejection with reason bad_input. Fields it
// does not know are ignored: those of other names, by exact comparison, and
// those another type of line has (fieldsOf).
//
// The plain lines most records are made of are read in one pass
// (decodeFast); every other line, and every line refused, is read by
// decodeStrict, which alone gives the reasons and messages.
func Decode(b []byte) (engine.Action, error) {
	b = bytes.TrimSpace(b)
	if a, ok := decodeFast(b); ok {
		return a, nil
	}
	return decodeStrict(b)
}

// decodeStrict is Decode for any line: encoding/json reads it, and says
// what is wrong with a line that is not JSON.
func decodeStrict(b []byte) (engine.Action, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return engine.Action{}, badInput("the line is not a JSON object")
	}
	if !utf8.Valid(b) {
		// JSON is UTF-8 text (RFC 8259); Go's decoder would read the bad
		// bytes as U+FFFD and take a seat's name or a note for another.
		return engine.Action{}, badInput("the line is not UTF-8 text")
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
	// Fields the type does not have are left out by their exact names (Go's
	// decoder would match "Seat" to seat). A line with none such, as a
	// line almost always is, decodes as it stands; only the others are
	// written again with their known fields alone.
	if !onlyKnown(fields, names) {
		known := make(map[string]json.RawMessage, len(names)+1)
		for _, n := range append([]string{"type"}, names...) {
			if raw, ok := fields[n]; ok {
				known[n] = raw
			}
		}
		var err error
		if b, err = json.Marshal(known); err != nil {
			return engine.Action{}, badInput("the line is not JSON: %v", err)
		}
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return engine.Action{}, unmarshalRejection(err)
	}
	return actionOf(l)
}

// unmarshalRejection says in a bad_input why encoding/json refused a line.
func unmarshalRejection(err error) *engine.Rejection {
	var te *json.UnmarshalTypeError
	var uo unknownOptionError
	if errors.As(err, &uo) {
		return badInput("unknown option %q (options are %s)", string(uo), strings.Join(engine.OptionNames, ", "))
	}
	if errors.As(err, &te) {
		return badInput("field %q must be %s", te.Field, kindOf(te.Type.String()))
	}
	return badInput("the line is not JSON: %v", err)
}

// DecodeOptions reads a new_game's "options" object as Decode reads it in
// a line: an unknown name or a value of the wrong kind is refused
// (bad_input). Whether the values suit the preset is the engine's to say
// when the game starts.
func DecodeOptions(b []byte) (engine.Options, error) {
	var o options
	if err := json.Unmarshal(b, &o); err != nil {
		// Named from the line, as Decode names them: "options.dice".
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Field = strings.TrimSuffix("options."+te.Field, ".")
		}
		return engine.Options{}, unmarshalRejection(err)
	}
	return o.engine(), nil
}

// actionOf is the action of a line whose fields are all of their types:
// a field its type needs that is missing, an option out of range, a
// computer seat's insight or a bluff bonus out of range, or a seat given
// null faces is refused.
func actionOf(l line) (engine.Action, error) {
	a := engine.Action{Type: *l.Type, Seat: deref(l.Seat)}
	var missing string
	need := func(ok bool, field string) {
		if !ok && missing == "" {
			missing = field
		}
	}
	switch a.Type {
	case engine.ActNewGame:
		a.Rules, a.First = deref(l.Rules), deref(l.First)
		a.EmptyFirst = l.First != nil && *l.First == ""
		if l.Seats != nil {
			a.Seats = make([]string, len(l.Seats))
			for i, s := range l.Seats {
				a.Seats[i] = string(s)
			}
		}
		if l.Seed != nil {
			a.Seed = int64(*l.Seed)
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
	case engine.ActOpeningRoll, engine.ActReveal, engine.ActCorrect:
		need(l.Dice != nil, "dice")
		a.Dice = make(map[string][]int, len(l.Dice))
		// The first seat in name order is named, so that a line is
		// always refused in the same words.
		for _, seat := range slices.Sorted(maps.Keys(l.Dice)) {
			faces := l.Dice[seat]
			if faces == nil {
				return engine.Action{}, badInput("field %q must give %q a list of faces, not null", "dice", seat)
			}
			a.Dice[seat] = ints(faces)
		}
		if a.Type == engine.ActReveal && l.Unconfirmed != nil {
			a.Unconfirmed = make(map[string][]int, len(l.Unconfirmed))
			for _, seat := range slices.Sorted(maps.Keys(l.Unconfirmed)) {
				at := l.Unconfirmed[seat]
				if at == nil {
					return engine.Action{}, badInput("field %q must give %q a list of positions, not null", "unconfirmed", seat)
				}
				a.Unconfirmed[seat] = ints(at)
			}
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
	for _, name := range slices.Sorted(maps.Keys(l.Computer)) {
		c := l.Computer[name]
		seat := engine.ComputerSeat{Insight: intOf(c.Insight), Level: deref(c.Level)}
		if seat.Insight < 0 || seat.Insight > engine.MaxInsight {
			return badInput("computer seat %q: insight must be 0 to %d", name, engine.MaxInsight)
		}
		a.Computer[name] = seat
	}
	if len(l.BluffBonus) > 0 {
		a.BluffBonus = make(map[string]int, len(l.BluffBonus))
	}
	for _, name := range slices.Sorted(maps.Keys(l.BluffBonus)) {
		b := l.BluffBonus[name]
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
	e.Wild, e.DieHard, e.ShowReroll, e.Calza, e.Palifico = o.Wild, o.DieHard, o.ShowReroll, o.Calza, o.Palifico
	return e
}

// UnmarshalJSON refuses option names the referee does not know, so that a
// typo in a table's configuration is caught.
func (o *options) UnmarshalJSON(b []byte) error {
	var names map[string]json.RawMessage
	if err := json.Unmarshal(b, &names); err != nil {
		return &json.UnmarshalTypeError{Value: "options", Type: reflect.TypeFor[options]()}
	}
	// The first in name order is named, so that a line is always refused
	// in the same words.
	for _, n := range slices.Sorted(maps.Keys(names)) {
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
	switch strings.TrimPrefix(goType, "*") {
	case "map[string][]record.wholeNumber":
		return "an object of seats and their faces"
	case "map[string]record.computerSeat":
		return "an object of seats and their computer settings"
	case "map[string]record.wholeNumber":
		return "an object of seats and integers"
	case "record.computerSeat", "record.options":
		return "an object"
	case "[]string", "[]record.seatName":
		return "a list of strings"
	case "[]record.wholeNumber":
		return "a list of integers"
	case "int32", "int64", "record.wholeNumber", "record.seedNumber":
		return "an integer"
	case "bool":
		return "true or false"
	}
	return "a string"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func intOf(n *wholeNumber) int {
	if n == nil {
		return 0
	}
	return int(*n)
}

func intPtr(n *wholeNumber) *int {
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
// fraction (2, 2.0, 2e0 and 20e-1 alike, read exactly, so 2.0000000000000001
// is not one). One beyond 32 bits is held at the nearest 32-bit bound, so
// that a bid of 3000000000 dice is a bid out of range (bad_bid), not a
// field of the wrong type.
type wholeNumber int32

func (n *wholeNumber) UnmarshalJSON(b []byte) error {
	v, ok := parseWhole(b, math.MinInt32, math.MaxInt32)
	if !ok {
		// Not a number (null, a string, a list) or not a whole one.
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int32]()}
	}
	*n = wholeNumber(v)
	return nil
}

// seedNumber is a seed: a whole number as wholeNumber reads it, of 64 bits.
type seedNumber int64

func (n *seedNumber) UnmarshalJSON(b []byte) error {
	v, ok := parseWhole(b, math.MinInt64, math.MaxInt64)
	if !ok {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int64]()}
	}
	*n = seedNumber(v)
	return nil
}

// seatName is a seat's name in a new_game's seats: a string, never null.
type seatName string

func (n *seatName) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[[]string]()}
	}
	return json.Unmarshal(b, (*string)(n))
}

// parseWhole reads b, a JSON value, as a whole number, exactly: the digits
// and the exponent are read as written, not through a float. A number
// beyond lo..hi is held at the nearer bound. ok is false when b is not a
// number or has a fraction.
func parseWhole(b []byte, lo, hi int64) (v int64, ok bool) {
	s := string(b)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], strings.TrimPrefix(s[i+1:], "+")
	}
	whole, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		whole, frac = mant[:i], mant[i+1:]
		if frac == "" {
			return 0, false
		}
	}
	if whole == "" || !allDigits(whole) || !allDigits(frac) || !allDigits(strings.TrimPrefix(exp, "-")) || exp == "-" || exp == "" {
		return 0, false
	}
	// An exponent is held within ±2^40, far beyond any bound, so that the
	// arithmetic below (the line's digits are at most MaxLineBytes) cannot
	// wrap: 1e9223372036854775807 once did, and sized a slice with it.
	const farExp = 1 << 40
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || e > farExp || e < -farExp {
		e = farExp
		if exp[0] == '-' {
			e = -e
		}
	}
	// The value is digits × 10^e, digits without leading or trailing zeros.
	digits := strings.TrimLeft(whole+frac, "0")
	e -= int64(len(frac))
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		e++
	}
	if digits == "" {
		return 0, true
	}
	if e < 0 { // a last digit, not 0, after the point
		return 0, false
	}
	bound := hi
	if neg {
		bound = lo
	}
	if int64(len(digits))+e > 19 { // at least 10^19: beyond 64 bits
		return bound, true
	}
	u, _ := strconv.ParseUint(digits+strings.Repeat("0", int(e)), 10, 64) // < 10^19, fits
	switch {
	case !neg && u > uint64(hi):
		return hi, true
	case neg && u > uint64(-(lo+1))+1:
		return lo, true
	case neg:
		return -int64(u-1) - 1, true
	}
	return int64(u), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
