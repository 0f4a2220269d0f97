// Package service runs a tournament: its journal (referee/journal, one
// tournament input a line, each synced before its effects leave), its
// MQTT side (the tables' events and replies in, their new_game commands
// and the tournament's retained topics out), the organiser's inputs and
// the time limits. One goroutine owns the tournament; the core
// (referee/tournament) decides everything, this package carries inputs in
// and effects out.
//
// Nothing is lost to a kill -9: an input is journaled (fsync) before it
// changes anything the world sees, and a table's event is acknowledged to
// the broker only once what the tournament keeps of it is journaled, so
// the broker delivers again what the service had not kept when it died. A
// restart replays the journal, sends again the new_game of every game its
// table has not started (the table answers a command id it has seen as it
// did, without starting a second game) and takes the events the broker
// kept meanwhile.
package service

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/tournament"
	"github.com/liarsd/liarsd/referee/tournament/link"
)

// Link is what the service needs of its MQTT side (a *link.Link).
type Link interface {
	Messages() <-chan link.Message
	Connected() <-chan struct{}
	Send(table string, line []byte)
	Publish(topic string, payload []byte)
}

// Config configures a Service.
type Config struct {
	// Name is the tournament's id.
	Name string
	// Journal is the tournament's journal directory.
	Journal string
	// NoSync skips the journal's fsync (tests and throwaway runs only).
	NoSync bool
	Link   Link
	// Prefix is the topics' first level (liarsdice).
	Prefix string
	// Now is the clock (time.Now); NewSeed draws a setup's seed when it
	// gives none (crypto/rand).
	Now     func() time.Time
	NewSeed func() int64
	Logger  *slog.Logger
	// PublishEvery is the most often the retained state and standings go
	// out while tables play (1 s); an organiser's input publishes at once.
	PublishEvery time.Duration
	// Batch is the most table messages journaled as one line (256).
	Batch int
	// Tick is how often time limits are checked (1 s).
	Tick time.Duration
	// ResendAfter is the wait before a new_game a table answered busy is
	// sent again (2 s).
	ResendAfter time.Duration
	// ResendWait is the least time between two sendings of the waiting
	// games' commands at reconnections (1 min).
	ResendWait time.Duration
	// GapWait is how long a table's events wait for an earlier one that
	// has not come before they are taken on without it (2 min): a broker
	// that reorders delivers it within seconds; one that lost it never
	// will.
	GapWait time.Duration
}

// Reply answers an organiser's input.
type Reply struct {
	OK      bool   `json:"ok"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
}

// Snapshot is the tournament as the pages read it, made after each change.
type Snapshot struct {
	View      []byte // tournament.View as JSON
	Standings []byte // {"tie_breaks", "standings"} as JSON
}

// Service runs one tournament.
type Service struct {
	cfg   Config
	log   *slog.Logger
	t     *tournament.Tournament
	j     *journal.Journal
	lines int

	requests chan request
	resend   chan string
	snap     atomic.Pointer[Snapshot]

	stateTopic, standingsTopic string
	dirty                      bool
	lastPublish                time.Time

	mu    sync.Mutex
	stats Stats
}

// Stats count what the service did, for tests and benchmarks.
type Stats struct {
	// Messages are the table messages taken, Kept the events journaled,
	// Batches the lines they were journaled in.
	Messages, Kept, Batches int
	// Sent counts the new_game commands sent (again included).
	Sent int
	// Published counts the retained state publishes.
	Published int
}

type request struct {
	line   []byte
	export chan<- tournament.Export
	reply  chan<- Reply
}

// New opens the journal and replays it: the tournament as it was.
func New(cfg Config) (*Service, error) {
	if !link.ValidName(cfg.Name) {
		return nil, fmt.Errorf("service: tournament name %q: 1 to 64 letters, digits, - and _", cfg.Name)
	}
	if cfg.Link == nil {
		return nil, errors.New("service: no link to the broker")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewSeed == nil {
		cfg.NewSeed = randomSeed
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PublishEvery <= 0 {
		cfg.PublishEvery = time.Second
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 256
	}
	if cfg.Tick <= 0 {
		cfg.Tick = time.Second
	}
	if cfg.ResendAfter <= 0 {
		cfg.ResendAfter = 2 * time.Second
	}
	if cfg.ResendWait <= 0 {
		cfg.ResendWait = time.Minute
	}
	if cfg.GapWait <= 0 {
		cfg.GapWait = 2 * time.Minute
	}
	// Segments are the referee's way to start without replaying
	// everything; a tournament's journal is short (a few lines a game)
	// and is replayed whole, so it stays one segment.
	j, res, err := journal.Open(cfg.Journal, journal.Options{NoSync: cfg.NoSync, SegmentLines: 1 << 30})
	if err != nil {
		return nil, fmt.Errorf("service: %w", err)
	}
	t, err := Replay(cfg.Name, res.Lines)
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("service: the journal %s: %w", cfg.Journal, err)
	}
	if len(res.Torn) > 0 {
		cfg.Logger.Warn("service: the journal's last line was cut short (power cut?) and is dropped; it was never acted on", "bytes", len(res.Torn))
	}
	s := &Service{cfg: cfg, log: cfg.Logger, t: t, j: j, lines: len(res.Lines),
		requests: make(chan request), resend: make(chan string, 64), dirty: true}
	s.stateTopic, s.standingsTopic, _ = link.Topics(cfg.Prefix, cfg.Name)
	s.snapshot()
	cfg.Logger.Info("service: journal replayed", "journal", cfg.Journal, "lines", len(res.Lines), "round", t.Round())
	return s, nil
}

// Replay rebuilds a tournament from its journal's lines. A line the
// tournament refuses is damage (the journal keeps accepted inputs only).
func Replay(name string, lines [][]byte) (*tournament.Tournament, error) {
	t := tournament.New(name)
	for i, l := range lines {
		if len(l) == 0 {
			continue
		}
		in, err := tournament.Decode(l)
		if err == nil {
			_, err = t.Apply(in)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d is refused on replay (%w): %w", i+1, err, journal.ErrDamaged)
		}
	}
	return t, nil
}

func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:])>>11) + 1
}

// Snapshot returns the tournament as it stood after its last change.
func (s *Service) Snapshot() Snapshot { return *s.snap.Load() }

// Stats returns what the service did so far.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Do takes an organiser's input (one JSON line) and answers once it is
// journaled and applied, or refused.
func (s *Service) Do(ctx context.Context, line []byte) Reply {
	ch := make(chan Reply, 1)
	select {
	case s.requests <- request{line: line, reply: ch}:
	case <-ctx.Done():
		return Reply{Reason: "stopped", Message: "the tournament service is stopping"}
	}
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		return Reply{Reason: "stopped", Message: "the tournament service is stopping"}
	}
}

// Export returns the results as they stand.
func (s *Service) Export(ctx context.Context) (tournament.Export, error) {
	ch := make(chan tournament.Export, 1)
	select {
	case s.requests <- request{export: ch}:
	case <-ctx.Done():
		return tournament.Export{}, ctx.Err()
	}
	select {
	case e := <-ch:
		return e, nil
	case <-ctx.Done():
		return tournament.Export{}, ctx.Err()
	}
}

// Run takes inputs until ctx is done. It returns an error when the
// journal cannot be written: nothing more may happen without it (a
// restart resumes from what it holds, and the broker delivers again the
// events not acknowledged).
func (s *Service) Run(ctx context.Context) error {
	defer s.j.Close()
	tick := time.NewTicker(s.cfg.Tick)
	defer tick.Stop()
	msgs := s.cfg.Link.Messages()
	// A gap is skipped only once the service has been connected for the
	// wait: an event missing before a restart is likely among those the
	// broker kept meanwhile, not yet read.
	connected := s.cfg.Now()
	var resent time.Time // when waiting games' commands last went again
	for {
		select {
		case <-ctx.Done():
			// What changed since the last publish goes with the link's
			// Close.
			s.publish(true)
			return nil
		case <-s.cfg.Link.Connected():
			// Every connection: the broker may have lost the retained
			// topics, or the commands queued for an away table. Commands
			// go again at the first connection (what a restart knows of
			// nothing sent) and then at most every ResendWait: paho
			// resends what the broker had not acknowledged itself.
			connected = s.cfg.Now()
			s.dirty = true
			s.publish(true)
			if resent.IsZero() || connected.Sub(resent) >= s.cfg.ResendWait {
				s.send(s.t.Pending())
				resent = connected
			}
		case r := <-s.requests:
			if r.export != nil {
				r.export <- s.t.Export()
				continue
			}
			rep, err := s.organiser(r.line)
			r.reply <- rep
			if err != nil {
				return err
			}
		case m := <-msgs:
			if err := s.messages(m, msgs); err != nil {
				return err
			}
		case table := <-s.resend:
			for _, c := range s.t.Pending() {
				if c.Table == table {
					s.send([]tournament.Command{c})
				}
			}
		case <-tick.C:
			now := s.cfg.Now()
			var due []tournament.Input
			if now.Sub(connected) >= s.cfg.GapWait {
				due = s.t.Gaps(now, s.cfg.GapWait)
			}
			for _, in := range append(due, s.t.Overdue(now)...) {
				if _, err := s.take(in); err != nil {
					if tournament.AsRefusal(err) == nil {
						return err
					}
					s.log.Warn("service: a time call or a gap's skip was refused", "table", in.Table, "err", err)
				} else if in.Type == tournament.InSkipGap {
					s.log.Warn("service: a table's event never came; its events are taken on without it", "table", in.Table, "waited", s.cfg.GapWait)
				}
			}
		}
		s.publish(false)
	}
}

// organiser takes one input of the organiser's.
func (s *Service) organiser(line []byte) (Reply, error) {
	in, err := tournament.Decode(line)
	if err == nil {
		in, err = s.t.Prepare(in, s.cfg.Now(), s.cfg.NewSeed)
	}
	if err == nil {
		var cmds []tournament.Command
		if cmds, err = s.take(in); err == nil {
			s.publish(true)
			return Reply{OK: true, Message: s.done(in, cmds)}, nil
		}
	}
	if r := tournament.AsRefusal(err); r != nil {
		s.log.Info("service: an organiser's input is refused", "type", in.Type, "reason", r.Reason, "message", r.Message)
		return Reply{Reason: r.Reason, Message: r.Message}, nil
	}
	return Reply{Reason: "journal_error", Message: "the input could not be journaled; nothing changed: " + err.Error()}, err
}

// done says what an accepted input did.
func (s *Service) done(in tournament.Input, cmds []tournament.Command) string {
	switch in.Type {
	case tournament.InStartRound:
		return fmt.Sprintf("round %d started: a new game sent to each of %d tables", in.Round, len(cmds))
	case tournament.InRegister:
		return fmt.Sprintf("%d registered (%d players)", len(in.Players), len(s.t.Players()))
	case tournament.InRestartGame:
		return fmt.Sprintf("table %s's game sent again (a new game)", in.Table)
	}
	return in.Type + " done"
}

// take applies one input, journals it and carries out its effects. A
// refused input is returned as its *tournament.Refusal and changes
// nothing; a journal that cannot be written is returned as the error, the
// tournament rebuilt from what the journal holds.
func (s *Service) take(in tournament.Input) ([]tournament.Command, error) {
	cmds, err := s.t.Apply(in)
	if err != nil {
		return nil, err
	}
	if err := s.j.Append(tournament.Encode(in)); err != nil {
		s.log.Error("service: the journal cannot be written; the input is undone", "type", in.Type, "err", err)
		if t, rerr := s.rebuild(); rerr == nil {
			s.t = t
		}
		return nil, fmt.Errorf("service: %w", err)
	}
	s.lines++
	s.dirty = true
	s.send(cmds)
	return cmds, nil
}

// rebuild replays the journal's lines as they are on disk.
func (s *Service) rebuild() (*tournament.Tournament, error) {
	lines, err := journal.ReadRecord(s.cfg.Journal)
	if err != nil {
		return nil, err
	}
	return Replay(s.cfg.Name, lines)
}

func (s *Service) send(cmds []tournament.Command) {
	for _, c := range cmds {
		s.cfg.Link.Send(c.Table, c.Line)
	}
	s.mu.Lock()
	s.stats.Sent += len(cmds)
	s.mu.Unlock()
}

// messages takes m and the table messages queued behind it (up to
// Config.Batch): what the tournament keeps of them is journaled as one
// line, and only then are they acknowledged.
func (s *Service) messages(m link.Message, more <-chan link.Message) error {
	batch := []link.Message{m}
	for len(batch) < s.cfg.Batch {
		select {
		case m := <-more:
			batch = append(batch, m)
			continue
		default:
		}
		break
	}
	now := s.cfg.Now()
	ev := tournament.Input{Type: tournament.InEvents, At: now}
	rep := tournament.Input{Type: tournament.InReplies, At: now}
	seen := map[string][]int{} // each table's seqs news to the tournament
	prefix := "tournament:" + s.cfg.Name + ":"
	for _, m := range batch {
		switch m.Kind {
		case link.Events:
			e, ok := tournament.ParseEvent(m.Table, m.Payload)
			if !ok || !s.t.Fresh(m.Table, e.Seq) || slices.Contains(seen[m.Table], e.Seq) {
				continue
			}
			seen[m.Table] = append(seen[m.Table], e.Seq)
			if tournament.Kept(e.Type) {
				ev.Events = append(ev.Events, e)
			}
		case link.Reply:
			r, ok := decodeReply(m.Table, m.Payload)
			if !ok || r.OK || !strings.HasPrefix(r.ID, prefix) {
				continue
			}
			if transient(r.Reason) {
				s.log.Warn("service: a table could not take its new game now; sending it again", "table", r.Table, "reason", r.Reason)
				go func(table string) {
					time.Sleep(s.cfg.ResendAfter)
					s.resend <- table
				}(r.Table)
				continue
			}
			s.log.Warn("service: a table refused its new game", "table", r.Table, "reason", r.Reason, "message", r.Message)
			rep.Replies = append(rep.Replies, r)
		}
	}
	ev.Seen = ranges(seen)
	for _, in := range []tournament.Input{ev, rep} {
		if len(in.Seen) == 0 && len(in.Replies) == 0 {
			continue
		}
		if _, err := s.take(in); err != nil {
			return err // not acknowledged: delivered again after a restart
		}
		s.mu.Lock()
		s.stats.Batches++
		s.stats.Kept += len(in.Events)
		s.mu.Unlock()
	}
	for _, m := range batch {
		m.Ack()
	}
	s.mu.Lock()
	s.stats.Messages += len(batch)
	s.mu.Unlock()
	return nil
}

// ranges writes each table's seqs as ranges of consecutive ones, tables
// in order.
func ranges(seen map[string][]int) []tournament.SeqRange {
	var out []tournament.SeqRange
	for _, table := range slices.Sorted(maps.Keys(seen)) {
		seqs := slices.Sorted(slices.Values(seen[table]))
		for i := 0; i < len(seqs); {
			j := i
			for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
				j++
			}
			out = append(out, tournament.SeqRange{Table: table, From: seqs[i], To: seqs[j]})
			i = j + 1
		}
	}
	return out
}

// transient reports whether a refusal says "not now" rather than "never":
// busy (the referee's queue was full), journal_error, internal_error.
func transient(reason string) bool {
	return reason == "busy" || reason == "journal_error" || reason == "internal_error"
}

// decodeReply reads a table's reply to a command (MQTT.md).
func decodeReply(table string, payload []byte) (tournament.TableReply, bool) {
	var r struct {
		ID      json.RawMessage `json:"id"`
		OK      *bool           `json:"ok"`
		Reason  string          `json:"reason"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(payload, &r) != nil || r.OK == nil {
		return tournament.TableReply{}, false
	}
	var id string
	if json.Unmarshal(r.ID, &id) != nil {
		return tournament.TableReply{}, false
	}
	return tournament.TableReply{Table: table, ID: id, OK: *r.OK, Reason: r.Reason, Message: r.Message}, true
}

// publish makes the snapshot and puts it on the tournament's retained
// topics: at once when now is set, else at most every PublishEvery.
func (s *Service) publish(now bool) {
	if !s.dirty || (!now && s.cfg.Now().Sub(s.lastPublish) < s.cfg.PublishEvery) {
		return
	}
	snap := s.snapshot()
	s.cfg.Link.Publish(s.stateTopic, snap.View)
	s.cfg.Link.Publish(s.standingsTopic, snap.Standings)
	s.dirty, s.lastPublish = false, s.cfg.Now()
	s.mu.Lock()
	s.stats.Published++
	s.mu.Unlock()
}

// snapshot makes and keeps the pages' view of the tournament.
func (s *Service) snapshot() *Snapshot {
	v, _ := json.Marshal(s.t.View())
	tb := ""
	if st := s.t.Setup(); st != nil {
		tb = tournament.TieBreaks(st.Format)
	}
	st, _ := json.Marshal(struct {
		Name      string                `json:"name"`
		Round     int                   `json:"round"`
		TieBreaks string                `json:"tie_breaks"`
		Standings []tournament.Standing `json:"standings"`
	}{s.cfg.Name, s.t.Round(), tb, s.t.Standings()})
	snap := &Snapshot{View: v, Standings: st}
	s.snap.Store(snap)
	return snap
}
