package referee

import (
	"log/slog"

	"github.com/liarsd/liarsd/engine"
)

// Board is what the referee shows on the table's LEDs. Seats are named; an
// implementation maps names to its LEDs and ignores names it has none for
// (referee/leds adapts a *hardware.Board).
type Board interface {
	ShowBid(quantity, face int, star bool) error
	// ShowTurn lights the seat to act; "" lights none.
	ShowTurn(seat string) error
	ShowCall(caller string) error
	// ShowOutcome shows a resolution: the losers, the seats now out and the
	// game's winner ("" while the game goes on).
	ShowOutcome(losers, out []string, winner string) error
	SetStatus(s Status) error
	Clear()
}

// boardFollower shows the table on the board: each accepted input, and
// the whole table when Run starts. The status light follows the status
// (setStatus).
type boardFollower struct {
	board Board
	log   *slog.Logger
}

// Follow shows a change.
func (f boardFollower) Follow(d *Desk, c Change) {
	if c.Start() {
		refreshBoard(f.board, c.Snapshot, d.Status())
		return
	}
	f.showOnBoard(c.Action, c.Events, c.Snapshot)
}

// showOnBoard puts an accepted action and its events on the LEDs. Board
// errors (a bid beyond the track, a seat without an LED) are logged: the
// LEDs never stop the game.
func (f boardFollower) showOnBoard(a engine.Action, evs []engine.Event, snap engine.Snapshot) {
	b := f.board
	warn := func(what string, err error) {
		if err != nil {
			f.log.Debug("referee: board", "what", what, "err", err)
		}
	}
	if a.Type == engine.ActNewGame || a.Type == engine.ActCorrect {
		// A correction's events show the hand's result again from a
		// clear board: the next hand's turn or the winner it shows now.
		b.Clear()
	}
	switch a.Type {
	case engine.ActBid:
		warn("bid", showBid(b, snap, a.Quantity, a.Face))
		warn("turn", b.ShowTurn(turnOf(snap)))
	case engine.ActFold:
		if snap.Phase == engine.PhaseBidding {
			warn("turn", b.ShowTurn(turnOf(snap)))
		}
	case engine.ActChallenge, engine.ActSpotOn, engine.ActAllIn:
		warn("call", b.ShowCall(a.Seat))
	}
	for _, e := range evs {
		switch e := e.(type) {
		case *engine.HandStarted:
			b.Clear()
			warn("turn", b.ShowTurn(e.Opener))
		case *engine.Resolved:
			warn("outcome", b.ShowOutcome(losers(snap.Rules, e), e.Out, ""))
		case *engine.GameOver:
			warn("winner", b.ShowOutcome(nil, nil, e.Winner))
		}
	}
}

// refreshBoard shows the table's state as a whole, after a restart.
func refreshBoard(b Board, snap engine.Snapshot, status Status) {
	b.Clear()
	if snap.Bid != nil {
		_ = showBid(b, snap, snap.Bid.Quantity, snap.Bid.Face)
	}
	if snap.Call != nil {
		_ = b.ShowCall(snap.Call.Caller)
	} else if snap.Turn != nil {
		_ = b.ShowTurn(*snap.Turn)
	}
	_ = b.SetStatus(status)
}

// showBid puts a bid on the track. Star-board's star bids stand on a star
// space, and so do perudo's bids on wild ones: q ones come right after 2q
// of any face, where star space q stands. A perudo board built without
// star spaces shows a ones bid on number space q with the face LED of the
// one. In a palifico hand ones are not wild and a ones bid is a number bid.
func showBid(b Board, snap engine.Snapshot, q, f int) error {
	p := engine.Presets[snap.Rules]
	ones := p != nil && p.WildOnes && snap.Wild && f == 1
	err := b.ShowBid(q, f, (f == 1 && snap.StarDie) || ones)
	if err != nil && ones {
		return b.ShowBid(q, f, false)
	}
	return err
}

func turnOf(snap engine.Snapshot) string {
	if snap.Turn == nil {
		return ""
	}
	return *snap.Turn
}

// losers are the seats a resolution went against: those that lost dice (in
// kids, gained them) or, in endurance, went out.
func losers(rules string, e *engine.Resolved) []string {
	var ls []string
	for seat, change := range e.Dice {
		if (rules == "kids" && change > 0) || (rules != "kids" && change < 0) {
			ls = append(ls, seat)
		}
	}
	if rules == "endurance" {
		ls = append(ls, e.Out...)
	}
	return ls
}
