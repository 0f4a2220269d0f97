package scoreboard

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/liarsd/liarsd/referee"
)

// Reads gives the operator page the camera's last read of the table (a
// *referee.Referee).
type Reads interface {
	LastRead() *referee.OperatorRead
}

// operatorRead answers GET /api/operator/read: the camera's last read of
// the table, with its frame as a data URL, for the operator page. Behind
// a login when Options.Login says so.
func (s *server) operatorRead(w http.ResponseWriter, r *http.Request) {
	if !s.operatorAllowed(w, r) {
		return
	}
	out := struct {
		Camera bool                  `json:"camera"`
		Read   *referee.OperatorRead `json:"read"`
		Frame  string                `json:"frame,omitempty"`
	}{Camera: s.o.Reads != nil}
	if s.o.Reads != nil {
		if rd := s.o.Reads.LastRead(); rd != nil {
			out.Read = rd
			if jpeg := rd.Frame.JPEG(); len(jpeg) > 0 {
				out.Frame = "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)
			}
		}
	}
	writeJSON(w, out)
}

// operatorAllowed checks the operator's login (HTTP basic authentication
// with one of Options.Users) when Options.Login is set, and answers the
// refusal itself. It sends no WWW-Authenticate header: the page asks for
// the login in its own form, since it needs the same name and password
// for the broker.
func (s *server) operatorAllowed(w http.ResponseWriter, r *http.Request) bool {
	if !s.o.Login {
		return true
	}
	if len(s.o.Users) == 0 {
		s.o.Logger.Warn("scoreboard: the operator page was refused: the web server listens beyond loopback and no accounts are configured (broker.embedded.users)")
		writeError(w, http.StatusForbidden, "no_accounts", "the operator page needs an account: the web server listens beyond loopback and broker.embedded.users names nobody")
		return false
	}
	user, pass, ok := r.BasicAuth()
	if ok {
		want, known := s.o.Users[user]
		if known && subtle.ConstantTimeCompare([]byte(want), []byte(pass)) == 1 {
			return true
		}
		s.o.Logger.Info("scoreboard: an operator login was refused", "user", user, "remote", r.RemoteAddr)
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
