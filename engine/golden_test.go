package engine_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

var (
	update = flag.Bool("update", false, "rewrite the golden events in testdata/records")
	regen  = flag.Bool("regen", false, "regenerate testdata/records/random-*.jsonl from the random player")
)

const recordsDir = "../testdata/records"

// TestGolden adjudicates every record in testdata/records and compares the
// events with the golden NAME.events.jsonl beside it.
func TestGolden(t *testing.T) {
	if *regen {
		for _, preset := range engine.PresetNames() {
			tried, _, _ := playRandomGame(t, 2026, preset)
			var b bytes.Buffer
			for _, a := range tried {
				b.Write(record.Encode(a))
				b.WriteByte('\n')
			}
			if err := os.WriteFile(filepath.Join(recordsDir, "random-"+preset+".jsonl"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	records, err := filepath.Glob(filepath.Join(recordsDir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range records {
		if strings.HasSuffix(path, ".events.jsonl") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := record.Adjudicate(bytes.NewReader(in), &got); err != nil {
				t.Fatal(err)
			}
			goldenPath := strings.TrimSuffix(path, ".jsonl") + ".events.jsonl"
			if *update {
				if err := os.WriteFile(goldenPath, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run go test ./engine -update to write it)", err)
			}
			gotLines, wantLines := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
			for i := 0; i < len(gotLines) || i < len(wantLines); i++ {
				var g, w string
				if i < len(gotLines) {
					g = gotLines[i]
				}
				if i < len(wantLines) {
					w = wantLines[i]
				}
				if g != w {
					t.Fatalf("event line %d:\ngot  %s\nwant %s", i+1, g, w)
				}
			}
		})
	}
	if n < 7 {
		t.Fatalf("found %d golden records in %s; want one per preset and more", n, recordsDir)
	}
}
