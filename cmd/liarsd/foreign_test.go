package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// foreignEnv names the command line that starts a liarsd built for another
// architecture, e.g. "qemu-aarch64-static -L build/sysroot-arm64
// bin/liarsd-linux-arm64" (make test-arm64 sets it).
const foreignEnv = "LIARSD_FOREIGN"

// TestForeignBuildMatchesNative runs the liarsd that LIARSD_FOREIGN starts
// (the arm64 cross-build under qemu-user) on the labelled test photographs
// and on testdata/records, and compares it with this build run in process:
// the same dice in the same order, faces equal and positions within a
// pixel; the records' events byte for byte. It logs each photograph's read
// time under the foreign build over this one's, and their median.
func TestForeignBuildMatchesNative(t *testing.T) {
	foreign := strings.Fields(os.Getenv(foreignEnv))
	if len(foreign) == 0 {
		t.Skip(foreignEnv + " is not set (make test-arm64 sets it): no foreign build to compare")
	}
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(foreign[0], append(slices.Clone(foreign[1:]), args...)...)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v: %s", strings.Join(foreign, " "), strings.Join(args, " "), err, errOut.String())
		}
		return out
	}

	t.Run("read", func(t *testing.T) {
		photos := filepath.Join(repoRoot(t), "..", "shared", "data", "dice-photos", "test")
		if _, err := os.Stat(photos); err != nil {
			t.Skipf("test photographs not found at %s (../shared beside the repository)", photos)
		}
		var native, errOut bytes.Buffer
		if code := runRead(context.Background(), []string{photos}, nil, &native, &errOut); code != 0 {
			t.Fatalf("read %s: exit %d: %s", photos, code, errOut.String())
		}
		want, got := readLines(t, native.Bytes()), readLines(t, run("read", photos))
		if len(got) != len(want) {
			t.Fatalf("foreign read: %d lines; want %d", len(got), len(want))
		}
		var ratios []float64
		for i, w := range want {
			g := got[i]
			if g.Image != w.Image || g.Error != w.Error || len(g.Dice) != len(w.Dice) {
				t.Errorf("%s: got %s, %d dice, error %q; want %s, %d dice, error %q", w.Image, g.Image, len(g.Dice), g.Error, w.Image, len(w.Dice), w.Error)
				continue
			}
			for j, wd := range w.Dice {
				gd := g.Dice[j]
				if gd.Face != wd.Face || gd.Star != wd.Star || math.Abs(gd.X-wd.X) > 1 || math.Abs(gd.Y-wd.Y) > 1 {
					t.Errorf("%s die %d: got face %d star %v at (%.1f, %.1f); want face %d star %v at (%.1f, %.1f) within a pixel",
						filepath.Base(w.Image), j, gd.Face, gd.Star, gd.X, gd.Y, wd.Face, wd.Star, wd.X, wd.Y)
				}
			}
			if w.MS > 0 {
				ratios = append(ratios, g.MS/w.MS)
				t.Logf("%s: %d dice, %.1f ms foreign, %.1f ms native: %.1fx", filepath.Base(w.Image), len(w.Dice), g.MS, w.MS, g.MS/w.MS)
			}
		}
		if len(ratios) > 0 {
			slices.Sort(ratios)
			t.Logf("%d photographs: foreign/native read time median %.1fx (from %.1fx to %.1fx)", len(ratios), ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
		}
	})

	t.Run("adjudicate", func(t *testing.T) {
		records, err := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "records", "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		records = slices.DeleteFunc(records, func(p string) bool { return strings.HasSuffix(p, ".events.jsonl") })
		if len(records) == 0 {
			t.Fatal("no records in testdata/records")
		}
		for _, rec := range records {
			var native, errOut bytes.Buffer
			if code := runAdjudicate(context.Background(), []string{rec}, nil, &native, &errOut); code != 0 {
				t.Fatalf("adjudicate %s: exit %d: %s", rec, code, errOut.String())
			}
			if got := run("adjudicate", rec); !bytes.Equal(got, native.Bytes()) {
				t.Errorf("%s: the foreign build's events differ (%d bytes; want %d)", filepath.Base(rec), len(got), native.Len())
			} else {
				t.Logf("%s: %d bytes of events, equal", filepath.Base(rec), len(got))
			}
		}
	})
}

// readLines parses liarsd read's output.
func readLines(t *testing.T, out []byte) []readResult {
	t.Helper()
	var rs []readResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r readResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("read's line %q: %v", sc.Text(), err)
		}
		rs = append(rs, r)
	}
	return rs
}
