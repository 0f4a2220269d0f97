package operator

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
)

// Source gives the operator page the table's last read (*Reads).
type Source interface {
	LastRead() *Read
}

// Handler answers GET /api/operator/read: the table's last read, with its
// frame as a data URL, for the operator page. Behind a login when Login
// says so.
type Handler struct {
	// Reads gives the reads; nil where no referee runs (liarsd web): the
	// page then takes dice by hand only.
	Reads Source
	// Login puts the reads behind a login with one of Users (the
	// accounts that may send commands): set it whenever the server
	// listens beyond loopback.
	Login bool
	Users map[string]string
	// Logger logs refused logins (slog.Default()).
	Logger *slog.Logger
}

// ServeHTTP answers the request.
func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.allowed(w, r) {
		return
	}
	out := struct {
		Camera bool   `json:"camera"`
		Read   *Read  `json:"read"`
		Frame  string `json:"frame,omitempty"`
	}{Camera: h.Reads != nil}
	if h.Reads != nil {
		if rd := h.Reads.LastRead(); rd != nil {
			out.Read = rd
			if rd.Frame != nil {
				if jpeg := rd.Frame.JPEG(); len(jpeg) > 0 {
					out.Frame = "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)
				}
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(out)
}

func (h Handler) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.Default()
	}
	return h.Logger
}

// allowed checks the operator's login (HTTP basic authentication with one
// of Users) when Login is set, and answers the refusal itself. It sends
// no WWW-Authenticate header: the page asks for the login in its own
// form, since it needs the same name and password for the broker.
func (h Handler) allowed(w http.ResponseWriter, r *http.Request) bool {
	if !h.Login {
		return true
	}
	if len(h.Users) == 0 {
		h.logger().Warn("scoreboard: the operator page was refused: the web server listens beyond loopback and no accounts are configured (broker.embedded.users)")
		writeError(w, http.StatusForbidden, "no_accounts", "the operator page needs an account: the web server listens beyond loopback and broker.embedded.users names nobody")
		return false
	}
	user, pass, ok := r.BasicAuth()
	if ok {
		want, known := h.Users[user]
		if known && subtle.ConstantTimeCompare([]byte(want), []byte(pass)) == 1 {
			return true
		}
		h.logger().Info("scoreboard: an operator login was refused", "user", user, "remote", r.RemoteAddr)
	}
	writeError(w, http.StatusUnauthorized, "login", "log in with an account that may send the table's commands")
	return false
}

func writeError(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": reason, "message": message})
}
