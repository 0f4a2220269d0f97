package mqtt_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func event(seq int, what string) []byte {
	return []byte(fmt.Sprintf(`{"type":%q,"seq":%d}`, what, seq))
}

// After a restart the client publishes only the events above what the
// broker acknowledged, and only while the replayed journal is the same.
func TestWatermarkAcrossRestarts(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sub := mqtttest.Subscribe(t, b.URL(), "watch", "liarsdice/t1/events")
	store := t.TempDir()
	total := 0
	run := func(events []string, want int) {
		t.Helper()
		user, password := b.Credentials()
		c, err := mqtt.Dial(mqtt.Options{Broker: b.URL(), Table: "t1", StoreDir: store, Username: user, Password: password, Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range events {
			c.Event(i+1, event(i+1, e))
		}
		c.State([]byte(`{}`))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
		prev := total
		total += want
		sub.Wait(t, 10*time.Second, fmt.Sprintf("%d events in all", total), func(ms []mqtttest.Message) bool { return len(ms) >= total })
		time.Sleep(150 * time.Millisecond)
		// paho may resend the message that was in flight at the last
		// disconnection from its store: one repeat of an earlier event.
		got := sub.Messages()
		before := map[string]bool{}
		for _, m := range got[:prev] {
			before[string(m.Payload)] = true
		}
		fresh, repeats := 0, 0
		for _, m := range got[prev:] {
			if before[string(m.Payload)] {
				repeats++
			} else {
				fresh++
			}
		}
		if fresh != want || repeats > 1 {
			var all []string
			for _, m := range got {
				all = append(all, m.Topic+" "+string(m.Payload))
			}
			t.Errorf("%v: %d new events and %d repeats; want %d and at most one repeat; all:\n%s", events, fresh, repeats, want, strings.Join(all, "\n"))
		}
		total = len(got)
	}
	run([]string{"a", "b", "c"}, 3)
	run([]string{"a", "b", "c", "d", "e"}, 2) // the same journal, two more
	run([]string{"a", "b", "c", "d", "e"}, 0) // nothing new
	run([]string{"x", "y"}, 2)                // another journal, shorter
	run([]string{"p", "q", "r", "s"}, 4)      // another journal, longer
	run([]string{"p", "q", "r", "s"}, 0)
}

func TestDialErrors(t *testing.T) {
	for _, o := range []mqtt.Options{
		{Table: "t1", StoreDir: t.TempDir()},
		{Broker: "tcp://127.0.0.1:1", Table: "no spaces", StoreDir: t.TempDir()},
		{Broker: "tcp://127.0.0.1:1", Table: "t1"},
		{Broker: "ssl://127.0.0.1:1", Table: "t1", StoreDir: t.TempDir(), CAFile: "/nonexistent.pem"},
	} {
		if _, err := mqtt.Dial(o); err == nil {
			t.Errorf("Dial(%+v) succeeded", o)
		}
	}
}

// When the embedded broker listens beyond loopback, anyone may read but
// only authenticated users may send commands.
func TestExposedBrokerNeedsUsersForCommands(t *testing.T) {
	if _, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "0.0.0.0:0", Table: "t1"}); err == nil {
		t.Fatal("an exposed broker without users started")
	}
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "0.0.0.0:0", Table: "t1", Users: map[string]string{"app": "secret"}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	url := b.URL()
	spy := mqtttest.Subscribe(t, url, "spy", "liarsdice/t1/#")
	// The broker answers a refused QoS 1 publish from an MQTT 3.1.1 client
	// by closing its connection, so each attempt gets a client of its own.
	for topic, payload := range map[string]string{"liarsdice/t1/cmd": `{"type":"bid"}`, "liarsdice/t1/state": `{"fake":true}`} {
		if err := publishOnce(url, "anon", topic, payload, 1, false); err == nil {
			t.Errorf("an anonymous publish on %s was acknowledged", topic)
		}
	}

	user, pw := b.Credentials()
	ref, err := mqtt.Dial(mqtt.Options{Broker: url, Table: "t1", StoreDir: t.TempDir(), Username: user, Password: pw, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ref.State([]byte(`{"real":true}`))
	spy.Wait(t, 10*time.Second, "the referee's state", func(ms []mqtttest.Message) bool {
		for _, m := range ms {
			if m.Topic == "liarsdice/t1/state" && string(m.Payload) == `{"real":true}` {
				return true
			}
		}
		return false
	})
	// A user with its password may send commands; a wrong password may
	// not even connect.
	app := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("app").SetUsername("app").SetPassword("secret"))
	if tok := app.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("user app: %v", tok.Error())
	}
	app.Publish("liarsdice/t1/cmd", 1, false, `{"type":"spot_on"}`).Wait()
	spy.Wait(t, 10*time.Second, "the user's command", func(ms []mqtttest.Message) bool {
		for _, m := range ms {
			if string(m.Payload) == `{"type":"spot_on"}` {
				return true
			}
		}
		return false
	})
	app.Disconnect(50)
	bad := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("bad").SetUsername("app").SetPassword("guess"))
	if tok := bad.Connect(); tok.WaitTimeout(5*time.Second) && tok.Error() == nil {
		t.Error("a wrong password connected")
	}
	for _, m := range spy.Messages() {
		if string(m.Payload) == `{"type":"bid"}` || string(m.Payload) == `{"fake":true}` {
			t.Errorf("an anonymous client published on %s", m.Topic)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ref.Close(ctx)
}

// publishOnce connects as clientID without a name, publishes payload at
// qos (1 or 2), retained or not, and disconnects. It returns the publish's
// error: nil only when the broker acknowledged it.
func publishOnce(url, clientID, topic, payload string, qos byte, retained bool) error {
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(clientID).SetAutoReconnect(false))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		return fmt.Errorf("connecting: %v", tok.Error())
	}
	defer c.Disconnect(50)
	tok := c.Publish(topic, qos, retained, payload)
	if !tok.WaitTimeout(5 * time.Second) {
		return errors.New("no answer to the publish")
	}
	return tok.Error()
}
