package engine

import "slices"

// resolve settles the awaited call against the revealed dice.
func (g *game) resolve(dice map[int][]int) {
	b := g.bid
	count := g.countBid(dice, b.face)
	r := &resolution{call: g.callKind, caller: g.caller, bidder: b.seat, loser: -1, winner: -1, palifico: -1}
	change := make(map[int]int) // made here, it stays off the heap
	var roundOut []int
	switch g.callKind {
	case ActChallenge:
		roundOut = g.challenged(r, count, change)
	case ActSpotOn:
		roundOut = g.spotOn(r, count, change)
	}
	res := &Resolved{Header: Header{Type: EvResolved}, Call: g.callKind,
		Bidder: g.seats[r.bidder].name, Caller: g.seats[r.caller].name,
		Bid: &BidView{Quantity: b.quantity, Face: b.face}, Count: &count,
		Dice: map[string]int{}, Out: []string{}}
	g.changeDice(res, r, change)
	for _, i := range roundOut {
		g.seats[i].roundOut = true
		res.Out = append(res.Out, g.seats[i].name)
	}
	if g.p.Stakes {
		g.settlePot(res, r.winner)
	}
	g.emit(res)
	g.endHand(r)
}

// challenged says who won and lost a challenge of the bid with count
// dice counting for it, and the dice each seat gains or loses (into
// change) or the seats out of the round, by the preset's loss rule.
func (g *game) challenged(r *resolution, count int, change map[int]int) (roundOut []int) {
	b := g.bid
	if count >= b.quantity {
		r.loser, r.winner = r.caller, r.bidder
	} else {
		r.loser, r.winner = r.bidder, r.caller
	}
	switch g.p.Loss {
	case LoseOne:
		change[r.loser] = -1
	case GainOne:
		change[r.loser] = +1
	case OutOfRound:
		roundOut = append(roundOut, r.loser)
	case LoseDifference:
		switch {
		case count < b.quantity:
			change[r.bidder] = count - b.quantity
		case count > b.quantity:
			change[r.caller] = b.quantity - count
		default: // a perfect bid: every seat in the hand but the bidder loses a die
			for i, st := range g.seats {
				if !g.inHand(i) || i == r.bidder {
					continue
				}
				if g.s.dieHard && st.dice == 1 && i != r.caller {
					continue
				}
				change[i] = -1
			}
		}
	}
	return roundOut
}

// spotOn says who won and lost a spot-on call of the bid with count dice
// counting for it, and the dice each seat gains or loses (into change) or
// the seats out of the round, by the preset's spot-on rule.
func (g *game) spotOn(r *resolution, count int, change map[int]int) (roundOut []int) {
	b := g.bid
	right := count == b.quantity
	if right {
		r.winner, r.rightSpotOn = r.caller, true
	} else {
		r.loser, r.winner = r.caller, r.bidder
	}
	switch g.p.SpotOn {
	case SpotOnWinsRound:
		if right {
			roundOut = g.seatsWhere(func(i int) bool { return g.inHand(i) && i != r.caller })
		} else {
			roundOut = append(roundOut, r.caller)
		}
	case SpotOnGainsBack:
		if !right {
			change[r.caller] = -1
		} else if g.seats[r.caller].dice < g.s.dice {
			change[r.caller] = +1
		}
	case SpotOnReversed:
		if !right {
			change[r.caller] = +1
		} else if g.seats[r.caller].dice > 1 {
			change[r.caller] = -1
		}
	case SpotOnOthersLose:
		if !right {
			change[r.caller] = -1
		} else {
			for i := range g.seats {
				if g.inHand(i) && i != r.caller {
					change[i] = -1
				}
			}
		}
	}
	return roundOut
}

// changeDice makes the resolution's changes of dice, in seat order: a seat
// left with none, or with the preset's most, is out; one brought down to
// one die for the first time may have its palifico hand.
func (g *game) changeDice(res *Resolved, r *resolution, change map[int]int) {
	for i, st := range g.seats {
		d, ok := change[i]
		if !ok {
			continue
		}
		if d < -st.dice {
			d = -st.dice // nobody loses more dice than they have
		}
		if d == 0 {
			continue
		}
		st.dice += d
		res.Dice[st.name] = d
		if st.dice == 0 || (g.p.MaxDice > 0 && st.dice >= g.p.MaxDice) {
			st.out = true
			res.Out = append(res.Out, st.name)
		}
		if d < 0 && st.dice == 1 && !st.palificoDone {
			// Brought down to one die for the first time in the game: its
			// one palifico hand, or none if fewer than three seats are left
			// (checked below, once every change is made).
			st.palificoDone = true
			if g.p.Palifico && g.s.palifico {
				r.palifico = i
			}
		}
	}
	if r.palifico >= 0 && g.count(g.inGame) < 3 {
		r.palifico = -1
	}
}

// endHand ends the game or round when one seat is left, or starts the next
// hand.
func (g *game) endHand(r *resolution) {
	g.last = r
	g.bid = nil
	g.bids = nil
	g.turn = -1
	if g.p.Match {
		if g.count(g.inRound) <= 1 {
			g.endRound(g.nextFrom(-1, g.inRound))
			return
		}
	} else if g.count(g.inGame) <= 1 {
		g.endGame(g.nextFrom(-1, g.inGame))
		return
	}
	g.startHand(g.openerFor(r))
}

// endGame ends a game: the winner takes the running pot (tavern) or the
// antes (classic).
func (g *game) endGame(winner int) {
	g.phase = PhaseGameOver
	g.turn = -1
	over := &GameOver{Header: Header{Type: EvGameOver}, Game: g.number, Winner: g.seats[winner].name}
	switch {
	case g.p.Stakes:
		pot := g.runningPot
		g.seats[winner].chips += pot
		g.runningPot = 0
		over.Pot = &pot
	case g.p.Ante:
		pot := g.antePot
		g.antePot = 0
		over.Pot = &pot
	}
	g.emit(over)
}

// endRound ends an endurance round and starts the next, or ends the match.
func (g *game) endRound(winner int) {
	g.seats[winner].wins++
	g.emit(&GameOver{Header: Header{Type: EvGameOver}, Game: g.number, Winner: g.seats[winner].name})
	// The match ends after its rounds when one seat leads alone, or when
	// fewer than two seats are left in it.
	lead, leaders := 0, 0
	for _, st := range g.seats {
		if st.left {
			continue
		}
		switch {
		case st.wins > lead:
			lead, leaders = st.wins, 1
		case st.wins == lead:
			leaders++
		}
	}
	remaining := g.count(g.inGame)
	if remaining < 2 || (g.number >= g.s.games && leaders == 1) {
		champion := g.nextFrom(-1, g.inGame) // the last seat left in the match
		if remaining >= 2 {
			champion = slices.IndexFunc(g.seats, func(st *seat) bool { return !st.left && st.wins == lead })
		}
		wins := make(map[string]int, len(g.seats))
		for _, st := range g.seats {
			wins[st.name] = st.wins
		}
		g.phase = PhaseGameOver
		g.turn = -1
		g.emit(&MatchOver{Header: Header{Type: EvMatchOver}, Winner: g.seats[champion].name, Wins: wins})
		return
	}
	g.number++
	g.roundWinner = winner
	for _, st := range g.seats {
		st.roundOut = false
	}
	g.beginGame()
}
