package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
)

// writeJournal writes RECORD.md's example as a table's journal, a segment
// every two lines.
func writeJournal(t *testing.T, path string) {
	t.Helper()
	j, _, err := journal.Open(path, journal.Options{SegmentLines: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, l := range strings.Split(strings.TrimSpace(recordMDExample), "\n") {
		if j.Full() {
			if _, err := j.Rotate(journal.State{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
}

// overwriteSegment writes s over a segment file's line n (from 0) at byte at.
func overwriteSegment(t *testing.T, path string, n, at int, s string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[n] = lines[n][:at] + s + lines[n][at+len(s):]
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o640); err != nil {
		t.Fatal(err)
	}
}

// liarsd adjudicate reads a table's journal (its directory, or its first
// segment's file) as the record it holds; a damaged one exits 3.
func TestAdjudicateAJournal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t1.journal")
	writeJournal(t, path)
	for _, arg := range []string{path, filepath.Join(path, "000001.journal")} {
		var stdout, stderr bytes.Buffer
		code := dispatch(context.Background(), []string{"adjudicate", arg}, nil, &stdout, &stderr)
		want := recordMDEvents
		if strings.HasSuffix(arg, "000001.journal") {
			want = recordMDEvents[:strings.Index(recordMDEvents, "\n")+1] // its two lines: hand_started
		}
		if code != 0 || stdout.String() != want {
			t.Errorf("adjudicate %s: exit %d, stdout:\n%s\nstderr %q; want 0 and:\n%s", arg, code, stdout.String(), stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch(context.Background(), []string{"adjudicate", filepath.Join(path, "000002.journal")}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "segments before 000002.journal are missing") {
		t.Errorf("adjudicate of a later segment alone: exit %d, stderr %q; want 1 and the segments before it missing", code, stderr.String())
	}
	overwriteSegment(t, filepath.Join(path, "000002.journal"), 1, 20, "0123456789")
	stdout.Reset()
	stderr.Reset()
	if code := dispatch(context.Background(), []string{"adjudicate", path}, nil, &stdout, &stderr); code != 3 || !strings.Contains(stderr.String(), "line 2 of "+filepath.Join(path, "000002.journal")) || stdout.Len() != 0 {
		t.Errorf("adjudicate of a damaged journal: exit %d, stdout %q, stderr %q; want 3 and the damaged line named", code, stdout.String(), stderr.String())
	}
}

// liarsd journal check and repair: check exits 3 on damage, naming the
// line; repair says what it would do without --cut, and with it copies
// the journal and cuts it at the damage; the journal is whole then.
func TestJournalCheckAndRepair(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t1.journal")
	writeJournal(t, path)
	now = func() time.Time { return time.Date(2026, 11, 27, 19, 30, 0, 0, time.UTC) }
	defer func() { now = time.Now }()
	backup := path + ".damaged-20261127T193000Z"
	seg2 := filepath.Join(path, "000002.journal")
	steps := []struct {
		name   string
		args   []string
		before func()
		code   int
		stdout []string
	}{
		{"check, whole", []string{"check", path}, nil, 0, []string{"whole: 5 record lines in 3 segments"}},
		{"check, damaged", []string{"check", path}, func() { overwriteSegment(t, seg2, 1, 20, "0123456789") }, 3,
			[]string{"DAMAGED: " + path + " is damaged at line 2 of " + seg2 + " (record line 3)", "checksum does not match", "the 2 record lines before it are intact", "liarsd journal repair --cut " + path}},
		{"repair without --cut", []string{"repair", path}, nil, 1, []string{"would copy it to " + backup, "2 record lines kept"}},
		{"repair", []string{"repair", "--cut", path}, nil, 0, []string{"copied to " + backup, "2 record lines kept, 1 later segments removed"}},
		{"check, repaired", []string{"check", path}, nil, 0, []string{"whole: 2 record lines in 2 segments"}},
		{"check, the backup", []string{"check", backup}, nil, 3, []string{"DAMAGED"}},
		{"repair, whole", []string{"repair", "--cut", path}, nil, 0, []string{"is whole: nothing to repair"}},
		{"check, an older journal", []string{"check", filepath.Join("..", "..", "testdata", "records", "record-md-example.jsonl")}, nil, 0,
			[]string{"whole: 5 record lines in 1 segments", "older journal's lines", "no checksums"}},
		{"check, missing", []string{"check", filepath.Join(dir, "nope")}, nil, 1, nil},
		{"no journal named", []string{"check"}, nil, 2, nil},
		{"an unknown step", []string{"fix", path}, nil, 2, nil},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		var stdout, stderr bytes.Buffer
		code := dispatch(context.Background(), append([]string{"journal"}, s.args...), nil, &stdout, &stderr)
		if code != s.code {
			t.Errorf("%s: exit %d; want %d (stdout %q, stderr %q)", s.name, code, s.code, stdout.String(), stderr.String())
		}
		for _, want := range s.stdout {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: stdout %q; want it to say %q", s.name, stdout.String(), want)
			}
		}
	}
	lines, err := journal.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer
	if err := record.Adjudicate(bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n')), &events); err != nil {
		t.Fatal(err)
	}
	if got, want := events.String(), recordMDEvents[:strings.Index(recordMDEvents, "\n")+1]; got != want {
		t.Errorf("the repaired journal gives:\n%s\nwant:\n%s", got, want)
	}
}

// liarsd run refuses a damaged journal with exit status 3, naming it.
func TestRunRefusesADamagedJournal(t *testing.T) {
	dir := t.TempDir()
	writeJournal(t, filepath.Join(dir, "t1.journal"))
	overwriteSegment(t, filepath.Join(dir, "t1.journal", "000002.journal"), 1, 20, "0123456789")
	cfg := filepath.Join(dir, "liarsd.yaml")
	yaml := fmt.Sprintf("table: t1\nstate_dir: %s\nbroker: {url: 'tcp://127.0.0.1:1'}\n", dir)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), []string{"run", "--config", cfg, "--http", "off"}, nil, &stdout, &stderr)
	if code != 3 || !strings.Contains(stderr.String(), "000002.journal") || !strings.Contains(stderr.String(), "liarsd journal repair --cut") {
		t.Errorf("liarsd run on a damaged journal: exit %d, stderr %q; want 3, the segment and the repair named", code, stderr.String())
	}
}

// liarsd journal check and liarsd run decide the same way about a journal
// held against the broker's watermark (one that published RECORD.md's
// example: its 5 events and the state after its 5 lines): each fault
// below makes check exit 3 and run refuse to start with exit 3, with the
// same words, naming what is missing and the two ways out. Before, check
// called a published last line cut in half a torn line a start drops
// (exit 0, and repair found nothing), and run took a journal gone for a
// new one. liarsd journal new then sets the journal and the watermark
// aside, and the table starts anew.
func TestJournalCheckAgreesWithRun(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		say    string
	}{
		{"the last line, published, cut in half", func(t *testing.T, path string) {
			seg := filepath.Join(path, "000003.journal")
			data, _ := os.ReadFile(seg)
			os.WriteFile(seg, data[:len(data)-20], 0o640)
		}, "it ends at record line 4, the next (line 2 of"},
		{"the last segment emptied", func(t *testing.T, path string) {
			os.WriteFile(filepath.Join(path, "000003.journal"), nil, 0o640)
		}, "it ends at record line 4"},
		{"every segment deleted", func(t *testing.T, path string) {
			for _, n := range []string{"000001", "000002", "000003"} {
				os.Remove(filepath.Join(path, n+".journal"))
			}
		}, "it is gone"},
		{"the folder replaced by an empty file", func(t *testing.T, path string) {
			os.RemoveAll(path)
			os.WriteFile(path, nil, 0o640)
		}, "it is gone: an empty journal"},
		{"an older segment damaged", func(t *testing.T, path string) {
			overwriteSegment(t, filepath.Join(path, "000001.journal"), 1, 20, "0123456789")
		}, "000001.journal (record line 1): the line's checksum does not match"},
	}
	now = func() time.Time { return time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC) }
	defer func() { now = time.Now }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "t1.journal")
			writeJournal(t, path)
			rep, err := journal.Check(path)
			if err != nil {
				t.Fatal(err)
			}
			wm := filepath.Join(dir, "t1.mqtt", "watermark.json")
			os.MkdirAll(filepath.Dir(wm), 0o755)
			os.WriteFile(wm, []byte(fmt.Sprintf(`{"seq":5,"hash":"h","journal":%q,"lines":5}`, rep.ID)), 0o644)
			c.damage(t, path)

			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), []string{"journal", "check", path}, nil, &stdout, &stderr)
			checked := stdout.String()
			if code != 3 || !strings.Contains(checked, c.say) {
				t.Errorf("journal check: exit %d, %q; want 3 and %q", code, checked, c.say)
			}
			cfg := filepath.Join(dir, "liarsd.yaml")
			os.WriteFile(cfg, []byte(fmt.Sprintf("table: t1\nstate_dir: %s\nbroker: {url: 'tcp://127.0.0.1:1'}\n", dir)), 0o644)
			stdout.Reset()
			stderr.Reset()
			code = dispatch(context.Background(), []string{"run", "--config", cfg, "--http", "off"}, nil, &stdout, &stderr)
			refused := stderr.String()
			if code != 3 || !strings.Contains(refused, c.say) {
				t.Errorf("run: exit %d, %q; want 3 and %q", code, refused, c.say)
			}
			words := strings.TrimSpace(checked[strings.Index(checked, path+" is damaged"):])
			if !strings.Contains(refused, words) {
				t.Errorf("run says %q; want check's words %q", refused, words)
			}
			if !strings.Contains(words, "liarsd journal new --watermark "+wm+" "+path) && !strings.Contains(words, "liarsd journal repair --cut "+path) {
				t.Errorf("%q: want it to say how to go on", words)
			}

			// repair cuts damage before the tail; what was published it
			// cannot bring back, and says so.
			stdout.Reset()
			code = dispatch(context.Background(), []string{"journal", "repair", path}, nil, &stdout, &stderr)
			if code != 1 || !strings.Contains(stdout.String(), "cutting cannot repair it") && !strings.Contains(stdout.String(), "would copy it to") {
				t.Errorf("journal repair: exit %d, %q; want 1, and what it would cut or that cutting cannot help", code, stdout.String())
			}

			stdout.Reset()
			if code := dispatch(context.Background(), []string{"journal", "new", path}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("journal new: exit %d, %q %q", code, stdout.String(), stderr.String())
			}
			for _, p := range []string{path, wm} {
				if _, err := os.Stat(p + ".replaced-20261128T090000Z"); err != nil {
					t.Errorf("journal new: %s not set aside: %v (%q)", p, err, stdout.String())
				}
			}
			if _, err := os.Stat(wm); err == nil {
				t.Error("journal new: the watermark is still there")
			}
		})
	}
}
