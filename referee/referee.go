package referee

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"log/slog"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee/journal"
)

// MaxCommandBytes is the longest input the referee takes; a longer one is
// refused as bad_input without being parsed.
const MaxCommandBytes = 64 << 10

// Sources of inputs, as logs and observers name them.
const (
	SourceMQTT     = "mqtt"
	SourceButtons  = "buttons"
	SourceCamera   = "camera"
	SourceOperator = "operator"
	SourceSeat     = "seat" // a computer seat, "seat:NAME"
)

// OperatorIDPrefix begins the ids of the operator page's commands: a
// command over MQTT whose id is a string with it is the operator's (its
// source is SourceOperator). It grants nothing: the source only names who
// sent a line, in logs, to observers and on the operator page.
const OperatorIDPrefix = "operator-"

// ErrBusy is returned by Submit when the input queue is full.
var ErrBusy = errors.New("referee: busy, the input queue is full")

// ErrStopped is returned by Submit after Run has returned.
var ErrStopped = errors.New("referee: stopped")

// Config is what a Referee is made of. Publisher and Journal are required;
// the rest may be left out.
type Config struct {
	// Table is the table's id (MQTT topics, logs).
	Table     string
	Journal   *journal.Journal
	Publisher Publisher
	// Board shows the game on the LEDs; nil for none.
	Board Board
	// Camera is the camera's adapter (referee/camera): a follower that
	// reads the dice after a call and takes them as the reveal. With one,
	// a table that awaits dice is reading, and needs a look when the
	// camera asks for one; without, reveals come from commands (an
	// operator, a scoreboard app) and the table waits for them.
	Camera Follower
	// Followers are told of each accepted input, after the board and
	// before the camera (the operator page's reads, a program's own).
	Followers []Follower
	Clock     Clock
	Logger    *slog.Logger
	// Observe, when set, is called from the referee's goroutine after each
	// accepted input. It must not block.
	Observe func(Change)
	// NewSeed gives the seed of a new_game that names none (crypto/rand).
	NewSeed func() int64
	// QueueLen is the input queue's length (256).
	QueueLen int
	// Computers are the seats the referee plays: a new_game that names them
	// (and no computer field of its own) makes them computer seats, whose
	// dice the engine rolls, and the referee plays their turns.
	Computers []Computer
	// ComputerPace is the pause before a computer seat acts, so that people
	// see the table move (DefaultComputerPace).
	ComputerPace time.Duration
	// NewGame is the table's usual new_game line: a new_game that names no
	// rules or seats takes them (and the options) from it.
	NewGame []byte
}

// Referee runs one table. Make it with New, run it with Run, and feed it
// with Submit from any goroutine.
type Referee struct {
	cfg   Config
	log   *slog.Logger
	table *engine.Table
	// base is the journal's checkpoint the table was resumed from (or
	// the last segment's, once a new one began), and lines the journal's
	// lines after it, refused ones too: record line base.Lines+i+1 is
	// lines[i].
	base  journal.Checkpoint
	lines [][]byte
	// game holds the accepted lines of the game in progress, from its
	// new_game: a checkpoint's Game.
	game [][]byte
	// gameNumber counts the journal's accepted new_game lines: the game
	// in progress's number in the journal (the state's game_number, as
	// the scoreboard's records number games).
	gameNumber int
	// journalSeq is the seq the journal's replay reached in New.
	journalSeq int
	// accepted counts the accepted lines: the table changes only with
	// them, so a camera read started before a refused line still fits.
	accepted int
	// lastRoll is the game's last accepted opening roll.
	lastRoll map[string][]int
	replay   []engine.Event
	// defaults is the table's usual new_game, read once.
	defaults *newGame

	inputs   chan queued
	internal chan func()
	done     chan struct{}

	status    Status
	statusErr string
	// look is what the camera asked a person to look at, while the table
	// is as it was then (lookFor, the accepted count).
	look    *stateLook
	lookFor int
	last    *engine.Resolved
	// lastUnconfirmed is the last revealed event's unconfirmed dice (the
	// state's last_unconfirmed), while last is its resolution.
	lastUnconfirmed map[string][]int

	window    window
	followers []Follower
	comp      *computers
	desk      *Desk
}

// New returns a referee whose table has resumed from what journal.Open
// read: the table at the checkpoint (its game in progress replayed, its
// seq and its remembered command ids), then the lines after it replayed.
// Replay regenerates the same events with the same seq; Run hands them to
// the Publisher first, which skips those already delivered. When the
// journal's last segment is full (or an older journal's file), Run starts
// a new one first: New writes nothing.
func New(cfg Config, resume journal.Resume) (*Referee, error) {
	if cfg.Journal == nil {
		return nil, errors.New("referee: no journal")
	}
	if cfg.Publisher == nil {
		return nil, errors.New("referee: no publisher")
	}
	cfg = withConfigDefaults(cfg)
	r := &Referee{
		cfg:      cfg,
		log:      cfg.Logger.With("table", cfg.Table),
		table:    engine.NewTable(),
		inputs:   make(chan queued, cfg.QueueLen),
		internal: make(chan func(), 16),
		done:     make(chan struct{}),
		status:   StatusReady,
	}
	r.desk = &Desk{r: r}
	var err error
	if r.defaults, err = readNewGame(cfg.NewGame); err != nil {
		return nil, err
	}
	if r.comp, err = newComputers(r, cfg.Computers, cfg.NewSeed()); err != nil {
		return nil, err
	}
	r.followers = r.followersOf(cfg)
	r.resetTo(resume.Checkpoint)
	r.replay = r.replayLines(resume.Lines)
	r.journalSeq = r.table.Seq()
	if len(resume.Lines) > 0 || resume.Checkpoint.Lines > 0 {
		r.log.Info("referee: journal replayed", "from_line", resume.Checkpoint.Lines+1, "lines", len(r.lines), "seq", r.table.Seq())
	}
	return r, nil
}

// withConfigDefaults fills what cfg leaves out.
func withConfigDefaults(cfg Config) Config {
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.NewSeed == nil {
		cfg.NewSeed = randomSeed
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = 256
	}
	if cfg.ComputerPace <= 0 {
		cfg.ComputerPace = DefaultComputerPace
	}
	return cfg
}

// followersOf lists who follows the table's changes, in order: the board,
// the configured followers, the camera, the observer, the computer seats
// (and the reveal of a hand of computer seats alone).
func (r *Referee) followersOf(cfg Config) []Follower {
	var fs []Follower
	if cfg.Board != nil {
		fs = append(fs, boardFollower{board: cfg.Board, log: r.log})
	}
	fs = append(fs, cfg.Followers...)
	if cfg.Camera != nil {
		fs = append(fs, cfg.Camera)
	}
	if cfg.Observe != nil {
		fs = append(fs, observer(cfg.Observe))
	}
	return append(fs, r.comp)
}

// JournalSeq returns the seq of the journal's last event when New
// returned: the daemon compares it with the last event the broker
// acknowledged.
func (r *Referee) JournalSeq() int { return r.journalSeq }

func randomSeed() int64 {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return time.Now().UnixNano()
	}
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// Run referees until ctx is done. It first starts a new journal segment
// if one is due, publishes the events replayed from the journal and the
// state, tells the followers the table as it stands, then takes inputs one
// at a time.
func (r *Referee) Run(ctx context.Context) error {
	defer close(r.done)
	r.maybeRotate()
	for _, e := range r.replay {
		r.publishEvent(e)
	}
	r.replay = nil
	r.updateStatus()
	r.publishState()
	r.follow(Change{Snapshot: r.table.Snapshot(), Game: r.gameNumber, Version: r.accepted})
	for {
		select {
		case <-ctx.Done():
			return nil
		case in := <-r.inputs:
			r.handle(in)
		case f := <-r.internal:
			f()
		}
	}
}

// follow tells the followers of a change, in order.
func (r *Referee) follow(c Change) {
	for _, f := range r.followers {
		f.Follow(r.desk, c)
	}
}

// post runs f on the referee's goroutine; it gives up when Run is over.
// It never blocks: the referee's goroutine itself posts (a computer seat's
// show, a reveal of computer seats alone), and it is the only one that
// empties the channel, so waiting on a full one there would hang the table.
func (r *Referee) post(f func()) {
	select {
	case r.internal <- f:
		return
	case <-r.done:
		return
	default:
	}
	go func() {
		select {
		case r.internal <- f:
		case <-r.done:
		}
	}()
}
