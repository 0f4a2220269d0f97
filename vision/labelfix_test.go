package vision_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/vision"
)

func TestFixLabels(t *testing.T) {
	labels := []vision.Label{
		{Split: "train", Image: "a.jpg", Face: 2, Box: vision.Box{MinX: 10, MinY: 10, MaxX: 50, MaxY: 50}},
		{Split: "train", Image: "a.jpg", Face: 4, Box: vision.Box{MinX: 100, MinY: 10, MaxX: 140, MaxY: 50}},
		{Split: "test", Image: "b.jpg", Face: 6, Box: vision.Box{MinX: 10, MinY: 10, MaxX: 50, MaxY: 50}},
	}
	fixes, err := vision.ParseLabelFixes(strings.NewReader(`split,image,face,xmin,ymin,xmax,ymax,why
train,a.jpg,3,12,12,48,48,shows three
train,a.jpg,star,200,10,240,50,a star die with no label
test,b.jpg,5,300,300,340,340,a five with no label
test,c.jpg,1,0,0,10,10,an image these labels do not hold
`))
	if err != nil {
		t.Fatal(err)
	}
	got, applied := vision.FixLabels(labels, fixes)
	if applied != 3 {
		t.Errorf("applied %d fixes; want 3", applied)
	}
	if len(got) != 5 {
		t.Fatalf("got %d labels; want 5: %+v", len(got), got)
	}
	if got[0].Face != 3 || got[1].Face != 4 || got[2].Face != 6 {
		t.Errorf("faces %d %d %d; want 3 4 6", got[0].Face, got[1].Face, got[2].Face)
	}
	if !got[3].Star || got[3].Image != "a.jpg" || got[4].Face != 5 || got[4].Image != "b.jpg" {
		t.Errorf("added labels %+v, %+v; want a.jpg's star and b.jpg's 5", got[3], got[4])
	}
	if labels[0].Face != 2 {
		t.Error("FixLabels modified its input")
	}
	for _, bad := range []string{
		"split,image,face,xmin,ymin,xmax,ymax\ntrain,a.jpg,3,1,1,9,9\n",
		"split,image,face,xmin,ymin,xmax,ymax,why\ntrain,a.jpg,7,1,1,9,9,x\n",
		"split,image,face,xmin,ymin,xmax,ymax,why\ntrain,a.jpg,3,9,1,1,9,x\n",
		"",
	} {
		if _, err := vision.ParseLabelFixes(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseLabelFixes(%q): got no error", bad)
		}
	}
}

// TestRepositoryLabelFixes checks the repository's label fixes against the
// shared photographs: every fix names a labelled image, and each either
// changes a label's face or adds a die.
func TestRepositoryLabelFixes(t *testing.T) {
	labels, err := vision.ReadLabels(vision.SharedPhotos(t))
	if err != nil {
		t.Fatal(err)
	}
	fixes, err := vision.ReadLabelFixes(filepath.Join("..", "testdata", "photos", "label-fixes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixes {
		fixed, applied := vision.FixLabels(labels, []vision.LabelFix{f})
		if applied != 1 {
			t.Errorf("fix %s %s (%s): applies to no labelled image", f.Split, f.Image, f.Why)
			continue
		}
		if slices.Equal(fixed, labels) {
			t.Errorf("fix %s %s (%s): changes nothing", f.Split, f.Image, f.Why)
		}
		if f.Why == "" {
			t.Errorf("fix %s %s: no reason given", f.Split, f.Image)
		}
	}
}

// TestReadLabelFiles checks the file readers: an empty fixes path is no
// fixes, a missing file an error naming the package.
func TestReadLabelFiles(t *testing.T) {
	if fixes, err := vision.ReadLabelFixes(""); fixes != nil || err != nil {
		t.Errorf("ReadLabelFixes(\"\"): got %v, %v; want nil, nil", fixes, err)
	}
	if _, err := vision.ReadLabelFixes(filepath.Join(t.TempDir(), "none.csv")); err == nil || !strings.HasPrefix(err.Error(), "vision: ") {
		t.Errorf("ReadLabelFixes(missing): got %v; want a vision: error", err)
	}
	if _, err := vision.ReadLabels(t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "vision: ") {
		t.Errorf("ReadLabels(folder without labels.csv): got %v; want a vision: error", err)
	}
}
