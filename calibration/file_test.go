package calibration

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: whatever a calibration file holds, reading it and using what
// it read gives a file or an error, never a panic.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./calibration
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"version":1}`,
		`{"version":2}`,
		`{"version":1,"camera":{"width":1280,"height":720,"exposure":156,"view":"top"}}`,
		`{"version":1,"board":{"cols":9,"rows":6,"square_mm":20,"homography":[0.33,0.01,-76.2,-0.01,0.34,-50.1,0,0,1],"lens":{"matrix":[900,0,640,0,900,360,0,0,1],"distortion":[-0.2,0.05,0,0,0,1,2,3,4]}}}`,
		`{"version":1,"board":{"cols":9,"rows":6,"square_mm":20,"homography":[1,0,0,0,1,0,0,0,0]}}`,
		`{"version":1,"seats":[{"name":"a","centre":{"x":0,"y":0},"zone":[{"x":0,"y":0},{"x":1,"y":0},{"x":0,"y":1}]}]}`,
		`{"version":1,"dice":{"size_px":40,"min_confidence":0.7}}`,
		`{"version":1,"wiring":{"led_order":[1,0,2],"buttons":{"bob/bid":"ann/bid"}}}`,
		`{"version":1,"seats":[{"name":"a","zone":[{"x":1`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "calibration: ") {
				t.Fatalf("Parse error %q does not name the package", err)
			}
			return
		}
		if file.Version != Version {
			t.Fatalf("Parse gave a file of version %d", file.Version)
		}
		file.VisionOptions()
		file.SeatOf(640, 360)
		if file.Board != nil {
			file.Board.ToBoard(100, 100)
			file.Board.ToImage(10, 10)
		}
		Zones(file.Seats).Assign(Point{1, 2})
		// What Parse takes, Save would write and Parse take again.
		if err := file.Check(); err != nil {
			t.Fatalf("Check of a file Parse took: %v", err)
		}
		out, err := json.Marshal(file)
		if err != nil {
			t.Fatalf("Marshal of a file Parse took: %v", err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("Parse of %s, written from a file Parse took: %v", out, err)
		}
	})
}

// TestLoadMissing: a missing file is an error that Load says is missing
// (LoadOrNew starts a new file then); a folder or a corrupt file in its
// place is an error naming the problem, and LoadOrNew does not start
// afresh over it.
func TestLoadMissing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.json")
	if _, err := Load(missing); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: got %v; want a not-exist error", err)
	}
	f, err := LoadOrNew(missing)
	if err != nil || f.Version != Version {
		t.Errorf("LoadOrNew of a missing file: got %+v, %v; want a new file", f, err)
	}
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"version":1,"seats":[{"na`), 0o644)
	if f, err := LoadOrNew(corrupt); err == nil || !strings.Contains(err.Error(), "not a calibration file") {
		t.Errorf("LoadOrNew of a corrupt file: got %+v, %v; want an error, not a new file", f, err)
	}
	if _, err := LoadOrNew(dir); err == nil {
		t.Errorf("LoadOrNew of a folder: no error")
	}
}
