package referee

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// newGame is the table's usual new_game (Config.NewGame), read once: its
// fields as written and the action they say.
type newGame struct {
	fields []record.Field
	action engine.Action
}

// readNewGame reads the table's usual new_game line; nil for none.
func readNewGame(line []byte) (*newGame, error) {
	if len(line) == 0 {
		return nil, nil
	}
	cmd, a, err := record.DecodeCommand(line)
	if err != nil {
		return nil, fmt.Errorf("referee: the table's new_game %s: %w", line, err)
	}
	return &newGame{fields: cmd.Fields, action: a}, nil
}

// completeNewGame fills what a command's new_game leaves out, on its line
// and its action alike, so that the journal's line says the action taken:
// the table's rules and seats (and, when it names no rules either, the
// table's options and bluff check settings), so that {"type":"new_game"}
// starts the table's usual game; a seed (Config.NewSeed), so that the
// journal replays its dice; and the table's computer seats that sit in
// it, when it has no computer field of its own. A computer seat whose
// insight is out of range refuses the new_game as its line would be.
func (r *Referee) completeNewGame(in Input) (Input, error) {
	fields := slices.Clone(in.cmd.Fields)
	a := in.action
	if r.defaults != nil {
		fields = r.defaults.fill(fields, &a, in.cmd)
	}
	fields = withSeed(fields, &a, r.cfg.NewSeed())
	fields, err := withComputers(fields, &a, r.cfg.Computers)
	in.cmd.Fields, in.action = fields, a
	in.line = in.cmd.Line()
	if err != nil {
		in.action = engine.Action{}
	}
	return in, err
}

// fill adds to a new_game's fields (and its action) the table's rules
// and seats it lacks and, when it names no rules, the table's options,
// bluff check and bluff bonuses it lacks, in the order the table's line
// gives them. A field that is null is lacking.
func (g *newGame) fill(fields []record.Field, a *engine.Action, cmd record.Command) []record.Field {
	for _, d := range g.fields {
		switch d.Name {
		case "rules", "seats":
		case "options", "bluff_check", "bluff_bonus":
			if cmd.Has("rules") {
				continue
			}
		default:
			continue
		}
		if cmd.Has(d.Name) {
			continue
		}
		fields = append(fields, d)
		switch d.Name {
		case "rules":
			a.Rules = g.action.Rules
		case "seats":
			a.Seats = slices.Clone(g.action.Seats)
		case "options":
			a.Options = g.action.Options
		case "bluff_check":
			a.BluffCheck = g.action.BluffCheck
		case "bluff_bonus":
			a.BluffBonus = maps.Clone(g.action.BluffBonus)
		}
	}
	return fields
}

// withSeed sets a new_game's seed to seed when it has none (or its first
// seed field is null). A line's last field of a name is the one read.
func withSeed(fields []record.Field, a *engine.Action, seed int64) []record.Field {
	v := json.RawMessage(strconv.FormatInt(seed, 10))
	isSeed := func(f record.Field) bool { return f.Name == "seed" }
	i := slices.IndexFunc(fields, isSeed)
	switch {
	case i < 0:
		fields = append(fields, record.Field{Name: "seed", Value: v})
	case string(fields[i].Value) == "null":
		fields[i].Value = v
		if slices.ContainsFunc(fields[i+1:], isSeed) {
			return fields // a later seed is the one read
		}
	default:
		return fields
	}
	a.Seed = seed
	return fields
}

// withComputers names the table's computer seats in a new_game that has
// no computer field of its own, for those of them that sit in it.
func withComputers(fields []record.Field, a *engine.Action, cs []Computer) ([]record.Field, error) {
	if len(cs) == 0 || slices.ContainsFunc(fields, func(f record.Field) bool { return f.Name == "computer" }) {
		return fields, nil
	}
	type seat struct {
		Insight int    `json:"insight"`
		Level   string `json:"level"`
	}
	named := map[string]seat{}
	for _, c := range cs {
		if slices.Contains(a.Seats, c.Name) {
			named[c.Name] = seat{Insight: c.Insight, Level: c.Level}
		}
	}
	if len(named) == 0 {
		return fields, nil
	}
	raw, _ := json.Marshal(named)
	fields = append(fields, record.Field{Name: "computer", Value: raw})
	a.Computer = make(map[string]engine.ComputerSeat, len(named))
	for _, name := range slices.Sorted(maps.Keys(named)) {
		s := named[name]
		if s.Insight < 0 || s.Insight > engine.MaxInsight {
			return fields, &engine.Rejection{Reason: engine.BadInput,
				Message: fmt.Sprintf("computer seat %q: insight must be 0 to %d", name, engine.MaxInsight)}
		}
		a.Computer[name] = engine.ComputerSeat{Insight: s.Insight, Level: s.Level}
	}
	return fields, nil
}
