package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine/record"
)

func TestAppendAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "t.journal")
	j, res, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 0 || res.Torn != nil || res.Checkpoint.Lines != 0 || res.Checkpoint.Seq != 0 {
		t.Fatalf("new journal: got %+v; want nothing to resume", res)
	}
	for _, l := range []string{`{"type":"a"}`, `{"type":"b"}`} {
		if err := j.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Append([]byte("{\"type\":\n\"c\"}")); err == nil {
		t.Error("a line with a line break was appended")
	}
	id := j.ID()
	j.Close()
	if err := j.Append([]byte(`{}`)); err == nil {
		t.Error("append after close succeeded")
	}
	j, res, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got := joinLines(res.Lines); got != `{"type":"a"}|{"type":"b"}` {
		t.Errorf("got %s; want the two lines", got)
	}
	if got, want := j.Lines(), 2; got != want {
		t.Errorf("Lines(): got %d; want %d", got, want)
	}
	if j.ID() != id || len(id) != 16 {
		t.Errorf("ID(): got %q; want the journal's id %q again", j.ID(), id)
	}
	// Each line carries its chained checksum.
	data, _ := os.ReadFile(filepath.Join(path, "000001.journal"))
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "") || !strings.Contains(lines[0], `{"journal":"liarsd-journal/1","id":"`+id+`","segment":1,"lines":0,"prev":"00000000","seq":0}`) {
		t.Fatalf("segment: got %q; want a checkpoint and two lines", lines)
	}
	prev := uint32(0)
	for i, l := range lines {
		want := chain(prev, []byte(l[9:]))
		if got := l[:9]; got != fmt.Sprintf("%08x ", want) {
			t.Errorf("line %d: got checksum %q; want %08x", i+1, got, want)
		}
		prev = want
	}
}

// A power cut in the middle of a write leaves a torn last line: it was
// never synced, so never published, and Open leaves it out; the first
// write cuts it from the file.
func TestTornLastLineIsDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	j, _, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{`{"type":"a"}`, `{"type":"b"}`} {
		if err := j.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	seg := filepath.Join(path, "000001.journal")
	whole, _ := os.ReadFile(seg)
	appendFile(t, seg, `0123abcd {"type":"bi`)
	j, res, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("got %v; want a torn last line left out", err)
	}
	if got, want := joinLines(res.Lines), `{"type":"a"}|{"type":"b"}`; got != want {
		t.Errorf("lines: got %s; want %s", got, want)
	}
	if got, want := string(res.Torn), `0123abcd {"type":"bi`; got != want {
		t.Errorf("torn: got %q; want %q", got, want)
	}
	if data, _ := os.ReadFile(seg); len(data) == len(whole) {
		t.Error("Open cut the torn line; want it cut at the first write only")
	}
	if err := j.Append([]byte(`{"type":"c"}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if got, want := readRecord(t, path), `{"type":"a"}|{"type":"b"}|{"type":"c"}`; got != want {
		t.Errorf("journal: got %s; want %s", got, want)
	}
}

// An older journal, one file of lines without checksums, is moved into the
// journal's directory as segment 000000 byte for byte, and read as it
// always was, a torn last line left out.
func TestAnOlderJournalIsMovedIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	older := "{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n"
	if err := os.WriteFile(path, []byte(older+`{"type":"bi`), 0o644); err != nil {
		t.Fatal(err)
	}
	j, res, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Migrated {
		t.Error("Migrated: got false; want the older file moved in")
	}
	if got, want := joinLines(res.Lines), `{"type":"a"}||{"type":"b"}`; got != want {
		t.Errorf("lines: got %s; want %s (the blank line kept, empty)", got, want)
	}
	if string(res.Torn) != `{"type":"bi` {
		t.Errorf("torn: got %q", res.Torn)
	}
	if !j.Full() {
		t.Error("Full(): got false; want a new segment due after an older journal's lines")
	}
	cp, err := j.Rotate(State{Seq: 7, Game: []string{`{"type":"a"}`}})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Segment != 1 || cp.Lines != 3 || cp.Prev != "00000000" || cp.ID != j.ID() {
		t.Errorf("checkpoint: got %+v; want segment 1 after 3 lines", cp)
	}
	if err := j.Append([]byte(`{"type":"c"}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	data, _ := os.ReadFile(filepath.Join(path, "000000.journal"))
	if string(data) != older {
		t.Errorf("segment 000000: got %q; want the older file %q, its torn line cut", data, older)
	}
	if got, want := readRecord(t, path), `{"type":"a"}||{"type":"b"}|{"type":"c"}`; got != want {
		t.Errorf("journal: got %s; want %s", got, want)
	}
	// Resumed from its last checkpoint once seq 7 is published.
	j, res, err = Open(path, Options{Published: Published{Journal: cp.ID, Seq: 8}})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if res.Checkpoint.Segment != 1 || res.Checkpoint.Seq != 7 || joinLines(res.Lines) != `{"type":"c"}` {
		t.Errorf("resume: got %+v; want segment 1's checkpoint and one line", res)
	}
}

// A move of an older journal cut between its two renames is finished.
func TestAnInterruptedMoveIsFinished(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	if err := os.MkdirAll(path+".migrating", 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path+".migrating", "000000.journal"), []byte("{\"type\":\"a\"}\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	j, res, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if !res.Migrated || joinLines(res.Lines) != `{"type":"a"}` {
		t.Errorf("got %+v; want the older journal's line", res)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, _, err := Open("", Options{}); err == nil || !strings.HasPrefix(err.Error(), "journal: ") {
		t.Errorf("empty path: got %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(filepath.Join(file, "t.journal"), Options{}); err == nil || !strings.HasPrefix(err.Error(), "journal: ") {
		t.Errorf("a journal under a file: got %v; want a journal: error", err)
	}
}

// Line n of the record is lines[n-1]: blank lines are empty entries, so
// that the referee numbers a rejected line as liarsd adjudicate does, and a
// garbled line longer than the limit is kept (over the limit) rather than
// refusing to start.
func TestLinesKeepTheirNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	long := `{"type":"bid","pad":"` + strings.Repeat("x", record.MaxLineBytes+10) + `"}`
	if err := os.WriteFile(path, []byte("\n{\"type\":\"a\"}\n\n"+long+"\n{\"type\":\"b\"}\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, res, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("got %v; want a journal with a long line opened", err)
	}
	defer j.Close()
	lines := res.Lines
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
		damaged    bool // the file keeps a part of the line: the next Open says so
	}{
		{"partial write", faultyFile{partial: true}, false, `{"type":"a"}|{"type":"c"}`, false},
		{"sync fails", faultyFile{failSync: true}, false, `{"type":"a"}|{"type":"c"}`, false},
		{"cannot cut back", faultyFile{partial: true, failTrunc: true}, true, `{"type":"a"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.journal")
			j, _, err := Open(path, Options{})
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
			// The half line left when it could not be cut back is the
			// file's torn last line, left out at the next start.
			j, res, err := Open(path, Options{})
			if err != nil {
				t.Fatalf("reopening: got %v; want the journal whole", err)
			}
			j.Close()
			if got := joinLines(res.Lines); got != c.want {
				t.Errorf("journal: got %s; want %s", got, c.want)
			}
		})
	}
}

// Segments: a new one when Full, each beginning with its checkpoint;
// Open resumes from the newest checkpoint before the published event, and
// ReadRecord reads them all.
func TestSegmentsResumeFromTheirCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	j := writeJournal(t, path, 3, 10)
	id := j.ID()
	j.Close()
	var all []string
	for i := 1; i <= 10; i++ {
		all = append(all, line(i))
	}
	if got, want := readRecord(t, path), strings.Join(all, "|"); got != want {
		t.Errorf("ReadRecord: got %s; want %s", got, want)
	}
	cases := []struct {
		published Published
		segment   int // the checkpoint resumed from
		lines     int // and its Lines
	}{
		{Published{}, 1, 0}, // nothing published: every event again
		{Published{Journal: id, Seq: 1}, 1, 0},
		{Published{Journal: id, Seq: 6}, 1, 0}, // line 3's events end at seq 6
		{Published{Journal: id, Seq: 7}, 2, 3}, // seq 7 follows segment 2's checkpoint
		{Published{Journal: id, Seq: 13}, 3, 6},
		{Published{Journal: id, Seq: 100}, 4, 9}, // the last segment
		{Published{Seq: 100}, 4, 9},              // a watermark without a journal id
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.published.Journal, c.published.Seq), func(t *testing.T) {
			j, res, err := Open(path, Options{SegmentLines: 3, Published: c.published})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if got := res.Checkpoint; got.Segment != c.segment || got.Lines != c.lines || got.Seq != 2*c.lines {
				t.Errorf("checkpoint: got segment %d, lines %d, seq %d; want segment %d, lines %d, seq %d",
					got.Segment, got.Lines, got.Seq, c.segment, c.lines, 2*c.lines)
			}
			if got, want := joinLines(res.Lines), strings.Join(all[c.lines:], "|"); got != want {
				t.Errorf("lines: got %s; want %s", got, want)
			}
			if got, want := j.Lines(), 10; got != want {
				t.Errorf("Lines(): got %d; want %d", got, want)
			}
		})
	}
}

// Damage anywhere before the torn tail is a *DamageError that names the
// file, the line and the record line, and Open writes nothing. Open checks
// every segment, also those before the checkpoint it resumes from, which
// it once left to liarsd journal check.
func TestDamageIsFound(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		file   string
		line   int // of the file
		record int
		reason string
	}{
		{"ten bytes of a middle line overwritten", func(t *testing.T, dir string) {
			overwrite(t, filepath.Join(dir, "000002.journal"), 2, 12, "0123456789")
		}, "000002.journal", 3, 5, "checksum does not match"},
		{"a checksum changed", func(t *testing.T, dir string) {
			seg := filepath.Join(dir, "000003.journal")
			other := "ffff"
			if strings.HasPrefix(fileLines(t, seg)[1], other) {
				other = "0000"
			}
			overwrite(t, seg, 1, 0, other)
		}, "000003.journal", 2, 7, "checksum does not match"},
		{"a segment cut inside a middle line", func(t *testing.T, dir string) {
			cut(t, filepath.Join(dir, "000002.journal"), 2, 20)
		}, "000002.journal", 3, 5, "ends inside a line"},
		{"a segment cut at a line's end", func(t *testing.T, dir string) {
			cut(t, filepath.Join(dir, "000002.journal"), 3, 0)
		}, "000003.journal", 1, 6, "segment 2 ends at line 5"},
		{"a segment missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "000002.journal"))
		}, "000003.journal", 1, 4, "segment 2 is missing"},
		{"a checkpoint changed", func(t *testing.T, dir string) {
			seg := filepath.Join(dir, "000004.journal")
			lines := fileLines(t, seg)
			lines[0] = strings.Replace(lines[0], `"lines":9,`, `"lines":8,`, 1)
			writeLines(t, seg, lines)
		}, "000004.journal", 1, 0, "checksum does not match"},
		{"a checkpoint garbled", func(t *testing.T, dir string) {
			overwrite(t, filepath.Join(dir, "000004.journal"), 0, 9, "[")
		}, "000004.journal", 1, 0, "not a liarsd-journal/1 checkpoint"},
		{"the last segment's middle line changed", func(t *testing.T, dir string) {
			overwrite(t, filepath.Join(dir, "000004.journal"), 1, 20, "x")
		}, "000004.journal", 2, 10, "checksum does not match"},
		{"a line removed", func(t *testing.T, dir string) {
			removeLine(t, filepath.Join(dir, "000004.journal"), 1)
		}, "000004.journal", 2, 10, "checksum does not match"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.journal")
			j := writeJournal(t, path, 3, 11)
			id := j.ID()
			j.Close()
			c.damage(t, path)
			before := snapshot(t, path)
			var d *DamageError
			_, _, err := Open(path, Options{SegmentLines: 3})
			if !errors.As(err, &d) || !errors.Is(err, ErrDamaged) {
				t.Fatalf("Open: got %v; want a *DamageError", err)
			}
			if got, want := filepath.Base(d.File), c.file; got != want || d.Line != c.line || (c.record > 0 && d.Record != c.record) || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("got %s line %d, record line %d, %q; want %s line %d, record line %d, %q", got, d.Line, d.Record, d.Reason, want, c.line, c.record, c.reason)
			}
			msg := err.Error()
			for _, want := range []string{path, d.File, fmt.Sprintf("line %d", d.Line), "liarsd journal repair --cut"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q: want it to name %q", msg, want)
				}
			}
			if after := snapshot(t, path); after != before {
				t.Error("Open changed the damaged journal; want it left as it is")
			}
			rep, err := Check(path)
			if err != nil || rep.Damage == nil || rep.Damage.File != d.File || rep.Damage.Line != d.Line {
				t.Errorf("Check: got %+v, %v; want the same damage", rep.Damage, err)
			}
			if _, err := ReadRecord(path); !errors.Is(err, ErrDamaged) {
				t.Errorf("ReadRecord: got %v; want the damage", err)
			}
			_, _, err = Open(path, Options{SegmentLines: 3, Published: Published{Journal: id, Seq: 20}})
			if !errors.As(err, &d) || filepath.Base(d.File) != c.file || d.Line != c.line {
				t.Errorf("Open from the last checkpoint: got %v; want the same damage", err)
			}
		})
	}
}

// Repair keeps a copy and cuts the journal at its first damaged line;
// the journal then opens, and a journal without damage is left alone.
func TestRepairCutsAtTheDamage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.journal")
	j := writeJournal(t, path, 3, 11)
	j.Close()
	if got, err := Repair(path, filepath.Join(dir, "backup0")); err != nil || got.Damage != nil {
		t.Errorf("a whole journal: got %+v, %v; want nothing done", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "backup0")); err == nil {
		t.Error("a whole journal was backed up; want it left alone")
	}
	overwrite(t, filepath.Join(path, "000002.journal"), 2, 12, "0123456789")
	before := snapshot(t, path)
	backup := filepath.Join(dir, "t.journal.damaged")
	got, err := Repair(path, backup)
	if err != nil {
		t.Fatal(err)
	}
	if got.Damage == nil || got.Kept != 4 || len(got.Removed) != 2 {
		t.Errorf("got %+v; want the journal cut after record line 4, segments 3 and 4 removed", got)
	}
	if snapshot(t, backup) != before {
		t.Error("the backup is not the journal as it was")
	}
	if got, want := readRecord(t, path), strings.Join([]string{line(1), line(2), line(3), line(4)}, "|"); got != want {
		t.Errorf("repaired: got %s; want %s", got, want)
	}
	j, res, err := Open(path, Options{SegmentLines: 3})
	if err != nil {
		t.Fatalf("Open after the repair: %v", err)
	}
	defer j.Close()
	if len(res.Lines) != 4 || j.Lines() != 4 {
		t.Errorf("got %d lines, Lines() %d; want 4", len(res.Lines), j.Lines())
	}
	if _, err := Repair(path, backup); err != nil {
		t.Errorf("repairing a whole journal: %v", err)
	}
}

// A last segment whose checkpoint never got written whole (or that was
// emptied) is a torn tail: left out, removed at the first write.
func TestATornLastSegmentIsDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.journal")
	j := writeJournal(t, path, 3, 6)
	j.Close()
	seg3 := filepath.Join(path, "000003.journal")
	if err := os.WriteFile(seg3, []byte(`0123abcd {"journal":"liarsd-jou`), 0o640); err != nil {
		t.Fatal(err)
	}
	j, res, err := Open(path, Options{SegmentLines: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Torn) == 0 || len(res.Lines) != 6 || j.Lines() != 6 {
		t.Errorf("got %d lines, torn %q; want 6 lines, the segment torn", len(res.Lines), res.Torn)
	}
	if err := j.Append([]byte(line(7))); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := os.Stat(seg3); err == nil {
		t.Error("the torn segment is still there after a write")
	}
	if rep, err := Check(path); err != nil || rep.Damage != nil || rep.Lines != 7 {
		t.Errorf("Check: got %+v, %v; want 7 whole lines", rep, err)
	}
}

// line is record line n of writeJournal's journals.
func line(n int) string { return fmt.Sprintf(`{"type":"bid","n":%d}`, n) }

// writeJournal writes n lines, a new segment every per lines, each line
// giving two events (the checkpoints' seq).
func writeJournal(t *testing.T, path string, per, n int) *Journal {
	t.Helper()
	j, _, err := Open(path, Options{SegmentLines: per})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if j.Full() {
			if _, err := j.Rotate(State{Seq: 2 * (i - 1), Commands: []json.RawMessage{json.RawMessage(`{"id":"x"}`)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Append([]byte(line(i))); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// readRecord is ReadRecord's lines, joined by |.
func readRecord(t *testing.T, path string) string {
	t.Helper()
	lines, err := ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	return joinLines(lines)
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// fileLines returns a file's lines, each with its newline.
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(data), "\n")
}

// overwrite writes s over line n (from 0) of a file, at byte at of it.
func overwrite(t *testing.T, path string, n, at int, s string) {
	t.Helper()
	lines := fileLines(t, path)
	l := lines[n]
	lines[n] = l[:at] + s + l[at+len(s):]
	writeLines(t, path, lines)
}

// cut truncates a file in line n (from 0), keeping at bytes of it.
func cut(t *testing.T, path string, n, at int) {
	t.Helper()
	lines := fileLines(t, path)
	writeLines(t, path, append(lines[:n:n], lines[n][:at]))
}

func removeLine(t *testing.T, path string, n int) {
	t.Helper()
	lines := fileLines(t, path)
	writeLines(t, path, append(lines[:n:n], lines[n+1:]...))
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o640); err != nil {
		t.Fatal(err)
	}
}

// snapshot returns the journal's files and contents, to compare.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	entries, err := os.ReadDir(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(path, e.Name()))
		fmt.Fprintf(&b, "%s:%q\n", e.Name(), data)
	}
	return b.String()
}

func joinLines(lines [][]byte) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = string(l)
	}
	return strings.Join(s, "|")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A journal whose events the broker acknowledged (the watermark: its id,
// seq 22 and the state after record line 11) and that is now gone or
// shorter is damaged: Open refuses it, changing nothing, and
// CheckPublished finds the same damage, so that liarsd run and liarsd
// journal check agree. Open once took a journal gone (emptied, deleted,
// a file in its folder's place) for a new one, re-using seq 1 onward
// with other events, and Check called a published last line cut in half
// a torn line a start drops.
func TestAJournalThatPublishedIsNeverTakenForANewOne(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		file   string // the file named, "" for the journal's path
		line   int
		reason string
	}{
		{"the only segment emptied", func(t *testing.T, path string) {
			writeLines(t, filepath.Join(path, "000001.journal"), nil)
		}, "", 1, "it is gone"},
		{"every segment deleted", func(t *testing.T, path string) {
			os.Remove(filepath.Join(path, "000001.journal"))
		}, "", 1, "it is gone"},
		{"the folder deleted", func(t *testing.T, path string) {
			os.RemoveAll(path)
		}, "", 1, "it is gone"},
		{"the folder replaced by an empty file", func(t *testing.T, path string) {
			os.RemoveAll(path)
			if err := os.WriteFile(path, nil, 0o640); err != nil {
				t.Fatal(err)
			}
		}, "", 1, "an empty journal"},
		{"a new journal in its place", func(t *testing.T, path string) {
			os.RemoveAll(path)
			j, _, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			j.Append([]byte(line(1)))
			j.Close()
		}, "000001.journal", 3, "another journal"},
		{"the last line, published, cut in half", func(t *testing.T, path string) {
			cut(t, filepath.Join(path, "000001.journal"), 11, 15)
		}, "000001.journal", 12, "it ends at record line 10, the next (line 12 of"},
		{"the last line removed", func(t *testing.T, path string) {
			removeLine(t, filepath.Join(path, "000001.journal"), 11)
		}, "000001.journal", 12, "it ends at record line 10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.journal")
			j := writeJournal(t, path, 100, 11)
			pub := Published{Journal: j.ID(), Seq: 22, Lines: 11, Source: "/state/t.mqtt/watermark.json"}
			j.Close()
			c.damage(t, path)
			before := tree(t, path)
			var d *DamageError
			_, _, err := Open(path, Options{Published: pub})
			if !errors.As(err, &d) || !errors.Is(err, ErrDamaged) || d.Published == nil {
				t.Fatalf("Open: got %v; want a *DamageError of lines published", err)
			}
			file := path
			if c.file != "" {
				file = filepath.Join(path, c.file)
			}
			if d.File != file || d.Line != c.line || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("got line %d of %s: %q; want line %d of %s: %q", d.Line, d.File, d.Reason, c.line, file, c.reason)
			}
			for _, want := range []string{path, "seq 22", "after record line 11", "liarsd journal new --watermark /state/t.mqtt/watermark.json " + path, "backup"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q: want it to say %q", err, want)
				}
			}
			if after := tree(t, path); after != before {
				t.Errorf("Open changed what is at %s: %s; want %s", path, after, before)
			}
			rep, err := CheckPublished(path, pub)
			if err != nil || rep.Damage == nil || rep.Damage.Error() != d.Error() {
				t.Errorf("CheckPublished: got %v, %v; want the same damage as Open's", rep.Damage, err)
			}
			// Without the watermark (liarsd journal new moves it aside),
			// a start goes on: a new table when the journal is gone.
			j, _, err = Open(path, Options{})
			if err != nil {
				t.Fatalf("Open without a watermark: %v", err)
			}
			j.Close()
		})
	}
}

// tree returns what is at path: a file's content, or a directory's files
// and contents, or that nothing is there.
func tree(t *testing.T, path string) string {
	t.Helper()
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return "nothing"
	}
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsDir() {
		data, _ := os.ReadFile(path)
		return fmt.Sprintf("file:%q", data)
	}
	return snapshot(t, path)
}
