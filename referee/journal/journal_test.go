package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "t.journal")
	j, lines, dropped, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 0 || dropped != nil {
		t.Fatalf("new journal: got %d lines, dropped %q", len(lines), dropped)
	}
	for _, l := range []string{`{"type":"a"}`, `{"type":"b"}`} {
		if err := j.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Append([]byte("{\"type\":\n\"c\"}")); err == nil {
		t.Error("a line with a line break was appended")
	}
	j.Close()
	if err := j.Append([]byte(`{}`)); err == nil {
		t.Error("append after close succeeded")
	}
	j, lines, _, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got := joinLines(lines); got != `{"type":"a"}|{"type":"b"}` {
		t.Errorf("got %s; want the two lines", got)
	}
	if j.Lines() != 2 {
		t.Errorf("Lines() = %d; want 2", j.Lines())
	}
}

// A power cut in the middle of a write leaves a torn last line: it was
// never synced, so never published, and Open drops it.
func TestTornLastLineIsDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	if err := os.WriteFile(path, []byte("{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n{\"type\":\"bi"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, lines, dropped, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := joinLines(lines); got != `{"type":"a"}|{"type":"b"}` {
		t.Errorf("lines: got %s", got)
	}
	if string(dropped) != `{"type":"bi` {
		t.Errorf("dropped: got %q", dropped)
	}
	if err := j.Append([]byte(`{"type":"c"}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	data, _ := os.ReadFile(path)
	if want := "{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n{\"type\":\"c\"}\n"; string(data) != want {
		t.Errorf("file: got %q; want %q", data, want)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, _, _, err := Open("", Options{}); err == nil || !strings.HasPrefix(err.Error(), "journal: ") {
		t.Errorf("empty path: got %v", err)
	}
	dir := t.TempDir()
	if _, _, _, err := Open(dir, Options{}); err == nil {
		t.Error("a directory opened as a journal")
	}
}

func joinLines(lines [][]byte) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = string(l)
	}
	return strings.Join(s, "|")
}
