package demo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
)

// Driver plays every seat of the demo: it rolls the physical dice at each
// hand, makes the seats' moves through the referee (as seat buttons
// would), starts the next game when one ends, and, when the camera cannot
// read a reveal, corrects it as the table's operator would.
type Driver struct {
	Ref     *referee.Referee
	Table   *Table
	Players map[string]computer.Player
	// NewGame is the record line that starts each game.
	NewGame func(game int) []byte
	// Pace is the pause before each move, so people can follow.
	Pace time.Duration
	// OperatorAfter is how long a reveal may wait for the camera before the
	// operator types it in (0: never; a person does, at the operator page).
	OperatorAfter time.Duration
	// CorrectWindow is the least time from an accepted reveal or
	// correction to the next hand's first bid: the time a correction has
	// (the pace when shorter).
	CorrectWindow time.Duration
	// Games stops after this many games (0: until ctx is done).
	Games int
	// Reveals stops after this many reveals (0: no limit).
	Reveals int
	// Revealed, when set, is called after each accepted reveal with the
	// number of reveals so far.
	Revealed func(n int)
	// Camera, when set, is warmed after each change of the dice.
	Camera interface{ Warm() }
	// Say narrates a line for people.
	Say func(format string, args ...any)

	changes chan referee.Change
	tally   Tally
	snap    engine.Snapshot
	bids    []engine.BidSeat // the hand's bids, oldest first
	version int
	acted   int
	games   int
	reveals int
	revealT time.Time
	// settledAt is when the last reveal or correction was accepted.
	settledAt time.Time
	done      chan struct{}
}

// Observe takes the referee's changes; pass it as the referee's Observe. It
// never blocks.
func (d *Driver) Observe(ch referee.Change) {
	// The dice move with the input, before the referee looks: Observe runs
	// on the referee's goroutine before it starts a capture, so the camera
	// never reads the table as it lay before the players rolled.
	d.lay(ch)
	select {
	case d.changes <- ch:
	default:
		// Cannot happen with the buffer below, but never stall the referee.
	}
}

// NewDriver returns a driver; set its fields before Run.
func NewDriver() *Driver {
	return &Driver{changes: make(chan referee.Change, 4096), acted: -1, done: make(chan struct{})}
}

// Tally counts the demo's reveals by how they were settled.
type Tally struct {
	// Reveals are the accepted reveals: Confident ones the camera read
	// with every die sure, Unconfirmed ones it read with dice in doubt
	// that could not change the verdict, and Looked ones that waited for
	// a person (the operator entered the dice).
	Reveals, Confident, Unconfirmed, Looked int
}

func (t *Tally) add(ch referee.Change) {
	t.Reveals++
	switch {
	case ch.Source != referee.SourceCamera:
		t.Looked++
	case len(ch.Action.Unconfirmed) > 0:
		t.Unconfirmed++
	default:
		t.Confident++
	}
}

// String is the demo's closing line: "reveals N: confident C, unconfirmed
// U, looked L".
func (t Tally) String() string {
	return fmt.Sprintf("reveals %d: confident %d, unconfirmed %d, looked %d", t.Reveals, t.Confident, t.Unconfirmed, t.Looked)
}

// Tally returns the reveals counted so far; call it after Run returns.
func (d *Driver) Tally() Tally { return d.tally }

// Done is closed when the driver has played its games.
func (d *Driver) Done() <-chan struct{} { return d.done }

// Run plays until ctx is done or the games are played.
func (d *Driver) Run(ctx context.Context) {
	if d.Say == nil {
		d.Say = func(string, ...any) {}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	d.startGame(ctx)
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
			return
		case ch := <-d.changes:
			d.note(ch)
			continue // take every change before acting on the latest
		case <-tick.C:
		}
		if d.act(ctx) {
			return
		}
	}
}

// lay moves the physical dice as an accepted input and its events move
// them: a new game clears the table, a fold takes the seat's dice off, a
// hand rolls every seat's dice, and an opening roll (star-board) rolls the
// dice of the seats still tied for the first opener.
func (d *Driver) lay(ch referee.Change) {
	a := ch.Action
	switch a.Type {
	case engine.ActNewGame:
		d.Table.Roll(nil, ch.Snapshot.Sides)
	case engine.ActFold:
		d.Table.Remove(a.Seat)
		d.warm()
	}
	for _, e := range ch.Events {
		if h, ok := e.(*engine.HandStarted); ok {
			d.Table.Roll(h.Dice, ch.Snapshot.Sides)
			d.warm()
		}
	}
	if ch.Snapshot.Phase == engine.PhaseOpening {
		rollOpening(d.Table, ch.Snapshot)
		d.warm()
	}
}

// note takes an accepted input into the driver's view of the game: the
// hand's bids and the reveals count here, on the driver's goroutine, which
// reads them (lay runs on the referee's).
func (d *Driver) note(ch referee.Change) {
	d.version++
	d.snap = ch.Snapshot
	a := ch.Action
	switch {
	case ch.Snapshot.Bid == nil:
		d.bids = nil
	case a.Type == engine.ActBid:
		d.bids = append(d.bids, *ch.Snapshot.Bid)
	}
	if a.Type == engine.ActReveal || a.Type == engine.ActCorrect {
		d.settledAt = time.Now()
	}
	if a.Type == engine.ActReveal {
		d.tally.add(ch)
		d.reveals++
		if d.Revealed != nil {
			d.Revealed(d.reveals)
		}
	}
	d.narrate(ch, a.Type, a.Seat)
}

// act makes the next move when the table waits for one of the driver's
// seats; it reports whether the driver is finished.
func (d *Driver) act(ctx context.Context) bool {
	d.drain()
	if d.Reveals > 0 && d.reveals >= d.Reveals {
		d.finish()
		return true
	}
	s := d.snap
	if s.Phase == engine.PhaseReveal || (s.Phase == engine.PhaseOpening && d.Camera != nil) {
		if d.revealT.IsZero() {
			d.revealT = time.Now()
		}
		if d.OperatorAfter > 0 && time.Since(d.revealT) > d.OperatorAfter && d.acted != d.version {
			d.acted = d.version
			kind := engine.ActReveal
			if s.Phase == engine.PhaseOpening {
				kind = engine.ActOpeningRoll
			}
			d.Say("operator: the camera needs a look; entering the %s by hand", strings.ReplaceAll(kind, "_", " "))
			d.do(ctx, record.Encode(engine.Action{Type: kind, Dice: d.Table.All()}), referee.SourceOperator)
		}
		return false
	}
	d.revealT = time.Time{}
	if d.acted == d.version {
		return false // already moved on this state; wait for its change
	}
	switch s.Phase {
	case engine.PhaseGameOver, engine.PhaseIdle:
		if d.Games > 0 && d.games >= d.Games {
			d.finish()
			return true
		}
		if !d.pause(ctx, 4*d.Pace) {
			return true
		}
		d.acted = d.version
		d.startGame(ctx)
	case engine.PhaseOpening: // no camera: the operator enters the roll
		d.acted = d.version
		d.do(ctx, record.Encode(engine.Action{Type: engine.ActOpeningRoll, Dice: d.Table.All()}), referee.SourceOperator)
	case engine.PhaseBidding:
		if s.Turn == nil || !d.inPlay(*s.Turn) {
			return false
		}
		if s.Bid == nil && time.Since(d.settledAt) < d.CorrectWindow {
			return false // a correction may still come: the hand waits
		}
		version := d.version
		if !d.pause(ctx, d.Pace) {
			return true
		}
		d.drain()
		if d.version != version {
			// The table moved meanwhile (a correction changed who plays
			// next): decide again on the table as it is.
			return false
		}
		d.acted = d.version
		d.move(ctx, *s.Turn)
	}
	return false
}

// drain takes the changes queued so far.
func (d *Driver) drain() {
	for {
		select {
		case ch := <-d.changes:
			d.note(ch)
		default:
			return
		}
	}
}

// inPlay says whether seat is still in the game (not out, not gone).
func (d *Driver) inPlay(seat string) bool {
	for _, st := range d.snap.Seats {
		if st.Name == seat {
			return !st.Out && !st.Left
		}
	}
	return false
}

// finish closes Done, once.
func (d *Driver) finish() {
	select {
	case <-d.done:
	default:
		close(d.done)
	}
}

func (d *Driver) warm() {
	if d.Camera != nil {
		d.Camera.Warm()
	}
}

func (d *Driver) pause(ctx context.Context, p time.Duration) bool {
	if p <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(p):
		return true
	}
}

func (d *Driver) startGame(ctx context.Context) {
	d.games++
	if d.Games > 0 && d.games > d.Games {
		return
	}
	d.do(ctx, d.NewGame(d.games), referee.SourceOperator)
}

// rollOpening rolls the physical table for the seats still tied for the
// first opener: the engine's snapshot names them.
func rollOpening(t *Table, snap engine.Snapshot) {
	counts := map[string]int{}
	for _, st := range snap.Seats {
		if slices.Contains(snap.Rolling, st.Name) {
			counts[st.Name] = st.Dice
		}
	}
	t.Roll(counts, snap.Sides)
}

// move plays seat's turn.
func (d *Driver) move(ctx context.Context, seat string) {
	p := d.Players[seat]
	if p == nil {
		return
	}
	v := computer.View{Snapshot: d.snap, Seat: seat, Dice: d.Table.Dice(seat), Bids: slices.Clone(d.bids)}
	m := p.Act(v)
	rep := d.do(ctx, record.Encode(m), referee.SourceSeat+":"+seat)
	if !rep.OK {
		if rep.Reason == engine.NotYourTurn || rep.Reason == engine.NotNow || rep.Reason == engine.NoGame {
			return // the table is not where the seat thought: nothing to fall back on
		}
		// A simple player may misjudge a rule; fall back on a move that is
		// always open to the seat whose turn it is.
		for _, fb := range []engine.Action{{Type: engine.ActChallenge, Seat: seat}, {Type: engine.ActFold, Seat: seat}, {Type: engine.ActAllIn, Seat: seat}} {
			if d.do(ctx, record.Encode(fb), referee.SourceSeat+":"+seat).OK {
				return
			}
		}
		return
	}
	if m.Type == engine.ActBid {
		if show := p.ShowAfter(v, m); len(show) > 0 {
			sm := engine.Action{Type: engine.ActShow, Seat: seat, Shown: show}
			if d.do(ctx, record.Encode(sm), referee.SourceSeat+":"+seat).OK {
				d.Table.Show(seat, show)
				d.warm()
			}
		}
	}
}

func (d *Driver) do(ctx context.Context, line []byte, source string) referee.Reply {
	rep, err := d.Ref.Do(ctx, line, source)
	if err != nil {
		return referee.Reply{Reason: "error", Message: err.Error()}
	}
	if !rep.OK && rep.Reason != "" {
		d.Say("  (%s refused: %s: %s)", source, rep.Reason, rep.Message)
	}
	return rep
}

// narrate tells people what an accepted input did. It holds no hidden
// die: inputs are public (a reveal is the reveal), events are public.
func (d *Driver) narrate(ch referee.Change, typ, seat string) {
	a := ch.Action
	star := ch.Snapshot.StarDie
	switch typ {
	case engine.ActNewGame:
		d.Say("new game of %s: %s (game %d)", a.Rules, strings.Join(a.Seats, ", "), ch.Game)
	case engine.ActOpeningRoll:
		d.Say("opening roll (%s): %s", ch.Source, facesWords(a.Dice, nil, star))
	case engine.ActBid:
		d.Say("%s bids %s", seat, bidName(a.Quantity, a.Face, star))
	case engine.ActShow:
		d.Say("%s shows %s and rerolls the rest", seat, faceList(a.Shown, star))
	case engine.ActChallenge:
		d.Say("%s challenges: liar!", seat)
	case engine.ActSpotOn:
		d.Say("%s calls spot on", seat)
	case engine.ActFold:
		d.Say("%s folds", seat)
	case engine.ActAllIn:
		d.Say("%s goes all in", seat)
	case engine.ActReveal:
		d.Say("reveal (%s): %s", sourceName(ch.Source), facesWords(a.Dice, a.Unconfirmed, star))
	case engine.ActCorrect:
		d.Say("correction of the last reveal (%s): %s", sourceName(ch.Source), facesWords(a.Dice, nil, star))
	}
	for _, e := range ch.Events {
		switch e := e.(type) {
		case *engine.HandStarted:
			round := ""
			if ch.Snapshot.Wins != nil {
				round = fmt.Sprintf(" round %d", e.Game)
			}
			opens := "opens"
			if e.Palifico != nil && *e.Palifico {
				opens = "opens a palifico hand (ones not wild, the face stays)"
			}
			d.Say("— game %d%s hand %d: %s %s; %s", ch.Game, round, e.Hand, e.Opener, opens, countsWords(e.Dice, "", "dice"))
		case *engine.Resolved:
			msg := "resolved: folds"
			if e.Count != nil && e.Bid != nil {
				msg = fmt.Sprintf("resolved: %s on %s; there are %d", strings.ReplaceAll(e.Call, "_", " "), bidName(e.Bid.Quantity, e.Bid.Face, star), *e.Count)
				if n := unconfirmedCount(a.Unconfirmed); n > 0 && typ == engine.ActReveal {
					msg = fmt.Sprintf("resolved: %s on %s; count %d, taking a stand-in for %s not read (it could not change the result)",
						strings.ReplaceAll(e.Call, "_", " "), bidName(e.Bid.Quantity, e.Bid.Face, star), *e.Count, diceCount(n))
				}
			}
			if len(e.Dice) > 0 {
				msg += "; " + countsWords(e.Dice, "+", "")
			}
			if len(e.Out) > 0 {
				msg += "; out: " + strings.Join(e.Out, ", ")
			}
			if len(e.Payout) > 0 {
				msg += "; takes from the pot: " + countsWords(e.Payout, "", "chips")
			}
			d.Say("%s", msg)
		case *engine.Folded:
			if len(e.Out) > 0 {
				d.Say("%s out", strings.Join(e.Out, ", "))
			}
		case *engine.GameOver:
			d.Say("game over: %s wins", e.Winner)
		case *engine.MatchOver:
			d.Say("match over: %s wins (%s)", e.Winner, countsWords(e.Wins, "", "won"))
		}
	}
}

// unconfirmedCount counts the dice of a reveal's unconfirmed list.
func unconfirmedCount(u map[string][]int) int {
	n := 0
	for _, at := range u {
		n += len(at)
	}
	return n
}

// sourceName says who sent a line, for people.
func sourceName(source string) string {
	switch source {
	case referee.SourceOperator:
		return "the operator"
	case referee.SourceMQTT:
		return "a command"
	}
	return source
}

// countsWords says a number for each seat, in seat order: "cy −1 die,
// dee −1 die" with sign "+" (changes of dice), "ann 5 dice, bob 4 dice"
// with unit "dice", "ann 12 chips" with unit "chips".
func countsWords(m map[string]int, sign, unit string) string {
	var parts []string
	for _, seat := range slices.Sorted(maps.Keys(m)) {
		n := m[seat]
		switch {
		case sign != "" && n < 0:
			parts = append(parts, fmt.Sprintf("%s −%s", seat, diceCount(-n)))
		case sign != "":
			parts = append(parts, fmt.Sprintf("%s +%s", seat, diceCount(n)))
		case unit == "dice":
			parts = append(parts, fmt.Sprintf("%s %s", seat, diceCount(n)))
		default:
			parts = append(parts, fmt.Sprintf("%s %d %s", seat, n, unit))
		}
	}
	return strings.Join(parts, ", ")
}

// diceCount says n dice in words: "1 die", "3 dice".
func diceCount(n int) string {
	if n == 1 {
		return "1 die"
	}
	return fmt.Sprintf("%d dice", n)
}

// facesWords says each seat's faces, in seat order: "ann 3 5 ★, bob 2 ?"
// (star: face 1 is the star); a die of unconfirmed (a reveal's dice the
// camera did not read for sure) is "?", its stand-in face not said.
func facesWords(m map[string][]int, unconfirmed map[string][]int, star bool) string {
	var parts []string
	for _, seat := range slices.Sorted(maps.Keys(m)) {
		faces := slices.Clone(m[seat])
		var words []string
		for i, f := range faces {
			if slices.Contains(unconfirmed[seat], i) {
				words = append(words, "?")
				continue
			}
			words = append(words, faceWord(f, star))
		}
		if len(words) == 0 {
			words = []string{"none"}
		}
		parts = append(parts, seat+" "+strings.Join(words, " "))
	}
	return strings.Join(parts, ", ")
}

// faceList says faces: "3 5 ★".
func faceList(faces []int, star bool) string {
	words := make([]string, len(faces))
	for i, f := range faces {
		words[i] = faceWord(f, star)
	}
	return strings.Join(words, " ")
}

func faceWord(f int, star bool) string {
	if star && f == 1 {
		return "★"
	}
	return fmt.Sprint(f)
}

func bidName(q, f int, star bool) string {
	face := fmt.Sprintf("%ds", f)
	if star && f == 1 {
		face = "stars"
	}
	return fmt.Sprintf("%d %s", q, face)
}
