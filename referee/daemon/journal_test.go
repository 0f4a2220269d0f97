package daemon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/mqtt"
)

// lastSegment returns the file of the journal's last segment.
func lastSegment(t *testing.T, dir string) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.journal"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no segment in %s: %v", dir, err)
	}
	slices.Sort(names)
	return names[len(names)-1]
}

// segmentLines returns a segment's lines, each with its newline.
func segmentLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
}

// A journal damaged before its tail stops the daemon, naming the journal,
// the file and the line and how to recover, with journal.ErrDamaged (liarsd
// run exits 3): ten bytes of a line overwritten (its checksum), also in a
// segment before the checkpoint a start resumes from (once left to liarsd
// journal check); the journal cut inside a line whose successors' effects
// the broker had acknowledged (the watermark), or its published last line
// cut in half; and a journal gone (every segment deleted, or its folder
// replaced by an empty file) while the watermark says it published, which
// a start once took for a new journal, publishing seq 1 onward again with
// other events. A last line torn by a power cut before it was published is
// the one repair done silently: the table starts, and what it publishes is
// liarsd adjudicate of the journal.
func TestADamagedJournalStopsTheDaemon(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   []string // in the error; none: the daemon starts
	}{
		{"ten bytes of a middle line overwritten", func(t *testing.T, dir string) {
			seg := lastSegment(t, dir)
			lines := segmentLines(t, seg)
			lines[1] = lines[1][:20] + "0123456789" + lines[1][30:]
			writeSegment(t, seg, strings.Join(lines, ""))
		}, []string{"line 2 of", "checksum does not match", "liarsd journal repair --cut"}},
		{"a line of an older segment overwritten", func(t *testing.T, dir string) {
			seg := filepath.Join(dir, "000001.journal")
			lines := segmentLines(t, seg)
			lines[2] = lines[2][:20] + "0123456789" + lines[2][30:]
			writeSegment(t, seg, strings.Join(lines, ""))
		}, []string{"line 3 of", "000001.journal (record line 2)", "checksum does not match", "liarsd journal repair --cut"}},
		{"cut inside a middle line", func(t *testing.T, dir string) {
			seg := lastSegment(t, dir)
			lines := segmentLines(t, seg)
			writeSegment(t, seg, lines[0]+lines[1][:25])
		}, []string{"ends at record line 20", "its state after record line 22", "watermark.json", "liarsd journal new"}},
		{"the last line, published, cut in half", func(t *testing.T, dir string) {
			seg := lastSegment(t, dir)
			lines := segmentLines(t, seg)
			writeSegment(t, seg, lines[0]+lines[1]+lines[2][:25])
		}, []string{"ends at record line 21", "cut short", "its state after record line 22", "liarsd journal new"}},
		{"every segment deleted", func(t *testing.T, dir string) {
			names, _ := filepath.Glob(filepath.Join(dir, "*.journal"))
			for _, n := range names {
				os.Remove(n)
			}
		}, []string{"it is gone", "up to seq 10", "liarsd journal new"}},
		{"the folder replaced by an empty file", func(t *testing.T, dir string) {
			os.RemoveAll(dir)
			writeSegment(t, dir, "")
		}, []string{"an empty journal", "liarsd journal new"}},
		{"a torn last line", func(t *testing.T, dir string) {
			f, err := os.OpenFile(lastSegment(t, dir), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`0a1b2c3d {"type":"bid","seat":"ann","quan`)
			f.Close()
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t, "")
			c.JournalSegmentLines = 4
			d := runDaemon(t, c)
			for _, line := range demo.Script("common-hand", []string{"ann", "bob", "cy"}, nil, 3, 22)[:22] {
				if rep, err := d.ref.Do(context.Background(), line, referee.SourceButtons); err != nil || !rep.OK {
					t.Fatalf("%s: %+v %v", line, rep, err)
				}
			}
			d.stop(t) // every event and state delivered: the watermark at the end
			if wm := mqtt.ReadWatermark(c.MQTTStoreDir()); wm.Lines != 22 || wm.Journal == "" {
				t.Fatalf("watermark: got %+v; want the state after line 22, with the journal's id", wm)
			}
			tc.damage(t, c.JournalPath())
			if tc.want == nil {
				d := runDaemon(t, c)
				if rep, err := d.ref.Do(context.Background(), []byte(`{"type":"leave","seat":"zed"}`), referee.SourceOperator); err != nil || rep.OK {
					t.Errorf("after the torn line: %+v, %v; want a refusal journaled", rep, err)
				}
				d.stop(t)
				if rep, err := journal.Check(c.JournalPath()); err != nil || rep.Damage != nil || rep.Lines != 23 || rep.Torn != 0 {
					t.Errorf("check: got %+v, %v; want 23 whole lines, the torn one cut", rep, err)
				}
				return
			}
			err := runUntilStopped(t, c)
			if !errors.Is(err, journal.ErrDamaged) {
				t.Fatalf("got %v; want the daemon refusing a damaged journal", err)
			}
			for _, want := range append(tc.want, c.JournalPath()) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q: want it to say %q", err, want)
				}
			}
		})
	}
}

// runUntilStopped runs the daemon on c, expecting it to stop by itself.
func runUntilStopped(t *testing.T, c config.Config) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := daemon.Run(ctx, c, daemon.Options{Logger: testLogger()})
	if ctx.Err() != nil {
		t.Fatal("the daemon ran on")
	}
	return err
}

func writeSegment(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o640); err != nil {
		t.Fatal(err)
	}
}
