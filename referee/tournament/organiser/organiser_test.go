package organiser

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/tournament"
	"github.com/liarsd/liarsd/referee/tournament/service"
)

// fake is a tournament core behind the page, without a service.
type fake struct{ t *tournament.Tournament }

func (f *fake) Do(_ context.Context, line []byte) service.Reply {
	in, err := tournament.Decode(line)
	if err == nil {
		in, err = f.t.Prepare(in, time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC), func() int64 { return 1 })
	}
	if err == nil {
		_, err = f.t.Apply(in)
	}
	if r := tournament.AsRefusal(err); r != nil {
		return service.Reply{Reason: r.Reason, Message: r.Message}
	}
	return service.Reply{OK: true, Message: in.Type + " done"}
}

func (f *fake) Snapshot() service.Snapshot {
	v, _ := json.Marshal(f.t.View())
	s, _ := json.Marshal(map[string]any{"standings": f.t.Standings()})
	return service.Snapshot{View: v, Standings: s}
}

func (f *fake) Export(context.Context) (tournament.Export, error) { return f.t.Export(), nil }

func request(t *testing.T, h http.Handler, method, path, body, user, password string) (*http.Response, string) {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if user != "" {
		r.SetBasicAuth(user, password)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Result(), string(b)
}

func TestTheAPIIsBehindTheLogin(t *testing.T) {
	h := Handler(Options{Tournament: &fake{tournament.New("cup")}, Name: "cup", Login: true, Users: map[string]string{"ops": "s3cret"}})
	for _, c := range []struct {
		user, password string
		want           int
	}{
		{"", "", http.StatusUnauthorized},
		{"ops", "wrong", http.StatusUnauthorized},
		{"eve", "s3cret", http.StatusUnauthorized},
		{"ops", "s3cret", http.StatusOK},
	} {
		res, body := request(t, h, "GET", "/api/state", "", c.user, c.password)
		if res.StatusCode != c.want {
			t.Errorf("%q:%q: got %d %s; want %d", c.user, c.password, res.StatusCode, body, c.want)
		}
		if res.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("got a WWW-Authenticate header; the page asks in its own form")
		}
	}
	// The page itself loads, to ask for the login.
	if res, _ := request(t, h, "GET", "/", "", "", ""); res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("the page: got %d, CSP %q; want 200 and scripts from the server only", res.StatusCode, res.Header.Get("Content-Security-Policy"))
	}
	noUsers := Handler(Options{Tournament: &fake{tournament.New("cup")}, Login: true})
	if res, body := request(t, noUsers, "POST", "/api/do", `{"type":"drop","player":"a"}`, "", ""); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "names no users") {
		t.Errorf("no accounts: got %d %s; want 403 saying why", res.StatusCode, body)
	}
}

func TestInputsAndExports(t *testing.T) {
	f := &fake{tournament.New("cup")}
	h := Handler(Options{Tournament: f, Name: "cup"})
	for _, line := range []string{
		`{"type":"setup","setup":{"format":"swiss","rules":"common-hand","seats":3,"rounds":1,"tables":["t1"]}}`,
		`{"type":"register","players":[{"name":"a"},{"name":"b"},{"name":"c"}]}`,
		`{"type":"start_round"}`,
	} {
		if res, body := request(t, h, "POST", "/api/do", line, "", ""); res.StatusCode != http.StatusOK || !strings.Contains(body, `"ok":true`) {
			t.Fatalf("%s: got %d %s", line, res.StatusCode, body)
		}
	}
	_, body := request(t, h, "POST", "/api/do", `{"type":"start_round"}`, "", "")
	var rep service.Reply
	if err := json.Unmarshal([]byte(body), &rep); err != nil || rep.OK || rep.Reason != tournament.RoundStarted || !strings.Contains(rep.Message, "round 1 started already") {
		t.Errorf("a round started twice: got %s; want refused round_started", body)
	}
	res, body := request(t, h, "GET", "/api/standings.csv", "", "", "")
	if res.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(res.Header.Get("Content-Disposition"), "cup-standings.csv") ||
		!strings.HasPrefix(body, "rank,player,points,wins,games,opponents,places,computer,dropped,out\n") || strings.Count(body, "\n") != 4 {
		t.Errorf("standings.csv: got %s %q\n%s", res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"), body)
	}
	if _, body := request(t, h, "GET", "/api/results.csv", "", "", ""); !strings.Contains(body, "1,t1,,a,,,") {
		t.Errorf("results.csv: got\n%s\nwant t1's players without a result yet", body)
	}
	_, body = request(t, h, "GET", "/api/export.json", "", "", "")
	var e tournament.Export
	if err := json.Unmarshal([]byte(body), &e); err != nil || len(e.Rounds) != 1 || len(e.Standings) != 3 {
		t.Errorf("export.json: got %v %s", err, body)
	}
	if _, body := request(t, h, "GET", "/api/state", "", "", ""); !strings.Contains(body, `"presets":[`) || strings.Contains(body, `"endurance"`) {
		t.Errorf("state: got %s; want the presets a tournament plays (no endurance)", body)
	}
}
