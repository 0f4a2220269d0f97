package scoreboard_test

import (
	"fmt"
	"net/http"

	"github.com/liarsd/liarsd/referee/scoreboard"
)

// A journal split into games: the first is over and its record can be
// downloaded; the second is being played.
func ExampleGames() {
	var lines [][]byte
	for _, l := range journalLines {
		lines = append(lines, []byte(l))
	}
	for _, g := range scoreboard.Games(lines) {
		fmt.Printf("game %d: %s %v, %d lines, finished %v, winner %q\n", g.Number, g.Rules, g.Seats, len(g.Lines), g.Finished, g.Winner)
	}
	// Output:
	// game 1: star-board [ann bob cy], 5 lines, finished true, winner "bob"
	// game 2: common-hand [ann bob], 2 lines, finished false, winner ""
}

// The scoreboard beside a referee whose embedded broker's WebSocket
// listener is on every address: browsers connect to the host they loaded
// the page from.
func ExampleHandler() {
	h := scoreboard.Handler(scoreboard.Options{
		Table: "bar-1", WebSocket: "0.0.0.0:1884",
		Journal: scoreboard.JournalFile("/var/lib/liarsd/bar-1.journal"),
	})
	srv := &http.Server{Addr: ":8080", Handler: h}
	_ = srv // srv.ListenAndServe() serves it
	fmt.Println(scoreboard.BrowserWebSocket("0.0.0.0:1884"))
	// Output:
	// ws://0.0.0.0:1884/ true
}
