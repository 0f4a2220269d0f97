// Package organiser serves the organiser's page of a tournament and its
// API: a phone-first page that sets the tournament up, registers and
// drops players, starts rounds, follows every table, overrides a result
// with a reason, restarts a game or calls its time, and exports the
// results. Behind the operator's login (HTTP basic authentication with
// one of the accounts that may send the tables' commands) whenever the
// server listens beyond loopback.
//
// Routes:
//
//	GET  /                      the organiser's page
//	GET  /static/...            its script and style
//	GET  /api/state             {"view", "standings", "presets", "levels"}
//	POST /api/do                one tournament input (referee/tournament), answered {"ok", "reason", "message"}
//	GET  /api/export.json       the results (standings and every game)
//	GET  /api/standings.csv     the standings as CSV
//	GET  /api/results.csv       every game's result as CSV, a line a player
package organiser

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/referee/tournament"
	"github.com/liarsd/liarsd/referee/tournament/service"
)

//go:embed assets
var assets embed.FS

// Tournament is what the page needs of the service (a *service.Service).
type Tournament interface {
	Do(ctx context.Context, line []byte) service.Reply
	Snapshot() service.Snapshot
	Export(ctx context.Context) (tournament.Export, error)
}

// Options configure the handler.
type Options struct {
	Tournament Tournament
	// Name is the tournament's id (file names of the exports).
	Name string
	// Login puts everything but the page itself behind one of Users:
	// set it whenever the server listens beyond loopback.
	Login  bool
	Users  map[string]string
	Logger *slog.Logger
}

// Handler returns the organiser's HTTP handler.
func Handler(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	static, _ := fs.Sub(assets, "assets")
	h := &handler{o: o, static: static}
	presets := []string{}
	for _, n := range engine.PresetNames() {
		if !engine.Presets[n].Match {
			presets = append(presets, n)
		}
	}
	h.presets, h.levels = presets, slices.Clone(computer.Levels)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.HandlerFunc(h.file)))
	mux.HandleFunc("GET /api/state", h.allowed(h.state))
	mux.HandleFunc("POST /api/do", h.allowed(h.do))
	mux.HandleFunc("GET /api/export.json", h.allowed(h.exportJSON))
	mux.HandleFunc("GET /api/standings.csv", h.allowed(h.exportCSV(true)))
	mux.HandleFunc("GET /api/results.csv", h.allowed(h.exportCSV(false)))
	return securityHeaders(mux)
}

type handler struct {
	o               Options
	static          fs.FS
	presets, levels []string
}

func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		h.ServeHTTP(w, r)
	})
}

func (h *handler) page(w http.ResponseWriter, _ *http.Request) {
	b, err := fs.ReadFile(h.static, "organiser.html")
	if err != nil {
		http.Error(w, "organiser: missing page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

func (h *handler) file(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, h.static, r.URL.Path)
}

// allowed checks the login when Options.Login says so. It sends no
// WWW-Authenticate header: the page asks in its own form.
func (h *handler) allowed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.o.Login {
			if len(h.o.Users) == 0 {
				writeError(w, http.StatusForbidden, "no_accounts", "the organiser's page needs an account: the server listens beyond loopback and names no users")
				return
			}
			user, pass, ok := r.BasicAuth()
			want, known := h.o.Users[user]
			if !ok || !known || subtle.ConstantTimeCompare([]byte(want), []byte(pass)) != 1 {
				if ok {
					h.o.Logger.Info("organiser: a login was refused", "user", user, "remote", r.RemoteAddr)
				}
				writeError(w, http.StatusUnauthorized, "login", "log in with an operator's account")
				return
			}
		}
		next(w, r)
	}
}

func (h *handler) state(w http.ResponseWriter, _ *http.Request) {
	snap := h.o.Tournament.Snapshot()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	presets, _ := json.Marshal(h.presets)
	levels, _ := json.Marshal(h.levels)
	fmt.Fprintf(w, `{"view":%s,"standings":%s,"presets":%s,"levels":%s}`, snap.View, snap.Standings, presets, levels)
}

func (h *handler) do(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, tournament.MaxLineBytes+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_input", "the input could not be read")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	rep := h.o.Tournament.Do(ctx, body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !rep.OK && (rep.Reason == "journal_error" || rep.Reason == "stopped") {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(rep)
}

func (h *handler) export(w http.ResponseWriter, r *http.Request) (tournament.Export, bool) {
	e, err := h.o.Tournament.Export(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "stopped", "the tournament service is stopping")
		return e, false
	}
	return e, true
}

func (h *handler) exportJSON(w http.ResponseWriter, r *http.Request) {
	e, ok := h.export(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-results.json"`, h.o.Name))
	_, _ = w.Write(e.JSON())
}

func (h *handler) exportCSV(standings bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e, ok := h.export(w, r)
		if !ok {
			return
		}
		name, body := "results", e.ResultsCSV()
		if standings {
			name, body = "standings", e.StandingsCSV()
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.csv"`, h.o.Name, name))
		_, _ = w.Write(body)
	}
}

func writeError(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": reason, "message": message})
}
