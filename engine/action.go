package engine

// Action is one line of a game record: an input to the referee. Which fields
// matter depends on Type; the record package decodes them from JSON and
// refuses a field of the wrong type before the engine sees it.
type Action struct {
	Type string

	// Seat is the acting seat (bid, show, challenge, spot_on, fold, all_in,
	// leave).
	Seat string
	// Quantity and Face are a bid's. In star-board, face 1 is the star.
	Quantity int
	Face     int
	// Stake is what a tavern seat pays with its bid or challenge; nil means
	// the current stake.
	Stake *int
	// Shown are the faces a star-board bidder sets out face up.
	Shown []int
	// Dice are each seat's faces, for reveal and opening_roll.
	Dice map[string][]int
	// Unconfirmed lists, per seat, the positions in Dice[seat] of a
	// reveal's dice the camera did not read for sure: their doubt could not
	// change the resolution (Table.Settle), and the events mark them.
	Unconfirmed map[string][]int

	// Bluff asks for a bluff check against the next seat, a computer seat,
	// with this bid.
	Bluff bool

	// The fields of new_game.
	Rules string
	Seats []string
	First string
	// EmptyFirst is a first given as "": no seat, so unknown_seat, where
	// a First left out lets the game choose.
	EmptyFirst bool
	Seed       int64
	Options    Options
	// Computer names the seats the referee plays. Their dice are rolled
	// from the game's seed and stay hidden until the reveal.
	Computer map[string]ComputerSeat
	// BluffBonus is each person's bonus to the bluff check.
	BluffBonus map[string]int
	// BluffCheck turns the bluff check on or off; nil takes the preset's
	// default (on in classic).
	BluffCheck *bool
}

// ComputerSeat describes a seat the referee plays.
type ComputerSeat struct {
	// Insight is added to its d20 against a person's bluff check.
	Insight int
	// Level names its strategy; the engine does not read it.
	Level string
}

// Limits on the bluff check's numbers.
const (
	MaxInsight    = 20
	MaxBluffBonus = 20
)

// The action types of RECORD.md.
const (
	ActNewGame     = "new_game"
	ActOpeningRoll = "opening_roll"
	ActBid         = "bid"
	ActShow        = "show"
	ActChallenge   = "challenge"
	ActSpotOn      = "spot_on"
	ActReveal      = "reveal"
	ActFold        = "fold"
	ActAllIn       = "all_in"
	ActLeave       = "leave"
)

// Options are a new game's options. A nil field was not given and takes the
// preset's default.
type Options struct {
	Dice       *int
	Sides      *int
	Wild       *string
	DieHard    *bool
	ShowReroll *bool
	Games      *int
	Purse      *int
	Ante       *int
	// Calza and Palifico turn perudo's calza and palifico hands on or off.
	Calza    *bool
	Palifico *bool
}

// OptionNames lists every option the referee knows, in RULINGS.md's order.
var OptionNames = []string{"dice", "sides", "wild", "die_hard", "show_reroll", "games", "purse", "ante", "calza", "palifico"}

// given reports the names of the options that were given.
func (o Options) given() []string {
	var names []string
	for _, n := range OptionNames {
		if o.isSet(n) {
			names = append(names, n)
		}
	}
	return names
}

func (o Options) isSet(name string) bool {
	switch name {
	case "dice":
		return o.Dice != nil
	case "sides":
		return o.Sides != nil
	case "wild":
		return o.Wild != nil
	case "die_hard":
		return o.DieHard != nil
	case "show_reroll":
		return o.ShowReroll != nil
	case "games":
		return o.Games != nil
	case "purse":
		return o.Purse != nil
	case "ante":
		return o.Ante != nil
	case "calza":
		return o.Calza != nil
	case "palifico":
		return o.Palifico != nil
	}
	return false
}
