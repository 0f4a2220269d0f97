package mqtt_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// MQTT.md: status is online, or offline (also the connection's last will).
// A Close whose time runs out before the queue drains still leaves the
// retained status offline: the clean disconnect that follows discards the
// last will, so nothing else would say it.
func TestCloseSaysOfflineWhenTheQueueDoesNotDrain(t *testing.T) {
	for _, broker := range []string{"embedded", "mosquitto"} {
		t.Run(broker, func(t *testing.T) {
			url, user, password := "", "", ""
			if broker == "mosquitto" {
				url = mqtttest.StartMosquitto(t).URL()
			} else {
				b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				url = b.URL()
				user, password = b.Credentials()
			}
			const status = "liarsdice/t1/status"
			c, err := mqtt.Dial(mqtt.Options{Broker: url, Table: "t1", StoreDir: t.TempDir(), Username: user, Password: password, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			watch := mqtttest.Subscribe(t, url, "watch-"+broker, status)
			watch.Wait(t, 10*time.Second, "status online", func(ms []mqtttest.Message) bool {
				return len(ms) > 0 && string(ms[len(ms)-1].Payload) == "online"
			})
			for i := 1; i <= 300; i++ {
				c.Event(i, []byte(fmt.Sprintf(`{"type":"left","seq":%d,"seat":"x"}`, i)))
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()         // no time at all to deliver the queue
			_ = c.Close(ctx) // "messages not delivered", or nil if they were
			late := mqtttest.Subscribe(t, url, "late-"+broker, status)
			ms := late.Wait(t, 10*time.Second, "the retained status", func(ms []mqtttest.Message) bool { return len(ms) > 0 })
			if got, want := string(ms[len(ms)-1].Payload), "offline"; got != want {
				t.Errorf("retained status after Close; got %q, want %q", got, want)
			}
		})
	}
}

// A reply's acked callback runs only once the broker has acknowledged the
// reply: not while the broker is away, and after it comes back, with the
// reply delivered. The daemon acknowledges a command to the broker then,
// so that a command whose reply dies unsent with the process is delivered
// again.
func TestReplyAckedOnlyOnceTheBrokerHasIt(t *testing.T) {
	broker := mqtttest.StartMosquitto(t)
	c, err := mqtt.Dial(mqtt.Options{Broker: broker.URL(), Table: "t1", StoreDir: t.TempDir(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	<-c.Ready()
	watch := mqtttest.Subscribe(t, broker.URL(), "watch", "liarsdice/t1/reply")
	acked := make(chan struct{}, 2)
	c.ReplyAcked([]byte(`{"id":1,"ok":true}`), func() { acked <- struct{}{} })
	select {
	case <-acked:
	case <-time.After(10 * time.Second):
		t.Fatal("the first reply was never acknowledged")
	}
	watch.Wait(t, 10*time.Second, "the first reply", func(ms []mqtttest.Message) bool { return len(ms) == 1 })

	broker.Stop()
	c.ReplyAcked([]byte(`{"id":2,"ok":true}`), func() { acked <- struct{}{} })
	select {
	case <-acked:
		t.Fatal("a reply was acknowledged while the broker was away")
	case <-time.After(500 * time.Millisecond):
	}
	broker.Restart(0)
	select {
	case <-acked:
	case <-time.After(20 * time.Second):
		t.Fatal("the second reply was not acknowledged after the broker came back")
	}
	watch.Wait(t, 20*time.Second, "the second reply", func(ms []mqtttest.Message) bool {
		return len(ms) > 0 && string(ms[len(ms)-1].Payload) == `{"id":2,"ok":true}`
	})
}
