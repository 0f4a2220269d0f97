package mqtt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"go.etcd.io/bbolt"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// tally counts what a subscriber received of events 1 to n: the seqs never
// received, and those first received after a later one.
func tally(ms []mqtttest.Message, n int) (lost []int, reordered int) {
	seen := map[int]bool{}
	top := 0
	for _, m := range ms {
		var e struct{ Seq int }
		_ = json.Unmarshal(m.Payload, &e)
		if seen[e.Seq] {
			continue
		}
		seen[e.Seq] = true
		if e.Seq < top {
			reordered++
		}
		top = max(top, e.Seq)
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			lost = append(lost, i)
		}
	}
	return lost, reordered
}

// distinct reports whether ms hold every seq 1 to n.
func distinct(n int) func([]mqtttest.Message) bool {
	return func(ms []mqtttest.Message) bool { lost, _ := tally(ms, n); return len(lost) == 0 }
}

// A persistent QoS 1 subscriber that comes back while the referee
// publishes, again and again, and across restarts of the broker, gets
// every event, in order. mochi v2.7.9 handed a returning session over
// while publishes went on: an event delivered to the old connection after
// mochi copied its messages in flight was lost with it, and events
// delivered to the new connection overtook the owed ones it resent.
func TestEmbeddedBrokerLosesNothingWhenASubscriberComesBack(t *testing.T) {
	opts := mqtt.BrokerOptions{TCP: fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t)), Table: "t1",
		Store: filepath.Join(t.TempDir(), "broker.db"), Logger: quiet()}
	b, err := mqtt.StartBroker(opts)
	if err != nil {
		t.Fatal(err)
	}
	var cur atomic.Pointer[mqtt.Broker]
	cur.Store(b)
	defer func() { cur.Load().Close() }()
	sub := mqtttest.Subscribe(t, b.URL(), "sub", awayEvents)
	subs := []*mqtttest.Subscriber{sub}
	// received is what the subscriber's connections got, in order.
	received := func() []mqtttest.Message {
		var ms []mqtttest.Message
		for _, s := range subs {
			ms = append(ms, s.Messages()...)
		}
		return ms
	}
	store := t.TempDir()
	dial := func(b *mqtt.Broker) (*mqtt.Client, error) {
		user, password := b.Credentials()
		return mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: store, Username: user, Password: password,
			Logger: quiet(), RetryInterval: 50 * time.Millisecond, Stored: b.Sync})
	}
	c, err := dial(b)
	if err != nil {
		t.Fatal(err)
	}
	const rounds, per = 30, 20
	seq := 0
	for r := range rounds {
		for range per {
			seq++
			c.Event(seq, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x"}`, seq)))
		}
		// The subscriber goes and comes back while those are published.
		sub.Client().Disconnect(0)
		sub = mqtttest.Subscribe(t, cur.Load().URL(), "sub", awayEvents)
		subs = append(subs, sub)
		if r%10 == 9 {
			// The daemon stops (its client, then its broker) and starts
			// again: the client publishes again what the watermark does
			// not cover.
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_ = c.Close(ctx)
			cancel()
			cur.Load().Close()
			nb, err := mqtt.StartBroker(opts)
			if err != nil {
				t.Fatal(err)
			}
			cur.Store(nb)
			if c, err = dial(nb); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= seq; i++ {
				c.Event(i, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x"}`, i)))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// The last connection stays: what it still gets, it gets last.
	sub.Wait(t, 60*time.Second, fmt.Sprintf("%d events", seq), func([]mqtttest.Message) bool { return distinct(seq)(received()) })
	ms := received()
	if lost, reordered := tally(ms, seq); len(lost) > 0 || reordered > 0 {
		t.Errorf("%d events over %d returns: lost %v, %d reordered; want none lost, none reordered", seq, rounds, lost, reordered)
	}
}

// storedFor counts the messages the broker's store at path owes client
// id, reading a copy of the file as a kill -9 would leave it.
func storedFor(t *testing.T, path, id string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(cp, 0o600, &bbolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	_ = db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(_ []byte, bk *bbolt.Bucket) error {
			return bk.ForEach(func(k, _ []byte) error {
				if strings.HasPrefix(string(k), "IFM_"+id+":") {
					n++
				}
				return nil
			})
		})
	})
	return n
}

// The referee counts an event published (its watermark, which decides what
// a restart publishes again) only once the broker has stored it for every
// subscriber away: mochi acknowledges a publish before it stores it, and a
// kill -9 between the two lost the event for good.
func TestEmbeddedBrokerStoresAnEventBeforeItCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.db")
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Store: path, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Many subscribers away: a write to the store for each, after the
	// acknowledgement.
	const away = 30
	for i := range away {
		mqtttest.Subscribe(t, b.URL(), fmt.Sprintf("away%d", i), awayEvents).Client().Disconnect(100)
	}
	user, password := b.Credentials()
	c, err := mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: t.TempDir(), Username: user, Password: password,
		Logger: quiet(), Stored: b.Sync})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for i := 1; i <= 10; i++ {
		c.Event(i, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x"}`, i)))
		if err := c.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := storedFor(t, path, fmt.Sprintf("away%d", away-1)); got != c.Watermark() {
			t.Fatalf("watermark %d, the store owes the last subscriber %d events; want the same", c.Watermark(), got)
		}
	}
}

// A subscriber that comes back and does not read what it is owed, its
// connection then broken in the middle of the resend, is owed all of it
// after a restart: mochi deleted the stored messages of a session taken
// over (copied to the new connection under the same keys) and stored
// again only those the resend reached.
func TestEmbeddedBrokerKeepsWhatAnInterruptedResendOwes(t *testing.T) {
	opts := mqtt.BrokerOptions{TCP: fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t)), Table: "t1",
		Store: filepath.Join(t.TempDir(), "broker.db"), Logger: quiet()}
	b, err := mqtt.StartBroker(opts)
	if err != nil {
		t.Fatal(err)
	}
	away := mqtttest.Subscribe(t, b.URL(), "away", awayEvents)
	away.Client().Disconnect(100)
	user, password := b.Credentials()
	c, err := mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: t.TempDir(), Username: user, Password: password,
		Logger: quiet(), Stored: b.Sync})
	if err != nil {
		t.Fatal(err)
	}
	// More than the sockets buffer: the resend blocks.
	const n = 200
	pad := strings.Repeat("x", 128<<10)
	for i := 1; i <= n; i++ {
		c.Event(i, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x","pad":%q}`, i, pad)))
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The subscriber comes back (MQTT 3.1.1, clean session false), reads
	// its CONNACK and the start of the resend, and its connection breaks.
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.URL(), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	connect := []byte{0x10, 16, 0, 4, 'M', 'Q', 'T', 'T', 4, 0, 0, 60, 0, 4, 'a', 'w', 'a', 'y'}
	if _, err := conn.Write(connect); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	if _, err := conn.Read(buf); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	b.Close()
	if b, err = mqtt.StartBroker(opts); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	back := mqtttest.Subscribe(t, b.URL(), "away", awayEvents)
	back.Wait(t, 60*time.Second, fmt.Sprintf("%d events", n), distinct(n))
}

// A client's QoS 1 publish whose packet id is that of an event in flight
// to it leaves that event owed: mochi v2.7.9 keeps both directions' ids in
// one table and dropped the event, never to resend it, though the client
// had not acknowledged it.
func TestEmbeddedBrokerKeepsAnEventWhoseIDTheClientPublishesWith(t *testing.T) {
	const n = 5
	b := brokerOwing(t, n, false)
	got := make(chan paho.Message, 2*n)
	o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID("away").SetCleanSession(false).
		SetAutoReconnect(false).SetOrderMatters(true).SetAutoAckDisabled(true)
	o.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { got <- m })
	cli := paho.NewClient(o)
	if tok := cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting: %v", tok.Error())
	}
	for range n {
		<-got // resent, not acknowledged
	}
	// paho numbers its first publish 1: the id of the first owed event.
	if tok := cli.Publish("liarsdice/t1/chat", 1, false, "hello"); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publishing: %v", tok.Error())
	}
	cli.Disconnect(100)
	back := mqtttest.Subscribe(t, b.URL(), "away", awayEvents)
	back.Wait(t, 30*time.Second, fmt.Sprintf("the %d events still owed", n), distinct(n))
}

// A client that publishes and reads nothing holds no event back for long:
// its publish's acknowledgement, blocked behind what the broker could not
// write to it, is written under the lock that Sync waits for, and the
// client is cut off once the broker's write timeout passes (mochi's own
// deadline is none at a keepalive of 0).
func TestEmbeddedBrokerOutlastsAClientThatDoesNotRead(t *testing.T) {
	defer mqtt.SetWriteTimeout(500 * time.Millisecond)()
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	user, password := b.Credentials()
	c, err := mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: t.TempDir(), Username: user, Password: password,
		Logger: quiet(), Stored: b.Sync})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	// The stuck client: MQTT 3.1.1, keepalive 0, subscribed at QoS 0 to
	// the events; it reads nothing after its SUBACK.
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.URL(), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	connect := []byte{0x10, 17, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 0, 0, 5, 's', 't', 'u', 'c', 'k'}
	topic := []byte(awayEvents)
	subscribe := append([]byte{0x82, byte(2 + 2 + len(topic) + 1), 0, 1, 0, byte(len(topic))}, append(topic, 0)...)
	if _, err := conn.Write(append(connect, subscribe...)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 9) // CONNACK (4) and SUBACK (5)
	if _, err := io.ReadFull(conn, buf); err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 128<<10)
	for i := 1; i <= 100; i++ {
		c.Event(i, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x","pad":%q}`, i, pad)))
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Its QoS 1 publish, whose acknowledgement cannot be written.
	chat := []byte("liarsdice/t1/chat")
	publish := append([]byte{0x32, byte(2 + len(chat) + 2 + 2), 0, byte(len(chat))}, append(chat, 0, 7, 'h', 'i')...)
	if _, err := conn.Write(publish); err != nil {
		t.Fatal(err)
	}
	c.Event(101, []byte(`{"type":"left","seq":101,"seat":"x"}`))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatalf("an event after a stuck client's publish: %v; want it published", err)
	}
}
