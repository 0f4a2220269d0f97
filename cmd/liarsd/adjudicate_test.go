package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAdjudicateCommand(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "game.jsonl")
	os.WriteFile(rec, []byte(`{"type":"new_game","rules":"kids","seats":["A","B"],"first":"A"}
nonsense
{"type":"bid","seat":"A","quantity":1,"face":3}
`), 0o644)
	want := `{"type":"hand_started","seq":1,"game":1,"hand":1,"opener":"A","dice":{"A":1,"B":1}}
{"type":"rejected","seq":2,"line":2,"reason":"bad_input","message":"the line is not a JSON object"}
`
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   string
		inStderr string
	}{
		{name: "file", args: []string{rec}, code: 0, stdout: want},
		{name: "stdin", args: []string{"-"}, stdin: "{\"type\":\"new_game\",\"rules\":\"kids\",\"seats\":[\"A\",\"B\"],\"first\":\"A\"}\nnonsense\n", code: 0, stdout: want},
		{name: "missing file", args: []string{filepath.Join(dir, "nope.jsonl")}, code: 1, inStderr: "no such file"},
		{name: "no file named", args: nil, code: 2, inStderr: "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), append([]string{"adjudicate"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit code %d; want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if tt.stdout != "" && stdout.String() != tt.stdout {
				t.Fatalf("stdout:\n%s\nwant:\n%s", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Fatalf("stderr %q; want it to mention %q", stderr.String(), tt.inStderr)
			}
		})
	}
}
