package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// TestSynthExport writes a small varied training set twice, with one and
// two workers, and checks the labels' format and values, the images, and
// that the output does not depend on the workers.
func TestSynthExport(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, workers := range []string{"1", "2"} {
		code, stdout, stderr := run1(t, "synth", "-o", dirs[i], "-n", "3", "-seed", "40", "-varied", "-width", "320", "-height", "240", "-workers", workers)
		if code != 0 {
			t.Fatalf("workers %s: exit %d: %s", workers, code, stderr)
		}
		if !strings.Contains(stdout, "3 scenes") || !strings.Contains(stdout, "scenes/s") {
			t.Errorf("workers %s: stdout %q; want the scenes and the rate", workers, stdout)
		}
	}
	a, err := os.ReadFile(filepath.Join(dirs[0], "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dirs[1], "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("labels differ between one and two workers")
	}
	rows, err := csv.NewReader(bytes.NewReader(a)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rows[0], ","), synthHeader; got != want {
		t.Fatalf("header %q; want %q", got, want)
	}
	if len(rows) < 4 {
		t.Fatalf("%d rows; want a header and dice", len(rows))
	}
	images := map[string]bool{}
	for _, r := range rows[1:] {
		images[r[0]] = true
		face, err := strconv.Atoi(r[1])
		if err != nil || face < 1 || face > 6 {
			t.Errorf("row %v: face %q", r, r[1])
		}
		if r[2] != "true" && r[2] != "false" || r[4] != "true" && r[4] != "false" {
			t.Errorf("row %v: star %q, uncertain %q; want true or false", r, r[2], r[4])
		}
		if r[2] == "true" && (face != 1 || r[3] == "pip") {
			t.Errorf("row %v: a star on face %d, artwork %s", r, face, r[3])
		}
		switch r[3] {
		case "pip", "filled", "outlined", "wheel":
		default:
			t.Errorf("row %v: artwork %q", r, r[3])
		}
		var v [7]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(r[5+i], 64); err != nil {
				t.Fatalf("row %v: %v", r, err)
			}
		}
		x, y, size, x0, y0, x1, y1 := v[0], v[1], v[2], v[3], v[4], v[5], v[6]
		if !(0 <= x0 && x0 < x && x < x1 && x1 <= 320 && 0 <= y0 && y0 < y && y < y1 && y1 <= 240) || size <= 0 || size > x1-x0+1 {
			t.Errorf("row %v: centre, size or box out of place", r)
		}
	}
	for _, name := range []string{"40.jpg", "41.jpg", "42.jpg"} {
		p := filepath.Join(dirs[0], "images", name)
		img := gocv.IMRead(p, gocv.IMReadColor)
		if img.Empty() || img.Cols() != 320 || img.Rows() != 240 {
			t.Errorf("%s: not a 320x240 image", p)
		}
		img.Close()
		x, _ := os.ReadFile(p)
		y, _ := os.ReadFile(filepath.Join(dirs[1], "images", name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between one and two workers", name)
		}
	}
	if len(images) > 3 {
		t.Errorf("labels name %d images; want at most 3", len(images))
	}
}

func TestSynthUsage(t *testing.T) {
	for _, args := range [][]string{
		{"synth"},
		{"synth", "-o", t.TempDir(), "-n", "0"},
		{"synth", "-o", t.TempDir(), "-tilt", "70"},
		{"synth", "-o", t.TempDir(), "-surfaces", "lava"},
		{"synth", "-o", t.TempDir(), "-format", "gif"},
		{"synth", "-o", t.TempDir(), "-width", "320"},
		{"synth", "-o", t.TempDir(), "stray"},
		{"synth", "-o", t.TempDir(), "-house", "120,10,20"},
		{"synth", "-o", t.TempDir(), "-house", "120,10,20/230,190,300"},
		{"synth", "-bogus"},
	} {
		if code, _, _ := run1(t, args...); code != 2 {
			t.Errorf("%v: exit %d; want 2", args, code)
		}
	}
}
