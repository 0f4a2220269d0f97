package mqtt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"go.etcd.io/bbolt"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// MQTT.md: events are never lost. A subscriber with a persistent session
// that is away while a table plays on gets every event when it comes back,
// also more than mochi's default quota of 8192 messages owed to one client.
func TestEmbeddedBrokerKeepsEveryEventForAnAwaySubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes 10000 events")
	}
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const n = 10000
	publishWhileAway(t, b, n)

	back := mqtttest.Subscribe(t, b.URL(), "away", awayEvents)
	ms := back.Wait(t, 30*time.Second, fmt.Sprintf("%d events", n), func(ms []mqtttest.Message) bool { return len(ms) >= n })
	seen := map[int]bool{}
	for _, m := range ms {
		var e struct{ Seq int }
		_ = json.Unmarshal(m.Payload, &e)
		seen[e.Seq] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			t.Fatalf("got %d messages; seq %d missing; want every seq 1 to %d", len(ms), i, n)
		}
	}
}

// MQTT.md: events are never reordered. The events owed to a subscriber
// that was away reach it in seq order when it comes back, also when many
// were published within the same second, and also after a restart of the
// broker that kept them in its store.
func TestEmbeddedBrokerResendsInOrder(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			const n = 300
			b := brokerOwing(t, n, restart)
			back := mqtttest.Subscribe(t, b.URL(), "away", awayEvents)
			ms := back.Wait(t, 30*time.Second, fmt.Sprintf("%d events", n), func(ms []mqtttest.Message) bool { return len(ms) >= n })
			last := 0
			for _, m := range ms {
				var e struct{ Seq int }
				_ = json.Unmarshal(m.Payload, &e)
				if e.Seq < last {
					t.Fatalf("got seq %d after %d; want seq order", e.Seq, last)
				}
				last = e.Seq
			}
		})
	}
}

// brokerOwing starts an embedded broker that owes the client "away" n
// events (publishWhileAway), restarted from its store after they were
// published when restart is set; it is closed when the test ends.
func brokerOwing(t *testing.T, n int, restart bool) *mqtt.Broker {
	t.Helper()
	opts := mqtt.BrokerOptions{TCP: fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t)), Table: "t1", Logger: quiet()}
	if restart {
		opts.Store = filepath.Join(t.TempDir(), "broker.db")
	}
	b, err := mqtt.StartBroker(opts)
	if err != nil {
		t.Fatal(err)
	}
	publishWhileAway(t, b, n)
	if restart {
		b.Close()
		if b, err = mqtt.StartBroker(opts); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// awayEvents is the topic of table t1's events.
const awayEvents = "liarsdice/t1/events"

// publishWhileAway subscribes the client "away" to table t1's events and
// disconnects it, its session left on the broker b, then publishes n
// events (seq 1 to n) through a referee's client and closes it once the
// broker has them all.
func publishWhileAway(t *testing.T, b *mqtt.Broker, n int) {
	t.Helper()
	away := mqtttest.Subscribe(t, b.URL(), "away", awayEvents)
	away.Client().Disconnect(100)

	user, password := b.Credentials()
	c, err := mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: t.TempDir(), Username: user, Password: password, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		c.Event(i, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x"}`, i)))
	}
	// 10000 acknowledgements take seconds here, and minutes on a machine
	// that is busy with other work.
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// A subscriber with a persistent session that comes back to events owed to
// it subscribes again, with packet id 1 as paho and mosquitto_sub do, while
// the broker has its owed messages 1, 2, ... in flight to it. mochi v2.7.9
// refused that SUBSCRIBE (SUBACK 0x91) though the two directions number
// their packets apart, and mosquitto_sub gave up; the subscription must be
// granted, the events delivered, also after a restart of the broker.
func TestEmbeddedBrokerGrantsASubscribeWhoseIDIsInFlight(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			const n = 5
			b := brokerOwing(t, n, restart)
			got := make(chan paho.Message, 2*n)
			// The owed events, resent at once, are left unacknowledged
			// until the subscription is answered, so that their ids are in
			// flight when it arrives.
			o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID("away").SetCleanSession(false).
				SetAutoReconnect(false).SetOrderMatters(true).SetAutoAckDisabled(true)
			o.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { got <- m })
			cli := paho.NewClient(o)
			if tok := cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
				t.Fatalf("connecting: %v", tok.Error())
			}
			defer cli.Disconnect(100)
			time.Sleep(200 * time.Millisecond) // the owed events are resent
			tok := cli.Subscribe(awayEvents, 1, nil)
			if !tok.WaitTimeout(10 * time.Second) {
				t.Fatal("no SUBACK")
			}
			if code := tok.(*paho.SubscribeToken).Result()[awayEvents]; code != 1 {
				t.Fatalf("SUBACK code %#x; want 0x01 (granted at QoS 1)", code)
			}
			for i := 1; i <= n; i++ {
				select {
				case m := <-got:
					m.Ack()
					var e struct{ Seq int }
					_ = json.Unmarshal(m.Payload(), &e)
					if seq := e.Seq; seq != i {
						t.Fatalf("got seq %d; want %d", seq, i)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("seq %d never came", i)
				}
			}
		})
	}
}

// Every write of the embedded broker's store is a bolt transaction with
// two fdatasyncs, and mochi's store wrote the acknowledgement of every QoS 1
// publish a client makes (stored and deleted at once) and every message in
// flight to a client whose session ends with its connection: about a dozen
// transactions for each command a client sent, which capped the daemon at
// some 50 commands a second (BenchmarkCommandRate). Neither is of any use
// to a restarted broker: messages between clean sessions now cost the
// store no write. A bolt database counts its write transactions in its
// meta page.
func TestEmbeddedBrokerStoresOnlyWhatARestartUses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.db")
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Store: path, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeBroker := func() (err error) { once.Do(func() { err = b.Close() }); return err }
	defer closeBroker()
	const n = 200
	connect := func(id string) paho.Client {
		c := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID(id).SetCleanSession(true))
		if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("connecting: %v", tok.Error())
		}
		return c
	}
	sub := connect("sub")
	got := make(chan struct{}, n)
	if tok := sub.Subscribe("liarsdice/t1/reply", 1, func(paho.Client, paho.Message) { got <- struct{}{} }); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribing: %v", tok.Error())
	}
	pub := connect("pub")
	for i := range n {
		if tok := pub.Publish("liarsdice/t1/reply", 1, false, fmt.Sprintf(`{"id":%d,"ok":true}`, i)); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("publishing: %v", tok.Error())
		}
	}
	for range n {
		<-got
	}
	pub.Disconnect(50)
	sub.Disconnect(50)
	if err := closeBroker(); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// The bucket, the two clients and the subscription, each written and
	// deleted: a handful.
	if got := tx.ID(); got > 20 {
		t.Errorf("%d QoS 1 messages between clean sessions: the store committed %d transactions; want at most 20 (none for the messages)", n, got)
	}
}
