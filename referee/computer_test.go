package referee_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee"
)

// TestComputerSeatsPlayTheirTurns: at a table with a person and two
// computer seats, the referee names them in new_game, plays their turns
// (journaled like anyone's), and reveals from the engine's dice when only
// computer seats are in the hand. The journal adjudicates to the events
// published, and no computer die appears before its reveal.
func TestComputerSeatsPlayTheirTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.journal")
	h := start(t, path, referee.Config{
		Computers:    []referee.Computer{{Name: "bot", Level: "strong", Insight: 2}, {Name: "cat", Level: "random"}},
		ComputerPace: time.Millisecond,
	})
	if rep := h.do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bot","cat"],"first":"ann","seed":3,"options":{"dice":2}}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	// ann bids; the computers answer by themselves until it is ann's turn
	// again or someone calls, then ann's reveal gives only her own dice.
	if rep := h.do(t, `{"type":"bid","seat":"ann","quantity":1,"face":2}`); !rep.OK {
		t.Fatalf("bid: %+v", rep)
	}
	h.rec.WaitFor(t, "a computer call or ann's turn", func() bool {
		st := h.rec.LastState(t)
		return st["phase"] == "reveal" || (st["turn"] == "ann" && st["bid"].(map[string]any)["seat"] != "ann")
	})
	st := h.rec.LastState(t)
	for _, s := range st["seats"].([]any) {
		seat := s.(map[string]any)
		if want := seat["name"] != "ann"; seat["computer"] != want {
			t.Errorf("seat %v: computer %v; want %v", seat["name"], seat["computer"], want)
		}
	}
	if st["phase"] == "reveal" {
		if rep := h.do(t, `{"type":"reveal","dice":{"ann":[2,5]}}`); !rep.OK {
			t.Fatalf("reveal of ann's dice: %+v", rep)
		}
	}
	h.stop()
	journal := string(readJournal(t, path))
	if !strings.Contains(journal, `"computer":{`) || !strings.Contains(journal, `"seat":"bot"`) {
		t.Fatalf("journal does not show the computer seats named and playing:\n%s", journal)
	}
	events := h.rec.EventLines()
	if got := adjudicate(t, path); got != events {
		t.Fatalf("adjudicate(journal):\n%s\nwant the published events:\n%s", got, events)
	}
	// Privacy: before its revealed event, no event carries a die face.
	for _, line := range strings.Split(strings.TrimSpace(events), "\n") {
		var e map[string]any
		json.Unmarshal([]byte(line), &e)
		if e["type"] == "revealed" {
			break
		}
		if strings.Contains(line, `"dice":{"`) && e["type"] != "hand_started" && e["type"] != "resolved" {
			t.Fatalf("an event before the reveal carries dice: %s", line)
		}
	}
}

// TestNewGameSeedStaysOutOfTheLog: the seed a new_game is journaled with
// would give away computer seats' dice, so no log line carries it.
func TestNewGameSeedStaysOutOfTheLog(t *testing.T) {
	h := start(t, filepath.Join(t.TempDir(), "t1.journal"), referee.Config{
		NewSeed:   func() int64 { return 987654321 },
		Computers: []referee.Computer{{Name: "bot"}},
	})
	if rep := h.do(t, `{"type":"new_game","rules":"classic","seats":["ann","bot"],"first":"ann"}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	h.stop()
	if logs := h.logs.String(); strings.Contains(logs, "987654321") {
		t.Fatalf("the seed is in the log:\n%s", logs)
	}
}

// TestComputerSeatsMoveOnlyByThemselves: nobody makes a computer seat's
// move for it (a show tried on its behalf would tell by its refusal which
// faces it hides); its own turn is still its own to play.
func TestComputerSeatsMoveOnlyByThemselves(t *testing.T) {
	h := start(t, filepath.Join(t.TempDir(), "t1.journal"), referee.Config{
		Computers:    []referee.Computer{{Name: "bot"}},
		ComputerPace: time.Hour, // the bot waits: the test speaks for it
	})
	if rep := h.do(t, `{"type":"new_game","rules":"star-board","seats":["ann","bot"],"first":"bot","seed":5}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	for _, line := range []string{
		`{"type":"bid","seat":"bot","quantity":1,"face":2}`,
		`{"type":"challenge","seat":"bot"}`,
		`{"type":"show","seat":"bot","shown":[3]}`,
	} {
		rep := h.do(t, line)
		if got, want := string(rep.Reason), "not_allowed"; rep.OK || got != want || !strings.Contains(rep.Message, "computer seat") {
			t.Errorf("%s: got %+v; want %s, a computer seat", line, rep, want)
		}
	}
	if st := h.rec.LastState(t); st["turn"] != "bot" || st["bid"] != nil {
		t.Errorf("after the refused moves: turn %v, bid %v; want bot's turn, no bid", st["turn"], st["bid"])
	}
}

// TestConfiguredBluffCheck: a table configured with the bluff check on (at
// a preset where it is off) and a person's bonus starts its usual game
// with them, and a person's bid may then roll against the computer seat.
func TestConfiguredBluffCheck(t *testing.T) {
	h := start(t, filepath.Join(t.TempDir(), "t1.journal"), referee.Config{
		Computers:    []referee.Computer{{Name: "bot", Insight: 2}},
		ComputerPace: time.Hour,
		NewGame:      []byte(`{"bluff_bonus":{"ann":3},"bluff_check":true,"rules":"common-hand","seats":["ann","bot"],"type":"new_game"}`),
	})
	if rep := h.do(t, `{"type":"new_game","first":"ann","seed":2}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	if rep := h.do(t, `{"type":"bid","seat":"ann","quantity":1,"face":3,"bluff":true}`); !rep.OK {
		t.Fatalf("a bid with a bluff check: %+v", rep)
	}
	if got := h.rec.EventLines(); !strings.Contains(got, `"type":"bluff_check"`) || !strings.Contains(got, `"bonus":3`) {
		t.Errorf("events:\n%s\nwant a bluff_check with ann's bonus 3", got)
	}
}

// TestComputerSeatMovesAfterARefusal: a person's refused command, which is
// journaled, may land while a computer seat is about to move. The seat
// must still move (its move was once dropped as stale and never asked
// for again: the table stalled).
func TestComputerSeatMovesAfterARefusal(t *testing.T) {
	h := start(t, filepath.Join(t.TempDir(), "t1.journal"), referee.Config{
		Computers:    []referee.Computer{{Name: "bot"}},
		ComputerPace: 300 * time.Millisecond,
	})
	if rep := h.do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bot"],"first":"bot","seed":4}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	// Out of turn: refused, and journaled as a rejected event.
	if rep := h.do(t, `{"type":"bid","seat":"ann","quantity":1,"face":2}`); rep.OK || rep.Reason != "not_your_turn" {
		t.Fatalf("ann's bid out of turn: got %+v; want not_your_turn", rep)
	}
	h.rec.WaitFor(t, "bot's bid", func() bool {
		st := h.rec.LastState(t)
		bid, _ := st["bid"].(map[string]any)
		return bid != nil && bid["seat"] == "bot"
	})
}

// TestComputerSeatsAsNewGameNamesThem: the new_game's own computer field
// decides which seats the referee plays. A seat it names that the
// configuration lacks is played (with the level it names) rather than left
// to stall the table; a configured seat it does not name is a person's,
// and the referee does not play it without its dice.
func TestComputerSeatsAsNewGameNamesThem(t *testing.T) {
	h := start(t, filepath.Join(t.TempDir(), "t1.journal"), referee.Config{
		Computers:    []referee.Computer{{Name: "cat"}},
		ComputerPace: time.Millisecond,
	})
	if rep := h.do(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bot","cat"],"first":"bot","seed":4,"computer":{"bot":{"level":"threshold"}}}`); !rep.OK {
		t.Fatalf("new_game: %+v", rep)
	}
	h.rec.WaitFor(t, "bot's move", func() bool {
		st := h.rec.LastState(t)
		return st["turn"] != "bot" || st["phase"] != "bidding"
	})
	st := h.rec.LastState(t)
	if st["turn"] != "cat" {
		t.Fatalf("after bot's move: turn %v; want cat, a person in this game", st["turn"])
	}
	time.Sleep(100 * time.Millisecond) // the referee would have played cat by now
	if st := h.rec.LastState(t); st["turn"] != "cat" {
		t.Fatalf("the referee played cat, a person in this game: turn %v, bid %v", st["turn"], st["bid"])
	}
	if rep := h.do(t, `{"type":"challenge","seat":"cat"}`); !rep.OK {
		t.Fatalf("cat's own challenge: %+v", rep)
	}
}
