package tournament

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
)

// Tournament is a tournament's state. Make it with New; Apply changes it.
// It is not safe for concurrent use: the service owns it on one goroutine.
type Tournament struct {
	name    string
	setup   *Setup
	players []*player
	byName  map[string]*player
	byFold  map[string]*player
	rounds  []*round
	tables  map[string]*tableTrack
	notes   []string
}

type player struct {
	Player
	// Dropped is the round after which the player was dropped (0: plays
	// on), and DropReason why.
	Dropped    int
	DropReason string
	order      int
}

// dropped says when the player was dropped, in words.
func (p *player) dropped() string {
	if p.Dropped < 0 {
		return "dropped before the first round"
	}
	return fmt.Sprintf("dropped after round %d", p.Dropped)
}

type round struct {
	Number  int
	Started time.Time
	Games   []*Game
	byTable map[string]*Game
}

// tableTrack is what the tournament knows of one of its tables: which of
// its events came (every seq from base to upto, and those beyond that
// came early), the kept events that wait for the ones before them, the
// number of the game it plays, and the tournament's game bound to it.
type tableTrack struct {
	base, upto int
	ahead      map[int]bool
	pending    []TableEvent
	// gapSince is when events began to wait for an earlier one.
	gapSince time.Time
	game     int
	current  *Game
}

// Command is a line the service sends to a table: a new_game on
// <prefix>/<table>/cmd.
type Command struct {
	Table string
	ID    string
	Line  []byte
}

// New returns a tournament named name (its id: the journal's and the
// topics') with nothing set up.
func New(name string) *Tournament {
	return &Tournament{name: name, byName: map[string]*player{}, byFold: map[string]*player{}, tables: map[string]*tableTrack{}}
}

// Name returns the tournament's id.
func (t *Tournament) Name() string { return t.name }

// Setup returns the setup, or nil before one.
func (t *Tournament) Setup() *Setup { return t.setup }

// Round returns the number of the last round started (0 before any).
func (t *Tournament) Round() int { return len(t.rounds) }

// Notes returns what the tournament noticed in the tables' events that
// the organiser should know (a game that ended without an elimination
// seen, a correction after its round was over), oldest first.
func (t *Tournament) Notes() []string { return slices.Clone(t.notes) }

// Apply takes one input. A refused input (a *Refusal) changes nothing.
// The commands are the new_game lines to send for it.
func (t *Tournament) Apply(in Input) ([]Command, error) {
	switch in.Type {
	case InSetup:
		return nil, t.applySetup(in)
	case InRegister:
		return nil, t.applyRegister(in)
	case InDrop:
		return nil, t.applyDrop(in)
	case InStartRound:
		return t.applyStartRound(in)
	case InEvents:
		t.applyEvents(in)
		return nil, nil
	case InReplies:
		t.applyReplies(in)
		return nil, nil
	case InOverride:
		return nil, t.applyOverride(in)
	case InCallTime:
		return nil, t.applyCallTime(in)
	case InRestartGame:
		return t.applyRestart(in)
	case InSkipGap:
		return nil, t.applySkipGap(in)
	}
	return nil, refuse(BadInput, "unknown type %q", in.Type)
}

// Prepare fills in what the service decides for an input from the
// organiser before it is journaled: the time it was taken, a setup's seed
// when it gave none, a round's number and seating when it gave none (the
// seating planned from the standings), and each seated table's last event
// (Seating.After, a restart's After). seed gives a new random seed. A
// round that cannot be planned is refused as Apply would refuse it.
func (t *Tournament) Prepare(in Input, now time.Time, seed func() int64) (Input, error) {
	if in.At.IsZero() {
		in.At = now
	}
	switch in.Type {
	case InSetup:
		if in.Setup != nil && in.Setup.Seed == 0 {
			s := *in.Setup
			s.Seed = seed()
			in.Setup = &s
		}
	case InStartRound:
		if in.Round == 0 {
			in.Round = len(t.rounds) + 1
			if r := t.current(); r != nil && !t.complete(r) {
				in.Round = r.Number
			}
		}
		if len(in.Tables) == 0 {
			if err := t.canStart(in.Round); err != nil {
				return in, err
			}
			tables, err := t.plan(in.Round)
			if err != nil {
				return in, err
			}
			in.Tables = tables
		}
		tables := slices.Clone(in.Tables)
		for i := range tables {
			if tt := t.tables[tables[i].Table]; tt != nil {
				tables[i].After = tt.upto
			}
		}
		in.Tables = tables
	case InRestartGame:
		if tt := t.tables[in.Table]; tt != nil {
			in.After = tt.upto
		}
	}
	return in, nil
}

func (t *Tournament) applySetup(in Input) error {
	if len(t.rounds) > 0 {
		return refuse(Started, "the tournament has started (round %d): its setup is fixed", len(t.rounds))
	}
	if err := in.Setup.check(); err != nil {
		return err
	}
	s := *in.Setup
	s.Tables = slices.Clone(s.Tables)
	t.setup = &s
	t.tables = map[string]*tableTrack{}
	for _, id := range s.Tables {
		t.tables[id] = &tableTrack{}
	}
	return nil
}

func (t *Tournament) applyRegister(in Input) error {
	if len(in.Players) == 0 {
		return refuse(BadInput, "register names one or more players")
	}
	if t.setup != nil && t.setup.Format == Knockout && len(t.rounds) > 0 {
		return refuse(Started, "a knock-out takes no players once it has started")
	}
	if r := t.finishedRound(); r > 0 {
		return refuse(Finished, "the tournament is over (round %d was its last)", r)
	}
	seen := map[string]string{}
	for _, p := range in.Players {
		if !validName(p.Name) {
			return refuse(BadPlayer, "%q is not a player's name: 1 to 32 letters, digits, spaces, _ and - (as a table's seats)", p.Name)
		}
		f := foldName(p.Name)
		if old, ok := t.byFold[f]; ok {
			what := "registered"
			if old.Dropped != 0 {
				what = "registered (" + old.dropped() + ")"
			}
			if old.Name == p.Name {
				return refuse(DuplicatePlayer, "%s is %s already", p.Name, what)
			}
			return refuse(DuplicatePlayer, "%s is %s already as %s: names differing only in capitals would be one player at a table", p.Name, what, old.Name)
		}
		if other, ok := seen[f]; ok {
			return refuse(DuplicatePlayer, "%s is named twice in this registration (%s)", p.Name, other)
		}
		seen[f] = p.Name
		if p.Computer != "" && !slices.Contains(computer.Levels, p.Computer) {
			return refuse(BadPlayer, "%s: no computer level %q (levels: %s)", p.Name, p.Computer, strings.Join(computer.Levels, ", "))
		}
	}
	for _, p := range in.Players {
		np := &player{Player: p, order: len(t.players)}
		t.players = append(t.players, np)
		t.byName[p.Name] = np
		t.byFold[foldName(p.Name)] = np
	}
	return nil
}

func (t *Tournament) applyDrop(in Input) error {
	p, ok := t.byName[in.Player]
	if !ok {
		return refuse(UnknownPlayer, "no player %q is registered", in.Player)
	}
	if p.Dropped != 0 {
		return refuse(NotNow, "%s was %s already", p.Name, p.dropped())
	}
	p.Dropped = max(len(t.rounds), 1)
	if len(t.rounds) == 0 {
		p.Dropped = -1 // before the first round: plays no round
	}
	p.DropReason = in.Reason
	return nil
}

// active returns the players a new round seats: registered, not dropped,
// in registration order.
func (t *Tournament) active() []*player {
	var out []*player
	for _, p := range t.players {
		if p.Dropped == 0 {
			out = append(out, p)
		}
	}
	return out
}

func (t *Tournament) current() *round {
	if len(t.rounds) == 0 {
		return nil
	}
	return t.rounds[len(t.rounds)-1]
}

// complete reports whether every game of r has a result.
func (t *Tournament) complete(r *round) bool {
	for _, g := range r.Games {
		if g.Result == nil {
			return false
		}
	}
	return true
}

// finishedRound returns the last round when the tournament is over, else 0.
func (t *Tournament) finishedRound() int {
	r := t.current()
	if r == nil || t.setup == nil || !t.complete(r) {
		return 0
	}
	if t.setup.Format == Swiss && r.Number >= t.setup.Rounds {
		return r.Number
	}
	if t.setup.Format == Knockout && len(r.Games) == 1 {
		return r.Number
	}
	return 0
}

// Finished reports whether the tournament is over.
func (t *Tournament) Finished() bool { return t.finishedRound() > 0 }

// canStart says why round n cannot start now, if it cannot.
func (t *Tournament) canStart(n int) error {
	if t.setup == nil {
		return refuse(NotSetUp, "set the tournament up first")
	}
	if last := t.finishedRound(); last > 0 {
		return refuse(Finished, "the tournament is over: round %d was its last", last)
	}
	if r := t.current(); r != nil {
		if n <= r.Number {
			if t.complete(r) {
				return refuse(RoundStarted, "round %d started already (%s) and is over; round %d is next", n, r.Started.UTC().Format("15:04:05"), r.Number+1)
			}
			return refuse(RoundStarted, "round %d started already (%s); %s", n, r.Started.UTC().Format("15:04:05"), t.waiting(r))
		}
		if !t.complete(r) {
			return refuse(RoundInProgress, "round %d is still being played: %s", r.Number, t.waiting(r))
		}
	}
	if want := len(t.rounds) + 1; n != want {
		return refuse(UnknownRound, "round %d is next, not %d", want, n)
	}
	return nil
}

// waiting says which games of r have no result yet.
func (t *Tournament) waiting(r *round) string {
	var ids []string
	for _, g := range r.Games {
		if g.Result == nil {
			ids = append(ids, g.Table)
		}
	}
	shown := ids
	if len(shown) > 8 {
		shown = append(slices.Clone(ids[:8]), "...")
	}
	return fmt.Sprintf("%d of %d tables have no result yet (%s)", len(ids), len(r.Games), strings.Join(shown, ", "))
}

func (t *Tournament) applyStartRound(in Input) ([]Command, error) {
	if err := t.canStart(in.Round); err != nil {
		return nil, err
	}
	if err := t.checkSeating(in.Tables); err != nil {
		return nil, err
	}
	r := &round{Number: in.Round, Started: in.At, byTable: map[string]*Game{}}
	var cmds []Command
	for _, s := range in.Tables {
		g := &Game{Round: r.Number, Table: s.Table, Seats: slices.Clone(s.Seats), Attempt: 1, After: s.After, Since: in.At}
		g.Seed = gameSeed(t.setup.Seed, r.Number, s.Table, g.Attempt)
		r.Games = append(r.Games, g)
		r.byTable[s.Table] = g
		cmds = append(cmds, t.command(g))
	}
	t.rounds = append(t.rounds, r)
	return cmds, nil
}

// checkSeating says what is wrong with a round's seating: every player
// who plays on seated once, at tables of the setup, each table once, of
// sizes the preset takes and the setup allows.
func (t *Tournament) checkSeating(tables []Seating) error {
	if len(tables) == 0 {
		return refuse(BadSeating, "a round seats players at one table or more")
	}
	p := engine.Presets[t.setup.Rules]
	want := map[string]bool{}
	for _, a := range t.seatable() {
		want[a.Name] = true
	}
	usedTable := map[string]bool{}
	seated := map[string]string{}
	for _, s := range tables {
		if _, ok := t.tables[s.Table]; !ok {
			return refuse(UnknownTable, "table %q is not one of the tournament's tables", s.Table)
		}
		if usedTable[s.Table] {
			return refuse(BadSeating, "table %s is seated twice", s.Table)
		}
		usedTable[s.Table] = true
		if len(s.Seats) < p.MinSeats || len(s.Seats) > t.setup.Seats {
			return refuse(BadSeating, "table %s seats %d players: %d to %d", s.Table, len(s.Seats), p.MinSeats, t.setup.Seats)
		}
		for _, n := range s.Seats {
			if _, ok := t.byName[n]; !ok {
				return refuse(UnknownPlayer, "no player %q is registered (table %s)", n, s.Table)
			}
			if !want[n] {
				return refuse(BadSeating, "%s does not play this round (dropped, or knocked out)", n)
			}
			if at, ok := seated[n]; ok {
				return refuse(BadSeating, "%s is seated twice (tables %s and %s)", n, at, s.Table)
			}
			seated[n] = s.Table
		}
	}
	for _, a := range t.seatable() {
		if _, ok := seated[a.Name]; !ok {
			return refuse(BadSeating, "%s plays this round but has no seat", a.Name)
		}
	}
	return nil
}

// command is game g's new_game for its table.
func (t *Tournament) command(g *Game) Command {
	comp := map[string]string{}
	for _, s := range g.Seats {
		if p := t.byName[s]; p != nil && p.Computer != "" {
			comp[s] = p.Computer
		}
	}
	id := g.ID(t.name)
	return Command{Table: g.Table, ID: id, Line: newGameLine(t.setup, g.Seats, comp, g.Seed, id)}
}

// Pending returns the new_game of each game of the current round that its
// table has neither started nor refused, for the service to send again at
// its start: a table answers a command id it has taken once as it did
// then, so sending one again never starts a game twice.
func (t *Tournament) Pending() []Command {
	r := t.current()
	if r == nil {
		return nil
	}
	var out []Command
	for _, g := range r.Games {
		if !g.Started() && g.Refused == nil && g.Result == nil && !g.TimeCalled && g.Abandoned == "" {
			out = append(out, t.command(g))
		}
	}
	return out
}

// gameSeed is a game's seed: from the tournament's, the round, the table
// and the attempt, below 2^53 so that every JSON reader keeps it exact.
func gameSeed(seed int64, round int, table string, attempt int) int64 {
	h := hash64(fmt.Sprintf("%d/%d/%s/%d", seed, round, table, attempt))
	return int64(h>>11) + 1
}

// hash64 is FNV-1a of s, its bits then mixed (splitmix64's finalizer):
// FNV-1a alone keeps names that differ in their last letter near each
// other, which would seat Player 0020 to Player 0024 together.
func hash64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// Fresh reports whether the event of table with seq is news to the
// tournament: a table of its own, a seq it has not had. The service
// journals only those.
func (t *Tournament) Fresh(table string, seq int) bool {
	tt := t.tables[table]
	if tt == nil || seq < 1 {
		return false
	}
	if tt.base == 0 {
		return true
	}
	if seq <= tt.upto {
		return false
	}
	if tt.ahead[seq] {
		return false
	}
	return true
}

// applyEvents takes a batch of the tables' events. A broker keeps a
// table's order on a connection, but not always across a reconnection of
// a persistent session: messages published meanwhile can overtake those
// it had queued (Mosquitto 2.0.11 does, docs/venue.md). So every seq that
// came is noted (in.Seen), and a kept event is taken only once every
// event before it came: a table's events are taken in seq order, always.
func (t *Tournament) applyEvents(in Input) {
	touched := map[string]bool{}
	for _, r := range in.Seen {
		tt := t.tables[r.Table]
		if tt == nil || r.From < 1 || r.To < r.From {
			continue
		}
		if tt.base == 0 {
			tt.base, tt.upto, tt.ahead = r.From, r.From-1, map[int]bool{}
		}
		for s := max(r.From, tt.upto+1); s <= r.To; s++ {
			tt.ahead[s] = true
		}
		touched[r.Table] = true
	}
	for _, ev := range in.Events {
		tt := t.tables[ev.Table]
		if tt == nil || !Kept(ev.Type) || ev.Seq <= tt.upto {
			continue
		}
		if tt.base == 0 {
			tt.base, tt.upto, tt.ahead = ev.Seq, ev.Seq-1, map[int]bool{}
		}
		tt.ahead[ev.Seq] = true
		i, found := slices.BinarySearchFunc(tt.pending, ev.Seq, func(e TableEvent, s int) int { return e.Seq - s })
		if !found {
			tt.pending = slices.Insert(tt.pending, i, ev)
		}
		touched[ev.Table] = true
	}
	for _, id := range sortedNames(touched) {
		t.advance(t.tables[id], in.At)
	}
}

// advance takes the table's events that no longer wait for an earlier
// one, in seq order.
func (t *Tournament) advance(tt *tableTrack, at time.Time) {
	for tt.ahead[tt.upto+1] {
		delete(tt.ahead, tt.upto+1)
		tt.upto++
	}
	n := 0
	for n < len(tt.pending) && tt.pending[n].Seq <= tt.upto {
		t.takeEvent(tt, tt.pending[n], at)
		n++
	}
	tt.pending = tt.pending[n:]
	switch {
	case len(tt.ahead) == 0:
		tt.gapSince = time.Time{}
	case tt.gapSince.IsZero():
		tt.gapSince = at
	}
}

// Gaps returns a skip_gap for each table whose events have waited since
// before now minus wait for one that never came (a broker that lost it):
// the service journals it, and the table's events are taken on without it.
func (t *Tournament) Gaps(now time.Time, wait time.Duration) []Input {
	var out []Input
	for _, id := range sortedNames(t.tables) {
		tt := t.tables[id]
		if len(tt.ahead) > 0 && !tt.gapSince.IsZero() && now.Sub(tt.gapSince) >= wait {
			out = append(out, Input{Type: InSkipGap, Table: id, At: now})
		}
	}
	return out
}

func (t *Tournament) applySkipGap(in Input) error {
	tt := t.tables[in.Table]
	if tt == nil {
		return refuse(UnknownTable, "table %q is not one of the tournament's tables", in.Table)
	}
	if len(tt.ahead) == 0 {
		return refuse(NotNow, "table %s's events wait for none", in.Table)
	}
	first := slices.Min(slices.Collect(maps.Keys(tt.ahead)))
	t.note(fmt.Sprintf("table %s: events %d to %d never came (lost by the broker?); the table's events were taken on without them", in.Table, tt.upto+1, first-1))
	tt.upto = first - 1
	t.advance(tt, in.At)
	if len(tt.ahead) > 0 {
		tt.gapSince = in.At // another gap waits its own time
	}
	return nil
}

// takeEvent takes one kept event of a table, in seq order.
func (t *Tournament) takeEvent(tt *tableTrack, ev TableEvent, at time.Time) {
	if ev.Type == evHandStarted && (ev.Hand == 1 || ev.Game != tt.game) {
		t.tableStarted(tt, ev, at)
		return
	}
	g := tt.current
	if g == nil || (ev.Game != 0 && ev.Game != tt.game) {
		return
	}
	if g.Result != nil && g.Result.Source != FromEvents {
		g.take(ev) // kept for the record; a time call or an override stands
		return
	}
	if r := t.current(); r != nil && g.Round < r.Number && ev.Type == evCorrected {
		// The round is over and the next one was seated on its
		// results: they stand.
		g.Late++
		t.note(fmt.Sprintf("table %s corrected a reveal of round %d's game after round %d had started: the result stands", g.Table, g.Round, r.Number))
		return
	}
	g.take(ev)
	if note := g.settle(at); note != "" {
		t.note(note)
	}
}

// tableStarted takes a table's first hand_started of a new game: the
// game of the current round waiting there is bound to it when its seats
// are that game's; a tournament game the table was playing is abandoned.
func (t *Tournament) tableStarted(tt *tableTrack, ev TableEvent, at time.Time) {
	tt.game = ev.Game
	prev := tt.current
	tt.current = nil
	var g *Game
	if r := t.current(); r != nil {
		g = r.byTable[ev.Table]
	}
	if g != nil && g.Result == nil && !g.TimeCalled && ev.Seq > g.After && sameSet(g.Seats, ev.Dice) {
		g.Start, g.log, g.Abandoned, g.Refused = ev.Seq, []TableEvent{ev}, "", nil
		tt.current = g
		return
	}
	if prev != nil && prev.Result == nil && !prev.TimeCalled {
		prev.Abandoned = fmt.Sprintf("table %s started another game (seq %d, seats %s) before round %d's game ended", ev.Table, ev.Seq, strings.Join(sortedNames(ev.Dice), ", "), prev.Round)
	}
}

func (t *Tournament) applyReplies(in Input) {
	r := t.current()
	if r == nil {
		return
	}
	for _, rep := range in.Replies {
		g := r.byTable[rep.Table]
		if g == nil || rep.OK || rep.ID != g.ID(t.name) || g.Started() {
			continue
		}
		rr := rep
		g.Refused = &rr
	}
}

// game returns round n's game at table, or says why there is none.
func (t *Tournament) game(n int, table string) (*Game, error) {
	if n < 1 || n > len(t.rounds) {
		if len(t.rounds) == 0 {
			return nil, refuse(UnknownRound, "no round has started")
		}
		return nil, refuse(UnknownRound, "no round %d: rounds 1 to %d have started", n, len(t.rounds))
	}
	g := t.rounds[n-1].byTable[table]
	if g == nil {
		if _, ok := t.tables[table]; !ok {
			return nil, refuse(UnknownTable, "table %q is not one of the tournament's tables", table)
		}
		return nil, refuse(UnknownTable, "round %d has no game at table %s", n, table)
	}
	return g, nil
}

func (t *Tournament) applyOverride(in Input) error {
	g, err := t.game(in.Round, in.Table)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.Reason) == "" {
		return refuse(BadInput, "an override needs a reason (it is shown with the result)")
	}
	in_ := map[string]bool{}
	for _, s := range g.Seats {
		in_[s] = true
	}
	seen := map[string]bool{}
	for _, n := range in.Order {
		if !in_[n] {
			if _, ok := t.byName[n]; !ok {
				return refuse(UnknownPlayer, "no player %q is registered", n)
			}
			return refuse(UnknownPlayer, "%s did not play at table %s in round %d (%s did)", n, g.Table, g.Round, strings.Join(g.Seats, ", "))
		}
		if seen[n] {
			return refuse(BadOrder, "%s is named twice", n)
		}
		seen[n] = true
	}
	var missing []string
	for _, s := range g.Seats {
		if !seen[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return refuse(BadOrder, "the order names every player of the game, best first: %s missing", strings.Join(missing, ", "))
	}
	order := make([][]string, len(in.Order))
	for i, n := range in.Order {
		order[i] = []string{n}
	}
	if g.Result != nil && g.Result.Source != FromOverride {
		prev := *g.Result
		g.Overridden = &prev
	}
	g.Result = &Result{Order: order, Source: FromOverride, Reason: in.Reason, Start: g.Start, At: in.At}
	return nil
}

func (t *Tournament) applyCallTime(in Input) error {
	g, err := t.game(in.Round, in.Table)
	if err != nil {
		return err
	}
	if in.Round != len(t.rounds) {
		return refuse(NotNow, "round %d is over; time is called in the round being played (%d)", in.Round, len(t.rounds))
	}
	if g.Result != nil {
		return refuse(NotNow, "table %s's game has a result already (%s)", g.Table, g.Result.Source)
	}
	if g.TimeCalled {
		return refuse(NotNow, "time was called at table %s already", g.Table)
	}
	g.TimeCalled = true
	if !g.Started() {
		return nil // no result: the organiser overrides or restarts it
	}
	p := progressOf(g.Seats, g.log)
	g.Result = &Result{Order: orderByDice(g.Seats, p), Source: FromTime, Reason: in.Reason, Start: g.Start, Seq: p.seq, At: in.At}
	return nil
}

func (t *Tournament) applyRestart(in Input) ([]Command, error) {
	g, err := t.game(in.Round, in.Table)
	if err != nil {
		return nil, err
	}
	if in.Round != len(t.rounds) {
		return nil, refuse(NotNow, "round %d is over; only the round being played (%d) restarts a game", in.Round, len(t.rounds))
	}
	if g.Result != nil {
		return nil, refuse(NotNow, "table %s's game has a result (%s): override it instead", g.Table, g.Result.Source)
	}
	if tt := t.tables[g.Table]; tt != nil && tt.current == g {
		tt.current = nil
	}
	g.Attempt++
	g.Seed = gameSeed(t.setup.Seed, g.Round, g.Table, g.Attempt)
	g.After, g.Since = in.After, in.At
	g.Start, g.log, g.Refused, g.Abandoned, g.TimeCalled = 0, nil, nil, "", false
	return []Command{t.command(g)}, nil
}

// Overdue returns a call_time for each game of the current round that has
// run past the time limit at now without a result.
func (t *Tournament) Overdue(now time.Time) []Input {
	r := t.current()
	if r == nil || t.setup == nil || t.setup.TimeLimit <= 0 {
		return nil
	}
	var out []Input
	for _, g := range r.Games {
		if g.Result == nil && !g.TimeCalled && now.Sub(g.Since) >= time.Duration(t.setup.TimeLimit) {
			out = append(out, Input{Type: InCallTime, Round: r.Number, Table: g.Table, At: now,
				Reason: fmt.Sprintf("the time limit (%s) passed", t.setup.TimeLimit)})
		}
	}
	return out
}

func (t *Tournament) note(s string) {
	t.notes = append(t.notes, s)
	if len(t.notes) > 100 {
		t.notes = t.notes[len(t.notes)-100:]
	}
}

// Games returns the games of round n (1-based), or nil.
func (t *Tournament) Games(n int) []*Game {
	if n < 1 || n > len(t.rounds) {
		return nil
	}
	return t.rounds[n-1].Games
}

// Players returns the registered players in registration order.
func (t *Tournament) Players() []Player {
	out := make([]Player, len(t.players))
	for i, p := range t.players {
		out[i] = p.Player
	}
	return out
}
