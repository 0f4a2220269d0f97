// Package scoreboard serves a table's live scoreboard and the venue
// dashboard: web pages embedded in the binary that read the table from the
// broker over MQTT on WebSocket (MQTT.md), and the journal's history and
// game records over HTTP.
//
// The pages hold no game logic beyond drawing and the spectator's odds:
// the retained state topic gives the seats, the turn and the bid, the
// events topic the reveals and results, the status topic whether the
// table is online. No hidden die ever reaches a page: the state holds
// counts only, and a game's record (whose new_game seed decides computer
// seats' dice) is served only once the game is over.
//
// Routes:
//
//	GET /                          the table's page (?table=ID for another table on the broker)
//	GET /venue                     every table on the broker
//	GET /tournament                a tournament on a TV: its round, every table, the standings (docs/venue.md)
//	GET /operator                  the operator's page (docs/operator.md)
//	GET /api/operator/read         the camera's last read, after the call (behind a login beyond loopback)
//	GET /overlay                   a stream overlay for OBS's browser source (transparent)
//	GET /link.json                 the table page's address for a phone (?table=ID)
//	GET /qr.svg                    that address as a QR code (?table=ID)
//	GET /config.json               the page's settings (prefix, table, broker)
//	GET /api/history               the current game's events and actions, from the journal
//	GET /api/games                 the journal's games
//	GET /api/games/N/record.jsonl  a finished game's record (RECORD.md)
//	GET /static/...                scripts, styles, MQTT.js
package scoreboard

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/operator"
)

//go:embed assets
var assets embed.FS

// DefaultPrefix is MQTT.md's topic prefix.
const DefaultPrefix = "liarsdice"

// Options configure the scoreboard.
type Options struct {
	// Prefix is the topics' first level (liarsdice).
	Prefix string
	// Table is the table this daemon referees: the page's default and the
	// table whose journal the history and records come from.
	Table string
	// WebSocket is the broker's WebSocket address for browsers:
	// "ws://host:port/path", "wss://...", or "host:port" as the embedded
	// broker's websocket setting says. A loopback or unspecified host
	// (127.0.0.1, 0.0.0.0, ::, localhost, none) means "the machine that
	// served the page": browsers connect to the host they loaded the page
	// from. Empty: the page says there is no broker for browsers.
	WebSocket string
	// Journal gives the table's journal for the history and the records;
	// nil serves neither.
	Journal Journal
	// Logger logs failures to read the journal (slog.Default()).
	Logger *slog.Logger
	// Reads gives the operator page the table's reads (an
	// *operator.Reads); nil where no referee runs (liarsd web): the page
	// then takes dice by hand only.
	Reads Reads
	// Login puts the operator page's reads behind a login with one of
	// Users (the accounts that may send commands): set it whenever the
	// server listens beyond loopback.
	Login bool
	Users map[string]string
	// PublicURL is the pages' address for phones and Home Assistant
	// (web.public_url: https://bar-1.example.org/), used as it is for the
	// QR codes; empty: the host a browser asked for, or HostURL.
	PublicURL string
	// HostURL is the pages' address on the network when a browser on
	// this machine asked for localhost (LANURL of the listener); empty
	// when the server listens on loopback only.
	HostURL string
}

// Reads gives the operator page the table's last read (operator.Source).
type Reads = operator.Source

// pageConfig is config.json.
type pageConfig struct {
	Prefix    string `json:"prefix"`
	Table     string `json:"table"`
	WebSocket string `json:"websocket"`
	// WebSocketPageHost: replace the address's host with the page's.
	WebSocketPageHost bool `json:"websocket_page_host"`
	Journal           bool `json:"journal"`
}

// Handler returns the scoreboard's HTTP handler.
func Handler(o Options) http.Handler {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ws, pageHost := BrowserWebSocket(o.WebSocket)
	cfg, _ := json.Marshal(pageConfig{Prefix: o.Prefix, Table: o.Table, WebSocket: ws, WebSocketPageHost: pageHost, Journal: o.Journal != nil})
	static, _ := fs.Sub(assets, "assets")
	s := &server{o: o, config: cfg, static: static}
	if o.Journal != nil {
		s.lib = &library{journal: o.Journal}
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page("index.html"))
	mux.HandleFunc("GET /index.html", s.page("index.html"))
	mux.HandleFunc("GET /venue", s.page("venue.html"))
	mux.HandleFunc("GET /tournament", s.page("tournament.html"))
	mux.HandleFunc("GET /operator", s.page("operator.html"))
	mux.Handle("GET /api/operator/read", operator.Handler{Reads: o.Reads, Login: o.Login, Users: o.Users, Logger: o.Logger})
	mux.HandleFunc("GET /overlay", s.page("overlay.html"))
	mux.HandleFunc("GET /link.json", s.link)
	mux.HandleFunc("GET /qr.svg", s.qr)
	mux.HandleFunc("GET /config.json", s.configJSON)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /api/history", s.history)
	mux.HandleFunc("GET /api/games", s.games)
	mux.HandleFunc("GET /api/games/{n}/record.jsonl", s.gameRecord)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.HandlerFunc(s.file)))
	return securityHeaders(mux)
}

// BrowserWebSocket turns a WebSocket setting into the address a page
// uses, and says whether the page should put its own host in it.
func BrowserWebSocket(addr string) (wsURL string, pageHost bool) {
	if addr == "" || addr == "off" {
		return "", false
	}
	if !strings.Contains(addr, "://") {
		addr = "ws://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return "", false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if host == "" || host == "localhost" || (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) {
		pageHost = true
		if host == "" {
			u.Host = "localhost" + u.Host // ":1884"
		}
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), pageHost
}

type server struct {
	o      Options
	config []byte
	static fs.FS
	lib    *library
}

func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		// Scripts and styles come from the binary only; MQTT goes over
		// WebSocket to any broker the page is pointed at; MQTT.js runs its
		// keep-alive timers in a worker made from a blob, so that a tab in
		// the background keeps its connection.
		hd.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'self'")
		h.ServeHTTP(w, r)
	})
}

func (s *server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(s.static, name)
		if err != nil {
			http.Error(w, "scoreboard: missing page", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(b)
	}
}

func (s *server) file(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Path
	if name == "" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".html") {
		http.NotFound(w, r)
		return
	}
	// Assets change only with the binary; browsers revalidate so that an
	// upgrade shows at once.
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, s.static, name)
}

func (s *server) configJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(s.config)
}

// readGames reads and splits the journal, or answers the error.
func (s *server) readGames(w http.ResponseWriter) ([]Game, bool) {
	if s.lib == nil {
		http.Error(w, "scoreboard: this daemon serves no journal", http.StatusNotFound)
		return nil, false
	}
	games, err := s.lib.games()
	if err != nil {
		s.o.Logger.Warn("scoreboard: reading the journal", "err", err)
		http.Error(w, "scoreboard: the journal cannot be read", http.StatusInternalServerError)
		return nil, false
	}
	return games, true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *server) games(w http.ResponseWriter, _ *http.Request) {
	games, ok := s.readGames(w)
	if !ok {
		return
	}
	if games == nil {
		games = []Game{}
	}
	writeJSON(w, struct {
		Table string `json:"table"`
		Games []Game `json:"games"`
	}{s.o.Table, games})
}

func (s *server) gameRecord(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		http.Error(w, "scoreboard: no such game", http.StatusNotFound)
		return
	}
	games, ok := s.readGames(w)
	if !ok {
		return
	}
	if n > len(games) {
		http.Error(w, "scoreboard: no such game", http.StatusNotFound)
		return
	}
	g := games[n-1]
	if !g.Finished {
		// Its new_game seed decides the computer seats' dice: the record of
		// a game in play would give hidden faces away.
		http.Error(w, "scoreboard: the game is still being played; its record is served once it is over", http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-game-%d.jsonl"`, safeName(s.o.Table), n))
	_, _ = w.Write(g.Record())
}

func safeName(s string) string {
	if s == "" {
		return "table"
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// historyItems are what the page lists for the current game: the events,
// and the public actions (bids, shows, calls, folds) between them, taken
// from the record lines. new_game (its seed) and reveal (the revealed
// event says it) are left out.
func historyItems(g Game) []json.RawMessage {
	var items []json.RawMessage
	t := engine.NewTable()
	ev := 0
	for _, line := range g.Lines {
		a, err := record.Decode(line)
		if err != nil {
			continue
		}
		evs, err := t.Apply(a)
		if err != nil {
			continue
		}
		switch a.Type {
		case engine.ActBid, engine.ActShow, engine.ActChallenge, engine.ActSpotOn, engine.ActFold, engine.ActAllIn, engine.ActLeave:
			items = append(items, publicAction(a))
		}
		for range evs {
			if ev < len(g.Events) {
				items = append(items, g.Events[ev])
			}
			ev++
		}
	}
	return items
}

// publicAction is an action as everyone at the table saw it: its record
// line (record.Encode) with what the table did not see left out, as the
// bluff check a bid asked for (its bluff_check event says it).
func publicAction(a engine.Action) json.RawMessage {
	pub := engine.Action{Type: a.Type, Seat: a.Seat, Stake: a.Stake}
	switch a.Type {
	case engine.ActBid:
		pub.Quantity, pub.Face = a.Quantity, a.Face
	case engine.ActShow:
		pub.Shown = a.Shown
	}
	return record.Encode(pub)
}

func (s *server) history(w http.ResponseWriter, _ *http.Request) {
	games, ok := s.readGames(w)
	if !ok {
		return
	}
	type dice struct {
		Sides   int  `json:"sides"`
		StarDie bool `json:"star_die"`
		Wild    bool `json:"wild"`
	}
	out := struct {
		Table string            `json:"table"`
		Game  *Game             `json:"game"`
		Dice  *dice             `json:"dice,omitempty"`
		Items []json.RawMessage `json:"items"`
	}{Table: s.o.Table, Items: []json.RawMessage{}}
	if len(games) > 0 {
		g := games[len(games)-1]
		out.Game = &g
		out.Items = historyItems(g)
		if out.Items == nil {
			out.Items = []json.RawMessage{}
		}
		if snap, ok := replaySnapshot(g.Lines); ok {
			out.Dice = &dice{snap.Sides, snap.StarDie, snap.Wild}
		}
	}
	writeJSON(w, out)
}

// replaySnapshot replays lines and returns the table's snapshot.
func replaySnapshot(lines [][]byte) (engine.Snapshot, bool) {
	t := engine.NewTable()
	for _, l := range lines {
		if a, err := record.Decode(l); err == nil {
			_, _ = t.Apply(a)
		}
	}
	s := t.Snapshot()
	return s, s.Rules != ""
}
