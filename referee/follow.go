package referee

import (
	"slices"
	"time"

	"github.com/liarsd/liarsd/engine"
)

// Follower follows the table: the board, the operator page's reads, the
// camera's adapter, the computer seats, an observer. Follow is called on
// the referee's goroutine, once when Run starts (the Change's Action has
// no Type) and after each accepted input, once the journal holds it and
// its events and the state are published. It must not block.
type Follower interface {
	Follow(d *Desk, c Change)
}

// Change is what an accepted input did, for followers.
type Change struct {
	// Line is the record line taken, without its id; Action what it says.
	Line   []byte
	Action engine.Action
	Source string
	Events []engine.Event
	// Snapshot is the table after the input.
	Snapshot engine.Snapshot
	// Before is the table before a reveal or an opening roll (the hand
	// its dice were for); zero for other inputs.
	Before engine.Snapshot
	// Game is the game's number in the table's journal (the state's
	// game_number).
	Game int
	// Version counts the inputs accepted so far, this one included: the
	// table changes only with them.
	Version int
}

// Start reports whether the change is the table as Run found it, not an
// input.
func (c Change) Start() bool { return c.Action.Type == "" }

// observer is Config.Observe as a follower: told of accepted inputs only.
type observer func(Change)

func (o observer) Follow(_ *Desk, c Change) {
	if !c.Start() {
		o(c)
	}
}

// Desk is the table as the referee's adapters work at it: what they read
// of it and the inputs they take there, on the referee's goroutine. A
// Follower is handed it with each change, and Post hands it to a function
// from any goroutine. Its methods but Post are for the referee's
// goroutine only: inside Follow, or a function given to Post.
type Desk struct{ r *Referee }

// Post runs f on the referee's goroutine, from any goroutine. It never
// blocks, and gives up once Run is over.
func (d *Desk) Post(f func(*Desk)) { d.r.post(func() { f(d) }) }

// Snapshot returns the table's public state.
func (d *Desk) Snapshot() engine.Snapshot { return d.r.table.Snapshot() }

// Version counts the inputs accepted so far: a read of the table made
// while it stays the same still fits.
func (d *Desk) Version() int { return d.r.accepted }

// Status returns the table's status.
func (d *Desk) Status() Status { return d.r.status }

// Awaited says which dice the table waits for from the table itself: the
// reveal after a call, or star-board's opening roll (every still-tied seat
// rolls all its dice in the open). want holds the dice of the people's
// seats, whose dice a camera reads (a computer seat's dice are the
// engine's); kind is "" when nothing is awaited.
func (d *Desk) Awaited() (kind string, want map[string]int) {
	r := d.r
	snap := r.table.Snapshot()
	switch snap.Phase {
	case engine.PhaseReveal:
		return engine.ActReveal, physical(snap, r.table.DiceInPlay())
	case engine.PhaseOpening:
		want = map[string]int{}
		for _, st := range snap.Seats {
			if slices.Contains(snap.Rolling, st.Name) {
				want[st.Name] = st.Dice
			}
		}
		return engine.ActOpeningRoll, physical(snap, want)
	}
	return "", nil
}

// physical leaves out of a hand's dice the computer seats', which the
// engine holds: the camera sees only people's dice.
func physical(snap engine.Snapshot, want map[string]int) map[string]int {
	for _, st := range snap.Seats {
		if st.Computer {
			delete(want, st.Name)
		}
	}
	return want
}

// LastRoll returns the game's last accepted opening roll (nil for none):
// after a tie the tied seats roll again, and until they do, the table
// still shows the roll that tied.
func (d *Desk) LastRoll() map[string][]int { return d.r.lastRoll }

// Settle asks the engine whether a read of the reveal with dice in doubt
// settles the call whatever they show (engine.Table.Settle).
func (d *Desk) Settle(read map[string][]engine.ReadDie) (engine.Settlement, *engine.Rejection) {
	return d.r.table.Settle(read)
}

// Take takes an input now, as the referee takes one from its queue, and
// returns its answer.
func (d *Desk) Take(in Input) Reply { return d.r.apply(in) }

// NeedsLook is what the camera asks a person to look at: a read of the
// dice the referee will not adjudicate on. It never holds a face.
type NeedsLook struct {
	// Attempt counts the captures of this reveal, from 1.
	Attempt int
	// Message says what needs a look, for people.
	Message string
	Seats   []SeatCount
	Dice    []Doubt
	// Retry is how long until the camera captures again.
	Retry time.Duration
}

// AskForLook shows that the table needs a look while it stays as it is:
// the status (and the board's status light), the state's look and the
// vision topic's message say what is in doubt. An operator's reveal or
// opening roll is accepted meanwhile.
func (d *Desk) AskForLook(l NeedsLook) { d.r.askForLook(l) }
