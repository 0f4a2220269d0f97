package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// readSynthetic renders the random tables of seeds seed to seed+n-1 with
// opts, reads each, and hands fn the seed, the image (closed after fn),
// the truth and the dice read.
func readSynthetic(ctx context.Context, reader *vision.Reader, seed int64, n int, opts synth.RandomOptions, fn func(s uint64, img *gocv.Mat, truth, dice []vision.Die)) error {
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := uint64(seed) + uint64(i)
		img, truth, err := synth.Render(synth.Random(s, opts))
		if err != nil {
			return err
		}
		dice, err := reader.Read(img)
		if err != nil {
			img.Close()
			return err
		}
		fn(s, &img, truth, dice)
		img.Close()
	}
	return nil
}

// synthKind returns the options of synthetic tables of star dice (a third
// of the dice show the star, in all three artworks), every die marbled or
// glossy, or every table saved as a small JPEG, when kind says so
// ("marbled", "glossy", "jpeg"; else "synth").
func synthKind(kind string) synth.RandomOptions {
	opts := synth.RandomOptions{StarShare: 1.0 / 3}
	switch kind {
	case "marbled":
		opts.Marbled = 1
	case "glossy":
		opts.Glossy = 1
	case "jpeg":
		opts.JPEG = 1
	}
	return opts
}

// smallDiceSides are the sides, in pixels, of readbench -small's tables:
// dice a camera sees too small to read (under 16 px) and just large
// enough.
var smallDiceSides = []float64{10, 12, 14, 16, 20, 24}

// smallDice returns the options of a 640x480 table of 20 star dice of the
// given side.
func smallDice(side float64) synth.RandomOptions {
	return synth.RandomOptions{Width: 640, Height: 480, Dice: 20, DieSize: side, StarShare: 1.0 / 3}
}

// benchSynthetic reads n synthetic tables made with opts and scores the
// reads; kind names them in the listing and the annotated images.
func benchSynthetic(ctx context.Context, reader *vision.Reader, seed int64, n int, kind string, opts synth.RandomOptions, annotate string, verbose bool, out io.Writer) (vision.Score, error) {
	var total vision.Score
	err := readSynthetic(ctx, reader, seed, n, opts, func(s uint64, img *gocv.Mat, truth, dice []vision.Die) {
		score, errs := vision.Compare(dice, truthLabels(truth))
		total.Add(score)
		if verbose {
			for _, e := range errs {
				fmt.Fprintf(out, "%s seed %d: %s\n", kind, s, e)
			}
		}
		if annotate != "" && len(errs) > 0 {
			vision.Annotate(img, dice)
			gocv.IMWrite(filepath.Join(annotate, fmt.Sprintf("%s-%d.png", kind, s)), *img)
		}
	})
	return total, err
}

// cockedScore tallies the reads of cocked dice, whose top face a camera
// above cannot be sure of: flagged uncertain or missed is right; read
// right despite it is lucky; read wrong without a flag is the failure.
type cockedScore struct {
	Cocked, Flagged, Missed, Right, Wrong int
}

func (s cockedScore) String() string {
	return fmt.Sprintf("%d cocked dice: %d flagged uncertain, %d missed, %d read right anyway, %d confidently wrong (%.2f%%)",
		s.Cocked, s.Flagged, s.Missed, s.Right, s.Wrong, 100*float64(s.Wrong)/float64(max(s.Cocked, 1)))
}

// benchCocked reads n synthetic tables with a quarter of their dice
// cocked (leaning 20 to 60 degrees) and scores the cocked dice's reads.
func benchCocked(ctx context.Context, reader *vision.Reader, seed int64, n int, verbose bool, out io.Writer) (cockedScore, error) {
	var total cockedScore
	err := readSynthetic(ctx, reader, seed, n, synth.RandomOptions{StarShare: 1.0 / 3, Cocked: 0.25}, func(s uint64, _ *gocv.Mat, truth, dice []vision.Die) {
		for _, want := range truth {
			if !want.Uncertain {
				continue
			}
			total.Cocked++
			got, bd := -1, want.Size/2
			for j, d := range dice {
				if dd := math.Hypot(d.X-want.X, d.Y-want.Y); dd < bd {
					got, bd = j, dd
				}
			}
			switch {
			case got < 0:
				total.Missed++
			case dice[got].Uncertain:
				total.Flagged++
			case dice[got].Face == want.Face && dice[got].Star == want.Star:
				total.Right++
			default:
				total.Wrong++
				if verbose {
					fmt.Fprintf(out, "cocked seed %d: WRONG %v (is %v)\n", s, dice[got], want)
				}
			}
		}
	})
	return total, err
}

// truthLabels turns a synthetic scene's truth into labels with boxes.
func truthLabels(truth []vision.Die) []vision.Label {
	labels := make([]vision.Label, 0, len(truth))
	for _, d := range truth {
		h := d.Size / 2
		labels = append(labels, vision.Label{
			Face: d.Face, Star: d.Star,
			Box: vision.Box{MinX: d.X - h, MinY: d.Y - h, MaxX: d.X + h, MaxY: d.Y + h},
		})
	}
	return labels
}

// benchSpeed times n reads of one 1280x720 synthetic table of 30 dice and
// returns the median wall time and the mean CPU time of the process per
// read, in milliseconds. On a busy machine the CPU time is the steadier.
func benchSpeed(ctx context.Context, reader *vision.Reader, n int) (median, cpu float64, err error) {
	img, _, err := synth.Render(speedScene())
	if err != nil {
		return 0, 0, err
	}
	defer img.Close()
	times := make([]float64, 0, n)
	cpuStart := cpuTime()
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		start := time.Now()
		if _, err := reader.Read(img); err != nil {
			return 0, 0, err
		}
		times = append(times, float64(time.Since(start).Microseconds())/1000)
	}
	cpu = float64((cpuTime() - cpuStart).Microseconds()) / 1000 / float64(n)
	sort.Float64s(times)
	return times[len(times)/2], cpu, nil
}

// speedScene is the 1280x720 table of 30 dice the speed run reads.
func speedScene() synth.Scene {
	return synth.Random(7, synth.RandomOptions{Width: 1280, Height: 720, Dice: 30})
}

// speedDieSize is the extent of the speed scene's dice as a table's
// calibration gives it: a die lies at any turn, on average 1.27 times as
// wide as its side.
func speedDieSize() float64 { return 1.27 * speedScene().DieSize }

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// variedSeed is the first seed of the held-out varied tables: make train
// renders its tables from seed 1,000,000 on, so these are never trained on.
const variedSeed = 900000

// benchVaried reads n held-out varied tables (synth.Varied from
// variedSeed) and scores them on their whole dice.
func benchVaried(ctx context.Context, reader *vision.Reader, n int, annotate string, verbose bool, out io.Writer) (vision.Score, offTopScore, error) {
	var total vision.Score
	var off offTopScore
	for i := 0; i < n; i++ {
		c, img, err := readVaried(ctx, reader, uint64(variedSeed+i))
		if err != nil {
			return total, off, err
		}
		score, errs := c.score(c.dice)
		total.Add(score)
		o := offTop(c.dice, c.tops)
		off.Dice += o.Dice
		off.Read += o.Read
		off.Sure += o.Sure
		if verbose {
			for _, e := range errs {
				fmt.Fprintf(out, "varied seed %d: %s\n", c.seed, e)
			}
			for _, d := range o.reads {
				fmt.Fprintf(out, "varied seed %d: off a top face %v\n", c.seed, d)
			}
		}
		if annotate != "" && len(errs) > 0 {
			vision.Annotate(&img, c.dice)
			gocv.IMWrite(filepath.Join(annotate, fmt.Sprintf("varied-%d.png", c.seed)), img)
		}
		img.Close()
	}
	return total, off, nil
}

// offTopScore counts, on tilted tables, the dice read off a die's top
// face: the reported die lies within a die's whole box (its sides
// included) but away from its top face, so a side face was read as a die.
type offTopScore struct {
	Dice int // labelled dice
	Read int // reads off a die's top face
	Sure int // of them, read confidently
	// reads are the dice read off a top face (of one table: benchVaried
	// lists them with -v).
	reads []vision.Die
}

func (s offTopScore) String() string {
	return fmt.Sprintf("%d reads off a top face of %d dice (a side face read as a die), %d of them confident", s.Read, s.Dice, s.Sure)
}

// offTop counts the dice read off the top face of one of tops: a reported
// die whose centre lies in a die's box but more than offTopDistance of
// its top face's side from its top face's centre, and within no other
// die's top face.
func offTop(dice []vision.Die, tops []synth.Label) offTopScore {
	s := offTopScore{Dice: len(tops)}
	for _, d := range dice {
		onTop, inBox := false, false
		for _, t := range tops {
			if math.Hypot(d.X-t.X, d.Y-t.Y) <= offTopDistance*t.Size {
				onTop = true
				break
			}
			if d.X >= t.Box.MinX && d.X <= t.Box.MaxX && d.Y >= t.Box.MinY && d.Y <= t.Box.MaxY {
				inBox = true
			}
		}
		if inBox && !onTop {
			s.reads = append(s.reads, d)
			s.Read++
			if !d.Uncertain {
				s.Sure++
			}
		}
	}
	return s
}

// offTopDistance is how far from a top face's centre, in its side, a read
// is taken to be of another face: a top face's corner lies at 0.71.
const offTopDistance = 0.75

// variedRead is one held-out varied table as the reader read it: the dice
// it reported, the labelled dice it must read, and the doubtful ones
// (cocked, hidden, under minReadableTruth) that it need not.
type variedRead struct {
	seed     uint64
	dice     []vision.Die
	labels   []vision.Label
	doubtful []vision.Die
	// tops are every die of the table: its top face's centre and side
	// and its whole box.
	tops []synth.Label
}

// readVaried renders the varied table of seed and reads it; the caller
// closes the image.
func readVaried(ctx context.Context, reader *vision.Reader, seed uint64) (variedRead, gocv.Mat, error) {
	if err := ctx.Err(); err != nil {
		return variedRead{}, gocv.Mat{}, err
	}
	img, truth, err := synth.RenderLabelled(synth.Varied(seed, 0, 0))
	if err != nil {
		return variedRead{}, gocv.Mat{}, err
	}
	dice, err := reader.Read(img)
	if err != nil {
		img.Close()
		return variedRead{}, gocv.Mat{}, err
	}
	c := variedRead{seed: seed, dice: dice, tops: truth}
	for _, l := range truth {
		if l.Uncertain || l.Size < minReadableTruth {
			c.doubtful = append(c.doubtful, l.Die)
			continue
		}
		c.labels = append(c.labels, vision.Label{Face: l.Face, Star: l.Star,
			Box: vision.Box{MinX: l.Box.MinX, MinY: l.Box.MinY, MaxX: l.Box.MaxX, MaxY: l.Box.MaxY}})
	}
	return c, img, nil
}

// score scores dice read on the table. A read on a doubtful die is no
// phantom: it is scored apart (a confident read of one is wrong unless
// right).
func (c variedRead) score(dice []vision.Die) (vision.Score, []string) {
	var wrong vision.Score
	var errs []string
	var kept []vision.Die
	for _, d := range dice {
		if j := nearestTruth(c.doubtful, d); j >= 0 {
			if !d.Uncertain && (d.Face != c.doubtful[j].Face || d.Star != c.doubtful[j].Star) {
				wrong.Wrong++
				errs = append(errs, fmt.Sprintf("WRONG on a doubtful die %v (is %v)", d, c.doubtful[j]))
			}
			continue
		}
		kept = append(kept, d)
	}
	score, more := vision.Compare(kept, c.labels)
	score.Add(wrong)
	return score, append(errs, more...)
}

// minReadableTruth is the top-face side, px, under which a synthetic die
// is not expected to be read (the reader trusts no die under 16 px of
// extent).
const minReadableTruth = 14

// nearestTruth is the index of the die of truth whose centre is within
// half its size of d's, or -1.
func nearestTruth(truth []vision.Die, d vision.Die) int {
	best, bd := -1, math.Inf(1)
	for j, t := range truth {
		if dd := math.Hypot(d.X-t.X, d.Y-t.Y); dd < math.Max(t.Size, 8)/2 && dd < bd {
			best, bd = j, dd
		}
	}
	return best
}
