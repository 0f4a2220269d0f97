// Package link is the tournament service's MQTT side: it takes every
// table's events and replies from the venue's broker with a persistent
// session (what was published while the service was away is delivered
// when it comes back), hands each message over with an Ack that the
// service calls only once it has journaled what it needs of it, sends the
// tables' new_game commands, and keeps the tournament's retained topics.
//
// Topics: it reads <prefix>/+/events and <prefix>/+/reply (MQTT.md), sends
// on <prefix>/<table>/cmd, and publishes <prefix>/tournament/<name>/state,
// .../standings and .../status (online, or offline as its last will), all
// retained.
package link

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/referee/mqtt"
)

// The kinds of Message.
const (
	Events = "events"
	Reply  = "reply"
)

// Message is a table's event or reply.
type Message struct {
	Kind    string
	Table   string
	Payload []byte
	// Redelivered: the broker sent it before (a duplicate, or one the
	// service took but did not acknowledge before it stopped).
	Redelivered bool
	// Ack tells the broker the message is taken; until then a broker
	// that keeps the session delivers it again after a reconnection.
	Ack func()
}

// Options configure a Link.
type Options struct {
	// Broker is the venue broker's URL (tcp://, ssl://, ws://, wss://),
	// with its login and TLS settings.
	Broker, Username, Password string
	CAFile                     string
	InsecureSkipVerify         bool
	// Prefix is the topics' first level (liarsdice).
	Prefix string
	// Name is the tournament's id: its topics and its client id
	// (liarsd-tournament-<name>, the same across restarts: the session).
	Name   string
	Logger *slog.Logger
	// Queue is how many messages wait for the service before the link
	// stops reading (4096).
	Queue int
}

// Topics returns the tournament's topics under prefix.
func Topics(prefix, name string) (state, standings, status string) {
	if prefix == "" {
		prefix = mqtt.DefaultPrefix
	}
	base := prefix + "/tournament/" + name + "/"
	return base + "state", base + "standings", base + "status"
}

// ClientID is the tournament service's MQTT client id.
func ClientID(name string) string { return "liarsd-tournament-" + name }

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidName reports whether name can name a tournament: 1 to 64 letters,
// digits, - and _ (it is a topic level and part of a client id).
func ValidName(name string) bool { return nameRE.MatchString(name) }

// Link is a connection to the venue's broker.
type Link struct {
	o         Options
	log       *slog.Logger
	cli       paho.Client
	msgs      chan Message
	connected chan struct{}
	status    string
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}

	mu      sync.Mutex
	pending int // publishes not yet acknowledged by the broker
	// retained holds each retained topic's latest payload not yet
	// acknowledged, and sending the topics being published: only the
	// latest goes, once the one before is acknowledged, and only while
	// connected, so that a large state published every second never
	// piles up while the broker is away (paho would keep and resend
	// every one of them at the reconnection).
	retained map[string][]byte
	sending  map[string]bool
}

// Dial connects to the broker (in the background: it keeps trying while
// the broker is away) and subscribes.
func Dial(o Options) (*Link, error) {
	if o.Broker == "" {
		return nil, errors.New("link: no broker URL")
	}
	if !ValidName(o.Name) {
		return nil, fmt.Errorf("link: tournament name %q: 1 to 64 letters, digits, - and _", o.Name)
	}
	if o.Prefix == "" {
		o.Prefix = mqtt.DefaultPrefix
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	_, _, status := Topics(o.Prefix, o.Name)
	l := &Link{o: o, log: o.Logger.With("component", "link", "broker", o.Broker), msgs: make(chan Message, o.Queue),
		connected: make(chan struct{}, 1), status: status, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		retained: map[string][]byte{}, sending: map[string]bool{}}
	po := paho.NewClientOptions().
		AddBroker(o.Broker).
		SetClientID(ClientID(o.Name)).
		// The session is kept while the service is away: events
		// published meanwhile are delivered when it comes back.
		SetCleanSession(false).
		SetAutoReconnect(true).
		SetConnectRetry(true).
		SetConnectRetryInterval(500*time.Millisecond).
		SetMaxReconnectInterval(2*time.Second).
		SetConnectTimeout(5*time.Second).
		// A busy venue's broker (or this machine) may answer a ping late:
		// a connection dropped for it is resent everything in flight.
		SetKeepAlive(30*time.Second).
		SetPingTimeout(30*time.Second).
		// What is resent at a reconnection goes a little at a time.
		SetMaxResumePubInFlight(100).
		// A table's events in order; the handler only queues.
		SetOrderMatters(true).
		// Acknowledged once journaled (Message.Ack), not when handed over.
		SetAutoAckDisabled(true).
		SetBinaryWill(status, []byte("offline"), 1, true).
		SetOnConnectHandler(l.onConnect).
		SetConnectionLostHandler(func(_ paho.Client, err error) {
			l.log.Warn("link: connection to the broker lost; reconnecting", "err", err)
		})
	po.SetDefaultPublishHandler(l.take)
	if o.Username != "" {
		po.SetUsername(o.Username)
		po.SetPassword(o.Password)
	}
	tc, err := mqtt.TLSConfig(o.CAFile, o.InsecureSkipVerify)
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	if tc != nil {
		po.SetTLSConfig(tc)
	}
	l.cli = paho.NewClient(po)
	l.cli.Connect()
	go l.keep()
	return l, nil
}

// onConnect subscribes (a persistent session keeps the subscriptions, but
// a broker that lost it has none), says online, and tells the service.
// It runs on paho's goroutine and must not wait for a token.
func (l *Link) onConnect(c paho.Client) {
	l.log.Info("link: connected")
	subs := map[string]byte{l.o.Prefix + "/+/events": 1, l.o.Prefix + "/+/reply": 1}
	c.SubscribeMultiple(subs, nil)
	l.publish(l.status, []byte("online"), true)
	select {
	case l.connected <- struct{}{}:
	default:
	}
	l.nudge()
}

// take queues a message for the service. It blocks while the queue is
// full, which stops paho reading: the broker holds the rest.
func (l *Link) take(_ paho.Client, m paho.Message) {
	parts := strings.Split(m.Topic(), "/")
	if len(parts) != 3 || parts[0] != l.o.Prefix || (parts[2] != Events && parts[2] != Reply) {
		m.Ack()
		return
	}
	l.msgs <- Message{Kind: parts[2], Table: parts[1], Payload: m.Payload(), Redelivered: m.Duplicate(), Ack: m.Ack}
}

// Messages delivers the tables' events and replies, in the order the
// broker sent them.
func (l *Link) Messages() <-chan Message { return l.msgs }

// Connected receives a value at each connection to the broker (the first
// and every reconnection).
func (l *Link) Connected() <-chan struct{} { return l.connected }

// Send publishes a command to a table (QoS 1, never retained). It does not
// wait: paho sends it when connected.
func (l *Link) Send(table string, line []byte) {
	l.publish(l.o.Prefix+"/"+table+"/cmd", line, false)
}

// Publish keeps payload on topic (QoS 1, retained). It does not wait:
// the latest payload of each topic goes once the one before it is
// acknowledged, while connected; one superseded before it went never
// goes.
func (l *Link) Publish(topic string, payload []byte) {
	l.mu.Lock()
	l.retained[topic] = payload
	l.mu.Unlock()
	l.nudge()
}

func (l *Link) nudge() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// keep sends the retained topics' latest payloads.
func (l *Link) keep() {
	defer close(l.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.wake:
		case <-tick.C:
		}
		if !l.cli.IsConnectionOpen() {
			continue
		}
		l.mu.Lock()
		for topic, payload := range l.retained {
			if l.sending[topic] {
				continue
			}
			l.sending[topic] = true
			tok := l.cli.Publish(topic, 1, true, payload)
			go func() {
				ok := tok.WaitTimeout(time.Minute) && tok.Error() == nil
				l.mu.Lock()
				delete(l.sending, topic)
				if ok && string(l.retained[topic]) == string(payload) {
					delete(l.retained, topic)
				}
				l.mu.Unlock()
				if !ok {
					l.log.Warn("link: a retained publish was not acknowledged; it goes again", "topic", topic, "err", tok.Error())
				}
				l.nudge()
			}()
		}
		l.mu.Unlock()
	}
}

func (l *Link) publish(topic string, payload []byte, retained bool) {
	tok := l.cli.Publish(topic, 1, retained, payload)
	l.mu.Lock()
	l.pending++
	l.mu.Unlock()
	go func() {
		tok.Wait()
		l.mu.Lock()
		l.pending--
		l.mu.Unlock()
		if err := tok.Error(); err != nil {
			l.log.Warn("link: a publish failed", "topic", topic, "err", err)
		}
	}()
}

// Pending returns the number of publishes the broker has not acknowledged.
func (l *Link) Pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending
}

// Close sends the retained topics' latest payloads not yet
// acknowledged, says offline and disconnects, waiting up to wait for
// publishes in flight.
func (l *Link) Close(wait time.Duration) {
	close(l.stop)
	<-l.done
	if l.cli.IsConnected() {
		// The latest of each goes after any older one in flight: the
		// broker keeps the last it takes.
		l.mu.Lock()
		last := make(map[string][]byte, len(l.retained))
		for topic, payload := range l.retained {
			last[topic] = payload
		}
		l.mu.Unlock()
		for topic, payload := range last {
			l.publish(topic, payload, true)
		}
		tok := l.cli.Publish(l.status, 1, true, []byte("offline"))
		tok.WaitTimeout(wait)
	}
	deadline := time.Now().Add(wait)
	for l.Pending() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	l.cli.Disconnect(100)
}
