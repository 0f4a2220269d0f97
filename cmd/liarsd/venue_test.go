package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/referee/journal"
)

// TestFleetAndTournamentUsageErrors: a refused flag or argument exits 2
// with the usage, before anything starts.
func TestFleetAndTournamentUsageErrors(t *testing.T) {
	users := filepath.Join(t.TempDir(), "users.yaml")
	if err := os.WriteFile(users, []byte("- not a map\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fleet"}, "--state-dir is required"},
		{[]string{"fleet", "--state-dir", "/tmp/x", "--tables", "0"}, "--tables 0: 1 to 10000"},
		{[]string{"fleet", "--state-dir", "/tmp/x", "--pace", "-1s"}, "--pace -1s"},
		{[]string{"fleet", "--state-dir", "/tmp/x", "--table-broker", "t1"}, "write TABLE=URL"},
		{[]string{"fleet", "--state-dir", "/tmp/x", "--tables", "3", "--table-broker", "t9=tcp://h:1"}, "not one of the fleet's"},
		{[]string{"fleet", "--state-dir", "/tmp/x", "extra"}, `stray argument "extra"`},
		{[]string{"tournament", "dance"}, `unknown step "dance"`},
		{[]string{"tournament", "serve", "extra"}, `stray argument "extra"`},
		{[]string{"tournament", "--users", users}, "is not a YAML map of name: password"},
		{[]string{"tournament", "export"}, "export reads one journal"},
		{[]string{"tournament", "export", "--format", "xml", "dir"}, `--format "xml"`},
	} {
		code, out, errs := run1(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "usage") || out != "" {
			t.Errorf("liarsd %q: exit %d, stdout %q, stderr %q; want 2, the usage and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestTournamentExport replays a tournament's journal and prints its
// results; a damaged journal exits 3.
func TestTournamentExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cup.tournament")
	j, _, err := journal.Open(dir, journal.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		`{"type":"setup","at":"2026-12-05T18:00:00Z","setup":{"format":"swiss","rules":"common-hand","seats":3,"rounds":1,"tables":["t1"],"seed":3}}`,
		`{"type":"register","at":"2026-12-05T18:00:00Z","players":[{"name":"ann"},{"name":"bob"}]}`,
		`{"type":"start_round","at":"2026-12-05T18:01:00Z","round":1,"tables":[{"table":"t1","seats":["ann","bob"],"after":0}]}`,
		`{"type":"events","at":"2026-12-05T18:05:00Z","events":[{"table":"t1","type":"hand_started","seq":1,"game":1,"hand":1,"dice":{"ann":5,"bob":5}},{"table":"t1","type":"resolved","seq":3,"dice":{"bob":-5},"out":["bob"]},{"table":"t1","type":"game_over","seq":4,"game":1,"winner":"ann"}],"seen":[{"table":"t1","from":1,"to":4}]}`,
	} {
		if err := j.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	code, out, errs := run1(t, "tournament", "export", "--format", "results", dir)
	if want := "round,table,place,player,points,source,start,seq,reason\n1,t1,1,ann,1,events,1,4,\n1,t1,2,bob,0,events,1,4,\n"; code != 0 || out != want {
		t.Errorf("export --format results: exit %d, got\n%s%s\nwant\n%s", code, out, errs, want)
	}
	code, out, _ = run1(t, "tournament", "export", dir)
	var e struct {
		Finished  bool `json:"finished"`
		Standings []struct {
			Player string `json:"player"`
		} `json:"standings"`
	}
	if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil || !e.Finished || len(e.Standings) != 2 || e.Standings[0].Player != "ann" {
		t.Errorf("export: exit %d, %v, got %s", code, err, out)
	}
	// A line the tournament refuses on replay: the journal is damaged.
	bad := filepath.Join(t.TempDir(), "bad.tournament")
	j, _, _ = journal.Open(bad, journal.Options{NoSync: true})
	_ = j.Append([]byte(`{"type":"start_round"}`))
	j.Close()
	if code, _, errs := run1(t, "tournament", "export", bad); code != exitDamaged || !strings.Contains(errs, "line 1 is refused on replay") {
		t.Errorf("a damaged journal: exit %d, stderr %q; want 3 and the line named", code, errs)
	}
}
