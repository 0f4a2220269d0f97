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
		{name: "two files named", args: []string{rec, rec}, code: 2, inStderr: "usage"},
		// A directory is a journal's; one without segments is a failure.
		{name: "a directory", args: []string{dir}, code: 1, inStderr: "liarsd adjudicate: journal: " + dir + " holds no journal segment"},
		// Read to its end, whatever it held: exit 0.
		{name: "empty record", args: []string{"-"}, stdin: "", code: 0, stdout: ""},
		{name: "refused lines only", args: []string{"-"},
			stdin: "\n{\"type\":\"bid\",\"seat\":\"A\",\"quantity\":1,\"face\":3}\r\n  \n[1]", code: 0,
			stdout: `{"type":"rejected","seq":1,"line":2,"reason":"no_game","message":"no game has started; a new_game comes first"}
{"type":"rejected","seq":2,"line":4,"reason":"bad_input","message":"the line is not a JSON object"}
`},
		{name: "RECORD.md's example", args: []string{"-"}, stdin: recordMDExample, code: 0, stdout: recordMDEvents},
		// Not a record at all (a README): read to its end, and said so.
		{name: "no record line", args: []string{"-"}, stdin: "# liarsd\n\nReferees Liar's Dice.\n", code: 0,
			stdout: `{"type":"rejected","seq":1,"line":1,"reason":"bad_input","message":"the line is not a JSON object"}
{"type":"rejected","seq":2,"line":3,"reason":"bad_input","message":"the line is not a JSON object"}
`, inStderr: "liarsd adjudicate: -: none of its 2 lines is a record line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), append([]string{"adjudicate"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit code %d; want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if (tt.stdout != "" || tt.code == 0) && stdout.String() != tt.stdout {
				t.Fatalf("stdout:\n%s\nwant:\n%s", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Fatalf("stderr %q; want it to mention %q", stderr.String(), tt.inStderr)
			}
		})
	}
}

// recordMDExample is RECORD.md's example record, and recordMDEvents the
// events it gives there, exactly.
const recordMDExample = `{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann"}
{"type":"bid","seat":"ann","quantity":2,"face":3}
{"type":"bid","seat":"bob","quantity":2,"face":2}
{"type":"challenge","seat":"bob"}
{"type":"reveal","dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}
`

const recordMDEvents = `{"type":"hand_started","seq":1,"game":1,"hand":1,"opener":"ann","dice":{"ann":5,"bob":5,"cy":5}}
{"type":"rejected","seq":2,"line":3,"reason":"bid_not_higher","message":"two 2s does not raise two 3s"}
{"type":"revealed","seq":3,"dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}
{"type":"resolved","seq":4,"call":"challenge","bidder":"ann","caller":"bob","bid":{"quantity":2,"face":3},"count":2,"dice":{"bob":-1},"out":[]}
{"type":"hand_started","seq":5,"game":1,"hand":2,"opener":"bob","dice":{"ann":5,"bob":4,"cy":5}}
`
