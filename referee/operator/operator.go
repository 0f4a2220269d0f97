// Package operator is the operator page's server side: the reads of the
// table it shows (the camera's last read with its frame, every die with
// its seat and its doubt, and the dice the table took for it), kept as
// the table moves, and GET /api/operator/read, which serves them behind
// the operator's login. The page itself is the scoreboard's
// (/operator, docs/operator.md); its commands go to the table over MQTT.
package operator

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/vision"
)

// Read is what the operator page shows of the camera's last read
// of the table: the frame taken at the call, every die the reader found
// with its face, its seat and both witnesses' opinions, and how each
// seat's count compares with the dice it holds. The frame is taken only
// once a reveal (or star-board's opening roll, thrown in the open) is
// awaited, so nothing in it is hidden: it is served after the call and
// never before. It stays until the next hand's first bid, so that an
// accepted reveal can still be corrected.
type Read struct {
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
	Width  int                 `json:"width"`
	Height int                 `json:"height"`
	Dice   []Die               `json:"dice"`
	Seats  []referee.SeatCount `json:"seats"`
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
	Frame Frame `json:"-"`
}

// Die is one die of a read, as the operator page draws it.
type Die struct {
	vision.Die
	// Seat is the seat whose zone holds the die ("" for none).
	Seat string `json:"seat"`
	// Doubt says why the referee will not take this die as read:
	// "uncertain", "no_seat", or "" when it would.
	Doubt string `json:"doubt,omitempty"`
	// Matters reports, for a die in doubt of a weighed read
	// (Read.Weighed), that its doubt could change the verdict.
	Matters bool `json:"matters,omitempty"`
}

// Frame is a captured frame the operator page shows, as JPEG, encoded
// only when the page asks for it, once, away from the reveal's path. Its
// methods are safe from any goroutine.
type Frame interface {
	// JPEG returns the frame as JPEG, or nil.
	JPEG() []byte
	// Size returns the frame's width and height in pixels.
	Size() (w, h int)
}

// JPEGFrame is a frame that is a JPEG already (a frame from a file, a
// page's fixture).
type JPEGFrame struct {
	Data          []byte
	Width, Height int
}

// JPEG returns the frame's JPEG.
func (f JPEGFrame) JPEG() []byte { return f.Data }

// Size returns the frame's size.
func (f JPEGFrame) Size() (w, h int) { return f.Width, f.Height }

// Reads keeps the read the operator page shows: the camera's last read
// (Keep), and the dice the table takes for it, as a follower of the
// table (Follow). The referee's goroutine writes it; LastRead is safe
// from any goroutine. The zero value is ready.
type Reads struct {
	last atomic.Pointer[Read]
	next atomic.Int64
	// Clock tells a read made by hand its time (referee.SystemClock).
	Clock referee.Clock
}

// LastRead returns the table's last read for the operator page, or nil
// when there is none to show (no reveal since the last hand's first bid).
// Safe from any goroutine.
func (rs *Reads) LastRead() *Read {
	return rs.last.Load()
}

// Keep makes rd the read shown, with the next id.
func (rs *Reads) Keep(rd *Read) {
	rd.ID = rs.next.Add(1)
	rs.last.Store(rd)
}

func (rs *Reads) now() time.Time {
	if rs.Clock == nil {
		return time.Now()
	}
	return rs.Clock.Now()
}

// CountsOf lists want as seat counts with nothing seen, sorted by seat.
func CountsOf(want map[string]int) []referee.SeatCount {
	out := make([]referee.SeatCount, 0, len(want))
	for s, n := range want {
		out = append(out, referee.SeatCount{Seat: s, Expected: n})
	}
	slices.SortFunc(out, func(a, b referee.SeatCount) int {
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

// Follow keeps the read in step with an accepted input: a reveal or
// opening roll marks the read it settles as accepted (one with no read,
// from an operator at a table without a camera, gets a read without a
// frame), a correction replaces the accepted dice, and any other accepted
// line (the next hand's first bid, a fold, a leave, a new game) ends it: a
// correction is no longer taken then.
func (rs *Reads) Follow(_ *referee.Desk, c referee.Change) {
	a, before := c.Action, c.Before
	switch a.Type {
	case "": // the table as Run found it
	case engine.ActReveal, engine.ActOpeningRoll:
		var rd Read
		if cur := rs.last.Load(); cur != nil && cur.Kind == a.Type && cur.Game == before.Game && cur.Hand == before.Hand {
			rd = *cur
		} else {
			rd = Read{Kind: a.Type, Game: before.Game, Hand: before.Hand, Dice: []Die{},
				Sides: before.Sides, Star: before.StarDie, ReadAt: UnixMS(rs.now()),
				Message: "no camera read: the dice were entered by hand"}
			want := map[string]int{}
			for seat, faces := range a.Dice {
				want[seat] = len(faces)
			}
			rd.Seats = CountsOf(want)
		}
		rd.Accepted, rd.Source, rd.Unconfirmed = a.Dice, c.Source, a.Unconfirmed
		rs.Keep(&rd)
	case engine.ActCorrect:
		// A correction names every face: no die is unconfirmed after it.
		if cur := rs.last.Load(); cur != nil && cur.Accepted != nil {
			rd := *cur
			rd.Accepted, rd.Source, rd.Unconfirmed = a.Dice, c.Source, nil
			rs.Keep(&rd)
		}
	default:
		rs.last.Store(nil)
	}
}

// UnixMS is t as Unix milliseconds, to the microsecond.
func UnixMS(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }
