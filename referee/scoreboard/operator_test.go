package scoreboard_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/scoreboard"
)

// fixedReads serves one read.
type fixedReads struct{ rd *operator.Read }

func (f fixedReads) LastRead() *operator.Read { return f.rd }

// TestOperatorReadLogin: the operator's read is open on loopback and
// behind the command accounts' login beyond it; without accounts it is
// refused, not opened.
func TestOperatorReadLogin(t *testing.T) {
	rd := &operator.Read{ID: 7, Kind: "reveal", Game: 1, Hand: 2, Width: 2, Height: 2, Frame: operator.JPEGFrame{Data: []byte{0xff, 0xd8, 0xff}, Width: 2, Height: 2}}
	users := map[string]string{"op": "s3cret"}
	for _, tc := range []struct {
		name       string
		login      bool
		users      map[string]string
		user, pass string
		want       int
	}{
		{"loopback, no login", false, nil, "", "", http.StatusOK},
		{"beyond loopback, no login given", true, users, "", "", http.StatusUnauthorized},
		{"beyond loopback, wrong password", true, users, "op", "guess", http.StatusUnauthorized},
		{"beyond loopback, unknown user", true, users, "eve", "s3cret", http.StatusUnauthorized},
		{"beyond loopback, right login", true, users, "op", "s3cret", http.StatusOK},
		{"beyond loopback, no accounts", true, nil, "op", "s3cret", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := scoreboard.Handler(scoreboard.Options{Table: "t1", Reads: fixedReads{rd}, Login: tc.login, Users: tc.users})
			req := httptest.NewRequest(http.MethodGet, "/api/operator/read", nil)
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			b := body(t, res)
			if res.StatusCode != tc.want {
				t.Fatalf("got %d %s; want %d", res.StatusCode, b, tc.want)
			}
			if res.Header.Get("WWW-Authenticate") != "" {
				t.Errorf("got WWW-Authenticate %q; want none (the page asks for the login itself)", res.Header.Get("WWW-Authenticate"))
			}
			if tc.want != http.StatusOK {
				if strings.Contains(b, "base64") {
					t.Errorf("a refusal carries the frame: %s", b)
				}
				return
			}
			var got struct {
				Camera bool `json:"camera"`
				Read   struct {
					ID   int64  `json:"id"`
					Kind string `json:"kind"`
				} `json:"read"`
				Frame string `json:"frame"`
			}
			if err := json.Unmarshal([]byte(b), &got); err != nil {
				t.Fatal(err)
			}
			if !got.Camera || got.Read.ID != 7 || got.Read.Kind != "reveal" || got.Frame != "data:image/jpeg;base64,/9j/" {
				t.Errorf("got %s; want read 7 with its frame as a data URL", b)
			}
		})
	}
}

// TestOperatorPageServed: the page and its script are served; without
// a referee (liarsd web) the read says there is no camera.
func TestOperatorPageServed(t *testing.T) {
	h := scoreboard.Handler(scoreboard.Options{Table: "t1"})
	for _, path := range []string{"/operator", "/static/operator.js", "/static/operator.css"} {
		if res := get(t, h, path); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: got %d; want 200", path, res.StatusCode)
		}
	}
	res := get(t, h, "/api/operator/read")
	if b := strings.TrimSpace(body(t, res)); res.StatusCode != http.StatusOK || b != `{"camera":false,"read":null}` {
		t.Errorf("without a referee: got %d %s; want 200 {\"camera\":false,\"read\":null}", res.StatusCode, b)
	}
}
