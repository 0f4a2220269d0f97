package camera

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/vision"
)

// SeatPosition is where a seat's dice lie in the camera's image, in pixels.
type SeatPosition struct {
	Name string  `json:"name" yaml:"name"`
	X    float64 `json:"x" yaml:"x"`
	Y    float64 `json:"y" yaml:"y"`
}

// Zones tells which seat a die in the image belongs to. A calibration's seat
// zones implement it; NearestSeat is the fallback without calibration.
type Zones interface {
	// SeatOf returns the seat of a die, or false when the die lies in no
	// seat's zone.
	SeatOf(d vision.Die) (string, bool)
}

// NearestSeat assigns a die to the nearest seat position. A die farther
// than MaxDistance from every seat (0: no limit) belongs to none.
type NearestSeat struct {
	Positions   []SeatPosition
	MaxDistance float64
}

// SeatOf returns the nearest seat to d.
func (n NearestSeat) SeatOf(d vision.Die) (string, bool) {
	best, bestDist := "", math.Inf(1)
	for _, p := range n.Positions {
		if dist := math.Hypot(d.X-p.X, d.Y-p.Y); dist < bestDist {
			best, bestDist = p.Name, dist
		}
	}
	if best == "" || (n.MaxDistance > 0 && bestDist > n.MaxDistance) {
		return "", false
	}
	return best, true
}

// Look is the outcome of checking one read of the table against the dice
// in play. When OK, Dice is the reveal; otherwise Doubts and Counts say
// what needs a look.
type Look struct {
	OK     bool
	Dice   map[string][]int
	Doubts []referee.Doubt
	Counts []referee.SeatCount
	// Why says, for a reveal in doubt, what its doubt could change
	// ("bob's die could make two 5s true"); empty when that is not known.
	Why string
}

// Message describes a look that is not OK, for people: how many dice are
// in doubt and at which seats, and each seat whose count is off.
func (l Look) Message() string {
	if l.OK {
		return "the read matches the dice in play"
	}
	var parts []string
	if len(l.Doubts) > 0 {
		var where []string
		for _, d := range l.Doubts {
			w := d.Seat
			if w == "" {
				w = "outside every seat"
			}
			if !slices.Contains(where, w) {
				where = append(where, w)
			}
		}
		parts = append(parts, fmt.Sprintf("%s in doubt (%s)", diceCount(len(l.Doubts)), strings.Join(where, ", ")))
	}
	for _, c := range l.Counts {
		if c.Seen != c.Expected {
			parts = append(parts, fmt.Sprintf("%s has %s, %d seen", c.Seat, diceCount(c.Expected), c.Seen))
		}
	}
	msg := strings.Join(parts, "; ")
	if l.Why != "" {
		msg += ": " + l.Why
	}
	return msg
}

// diceCount says n dice in words: "1 die", "2 dice".
func diceCount(n int) string {
	if n == 1 {
		return "1 die"
	}
	return fmt.Sprintf("%d dice", n)
}

// CheckRead assigns each die read to its seat and checks the result against
// want, the number of dice each seat in the hand holds. Dice of seats that
// are not in the hand (folded, out) are ignored and never reported. The
// reveal is OK only when no die of the hand is uncertain, no die lies
// outside every zone, and every seat's count matches. The faces of each
// seat keep the reader's order.
func CheckRead(dice []vision.Die, zones Zones, want map[string]int) Look {
	look := Look{Dice: make(map[string][]int, len(want))}
	for _, d := range dice {
		seat, ok := zones.SeatOf(d)
		if !ok {
			look.Doubts = append(look.Doubts, referee.Doubt{X: round1(d.X), Y: round1(d.Y), Confidence: d.Confidence, Reason: "no_seat"})
			continue
		}
		if _, inHand := want[seat]; !inHand {
			continue
		}
		if d.Uncertain || d.Face < 1 {
			look.Doubts = append(look.Doubts, referee.Doubt{Seat: seat, X: round1(d.X), Y: round1(d.Y), Confidence: d.Confidence, Reason: "uncertain"})
		}
		look.Dice[seat] = append(look.Dice[seat], d.Face)
	}
	seats := make([]string, 0, len(want))
	for s := range want {
		seats = append(seats, s)
	}
	sort.Strings(seats)
	countsOK := true
	for _, s := range seats {
		c := referee.SeatCount{Seat: s, Expected: want[s], Seen: len(look.Dice[s])}
		look.Counts = append(look.Counts, c)
		if c.Seen != c.Expected {
			countsOK = false
		}
		if look.Dice[s] == nil {
			look.Dice[s] = []int{}
		}
	}
	look.OK = countsOK && len(look.Doubts) == 0
	if !look.OK {
		look.Dice = nil // faces of a read in doubt go nowhere
	}
	return look
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// SettleRead gives the engine a read of the reveal that is in doubt, seat
// by seat in the reader's order: a die read confidently is sure of its
// face, a die in doubt may show the faces the reader lists for it
// (vision.Die.Likely; its face alone when it lists none). Dice outside
// every zone, and those of seats not in want, are left out: a seat with
// too few dice has the rest as unseen, any face.
func SettleRead(dice []vision.Die, zones Zones, want map[string]int) map[string][]engine.ReadDie {
	out := make(map[string][]engine.ReadDie, len(want))
	for seat := range want {
		out[seat] = []engine.ReadDie{}
	}
	for _, d := range dice {
		seat, ok := zones.SeatOf(d)
		if _, inHand := want[seat]; !ok || !inHand {
			continue
		}
		if !d.Uncertain && d.Face >= 1 {
			out[seat] = append(out[seat], engine.ReadDie{Faces: []int{d.Face}, Sure: true})
			continue
		}
		var faces []int // none listed: any face
		for _, o := range d.Likely {
			if !slices.Contains(faces, o.Face) {
				faces = append(faces, o.Face)
			}
		}
		out[seat] = append(out[seat], engine.ReadDie{Faces: faces})
	}
	return out
}

// markMatters marks the look's doubts whose dice could change the verdict
// (matters: the engine's, per seat in the order of SettleRead).
func (l *Look) markMatters(dice []vision.Die, zones Zones, want map[string]int, matters map[string][]bool) {
	at := map[string]int{}
	k := 0
	for _, d := range dice {
		seat, ok := zones.SeatOf(d)
		if _, inHand := want[seat]; !ok || !inHand {
			if !ok {
				k++ // a no_seat doubt
			}
			continue
		}
		i := at[seat]
		at[seat]++
		if d.Uncertain || d.Face < 1 {
			if k < len(l.Doubts) && i < len(matters[seat]) {
				l.Doubts[k].Matters = matters[seat][i]
			}
			k++
		}
	}
}

// CalibratedZones assigns dice by a calibration's seat zones (on the board,
// in millimetres, through the board's measured geometry): the seat whose
// zone holds the die, else the nearest seat's centre. Without a measured
// board it falls back on Fallback.
type CalibratedZones struct {
	File     *calibration.File
	Fallback Zones
}

// SeatOf returns the seat of d.
func (z CalibratedZones) SeatOf(d vision.Die) (string, bool) {
	if z.File != nil {
		if seat, _, ok := z.File.SeatOf(d.X, d.Y); ok {
			return seat, true
		}
	}
	if z.Fallback != nil {
		return z.Fallback.SeatOf(d)
	}
	return "", false
}

// ZonesFor is the seat zones of a table: the nearest of the configured
// seat positions (within maxDistance; none without positions), through
// the calibration's seat zones when there is a calibration.
func ZonesFor(positions []SeatPosition, maxDistance float64, cal *calibration.File) Zones {
	var nearest Zones
	if len(positions) > 0 {
		nearest = NearestSeat{Positions: positions, MaxDistance: maxDistance}
	}
	if cal != nil {
		return CalibratedZones{File: cal, Fallback: nearest}
	}
	return nearest
}
