package engine

// Event is one of the referee's outputs (RECORD.md). Every event starts with
// its Header, so that its JSON begins with "type" and "seq".
type Event interface {
	Head() *Header
}

// Header holds the fields every event has.
type Header struct {
	Type string `json:"type"`
	Seq  int    `json:"seq"`
}

// Head returns the event's header.
func (h *Header) Head() *Header { return h }

// The event types of RECORD.md.
const (
	EvRejected    = "rejected"
	EvHandStarted = "hand_started"
	EvFolded      = "folded"
	EvRevealed    = "revealed"
	EvResolved    = "resolved"
	EvLeft        = "left"
	EvGameOver    = "game_over"
	EvMatchOver   = "match_over"
	EvBluffCheck  = "bluff_check"
)

// Rejected reports a refused record line.
type Rejected struct {
	Header
	Line    int    `json:"line"`
	Reason  Reason `json:"reason"`
	Message string `json:"message"`
}

// HandStarted opens a hand: who opens and how many dice each seat in the
// hand holds.
type HandStarted struct {
	Header
	Game   int            `json:"game"`
	Hand   int            `json:"hand"`
	Opener string         `json:"opener"`
	Dice   map[string]int `json:"dice"`
	// Palifico says whether the hand is a palifico hand (perudo: no wilds,
	// the face locked after the first bid); nil in presets without one.
	Palifico *bool `json:"palifico,omitempty"`
}

// Folded reports a tavern fold: the die it cost and whether the seat is out.
type Folded struct {
	Header
	Seat string         `json:"seat"`
	Dice map[string]int `json:"dice"`
	Out  []string       `json:"out"`
}

// Revealed carries the dice of a reveal as accepted, right before its
// Resolved.
type Revealed struct {
	Header
	Dice map[string][]int `json:"dice"`
	// Unconfirmed lists, per seat, the positions in Dice[seat] of the dice
	// the camera did not read for sure (the reveal's own list): no doubt of
	// theirs could change the resolution, and their faces here are
	// stand-ins, not reads.
	Unconfirmed map[string][]int `json:"unconfirmed,omitempty"`
}

// BidView is a bid as events show it.
type BidView struct {
	Quantity int `json:"quantity"`
	Face     int `json:"face"`
}

// Resolved reports the outcome of a call, or of a hand ended by folds.
type Resolved struct {
	Header
	Call   string   `json:"call"`
	Bidder string   `json:"bidder,omitempty"`
	Caller string   `json:"caller,omitempty"`
	Bid    *BidView `json:"bid,omitempty"`
	Count  *int     `json:"count,omitempty"`
	// Dice is each seat's change in its number of dice, zeros left out.
	Dice map[string]int `json:"dice"`
	// Out lists the seats that left play because of this resolution.
	Out        []string       `json:"out"`
	Payout     map[string]int `json:"payout,omitempty"`
	RunningPot *int           `json:"running_pot,omitempty"`
}

// Left reports an accepted leave.
type Left struct {
	Header
	Seat string `json:"seat"`
}

// GameOver ends a game (in endurance, a round).
type GameOver struct {
	Header
	Game   int    `json:"game"`
	Winner string `json:"winner"`
	// Pot is what the winner took, where chips are played.
	Pot *int `json:"pot,omitempty"`
}

// MatchOver ends an endurance match.
type MatchOver struct {
	Header
	Winner string         `json:"winner"`
	Wins   map[string]int `json:"wins"`
}

// BluffCheck reports a person's bluff check against a computer seat: d20 +
// the person's bonus against d20 + the seat's insight. On success the
// computer seat takes its second-best option on its next turn.
type BluffCheck struct {
	Header
	Seat       string `json:"seat"`
	Target     string `json:"target"`
	Roll       int    `json:"roll"`
	Bonus      int    `json:"bonus"`
	TargetRoll int    `json:"target_roll"`
	Insight    int    `json:"insight"`
	Success    bool   `json:"success"`
}
