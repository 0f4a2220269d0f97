package vision

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gocv.io/x/gocv"
)

// Reader finds dice in images and reads their top faces. It holds one
// instance of each network; a Reader is safe for concurrent use (reads
// take turns) and must be closed.
type Reader struct {
	opts   Options
	bars   Bars
	mu     sync.Mutex
	finder *finder
	faces  *faceNet
}

// NewReader returns a Reader configured by opts, with the embedded
// networks unless opts.Models names others.
func NewReader(opts Options) (*Reader, error) {
	if opts.MinConfidence <= 0 {
		opts.MinConfidence = DefaultMinConfidence
	}
	if opts.StarDice && opts.PlainDice {
		return nil, errors.New("vision: dice cannot be both star dice and plain dice")
	}
	m := opts.Models
	if m == nil {
		var err error
		if m, err = defaultModels(); err != nil {
			return nil, err
		}
	} else if err := m.Bars.validate(); err != nil {
		return nil, err
	}
	f, err := newFinder(m.Finder)
	if err != nil {
		return nil, err
	}
	faces, err := newFaceNet(m.Faces)
	if err != nil {
		f.close()
		return nil, err
	}
	return &Reader{opts: opts, bars: m.Bars, finder: f, faces: faces}, nil
}

// Close frees the reader's networks.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finder != nil {
		r.finder.close()
		r.faces.close()
		r.finder, r.faces = nil, nil
	}
	return nil
}

// Options returns the options the Reader was made with.
func (r *Reader) Options() Options { return r.opts }

// Bars returns the bars of the reader's decision.
func (r *Reader) Bars() Bars { return r.bars }

// minReadable is the least extent, in the work image's pixels, of a die
// the reader reads confidently: below it a pip is a pixel or two and a
// network reads noise as faces.
const minReadable = 16

// Read finds every die in img (BGR, gray or BGRA, as gocv reads them) and
// returns them sorted top to bottom, left to right. It does not modify or
// keep img.
func (r *Reader) Read(img gocv.Mat) ([]Die, error) {
	if err := checkImage(img); err != nil {
		return nil, err
	}
	bgr, scale := workImage(img)
	defer bgr.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finder == nil {
		return nil, errors.New("vision: reader closed")
	}
	found, err := r.finder.locate(bgr, r.opts.DieSize*scale, r.bars)
	if err != nil {
		return nil, err
	}
	found = suppress(found, r.bars.Found)
	found, err = r.onTheBoard(bgr, found)
	if err != nil {
		return nil, err
	}
	probs, err := r.faces.classify(bgr, found, r.bars.Turns)
	if err != nil {
		return nil, err
	}
	found, probs = wholeDice(found, probs, r.noDie, r.bars.Found)
	type read struct {
		c     candidate
		probs [faceClasses]float64
		pips  pipRead
	}
	dice := make([]Die, 0, len(found))
	reads := make([]read, 0, len(found))
	for i, c := range found {
		if r.noDie(c, probs[i]) && !r.unknown(c) {
			continue // no pip count for a place that is no die
		}
		pips := countPips(bgr, c.x, c.y, c.extent)
		d, keep := r.decide(c, probs[i], pips, false)
		if !keep {
			continue
		}
		dice = append(dice, d)
		reads = append(reads, read{c, probs[i], pips})
	}
	// A die far smaller than the frame's other dice is a part of one the
	// finder missed (a big die's pip read as a 1), or no die: the dice of
	// one table are one size, give or take the camera's perspective.
	if ref, ok := frameDieSize(dice); ok {
		out := dice[:0]
		for i, d := range dice {
			if d.Size < muchSmaller*ref {
				var keep bool
				if d, keep = r.decide(reads[i].c, reads[i].probs, reads[i].pips, true); !keep {
					continue
				}
			}
			out = append(out, d)
		}
		dice = out
	}
	for i := range dice {
		dice[i].X, dice[i].Y, dice[i].Size = dice[i].X/scale, dice[i].Y/scale, dice[i].Size/scale
	}
	sort.Slice(dice, func(i, j int) bool {
		if math.Abs(dice[i].Y-dice[j].Y) > dice[i].Size/2 {
			return dice[i].Y < dice[j].Y
		}
		return dice[i].X < dice[j].X
	})
	return dice, nil
}

// wholeDice keeps, of candidates whose centres lie within half the larger
// one's extent of each other (a die and one of its own pips, a tilted
// die's top face and its body), the largest that is a die (noDie says
// which are not): the part is always smaller than the whole. A place that
// is no die takes no die with it (a coarse look's box around a whole tray
// of dice would otherwise swallow them), only other places that are none.
func wholeDice(cs []candidate, probs [][faceClasses]float64, noDie func(candidate, [faceClasses]float64) bool, found float64) ([]candidate, [][faceClasses]float64) {
	order := make([]int, len(cs))
	isNone := make([]bool, len(cs))
	for i := range order {
		order[i] = i
		isNone[i] = noDie(cs[i], probs[i])
	}
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if isNone[i] != isNone[j] {
			return isNone[j]
		}
		if isNone[i] {
			// Of places that are no die, the finder's sure ones first: one
			// may be a die of an artwork the classifier never saw
			// (Options.Unknown), its pips inside it.
			if si, sj := cs[i].p >= found, cs[j].p >= found; si != sj {
				return si
			}
		}
		return cs[i].extent > cs[j].extent
	})
	var keptC []candidate
	var keptP [][faceClasses]float64
	var keptNone []bool
	for _, i := range order {
		c, dup := cs[i], false
		for n, k := range keptC {
			if (!keptNone[n] || isNone[i]) && math.Hypot(c.x-k.x, c.y-k.y) < 0.5*math.Max(c.extent, k.extent) {
				dup = true
				break
			}
		}
		if !dup {
			keptC, keptP, keptNone = append(keptC, c), append(keptP, probs[i]), append(keptNone, isNone[i])
		}
	}
	return keptC, keptP
}

// onTheBoard drops the candidates where the frame is the empty board the
// calibration took (its printing, a seam), when there is one.
func (r *Reader) onTheBoard(bgr gocv.Mat, cs []candidate) ([]candidate, error) {
	b := r.opts.Background
	if b == nil || !b.fits(bgr.Cols(), bgr.Rows()) || len(cs) == 0 {
		return cs, nil
	}
	empty, err := b.at(bgr.Cols(), bgr.Rows())
	if err != nil {
		return nil, err
	}
	defer empty.Close()
	frame, err := bgr.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	board, err := empty.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	out := cs[:0]
	for _, c := range cs {
		if changed(frame, board, bgr.Cols(), bgr.Rows(), c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// decide makes a die of a candidate from the face classifier's
// probabilities and the pip counter's read, or drops it (keep false) when
// it is no die. A read is confident only when the die is large enough to
// read, the pip counter does not read another face, and the classifier
// is sure: bars.Agreed sure when the counter reads the same face,
// bars.Alone sure when the counter cannot make the face out.
func (r *Reader) decide(c candidate, probs [faceClasses]float64, pips pipRead, small bool) (Die, bool) {
	unknown := false
	if r.noDie(c, probs) {
		if !r.unknown(c) {
			return Die{}, false
		}
		unknown = true
	}
	sure := c.p >= r.bars.Found
	none := probs[classNone]
	face, star, p := r.likeliest(probs)
	d := Die{X: c.x, Y: c.y, Size: c.extent, Face: face, Star: star,
		Net: &Opinion{Face: face, Star: star, Probability: round3(p)}}
	if pips.face != 0 {
		d.Pips = &Opinion{Face: pips.face, Star: pips.star}
	}
	// Where the dice's 1 is known, the counter's star or plain 1 is a 1.
	agree := pips.agrees(face, star, r.opts.StarDice || r.opts.PlainDice)
	// A lone round mark is weak evidence of a 1 (a coin's boss, a spot of
	// light is one too): only a counted face of two pips or more lowers
	// the bar, or, on star dice, a lone mark with the star's five points.
	bar := r.bars.Alone
	if agree && (face > 1 || (star && pips.star && r.opts.StarDice)) {
		bar = r.bars.Agreed
	}
	conf := confidence(p, bar)
	switch {
	case none > p:
		d.Reason = "no die, or not wholly seen"
		conf = 0
	case probs[classUnreadable] >= p:
		d.Reason = "cocked or half hidden"
		conf = 0
	case c.extent < minReadable:
		d.Reason = "too small to read"
		conf = math.Min(conf, 0.5)
	case small:
		d.Reason = ReasonMuchSmaller
		conf = math.Min(conf, 0.5)
	case star && r.opts.PlainDice:
		// These dice have no star: the mark read as one is a 1 in doubt.
		d.Star, d.Net.Star = false, false
		d.Reason = "a star on plain dice"
		conf = math.Min(conf, 0.5)
	case pips.face != 0 && !agree:
		d.Reason = "the pip counter disagrees"
		conf = math.Min(conf, 0.5)
	case p < bar:
		d.Reason = "the network is unsure"
	}
	if unknown {
		d.Reason, conf = ReasonUnknown, 0
	}
	d.Confidence = round3(conf)
	d.Uncertain = d.Reason != "" || conf < r.opts.MinConfidence
	if d.Uncertain && d.Reason == "" {
		d.Reason = "below the table's confidence"
	}
	if d.Uncertain && !sure {
		// A place the finder doubts must be read confidently to be a die.
		return Die{}, false
	}
	if d.Uncertain {
		// A much smaller die's window shows a part of a die at most: what
		// the classifier saw there says nothing of the die's face.
		unreadable := none > p || probs[classUnreadable] >= p || small
		d.Likely = r.likely(probs, pips, unreadable)
	}
	r.applyView(&d)
	return d, true
}

// ReasonMuchSmaller is the Reason of a die far smaller than the other
// dice the frame holds (frameDieSize, muchSmaller).
const ReasonMuchSmaller = "much smaller than the other dice"

// muchSmaller is the share of the frame's die size under which a die is
// in doubt. A wide lens tilted 50 degrees sees the far dice of a table
// about half the size of those in the middle (0.47 at worst on the
// held-out varied tables); a big die's pip read as a die is a fifth of
// it (0.16 to 0.2 on the Rune55 photographs held out).
const muchSmaller = 0.35

// frameDieSize is the median size of the dice read confidently, when at
// least three were: the size of a die in this frame.
func frameDieSize(dice []Die) (float64, bool) {
	var sizes []float64
	for _, d := range dice {
		if !d.Uncertain {
			sizes = append(sizes, d.Size)
		}
	}
	if len(sizes) < 3 {
		return 0, false
	}
	slices.Sort(sizes)
	return sizes[len(sizes)/2], true
}

// ReasonUnknown is the Reason of a die Options.Unknown keeps: a place the
// finder is sure of that the classifier calls no die.
const ReasonUnknown = "no face the networks know"

// unknown reports whether c, a place the classifier calls no die, is kept
// as a die of unknown face (Options.Unknown): the finder must be sure of it.
func (r *Reader) unknown(c candidate) bool {
	return r.opts.Unknown && c.p >= r.bars.Found
}

// likely lists the faces a die in doubt may show, likeliest first: those
// the classifier gives at least the Possible bar, with the dice's 1 as the
// options know it, and the pip counter's face; every face when the die
// cannot be read (any).
func (r *Reader) likely(probs [faceClasses]float64, pips pipRead, any bool) []Opinion {
	faces := make([]Opinion, 0, 7)
	switch one, star := probs[0], probs[classStar]; {
	case r.opts.StarDice:
		faces = append(faces, Opinion{Face: 1, Star: true, Probability: one + star})
	case r.opts.PlainDice:
		faces = append(faces, Opinion{Face: 1, Probability: one + star})
	default:
		faces = append(faces, Opinion{Face: 1, Probability: one}, Opinion{Face: 1, Star: true, Probability: star})
	}
	for k := 1; k < 6; k++ {
		faces = append(faces, Opinion{Face: k + 1, Probability: probs[k]})
	}
	sort.SliceStable(faces, func(i, j int) bool { return faces[i].Probability > faces[j].Probability })
	var out []Opinion
	for _, f := range faces {
		counted := pips.face == f.Face && (pips.star == f.Star || r.opts.StarDice || r.opts.PlainDice)
		if any || counted || f.Probability >= r.bars.Possible {
			f.Probability = round3(f.Probability)
			out = append(out, f)
		}
	}
	return out
}

// likeliest returns the classifier's likeliest face and its probability,
// with the dice's 1 as the options know it: on star dice the star and a
// plain 1 are one face, the star; on plain dice a 1 the classifier also
// finds a little star-like is a 1.
func (r *Reader) likeliest(probs [faceClasses]float64) (face int, star bool, p float64) {
	best := 0
	for k := 1; k <= classStar; k++ {
		if probs[k] > probs[best] {
			best = k
		}
	}
	p = probs[best]
	face, star = best+1, best == classStar
	if star {
		face = 1
	}
	switch {
	case r.opts.StarDice && face == 1:
		p, star = probs[0]+probs[classStar], true
	case r.opts.PlainDice && face == 1 && !star:
		p = probs[0] + probs[classStar]
	}
	return face, star, p
}

// noDie reports whether a place is dropped: the classifier's "no die" at
// its bar drops it even where the finder is sure (a tray's corner, a
// printed square: the referee knows how many dice each seat has, so a die
// lost here still asks for a look, while an uncertain phantom would ask at
// every call), and "no die" likelier than any face drops a place the
// finder doubts.
func (r *Reader) noDie(c candidate, probs [faceClasses]float64) bool {
	_, _, p := r.likeliest(probs)
	none := probs[classNone]
	return none >= r.bars.None || (c.p < r.bars.Found && none > p)
}

// confidence maps the classifier's probability p to a Die's confidence:
// the bar maps to DefaultMinConfidence, certainty to 1.
func confidence(p, bar float64) float64 {
	if p >= bar {
		return DefaultMinConfidence + (1-DefaultMinConfidence)*(p-bar)/(1-bar)
	}
	return DefaultMinConfidence * p / bar
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// applyView turns a face seen from below into the top face.
func (r *Reader) applyView(d *Die) {
	if r.opts.View != ViewBottom || d.Face == 0 {
		return
	}
	d.Face, d.Star = r.topFace(d.Face, d.Star)
	likely := d.Likely[:0]
	for _, o := range d.Likely {
		o.Face, o.Star = r.topFace(o.Face, o.Star)
		// Below, the star and a plain 1 both have a 6 on top: once.
		if !slices.ContainsFunc(likely, func(l Opinion) bool { return l.Face == o.Face && l.Star == o.Star }) {
			likely = append(likely, o)
		}
	}
	d.Likely = likely
}

// topFace is the top face of a die whose bottom shows face (star).
func (r *Reader) topFace(face int, star bool) (int, bool) {
	switch {
	case star:
		return 6, false
	case face == 6:
		return 1, r.opts.StarDice
	}
	return 7 - face, false
}

// String describes the reader for logs.
func (r *Reader) String() string {
	return fmt.Sprintf("vision reader (bars: found %.2f, agreed %.3f, alone %.3f, none %.2f)", r.bars.Found, r.bars.Agreed, r.bars.Alone, r.bars.None)
}
