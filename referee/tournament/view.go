package tournament

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// View is the tournament as the pages show it (and its MQTT state topic
// carries it): the setup, where it stands, and the round's tables. It
// holds no hidden die: the tables' events give counts only.
type View struct {
	Name      string     `json:"name"`
	Title     string     `json:"title,omitempty"`
	Format    string     `json:"format,omitempty"`
	Rules     string     `json:"rules,omitempty"`
	Seats     int        `json:"seats,omitempty"`
	Rounds    int        `json:"rounds,omitempty"`
	Advance   int        `json:"advance,omitempty"`
	TimeLimit string     `json:"time_limit,omitempty"`
	Tables    int        `json:"tables"`
	Players   int        `json:"players"`
	Active    int        `json:"active"`
	Status    string     `json:"status"`
	Finished  bool       `json:"finished"`
	Round     *RoundView `json:"round"`
	// Problems are what the organiser must see to: games refused,
	// abandoned or cut by time before they started.
	Problems  []string `json:"problems"`
	Notes     []string `json:"notes"`
	TieBreaks string   `json:"tie_breaks,omitempty"`
	Setup     *Setup   `json:"setup,omitempty"`
}

// RoundView is a round's tables.
type RoundView struct {
	Number   int        `json:"number"`
	Started  time.Time  `json:"started"`
	Final    bool       `json:"final,omitempty"`
	Done     int        `json:"done"`
	Total    int        `json:"total"`
	Complete bool       `json:"complete"`
	Games    []GameView `json:"games"`
}

// GameView is one table's game of the round.
type GameView struct {
	Table   string   `json:"table"`
	Seats   []string `json:"seats"`
	Status  string   `json:"status"`
	Attempt int      `json:"attempt"`
	// Start is the seq of the game's first event at the table once it
	// started, Hand the hand it plays.
	Start int `json:"start,omitempty"`
	Hand  int `json:"hand,omitempty"`
	// Dice are the seats' dice as the table's last hand_started and
	// resolutions left them; Out the seats out, in the order they went.
	Dice    map[string]int `json:"dice,omitempty"`
	Out     []string       `json:"out,omitempty"`
	Since   time.Time      `json:"since"`
	Result  *Result        `json:"result,omitempty"`
	Problem string         `json:"problem,omitempty"`
}

// View returns the tournament as the pages show it.
func (t *Tournament) View() View {
	v := View{Name: t.name, Players: len(t.players), Active: len(t.active()), Problems: []string{}, Notes: t.Notes()}
	if v.Notes == nil {
		v.Notes = []string{}
	}
	if s := t.setup; s != nil {
		v.Title, v.Format, v.Rules, v.Seats, v.Rounds, v.Advance = s.Title, s.Format, s.Rules, s.Seats, s.Rounds, s.Advance
		if s.TimeLimit > 0 {
			v.TimeLimit = s.TimeLimit.String()
		}
		v.Tables = len(s.Tables)
		v.TieBreaks = TieBreaks(s.Format)
		cp := *s
		v.Setup = &cp
	}
	v.Finished = t.Finished()
	r := t.current()
	switch {
	case t.setup == nil:
		v.Status = "not set up"
	case r == nil:
		v.Status = "registration"
	case v.Finished:
		v.Status = "finished"
	case t.complete(r):
		v.Status = fmt.Sprintf("round %d over", r.Number)
	default:
		v.Status = fmt.Sprintf("round %d", r.Number)
	}
	if r == nil {
		return v
	}
	rv := &RoundView{Number: r.Number, Started: r.Started, Total: len(r.Games), Complete: t.complete(r),
		Final: t.setup.Format == Knockout && len(r.Games) == 1, Games: make([]GameView, 0, len(r.Games))}
	for _, g := range r.Games {
		gv := GameView{Table: g.Table, Seats: g.Seats, Status: g.status(), Attempt: g.Attempt, Start: g.Start,
			Since: g.Since, Result: g.Result, Problem: g.problem()}
		if g.Started() {
			p := progressOf(g.Seats, g.log)
			gv.Hand, gv.Dice = p.hand, p.dice
			for _, grp := range p.out {
				gv.Out = append(gv.Out, grp...)
			}
		}
		if g.Result != nil {
			rv.Done++
		}
		if gv.Problem != "" {
			v.Problems = append(v.Problems, gv.Problem)
		}
		rv.Games = append(rv.Games, gv)
	}
	v.Round = rv
	return v
}

// Export is the tournament's results: the standings and every game's
// result, round by round (JSON; CSV writes the same as two tables).
type Export struct {
	Name      string        `json:"name"`
	Title     string        `json:"title,omitempty"`
	Setup     *Setup        `json:"setup"`
	Finished  bool          `json:"finished"`
	TieBreaks string        `json:"tie_breaks"`
	Standings []Standing    `json:"standings"`
	Rounds    []ExportRound `json:"rounds"`
}

// ExportRound is one round's games.
type ExportRound struct {
	Number  int          `json:"number"`
	Started time.Time    `json:"started"`
	Games   []ExportGame `json:"games"`
}

// ExportGame is one game and its result (none yet: null).
type ExportGame struct {
	Table   string   `json:"table"`
	Seats   []string `json:"seats"`
	Attempt int      `json:"attempt"`
	Start   int      `json:"start,omitempty"`
	Result  *Result  `json:"result"`
	// Overridden is the result the events gave before an override.
	Overridden *Result `json:"overridden,omitempty"`
}

// Export returns the results.
func (t *Tournament) Export() Export {
	e := Export{Name: t.name, Setup: t.setup, Finished: t.Finished(), Standings: t.Standings(), Rounds: []ExportRound{}}
	if t.setup != nil {
		e.Title, e.TieBreaks = t.setup.Title, TieBreaks(t.setup.Format)
	}
	for _, r := range t.rounds {
		er := ExportRound{Number: r.Number, Started: r.Started}
		for _, g := range r.Games {
			er.Games = append(er.Games, ExportGame{Table: g.Table, Seats: g.Seats, Attempt: g.Attempt, Start: g.Start, Result: g.Result, Overridden: g.Overridden})
		}
		e.Rounds = append(e.Rounds, er)
	}
	return e
}

// JSON writes the export as indented JSON.
func (e Export) JSON() []byte {
	b, _ := json.MarshalIndent(e, "", "  ")
	return append(b, '\n')
}

// StandingsCSV writes the standings as CSV with a header line.
func (e Export) StandingsCSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"rank", "player", "points", "wins", "games", "opponents", "places", "computer", "dropped", "out"})
	for _, s := range e.Standings {
		places := make([]string, len(s.Places))
		for i, p := range s.Places {
			places[i] = strconv.Itoa(p)
		}
		_ = w.Write([]string{strconv.Itoa(s.Rank), s.Player, strconv.Itoa(s.Points), strconv.Itoa(s.Wins), strconv.Itoa(s.Games),
			strconv.Itoa(s.Opponents), strings.Join(places, " "), s.Computer, strconv.FormatBool(s.Dropped), strconv.FormatBool(s.Out)})
	}
	w.Flush()
	return b.Bytes()
}

// ResultsCSV writes every game's result as CSV, a line a player: round,
// table, place, player, points, source, the table's seqs the game ran
// from and to (its events in liarsd adjudicate of the table's journal),
// reason.
func (e Export) ResultsCSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"round", "table", "place", "player", "points", "source", "start", "seq", "reason"})
	for _, r := range e.Rounds {
		for _, g := range r.Games {
			if g.Result == nil {
				for _, s := range g.Seats {
					_ = w.Write([]string{strconv.Itoa(r.Number), g.Table, "", s, "", "", strconv.Itoa(g.Start), "", "no result yet"})
				}
				continue
			}
			places, points := g.Result.Places(), g.Result.Points()
			for _, grp := range g.Result.Order {
				for _, s := range grp {
					_ = w.Write([]string{strconv.Itoa(r.Number), g.Table, strconv.Itoa(places[s]), s,
						strconv.Itoa(points[s]), g.Result.Source, strconv.Itoa(g.Result.Start), strconv.Itoa(g.Result.Seq), g.Result.Reason})
				}
			}
		}
	}
	w.Flush()
	return b.Bytes()
}
