package mqtt

import (
	"bytes"
	"cmp"
	"context"
	crand "crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/storage"
	"github.com/mochi-mqtt/server/v2/hooks/storage/bolt"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
	"github.com/mochi-mqtt/server/v2/system"
	"go.etcd.io/bbolt"
)

// MaxPacketBytes is the largest MQTT packet the embedded broker takes.
const MaxPacketBytes = 4 << 20

// BrokerOptions configure the embedded broker.
type BrokerOptions struct {
	// TCP is the MQTT listener's address (127.0.0.1:1883); port 0 picks a
	// free one.
	TCP string
	// WebSocket is the listener for browsers (127.0.0.1:1884); "" for none.
	WebSocket string
	// Users may publish commands when the broker is exposed (a listener
	// not on loopback): name to password.
	Users  map[string]string
	Prefix string
	Table  string
	// ClientIDs are the referee's own client ids besides liarsd-TABLE (a
	// configured broker.client_id, Home Assistant's liarsd-TABLE-ha): only
	// the referee's account (Credentials) may connect under them.
	ClientIDs []string
	// Store is the file the broker keeps its sessions in (the subscribers'
	// subscriptions and the messages still owed to them) and its retained
	// messages, so that a restart of the referee, which is a restart of
	// its broker, loses no event a subscriber has not yet had. "" keeps
	// them in memory only.
	Store string
	// AwaitReferee refuses, unacknowledged, a command published while no
	// session of the referee (its client ids) is subscribed to the
	// commands topic: acknowledged, it would be dropped, having no
	// subscriber. Only a table's first start, before the referee's first
	// subscription, has no such session (the store keeps it across
	// restarts). The daemon sets it.
	AwaitReferee bool
	Logger       *slog.Logger
}

// Broker is the embedded broker (mochi-mqtt). On loopback anyone may
// connect and publish commands; when a listener is exposed beyond loopback,
// anyone may still connect and read, but only authenticated users may
// publish commands, and only the referee may publish the table's outputs.
// Either way the referee has an account of its own, with a password made
// anew by each process, and only that account may connect under the
// referee's client ids; a client's last will passes the same checks as its
// publishes, when it connects; and nothing is retained on the commands
// topic.
type Broker struct {
	srv      *mochi.Server
	tcpAddr  string
	wsAddr   string
	exposed  bool
	referee  string // the referee's own user
	password string
	order    *orderHook
}

// RefereeUser is the name of the referee's own account on the embedded
// broker; its password is random, made anew by each process (Credentials).
const RefereeUser = "liarsd-referee"

// DefaultClientID is the referee's client id at table unless the
// configuration names another.
func DefaultClientID(table string) string { return "liarsd-" + table }

// StartBroker starts the embedded broker and returns once it listens.
func StartBroker(opts BrokerOptions) (*Broker, error) {
	if opts.TCP == "" {
		opts.TCP = "127.0.0.1:1883"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tableLog := opts.Logger // for liarsd's own hooks
	// mochi reports every client that hangs up as a warning; only its
	// errors are the table's business.
	opts.Logger = slog.New(minLevel{opts.Logger.Handler(), slog.LevelError})
	if !ValidTable(opts.Table) {
		return nil, fmt.Errorf("mqtt: table id %q is not 1 to 64 letters, digits, - or _", opts.Table)
	}
	if err := CheckExposure(opts.TCP, opts.WebSocket, opts.Users); err != nil {
		return nil, err
	}
	exposed := Exposed(opts.TCP, opts.WebSocket)
	b := &Broker{exposed: exposed, referee: RefereeUser}
	// On loopback too: the referee's client ids are its account's alone,
	// so that no other client takes its session over.
	var pw [16]byte
	if _, err := crand.Read(pw[:]); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	b.password = hex.EncodeToString(pw[:])
	caps := mochi.NewDefaultServerCapabilities()
	// Retained state and discovery configs must not expire (mochi's default
	// is 24 h): a dashboard that connects next week still sees the table.
	caps.MaximumMessageExpiryInterval = 0
	// A command is a line of a few hundred bytes; a client sending more
	// than this is disconnected by the broker itself.
	caps.MaximumPacketSize = MaxPacketBytes
	// The messages owed to one subscriber away with a persistent session:
	// beyond this mochi drops the newest (its default is 8192, a day of
	// play); 65535 is the most packet ids allow.
	caps.MaximumInflight = math.MaxUint16
	srv := mochi.New(&mochi.Options{
		InlineClient: false,
		Logger:       opts.Logger,
		Capabilities: caps,
	})
	topics := TopicsFor(opts.Prefix, opts.Table)
	ids := map[string]bool{DefaultClientID(opts.Table): true}
	for _, id := range opts.ClientIDs {
		if id != "" {
			ids[id] = true
		}
	}
	hook := &accessHook{srv: srv, log: tableLog, exposed: exposed, users: opts.Users, referee: b.referee, refereePW: b.password,
		refereeIDs: ids, tablePrefix: strings.TrimSuffix(topics.Cmd, "cmd"), cmd: topics.Cmd}
	if err := srv.AddHook(hook, nil); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	if err := srv.AddHook(&commandRetainHook{srv: srv, cmd: topics.Cmd, log: tableLog}, nil); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	if err := srv.AddHook(&subscribeIDHook{swapped: map[*mochi.Client]swappedID{}}, nil); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	order := newOrderHook(srv)
	if err := srv.AddHook(order, nil); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	// After the hooks that may refuse a publish or number it: a command is
	// delivered by this one, before its acknowledgement.
	cmdHook := &commandHook{srv: srv, cmd: topics.Cmd, log: tableLog, referee: b.referee, refereeIDs: ids, await: opts.AwaitReferee,
		inline: srv.NewClient(nil, mochi.LocalListener, "liarsd-broker", true)}
	if err := srv.AddHook(cmdHook, nil); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	if opts.Store != "" {
		if err := os.MkdirAll(filepath.Dir(opts.Store), 0o755); err != nil {
			return nil, fmt.Errorf("mqtt: embedded broker store: %w", err)
		}
		// A second daemon on the same state directory waits this long for
		// the store's lock, then says so.
		store := &bolt.Options{Path: opts.Store, Options: &bbolt.Options{Timeout: 2 * time.Second}}
		if err := srv.AddHook(&boltStore{Hook: new(bolt.Hook), order: order, acks: map[ackKey]bool{}}, store); err != nil {
			return nil, fmt.Errorf("mqtt: embedded broker store %s: %w", opts.Store, err)
		}
	}
	tcpLn, err := net.Listen("tcp", opts.TCP)
	if err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	b.tcpAddr = tcpLn.Addr().String()
	tcpLn.Close() // mochi listens itself; the port was free a moment ago
	if err := srv.AddListener(listeners.NewTCP(listeners.Config{ID: "tcp", Address: b.tcpAddr})); err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	if opts.WebSocket != "" {
		wsLn, err := net.Listen("tcp", opts.WebSocket)
		if err != nil {
			return nil, fmt.Errorf("mqtt: embedded broker websocket: %w", err)
		}
		b.wsAddr = wsLn.Addr().String()
		wsLn.Close()
		if err := srv.AddListener(listeners.NewWebsocket(listeners.Config{ID: "ws", Address: b.wsAddr})); err != nil {
			return nil, fmt.Errorf("mqtt: embedded broker websocket: %w", err)
		}
	}
	if err := srv.Serve(); err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	b.srv, b.order = srv, order
	return b, nil
}

// boltStore is mochi's bolt storage hook with its one trap mended: in
// v2.7.9 it stores a message owed to a client without the message's
// packet id, and a broker that restored it resends it with id 0, a
// protocol violation for which it drops the subscriber's connection, at
// every reconnection. The id is also in the message's key
// ("ifm_<client>:<id>"), where this reads it back.
//
// It also writes only what a restart could use. Each write is a bolt
// transaction with two fdatasyncs, and mochi's hook wrote about fifteen
// for each command a client sent: the acknowledgement of every QoS 1
// publish a client makes, stored and deleted again within the call that
// sends it, and every message in flight to a client whose session ends
// with its connection (clean session), neither of which a restarted broker
// resends to anyone. Those are left out (over 1,000 commands of
// BenchmarkCommandRate, 22,908 fdatasyncs became 6,406: docs/referee.md);
// what is owed to a client
// with a persistent session, retained messages, sessions and
// subscriptions are written as before, each before mochi goes on. A
// session's messages are not deleted when its client's new connection
// takes it over (OnQosDropped).
type boltStore struct {
	*bolt.Hook
	order *orderHook
	mu    sync.Mutex
	// acks are the acknowledgements of clients' QoS 1 publishes in flight
	// (between OnQosPublish and OnQosComplete in mochi's processPublish),
	// left out of the store.
	acks map[ackKey]bool
}

// ackKey is a client's packet id.
type ackKey struct {
	cl *mochi.Client
	id uint16
}

// sessionless says whether cl's session ends with its connection (MQTT
// 3.1.1 clean session, MQTT 5 without a session expiry), as mochi decides
// it when the client goes.
func sessionless(cl *mochi.Client) bool {
	if cl.Properties.ProtocolVersion == 5 {
		return cl.Properties.Props.SessionExpiryInterval == 0
	}
	return cl.Properties.Clean
}

// OnQosPublish stores a message in flight to or from cl, unless cl's
// session ends with its connection or the message is the acknowledgement
// of cl's own QoS 1 publish.
func (h *boltStore) OnQosPublish(cl *mochi.Client, pk packets.Packet, sent int64, resends int) {
	if sessionless(cl) {
		return
	}
	if pk.FixedHeader.Type == packets.Puback {
		h.mu.Lock()
		h.acks[ackKey{cl, pk.PacketID}] = true
		h.mu.Unlock()
		return
	}
	h.Hook.OnQosPublish(cl, pk, sent, resends)
}

// OnQosComplete deletes a message no longer in flight, unless it was
// never stored.
func (h *boltStore) OnQosComplete(cl *mochi.Client, pk packets.Packet) {
	if sessionless(cl) {
		return
	}
	k := ackKey{cl, pk.PacketID}
	h.mu.Lock()
	ack := h.acks[k]
	delete(h.acks, k)
	h.mu.Unlock()
	if ack {
		return
	}
	h.Hook.OnQosComplete(cl, pk)
}

// OnQosDropped deletes a dropped message, as OnQosComplete, but not those
// of a session taken over by its client's new connection: mochi clears
// them from the old connection once copied to the new one, under the same
// keys, and resends them; deleted, a message that the resend did not reach
// (the connection broke first) was lost at the next restart.
func (h *boltStore) OnQosDropped(cl *mochi.Client, pk packets.Packet) {
	if cl.IsTakenOver() {
		return
	}
	h.OnQosComplete(cl, pk)
}

// OnDisconnect forgets cl's acknowledgements still noted (one whose write
// to the client failed), then lets mochi's hook do its part.
func (h *boltStore) OnDisconnect(cl *mochi.Client, err error, expire bool) {
	h.mu.Lock()
	for k := range h.acks {
		if k.cl == cl {
			delete(h.acks, k)
		}
	}
	h.mu.Unlock()
	h.Hook.OnDisconnect(cl, err, expire)
}

// StoredInflightMessages returns the stored messages owed to clients, each
// with its packet id.
func (h *boltStore) StoredInflightMessages() ([]storage.Message, error) {
	v, err := h.Hook.StoredInflightMessages()
	for i := range v {
		if v[i].PacketID != 0 {
			continue
		}
		key := v[i].ID
		n, perr := strconv.ParseUint(key[strings.LastIndex(key, ":")+1:], 10, 16)
		if perr != nil {
			// Not a key this version writes: resent with id 0, it would
			// cost the client its connection; the message is dropped.
			h.Log.Warn("mqtt: a stored message without a packet id dropped", "key", v[i].ID)
			continue
		}
		v[i].PacketID = uint16(n)
	}
	for _, m := range v {
		h.order.atLeast(m.Created)
	}
	return slices.DeleteFunc(v, func(m storage.Message) bool { return m.PacketID == 0 }), err
}

// OnSysInfoTick stores nothing: the broker's $SYS figures (uptime, counts)
// are not worth a write to the Pi's SD card every second.
func (h *boltStore) OnSysInfoTick(*system.Info) {}

// StoredSysInfo restores no $SYS figures (see OnSysInfoTick), and so does
// not log their absence as an error at every start.
func (h *boltStore) StoredSysInfo() (storage.SystemInfo, error) { return storage.SystemInfo{}, nil }

// commandRetainHook keeps the embedded broker from retaining a command, or
// taking one published retained: a retained command would be handed to
// the referee again at every subscription, so at every start and
// reconnection, starting the same game over each time, and a command
// someone meant to stay is a mistake best told at once. A retained publish
// on the commands topic is refused as a publish the broker's ACL refuses:
// at QoS 0 dropped, at QoS 1 and 2 answered "not authorized" (MQTT 5) or
// the connection closed (MQTT 3.1.1 has no way to refuse a publish).
// Neither kept nor delivered, it changes nothing. A will retained on the
// commands topic is refused when its client connects (accessHook). (Through
// an external broker the referee ignores the copies handed over again:
// mqtt.Client.)
type commandRetainHook struct {
	mochi.HookBase
	srv *mochi.Server
	cmd string
	log *slog.Logger
}

func (h *commandRetainHook) ID() string { return "liarsd-command-retain" }

func (h *commandRetainHook) Provides(b byte) bool { return b == mochi.OnPublish }

// OnPublish refuses a command published retained.
func (h *commandRetainHook) OnPublish(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if !pk.FixedHeader.Retain || pk.TopicName != h.cmd {
		return pk, nil
	}
	if h.log != nil {
		h.log.Warn("mqtt: a command published retained is refused (neither kept nor taken); publish commands without retain", "client", cl.ID, "qos", pk.FixedHeader.Qos)
	}
	switch {
	case pk.FixedHeader.Qos == 0:
	case cl.Properties.ProtocolVersion == 5:
		ack := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Puback}, PacketID: pk.PacketID, ReasonCode: packets.ErrNotAuthorized.Code}
		if pk.FixedHeader.Qos == 2 {
			ack.FixedHeader.Type = packets.Pubrec
		}
		_ = cl.WritePacket(ack)
	default:
		_ = h.srv.DisconnectClient(cl, packets.ErrNotAuthorized)
	}
	return pk, packets.ErrRejectPacket
}

// commandHook makes the embedded broker acknowledge a command only once
// the command is the referee's responsibility. mochi v2.7.9 writes a QoS 1
// publish's PUBACK in processPublish before it delivers the message to its
// subscribers, and so before it stores the message for the referee's
// session: a kill -9 between the two lost a command whose publisher had
// been told it was taken (7 of 568 in an audit's soak), and MQTT's promise
// for QoS 1 is that an acknowledged message is the receiver's to keep.
//
// So the hook, the last of those that see a publish, delivers a command
// published at QoS 1 or 2 itself, synchronously, through an inline client
// of its own (mochi's delivery: each subscriber's copy set in flight and,
// for a persistent session, written to the store, a synced bolt
// transaction, before mochi goes on), and then lets mochi acknowledge the
// publish as usual with its delivery left out (CodeSuccessIgnore). The
// referee's client acknowledges a command to the broker only once it is
// answered (journaled when accepted), so from the publisher's PUBACK on the
// command is on disk: in the broker's store until the referee has
// journaled it, then in the journal.
//
// With AwaitReferee, a command that no session of the referee is
// subscribed to take is refused unacknowledged, as a publish the ACL
// refuses: an MQTT 5 client is answered "unspecified error" with a reason,
// an MQTT 3.1.1 client's connection is closed (that protocol has no other
// way), and either sends it again.
type commandHook struct {
	mochi.HookBase
	srv        *mochi.Server
	cmd        string
	log        *slog.Logger
	referee    string          // the referee's user
	refereeIDs map[string]bool // and client ids
	await      bool
	inline     *mochi.Client
}

func (h *commandHook) ID() string { return "liarsd-command" }

func (h *commandHook) Provides(b byte) bool { return b == mochi.OnPublish || b == mochi.OnPacketSent }

// errNoReferee refuses a command that no referee's session would take.
var errNoReferee = packets.Code{Code: packets.ErrUnspecifiedError.Code, Reason: "the table's referee has not subscribed to its commands yet: publish again"}

// OnPublish delivers a client's command published at QoS 1 or 2 to its
// subscribers, stored for those with a persistent session, before mochi
// acknowledges it.
func (h *commandHook) OnPublish(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if cl.Net.Inline || pk.TopicName != h.cmd || pk.FixedHeader.Qos == 0 {
		return pk, nil
	}
	if h.await && !h.refereeSubscribed() {
		h.log.Warn("mqtt: a command refused, unacknowledged: the referee has not subscribed to commands yet", "client", cl.ID)
		if cl.Properties.ProtocolVersion == 5 {
			ack := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Puback}, PacketID: pk.PacketID, ReasonCode: errNoReferee.Code,
				Properties: packets.Properties{ReasonString: errNoReferee.Reason}}
			if pk.FixedHeader.Qos == 2 {
				ack.FixedHeader.Type = packets.Pubrec
			}
			_ = cl.WritePacket(ack)
		} else {
			_ = h.srv.DisconnectClient(cl, packets.ErrServerUnavailable)
		}
		return pk, packets.ErrRejectPacket
	}
	in := pk.Copy(true)
	in.Payload = pk.Payload
	in.FixedHeader.Retain = false // commandRetainHook refused a retained one
	in.Properties.TopicAlias, in.Properties.TopicAliasFlag = 0, false
	if err := h.srv.InjectPacket(h.inline, in); err != nil {
		// Not delivered: not acknowledged either, for the client to send
		// it again.
		h.log.Error("mqtt: delivering a command", "client", cl.ID, "err", err)
		_ = h.srv.DisconnectClient(cl, packets.ErrUnspecifiedError)
		return pk, packets.ErrRejectPacket
	}
	h.log.Debug("mqtt: a command delivered and stored; acknowledging it", "client", cl.ID, "packet_id", pk.PacketID)
	return pk, packets.CodeSuccessIgnore
}

// refereeSubscribed says whether a session of the referee is subscribed
// to the commands topic.
func (h *commandHook) refereeSubscribed() bool {
	for id := range h.srv.Topics.Subscribers(h.cmd).Subscriptions {
		if h.refereeIDs[id] {
			return true
		}
	}
	return false
}

// OnPacketSent logs, at debug level, each publish acknowledged to a client
// that is not the referee (tests kill the process there).
func (h *commandHook) OnPacketSent(cl *mochi.Client, pk packets.Packet, _ []byte) {
	if pk.FixedHeader.Type == packets.Puback && string(cl.Properties.Username) != h.referee {
		h.log.Debug("mqtt: a publish acknowledged", "client", cl.ID, "packet_id", pk.PacketID, "reason", pk.ReasonCode)
	}
}

// subscribeIDHook mends a trap of mochi v2.7.9: it refuses a SUBSCRIBE
// whose packet id is the id of a message the broker itself has in flight to
// that client (SUBACK 0x91, "packet identifier in use", which MQTT 3.1.1
// does not even have), though the two directions number their packets
// apart (MQTT 3.1.1, 2.3.1). A subscriber with a persistent session that
// comes back to messages owed to it (after a restart of the daemon, the
// owed messages' ids are often 1, 2, ...) and subscribes with id 1, as
// mosquitto_sub and paho do, was refused, and mosquitto_sub gave up. Before
// mochi's check the hook gives such a SUBSCRIBE a free id, and gives its
// SUBACK the client's id back just before it is written.
type subscribeIDHook struct {
	mochi.HookBase
	mu sync.Mutex
	// swapped is each client's SUBSCRIBE given a stand-in id, until its
	// SUBACK is written: mochi takes a client's packets one at a time, and
	// answers a SUBSCRIBE before it reads the next, so a client has at most
	// one.
	swapped map[*mochi.Client]swappedID
}

// swappedID is a SUBSCRIBE's stand-in packet id and the client's own.
type swappedID struct{ standIn, own uint16 }

func (h *subscribeIDHook) ID() string { return "liarsd-subscribe-id" }

func (h *subscribeIDHook) Provides(b byte) bool {
	return b == mochi.OnSubscribe || b == mochi.OnPacketEncode || b == mochi.OnDisconnect
}

// OnSubscribe gives a SUBSCRIBE whose id is an outgoing message's in flight
// a stand-in id that nothing in flight has. An id of the client's own
// QoS 2 publish still in flight (a PUBREC kept) is a real reuse and is left
// for mochi to refuse.
func (h *subscribeIDHook) OnSubscribe(cl *mochi.Client, pk packets.Packet) packets.Packet {
	held, ok := cl.State.Inflight.Get(pk.PacketID)
	if !ok || (held.FixedHeader.Type != packets.Publish && held.FixedHeader.Type != packets.Pubrel) {
		return pk
	}
	for id := uint16(math.MaxUint16); id > 0; id-- {
		if _, used := cl.State.Inflight.Get(id); !used {
			h.mu.Lock()
			h.swapped[cl] = swappedID{standIn: id, own: pk.PacketID}
			h.mu.Unlock()
			pk.PacketID = id
			return pk
		}
	}
	return pk // every id in flight: mochi refuses it, as it must
}

// OnPacketEncode gives a SUBACK sent for a stand-in id the client's own id.
func (h *subscribeIDHook) OnPacketEncode(cl *mochi.Client, pk packets.Packet) packets.Packet {
	if pk.FixedHeader.Type != packets.Suback {
		return pk
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if sw, ok := h.swapped[cl]; ok && sw.standIn == pk.PacketID {
		delete(h.swapped, cl)
		pk.PacketID = sw.own
	}
	return pk
}

// OnDisconnect forgets a client's stand-in id (a SUBACK it never got).
func (h *subscribeIDHook) OnDisconnect(cl *mochi.Client, _ error, _ bool) {
	h.mu.Lock()
	delete(h.swapped, cl)
	h.mu.Unlock()
}

// orderHook mends mochi v2.7.9's order of resent messages, and its losses
// at a subscriber's return.
//
// When a subscriber with a persistent session comes back, mochi resends
// the messages it is owed sorted by uint16(Created), Created being the Unix
// second of the publish: the events of one second come back in any order
// (and those on either side of a wrap of the low 16 bits, every 18 hours,
// in the wrong one). MQTT.md has events never reordered, so this hook
// makes Created strictly increase from one publish to the next, and just
// before mochi resends a session's messages it renumbers their Created
// 0, 1, 2, ... above a multiple of 65536, in publish order, so that
// mochi's sort keeps that order.
//
// mochi also lets publishes run on while it hands a session over to the
// returning connection: one delivered to the old connection after mochi
// copied its messages in flight was cleared with the old connection (lost:
// the event published at the subscriber's reconnection), and one
// delivered to the new connection before mochi resent the owed ones went
// out ahead of them (reordered). So the hook makes the hand-over exclusive
// of publishes: each publish a client sends is delivered under a read
// lock (from OnPacketRead to OnPacketProcessed), and a returning session is
// handed over and its owed messages resent under the write lock (from
// OnSessionEstablish to OnSessionEstablished, or until the connection is
// closed if mochi gives up on it between the two); the writes to a client
// made under the lock are bounded (writeTimeout). Sync takes the same lock
// to wait for the publishes under way, each stored before it returns.
//
// Last, mochi keeps a client's own packet ids and those it sends to the
// client in one table, and a client's QoS 1 publish whose id is that of a
// message in flight to it drops that message (never resent; lost if the
// client had not acknowledged it yet). The two directions number their
// packets apart (MQTT 3.1.1, 2.3.1), so such a publish is given a stand-in
// id that nothing has in flight, and its PUBACK the client's own id back.
type orderHook struct {
	mochi.HookBase
	srv  *mochi.Server
	mu   sync.Mutex
	last int64 // the last Created given

	gate   sync.RWMutex
	closed atomic.Bool
	// reading are the clients whose publish holds gate's read lock;
	// standIns, each client's stand-in packet ids, to its own.
	reading  map[*mochi.Client]bool
	standIns map[*mochi.Client]map[uint16]uint16
	// writeTimeout bounds the writes made under the lock (writeTimeout).
	writeTimeout time.Duration
	handOvers    sync.Map // *mochi.Client to its *handOver under way
}

func newOrderHook(srv *mochi.Server) *orderHook {
	return &orderHook{srv: srv, reading: map[*mochi.Client]bool{}, standIns: map[*mochi.Client]map[uint16]uint16{},
		writeTimeout: writeTimeout}
}

// writeTimeout bounds the writes to a client made under the order hook's
// lock, which holds publishes (or Sync, or a hand-over) back meanwhile: the
// acknowledgement of its publish, its owed messages resent. A client that
// reads nothing for this long while it publishes, or while it comes back,
// is cut off, and the others go on. (mochi's own deadline is 1.5 times the
// client's keepalive, up to 27 hours, none with a keepalive of 0.)
var writeTimeout = 10 * time.Second

func (h *orderHook) ID() string { return "liarsd-order" }

func (h *orderHook) Provides(b byte) bool {
	return bytes.Contains([]byte{mochi.OnPublish, mochi.OnSessionEstablish, mochi.OnSessionEstablished,
		mochi.OnPacketRead, mochi.OnPacketProcessed, mochi.OnPacketEncode, mochi.OnDisconnect}, []byte{b})
}

// atLeast makes the next Created greater than c (a message restored from
// the store).
func (h *orderHook) atLeast(c int64) {
	h.mu.Lock()
	h.last = max(h.last, c)
	h.mu.Unlock()
}

// errBrokerClosed refuses a publish read while the broker closes: it was
// not acknowledged, so its publisher sends it again.
var errBrokerClosed = errors.New("mqtt: the embedded broker is closing")

// OnPacketRead takes the read lock for a client's publish (one mochi
// will process: it passes mochi's validation), bounds the writes to the
// client meanwhile (writeTimeout), and gives a QoS 1 publish whose id is in
// flight to the client a stand-in id.
func (h *orderHook) OnPacketRead(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if pk.FixedHeader.Type != packets.Publish || pk.PublishValidate(h.srv.Options.Capabilities.TopicAliasMaximum) != packets.CodeSuccess {
		return pk, nil
	}
	h.gate.RLock()
	if h.closed.Load() {
		h.gate.RUnlock()
		return pk, errBrokerClosed
	}
	if cl.Net.Conn != nil {
		_ = cl.Net.Conn.SetWriteDeadline(time.Now().Add(h.writeTimeout))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reading[cl] = true
	if pk.FixedHeader.Qos != 1 {
		return pk, nil
	}
	held, ok := cl.State.Inflight.Get(pk.PacketID)
	if !ok || (held.FixedHeader.Type != packets.Publish && held.FixedHeader.Type != packets.Pubrel) {
		return pk, nil
	}
	for id := uint16(math.MaxUint16); id > 0; id-- {
		if _, used := cl.State.Inflight.Get(id); used {
			continue
		}
		if h.standIns[cl] == nil {
			h.standIns[cl] = map[uint16]uint16{}
		}
		if _, used := h.standIns[cl][id]; used {
			continue
		}
		h.standIns[cl][id] = pk.PacketID
		pk.PacketID = id
		return pk, nil
	}
	return pk, nil // every id in flight
}

// OnPacketProcessed releases the read lock of a client's publish.
func (h *orderHook) OnPacketProcessed(cl *mochi.Client, pk packets.Packet, _ error) {
	if pk.FixedHeader.Type != packets.Publish {
		return
	}
	h.mu.Lock()
	held := h.reading[cl]
	delete(h.reading, cl)
	h.mu.Unlock()
	if held {
		h.gate.RUnlock()
	}
}

// OnPacketEncode gives the acknowledgement of a publish with a stand-in id
// the client's own id.
func (h *orderHook) OnPacketEncode(cl *mochi.Client, pk packets.Packet) packets.Packet {
	if pk.FixedHeader.Type != packets.Puback {
		return pk
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if own, ok := h.standIns[cl][pk.PacketID]; ok {
		delete(h.standIns[cl], pk.PacketID)
		pk.PacketID = own
	}
	return pk
}

// OnDisconnect forgets a client's stand-in ids.
func (h *orderHook) OnDisconnect(cl *mochi.Client, _ error, _ bool) {
	h.mu.Lock()
	delete(h.standIns, cl)
	h.mu.Unlock()
}

// sync waits for the publishes under way: when it returns, every publish
// the broker has acknowledged is delivered to its subscribers, and stored
// for those with a persistent session.
func (h *orderHook) sync() {
	h.gate.Lock()
	//lint:ignore SA2001 an empty critical section on purpose: a barrier, taken once the publishes under way (each holding gate's read lock) are done
	h.gate.Unlock()
}

// OnPublish gives each incoming message a Created above the last one's,
// its publish time when the clock is ahead.
func (h *orderHook) OnPublish(_ *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = max(h.last+1, pk.Created)
	pk.Created = h.last
	return pk, nil
}

// handOver is a returning session's hold of the write lock.
type handOver struct {
	once sync.Once
	done chan struct{}
}

// OnSessionEstablish runs before mochi hands a returning client its
// session and resends what it is owed: it takes the write lock, and
// renumbers those messages so that sorting by uint16(Created) gives their
// publish order.
func (h *orderHook) OnSessionEstablish(cl *mochi.Client, pk packets.Packet) {
	if pk.Connect.Clean {
		return
	}
	existing, ok := h.srv.Clients.Get(cl.ID)
	if !ok {
		return
	}
	h.gate.Lock()
	ho := &handOver{done: make(chan struct{})}
	h.handOvers.Store(cl, ho)
	if cl.Net.Conn != nil {
		_ = cl.Net.Conn.SetWriteDeadline(time.Now().Add(h.writeTimeout))
	}
	// mochi returns without OnSessionEstablished when the CONNACK or a
	// resend fails: the lock goes with the connection then.
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ho.done:
				return
			case <-t.C:
				if cl.Closed() {
					h.release(cl)
					return
				}
			}
		}
	}()
	owed := existing.State.Inflight.GetAll(false)
	if len(owed) < 2 {
		return
	}
	slices.SortStableFunc(owed, func(a, b packets.Packet) int { return cmp.Compare(a.Created, b.Created) })
	base := owed[0].Created &^ 0xffff
	for i, m := range owed {
		m.Created = base + int64(i)
		existing.State.Inflight.Set(m)
	}
}

// OnSessionEstablished runs once mochi has resent a returning session's
// owed messages: publishes go on.
func (h *orderHook) OnSessionEstablished(cl *mochi.Client, _ packets.Packet) { h.release(cl) }

// release ends cl's hand-over, if any.
func (h *orderHook) release(cl *mochi.Client) {
	v, ok := h.handOvers.LoadAndDelete(cl)
	if !ok {
		return
	}
	ho := v.(*handOver)
	ho.once.Do(func() {
		close(ho.done)
		h.gate.Unlock()
	})
}

// URL is the broker's MQTT address for clients on this machine.
func (b *Broker) URL() string { return "tcp://" + b.tcpAddr }

// WebSocketURL is the address for browsers, or "".
func (b *Broker) WebSocketURL() string {
	if b.wsAddr == "" {
		return ""
	}
	return "ws://" + b.wsAddr
}

// Credentials are what the referee's own clients log in with: its
// account, whose password this process made.
func (b *Broker) Credentials() (user, password string) { return b.referee, b.password }

// Sync returns once every publish the broker has acknowledged is
// delivered to its subscribers, and stored for those with a persistent
// session. mochi acknowledges a publish before it delivers it: a client
// counting a message published at its acknowledgement (the referee's
// watermark) could count one that a kill of the process then loses.
func (b *Broker) Sync() { b.order.sync() }

// Close stops the broker, once the publishes under way are delivered and
// stored; those read after are refused, unacknowledged, for their
// publishers to send again.
func (b *Broker) Close() error {
	b.order.gate.Lock()
	b.order.closed.Store(true)
	b.order.gate.Unlock()
	// mochi 2.7.9 closes a listener's clients under its clients' read lock
	// taken twice (GetByListener calls Len): a client connecting or
	// leaving between the two waits for the write lock, the second read
	// lock waits behind it, and Close never returns (seen in
	// TestScoreboardReconnects). Close the listeners and their clients
	// here under one read lock at a time, and take them out of the
	// registry, so that the server's Close finds none left to close.
	b.srv.Listeners.CloseAll(b.closeClients)
	for _, id := range []string{"tcp", "ws"} {
		b.srv.Listeners.Delete(id)
	}
	return b.srv.Close()
}

// closeClients disconnects the clients of one listener, as mochi's
// server would at Close.
func (b *Broker) closeClients(listener string) {
	for _, cl := range b.srv.Clients.GetAll() {
		if cl.Net.Listener == listener && !cl.Closed() {
			_ = b.srv.DisconnectClient(cl, packets.ErrServerShuttingDown)
		}
	}
}

// Exposed reports whether the embedded broker with these listeners
// (websocket "" for none) is reachable beyond loopback.
func Exposed(tcp, websocket string) bool {
	return !loopback(tcp) || (websocket != "" && !loopback(websocket))
}

// ErrExposedWithoutUsers is the error of an embedded broker that would
// listen beyond loopback with no user allowed to send commands.
var ErrExposedWithoutUsers = errors.New("mqtt: the embedded broker listens beyond loopback but no users are configured to send commands")

// CheckExposure says whether the embedded broker may start with these
// listeners (websocket "" for none) and users: exposed beyond loopback, it
// needs at least one user to send commands. StartBroker applies it, and so
// does the configuration's validation, so that a file liarsd run --check
// accepts is one the broker starts with.
func CheckExposure(tcp, websocket string, users map[string]string) error {
	if Exposed(tcp, websocket) && len(users) == 0 {
		return ErrExposedWithoutUsers
	}
	return nil
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// accessHook decides who may connect and publish.
type accessHook struct {
	mochi.HookBase
	srv         *mochi.Server
	log         *slog.Logger
	exposed     bool
	users       map[string]string
	referee     string
	refereePW   string
	refereeIDs  map[string]bool // the referee's own client ids
	tablePrefix string          // prefix/table/
	cmd         string
}

func (h *accessHook) ID() string { return "liarsd-access" }

func (h *accessHook) Provides(b byte) bool {
	return bytes.Contains([]byte{mochi.OnConnect, mochi.OnConnectAuthenticate, mochi.OnACLCheck, mochi.OnPacketRead, mochi.OnPacketEncode}, []byte{b})
}

// OnPacketRead mends two traps of mochi v2.7.9 in a CONNECT, before mochi
// checks it. A password may be empty (MQTT 3.1.1, 3.1.3.5; MQTT 5 too),
// but mochi refused a password flag with an empty password as a protocol
// error, answering an MQTT 3.1.1 client with MQTT 5's code 0x82, which
// 3.1.1 does not have: the empty password is authenticated like any other
// (OnConnectAuthenticate). And an MQTT 3.1.1 CONNECT that breaks the
// protocol is refused as 3.1.1 says, by closing the connection without a
// CONNACK, not with an MQTT 5 code.
func (h *accessHook) OnPacketRead(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if pk.FixedHeader.Type != packets.Connect {
		return pk, nil
	}
	if pk.Connect.PasswordFlag && len(pk.Connect.Password) == 0 {
		pk.Connect.PasswordFlag = false
	}
	if pk.ProtocolVersion < 5 {
		if code := pk.ConnectValidate(); code != packets.CodeSuccess {
			if _, ok := packets.V5CodesToV3[code]; !ok {
				h.log.Warn("mqtt: a client's CONNECT breaks MQTT 3.1.1; its connection is closed", "remote", cl.Net.Remote, "err", code.Reason)
				return pk, fmt.Errorf("mqtt: %w", code)
			}
		}
	}
	return pk, nil
}

// OnPacketEncode gives an MQTT 3.1 or 3.1.1 client's refused CONNACK a
// return code of its protocol (0x01 to 0x05) where mochi would send an MQTT
// 5 reason code.
func (h *accessHook) OnPacketEncode(cl *mochi.Client, pk packets.Packet) packets.Packet {
	if pk.FixedHeader.Type != packets.Connack || cl.Properties.ProtocolVersion >= 5 || pk.ReasonCode < packets.ErrUnspecifiedError.Code {
		return pk
	}
	pk.ReasonCode = v3Connack(pk.ReasonCode)
	return pk
}

// v3Connack is the MQTT 3.1.1 CONNACK return code for an MQTT 5 reason
// code of a refused connection.
func v3Connack(code byte) byte {
	switch code {
	case packets.ErrUnsupportedProtocolVersion.Code:
		return packets.Err3UnsupportedProtocolVersion.Code
	case packets.ErrClientIdentifierNotValid.Code, packets.ErrUnspecifiedError.Code:
		// mochi refuses an empty client id with a persistent session with
		// 0x80; 3.1.1 says "identifier rejected" (3.1.3.1).
		return packets.Err3ClientIdentifierNotValid.Code
	case packets.ErrServerUnavailable.Code, packets.ErrServerBusy.Code:
		return packets.Err3ServerUnavailable.Code
	case packets.ErrBadUsernameOrPassword.Code, packets.ErrBadAuthenticationMethod.Code:
		return packets.ErrMalformedUsernameOrPassword.Code // 0x04
	}
	return packets.Err3NotAuthorized.Code
}

// OnConnect refuses, before mochi authenticates the client (which checks
// the password of the name it gives), a client that takes one of the
// referee's client ids without the referee's name, and a client whose last
// will it could not publish itself. mochi v2.7.9 publishes a will without
// its ACL check: an anonymous client could otherwise leave a command, a
// fake event or a retained "offline" behind by dropping its connection.
// A refused client gets a CONNACK that says why.
func (h *accessHook) OnConnect(cl *mochi.Client, pk packets.Packet) error {
	v5 := cl.Properties.ProtocolVersion == 5
	user := string(pk.Connect.Username)
	if h.refereeIDs[cl.ID] && user != h.referee {
		h.log.Warn("mqtt: a client refused: its client id is the referee's", "client", cl.ID, "user", user, "remote", cl.Net.Remote)
		return h.refuse(cl, packets.ErrClientIdentifierNotValid, packets.Err3ClientIdentifierNotValid, v5)
	}
	if !pk.Connect.WillFlag {
		return nil
	}
	topic := pk.Connect.WillTopic
	why := ""
	switch {
	case !h.OnACLCheck(cl, topic, true):
		why = "its last will is on a topic it may not publish on"
	case pk.Connect.WillRetain && topic == h.cmd:
		why = "its last will is a retained command (commands are never retained)"
	default:
		return nil
	}
	h.log.Warn("mqtt: a client refused: "+why, "client", cl.ID, "user", user, "topic", topic, "retain", pk.Connect.WillRetain, "remote", cl.Net.Remote)
	return h.refuse(cl, packets.ErrNotAuthorized, packets.Err3NotAuthorized, v5)
}

// refuse answers a CONNECT with a refusal, code5 to an MQTT 5 client and
// code3 to an older one, and returns the error that makes mochi close the
// connection.
func (h *accessHook) refuse(cl *mochi.Client, code5, code3 packets.Code, v5 bool) error {
	var err error
	if v5 {
		err = h.srv.SendConnack(cl, code5, false, nil)
	} else {
		// mochi's SendConnack takes a code below 0x80 for a success.
		err = cl.WritePacket(packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Connack}, ReasonCode: code3.Code})
	}
	if err != nil {
		return fmt.Errorf("mqtt: refusing client %s: %w", cl.ID, err)
	}
	return code5
}

// OnConnectAuthenticate lets anyone in without a name, and a named client
// only with its password; on loopback, any name but the referee's goes.
func (h *accessHook) OnConnectAuthenticate(cl *mochi.Client, pk packets.Packet) bool {
	user := string(pk.Connect.Username)
	if user == "" {
		return true
	}
	if user == h.referee {
		return subtle.ConstantTimeCompare([]byte(h.refereePW), pk.Connect.Password) == 1
	}
	if !h.exposed {
		return true
	}
	want, ok := h.users[user]
	return ok && subtle.ConstantTimeCompare([]byte(want), pk.Connect.Password) == 1
}

// OnACLCheck: reading is open; when exposed, commands need a user and the
// table's other topics are the referee's alone.
func (h *accessHook) OnACLCheck(cl *mochi.Client, topic string, write bool) bool {
	if !write || !h.exposed {
		return true
	}
	user := string(cl.Properties.Username)
	switch {
	case user == h.referee && user != "":
		return true
	case topic == h.cmd:
		return user != ""
	case strings.HasPrefix(topic, h.tablePrefix):
		return false
	}
	return user != ""
}

// minLevel drops records below a level.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.level && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(attrs), m.level}
}

func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{m.Handler.WithGroup(name), m.level}
}
