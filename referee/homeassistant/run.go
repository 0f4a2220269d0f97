package homeassistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee/mqtt"
)

// RunOptions configure Run.
type RunOptions struct {
	Options
	// Broker is the broker's URL (tcp://127.0.0.1:1883, ssl://..., ws://...).
	Broker             string
	Username, Password string
	// CAFile is a PEM file of the broker's certificate authority (ssl://,
	// wss://); empty uses the system's. The referee's own client reads the
	// same file (mqtt.TLSConfig).
	CAFile string
	// InsecureSkipVerify skips checking the broker's certificate (testing
	// only).
	InsecureSkipVerify bool
	// ClientID defaults to liarsd-TABLE-ha.
	ClientID string
	Logger   *slog.Logger
}

// Run keeps a table's discovery configs on the broker until ctx is done.
// It has its own MQTT client: it reads the table's retained state (so it
// needs no hook into the referee), publishes the configs retained at QoS
// 1, removes the sensors of seats that left, and publishes everything
// again when Home Assistant announces itself on homeassistant/status and
// at every reconnection. It reconnects by itself while the broker is away;
// a failed connection is logged at warn (the first of a run of failures
// with the same reason, the rest at debug). A CA file that cannot be read
// is an error.
func Run(ctx context.Context, o RunOptions) error {
	o.fill()
	if o.Broker == "" {
		return errors.New("homeassistant: no broker URL")
	}
	if err := checkTable(o.Table); err != nil {
		return err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ClientID == "" {
		o.ClientID = DefaultClientID(o.Table)
	}
	tc, err := mqtt.TLSConfig(o.CAFile, o.InsecureSkipVerify)
	if err != nil {
		return fmt.Errorf("homeassistant: %w", err)
	}
	log := o.Logger.With("component", "homeassistant")
	stateTopic := o.Prefix + "/" + o.Table + "/state"
	node := "liarsd_" + o.Table
	ours := func(topic string) bool {
		// discovery/<component>/liarsd_<table>/<key>/config
		parts := strings.Split(topic, "/")
		return len(parts) == 5 && parts[0] == o.DiscoveryPrefix && parts[2] == node && parts[4] == "config"
	}

	// Handlers run on paho's goroutine and must not block or publish: they
	// hand work to the loop below.
	work := make(chan func(), 256)
	post := func(f func()) {
		select {
		case work <- f:
		default:
			log.Warn("homeassistant: falling behind; a message is dropped")
		}
	}
	var cli paho.Client
	pub := NewPublisher(o.Options, func(topic string, payload []byte, retained bool) {
		tok := cli.Publish(topic, 1, retained, payload)
		go func() {
			if tok.WaitTimeout(10*time.Second) && tok.Error() != nil {
				log.Warn("homeassistant: publishing", "topic", topic, "err", tok.Error())
			}
		}()
	})
	// paho tries again every second while the broker is away or refuses
	// the client (a wrong password, a certificate it does not trust): say
	// so once per reason rather than every second, or never.
	var failMu sync.Mutex
	lastFail := ""
	notify := func(_ paho.Client, n paho.ConnectionNotification) {
		failMu.Lock()
		defer failMu.Unlock()
		switch n := n.(type) {
		case paho.ConnectionNotificationFailed:
			if reason := fmt.Sprint(n.Reason); reason != lastFail {
				lastFail = reason
				log.Warn("homeassistant: cannot connect to the broker; retrying", "broker", o.Broker, "err", n.Reason)
			} else {
				log.Debug("homeassistant: cannot connect to the broker; retrying", "broker", o.Broker, "err", n.Reason)
			}
		case paho.ConnectionNotificationLost:
			lastFail = ""
			log.Warn("homeassistant: connection lost; reconnecting", "broker", o.Broker, "err", n.Reason)
		case paho.ConnectionNotificationConnected:
			lastFail = ""
		}
	}
	po := paho.NewClientOptions().AddBroker(o.Broker).SetClientID(o.ClientID).
		SetCleanSession(true).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectionNotificationHandler(notify).
		SetConnectRetryInterval(time.Second).SetMaxReconnectInterval(5 * time.Second).
		SetKeepAlive(20 * time.Second).SetOrderMatters(false).
		SetOnConnectHandler(func(c paho.Client) {
			log.Info("homeassistant: connected", "broker", o.Broker)
			c.Subscribe(o.DiscoveryPrefix+"/+/"+node+"/+/config", 1, func(_ paho.Client, m paho.Message) {
				if ours(m.Topic()) {
					topic, payload := m.Topic(), append([]byte(nil), m.Payload()...)
					post(func() { pub.Known(topic, payload) })
				}
			})
			c.Subscribe(stateTopic, 1, func(_ paho.Client, m paho.Message) {
				var s engine.Snapshot
				if err := json.Unmarshal(m.Payload(), &s); err != nil {
					log.Warn("homeassistant: the table's state is not a snapshot", "err", err)
					return
				}
				post(func() { pub.Update(s) })
			})
			c.Subscribe(o.DiscoveryPrefix+"/status", 1, func(_ paho.Client, m paho.Message) {
				payload := append([]byte(nil), m.Payload()...)
				post(func() { pub.HomeAssistantStatus(payload) })
			})
			// A broker that restarted without persistence has lost the
			// retained configs; one that kept them gets the same again.
			post(pub.Republish)
		})
	if o.Username != "" {
		po.SetUsername(o.Username).SetPassword(o.Password)
	}
	if tc != nil {
		po.SetTLSConfig(tc)
	}
	cli = paho.NewClient(po)
	cli.Connect()
	defer cli.Disconnect(250)
	for {
		select {
		case <-ctx.Done():
			return nil
		case f := <-work:
			f()
		}
	}
}

// checkTable refuses a table id that is not MQTT.md's (letters, digits,
// - and _): in a topic filter it could name other tables' topics.
func checkTable(id string) error {
	if !mqtt.ValidTable(id) {
		return fmt.Errorf("homeassistant: table id %q is not 1 to 64 letters, digits, - or _", id)
	}
	return nil
}

// DefaultClientID is the client id Run connects under unless told
// another: one of the referee's own, which the embedded broker keeps for
// the referee's account.
func DefaultClientID(table string) string { return "liarsd-" + table + "-ha" }

// RemoveAll connects, removes every discovery config of the table found
// retained on the broker (and those its current state implies), and
// returns: Home Assistant then drops the device.
func RemoveAll(ctx context.Context, o RunOptions) error {
	o.fill()
	if err := checkTable(o.Table); err != nil {
		return err
	}
	if o.ClientID == "" {
		o.ClientID = "liarsd-" + o.Table + "-ha-remove"
	}
	tc, err := mqtt.TLSConfig(o.CAFile, o.InsecureSkipVerify)
	if err != nil {
		return fmt.Errorf("homeassistant: %w", err)
	}
	po := paho.NewClientOptions().AddBroker(o.Broker).SetClientID(o.ClientID).SetCleanSession(true).SetConnectTimeout(10 * time.Second)
	if o.Username != "" {
		po.SetUsername(o.Username).SetPassword(o.Password)
	}
	if tc != nil {
		po.SetTLSConfig(tc)
	}
	cli := paho.NewClient(po)
	if tok := cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		return fmt.Errorf("homeassistant: connecting to %s: %v", o.Broker, tok.Error())
	}
	defer cli.Disconnect(250)
	found := make(chan string, 512)
	node := "liarsd_" + o.Table
	tok := cli.Subscribe(o.DiscoveryPrefix+"/+/"+node+"/+/config", 1, func(_ paho.Client, m paho.Message) {
		if len(m.Payload()) > 0 {
			select {
			case found <- m.Topic():
			default:
			}
		}
	})
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		return fmt.Errorf("homeassistant: subscribing: %v", tok.Error())
	}
	// Retained messages arrive right after the subscription.
	topics := map[string]bool{}
	for _, m := range Configs(o.Options, engine.Snapshot{}) {
		topics[m.Topic] = true
	}
	quiet := time.NewTimer(500 * time.Millisecond)
collect:
	for {
		select {
		case t := <-found:
			topics[t] = true
			quiet.Reset(300 * time.Millisecond)
		case <-quiet.C:
			break collect
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, t := range sortedKeys(topics) {
		if tok := cli.Publish(t, 1, true, []byte{}); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			return fmt.Errorf("homeassistant: removing %s: %v", t, tok.Error())
		}
	}
	return nil
}
