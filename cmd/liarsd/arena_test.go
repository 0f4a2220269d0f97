package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestArenaCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		rows     []string // each must start a line of stdout
		inStderr string
	}{
		{name: "one line", args: []string{"--rules", "common-hand", "--seats", "2", "--games", "30", "--a", "strong", "--b", "random", "--seed", "1"},
			rows: []string{"common-hand 2 strong random 30"}},
		{name: "lists", args: []string{"--rules", "kids,classic", "--seats", "2", "--games", "10", "--b", "random,threshold"},
			rows: []string{"kids", "kids", "classic", "classic"}},
		{name: "skips seats a preset refuses", args: []string{"--rules", "endurance,common-hand", "--seats", "2", "--games", "5", "--b", "random"},
			rows: []string{"common-hand"}, inStderr: "skipped"},
		{name: "no table", args: []string{"--rules", "endurance", "--seats", "2", "--games", "5"}, code: 2, inStderr: "no table to play"},
		{name: "one seat", args: []string{"--seats", "1", "--games", "5", "--b", "random,threshold"}, code: 2, inStderr: "no table to play"},
		{name: "unknown preset", args: []string{"--rules", "poker"}, code: 2, inStderr: `no preset "poker"`},
		{name: "unknown level", args: []string{"--a", "grandmaster"}, code: 2, inStderr: `no level "grandmaster"`},
		{name: "bad seats", args: []string{"--seats", "two"}, code: 2, inStderr: "-seats"},
		{name: "no games", args: []string{"--games", "0"}, code: 2, inStderr: "-games"},
		{name: "stray argument", args: []string{"extra"}, code: 2, inStderr: "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr := runArenaCmd(t, tt.args, tt.code, tt.inStderr)
			// Each table a preset refuses is said once, whatever the levels.
			skips := map[string]int{}
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, "skipped") {
					if skips[l]++; skips[l] == 2 {
						t.Errorf("stderr says twice: %s", l)
					}
				}
			}
			if tt.code != 0 {
				if stdout != "" {
					t.Errorf("stdout %q; want nothing when no table is played", stdout)
				}
				return
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if !strings.HasPrefix(lines[0], "rules") || !strings.HasPrefix(lines[len(lines)-1], "seed ") {
				t.Fatalf("stdout has no header or footer:\n%s", stdout)
			}
			body := lines[1 : len(lines)-1]
			if len(body) != len(tt.rows) {
				t.Fatalf("stdout has %d lines of results; want %d:\n%s", len(body), len(tt.rows), stdout)
			}
			for i, want := range tt.rows {
				if !strings.HasPrefix(strings.Join(strings.Fields(body[i]), " "), want) {
					t.Fatalf("line %d is %q; want it to start %q", i+1, body[i], want)
				}
			}
		})
	}
}

func TestArenaExploit(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout []string
		inStderr string
	}{
		{name: "one die", args: []string{"--exploit", "--dice", "1", "--levels", "strong-v1,strong"},
			inStdout: []string{"strong-v1 100.00% 100.00% 100.00% +50.00%", "strong 52.05% 48.17% 50.11% +0.11%"}},
		{name: "perudo, one die", args: []string{"--exploit", "--rules", "perudo", "--dice", "1", "--levels", "strong-v1,strong"},
			inStdout: []string{"two-seat perudo, 1 die", "strong-v1 58.33% 58.33% 58.33% +8.33%", "strong 47.22% 52.78% 50.00%"}},
		{name: "an unsolved game", args: []string{"--exploit", "--rules", "star-board"}, code: 2, inStderr: "the solved games are common-hand and perudo"},
		{name: "bad dice", args: []string{"--exploit", "--dice", "3"}, code: 2, inStderr: "-dice 3"},
		{name: "unknown level", args: []string{"--exploit", "--levels", "grandmaster"}, code: 2, inStderr: `no level "grandmaster"`},
		{name: "timed games", args: []string{"--rules", "common-hand", "--seats", "2", "--games", "5", "--b", "random", "--time"},
			inStdout: []string{"a median a p99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _ := runArenaCmd(t, tt.args, tt.code, tt.inStderr)
			out := strings.Join(strings.Fields(stdout), " ")
			for _, want := range tt.inStdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout %q; want it to hold %q", stdout, want)
				}
			}
		})
	}
}

// runArenaCmd runs liarsd arena with args, checks its exit code and that its
// standard error mentions inStderr, and returns its standard output and
// error.
func runArenaCmd(t *testing.T, args []string, code int, inStderr string) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	got := dispatch(context.Background(), append([]string{"arena"}, args...), strings.NewReader(""), &stdout, &stderr)
	if got != code {
		t.Fatalf("exit code %d; want %d (stderr %q)", got, code, stderr.String())
	}
	if !strings.Contains(stderr.String(), inStderr) {
		t.Fatalf("stderr %q; want it to mention %q", stderr.String(), inStderr)
	}
	return stdout.String(), stderr.String()
}
