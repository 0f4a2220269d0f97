package tournament

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// The formats.
const (
	// Swiss plays a fixed number of rounds; each round seats the players
	// by their standings, the leaders together.
	Swiss = "swiss"
	// Knockout plays rounds until one table is left: the best Advance of
	// each table go on, and the final table's result decides the places.
	Knockout = "knockout"
)

// Setup is how the organiser sets the tournament up.
type Setup struct {
	// Title is what the pages call it ("Spring open").
	Title string `json:"title,omitempty"`
	// Format is Swiss or Knockout.
	Format string `json:"format"`
	// Rules is the preset every game plays (RULINGS.md), and Options its
	// options, as in a new_game.
	Rules   string          `json:"rules"`
	Options json.RawMessage `json:"options,omitempty"`
	// Seats is the most players at a table; a round seats players at as
	// few tables as that allows, as evenly as it can (5 players and
	// seats 3: tables of 3 and 2).
	Seats int `json:"seats"`
	// Rounds is the number of rounds of a Swiss tournament.
	Rounds int `json:"rounds,omitempty"`
	// Advance is the number of players of each table who go on to the
	// next round of a knock-out.
	Advance int `json:"advance,omitempty"`
	// Tables are the venue's tables the tournament plays at, in order:
	// the top players sit at the first.
	Tables []string `json:"tables"`
	// TimeLimit ends a game that runs longer: its result is taken from
	// the dice left. Zero: no limit.
	TimeLimit Duration `json:"time_limit,omitempty"`
	// Seed draws the first round's seating and the last tie-break, and
	// the games' seeds.
	Seed int64 `json:"seed"`

	// options are Options read by check, for the games' new_game.
	options engine.Options
}

// Duration is a time.Duration written as Go writes one ("45m", "1h30m").
type Duration time.Duration

// String writes the duration as people do: 45m, 1h30m, 90s.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalJSON writes the duration as text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "45m" or "1h30m".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a time limit is text such as \"45m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("time limit %q: write it as 45m or 1h30m", s)
	}
	*d = Duration(v)
	return nil
}

// MaxTitle bounds a title's length in characters.
const MaxTitle = 100

var tableID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidTable reports whether id is a table id of MQTT.md.
func ValidTable(id string) bool { return tableID.MatchString(id) }

// check says what is wrong with a setup, if anything: a preset that does
// not exist or plays no single winner, options the engine refuses, table
// sizes the preset does not take, tables that are not tables.
func (s *Setup) check() *Refusal {
	if utf8.RuneCountInString(s.Title) > MaxTitle {
		return refuse(BadSetup, "a title is at most %d characters", MaxTitle)
	}
	p, ok := engine.Presets[s.Rules]
	if !ok {
		return refuse(BadSetup, "no preset %q (presets: %s)", s.Rules, strings.Join(engine.PresetNames(), ", "))
	}
	if p.Match {
		return refuse(BadSetup, "%s plays a match of rounds, not a game to one winner and an order of who went out: a tournament plays the other presets", s.Rules)
	}
	if s.Seats < p.MinSeats || s.Seats > p.MaxSeats {
		return refuse(BadSetup, "seats %d: %s is played by %d to %d seats", s.Seats, s.Rules, p.MinSeats, p.MaxSeats)
	}
	switch s.Format {
	case Swiss:
		if s.Rounds < 1 || s.Rounds > 100 {
			return refuse(BadSetup, "a Swiss tournament plays 1 to 100 rounds, not %d", s.Rounds)
		}
		if s.Advance != 0 {
			return refuse(BadSetup, "advance is a knock-out's; a Swiss tournament plays every player in every round")
		}
	case Knockout:
		if s.Rounds != 0 {
			return refuse(BadSetup, "rounds is a Swiss tournament's; a knock-out plays until one table is left")
		}
		// Every table must knock somebody out, also the smallest a round
		// can seat: players one more than a table's seats, at two tables.
		most := (s.Seats+1)/2 - 1
		if s.Advance < 1 || s.Advance > most {
			return refuse(BadSetup, "advance %d: with tables of up to %d seats, 1 to %d players of each table can go on (each table must knock someone out)", s.Advance, s.Seats, max(most, 1))
		}
		if most < 1 {
			return refuse(BadSetup, "a knock-out needs tables of at least 3 seats, so that two tables can each knock someone out")
		}
	default:
		return refuse(BadSetup, "format %q: swiss or knockout", s.Format)
	}
	if len(s.Tables) == 0 {
		return refuse(BadSetup, "a tournament needs tables")
	}
	seen := map[string]bool{}
	for _, t := range s.Tables {
		if !ValidTable(t) {
			return refuse(BadSetup, "table %q: a table id is 1 to 64 letters, digits, - and _", t)
		}
		if seen[t] {
			return refuse(BadSetup, "table %s is named twice", t)
		}
		seen[t] = true
	}
	if s.TimeLimit < 0 {
		return refuse(BadSetup, "a time limit cannot be negative")
	}
	s.options = engine.Options{}
	if len(s.Options) > 0 {
		var o map[string]json.RawMessage
		if json.Unmarshal(s.Options, &o) != nil || o == nil {
			return refuse(BadSetup, "options are an object, as in a new_game")
		}
		opts, err := record.DecodeOptions(s.Options)
		var rej *engine.Rejection
		if asType(err, &rej) {
			return refuse(BadSetup, "the engine refuses this game: %s", rej.Message)
		}
		s.options = opts
	}
	// The engine checks the options and the sizes, as a table will.
	for n := max(p.MinSeats, 2); n <= s.Seats; n++ {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("p%d", i+1)
		}
		line := newGameLine(s, names, nil, 1, "")
		if _, err := record.Apply(engine.NewTable(), line); err != nil {
			var rej *engine.Rejection
			if asType(err, &rej) {
				return refuse(BadSetup, "the engine refuses this game: %s", rej.Message)
			}
			return refuse(BadSetup, "the engine refuses this game: %v", err)
		}
	}
	return nil
}

// newGameLine is the table's new_game (RECORD.md) of a tournament game,
// as record writes one: the rules and options of the setup, the seats,
// the computer players' seats, the game's seed; with the command's id
// when there is one.
func newGameLine(s *Setup, seats []string, computers map[string]string, seed int64, id string) []byte {
	a := engine.Action{Type: engine.ActNewGame, Rules: s.Rules, Seats: seats, Seed: seed, Options: s.options}
	for _, seat := range seats {
		if lvl := computers[seat]; lvl != "" {
			if a.Computer == nil {
				a.Computer = map[string]engine.ComputerSeat{}
			}
			a.Computer[seat] = engine.ComputerSeat{Level: lvl}
		}
	}
	c := record.SplitCommand(record.Encode(a))
	if id != "" {
		c.ID, _ = json.Marshal(id)
	}
	return c.Journaled()
}

// validName reports whether n is a seat name of RECORD.md: 1 to 32
// letters, digits, spaces, _ or -.
func validName(n string) bool {
	if n == "" || utf8.RuneCountInString(n) > 32 || strings.TrimSpace(n) != n {
		return false
	}
	for _, r := range n {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

// foldName is the form two names are compared in: "Ann" and "ann" are one
// player at a table's screen.
func foldName(n string) string { return strings.ToLower(n) }

// sameSet reports whether a and b hold the same names.
func sameSet(a []string, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, n := range a {
		if _, ok := b[n]; !ok {
			return false
		}
	}
	return true
}

// sortedNames returns the map's keys, sorted.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
