// Package mqtt carries a referee's outputs to an MQTT broker and its
// commands back (MQTT.md), and runs the embedded broker a table uses when
// none is configured.
//
// Client publishes with paho at QoS 1 under a fixed client id with a
// persistent session and a file store, one message in flight at a time so
// that events reach subscribers in seq order whatever happens to the
// connection. It remembers (in a watermark file) the last event the broker
// acknowledged; after a restart the referee replays its journal and hands
// every event to Client again, and Client publishes those above the
// watermark.
package mqtt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/google/renameio/v2"
)

// DefaultPrefix is the topics' first level.
const DefaultPrefix = "liarsdice"

// Topics are a table's topics.
type Topics struct {
	Status, State, Events, Cmd, Reply, Vision string
}

// TopicsFor returns the topics of table under prefix.
func TopicsFor(prefix, table string) Topics {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	base := prefix + "/" + table + "/"
	return Topics{
		Status: base + "status", State: base + "state", Events: base + "events",
		Cmd: base + "cmd", Reply: base + "reply", Vision: base + "vision",
	}
}

var tableID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidTable reports whether id is a table id: letters, digits, - and _.
func ValidTable(id string) bool { return tableID.MatchString(id) }

// Options configure a Client.
type Options struct {
	// Broker is the broker's URL: tcp://host:1883, ssl://host:8883,
	// ws://host:port/path, wss://...
	Broker   string
	Username string
	Password string
	// CAFile is a PEM file of the broker's certificate authority (for ssl
	// and wss); empty uses the system's.
	CAFile string
	// InsecureSkipVerify skips checking the broker's certificate (testing
	// only).
	InsecureSkipVerify bool
	Prefix             string
	Table              string
	// ClientID defaults to liarsd-TABLE. It must stay the same across
	// restarts: the broker keeps the session under it.
	ClientID string
	// StoreDir holds paho's message store and the watermark file.
	StoreDir string
	// Journal is the id of the referee's journal (journal.Checkpoint.ID):
	// the watermark is saved with it, and a watermark of another journal
	// is dropped (the journal was replaced: every event is published
	// again).
	Journal string
	// OnCommand is called with each payload of the cmd topic, in order,
	// from paho's goroutine; it must not block (nor publish and wait).
	// redelivered says the broker sent it before (its DUP flag). The
	// broker's acknowledgement waits for ack, so that a command taken but
	// not yet answered when the daemon dies is delivered again at restart;
	// ack may be called from any goroutine and may block briefly.
	OnCommand func(payload []byte, redelivered bool, ack func())
	Logger    *slog.Logger
	// RetryInterval is the wait between attempts while the broker is away
	// (500 ms).
	RetryInterval time.Duration
	// Clock tells the time of failed connection attempts, for their log
	// lines (time.Now).
	Clock func() time.Time
	// Stored, if set, returns once the broker has stored what it has
	// acknowledged (the embedded broker's Broker.Sync): called between a
	// message's acknowledgement and the client counting it published, so
	// that the watermark never passes an event a kill could still lose.
	Stored func()
}

// ConnectLogEvery is how often a connection attempt that keeps failing
// for the same cause is logged again; a new cause is logged at once.
const ConnectLogEvery = 30 * time.Second

// Connection is how connecting to the broker goes.
type Connection struct {
	// Connected says the client is connected now.
	Connected bool
	// Failures counts the failed connection attempts since Dial; LastError
	// is the last one's cause and LastErrorAt its time ("" and zero for
	// none).
	Failures    int
	LastError   string
	LastErrorAt time.Time
}

func hashOf(payload []byte) string {
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:12])
}

type message struct {
	topic    string
	payload  []byte
	retained bool
	seq      int // events only
	lines    int // states of StateAt only: the journal's lines
	kind     string
	// acked, if set, is called once the broker has acknowledged the
	// message (on the sending goroutine: it must not block).
	acked func()
}

// Client publishes a referee's outputs. It implements referee.Publisher.
type Client struct {
	opts   Options
	topics Topics
	log    *slog.Logger
	cli    paho.Client

	mu        sync.Mutex
	queue     []message
	wake      chan struct{}
	closed    bool
	watermark int    // last event acknowledged
	markHash  string // hash of that event
	// markLines is the journal's line count of the last state the broker
	// acknowledged (StateAt).
	markLines  int
	saved      int // watermark on disk
	savedLines int // and its line count
	acked      chan struct{}

	// A watermark read from disk holds until the replayed event of its seq
	// is seen to be the same event: a journal that was replaced does not
	// hide its events. Events up to it wait in held meanwhile.
	checking bool
	held     []message

	// lastState is the newest state queued: published again at every
	// reconnection, for a broker that lost its retained messages.
	lastState []byte

	// The connection as the handlers saw it: epoch changes at every
	// connection and every loss.
	epoch int
	up    bool
	upAt  time.Time

	// Failed connection attempts: conn is what Connection returns;
	// failing counts those since the last connection, unlogged those not
	// logged since loggedErr was logged at loggedAt.
	conn      Connection
	failing   int
	unlogged  int
	loggedErr string
	loggedAt  time.Time

	stop      chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
	ready     chan struct{}
	readyOnce sync.Once
}

// Watermark is the last event the broker acknowledged, as the client
// keeps it on disk: its seq, a hash of it, the journal it is of (empty in
// watermarks saved before journals had ids), and the journal's line count
// of the last state the broker acknowledged (StateAt): lines whose events
// or state were published.
type Watermark struct {
	Seq     int    `json:"seq"`
	Hash    string `json:"hash"`
	Journal string `json:"journal,omitempty"`
	Lines   int    `json:"lines,omitempty"`
}

// WatermarkPath is the watermark's file in a client's store directory.
func WatermarkPath(storeDir string) string { return filepath.Join(storeDir, "watermark.json") }

// ReadWatermark returns the watermark kept in storeDir; a missing or
// unreadable one is the zero Watermark (nothing known delivered).
func ReadWatermark(storeDir string) Watermark {
	w, _ := ReadWatermarkFile(WatermarkPath(storeDir))
	return w
}

// ReadWatermarkFile reads a watermark's file (WatermarkPath): the zero
// Watermark and an error for one that is missing or unreadable.
func ReadWatermarkFile(path string) (Watermark, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Watermark{}, fmt.Errorf("mqtt: watermark: %w", err)
	}
	var w Watermark
	if err := json.Unmarshal(b, &w); err != nil {
		return Watermark{}, fmt.Errorf("mqtt: watermark %s: %w", path, err)
	}
	if w.Seq < 0 || w.Hash == "" {
		return Watermark{}, fmt.Errorf("mqtt: watermark %s: no seq and hash", path)
	}
	return w, nil
}

// Dial connects to the broker (retrying in the background while it is
// away) and starts publishing. Publish calls made before the connection
// are queued.
func Dial(opts Options) (*Client, error) {
	if opts.Broker == "" {
		return nil, errors.New("mqtt: no broker URL")
	}
	if !ValidTable(opts.Table) {
		return nil, fmt.Errorf("mqtt: table id %q is not 1 to 64 letters, digits, - or _", opts.Table)
	}
	if opts.StoreDir == "" {
		return nil, errors.New("mqtt: no store directory")
	}
	if opts.ClientID == "" {
		opts.ClientID = DefaultClientID(opts.Table)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = 500 * time.Millisecond
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if err := os.MkdirAll(filepath.Join(opts.StoreDir, "paho"), 0o755); err != nil {
		return nil, fmt.Errorf("mqtt: store: %w", err)
	}
	c := &Client{
		opts: opts, topics: TopicsFor(opts.Prefix, opts.Table),
		log:  opts.Logger.With("broker", opts.Broker),
		wake: make(chan struct{}, 1), acked: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), ready: make(chan struct{}),
	}
	w := c.loadWatermark()
	c.watermark, c.markHash, c.markLines = w.Seq, w.Hash, w.Lines
	c.saved, c.savedLines = c.watermark, c.markLines
	c.checking = c.watermark > 0

	po := paho.NewClientOptions().
		AddBroker(opts.Broker).
		SetClientID(opts.ClientID).
		SetCleanSession(false).
		SetStore(paho.NewFileStore(filepath.Join(opts.StoreDir, "paho"))).
		SetAutoReconnect(true).
		SetConnectRetry(true).
		SetConnectRetryInterval(opts.RetryInterval).
		SetMaxReconnectInterval(2*time.Second).
		SetConnectTimeout(5*time.Second).
		SetKeepAlive(10*time.Second).
		// Commands must reach the referee in the order they were sent;
		// OnCommand never blocks (Submit only queues), so the ordered
		// handler cannot deadlock paho.
		SetOrderMatters(true).
		SetAutoAckDisabled(true).
		SetBinaryWill(c.topics.Status, []byte("offline"), 1, true).
		SetOnConnectHandler(c.onConnect).
		SetConnectionLostHandler(func(_ paho.Client, err error) {
			c.log.Warn("mqtt: connection lost; reconnecting", "err", err)
			c.mu.Lock()
			c.epoch++
			c.up = false
			c.conn.Connected = false
			c.mu.Unlock()
		}).
		// Every attempt's outcome, the first connection's included (its
		// token is not waited for: paho retries in the background).
		SetConnectionNotificationHandler(func(_ paho.Client, n paho.ConnectionNotification) {
			if f, ok := n.(paho.ConnectionNotificationFailed); ok {
				c.connectFailed(f.Reason)
			}
		})
	if opts.Username != "" {
		po.SetUsername(opts.Username)
		po.SetPassword(opts.Password)
	}
	tc, err := TLSConfig(opts.CAFile, opts.InsecureSkipVerify)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		po.SetTLSConfig(tc)
	}
	c.cli = paho.NewClient(po)
	c.cli.Connect() // with ConnectRetry it keeps trying in the background
	go c.send()
	return c, nil
}

// connectFailed counts a failed connection attempt and logs it: at once
// when its cause is new, else once every ConnectLogEvery, saying how many
// attempts failed in between.
func (c *Client) connectFailed(err error) {
	if err == nil {
		err = errors.New("unknown cause")
	}
	cause, now := err.Error(), c.opts.Clock()
	c.mu.Lock()
	c.conn.Failures++
	c.conn.LastError, c.conn.LastErrorAt = cause, now
	c.failing++
	attempts := c.failing
	log := cause != c.loggedErr || now.Sub(c.loggedAt) >= ConnectLogEvery
	unlogged := c.unlogged
	if log {
		c.unlogged, c.loggedErr, c.loggedAt = 0, cause, now
	} else {
		c.unlogged++
	}
	c.mu.Unlock()
	if !log {
		return
	}
	args := []any{"err", cause, "attempts", attempts}
	if unlogged > 0 {
		args = append(args, "not_logged", unlogged)
	}
	c.log.Warn("mqtt: connecting to the broker failed; trying again", args...)
}

// Connection returns how connecting to the broker goes: the failed
// attempts and the last one's cause, for the daemon's metrics.
func (c *Client) Connection() Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// Ready is closed once the client has connected and subscribed to
// commands for the first time.
func (c *Client) Ready() <-chan struct{} { return c.ready }

// Topics returns the client's topics.
func (c *Client) Topics() Topics { return c.topics }

// onConnect announces the table and (re)subscribes to commands. It runs on
// paho's goroutine, so it waits for nothing.
func (c *Client) onConnect(cl paho.Client) {
	c.mu.Lock()
	c.epoch++
	c.up, c.upAt = true, time.Now()
	c.conn.Connected = true
	failed := c.failing
	c.failing, c.unlogged, c.loggedErr = 0, 0, ""
	state := c.lastState
	c.mu.Unlock()
	if failed > 0 {
		c.log.Info("mqtt: connected", "failed_attempts", failed)
	} else {
		c.log.Info("mqtt: connected")
	}
	c.enqueueFront(message{topic: c.topics.Status, payload: []byte("online"), retained: true, kind: "status"})
	if state != nil {
		// A broker restarted without persistence has forgotten the
		// retained state; one that kept it gets the same state again.
		c.enqueue(message{topic: c.topics.State, payload: state, retained: true, kind: "state"})
	}
	if c.opts.OnCommand != nil {
		tok := cl.Subscribe(c.topics.Cmd, 1, func(_ paho.Client, m paho.Message) {
			if m.Retained() {
				// A command someone published retained comes again with
				// every subscription, so at every reconnection: it would
				// start the same game over each time. Commands live on.
				c.log.Warn("mqtt: a retained command ignored; publish commands without retain", "topic", m.Topic(), "bytes", len(m.Payload()))
				m.Ack()
				return
			}
			c.opts.OnCommand(m.Payload(), m.Duplicate(), m.Ack)
		})
		go func() {
			if tok.Wait() && tok.Error() == nil {
				c.readyOnce.Do(func() { close(c.ready) })
			}
		}()
	} else {
		c.readyOnce.Do(func() { close(c.ready) })
	}

}

// Event queues an event. Events at or below the watermark were delivered
// before a restart and are skipped.
func (c *Client) Event(seq int, payload []byte) {
	m := message{topic: c.topics.Events, payload: payload, seq: seq, kind: "event"}
	c.mu.Lock()
	if c.checking {
		switch {
		case seq < c.watermark:
			c.held = append(c.held, m)
			c.mu.Unlock()
			return
		case seq == c.watermark && hashOf(payload) == c.markHash:
			// The same event as before the restart: the watermark holds.
			c.checking, c.held = false, nil
			c.mu.Unlock()
			return
		default:
			c.dropWatermarkLocked()
		}
	}
	skip := seq <= c.watermark
	c.mu.Unlock()
	if skip {
		return
	}
	c.enqueue(m)
}

// dropWatermarkLocked forgets a watermark that does not match the
// replayed journal and queues the events held back; c.mu is held.
func (c *Client) dropWatermarkLocked() {
	c.log.Warn("mqtt: the watermark does not match the journal; publishing every event again", "watermark", c.watermark)
	c.checking = false
	c.watermark, c.markHash, c.saved, c.markLines = 0, "", -1, 0
	if !c.closed {
		c.queue = append(c.queue, c.held...)
	}
	c.held = nil
}

// State queues the retained state, after the events queued before it.
// Every state is published, none replaced by a newer one still waiting:
// MQTT.md has the state re-published after every change.
func (c *Client) State(payload []byte) { c.StateAt(payload, 0) }

// StateAt is State for the state after the journal's first lines lines:
// once the broker has acknowledged it, the watermark keeps lines (see
// Watermark.Lines).
func (c *Client) StateAt(payload []byte, lines int) {
	c.mu.Lock()
	if c.checking {
		// The replay is over (the referee publishes the state after it)
		// and never reached the watermark: the journal is another one.
		c.dropWatermarkLocked()
	}
	c.lastState = payload
	c.mu.Unlock()
	c.enqueue(message{topic: c.topics.State, payload: payload, retained: true, kind: "state", lines: lines})
}

// Reply queues a reply to a command.
func (c *Client) Reply(payload []byte) {
	c.ReplyAcked(payload, nil)
}

// ReplyAcked queues a reply to a command and calls acked (which must not
// block) once the broker has acknowledged the reply. A command is
// acknowledged to the broker only then: acknowledged when its reply was
// merely queued, a command whose reply was lost with the process (a power
// cut) would never be delivered again, nor answered.
func (c *Client) ReplyAcked(payload []byte, acked func()) {
	c.enqueue(message{topic: c.topics.Reply, payload: payload, kind: "reply", acked: acked})
}

// Vision queues a message of the camera's doubts.
func (c *Client) Vision(payload []byte) {
	c.enqueue(message{topic: c.topics.Vision, payload: payload, kind: "vision"})
}

// Publish queues any other message (Home Assistant discovery, ...).
func (c *Client) Publish(topic string, payload []byte, retained bool) {
	c.enqueue(message{topic: topic, payload: payload, retained: retained, kind: "other"})
}

func (c *Client) enqueue(m message) {
	c.mu.Lock()
	if !c.closed {
		c.queue = append(c.queue, m)
	}
	c.mu.Unlock()
	c.poke()
}

func (c *Client) enqueueFront(m message) {
	c.mu.Lock()
	if !c.closed {
		// Behind the message in flight, if any: it keeps its place.
		at := 0
		if len(c.queue) > 0 {
			at = 1
		}
		c.queue = append(c.queue[:at], append([]message{m}, c.queue[at:]...)...)
	}
	c.mu.Unlock()
	c.poke()
}

func (c *Client) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Watermark returns the seq of the last event the broker acknowledged.
func (c *Client) Watermark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watermark
}

// Pending returns the number of messages not yet acknowledged.
func (c *Client) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// send publishes the queue's head, waits for its acknowledgement, and so
// on. One message in flight keeps the order through reconnections.
func (c *Client) send() {
	defer close(c.done)
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			if c.watermark != c.saved || c.markLines != c.savedLines {
				c.saveWatermarkLocked()
			}
			c.mu.Unlock()
			select {
			case <-c.wake:
				continue
			case <-c.stop:
				return
			}
		}
		m := c.queue[0]
		c.mu.Unlock()
		if !c.publish(m) {
			return
		}
		if c.opts.Stored != nil {
			c.opts.Stored()
		}
		c.mu.Lock()
		c.queue = c.queue[1:]
		c.markLines = max(c.markLines, m.lines)
		if m.seq > c.watermark {
			c.watermark, c.markHash = m.seq, hashOf(m.payload)
			// Saving every event costs a file write each; every 16 and when
			// the queue drains is plenty, since a stale watermark only
			// repeats events (QoS 1 allows it).
			if c.watermark-c.saved >= 16 {
				c.saveWatermarkLocked()
			}
		}
		c.mu.Unlock()
		if m.acked != nil {
			m.acked()
		}
		select {
		case c.acked <- struct{}{}:
		default:
		}
	}
}

// settle is how long after a connection the client waits before
// publishing: paho resends the messages of its store then (resume), and a
// publish racing with that could be overtaken or take a stored message's
// packet id.
const settle = 200 * time.Millisecond

// publish sends m until the broker acknowledges it; false when stopped.
//
// A paho token is only trusted when no (re)connection happened while it
// was pending: on reconnection paho resends the message from its store
// under a new token and completes the old one without an acknowledgement.
// So a token completed across a connection change means "publish again"
// (a repeat is allowed, a loss or a reordering is not), as does a message
// connected for ackTimeout without an acknowledgement.
func (c *Client) publish(m message) bool {
	const ackTimeout = 10 * time.Second
	for {
		epoch, ok := c.waitConnected()
		if !ok {
			return false
		}
		tok := c.cli.Publish(m.topic, 1, m.retained, m.payload)
		waited := time.Duration(0)
		for !tok.WaitTimeout(c.opts.RetryInterval / 5) {
			select {
			case <-c.stop:
				return false
			default:
			}
			now, connected := c.connection()
			if now != epoch {
				break
			}
			if connected {
				waited += c.opts.RetryInterval / 5
				if waited >= ackTimeout {
					c.log.Warn("mqtt: no acknowledgement; publishing again", "topic", m.topic, "seq", m.seq)
					break
				}
			}
		}
		select {
		case <-tok.Done():
			if now, _ := c.connection(); now == epoch && tok.Error() == nil {
				return true
			}
			if tok.Error() != nil {
				c.log.Warn("mqtt: publish failed; retrying", "topic", m.topic, "seq", m.seq, "err", tok.Error())
			}
		default:
		}
	}
}

// connection returns the connection's epoch (it changes at every
// connection and every loss) and whether it is up.
func (c *Client) connection() (epoch int, up bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch, c.up
}

// waitConnected waits until the connection is up and settled; false when
// stopped.
func (c *Client) waitConnected() (int, bool) {
	for {
		c.mu.Lock()
		epoch, up, since := c.epoch, c.up, time.Since(c.upAt)
		c.mu.Unlock()
		if up && since >= settle {
			return epoch, true
		}
		wait := 20 * time.Millisecond
		if up {
			wait = settle - since
		}
		select {
		case <-c.stop:
			return 0, false
		case <-time.After(wait):
		}
	}
}

func (c *Client) watermarkPath() string { return WatermarkPath(c.opts.StoreDir) }

// loadWatermark reads the watermark; one of another journal is dropped.
func (c *Client) loadWatermark() Watermark {
	w := ReadWatermark(c.opts.StoreDir)
	if w.Journal != "" && c.opts.Journal != "" && w.Journal != c.opts.Journal {
		c.log.Info("mqtt: the watermark is another journal's (the journal was replaced); publishing every event again", "watermark", w.Seq, "journal", c.opts.Journal, "watermark_journal", w.Journal)
		return Watermark{}
	}
	return w
}

// saveWatermarkLocked writes the watermark atomically; c.mu is held.
func (c *Client) saveWatermarkLocked() {
	b, _ := json.Marshal(Watermark{Seq: c.watermark, Hash: c.markHash, Journal: c.opts.Journal, Lines: c.markLines})
	if err := renameio.WriteFile(c.watermarkPath(), b, 0o644); err != nil {
		c.log.Warn("mqtt: saving the watermark", "err", err)
		return
	}
	c.saved, c.savedLines = c.watermark, c.markLines
}

// Flush waits until every queued message is acknowledged or ctx is done.
func (c *Client) Flush(ctx context.Context) error {
	for {
		if c.Pending() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return c.undelivered(ctx.Err())
		case <-c.acked:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// UndeliveredError is Flush's and Close's error when messages are still
// queued: how many of each kind. None is lost with the process: events
// are in the journal, and the next start publishes those above the
// watermark again; a reply's command was not acknowledged to the broker,
// which delivers it again, to be answered as then; the state is published
// again at every start.
type UndeliveredError struct {
	Events, States, Replies, Others int
	// Away says the broker could not be reached at the stop: Close did not
	// wait.
	Away bool
	Err  error
}

func (e *UndeliveredError) Error() string {
	why := e.Err.Error()
	if e.Away {
		why = "the broker cannot be reached"
	}
	return fmt.Sprintf("mqtt: %d messages not delivered (%d events, %d states, %d replies, %d others): %s",
		e.Events+e.States+e.Replies+e.Others, e.Events, e.States, e.Replies, e.Others, why)
}

func (e *UndeliveredError) Unwrap() error { return e.Err }

// undelivered counts the queue by kind.
func (c *Client) undelivered(err error) *UndeliveredError {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := &UndeliveredError{Err: err}
	for _, m := range c.queue {
		switch m.kind {
		case "event":
			u.Events++
		case "state":
			u.States++
		case "reply":
			u.Replies++
		default:
			u.Others++
		}
	}
	return u
}

// ErrBrokerAway is the cause of an UndeliveredError of a Close that found
// the broker unreachable.
var ErrBrokerAway = errors.New("mqtt: the broker cannot be reached")

// Close delivers what is queued (until ctx is done), says offline, and
// disconnects. When the broker cannot be reached (not connected, and the
// attempts since the connection was lost have failed), it does not wait:
// nothing can be delivered. What is left is an *UndeliveredError.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	away := !c.up && c.failing > 0
	c.mu.Unlock()
	var err error
	if away {
		if c.Pending() > 0 {
			u := c.undelivered(ErrBrokerAway)
			u.Away = true
			err = u
		}
	} else {
		err = c.Flush(ctx)
		c.enqueue(message{topic: c.topics.Status, payload: []byte("offline"), retained: true, kind: "status"})
		if err == nil {
			_ = c.Flush(ctx)
		}
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.stopOnce.Do(func() { close(c.stop) })
	<-c.done
	c.mu.Lock()
	if c.watermark != c.saved || c.markLines != c.savedLines {
		c.saveWatermarkLocked()
	}
	unsent := len(c.queue) > 0 // offline is last: still queued, never said
	c.mu.Unlock()
	if unsent && c.cli.IsConnectionOpen() {
		// The clean disconnect below discards the last will, so say
		// offline now, past the events still queued (they stay in the
		// store and go out at the next start).
		c.cli.Publish(c.topics.Status, 1, true, []byte("offline")).WaitTimeout(2 * time.Second)
	}
	c.cli.Disconnect(250)
	return err
}
