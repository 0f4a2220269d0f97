package referee

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
)

// A new_game from MQTT is read once on its way to the engine: where it
// enters (ParseCommand), into the Input that travels. Its id, the table's
// defaults, a seed and the table's computer seats are then added to the
// typed action and to the line the journal keeps, never by reading the
// line again (issue 44 counted 11 decodes before).
func TestNewGameFromMQTTIsDecodedOnce(t *testing.T) {
	decodes := 0
	decodeCommand = func(b []byte) (record.Command, engine.Action, error) {
		decodes++
		return record.DecodeCommand(b)
	}
	defer func() { decodeCommand = record.DecodeCommand }()

	path := filepath.Join(t.TempDir(), "t.journal")
	j, resume, err := journal.Open(path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r, err := New(Config{Journal: j, Publisher: nopPublisher{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NewSeed: func() int64 { return 7 },
		NewGame:   []byte(`{"type":"new_game","rules":"classic","seats":["ann","bot"]}`),
		Computers: []Computer{{Name: "bot", Level: "random"}}, ComputerPace: time.Hour}, resume)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	decodes = 0 // the table's usual new_game was read once, by New
	reply := make(chan Reply, 1)
	if err := r.SubmitCommand([]byte(`{"id":"g1","type":"new_game","first":"ann"}`), false, func(rep Reply) { reply <- rep }); err != nil {
		t.Fatal(err)
	}
	if rep := <-reply; !rep.OK || string(rep.ID) != `"g1"` {
		t.Fatalf("new_game: %+v", rep)
	}
	if decodes != 1 {
		t.Errorf("the new_game was decoded %d times on its way to the engine; want 1", decodes)
	}
	lines, err := journal.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"new_game","first":"ann","rules":"classic","seats":["ann","bot"],"seed":7,"computer":{"bot":{"insight":0,"level":"random"}},"id":"g1"}`
	if len(lines) != 1 || string(lines[0]) != want {
		t.Errorf("journal: got %q; want %s", lines, want)
	}
}
