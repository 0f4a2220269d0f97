package referee

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/vision"
)

// OperatorRead is what the operator page shows of the camera's last read
// of the table: the frame taken at the call, every die the reader found
// with its face, its seat and both witnesses' opinions, and how each
// seat's count compares with the dice it holds. The frame is taken only
// once a reveal (or star-board's opening roll, thrown in the open) is
// awaited, so nothing in it is hidden: it is served after the call and
// never before. It stays until the next hand's first bid, so that an
// accepted reveal can still be corrected.
type OperatorRead struct {
	// ID tells one read from the next (it grows by one with each read).
	ID   int64  `json:"id"`
	Kind string `json:"kind"` // "reveal" or "opening_roll"
	Game int    `json:"game"`
	Hand int    `json:"hand"`
	// Attempt counts the captures of this reveal, from 1.
	Attempt int `json:"attempt"`
	// ReadAt is when the read finished (Unix time in milliseconds, to the
	// microsecond).
	ReadAt float64 `json:"read_at"`
	// OK says the read was accepted as it was; otherwise Message says
	// what needs a look (or why the camera failed).
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	// Width and Height are the frame's size in pixels (0 without one).
	Width  int         `json:"width"`
	Height int         `json:"height"`
	Dice   []ReadDie   `json:"dice"`
	Seats  []SeatCount `json:"seats"`
	// Sides is the dice's number of faces, Star whether face 1 is a star.
	Sides int  `json:"sides"`
	Star  bool `json:"star,omitempty"`
	// Accepted is the dice the table took for this reveal (the camera's
	// or the operator's), once it took them; Source says whose.
	Accepted map[string][]int `json:"accepted,omitempty"`
	Source   string           `json:"source,omitempty"`
	// Unconfirmed lists, per seat, the positions in Accepted[seat] of the
	// dice the camera did not read for sure when the table took the
	// reveal without a look (no doubt of theirs could change the
	// verdict): their faces there are stand-ins, not reads. A person may
	// still set them with a correction, which confirms every die.
	Unconfirmed map[string][]int `json:"unconfirmed,omitempty"`
	// Weighed reports that the referee weighed the read's doubts against
	// the verdict (engine.Table.Settle): each die's Matters, and
	// UnseenMatters, say which doubts could change it. False for an
	// opening roll, a read without doubt, or one the engine refused.
	Weighed bool `json:"weighed,omitempty"`
	// UnseenMatters names the seats, in name order, whose dice the camera
	// did not see and could change the verdict.
	UnseenMatters []string `json:"unseen_matters,omitempty"`
	// Why says, for a reveal that waits for a look, what its doubt could
	// change, for people ("bob's die could make two 5s true").
	Why string `json:"why,omitempty"`
	// Frame is the frame the dice were read on; nil without one.
	Frame *Frame `json:"-"`
}

// ReadDie is one die of a read, as the operator page draws it.
type ReadDie struct {
	vision.Die
	// Seat is the seat whose zone holds the die ("" for none).
	Seat string `json:"seat"`
	// Doubt says why the referee will not take this die as read:
	// "uncertain", "no_seat", or "" when it would.
	Doubt string `json:"doubt,omitempty"`
	// Matters reports, for a die in doubt of a weighed read
	// (OperatorRead.Weighed), that its doubt could change the verdict.
	Matters bool `json:"matters,omitempty"`
}

// operatorReads holds the last read for the operator page; the referee's
// goroutine writes it, the web server's reads it.
type operatorReads struct {
	last atomic.Pointer[OperatorRead]
	next atomic.Int64
}

// LastRead returns the camera's last read of the table for the operator
// page, or nil when there is none to show (no reveal since the last
// hand's first bid, or no camera). Safe from any goroutine.
func (r *Referee) LastRead() *OperatorRead {
	return r.reads.last.Load()
}

// Frame is a captured frame kept for the operator page and the examples.
// It is encoded as JPEG only when the page asks for it, once, away from
// the reveal's path. Its methods are safe from any goroutine, and on a
// nil Frame; once closed it still gives a JPEG made before.
type Frame struct {
	mu   sync.Mutex
	img  gocv.Mat
	open bool
	jpeg []byte
	w, h int
}

func newFrame(img gocv.Mat) *Frame {
	return &Frame{img: img, open: true, w: img.Cols(), h: img.Rows()}
}

// NewJPEGFrame returns a Frame that is already a JPEG of w by h pixels
// (a frame from a file, a page's fixture).
func NewJPEGFrame(jpeg []byte, w, h int) *Frame { return &Frame{jpeg: jpeg, w: w, h: h} }

// Size returns the frame's width and height in pixels (0, 0 for none).
func (f *Frame) Size() (w, h int) {
	if f == nil {
		return 0, 0
	}
	return f.w, f.h
}

// JPEG returns the frame as JPEG, or nil.
func (f *Frame) JPEG() []byte {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.jpeg == nil && f.open {
		f.jpeg = frameJPEG(f.img)
	}
	return f.jpeg
}

// clone returns a copy of the image, which the caller closes.
func (f *Frame) clone() (gocv.Mat, bool) {
	if f == nil {
		return gocv.Mat{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open {
		return gocv.Mat{}, false
	}
	return f.img.Clone(), true
}

// close frees the image.
func (f *Frame) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open {
		f.img.Close()
		f.open = false
	}
}

// frameJPEG encodes a captured frame for the operator page, or nil.
func frameJPEG(img gocv.Mat) []byte {
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, 80})
	if err != nil {
		return nil
	}
	defer buf.Close()
	return slices.Clone(buf.GetBytes())
}

// keepRead stores a read of the table for the operator page; set, when
// the referee weighed the read's doubts (a reveal in doubt), says which
// of them could change the verdict.
func (r *Referee) keepRead(kind string, attempt int, want map[string]int, frame *Frame, dice []vision.Die, look Look, set *engine.Settlement, err error) {
	snap := r.table.Snapshot()
	rd := &OperatorRead{ID: r.reads.next.Add(1), Kind: kind, Game: snap.Game, Hand: snap.Hand, Attempt: attempt,
		ReadAt: unixMS(r.cfg.Clock.Now()), OK: look.OK, Frame: frame,
		Sides: snap.Sides, Star: snap.StarDie, Dice: []ReadDie{}, Seats: look.Counts}
	rd.Width, rd.Height = frame.Size()
	switch {
	case err != nil:
		rd.Message = "the camera failed: " + err.Error()
	case !look.OK:
		rd.Message = look.Message()
	}
	if rd.Seats == nil {
		rd.Seats = countsOf(want)
	}
	if set != nil {
		rd.Weighed, rd.Why = true, set.Why
	}
	// The settlement's Matters are per seat, its read dice in the
	// reader's order (as SettleRead gives them), then its unseen dice.
	at := map[string]int{}
	for _, d := range dice {
		rdie := ReadDie{Die: d}
		seat, ok := r.cfg.Zones.SeatOf(d)
		switch {
		case !ok:
			rdie.Doubt = "no_seat"
		default:
			rdie.Seat = seat
			if _, inHand := want[seat]; !inHand {
				continue // a folded or computer seat's zone: not this reveal's
			}
			i := at[seat]
			at[seat]++
			if d.Uncertain || d.Face < 1 {
				rdie.Doubt = "uncertain"
				if set != nil && i < len(set.Matters[seat]) {
					rdie.Matters = set.Matters[seat][i]
				}
			}
		}
		rd.Dice = append(rd.Dice, rdie)
	}
	if set != nil {
		for seat := range want {
			if m := set.Matters[seat]; at[seat] < len(m) && slices.Contains(m[at[seat]:], true) {
				rd.UnseenMatters = append(rd.UnseenMatters, seat)
			}
		}
		slices.Sort(rd.UnseenMatters)
	}
	r.reads.last.Store(rd)
}

// countsOf lists want as seat counts with nothing seen, sorted by seat.
func countsOf(want map[string]int) []SeatCount {
	out := make([]SeatCount, 0, len(want))
	for s, n := range want {
		out = append(out, SeatCount{Seat: s, Expected: n})
	}
	slices.SortFunc(out, func(a, b SeatCount) int {
		if a.Seat < b.Seat {
			return -1
		}
		if a.Seat > b.Seat {
			return 1
		}
		return 0
	})
	return out
}

// noteRead keeps the operator's read in step with an accepted input: a
// reveal or opening roll marks the read it settles as accepted (one with
// no read, from an operator at a table without a camera, gets a read
// without a frame), a correction replaces the accepted dice, and any other
// accepted line (the next hand's first bid, a fold, a leave, a new game)
// ends it: a correction is no longer taken then.
func (r *Referee) noteRead(a engine.Action, source string, before engine.Snapshot) {
	switch a.Type {
	case engine.ActReveal, engine.ActOpeningRoll:
		var rd OperatorRead
		if cur := r.reads.last.Load(); cur != nil && cur.Kind == a.Type && cur.Game == before.Game && cur.Hand == before.Hand {
			rd = *cur
		} else {
			rd = OperatorRead{Kind: a.Type, Game: before.Game, Hand: before.Hand, Dice: []ReadDie{},
				Sides: before.Sides, Star: before.StarDie, ReadAt: unixMS(r.cfg.Clock.Now()),
				Message: "no camera read: the dice were entered by hand"}
			want := map[string]int{}
			for seat, faces := range a.Dice {
				want[seat] = len(faces)
			}
			rd.Seats = countsOf(want)
		}
		rd.ID = r.reads.next.Add(1)
		rd.Accepted, rd.Source, rd.Unconfirmed = a.Dice, source, a.Unconfirmed
		r.reads.last.Store(&rd)
	case engine.ActCorrect:
		// A correction names every face: no die is unconfirmed after it.
		if cur := r.reads.last.Load(); cur != nil && cur.Accepted != nil {
			rd := *cur
			rd.ID = r.reads.next.Add(1)
			rd.Accepted, rd.Source, rd.Unconfirmed = a.Dice, source, nil
			r.reads.last.Store(&rd)
		}
	default:
		r.reads.last.Store(nil)
		r.dropFrame()
	}
}

// unixMS is t as Unix milliseconds, to the microsecond.
func unixMS(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }
