package engine

import "sort"

// RaiseRule says which bids raise the last one.
type RaiseRule int

const (
	// RaiseQuantityOrFace: a higher quantity of any face, or the same
	// quantity of a higher face (endurance, common-hand, kids).
	RaiseQuantityOrFace RaiseRule = iota
	// RaiseEither: a higher quantity of any face, or a higher face of any
	// quantity (tavern).
	RaiseEither
	// RaiseFaceOrQuantity: a higher face of any quantity, or the same face
	// with a higher quantity; the face never goes down (classic).
	RaiseFaceOrQuantity
	// RaiseTrack: a later space of the star-board bidding track, or a higher
	// face on the same number space. Perudo's raises are this track with
	// the ones as the star: q ones stand right after 2q of any face, so a
	// bid on ones needs at least half the quantity (rounded up) and a bid
	// off ones at least twice the quantity plus one.
	RaiseTrack
	// RaiseSameFace: the same face with a higher quantity; the face never
	// changes (perudo's palifico hand).
	RaiseSameFace
)

// LossRule says what a lost challenge costs.
type LossRule int

const (
	// LoseOne: the loser loses one die.
	LoseOne LossRule = iota
	// LoseDifference: the loser loses the difference between bid and count;
	// a perfect bid costs every seat but the bidder one die (star-board).
	LoseDifference
	// GainOne: the loser gains a die and is out at six (kids).
	GainOne
	// OutOfRound: the loser is out of the round and keeps its dice
	// (endurance).
	OutOfRound
)

// SpotOnRule says what a spot-on call does; SpotOnNone means the preset has
// no spot-on.
type SpotOnRule int

const (
	SpotOnNone SpotOnRule = iota
	// SpotOnWinsRound: right, every other seat is out of the round; wrong,
	// the caller is (endurance).
	SpotOnWinsRound
	// SpotOnGainsBack: right, the caller gains a die if it has fewer than it
	// started with; wrong, it loses one (common-hand).
	SpotOnGainsBack
	// SpotOnReversed: right, the caller loses a die but never its last;
	// wrong, it gains one (kids).
	SpotOnReversed
	// SpotOnOthersLose: right, every other seat in the hand loses a die;
	// wrong, the caller loses one (classic).
	SpotOnOthersLose
)

// OpenerRule says who opens the hand after a resolution.
type OpenerRule int

const (
	// OpenAfterOut: the next remaining seat clockwise from the seat that
	// went out (endurance).
	OpenAfterOut OpenerRule = iota
	// OpenChallenger: the challenger, else the next seat clockwise from it
	// with dice (star-board).
	OpenChallenger
	// OpenLoserFewest: the hand's loser; if out, the fewest dice, then the
	// fewest chips, then a seeded draw (tavern).
	OpenLoserFewest
	// OpenLoserElseWinner: the seat whose dice changed against it; if out,
	// the call's winner; after a right spot-on, the caller (common-hand,
	// kids).
	OpenLoserElseWinner
	// OpenLoserElseNext: the loser; if out, the next seat clockwise; after a
	// right spot-on, the nearest seat counter-clockwise from the caller
	// (classic).
	OpenLoserElseNext
	// OpenLoserOrSpotter: the seat that lost a die, or after a right
	// spot-on the caller; if that seat is out, the next seat clockwise from
	// it with dice (perudo).
	OpenLoserOrSpotter
)

// Preset is one named way of playing. Presets are data over one set of
// mechanisms: each field picks a mechanism or gives a number.
type Preset struct {
	Name               string
	MinSeats, MaxSeats int
	// Dice and Sides are the defaults per seat.
	Dice, Sides int
	// FixedDice: every seat starts with this many dice and the dice option
	// is not taken (kids).
	FixedDice int
	// MaxDice: a seat that would reach this many dice is out (kids).
	MaxDice int
	// StarDie: six-sided dice whose face 1 is the star, always wild.
	StarDie bool
	// WildOnes: ones are wild, always (perudo); the wild option is not
	// taken.
	WildOnes bool
	// NoWildOpening: a hand's first bid may not be on the wild face while
	// it is wild (perudo, outside a palifico hand).
	NoWildOpening bool
	// SpotOnSeats: a spot-on is refused while fewer seats than this are
	// left in the game (perudo's calza: 3); 0 for no such limit.
	SpotOnSeats int
	// Palifico: a seat brought down to one die for the first time in the
	// game, with three or more seats still in it, opens a palifico hand:
	// no wilds, any first bid, raises by PalificoRaise (perudo; the
	// palifico option turns it off).
	Palifico      bool
	PalificoRaise RaiseRule
	Raise         RaiseRule
	Loss          LossRule
	SpotOn        SpotOnRule
	Opener        OpenerRule
	// Stakes: tavern's purse, stakes, pot, fold and all-in.
	Stakes bool
	// Ante: every seat antes into the game pot; the winner takes it.
	Ante bool
	// Match: games are rounds of a match of a fixed number of rounds.
	Match bool
	// OpeningRoll: without `first`, the first opener is found by a roll.
	OpeningRoll bool
	// BluffCheck: a person may roll a bluff check against the computer
	// seat to its left (classic); other tables turn it on in new_game.
	BluffCheck bool
	// Takes lists the options the preset accepts.
	Takes []string
}

// starSides is the star die's number of faces: the star (1) and 2 to 6.
const starSides = 6

// Presets are the seven rule sets of RULINGS.md, by name.
var Presets = map[string]*Preset{
	"endurance": {
		Name: "endurance", MinSeats: 3, MaxSeats: 6, Dice: 5, Sides: 6,
		Raise: RaiseQuantityOrFace, Loss: OutOfRound, SpotOn: SpotOnWinsRound, Opener: OpenAfterOut,
		Match: true, Takes: []string{"dice", "sides", "wild", "games"},
	},
	"star-board": {
		Name: "star-board", MinSeats: 2, MaxSeats: 6, Dice: 5, Sides: starSides, StarDie: true,
		Raise: RaiseTrack, Loss: LoseDifference, SpotOn: SpotOnNone, Opener: OpenChallenger,
		OpeningRoll: true, Takes: []string{"dice", "die_hard", "show_reroll"},
	},
	"tavern": {
		Name: "tavern", MinSeats: 2, MaxSeats: 20, Dice: 5, Sides: 6,
		Raise: RaiseEither, Loss: LoseOne, SpotOn: SpotOnNone, Opener: OpenLoserFewest,
		Stakes: true, Takes: []string{"dice", "sides", "wild", "purse"},
	},
	"common-hand": {
		Name: "common-hand", MinSeats: 2, MaxSeats: 20, Dice: 5, Sides: 6,
		Raise: RaiseQuantityOrFace, Loss: LoseOne, SpotOn: SpotOnGainsBack, Opener: OpenLoserElseWinner,
		Takes: []string{"dice", "sides", "wild"},
	},
	"kids": {
		Name: "kids", MinSeats: 2, MaxSeats: 20, Dice: 1, Sides: 6, FixedDice: 1, MaxDice: 6,
		Raise: RaiseQuantityOrFace, Loss: GainOne, SpotOn: SpotOnReversed, Opener: OpenLoserElseWinner,
		Takes: []string{"sides", "wild"},
	},
	"classic": {
		Name: "classic", MinSeats: 2, MaxSeats: 5, Dice: 5, Sides: 6,
		Raise: RaiseFaceOrQuantity, Loss: LoseOne, SpotOn: SpotOnOthersLose, Opener: OpenLoserElseNext,
		Ante: true, BluffCheck: true, Takes: []string{"dice", "sides", "wild", "ante"},
	},
	"perudo": {
		Name: "perudo", MinSeats: 2, MaxSeats: 6, Dice: 5, Sides: 6, WildOnes: true, NoWildOpening: true,
		Raise: RaiseTrack, Loss: LoseOne, SpotOn: SpotOnGainsBack, SpotOnSeats: 3, Opener: OpenLoserOrSpotter,
		Palifico: true, PalificoRaise: RaiseSameFace,
		Takes: []string{"dice", "calza", "palifico"},
	},
}

// PresetNames returns the presets' names, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Opens reports whether a hand's first bid may be on face f: in perudo
// not on the wild ones, except in a palifico hand. It does not check f
// against the sides.
func (p *Preset) Opens(palifico bool, f int) bool {
	return !(p.NoWildOpening && !palifico && f == 1)
}

// RaisesIn reports whether a bid of q on face f raises the bid (fromQ,
// fromF) in a hand of the preset: by its raise rule, or in a palifico hand
// by PalificoRaise.
func (p *Preset) RaisesIn(palifico bool, fromQ, fromF, q, f int) bool {
	if palifico && p.Palifico {
		return p.PalificoRaise.Raises(fromQ, fromF, q, f)
	}
	return p.Raise.Raises(fromQ, fromF, q, f)
}

func (p *Preset) takes(option string) bool {
	for _, t := range p.Takes {
		if t == option {
			return true
		}
	}
	return false
}

// settings are a game's options with the preset's defaults filled in.
type settings struct {
	dice, sides int
	wild        bool // ones (or the star) are wild
	dieHard     bool
	showReroll  bool
	games       int
	purse       int
	ante        int
	spotOn      bool // the preset's spot-on is played (perudo's calza option)
	palifico    bool // the preset's palifico hands are played
}

// Limits on option values; beyond them a table is not a table.
const (
	maxDicePerSeat = 20
	maxSides       = 100
	maxGames       = 1000
	maxChips       = 1_000_000_000
)

// settle checks the options against the preset and fills in defaults.
func (p *Preset) settle(o Options) (settings, *Rejection) {
	for _, n := range o.given() {
		if !p.takes(n) {
			return settings{}, reject(BadInput, "%s does not take the option %q", p.Name, n)
		}
	}
	s := settings{dice: p.Dice, sides: p.Sides, showReroll: true, games: 5, purse: 50, ante: 1,
		spotOn: p.SpotOn != SpotOnNone, palifico: p.Palifico}
	if p.FixedDice > 0 {
		s.dice = p.FixedDice
	}
	if p.StarDie || p.WildOnes {
		s.wild = true
	}
	if o.Dice != nil {
		s.dice = *o.Dice
	}
	if o.Sides != nil {
		s.sides = *o.Sides
	}
	if o.Wild != nil {
		s.wild = *o.Wild == "ones"
	}
	if o.DieHard != nil {
		s.dieHard = *o.DieHard
	}
	if o.ShowReroll != nil {
		s.showReroll = *o.ShowReroll
	}
	if o.Games != nil {
		s.games = *o.Games
	}
	if o.Purse != nil {
		s.purse = *o.Purse
	}
	if o.Ante != nil {
		s.ante = *o.Ante
	}
	if o.Calza != nil {
		s.spotOn = *o.Calza
	}
	if o.Palifico != nil {
		s.palifico = *o.Palifico
	}
	return s, nil
}

// CheckOptionValues checks the values of given options whatever the preset;
// the record package calls it so that a value no table takes is bad_input
// before the preset is looked at.
func CheckOptionValues(o Options) *Rejection {
	switch {
	case o.Dice != nil && (*o.Dice < 1 || *o.Dice > maxDicePerSeat):
		return reject(BadInput, "option dice must be 1 to %d, not %d", maxDicePerSeat, *o.Dice)
	case o.Sides != nil && (*o.Sides < 2 || *o.Sides > maxSides):
		return reject(BadInput, "option sides must be 2 to %d, not %d", maxSides, *o.Sides)
	case o.Wild != nil && *o.Wild != "none" && *o.Wild != "ones":
		return reject(BadInput, `option wild must be "none" or "ones", not %q`, *o.Wild)
	case o.Games != nil && (*o.Games < 1 || *o.Games > maxGames):
		return reject(BadInput, "option games must be 1 to %d, not %d", maxGames, *o.Games)
	case o.Purse != nil && (*o.Purse < 0 || *o.Purse > maxChips):
		return reject(BadInput, "option purse must be 0 to %d, not %d", maxChips, *o.Purse)
	case o.Ante != nil && (*o.Ante < 0 || *o.Ante > maxChips):
		return reject(BadInput, "option ante must be 0 to %d, not %d", maxChips, *o.Ante)
	}
	return nil
}
