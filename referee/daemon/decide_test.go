package daemon

import (
	"io"
	"log/slog"
	"reflect"
	"testing"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/metrics"
)

// A table starts its configured game only when asked to and only on a
// journal that holds no record line yet.
func TestStartsGame(t *testing.T) {
	line := [][]byte{[]byte(`{"type":"new_game"}`)}
	for _, tc := range []struct {
		name   string
		start  bool
		resume journal.Resume
		want   bool
	}{
		{"a new journal", true, journal.Resume{}, true},
		{"not asked to", false, journal.Resume{}, false},
		{"blank lines only", true, journal.Resume{Lines: [][]byte{nil, {}}}, true},
		{"a line", true, journal.Resume{Lines: line}, false},
		{"a checkpoint", true, journal.Resume{Checkpoint: journal.Checkpoint{Lines: 4}}, false},
	} {
		c := config.Default()
		c.StartGame = tc.start
		if got := startsGame(c, tc.resume); got != tc.want {
			t.Errorf("%s: got %v; want %v", tc.name, got, tc.want)
		}
	}
}

// The referee's configuration: the table's usual game only with seats,
// and its computer seats.
func TestRefereeConfig(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	c := config.Default()
	c.Table, c.Rules = "t9", "classic"
	if rc := refereeConfig(c, Options{}, nil, metrics.New("t9"), log); rc.NewGame != nil || rc.Computers != nil || rc.Table != "t9" {
		t.Errorf("no seats: got new_game %s, computers %v, table %q; want none, none, t9", rc.NewGame, rc.Computers, rc.Table)
	}
	c.Seats = []config.Seat{{Name: "ann", X: 1, Y: 2}, {Name: "bot", Computer: true, Level: "beginner", Insight: 3}}
	rc := refereeConfig(c, Options{}, nil, metrics.New("t9"), log)
	if want := []referee.Computer{{Name: "bot", Level: "beginner", Insight: 3}}; !reflect.DeepEqual(rc.Computers, want) {
		t.Errorf("computers: got %v; want %v", rc.Computers, want)
	}
	if string(rc.NewGame) != string(c.NewGameLine()) {
		t.Errorf("new_game: got %s; want %s", rc.NewGame, c.NewGameLine())
	}
	observed := 0
	rc = refereeConfig(c, Options{Observe: func(referee.Change) { observed++ }}, nil, metrics.New("t9"), log)
	rc.Observe(referee.Change{})
	if observed != 1 {
		t.Errorf("Options.Observe called %d times; want 1", observed)
	}
	if got, want := seatPositions(c.Seats), []camera.SeatPosition{{Name: "ann", X: 1, Y: 2}, {Name: "bot"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("positions: got %v; want %v", got, want)
	}
}
