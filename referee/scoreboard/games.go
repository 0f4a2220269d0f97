package scoreboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
)

// Journal gives the record lines of a table's journal, oldest first
// (RECORD.md lines, as the referee appended them). JournalFile reads them
// from the referee's file.
type Journal func() ([][]byte, error)

// JournalFile returns a Journal that reads the journal at path (a table's
// journal directory, or an older journal's file) each time it is called,
// its checksums checked (journal.ReadRecord): its non-blank lines. A last
// line without its newline is being written (or was cut by a power cut):
// it is left out. A missing journal is an empty one.
func JournalFile(path string) Journal {
	return func() ([][]byte, error) {
		all, err := journal.ReadRecord(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("scoreboard: %w", err)
		}
		var lines [][]byte
		for _, l := range all {
			if len(l) > 0 && len(l) <= record.MaxLineBytes {
				lines = append(lines, l)
			}
		}
		return lines, nil
	}
}

// SplitLines splits a journal's contents into its complete, non-blank
// lines; a last line without its newline is left out.
func SplitLines(data []byte) [][]byte {
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1] // i is -1 when there is no newline at all
	}
	var lines [][]byte
	_ = record.ReadLines(bytes.NewReader(data), func(_ int, line []byte, tooLong bool) error {
		if !tooLong {
			lines = append(lines, append([]byte(nil), line...))
		}
		return nil
	})
	return lines
}

// Game is one game of a journal: the record lines from its new_game up to
// the line that ended it (its game_over; for an endurance match, its
// match_over), or to the journal's end while it is being played.
type Game struct {
	// Number counts the journal's games from 1, oldest first.
	Number   int      `json:"number"`
	Rules    string   `json:"rules"`
	Seats    []string `json:"seats"`
	Finished bool     `json:"finished"`
	// Winner is the game's (or the match's) winner once finished.
	Winner string `json:"winner,omitempty"`
	// Hands is the number of hands played or started.
	Hands int `json:"hands"`
	// FirstSeq and LastSeq are the seq of its first and last events.
	FirstSeq int `json:"first_seq"`
	LastSeq  int `json:"last_seq"`

	// Lines are the game's record lines, a record that replays it alone.
	Lines [][]byte `json:"-"`
	// Events are the game's events as the referee published them, with
	// each revealed event carrying the dice that were shown face up before
	// the call (field "shown"), which spectators already knew.
	Events []json.RawMessage `json:"-"`
}

// Record returns the game's record: its lines, each ending in a newline.
func (g Game) Record() []byte {
	var b bytes.Buffer
	for _, l := range g.Lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Games replays a journal's lines through the rules engine and splits them
// into games. Lines before the first new_game, and lines the engine
// refuses (a journal holds none, but a hand-edited one might), belong to
// no game and are skipped.
func Games(lines [][]byte) []Game {
	var sp splitter
	for _, l := range lines {
		sp.add(l)
	}
	return sp.games
}

// splitter splits a journal into games line by line, so that a journal
// that grew is replayed from where it was left (see library).
type splitter struct {
	t     *engine.Table
	games []Game
	n     int    // lines taken
	first []byte // the first line: another first line is another journal
	// hands and winner are the last game's before its last reveal: a
	// correction of that reveal (docs/corrections.md) counts its result
	// again from there.
	hands  int
	winner string
}

func (sp *splitter) add(line []byte) {
	if sp.t == nil {
		sp.t = engine.NewTable()
	}
	if sp.n == 0 {
		sp.first = append([]byte(nil), line...)
	}
	sp.n++
	t := sp.t
	before := t.Snapshot()
	a, err := record.Decode(line)
	if err != nil {
		return
	}
	evs, err := t.Apply(a)
	if err != nil {
		return
	}
	if a.Type == engine.ActNewGame {
		sp.games = append(sp.games, Game{Number: len(sp.games) + 1, Rules: a.Rules, Seats: append([]string(nil), a.Seats...)})
	}
	if len(sp.games) == 0 {
		return
	}
	g := &sp.games[len(sp.games)-1]
	g.Lines = append(g.Lines, line)
	switch a.Type {
	case engine.ActReveal:
		sp.hands, sp.winner = g.Hands, g.Winner
	case engine.ActCorrect:
		g.Hands, g.Winner = sp.hands, sp.winner
	}
	for _, e := range evs {
		h := e.Head()
		if g.FirstSeq == 0 {
			g.FirstSeq = h.Seq
		}
		g.LastSeq = h.Seq
		switch ev := e.(type) {
		case *engine.HandStarted:
			g.Hands++
		case *engine.GameOver:
			g.Winner = ev.Winner
		case *engine.MatchOver:
			g.Winner = ev.Winner
		}
		g.Events = append(g.Events, eventJSON(e, before))
	}
	after := t.Snapshot()
	g.Finished = after.Phase == engine.PhaseGameOver
	if g.Rules == "" {
		g.Rules = after.Rules
	}
}

// library keeps a journal's games between requests: a journal that only
// grew is replayed from where it was left, one that changed otherwise (a
// new journal) from its start.
type library struct {
	journal Journal
	mu      sync.Mutex
	sp      splitter
}

// games returns the journal's games. The caller must not modify them.
func (l *library) games() ([]Game, error) {
	lines, err := l.journal()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(lines) < l.sp.n || (l.sp.n > 0 && !bytes.Equal(lines[0], l.sp.first)) {
		l.sp = splitter{}
	}
	for _, line := range lines[l.sp.n:] {
		l.sp.add(line)
	}
	// The last game may still grow: hand out a copy of its slices' headers
	// so that later appends do not touch what a caller holds.
	out := append([]Game(nil), l.sp.games...)
	if n := len(out); n > 0 {
		last := &out[n-1]
		last.Lines = last.Lines[:len(last.Lines):len(last.Lines)]
		last.Events = last.Events[:len(last.Events):len(last.Events)]
	}
	return out, nil
}

// eventJSON encodes an event; a revealed event gets the dice that were
// shown before the call, so that a page can tell what was known.
func eventJSON(e engine.Event, before engine.Snapshot) json.RawMessage {
	b, err := json.Marshal(e)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	if _, ok := e.(*engine.Revealed); !ok {
		return b
	}
	shown := map[string][]int{}
	for _, s := range before.Seats {
		if len(s.Shown) > 0 {
			shown[s.Name] = s.Shown
		}
	}
	extra, _ := json.Marshal(shown)
	// Splice "shown" in before the closing brace: the event's own fields
	// keep their order.
	out := append(append([]byte(nil), b[:len(b)-1]...), `,"shown":`...)
	out = append(out, extra...)
	return append(out, '}')
}
