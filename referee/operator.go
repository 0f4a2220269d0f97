package referee

import (
	"slices"
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
	// Frame is the JPEG of the frame; nil without one.
	Frame []byte `json:"-"`
}

// ReadDie is one die of a read, as the operator page draws it.
type ReadDie struct {
	vision.Die
	// Seat is the seat whose zone holds the die ("" for none).
	Seat string `json:"seat"`
	// Doubt says why the referee will not take this die as read:
	// "uncertain", "no_seat", or "" when it would.
	Doubt string `json:"doubt,omitempty"`
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

// frameJPEG encodes a captured frame for the operator page, or nil.
func frameJPEG(img gocv.Mat) (b []byte, w, h int) {
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, 80})
	if err != nil {
		return nil, 0, 0
	}
	defer buf.Close()
	return slices.Clone(buf.GetBytes()), img.Cols(), img.Rows()
}

// keepRead stores a read of the table for the operator page.
func (r *Referee) keepRead(kind string, attempt int, want map[string]int, fr jpegFrame, dice []vision.Die, look Look, err error) {
	snap := r.table.Snapshot()
	rd := &OperatorRead{ID: r.reads.next.Add(1), Kind: kind, Game: snap.Game, Hand: snap.Hand, Attempt: attempt,
		ReadAt: unixMS(r.cfg.Clock.Now()), OK: look.OK, Frame: fr.jpeg, Width: fr.w, Height: fr.h,
		Sides: snap.Sides, Star: snap.StarDie, Dice: []ReadDie{}, Seats: look.Counts}
	switch {
	case err != nil:
		rd.Message = "the camera failed: " + err.Error()
	case !look.OK:
		rd.Message = look.Message()
	}
	if rd.Seats == nil {
		rd.Seats = countsOf(want)
	}
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
			if d.Uncertain || d.Face < 1 {
				rdie.Doubt = "uncertain"
			}
		}
		rd.Dice = append(rd.Dice, rdie)
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
		rd.Accepted, rd.Source = a.Dice, source
		r.reads.last.Store(&rd)
	case engine.ActCorrect:
		if cur := r.reads.last.Load(); cur != nil && cur.Accepted != nil {
			rd := *cur
			rd.ID = r.reads.next.Add(1)
			rd.Accepted, rd.Source = a.Dice, source
			r.reads.last.Store(&rd)
		}
	default:
		r.reads.last.Store(nil)
	}
}

// jpegFrame is a captured frame, encoded for the operator page.
type jpegFrame struct {
	jpeg []byte
	w, h int
}

// unixMS is t as Unix milliseconds, to the microsecond.
func unixMS(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }
