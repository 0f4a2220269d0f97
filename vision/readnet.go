package vision

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// The learned read: the dice finder marks the dice, the face network reads
// each, and the rules' read of the same die (where the segmentation found
// it) is a second opinion that must not contradict a confident read.

//go:embed model/finder.json
var finderJSON []byte

//go:embed model/facenet.json
var faceNetJSON []byte

// learnedModels are the dice finder and the face network.
type learnedModels struct {
	finder *network
	faces  *faceNets
}

// defaultLearned is the embedded models, or nil when they are missing or
// do not fit (the reader then reads by its rules alone).
var defaultLearned = func() *learnedModels {
	m, err := parseLearned(finderJSON, faceNetJSON)
	if err != nil {
		return nil
	}
	return m
}()

func parseLearned(finderData, facesData []byte) (*learnedModels, error) {
	var m learnedModels
	m.finder, m.faces = new(network), new(faceNets)
	if err := json.Unmarshal(finderData, m.finder); err != nil {
		return nil, fmt.Errorf("vision: dice finder: %w", err)
	}
	if err := m.finder.check(shape{3, finderCrop, finderCrop}); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(facesData, m.faces); err != nil {
		return nil, fmt.Errorf("vision: face network: %w", err)
	}
	if err := m.faces.check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Thresholds of the learned read, tuned on held-out images of the train/
// split.
var (
	// netSure is the face network's probability (averaged over its nets
	// and views) above which its read is confident...
	netSure = 0.8
	// netWorst ... when no single net at no single view gave it less.
	netWorst = 0.2
	// netVoteSure is the probability above which the read is confident
	// too, when at least netVotes of the views (each net at each view) put
	// the same class first (one view far off is then the odd one out) and
	// either the network gives "unreadable" less than netVoteUnreadable
	// and the finder is fairly sure of the die (netFinderKeep), or the
	// rules found only a lone mark they are unsure of. The low
	// "unreadable" keeps cocked dice from this lower bar. The bar is set
	// on several held-out trainings, not one: at 50% one read six dice
	// wrong (dark translucent dice at 55-69%), at 70% another two (at
	// 71-73%); between 75% and 80% all four read every die right.
	netVoteSure       = 0.75
	netVotes          = 0.75
	netVoteUnreadable = 0.01
	// netAgree is the probability above which the network's read is
	// confident when the rules, sure, read the same face: two readers
	// that see a die differently agree.
	netAgree = 0.4
	// netAgreeUnsure is the same when the rules' read is an unsure guess.
	netAgreeUnsure = 0.5
	// netFirstLook is the probability above which one view is enough;
	// below it the network looks at faceNetViews views, at the finder's
	// size and at netCloser times it and its inverse, and keeps the surest
	// read of a face.
	netFirstLook = 0.95
	netCloser    = 0.8
	// netSquare is the rules' measure of how square a face is (0-1) below
	// which a die is never confident: cocked or half hidden.
	netSquare = 0.5
	// netOverrule and netOverruleWorst are the probability (average and
	// worst view) of a face above which the network's read stands where
	// the rules see a cocked or half-hidden die (netSquare) or no face.
	netOverrule      = 0.85
	netOverruleWorst = 0.4
	// netUnanimous is the probability every view of every net must give a
	// face for the network's read to stand against the rules, sure of
	// another face.
	netUnanimous = 0.97
	// netDrop is the probability of "not a die" that drops a candidate;
	// netDropUnsure drops one the finder is unsure of (netFinderSure) when
	// "not a die" is the network's likeliest class and at least this. A
	// candidate the finder is certain of (netFinderCertain) is never
	// dropped but reported uncertain: a die half under a hand looks to the
	// face network like no die it knows, and must still be looked at.
	netDrop          = 0.9
	netDropUnsure    = 0.3
	netFinderSure    = 0.6
	netFinderCertain = 0.7
	// netFinderKeep is the finder's probability below which a die must be
	// read confidently to be reported at all.
	netFinderKeep = 0.5
	// netSizeRange is how much smaller than the median confident die (or,
	// inverted, larger) a die may be.
	netSizeRange = 0.65
	// netRegionOnly is the probability the face network must give a face
	// for a region only the segmentation found (not the finder) to count.
	netRegionOnly = 0.75
	// netMatch is how near (over the die's side) a segmentation region's
	// centre must be to a finder's candidate to be the same die.
	netMatch = 0.45
	// netRelocate is how near (over the finder's side) the rules' face
	// centre must be to the finder's to stand for the die's place and
	// size. Farther, the segmentation ran two dice into one region
	// (still the die's second opinion) and its face lies between them:
	// reported there, the die hid its neighbour from dedupe. Held out,
	// 0.2 to 0.4 read alike: 4 more dice right and one fewer wrong in
	// 3,044 (docs/vision-history.md).
	netRelocate = 0.3
	// netBoxRules is the side, over the finder's, of the square the rules
	// read where the segmentation found no region (0.65 and 0.95 read
	// the same held out).
	netBoxRules = 0.8
	// minReadableSide is the side, in the pixels the reader works on,
	// below which it reads no die confidently (the smaller of the
	// finder's box and the rules' face): the pips are then a pixel or two
	// across and the network reads noise as faces. Without it, on
	// synthetic tables of small dice (the tuning seeds 500-539, 640x480,
	// 20 dice) 2.4% of 12 px dice and 4.4% of 10 px dice were read
	// confidently wrong; with it 0.5% and 0.4%, and 20 px dice still
	// read 95.8% right (96.4%). 18 px (the finder's box alone) cost 20 px
	// dice eleven points for as many wrong reads of 12-16 px dice (0.6%):
	// those the finder measured too large. The photographs' smallest
	// confident reads are 20 px: their reads, held out and on test/, are
	// unchanged. A candidate that small is not looked at more closely
	// either: a corrupt 320x240 JPEG of noise with 131 of them took 3.5 s
	// on one core (0.7 s now).
	minReadableSide = 16.0
)

// netOpinion is what the learned read knows of one die.
type netOpinion struct {
	x, y, size float64     // in the pixels of the image read
	net        faceVerdict // the face network's read
	rules      *rulesRead  // the rules' read of the same die, if any
	finder     bool        // the finder marked it (else only a segmentation region)
	score      float64     // the finder's probability of a die here
}

// decide turns the opinions about one place into a die, or false when it
// is not one.
func (r *Reader) decide(o netOpinion) (Die, bool) {
	v := o.net
	probs := v.probs
	if r.opts.StarDice {
		// The star is the 1 face: a plain pip read there is the star too.
		probs[classStar] += probs[0]
		probs[0] = 0
	}
	class, p := 0, 0.0
	for c := 0; c <= classStar; c++ {
		if probs[c] > p {
			class, p = c, probs[c]
		}
	}
	if v.class == classNotADie && o.score < netFinderCertain && (v.p >= netDrop || (o.score < netFinderSure && v.p >= netDropUnsure)) {
		return Die{}, false
	}
	if !o.finder && (v.class > classStar || v.p < netRegionOnly) {
		// Only the segmentation saw something here, and the network does
		// not read a face in it for sure: a mark, a shadow, half a die.
		return Die{}, false
	}
	d := Die{X: o.x, Y: o.y, Size: o.size}
	if rd := o.rules; rd != nil && rd.Size > 0.7*o.size && rd.Size < 1.2*o.size && math.Hypot(rd.X-o.x, rd.Y-o.y) < netRelocate*o.size {
		// The rules locate the top face itself, which the finder's box (in
		// the photographs it learned from, the die's sides and shadow too)
		// does not: the face's centre and side are what calibration and
		// the table's face templates measure.
		d.X, d.Y, d.Size = rd.X, rd.Y, rd.Size
	}
	d.Face, d.Star = class+1, class == classStar
	if d.Star {
		d.Face = 1
	}
	worst, votes := v.worst, v.agree
	if v.class != class {
		// The merged classes (a star die's 1) lead: their worst is unknown.
		worst, votes = 0, 0
		if class == classStar && (v.class == 0 || v.class == classStar) {
			worst, votes = v.worst, v.agree
		}
	}
	sure := v.class <= classStar && p >= netSure && worst >= netWorst
	// voted is a read most views put first, fairly sure. It stands alone
	// on a die the network sees no sign of being cocked or hidden, and
	// that the finder is fairly sure is a die (a calibration card's
	// squares are read as a fair 2 too).
	voted := v.class <= classStar && p >= netVoteSure && votes >= netVotes
	if voted && v.probs[classUnreadable] < netVoteUnreadable && o.finder && o.score >= netFinderKeep {
		sure = true
	}
	// certain is a read the network gives in every view of every net, so
	// sure that it stands where the rules cannot confirm it.
	certain := v.class <= classStar && p >= netOverrule && worst >= netOverruleWorst
	unanimous := v.class <= classStar && p >= netUnanimous && worst >= netUnanimous
	if rd := o.rules; rd != nil && rd.Face != 0 {
		agree := rd.Face == d.Face && (rd.Star == d.Star || r.opts.StarDice)
		switch {
		case !rd.Uncertain && !agree:
			// Two readers that disagree, one of them sure: ask for a look,
			// unless every view of every net gave the network's read: the
			// rules' pip finder then took a swirl or a reflection for a pip
			// or missed one.
			sure = unanimous
		case !rd.Uncertain && v.class <= classStar && p >= netAgree:
			sure = true
		case agree && v.class <= classStar && p >= netAgreeUnsure:
			// The rules' best guess, unsure, is the network's too.
			sure = true
		case rd.Uncertain && rd.Face == 1 && !rd.Star && voted:
			// The rules, unsure, found a lone mark: what their pip finder
			// makes of a small die whose pips run together, no word
			// against the network. A read most of the network's views put
			// first stands at a lower probability.
			sure = true
		}
	}
	if rd := o.rules; rd != nil && (rd.shape < netSquare || rd.Face == 0) && !certain {
		// The face the rules isolated is far from square, or they found
		// marks but no face at all: a cocked die seen foreshortened, or
		// one half hidden. Its top face may not be the one facing the
		// camera, unless the network, which learned cocked dice as
		// unreadable, is certain of a face in every view.
		sure = false
	}
	if d.Face == 1 && !r.opts.StarDice && !r.opts.PlainDice {
		// A single central mark is a pip or the star, drawn any way: the
		// network learned three star artworks and some pips, and cannot
		// tell an artwork it never saw (an anchor, a sun) from them. The
		// rules, which judge the mark's shape, must read it the same,
		// unless the network is certain of a pip and the rules see no
		// star: the rules' pip finder misses many a 1 (a large pip, a
		// dark die) and calls it a 2 or nothing.
		confirmed := o.rules != nil && o.rules.Face == 1 && o.rules.Star == d.Star
		certainPip := certain && !d.Star && (o.rules == nil || !o.rules.Star)
		if !confirmed && !certainPip {
			sure = false
		}
	}
	if d.Star && !r.opts.StarDice && (o.rules == nil || !o.rules.Star || o.rules.Uncertain) {
		// The network learned three star artworks from synthetic tables;
		// a star drawn another way (an anchor, a sun) is for the rules and
		// the table's calibration to recognise, or to flag.
		sure = false
	}
	if d.Star && r.opts.PlainDice {
		// These dice have no star: what looks like one is a marbled swirl
		// or a logo on the 1, or a misread.
		d.Star, sure = false, false
	}
	if math.Min(o.size, d.Size) < minReadableSide {
		sure = false
	}
	if !sure && o.finder && (o.score < netFinderKeep || (o.rules == nil && o.score < netFinderCertain)) {
		// Neither the finder nor the network is sure of it, and (unless
		// the finder is fairly sure) the segmentation saw nothing there
		// either: a mark on the table, the tray's holes, a reflection, the
		// corner of a calibration card.
		return Die{}, false
	}
	d.Confidence = math.Round(netConfidence(p, sure)*1000) / 1000
	d.Uncertain = !sure || d.Confidence < r.opts.MinConfidence
	r.applyView(&d)
	return d, true
}

// netConfidence maps the network's probability of its read onto the
// reader's confidence: sure reads (by the thresholds above) to
// [DefaultMinConfidence, 1], unsure ones below it, so that the default
// MinConfidence separates them and a higher one asks for more.
func netConfidence(p float64, sure bool) float64 {
	if sure {
		return DefaultMinConfidence + (1-DefaultMinConfidence)*clamp01((p-netAgree)/(1-netAgree))
	}
	return math.Min(DefaultMinConfidence*p, DefaultMinConfidence-0.001)
}

// regionSize is the median side of the segmentation's die-like regions
// (in sc.bgr's pixels), the finder's first guess at the dice's size, or 0.
func regionSize(sc detected) float64 {
	var sides []float64
	for _, c := range sc.cands {
		if c.dieLike {
			sides = append(sides, c.side/sc.segScale)
		}
	}
	if len(sides) == 0 {
		return 0
	}
	slices.Sort(sides)
	return sides[len(sides)/2]
}

// look finds what there is to read on an image made ready by detect: the
// finder's candidates and the rules' reads of the segmentation's regions,
// in sc.bgr's pixels.
func (r *Reader) look(sc detected) ([]finderCandidate, []rulesRead, error) {
	cands, err := r.findDice(sc)
	if err != nil {
		return nil, nil, err
	}
	var rules []rulesRead
	for _, c := range sc.cands {
		if d, ok := r.readRules(sc.pix, sc.bgr.Cols(), sc.bgr.Rows(), c, sc.segScale); ok {
			rules = append(rules, d)
		}
	}
	return cands, rules, nil
}

// findDice runs the dice finder on an image made ready by detect, at the
// calibrated die size or, without one, starting from the segmentation's.
func (r *Reader) findDice(sc detected) ([]finderCandidate, error) {
	return r.finder.find(sc.bgr, r.opts.DieSize*sc.scale, regionSize(sc))
}

// readLearned reads the dice of an image made ready by detect; the dice
// it returns are in the pixels of sc.bgr.
func (r *Reader) readLearned(sc detected) ([]Die, error) {
	w, h := sc.bgr.Cols(), sc.bgr.Rows()
	cands, rules, err := r.look(sc)
	if err != nil {
		return nil, err
	}
	used := make([]bool, len(rules))
	dice := make([]foundDie, 0, len(cands))
	for _, c := range cands {
		o := netOpinion{x: c.x, y: c.y, size: c.size, finder: true, score: c.score}
		best, bestDist := -1, netMatch*c.size
		for i, rd := range rules {
			if d := math.Hypot(rd.X-c.x, rd.Y-c.y); d < bestDist {
				best, bestDist = i, d
			}
		}
		if best >= 0 {
			o.rules, used[best] = &rules[best], true
		}
		o.net = r.learned.faces.read(r.faces, sc.pix, w, h, c.x, c.y, c.size, 1)
		if o.net.p < netFirstLook && c.size >= minReadableSide {
			r.learned.faces.lookCloser(r.faces, &o.net)
			o.size = r.otherSizes(sc.pix, w, h, c, &o.net)
		}
		if o.rules == nil && o.net.class == 0 && c.score >= netFinderKeep {
			// A 1 the finder is fairly sure of where the segmentation
			// found no region (a dark die on a dark cloth): the rules,
			// which must confirm a plain 1, read the finder's box.
			if rd, ok := r.rulesAtBox(sc, o.x, o.y, netBoxRules*o.size); ok && rd.Face == 1 && !rd.Star && rd.shape >= netSquare {
				o.rules = &rd
			}
		}
		if d, ok := r.decide(o); ok {
			dice = append(dice, foundDie{d, c.score, c.size})
		}
	}
	for i := range rules {
		if used[i] {
			continue
		}
		rd := &rules[i]
		o := netOpinion{x: rd.X, y: rd.Y, size: rd.Size, rules: rd}
		o.net = r.learned.faces.read(r.faces, sc.pix, w, h, rd.X, rd.Y, rd.Size, faceNetViews)
		if d, ok := r.decide(o); ok {
			dice = append(dice, foundDie{d, 0, rd.Size})
		}
	}
	return r.consistentSizes(dice), nil
}

// rulesAtBox reads by the rules the square of the given side around (x, y)
// in sc.bgr's pixels, turned as the die's edges say, as if the
// segmentation had found it.
func (r *Reader) rulesAtBox(sc detected, x, y, side float64) (rulesRead, bool) {
	w, h := sc.bgr.Cols(), sc.bgr.Rows()
	a := dieAngle(sc.pix, w, h, x, y, side)
	ux, uy := math.Cos(a), math.Sin(a)
	s := sc.segScale
	cx, cy, half := x*s, y*s, side*s/2
	c := candidate{cx: cx, cy: cy, side: side * s}
	// The square's corners reach half a diagonal from its centre.
	for py := math.Max(0, math.Floor(cy-half*math.Sqrt2)); py <= math.Min(float64(h)*s-1, cy+half*math.Sqrt2); py++ {
		for px := math.Max(0, math.Floor(cx-half*math.Sqrt2)); px <= math.Min(float64(w)*s-1, cx+half*math.Sqrt2); px++ {
			dx, dy := px+0.5-cx, py+0.5-cy
			if math.Abs(dx*ux+dy*uy) <= half && math.Abs(dy*ux-dx*uy) <= half {
				c.pts = append(c.pts, point{px, py})
			}
		}
	}
	if len(c.pts) == 0 {
		return rulesRead{}, false
	}
	return r.readRules(sc.pix, w, h, c, s)
}

// otherSizes looks again at the finder's candidate c, closer and wider,
// when v, every view at c's size, is not sure, and keeps in v the surest
// read of a face; it returns the side that read was made at. The finder
// learned sizes from two kinds of boxes, the photographs' (the dice's
// sides and shadows) and the synthetic tables' (the top face alone), and
// it errs: a closer or a wider look may be the one the network knows.
func (r *Reader) otherSizes(pix []byte, w, h int, c finderCandidate, v *faceVerdict) float64 {
	side := c.size
	for _, k := range []float64{netCloser, 1 / netCloser} {
		if v.p >= netSure {
			break
		}
		if u := r.learned.faces.read(r.faces, pix, w, h, c.x, c.y, c.size*k, faceNetViews); u.p > v.p && u.class <= classStar {
			*v, side = u, c.size*k
		}
	}
	return side
}

// foundDie is a die the learned read found, with what the size check
// needs to know of it.
type foundDie struct {
	Die
	// score is the finder's probability of a die there, 0 for a die only
	// the segmentation found.
	score float64
	// seen is the die's side as the finder measured it (for a die only the
	// segmentation found, its region's side). The die's own Size is its
	// top face's side where the rules isolated the face, and the finder's
	// box, sides and shadow included, elsewhere: the two do not compare.
	seen float64
}

// consistentSizes checks each die's size against the others': the dice of
// one table are one size, give or take the camera's perspective. A die far
// smaller or larger than the median of the confident ones (a speck on the
// table read as a 1, a die's shadow) is dropped when the finder was unsure
// of it and flagged uncertain otherwise.
func (r *Reader) consistentSizes(found []foundDie) []Die {
	dice := make([]Die, 0, len(found))
	var sizes []float64
	for _, f := range found {
		if !f.Uncertain {
			sizes = append(sizes, f.seen)
		}
	}
	if len(sizes) < 3 {
		for _, f := range found {
			dice = append(dice, f.Die)
		}
		return dice
	}
	slices.Sort(sizes)
	med := sizes[len(sizes)/2]
	for _, f := range found {
		d := f.Die
		if ratio := f.seen / med; ratio < netSizeRange || ratio > 1/netSizeRange {
			if f.score < netFinderSure {
				continue
			}
			d.Uncertain = true
			d.Confidence = math.Min(d.Confidence, DefaultMinConfidence-0.001)
		}
		dice = append(dice, d)
	}
	return dice
}

// Models are the reader's learned weights: the rules' face classifier
// (face.json), the dice finder (finder.json) and the face network
// (facenet.json), as `liarsd readtrain` writes them. The reader embeds a
// set; LoadModels reads another, to measure a retrained set before
// committing it.
type Models struct {
	rules   *faceModel
	learned *learnedModels
}

// LoadModels reads face.json, finder.json and facenet.json from dir.
func LoadModels(dir string) (*Models, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("vision: %w", err)
		}
		return b, nil
	}
	face, err := read("face.json")
	if err != nil {
		return nil, err
	}
	var rules faceModel
	if err := json.Unmarshal(face, &rules); err != nil || rules.Hidden == 0 {
		return nil, fmt.Errorf("vision: %s: not a face classifier", filepath.Join(dir, "face.json"))
	}
	finderData, err := read("finder.json")
	if err != nil {
		return nil, err
	}
	facesData, err := read("facenet.json")
	if err != nil {
		return nil, err
	}
	learned, err := parseLearned(finderData, facesData)
	if err != nil {
		return nil, fmt.Errorf("vision: %s: %w", dir, err)
	}
	return &Models{rules: &rules, learned: learned}, nil
}
