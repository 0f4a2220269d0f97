package hardware

import (
	"fmt"
	"sync"
)

// Command is an action from a seat's buttons, in the vocabulary of the game
// record (RECORD.md): Type is "bid", "challenge" or "spot_on". It marshals
// to a record line.
type Command struct {
	Type     string `json:"type"`
	Seat     string `json:"seat"`
	Quantity int    `json:"quantity,omitempty"`
	Face     int    `json:"face,omitempty"`
	// Bluff asks for the bluff check against the next seat (RULINGS.md,
	// classic's computer seats).
	Bluff bool `json:"bluff,omitempty"`
}

// KeypadOptions configures a Keypad.
type KeypadOptions struct {
	// MaxQuantity is the highest quantity the buttons reach (the dice in
	// play at the fullest table, e.g. 30 for six seats of five dice).
	MaxQuantity int
	// Sides is the number of faces (6 for star dice and common dice).
	Sides int
	// ConfirmCalls makes challenge and spot-on need a long press, so that
	// a brushed button does not end a hand; short presses of them are
	// ignored.
	ConfirmCalls bool
	// BluffOnLongBid makes a long press of bid a bid with the bluff check
	// (at a table that plays it); else a long press bids as a short one.
	BluffOnLongBid bool
}

// Keypad turns the presses of the seats' buttons into commands. Each seat
// has a pending quantity and face that its up, down and face buttons change
// and its bid button bids. A Keypad is pure (no I/O) and safe for
// concurrent use; the referee checks the commands against the rules.
type Keypad struct {
	opts KeypadOptions

	mu      sync.Mutex
	pending map[string]*pendingBid
}

type pendingBid struct{ quantity, face int }

// NewKeypad returns a keypad for seats, each with a pending bid of one die
// of face 1.
func NewKeypad(seats []string, opts KeypadOptions) (*Keypad, error) {
	if opts.MaxQuantity < 1 {
		return nil, fmt.Errorf("hardware: keypad needs a maximum quantity of at least 1, not %d", opts.MaxQuantity)
	}
	if opts.Sides < 2 {
		return nil, fmt.Errorf("hardware: keypad needs dice of at least 2 sides, not %d", opts.Sides)
	}
	k := &Keypad{opts: opts, pending: make(map[string]*pendingBid, len(seats))}
	for _, s := range seats {
		k.pending[s] = &pendingBid{1, 1}
	}
	return k, nil
}

// Press applies p to its seat's pending bid and returns the command it
// makes, if any: up and down change the quantity by 1 (5 on a long press)
// within 1..MaxQuantity, face steps to the next face (previous on a long
// press, wrapping around), bid bids the pending quantity and face (with the
// bluff check on a long press, with BluffOnLongBid), and
// challenge and spot-on call. Presses of unknown seats make nothing.
func (k *Keypad) Press(p Press) (Command, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	pb, ok := k.pending[p.Seat]
	if !ok {
		return Command{}, false
	}
	step := 1
	if p.Long {
		step = 5
	}
	switch p.Button {
	case ButtonUp:
		pb.quantity = min(pb.quantity+step, k.opts.MaxQuantity)
	case ButtonDown:
		pb.quantity = max(pb.quantity-step, 1)
	case ButtonFace:
		if p.Long {
			pb.face = (pb.face+k.opts.Sides-2)%k.opts.Sides + 1
		} else {
			pb.face = pb.face%k.opts.Sides + 1
		}
	case ButtonBid:
		return Command{Type: "bid", Seat: p.Seat, Quantity: pb.quantity, Face: pb.face, Bluff: p.Long && k.opts.BluffOnLongBid}, true
	case ButtonChallenge, ButtonSpotOn:
		if k.opts.ConfirmCalls && !p.Long {
			return Command{}, false
		}
		return Command{Type: string(p.Button), Seat: p.Seat}, true
	}
	return Command{}, false
}

// Pending returns seat's pending quantity and face (ok false for an unknown
// seat), for the referee to preview on the board.
func (k *Keypad) Pending(seat string) (quantity, face int, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	pb, ok := k.pending[seat]
	if !ok {
		return 0, 0, false
	}
	return pb.quantity, pb.face, true
}

// SetPending sets every seat's pending bid, typically to the last bid so
// that a raise is a press or two away. Values are clamped to the keypad's
// range.
func (k *Keypad) SetPending(quantity, face int) {
	quantity = min(max(quantity, 1), k.opts.MaxQuantity)
	face = min(max(face, 1), k.opts.Sides)
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, pb := range k.pending {
		pb.quantity, pb.face = quantity, face
	}
}
