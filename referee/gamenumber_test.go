package referee_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/liarsd/liarsd/referee/journal"
)

// TestStateNumbersGamesAsTheJournal: the state's game_number counts the
// journal's games (as the scoreboard's records do) while its game stays
// RECORD.md's (1 at each new_game), across restarts from any segment's
// checkpoint.
func TestStateNumbersGamesAsTheJournal(t *testing.T) {
	newGame := `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":1}}`
	game := []string{newGame, `{"type":"bid","seat":"ann","quantity":1,"face":2}`, `{"type":"challenge","seat":"bob"}`,
		`{"type":"reveal","dice":{"ann":[2],"bob":[3]}}`}
	for _, per := range []int{0, 2, 3} {
		t.Run(map[int]string{0: "one segment", 2: "segments of 2 lines", 3: "segments of 3 lines"}[per], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t1.journal")
			r := startJournal(t, path, journal.Options{SegmentLines: per})
			for range 3 {
				for _, l := range game {
					if rep := r.submit(t, l, false); !rep.OK {
						t.Fatalf("%s: %+v", l, rep)
					}
				}
			}
			// A fourth game begins: its first hand is bid on.
			r.submit(t, newGame, false)
			r.submit(t, `{"type":"bid","seat":"ann","quantity":1,"face":4}`, false)
			check := func(when string, st map[string]any) {
				t.Helper()
				if st["game_number"] != 4.0 || st["game"] != 1.0 {
					t.Errorf("%s: game_number %v, game %v; want 4 and 1", when, st["game_number"], st["game"])
				}
			}
			check("live", r.rec.LastState(t))
			r.stop()
			again := startJournal(t, path, journal.Options{SegmentLines: per})
			again.rec.WaitFor(t, "the state after the restart", func() bool {
				return len(again.rec.States()) > 0
			})
			check("after a restart", again.rec.LastState(t))
		})
	}
}

// TestStateKeepsTheLastRevealsUnconfirmedDice: while the state's last is
// a resolution whose reveal had dice the camera did not read for sure,
// last_unconfirmed lists them (positions, no face); a correction, which
// confirms every die, clears it.
func TestStateKeepsTheLastRevealsUnconfirmedDice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	r := startJournal(t, path, journal.Options{})
	for _, l := range []string{`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":3,"options":{"dice":2}}`,
		`{"type":"bid","seat":"ann","quantity":3,"face":5}`, `{"type":"challenge","seat":"bob"}`,
		`{"type":"reveal","dice":{"ann":[3,1],"bob":[5,2]},"unconfirmed":{"ann":[1]}}`} {
		if rep := r.submit(t, l, false); !rep.OK {
			t.Fatalf("%s: %+v", l, rep)
		}
	}
	lastUnconfirmed := func(st map[string]any) string { b, _ := json.Marshal(st["last_unconfirmed"]); return string(b) }
	if got := lastUnconfirmed(r.rec.LastState(t)); got != `{"ann":[1]}` {
		t.Errorf("after the reveal: last_unconfirmed %s; want {\"ann\":[1]}", got)
	}
	r.stop()
	again := startJournal(t, path, journal.Options{})
	again.rec.WaitFor(t, "the state after the restart", func() bool {
		return len(again.rec.States()) > 0
	})
	if got := lastUnconfirmed(again.rec.LastState(t)); got != `{"ann":[1]}` {
		t.Errorf("after a restart: last_unconfirmed %s; want {\"ann\":[1]}", got)
	}
	if rep := again.submit(t, `{"type":"correct","dice":{"ann":[3,4],"bob":[5,2]}}`, false); !rep.OK {
		t.Fatalf("correct: %+v", rep)
	}
	if got := lastUnconfirmed(again.rec.LastState(t)); got != "null" {
		t.Errorf("after a correction: last_unconfirmed %s; want none", got)
	}
}
