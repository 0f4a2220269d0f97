package scoreboard_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/scoreboard"
)

// A short star-board game (one die each): bob's two 3s is a perfect bid
// (a 3 and a star), so ann and cy lose their die and bob wins. Then a
// second game that is still being played.
var journalLines = []string{
	`{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","seed":7,"options":{"dice":1}}`,
	`{"type":"bid","seat":"ann","quantity":1,"face":3}`,
	`{"type":"bid","seat":"bob","quantity":2,"face":3}`,
	`{"type":"challenge","seat":"cy"}`,
	`{"type":"reveal","dice":{"ann":[3],"bob":[5],"cy":[1]}}`,
	`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"bob","seed":99}`,
	`{"type":"bid","seat":"bob","quantity":2,"face":6}`,
}

func writeJournal(t *testing.T, lines []string, torn string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "table1.journal")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"+torn), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGames(t *testing.T) {
	lines, err := scoreboard.JournalFile(writeJournal(t, journalLines, `{"type":"bid","se`))()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(journalLines) {
		t.Fatalf("got %d lines; want %d (the torn last line left out)", len(lines), len(journalLines))
	}
	games := scoreboard.Games(lines)
	if len(games) != 2 {
		t.Fatalf("got %d games; want 2", len(games))
	}
	g := games[0]
	if !g.Finished || g.Winner != "bob" || g.Rules != "star-board" || len(g.Lines) != 5 || g.Hands != 1 {
		t.Errorf("game 1: got finished=%v winner=%q rules=%q lines=%d hands=%d; want true, bob, star-board, 5, 1",
			g.Finished, g.Winner, g.Rules, len(g.Lines), g.Hands)
	}
	if games[1].Finished || len(games[1].Lines) != 2 || games[1].FirstSeq != g.LastSeq+1 {
		t.Errorf("game 2: got finished=%v lines=%d first seq %d; want false, 2, %d", games[1].Finished, len(games[1].Lines), games[1].FirstSeq, g.LastSeq+1)
	}
	// The record of a game replays on its own to the same end.
	again := scoreboard.Games(scoreboard.SplitLines(g.Record()))
	if len(again) != 1 || !again[0].Finished || again[0].Winner != "bob" {
		t.Errorf("game 1's record replayed: got %d games; want one finished game won by bob", len(again))
	}
	if missing, err := scoreboard.JournalFile(filepath.Join(t.TempDir(), "none"))(); err != nil || missing != nil {
		t.Errorf("a missing journal: got %v, %v; want nil, nil", missing, err)
	}
}

// A correction that undoes a game's end: the game is not finished, has
// no winner and counts the hand its correction started once.
func TestGamesAfterACorrection(t *testing.T) {
	lines := append(append([]string(nil), journalLines[:5]...),
		`{"type":"correct","dice":{"ann":[3],"bob":[5],"cy":[2]}}`)
	games := scoreboard.Games(scoreboard.SplitLines([]byte(strings.Join(lines, "\n") + "\n")))
	if len(games) != 1 {
		t.Fatalf("got %d games; want 1", len(games))
	}
	// One 3: bob's two 3s is one too many, bob loses a die and is out;
	// ann and cy play hand 2.
	if g := games[0]; g.Finished || g.Winner != "" || g.Hands != 2 || len(g.Lines) != 6 {
		t.Errorf("got finished=%v winner=%q hands=%d lines=%d; want false, \"\", 2, 6", g.Finished, g.Winner, g.Hands, len(g.Lines))
	}
}

// A table's journal as the referee writes it, in segments with
// checksums: its record lines, a torn last line left out; a damaged one
// is an error, not games made of what the damage left.
func TestJournalFileReadsSegments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table1.journal")
	j, _, err := journal.Open(path, journal.Options{SegmentLines: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range journalLines {
		if j.Full() {
			if _, err := j.Rotate(journal.State{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	last := filepath.Join(path, "000003.journal")
	f, err := os.OpenFile(last, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`0a1b2c3d {"type":"bid","se`)
	f.Close()
	lines, err := scoreboard.JournalFile(path)()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(bytes.Join(lines, []byte("\n"))), strings.Join(journalLines, "\n"); got != want {
		t.Errorf("got lines:\n%s\nwant:\n%s", got, want)
	}
	data, _ := os.ReadFile(filepath.Join(path, "000002.journal"))
	data[20] ^= 1
	if err := os.WriteFile(filepath.Join(path, "000002.journal"), data, 0o640); err != nil {
		t.Fatal(err)
	}
	if lines, err := scoreboard.JournalFile(path)(); !errors.Is(err, journal.ErrDamaged) || lines != nil {
		t.Errorf("a damaged journal: got %d lines, %v; want the damage", len(lines), err)
	}
}

func get(t *testing.T, h http.Handler, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandler(t *testing.T) {
	h := scoreboard.Handler(scoreboard.Options{
		Table: "table1", WebSocket: "0.0.0.0:1884",
		Journal: scoreboard.JournalFile(writeJournal(t, journalLines, "")),
	})
	for _, tc := range []struct {
		path, contentType, contains string
		status                      int
	}{
		{"/", "text/html", "static/scoreboard.js", 200},
		{"/venue", "text/html", "static/venue.js", 200},
		{"/static/scoreboard.css", "text/css", ".seat", 200},
		{"/static/odds.js", "javascript", "LiarsOdds", 200},
		{"/static/vendor/mqtt.min.js", "javascript", "mqtt", 200},
		{"/static/favicon.svg", "image/svg+xml", "<svg", 200},
		{"/favicon.ico", "", "favicon.svg", 301},
		{"/static/index.html", "", "", 404},
		{"/nope", "", "", 404},
		{"/config.json", "application/json", `"websocket":"ws://0.0.0.0:1884/"`, 200},
		{"/api/games", "application/json", `"winner":"bob"`, 200},
		{"/api/games/1/record.jsonl", "application/x-ndjson", `"seed":7`, 200},
		{"/api/games/2/record.jsonl", "", "still being played", 409},
		{"/api/games/3/record.jsonl", "", "", 404},
		{"/api/games/x/record.jsonl", "", "", 404},
		{"/api/history", "application/json", `"quantity":2,"face":6`, 200},
	} {
		r := get(t, h, tc.path)
		b := body(t, r)
		if r.StatusCode != tc.status {
			t.Errorf("GET %s: got status %d; want %d", tc.path, r.StatusCode, tc.status)
			continue
		}
		if !strings.Contains(r.Header.Get("Content-Type"), tc.contentType) {
			t.Errorf("GET %s: got Content-Type %q; want %q", tc.path, r.Header.Get("Content-Type"), tc.contentType)
		}
		if !strings.Contains(b, tc.contains) {
			t.Errorf("GET %s: got %.200q; want it to hold %q", tc.path, b, tc.contains)
		}
		if r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no Content-Security-Policy", tc.path)
		}
	}
	// The history of the game in play holds no seed: the computer seats'
	// dice follow from it.
	r := get(t, h, "/api/history")
	b := body(t, r)
	if strings.Contains(b, "seed") || strings.Contains(b, "new_game") {
		t.Errorf("history: got %s; want no new_game line and no seed", b)
	}
	var hist struct {
		Game  scoreboard.Game   `json:"game"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(b), &hist); err != nil {
		t.Fatal(err)
	}
	if hist.Game.Number != 2 || len(hist.Items) != 2 {
		t.Errorf("history: got game %d with %d items; want game 2 with hand_started and the bid", hist.Game.Number, len(hist.Items))
	}
	rec := get(t, h, "/api/games/1/record.jsonl")
	if cd := rec.Header.Get("Content-Disposition"); cd != `attachment; filename="table1-game-1.jsonl"` {
		t.Errorf("record: got Content-Disposition %q", cd)
	}
	if got := body(t, rec); got != strings.Join(journalLines[:5], "\n")+"\n" {
		t.Errorf("record: got\n%s\nwant the game's 5 lines", got)
	}

	noJournal := scoreboard.Handler(scoreboard.Options{Table: "t"})
	if r := get(t, noJournal, "/api/games"); r.StatusCode != 404 {
		t.Errorf("without a journal: got %d; want 404", r.StatusCode)
	}
	if b := body(t, get(t, noJournal, "/config.json")); !strings.Contains(b, `"journal":false`) || !strings.Contains(b, `"websocket":""`) {
		t.Errorf("config without journal or broker: got %s", b)
	}
}

func TestBrowserWebSocket(t *testing.T) {
	for _, tc := range []struct {
		in       string
		url      string
		pageHost bool
	}{
		{"", "", false},
		{"off", "", false},
		{"127.0.0.1:1884", "ws://127.0.0.1:1884/", true},
		{"0.0.0.0:1884", "ws://0.0.0.0:1884/", true},
		{"[::]:1884", "ws://[::]:1884/", true},
		{":1884", "ws://localhost:1884/", true},
		{"localhost:1884", "ws://localhost:1884/", true},
		{"192.168.1.20:1884", "ws://192.168.1.20:1884/", false},
		{"wss://broker.example.org/mqtt", "wss://broker.example.org/mqtt", false},
		{"ws://", "", false},
	} {
		url, pageHost := scoreboard.BrowserWebSocket(tc.in)
		if url != tc.url || pageHost != tc.pageHost {
			t.Errorf("BrowserWebSocket(%q): got %q, %v; want %q, %v", tc.in, url, pageHost, tc.url, tc.pageHost)
		}
	}
}

// TestJournalFollowed: the games follow the journal as it grows, and
// start again when it is replaced.
func TestJournalFollowed(t *testing.T) {
	path := writeJournal(t, journalLines[:3], "")
	h := scoreboard.Handler(scoreboard.Options{Table: "t1", Journal: scoreboard.JournalFile(path)})
	games := func() []scoreboard.Game {
		t.Helper()
		var out struct{ Games []scoreboard.Game }
		if err := json.Unmarshal([]byte(body(t, get(t, h, "/api/games"))), &out); err != nil {
			t.Fatal(err)
		}
		return out.Games
	}
	if g := games(); len(g) != 1 || g[0].Finished {
		t.Fatalf("3 lines: got %+v; want one game in play", g)
	}
	appendLines := func(lines ...string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, l := range lines {
			f.WriteString(l + "\n")
		}
	}
	appendLines(journalLines[3:5]...)
	if g := games(); len(g) != 1 || !g[0].Finished || g[0].Winner != "bob" {
		t.Fatalf("the game's end appended: got %+v; want it finished, won by bob", g)
	}
	appendLines(journalLines[5:]...)
	if g := games(); len(g) != 2 || g[1].Rules != "common-hand" {
		t.Fatalf("a second game appended: got %+v; want two games", g)
	}
	// A new journal in its place (the table reset): games from its start.
	if err := os.WriteFile(path, []byte(journalLines[5]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := games(); len(g) != 1 || g[0].Rules != "common-hand" || g[0].Number != 1 {
		t.Fatalf("a new journal: got %+v; want its one game", g)
	}
}
