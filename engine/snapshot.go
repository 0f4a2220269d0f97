package engine

// Snapshot is the table's state as MQTT.md's retained state topic carries
// it. It holds no hidden die: only counts, and the dice a seat has shown.
type Snapshot struct {
	Seq   int      `json:"seq"`
	Rules string   `json:"rules"`
	Game  int      `json:"game"`
	Hand  int      `json:"hand"`
	Phase Phase    `json:"phase"`
	Turn  *string  `json:"turn"`
	Bid   *BidSeat `json:"bid"`
	// Call is the call awaiting its reveal, in the reveal phase.
	Call *CallView `json:"call,omitempty"`
	// Rolling lists the seats whose opening roll is awaited (star-board).
	Rolling []string       `json:"rolling,omitempty"`
	Seats   []SeatView     `json:"seats"`
	Wins    map[string]int `json:"wins,omitempty"`
	// Stake, Pot and RunningPot are tavern's; Pot is also classic's antes.
	Stake      *int `json:"stake,omitempty"`
	Pot        *int `json:"pot,omitempty"`
	RunningPot *int `json:"running_pot,omitempty"`
	// Sides is the number of faces of the dice; StarDie says face 1 is the
	// star. Wild says ones (the star) count for other faces in this hand:
	// not in perudo's palifico hand.
	Sides   int  `json:"sides"`
	StarDie bool `json:"star_die,omitempty"`
	Wild    bool `json:"wild,omitempty"`
	// Palifico says the hand is a palifico hand (perudo): ones are not
	// wild, the first bid may be on any face and no later bid changes it.
	Palifico bool `json:"palifico,omitempty"`
	// Calza says whether a calza (spot-on) may be called in this game
	// now: perudo's, off by its option and while fewer than three seats
	// are left. Nil in the other presets, whose spot-on does not change.
	Calza *bool `json:"calza,omitempty"`
	// StartDice is the number of dice each seat started the game with.
	StartDice int `json:"start_dice,omitempty"`
	// ShowReroll says a star-board bidder may show and reroll dice.
	ShowReroll bool `json:"show_reroll,omitempty"`
}

// BidSeat is the standing bid and who made it.
type BidSeat struct {
	Seat     string `json:"seat"`
	Quantity int    `json:"quantity"`
	Face     int    `json:"face"`
}

// CallView is a call awaiting its reveal.
type CallView struct {
	Call   string `json:"call"`
	Caller string `json:"caller"`
}

// SeatView is one seat in a snapshot.
type SeatView struct {
	Name string `json:"name"`
	Dice int    `json:"dice"`
	// Out: the seat is out of the game (in endurance, out of the round).
	Out      bool `json:"out"`
	Left     bool `json:"left,omitempty"`
	Computer bool `json:"computer"`
	// InHand: the seat's dice are in play in this hand (a reveal needs
	// them).
	InHand bool `json:"in_hand"`
	// Flustered: a bluff check succeeded against this computer seat; it
	// takes its second-best option on its next turn.
	Flustered bool  `json:"flustered,omitempty"`
	Chips     *int  `json:"chips,omitempty"`
	Shown     []int `json:"shown,omitempty"`
}

// Snapshot returns the table's state. Before any game its phase is idle.
func (t *Table) Snapshot() Snapshot {
	s := Snapshot{Seq: t.seq, Phase: PhaseIdle, Seats: []SeatView{}}
	g := t.g
	if g == nil {
		return s
	}
	s.Rules, s.Game, s.Hand, s.Phase = g.p.Name, g.number, g.hand, g.phase
	s.Sides, s.StarDie, s.Wild, s.Palifico = g.s.sides, g.p.StarDie, g.wildFace() == 1, g.palifico
	s.StartDice, s.ShowReroll = g.s.dice, g.p.StarDie && g.s.showReroll
	if g.p.SpotOnSeats > 0 { // perudo: the calza comes and goes
		calza := g.s.spotOn && g.count(g.inGame) >= g.p.SpotOnSeats
		s.Calza = &calza
	}
	if g.turn >= 0 && g.phase == PhaseBidding {
		s.Turn = &g.seats[g.turn].name
	}
	if g.bid != nil {
		s.Bid = &BidSeat{Seat: g.seats[g.bid.seat].name, Quantity: g.bid.quantity, Face: g.bid.face}
	}
	if g.phase == PhaseReveal {
		s.Call = &CallView{Call: g.callKind, Caller: g.seats[g.caller].name}
	}
	if g.phase == PhaseOpening {
		for _, i := range g.tied {
			s.Rolling = append(s.Rolling, g.seats[i].name)
		}
	}
	for i, st := range g.seats {
		v := SeatView{Name: st.name, Dice: st.dice, Out: st.out || st.roundOut, Left: st.left,
			Computer: st.computer, Flustered: st.flustered,
			InHand: g.phase != PhaseGameOver && g.phase != PhaseOpening && g.inHand(i)}
		if g.p.Stakes {
			c := st.chips
			v.Chips = &c
		}
		v.Shown = append([]int(nil), st.shown...)
		s.Seats = append(s.Seats, v)
	}
	if g.p.Match {
		s.Wins = make(map[string]int, len(g.seats))
		for _, st := range g.seats {
			s.Wins[st.name] = st.wins
		}
	}
	switch {
	case g.p.Stakes:
		stake, pot, running := g.stake, g.pot, g.runningPot
		s.Stake, s.Pot, s.RunningPot = &stake, &pot, &running
	case g.p.Ante:
		pot := g.antePot
		s.Pot = &pot
	}
	return s
}

// DiceInPlay returns the number of dice each seat in the hand holds: what
// a reveal must give. It is empty outside a hand.
func (t *Table) DiceInPlay() map[string]int {
	m := map[string]int{}
	if t.g == nil || t.g.phase == PhaseGameOver || t.g.phase == PhaseOpening {
		return m
	}
	for i, st := range t.g.seats {
		if t.g.inHand(i) {
			m[st.name] = st.dice
		}
	}
	return m
}

// HandBids returns every bid of the hand in bidding, oldest first: what
// every seat has seen. It is empty outside the bidding and reveal phases.
func (t *Table) HandBids() []BidSeat {
	g := t.g
	if g == nil || (g.phase != PhaseBidding && g.phase != PhaseReveal) {
		return nil
	}
	out := make([]BidSeat, len(g.bids))
	for i, b := range g.bids {
		out[i] = BidSeat{Seat: g.seats[b.seat].name, Quantity: b.quantity, Face: b.face}
	}
	return out
}

// HiddenDice returns a computer seat's dice in this hand, for its strategy
// only: they must never be published before the reveal. It returns nil for
// a person's seat, for a seat whose dice are not in play (folded, out) and
// outside a hand (an opening roll, a game that is over).
func (t *Table) HiddenDice(seat string) []int {
	g := t.g
	if g == nil || (g.phase != PhaseBidding && g.phase != PhaseReveal) {
		return nil
	}
	i, ok := g.byName[seat]
	if !ok || !g.seats[i].computer || !g.inHand(i) {
		return nil
	}
	return append([]int(nil), g.seats[i].hidden...)
}

// ComputerLevel returns the level new_game named for a computer seat (its
// strategy's name, which the engine does not read) and whether the seat is
// a computer seat of this game.
func (t *Table) ComputerLevel(seat string) (string, bool) {
	if t.g == nil {
		return "", false
	}
	i, ok := t.g.byName[seat]
	if !ok || !t.g.seats[i].computer {
		return "", false
	}
	return t.g.seats[i].level, true
}
