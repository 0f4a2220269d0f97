package vision

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"sort"

	"gocv.io/x/gocv"
)

// Reader finds dice in images and reads their top faces. A Reader is safe
// for use by one goroutine at a time; make one per goroutine.
type Reader struct {
	opts    Options
	model   *faceModel     // the rules' face classifier
	learned *learnedModels // the dice finder and the face network
	finder  *finder
	faces   *faceScratch
}

// NewReader returns a Reader configured by opts.
func NewReader(opts Options) *Reader {
	if opts.MinConfidence <= 0 {
		opts.MinConfidence = DefaultMinConfidence
	}
	r := &Reader{opts: opts, model: defaultModel, learned: defaultLearned}
	if opts.Models != nil {
		r.model, r.learned = opts.Models.rules, opts.Models.learned
	}
	if r.learned != nil {
		r.finder, r.faces = newFinder(r.learned.finder), r.learned.faces.newScratch()
	}
	return r
}

// Options returns the options the Reader was made with.
func (r *Reader) Options() Options { return r.opts }

// maxWorkSide bounds the longer side of the image the reader works on;
// larger images are scaled down first, which costs nothing in accuracy as
// long as dice stay above ~20 px.
const maxWorkSide = 1600

// maxSegSide bounds the longer side of the copy dice are found on, unless
// that would make a die of known size smaller than minSegDie pixels.
const (
	maxSegSide = 800
	minSegDie  = 24
)

// Read finds every die in img (BGR, gray or BGRA, as gocv reads them) and
// returns them sorted top to bottom, left to right. It does not modify or
// keep img.
func (r *Reader) Read(img gocv.Mat) ([]Die, error) {
	sc, err := r.prepare(img)
	if err != nil {
		return nil, err
	}
	defer sc.bgr.Close()
	var dice []Die
	if r.learned != nil {
		if dice, err = r.readLearned(sc); err != nil {
			return nil, err
		}
	} else {
		for _, c := range sc.cands {
			if rd, ok := r.readRules(sc.pix, sc.bgr.Cols(), sc.bgr.Rows(), c, sc.segScale); ok {
				r.applyView(&rd.Die)
				dice = append(dice, rd.Die)
			}
		}
	}
	for i := range dice {
		dice[i].X, dice[i].Y, dice[i].Size = dice[i].X/sc.scale, dice[i].Y/sc.scale, dice[i].Size/sc.scale
	}
	dice = dedupe(dice)
	sort.Slice(dice, func(i, j int) bool {
		if math.Abs(dice[i].Y-dice[j].Y) > dice[i].Size/2 {
			return dice[i].Y < dice[j].Y
		}
		return dice[i].X < dice[j].X
	})
	return dice, nil
}

// rulesRead is the rules' read of a region: the die (in the image's
// pixels, as seen: the view not applied) and how square its face is (0-1:
// low for a cocked or half-hidden die).
type rulesRead struct {
	Die
	shape float64
}

// readRules reads one candidate region of the image (BGR bytes, w x h)
// by the rules and the rules' face classifier. It reports false when the
// region has no marks, so is not a die.
func (r *Reader) readRules(pix []byte, w, h int, c candidate, segScale float64) (rulesRead, bool) {
	p := cutPatch(pix, w, h, c, segScale)
	fr := readFace(p)
	conf := fr.confidence
	if r.model != nil && fr.side > 0 {
		fr.face, fr.star, conf = r.combine(fr)
	}
	conf *= fr.shape
	if fr.pips == 0 {
		// Every face of a die has marks: a region with none is a mark on
		// the table, a shadow, a hole or a hand.
		return rulesRead{}, false
	}
	d := Die{Face: fr.face, Star: fr.star, X: c.cx / segScale, Y: c.cy / segScale, Size: c.side / segScale}
	if fr.side > 0 {
		// The face locates the die better than its outline, which holds
		// its shadow and, in perspective, a side.
		d.X, d.Y = float64(p.x0)+fr.cx, float64(p.y0)+fr.cy
		d.Size = fr.side
	}
	d.Confidence = math.Round(conf*1000) / 1000
	if d.Face == 1 {
		switch {
		case r.opts.StarDice:
			d.Star = true
		case r.opts.PlainDice && d.Star:
			d.Star, d.Confidence = false, 0
		}
	}
	d.Uncertain = d.Face == 0 || d.Confidence < r.opts.MinConfidence
	return rulesRead{Die: d, shape: fr.shape}, true
}

// checkImage says why the reader cannot read img, if it cannot.
func checkImage(img gocv.Mat) error {
	if img.Empty() {
		return errors.New("vision: empty image")
	}
	if t := img.Type(); t != gocv.MatTypeCV8UC3 && t != gocv.MatTypeCV8UC1 && t != gocv.MatTypeCV8UC4 {
		name := t.String()
		if name == "" {
			// gocv names only some types (not CV_8S, say).
			name = fmt.Sprintf("%d (depth %d, %d channels)", t, t&7, img.Channels())
		}
		return fmt.Errorf("vision: unsupported image type %s (want 8-bit gray, BGR or BGRA)", name)
	}
	if img.Cols() < 32 || img.Rows() < 32 {
		return fmt.Errorf("vision: image too small (%dx%d)", img.Cols(), img.Rows())
	}
	return nil
}

// detected is an image made ready for reading and the candidate regions
// found in it.
type detected struct {
	bgr      gocv.Mat // the image the dice are read on, BGR; the caller closes it
	pix      []byte   // bgr's pixels
	scale    float64  // bgr's scale from the original image
	segScale float64  // the candidates' scale from bgr
	cands    []candidate
}

// prepare checks img and makes it ready to read at the reader's die
// size (detect). The caller closes the result's bgr.
func (r *Reader) prepare(img gocv.Mat) (detected, error) {
	if err := checkImage(img); err != nil {
		return detected{}, err
	}
	return detect(img, r.opts.DieSize, r.opts.Background)
}

// detect converts img to BGR at the size the reader works on and finds the
// candidate regions. dieSize is the expected die side in img's pixels, or
// 0; background is the empty table, or nil.
func detect(img gocv.Mat, dieSize float64, background *Background) (detected, error) {
	bgr, scale := workImage(img)
	dieSize *= scale
	// Finding the dice needs less resolution than reading them: segment a
	// smaller copy when the image is large.
	segScale := 1.0
	if s := max(bgr.Cols(), bgr.Rows()); s > maxSegSide {
		segScale = float64(maxSegSide) / float64(s)
	}
	if dieSize > 0 {
		segScale = math.Max(segScale, math.Min(1, minSegDie/dieSize))
	}
	seg := bgr
	if segScale < 1 {
		seg = gocv.NewMat()
		defer seg.Close()
		gocv.Resize(bgr, &seg, image.Point{}, segScale, segScale, gocv.InterpolationArea)
	}
	cands, err := findCandidates(seg, dieSize*segScale, background)
	if err != nil {
		bgr.Close()
		return detected{}, err
	}
	pix, err := bgr.DataPtrUint8()
	if err != nil {
		bgr.Close()
		return detected{}, fmt.Errorf("vision: %w", err)
	}
	return detected{bgr: bgr, pix: pix, scale: scale, segScale: segScale, cands: cands}, nil
}

// workImage converts img to BGR at the size the reader works on, and
// says its scale from img. The caller closes the result.
func workImage(img gocv.Mat) (gocv.Mat, float64) {
	bgr := gocv.NewMat()
	switch img.Type() {
	case gocv.MatTypeCV8UC1:
		gocv.CvtColor(img, &bgr, gocv.ColorGrayToBGR)
	case gocv.MatTypeCV8UC4:
		gocv.CvtColor(img, &bgr, gocv.ColorBGRAToBGR)
	default:
		img.CopyTo(&bgr)
	}
	scale := 1.0
	if s := max(bgr.Cols(), bgr.Rows()); s > maxWorkSide {
		scale = float64(maxWorkSide) / float64(s)
		small := gocv.NewMat()
		gocv.Resize(bgr, &small, image.Point{}, scale, scale, gocv.InterpolationArea)
		bgr.Close()
		bgr = small
	}
	return bgr, scale
}

// applyView turns a face seen from below into the top face.
func (r *Reader) applyView(d *Die) {
	if r.opts.View != ViewBottom || d.Face == 0 {
		return
	}
	switch {
	case d.Star:
		d.Face, d.Star = 6, false
	case d.Face == 6:
		d.Face, d.Star = 1, r.opts.StarDice
	default:
		d.Face = 7 - d.Face
	}
}

// ReadImage reads the dice in a Go image.
func (r *Reader) ReadImage(img image.Image) ([]Die, error) {
	if err := checkGoImage(img); err != nil {
		return nil, err
	}
	m, err := gocv.ImageToMatRGB(img)
	if err != nil {
		return nil, fmt.Errorf("vision: converting image: %w", err)
	}
	defer m.Close()
	// ImageToMatRGB fills the Mat in BGR order despite its name.
	return r.Read(m)
}

// ReadFile reads the dice in an image file (JPEG, PNG and whatever else
// OpenCV decodes).
func (r *Reader) ReadFile(path string) ([]Die, error) {
	m, err := LoadImage(path)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return r.Read(m)
}

// LoadImage reads an image file into a BGR Mat, with a clear error for a
// missing, undecodable, truncated or oversized file (DecodeImage). The
// caller closes the Mat.
func LoadImage(path string) (gocv.Mat, error) {
	st, err := os.Stat(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	if !st.Mode().IsRegular() {
		// A folder, a device (/dev/zero never ends) or a pipe.
		return gocv.Mat{}, fmt.Errorf("vision: %s: not an image file", path)
	}
	buf, err := os.ReadFile(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	return DecodeImage(buf, path)
}

// DecodeImage decodes an encoded image (JPEG, PNG...) into a BGR Mat; name
// only labels errors. 16-bit images come out 8-bit, and an alpha channel
// is dropped. A truncated JPEG is an error (OpenCV would fill its missing
// part with grey), and so is an image of more than 2^26 pixels (67
// megapixels) whose header says its size (PNG, JPEG, BMP). The caller
// closes the Mat.
func DecodeImage(buf []byte, name string) (gocv.Mat, error) {
	if len(buf) == 0 {
		return gocv.Mat{}, fmt.Errorf("vision: %s: empty file", name)
	}
	if err := checkEncoded(buf); err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %s: %w", name, err)
	}
	m, err := gocv.IMDecode(buf, gocv.IMReadColor)
	if err != nil {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("vision: %s: %w", name, err)
	}
	if m.Empty() {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("vision: %s: not a readable image (not an image, corrupt, or too large for OpenCV)", name)
	}
	return m, nil
}

// combine weighs the rules' read against the learned classifier's: the
// two must agree for a confident read.
func (r *Reader) combine(fr faceRead) (face int, star bool, conf float64) {
	probs := r.model.probabilities(fr)
	class := 0
	for c := range probs {
		if probs[c] > probs[class] {
			class = c
		}
	}
	p := probs[class]
	ruleClass := fr.face - 1
	if fr.star {
		ruleClass = 6
	}
	toFace := func(c int) (int, bool) {
		if c == 6 {
			return 1, true
		}
		return c + 1, false
	}
	switch {
	case fr.face != 0 && ruleClass == class:
		face, star = toFace(class)
		return face, star, math.Max(fr.confidence, p*0.95)
	case fr.face != 0 && fr.confidence >= r.opts.MinConfidence:
		// The rules are sure and the network prefers another face: keep the
		// rules' read only if the network finds it plausible too.
		return fr.face, fr.star, fr.confidence * clamp01(probs[ruleClass]/modelVeto)
	case p >= modelAlone && (fr.pips == class+1 || (class == 6 && fr.pips == 1)):
		// The rules counted the marks but could not vouch for their layout;
		// the network, very sure, reads the same count.
		face, star = toFace(class)
		return face, star, p * 0.8
	}
	return fr.face, fr.star, fr.confidence
}

// modelVeto is the probability the network must give the rules' read, when
// it prefers another, for the read to stay confident.
var modelVeto = 0.3

// modelAlone is the probability above which the network's read stands
// when the rules could not make the face out.
var modelAlone = 0.99

// dedupe keeps one die where two reads overlap (a die cut in two by the
// split of a cluster, say): the more confident one.
func dedupe(dice []Die) []Die {
	sort.Slice(dice, func(i, j int) bool { return dice[i].Confidence > dice[j].Confidence })
	out := dice[:0]
	for _, d := range dice {
		dup := false
		for _, k := range out {
			if math.Hypot(d.X-k.X, d.Y-k.Y) < 0.6*math.Min(d.Size, k.Size) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}
