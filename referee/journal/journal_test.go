package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine/record"
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
	if got, want := joinLines(lines), `{"type":"a"}||{"type":"b"}`; got != want {
		t.Errorf("lines: got %s; want %s (the blank line kept, empty)", got, want)
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

// Line n of the file is lines[n-1]: blank lines are empty entries, so that
// the referee numbers a rejected line as liarsd adjudicate does, and a
// garbled line longer than the limit is kept (over the limit) rather than
// refusing to start.
func TestLinesKeepTheirNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	long := `{"type":"bid","pad":"` + strings.Repeat("x", record.MaxLineBytes+10) + `"}`
	if err := os.WriteFile(path, []byte("\n{\"type\":\"a\"}\n\n"+long+"\n{\"type\":\"b\"}\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, lines, _, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("got %v; want a journal with a long line opened", err)
	}
	defer j.Close()
	if got, want := len(lines), 6; got != want {
		t.Fatalf("got %d lines; want %d", got, want)
	}
	for i, want := range []string{"", `{"type":"a"}`, "", "long", `{"type":"b"}`, ""} {
		got := string(lines[i])
		if want == "long" {
			if len(got) <= record.MaxLineBytes || !strings.HasPrefix(got, `{"type":"bid","pad":"xxx`) {
				t.Errorf("line %d: got %d bytes; want the long line, kept longer than %d", i+1, len(got), record.MaxLineBytes)
			}
			continue
		}
		if got != want {
			t.Errorf("line %d: got %q; want %q", i+1, got, want)
		}
	}
	if got, want := j.Lines(), 6; got != want {
		t.Errorf("Lines(): got %d; want %d", got, want)
	}
}

// faultyFile fails the way a full or failing disk does.
type faultyFile struct {
	*os.File
	partial   bool // Write writes half the bytes, then fails
	failSync  bool
	failTrunc bool
}

func (f *faultyFile) Write(b []byte) (int, error) {
	if f.partial {
		n, _ := f.File.Write(b[:len(b)/2])
		return n, errors.New("no space left on device")
	}
	return f.File.Write(b)
}

func (f *faultyFile) Sync() error {
	if f.failSync {
		return errors.New("input/output error")
	}
	return f.File.Sync()
}

func (f *faultyFile) Truncate(size int64) error {
	if f.failTrunc {
		return errors.New("read-only file system")
	}
	return f.File.Truncate(size)
}

// A failed append leaves nothing of its line in the file: the caller drops
// the input, and a part of it would merge with the next line into one a
// replay refuses, an unsynced whole one would come back at the next start.
func TestFailedAppendIsCutBack(t *testing.T) {
	cases := []struct {
		name       string
		fault      faultyFile
		laterFails bool // the journal refuses appends after it
		want       string
	}{
		{"partial write", faultyFile{partial: true}, false, "{\"type\":\"a\"}\n{\"type\":\"c\"}\n"},
		{"sync fails", faultyFile{failSync: true}, false, "{\"type\":\"a\"}\n{\"type\":\"c\"}\n"},
		{"cannot cut back", faultyFile{partial: true, failTrunc: true}, true, "{\"type\":\"a\"}\n{\"type\":\"b\",\"pad"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.journal")
			j, _, _, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Append([]byte(`{"type":"a"}`)); err != nil {
				t.Fatal(err)
			}
			ff := c.fault
			ff.File = j.f.(*os.File)
			j.f = &ff
			if err := j.Append([]byte(`{"type":"b","pad":"xxxxxxxxxx"}`)); err == nil || !strings.HasPrefix(err.Error(), "journal: ") {
				t.Errorf("faulty append: got %v; want a journal: error", err)
			}
			j.f = ff.File
			err = j.Append([]byte(`{"type":"c"}`))
			if got := err != nil; got != c.laterFails {
				t.Errorf("the next append: got %v; want failing %v", err, c.laterFails)
			}
			if got, want := j.Lines(), 2-boolInt(c.laterFails); got != want {
				t.Errorf("Lines(): got %d; want %d", got, want)
			}
			j.Close()
			data, _ := os.ReadFile(path)
			if string(data) != c.want {
				t.Errorf("file: got %q; want %q", data, c.want)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
