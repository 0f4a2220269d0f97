package record

import (
	"math"

	"github.com/liarsd/liarsd/engine"
)

// The fast path. Almost every record line is one of a few plain shapes: a
// bid, a call, a show or a reveal, written by a machine, with ASCII names,
// small whole numbers and no escapes. decodeFast reads those in one pass,
// without reflection, and gives up (ok false) on anything else: a
// new_game's refused option, an escape or a byte beyond ASCII in a string, a number with a
// fraction, an exponent or more than nine digits, a null where a known
// field is read, a repeated field, a value nested more deeply than a
// reveal's, a field missing or of the wrong type, or anything that is not
// JSON. Decode then reads the line on the strict path, which alone says
// why a line is refused; so a line the fast path reads gives exactly the
// action the strict path gives (TestDecodeFastSameAsStrict,
// FuzzDecodeFast), and a line it does not read gives exactly the strict
// path's action or rejection.

// maxFastFields is the most fields a line read on the fast path may have.
const maxFastFields = 16

// seedDigits is the most digits of a number on the fast path, a seed's;
// one beyond 64 bits is left to the strict path.
const seedDigits = 19

// maxFastDepth is how deeply values may nest on the fast path: a reveal's
// dice are an object (1) of lists (2).
const maxFastDepth = 3

// fastField is one field of a line: its name and its value's bytes.
type fastField struct {
	name, value []byte
}

// fastScanner reads a line from its start.
type fastScanner struct {
	b []byte
	i int
}

// ws skips JSON's white space (RFC 8259: space, tab, line feed, carriage
// return).
func (s *fastScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str reads a string with no escapes and only printable ASCII, and returns
// its contents.
func (s *fastScanner) str() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// num reads a whole number of at most maxDigits digits with no fraction
// and no exponent, which is a JSON number.
func (s *fastScanner) num(maxDigits int) (int64, bool) {
	j := s.i
	neg := j < len(s.b) && s.b[j] == '-'
	if neg {
		j++
	}
	start := j
	var v uint64 // 19 digits fit
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		v = v*10 + uint64(s.b[j]-'0')
		j++
	}
	n := j - start
	if n == 0 || n > maxDigits || (n > 1 && s.b[start] == '0') || v > math.MaxInt64 {
		return 0, false
	}
	// What follows a number on the fast path ends it: no fraction, no
	// exponent.
	if j < len(s.b) {
		switch s.b[j] {
		case ' ', '\t', '\n', '\r', ',', '}', ']':
		default:
			return 0, false
		}
	}
	s.i = j
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// word reads one of the literals true, false and null.
func (s *fastScanner) word() bool {
	for _, w := range [...]string{"true", "false", "null"} {
		if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
			s.i += len(w)
			return true
		}
	}
	return false
}

// value reads a value the fast path knows: a string, a whole number, a
// literal, or a list or an object of those, depth levels deep at most.
func (s *fastScanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		_, ok := s.num(seedDigits)
		return ok
	case c == 't' || c == 'f' || c == 'n':
		return s.word()
	case (c == '[' || c == '{') && depth < maxFastDepth:
		return s.container(c == '{', depth+1, nil)
	}
	return false
}

// container reads a list or an object whose opening bracket is at s.i.
// An object's fields are handed to field, when it is not nil, with their
// values' bytes; a field name repeated in the object is not read.
func (s *fastScanner) container(object bool, depth int, field func(name, value []byte) bool) bool {
	end := byte(']')
	if object {
		end = '}'
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == end {
		s.i++
		return true
	}
	for {
		var name []byte
		if object {
			var ok bool
			if name, ok = s.str(); !ok {
				return false
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return false
			}
			s.i++
			s.ws()
		}
		start := s.i
		if !s.value(depth) {
			return false
		}
		if field != nil && !field(name, s.b[start:s.i]) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case end:
			s.i++
			return true
		default:
			return false
		}
	}
}

// decodeFast reads a line, already trimmed of white space, on the fast
// path; ok is false when the strict path must read it.
func decodeFast(b []byte) (a engine.Action, ok bool) {
	var buf [maxFastFields]fastField
	fields, ok := scanFast(b, buf[:0])
	if !ok {
		return a, false
	}
	return fastAction(fields)
}

// scanFast reads the fields of a line, already trimmed of white space,
// into fields, up to its capacity; ok is false when the line is not an
// object the fast path reads, holds more fields, or repeats a name.
func scanFast(b []byte, fields []fastField) (_ []fastField, ok bool) {
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	s := fastScanner{b: b}
	ok = s.container(true, 1, func(name, value []byte) bool {
		if len(fields) == cap(fields) {
			return false
		}
		for _, f := range fields {
			if string(f.name) == string(name) {
				return false
			}
		}
		fields = append(fields, fastField{name, value})
		return true
	})
	if !ok || s.i != len(b) {
		return nil, false
	}
	return fields, true
}

// fastAction reads the action of a line's fields on the fast path
// (fields it does not know, as a command's id, are left out); ok is
// false when the strict path must read the line.
func fastAction(fields []fastField) (a engine.Action, ok bool) {
	get := func(name string) []byte {
		for _, f := range fields {
			if string(f.name) == name {
				return f.value
			}
		}
		return nil
	}
	typ, ok := fastString(get("type"))
	if !ok {
		return a, false
	}
	switch typ {
	case engine.ActBid, engine.ActShow, engine.ActChallenge, engine.ActSpotOn,
		engine.ActFold, engine.ActAllIn, engine.ActLeave:
		if a.Seat, ok = fastString(get("seat")); !ok {
			return a, false
		}
	case engine.ActReveal, engine.ActOpeningRoll:
	case engine.ActNewGame:
		a.Type = typ
		return a, fastNewGame(&a, get)
	default: // the lines the strict path refuses
		return a, false
	}
	a.Type = typ
	switch typ {
	case engine.ActBid:
		q, okQ := fastNumber(get("quantity"))
		f, okF := fastNumber(get("face"))
		if !okQ || !okF {
			return a, false
		}
		a.Quantity, a.Face = q, f
		if a.Stake, ok = fastStake(get("stake")); !ok {
			return a, false
		}
		if v := get("bluff"); v != nil {
			switch string(v) {
			case "true":
				a.Bluff = true
			case "false":
			default:
				return a, false
			}
		}
	case engine.ActChallenge:
		if a.Stake, ok = fastStake(get("stake")); !ok {
			return a, false
		}
	case engine.ActShow:
		if a.Shown, ok = fastFaces(get("shown")); !ok {
			return a, false
		}
	case engine.ActReveal, engine.ActOpeningRoll:
		if typ == engine.ActReveal && get("unconfirmed") != nil {
			return a, false // rare: the strict path reads it
		}
		if a.Dice, ok = fastDice(get("dice")); !ok {
			return a, false
		}
	}
	return a, true
}

// fastString reads a field's value as a string; ok is false when the
// field is missing or not a string the fast path reads.
func fastString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// fastNumber reads a field's value as a whole number of at most nine
// digits, which fits 32 bits as the strict path's wholeNumber does.
func fastNumber(v []byte) (int, bool) {
	n, ok := fastWhole(v, 9)
	return int(n), ok
}

// fastWhole reads a field's value as a whole number of at most maxDigits
// digits.
func fastWhole(v []byte, maxDigits int) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := fastScanner{b: v}
	n, ok := s.num(maxDigits)
	return n, ok && s.i == len(v)
}

// fastStake reads a stake, which may be left out (nil).
func fastStake(v []byte) (*int, bool) {
	if v == nil {
		return nil, true
	}
	n, ok := fastNumber(v)
	if !ok {
		return nil, false
	}
	return &n, true
}

// fastFaces reads a list of whole numbers.
func fastFaces(v []byte) ([]int, bool) {
	return appendFaces(make([]int, 0, 8), v)
}

// appendFaces reads a list of whole numbers and appends them to faces.
func appendFaces(faces []int, v []byte) ([]int, bool) {
	if len(v) == 0 || v[0] != '[' {
		return nil, false
	}
	s := fastScanner{b: v}
	ok := s.container(false, 2, nil)
	if !ok {
		return nil, false
	}
	// The list is valid; read its numbers again, knowing each is one.
	s = fastScanner{b: v, i: 1}
	for {
		s.ws()
		if s.b[s.i] == ']' {
			return faces, true
		}
		n, ok := s.num(9)
		if !ok {
			return nil, false
		}
		faces = append(faces, int(n))
		s.ws()
		if s.b[s.i] == ',' {
			s.i++
		}
	}
}

// fastDice reads an object of seats and their lists of faces.
func fastDice(v []byte) (map[string][]int, bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	dice := make(map[string][]int, 8)
	// Every seat's faces lie in one list, each seat's capped at its end.
	all := make([]int, 0, 32)
	s := fastScanner{b: v}
	ok := s.container(true, 1, func(name, value []byte) bool {
		if _, seen := dice[string(name)]; seen {
			return false
		}
		start := len(all)
		var ok bool
		if all, ok = appendFaces(all, value); ok {
			dice[string(name)] = all[start:len(all):len(all)]
		}
		return ok
	})
	return dice, ok
}

// fastNewGame reads a new_game's fields; ok is false for an option,
// an insight or a bluff bonus the strict path refuses, or anything else
// the fast path does not read.
func fastNewGame(a *engine.Action, get func(name string) []byte) bool {
	var ok bool
	if v := get("computer"); v != nil {
		if a.Computer, ok = fastComputers(v); !ok {
			return false
		}
	}
	if v := get("bluff_bonus"); v != nil {
		if a.BluffBonus, ok = fastBonuses(v); !ok {
			return false
		}
	}
	if v := get("bluff_check"); v != nil {
		if a.BluffCheck = fastBool(v); a.BluffCheck == nil {
			return false
		}
	}
	if v := get("rules"); v != nil {
		if a.Rules, ok = fastString(v); !ok {
			return false
		}
	}
	if v := get("first"); v != nil {
		if a.First, ok = fastString(v); !ok {
			return false
		}
		a.EmptyFirst = a.First == ""
	}
	if v := get("seed"); v != nil {
		if a.Seed, ok = fastWhole(v, seedDigits); !ok {
			return false
		}
	}
	if v := get("seats"); v != nil {
		if a.Seats, ok = fastNames(v); !ok {
			return false
		}
	}
	if v := get("options"); v != nil {
		if a.Options, ok = fastOptions(v); !ok {
			return false
		}
	}
	return true
}

// fastNames reads a list of strings.
func fastNames(v []byte) ([]string, bool) {
	if v[0] != '[' {
		return nil, false
	}
	names := make([]string, 0, 8)
	s := fastScanner{b: v}
	ok := s.container(false, 2, nil)
	s = fastScanner{b: v, i: 1}
	for ok {
		s.ws()
		if s.b[s.i] == ']' {
			return names, true
		}
		var name []byte
		if name, ok = s.str(); ok {
			names = append(names, string(name))
		}
		s.ws()
		if s.b[s.i] == ',' {
			s.i++
		}
	}
	return nil, false
}

// fastOptions reads a new_game's options; ok is false for an option the
// referee does not know, a value of the wrong type or out of its range.
func fastOptions(v []byte) (o engine.Options, ok bool) {
	if v[0] != '{' {
		return o, false
	}
	s := fastScanner{b: v}
	ok = s.container(true, 2, func(name, value []byte) bool {
		switch string(name) {
		case "dice":
			return setOnce(&o.Dice, fastInt(value))
		case "sides":
			return setOnce(&o.Sides, fastInt(value))
		case "games":
			return setOnce(&o.Games, fastInt(value))
		case "purse":
			return setOnce(&o.Purse, fastInt(value))
		case "ante":
			return setOnce(&o.Ante, fastInt(value))
		case "die_hard":
			return setOnce(&o.DieHard, fastBool(value))
		case "show_reroll":
			return setOnce(&o.ShowReroll, fastBool(value))
		case "calza":
			return setOnce(&o.Calza, fastBool(value))
		case "palifico":
			return setOnce(&o.Palifico, fastBool(value))
		case "wild":
			w, ok := fastString(value)
			return ok && setOnce(&o.Wild, &w)
		}
		return false
	})
	return o, ok && engine.CheckOptionValues(o) == nil
}

// setOnce sets *field to v; false when v is nil (a value not read) or
// *field was set already (an option given twice).
func setOnce[T any](field **T, v *T) bool {
	if v == nil || *field != nil {
		return false
	}
	*field = v
	return true
}

// fastInt reads a whole number of at most nine digits, or gives nil.
func fastInt(v []byte) *int {
	n, ok := fastNumber(v)
	if !ok {
		return nil
	}
	return &n
}

// fastBool reads true or false, or gives nil.
func fastBool(v []byte) *bool {
	var b bool
	switch string(v) {
	case "true":
		b = true
	case "false":
	default:
		return nil
	}
	return &b
}

// fastComputers reads a new_game's computer seats: an object of seats and
// their insight and level, fields of other names ignored. An empty object
// is no computer seats (nil), as on the strict path.
func fastComputers(v []byte) (map[string]engine.ComputerSeat, bool) {
	if v[0] != '{' {
		return nil, false
	}
	var seats map[string]engine.ComputerSeat
	s := fastScanner{b: v}
	ok := s.container(true, 2, func(name, value []byte) bool {
		if _, seen := seats[string(name)]; seen || value[0] != '{' {
			return false
		}
		var c engine.ComputerSeat
		var insight, level bool
		s := fastScanner{b: value}
		ok := s.container(true, 3, func(field, value []byte) bool {
			var ok bool
			switch string(field) {
			case "insight":
				if insight {
					return false
				}
				c.Insight, ok = fastNumber(value)
				insight = true
				return ok && c.Insight >= 0 && c.Insight <= engine.MaxInsight
			case "level":
				if level {
					return false
				}
				c.Level, ok = fastString(value)
				level = true
				return ok
			}
			return true
		})
		if ok {
			if seats == nil {
				seats = make(map[string]engine.ComputerSeat, 4)
			}
			seats[string(name)] = c
		}
		return ok
	})
	return seats, ok
}

// fastBonuses reads a new_game's bluff bonuses, an object of seats and
// whole numbers within the bonus's range. An empty object is no bonuses
// (nil), as on the strict path.
func fastBonuses(v []byte) (map[string]int, bool) {
	if v[0] != '{' {
		return nil, false
	}
	var bonuses map[string]int
	s := fastScanner{b: v}
	ok := s.container(true, 2, func(name, value []byte) bool {
		if _, seen := bonuses[string(name)]; seen {
			return false
		}
		b, ok := fastNumber(value)
		if !ok || b < -engine.MaxBluffBonus || b > engine.MaxBluffBonus {
			return false
		}
		if bonuses == nil {
			bonuses = make(map[string]int, 4)
		}
		bonuses[string(name)] = b
		return true
	})
	return bonuses, ok
}
