package record

import (
	"encoding/json"

	"github.com/liarsd/liarsd/engine"
)

// wireLine is a record line as written: only the fields of its type.
type wireLine struct {
	Type     string            `json:"type"`
	Rules    string            `json:"rules,omitempty"`
	Seats    *[]string         `json:"seats,omitempty"`
	First    *string           `json:"first,omitempty"`
	Seed     *int64            `json:"seed,omitempty"`
	Options  map[string]any    `json:"options,omitempty"`
	Seat     *string           `json:"seat,omitempty"`
	Quantity *int              `json:"quantity,omitempty"`
	Face     *int              `json:"face,omitempty"`
	Stake    *int              `json:"stake,omitempty"`
	Shown    *[]int            `json:"shown,omitempty"`
	Dice     *map[string][]int `json:"dice,omitempty"`
	// Unconfirmed comes after dice: a reveal's dice, then which of them
	// the camera did not read for sure.
	Unconfirmed map[string][]int `json:"unconfirmed,omitempty"`

	Computer   map[string]wireComputer `json:"computer,omitempty"`
	BluffBonus map[string]int          `json:"bluff_bonus,omitempty"`
	BluffCheck *bool                   `json:"bluff_check,omitempty"`
	Bluff      bool                    `json:"bluff,omitempty"`
}

type wireComputer struct {
	Insight int    `json:"insight"`
	Level   string `json:"level,omitempty"`
}

// Encode writes an action as a record line (without a newline): the
// inverse of Decode.
func Encode(a engine.Action) []byte {
	w := wireLine{Type: a.Type}
	switch a.Type {
	case engine.ActNewGame, engine.ActReveal, engine.ActOpeningRoll, engine.ActCorrect:
	default:
		w.Seat = &a.Seat
	}
	switch a.Type {
	case engine.ActNewGame:
		w.Rules, w.Seed = a.Rules, &a.Seed
		if a.First != "" || a.EmptyFirst {
			w.First = &a.First
		}
		if a.Seats != nil {
			w.Seats = &a.Seats
		}
		w.Options = optionMap(a.Options)
		w.BluffBonus, w.BluffCheck = a.BluffBonus, a.BluffCheck
		if a.Computer != nil {
			w.Computer = make(map[string]wireComputer, len(a.Computer))
			for name, c := range a.Computer {
				w.Computer[name] = wireComputer{Insight: c.Insight, Level: c.Level}
			}
		}
	case engine.ActBid:
		w.Quantity, w.Face, w.Stake, w.Bluff = &a.Quantity, &a.Face, a.Stake, a.Bluff
	case engine.ActChallenge:
		w.Stake = a.Stake
	case engine.ActShow:
		w.Shown = &a.Shown
		if a.Shown == nil {
			w.Shown = &[]int{}
		}
	case engine.ActReveal, engine.ActOpeningRoll, engine.ActCorrect:
		w.Dice = &a.Dice
		if a.Dice == nil {
			w.Dice = &map[string][]int{}
		}
		if a.Type == engine.ActReveal {
			w.Unconfirmed = a.Unconfirmed
		}
	}
	b, err := json.Marshal(w)
	if err != nil { // only plain values: cannot happen
		panic("record: encoding an action: " + err.Error())
	}
	return b
}

func optionMap(o engine.Options) map[string]any {
	m := map[string]any{}
	if o.Dice != nil {
		m["dice"] = *o.Dice
	}
	if o.Sides != nil {
		m["sides"] = *o.Sides
	}
	if o.Wild != nil {
		m["wild"] = *o.Wild
	}
	if o.DieHard != nil {
		m["die_hard"] = *o.DieHard
	}
	if o.ShowReroll != nil {
		m["show_reroll"] = *o.ShowReroll
	}
	if o.Games != nil {
		m["games"] = *o.Games
	}
	if o.Purse != nil {
		m["purse"] = *o.Purse
	}
	if o.Ante != nil {
		m["ante"] = *o.Ante
	}
	if o.Calza != nil {
		m["calza"] = *o.Calza
	}
	if o.Palifico != nil {
		m["palifico"] = *o.Palifico
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
