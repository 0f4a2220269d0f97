package vision

import (
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// TestScanMissing takes dice out of what the segmentation found and checks
// that the scan finds each again with its face, and adds nothing where the
// dice are all found.
func TestScanMissing(t *testing.T) {
	img, truth, err := renderForTest(3)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	r := NewReader(Options{})
	sc, err := detect(img, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.bgr.Close()
	w, h := sc.bgr.Cols(), sc.bgr.Rows()
	if got := r.scanMissing(sc.pix, w, h, sc.scale, truth, sc.cands, sc.segScale); len(got) != 0 {
		t.Errorf("scan with every die found: got %v; want none", got)
	}
	found := 0
	for i, want := range truth {
		rest := append(append([]Die(nil), truth[:i]...), truth[i+1:]...)
		got := r.scanMissing(sc.pix, w, h, sc.scale, rest, sc.cands, sc.segScale)
		if len(got) > 1 {
			t.Errorf("face %d left out: got %v; want at most one die", want.Face, got)
			continue
		}
		if len(got) == 0 {
			continue // the scan may pass on a die; it must never misread one
		}
		found++
		d := got[0]
		if d.Face != want.Face || math.Hypot(d.X-want.X, d.Y-want.Y) > want.Size/2 {
			t.Errorf("face %d left out: got %v; want face %d at (%.0f,%.0f)", want.Face, d, want.Face, want.X, want.Y)
		}
	}
	if found < len(truth)/2 {
		t.Errorf("scan found %d of %d dice left out; want at least %d", found, len(truth), len(truth)/2)
	}
}

// TestScanBareTable checks that the scan adds no die to a table with
// nothing on it but texture.
func TestScanBareTable(t *testing.T) {
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(50, 110, 40, 0), 240, 320, gocv.MatTypeCV8UC3)
	defer img.Close()
	noise := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8UC3)
	defer noise.Close()
	gocv.RandN(&noise, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(30, 30, 30, 0))
	gocv.Add(img, noise, &img)
	pix, err := img.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(Options{})
	cands := []candidate{{side: 40, dieLike: true}, {side: 40, dieLike: true}, {side: 40, dieLike: true}}
	if got := r.scanMissing(pix, 320, 240, 1, nil, cands, 1); len(got) != 0 {
		t.Errorf("got %v; want no dice", got)
	}
}

// TestGrayIntegrals checks the integral images against direct sums.
func TestGrayIntegrals(t *testing.T) {
	const w, h = 7, 5
	pix := make([]byte, w*h*3)
	for i := range pix {
		pix[i] = byte(i * 37 % 251)
	}
	for _, f := range []int{1, 2} {
		gw, gh := w/f, h/f
		sum, sq := grayIntegrals(pix, w, f, gw, gh)
		var s, q float64
		for y := 0; y < gh; y++ {
			for x := 0; x < gw; x++ {
				i := (y*f*w + x*f) * 3
				g := (float64(pix[i]) + float64(pix[i+1]) + float64(pix[i+2])) / 3
				s += g
				q += g * g
			}
		}
		if got := sum[gh*(gw+1)+gw]; math.Abs(got-s) > 1e-6 {
			t.Errorf("f=%d: got sum %v; want %v", f, got, s)
		}
		if got := sq[gh*(gw+1)+gw]; math.Abs(got-q) > 1e-6 {
			t.Errorf("f=%d: got square sum %v; want %v", f, got, q)
		}
	}
}
