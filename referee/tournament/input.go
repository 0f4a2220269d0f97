package tournament

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The types of Input: each is one line of the tournament's journal.
const (
	// InSetup sets the tournament up: its format, rules, tables, limits.
	InSetup = "setup"
	// InRegister registers players.
	InRegister = "register"
	// InDrop takes a player out of the rounds to come.
	InDrop = "drop"
	// InStartRound seats the players at the tables and starts the round.
	InStartRound = "start_round"
	// InEvents carries table events the service took from the broker.
	InEvents = "events"
	// InReplies carries tables' refusals of the tournament's new_game.
	InReplies = "replies"
	// InOverride sets a game's result by the organiser, with a reason.
	InOverride = "override"
	// InCallTime ends a game at its time limit: its result is taken from
	// the dice left.
	InCallTime = "call_time"
	// InRestartGame sends a game's new_game again (the table's game is
	// abandoned and played from the start).
	InRestartGame = "restart_game"
	// InSkipGap takes a table's events on without one that never came.
	InSkipGap = "skip_gap"
)

// Input is one input of the tournament, as the organiser's page or the
// service gives it and as the journal keeps it.
type Input struct {
	Type string
	// At is when the service took the input (zero when not given).
	At time.Time
	// Setup is a setup's.
	Setup *Setup
	// Players are a registration's.
	Players []Player
	// Player is a drop's.
	Player string
	// Round and Table name a game (override, call_time, restart_game), or
	// Round the round a start_round starts.
	Round int
	Table string
	// Tables is a start_round's seating.
	Tables []Seating
	// Order is an override's result, best first.
	Order []string
	// Reason is why (override, drop, restart_game, call_time).
	Reason string
	// After is a restart_game's floor: the table's events up to this seq
	// are of games before it.
	After int
	// Events and Replies are what the service took from the tables:
	// the events the tournament keeps, and Seen, the seqs of every event
	// that came (kept or not), so that a table's events are taken in
	// order even when the broker delivers them out of it.
	Events  []TableEvent
	Seen    []SeqRange
	Replies []TableReply
}

// SeqRange is seqs From to To of a table's events.
type SeqRange struct {
	Table string `json:"table"`
	From  int    `json:"from"`
	To    int    `json:"to"`
}

// Player is a registered player.
type Player struct {
	Name string `json:"name"`
	// Computer is the level of a computer player ("" for a person): the
	// table's referee plays its seat (engine/computer).
	Computer string `json:"computer,omitempty"`
}

// Seating is one table of a round: who sits there, clockwise.
type Seating struct {
	Table string   `json:"table"`
	Seats []string `json:"seats"`
	// After is the table's last event known when the round started: the
	// game is the first the table starts after it with these seats.
	After int `json:"after"`
}

// TableEvent is the part of a table's event (RECORD.md, and docs/
// corrections.md's corrected) the tournament keeps.
type TableEvent struct {
	Table string `json:"table"`
	Type  string `json:"type"`
	Seq   int    `json:"seq"`
	Game  int    `json:"game,omitempty"`
	Hand  int    `json:"hand,omitempty"`
	// Dice: hand_started's dice of each seat in the hand; resolved's and
	// folded's change of each seat's dice.
	Dice   map[string]int `json:"dice,omitempty"`
	Out    []string       `json:"out,omitempty"`
	Seat   string         `json:"seat,omitempty"`
	Winner string         `json:"winner,omitempty"`
}

// TableReply is a table's refusal of one of the tournament's commands.
type TableReply struct {
	Table   string `json:"table"`
	ID      string `json:"id"`
	OK      bool   `json:"ok"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// wire is an Input as JSON.
type wire struct {
	Type    string          `json:"type"`
	At      string          `json:"at,omitempty"`
	Setup   *Setup          `json:"setup,omitempty"`
	Players []Player        `json:"players,omitempty"`
	Player  string          `json:"player,omitempty"`
	Round   int             `json:"round,omitempty"`
	Table   string          `json:"table,omitempty"`
	Tables  []Seating       `json:"tables,omitempty"`
	Order   []string        `json:"order,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	After   int             `json:"after,omitempty"`
	Events  []TableEvent    `json:"events,omitempty"`
	Seen    []SeqRange      `json:"seen,omitempty"`
	Replies []TableReply    `json:"replies,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
}

// fields are the fields each input type takes besides type, at and id.
var fields = map[string][]string{
	InSetup:       {"setup"},
	InRegister:    {"players"},
	InDrop:        {"player", "reason"},
	InStartRound:  {"round", "tables"},
	InEvents:      {"events", "seen"},
	InReplies:     {"replies"},
	InOverride:    {"round", "table", "order", "reason"},
	InCallTime:    {"round", "table", "reason"},
	InRestartGame: {"round", "table", "reason", "after"},
	InSkipGap:     {"table"},
}

// Types returns the input types, sorted.
func Types() []string { return slices.Sorted(maps.Keys(fields)) }

// MaxLineBytes bounds an input line: a registration of a few thousand
// players fits.
const MaxLineBytes = 1 << 20

// Decode reads one input line. It refuses (bad_input) what is not one JSON
// object of a known type with that type's fields, of their types; an "id"
// field is allowed and ignored (the page's own). It checks the form only:
// Apply checks the input against the tournament.
func Decode(line []byte) (Input, error) {
	if len(line) > MaxLineBytes {
		return Input{}, refuse(BadInput, "an input is at most %d bytes, not %d", MaxLineBytes, len(line))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil || raw == nil {
		return Input{}, refuse(BadInput, "an input is one JSON object: %s", jsonProblem(err))
	}
	var typ string
	if err := json.Unmarshal(raw["type"], &typ); err != nil || typ == "" {
		return Input{}, refuse(BadInput, "an input needs a type (one of %s)", strings.Join(Types(), ", "))
	}
	allowed, ok := fields[typ]
	if !ok {
		return Input{}, refuse(BadInput, "unknown type %q (the types: %s)", typ, strings.Join(Types(), ", "))
	}
	for k := range raw {
		if k != "type" && k != "at" && k != "id" && !slices.Contains(allowed, k) {
			return Input{}, refuse(BadInput, "%s takes no %q (it takes %s)", typ, k, strings.Join(allowed, ", "))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var w wire
	if err := dec.Decode(&w); err != nil {
		return Input{}, refuse(BadInput, "%s: %s", typ, jsonProblem(err))
	}
	in := Input{Type: typ, Setup: w.Setup, Players: w.Players, Player: w.Player, Round: w.Round, Table: w.Table,
		Tables: w.Tables, Order: w.Order, Reason: w.Reason, After: w.After, Events: w.Events, Seen: w.Seen, Replies: w.Replies}
	if w.At != "" {
		at, err := time.Parse(time.RFC3339Nano, w.At)
		if err != nil {
			return Input{}, refuse(BadInput, "at %q is not a time (RFC 3339)", w.At)
		}
		in.At = at
	}
	if typ == InSetup && in.Setup == nil {
		return Input{}, refuse(BadInput, "setup needs a setup object")
	}
	if in.Round < 0 {
		return Input{}, refuse(BadInput, "round %d: rounds count from 1", in.Round)
	}
	return in, nil
}

// Encode writes in as one journal line (compact JSON, no line break).
func Encode(in Input) []byte {
	w := wire{Type: in.Type, Setup: in.Setup, Players: in.Players, Player: in.Player, Round: in.Round, Table: in.Table,
		Tables: in.Tables, Order: in.Order, Reason: in.Reason, After: in.After, Events: in.Events, Seen: in.Seen, Replies: in.Replies}
	if !in.At.IsZero() {
		w.At = in.At.UTC().Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(w)
	if err != nil {
		// Every field is a plain value; only a setup's options could fail,
		// and Decode took them as JSON.
		panic(fmt.Sprintf("tournament: encoding an input: %v", err))
	}
	return b
}

// jsonProblem says what is wrong with a JSON value, in words.
func jsonProblem(err error) string {
	if err == nil {
		return "null"
	}
	var te *json.UnmarshalTypeError
	if ok := asType(err, &te); ok {
		if te.Field != "" {
			return fmt.Sprintf("%s must be %s, not %s", te.Field, kind(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("not %s", te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func kind(k string) string {
	switch k {
	case "int", "int64":
		return "a whole number"
	case "string":
		return "text"
	case "slice":
		return "a list"
	case "map", "struct", "ptr":
		return "an object"
	case "bool":
		return "true or false"
	}
	return k
}
