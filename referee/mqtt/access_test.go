package mqtt_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// CONNACK codes: MQTT 3.1.1's return codes and MQTT 5's reason codes.
const (
	accepted        = 0x00
	v3IDRejected    = 0x02
	v3NotAuthorized = 0x05
	v5BadLogin      = 0x86
	v5IDNotValid    = 0x85
	v5NotAuthorized = 0x87
)

// rawClient is an MQTT client that speaks just enough of the protocol to
// connect with a last will and drop its connection without a DISCONNECT,
// the way a client that crashes or loses its network does: the broker then
// publishes its will.
type rawClient struct {
	conn net.Conn
	code byte
}

// login is what a rawClient connects with.
type login struct {
	version        byte // 4 (MQTT 3.1.1) or 5
	id, user, pass string
	willTopic      string // "" for no will
	willPayload    string
	willRetain     bool
	persistent     bool // clean session false
}

// rawConnect connects to the broker at url as l says and reads its CONNACK.
func rawConnect(t *testing.T, url string, l login) *rawClient {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	pk := packets.Packet{
		FixedHeader:     packets.FixedHeader{Type: packets.Connect},
		ProtocolVersion: l.version,
		Connect: packets.ConnectParams{
			ProtocolName: []byte("MQTT"), Clean: !l.persistent, Keepalive: 60, ClientIdentifier: l.id,
			WillFlag: l.willTopic != "", WillTopic: l.willTopic, WillPayload: []byte(l.willPayload), WillQos: 1, WillRetain: l.willRetain,
			UsernameFlag: l.user != "", Username: []byte(l.user), PasswordFlag: l.user != "", Password: []byte(l.pass),
		},
	}
	var buf bytes.Buffer
	if err := pk.ConnectEncode(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer conn.SetReadDeadline(time.Time{})
	r := bufio.NewReader(conn)
	head, err := r.ReadByte()
	if err != nil {
		t.Fatalf("%s: no CONNACK: %v", l.id, err)
	}
	n, _, err := packets.DecodeLength(r)
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	ack := packets.Packet{ProtocolVersion: l.version}
	if err := ack.FixedHeader.Decode(head); err != nil || ack.FixedHeader.Type != packets.Connack {
		t.Fatalf("%s: got packet type %d (%v); want a CONNACK", l.id, ack.FixedHeader.Type, err)
	}
	if err := ack.ConnackDecode(body); err != nil {
		t.Fatal(err)
	}
	return &rawClient{conn: conn, code: ack.ReasonCode}
}

// drop closes the connection without a DISCONNECT.
func (c *rawClient) drop() { c.conn.Close() }

// A last will is a publish the broker makes for its client; mochi v2.7.9
// makes it without its ACL check. The embedded broker vets a will when its
// client connects, as it would the client's own publish, and refuses the
// client when the will is one it could not publish (an anonymous command,
// a fake event or status on an exposed broker) or a retained command
// (never kept: a broker hands a retained command over at every
// subscription). Wills that pass are published when their client drops.
func TestEmbeddedBrokerVetsLastWills(t *testing.T) {
	const (
		cmd    = "liarsdice/t1/cmd"
		events = "liarsdice/t1/events"
		status = "liarsdice/t1/status"
	)
	for _, tc := range []struct {
		name    string
		exposed bool
		user    string // "" anonymous; "app" with its password
		topic   string
		retain  bool
		ok      bool
	}{
		{"exposed, anonymous command", true, "", cmd, false, false},
		{"exposed, anonymous retained command", true, "", cmd, true, false},
		{"exposed, anonymous fake event", true, "", events, false, false},
		{"exposed, anonymous retained status", true, "", status, true, false},
		{"exposed, anonymous elsewhere", true, "", "elsewhere/x", false, false},
		{"exposed, user's fake event", true, "app", events, false, false},
		{"exposed, user's retained command", true, "app", cmd, true, false},
		{"exposed, user's command", true, "app", cmd, false, true},
		{"loopback, retained command", false, "", cmd, true, false},
		{"loopback, command", false, "", cmd, false, true},
	} {
		for _, version := range []byte{4, 5} {
			t.Run(fmt.Sprintf("%s, MQTT %d", tc.name, version), func(t *testing.T) {
				opts := mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()}
				if tc.exposed {
					opts.TCP, opts.Users = "0.0.0.0:0", map[string]string{"app": "secret"}
				}
				b, err := mqtt.StartBroker(opts)
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				spy := mqtttest.Subscribe(t, b.URL(), "spy", "liarsdice/#", "elsewhere/#", "marker")
				payload := fmt.Sprintf(`{"id":%q,"type":"new_game","rules":"common-hand","seats":["ann","bob"],"seed":1234567}`, tc.name)
				l := login{version: version, id: "dropper", willTopic: tc.topic, willPayload: payload, willRetain: tc.retain}
				if tc.user != "" {
					l.user, l.pass = tc.user, "secret"
				}
				c := rawConnect(t, b.URL(), l)
				want := byte(accepted)
				if !tc.ok {
					want = v3NotAuthorized
					if version == 5 {
						want = v5NotAuthorized
					}
				}
				if c.code != want {
					t.Fatalf("CONNACK code %#x; want %#x", c.code, want)
				}
				c.drop()
				if tc.ok {
					spy.Wait(t, 10*time.Second, "the will", func(ms []mqtttest.Message) bool {
						return len(ms) > 0 && string(ms[len(ms)-1].Payload) == payload
					})
				}
				// A later subscriber finds nothing retained of it: retained
				// messages come before a marker published once it subscribed.
				late := mqtttest.Subscribe(t, b.URL(), "late", "liarsdice/#", "elsewhere/#", "marker")
				user, password := b.Credentials()
				ref := mqtttest.SubscribeWith(t, mqtttest.Login{URL: b.URL(), ClientID: "marker", Username: user, Password: password}, "marker")
				ref.Publish(t, "marker", []byte("after"))
				late.Wait(t, 10*time.Second, "the marker", func(ms []mqtttest.Message) bool { return len(late.On("marker")) > 0 })
				spy.Wait(t, 10*time.Second, "the marker", func(ms []mqtttest.Message) bool { return len(spy.On("marker")) > 0 })
				for _, m := range late.Messages() {
					if m.Topic != "marker" {
						t.Errorf("a new subscriber got %s %q retained; want nothing", m.Topic, m.Payload)
					}
				}
				if !tc.ok {
					for _, m := range spy.Messages() {
						if m.Topic != "marker" {
							t.Errorf("the refused client's will was published: %s %q", m.Topic, m.Payload)
						}
					}
				}
			})
		}
	}
}

// The referee's client ids are its own: a client taking one over (MQTT
// hands a client id's session to the newest connection) would knock the
// referee off the broker and get the commands meant for it. The embedded
// broker gives them to the referee's account alone (a password of the
// process), on loopback too, and refuses anyone else with "identifier
// rejected".
func TestEmbeddedBrokerKeepsTheRefereesClientIDs(t *testing.T) {
	for _, exposed := range []bool{false, true} {
		t.Run(fmt.Sprintf("exposed=%v", exposed), func(t *testing.T) {
			opts := mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", ClientIDs: []string{"liarsd-t1-ha", ""}, Logger: quiet()}
			if exposed {
				opts.TCP, opts.Users = "0.0.0.0:0", map[string]string{"app": "secret"}
			}
			b, err := mqtt.StartBroker(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			user, password := b.Credentials()
			for _, tc := range []struct {
				name       string
				id         string
				user, pass string
				v3, v5     byte
			}{
				{"anonymous as the referee", "liarsd-t1", "", "", v3IDRejected, v5IDNotValid},
				{"a user as the referee", "liarsd-t1", "app", "secret", v3IDRejected, v5IDNotValid},
				{"anonymous as Home Assistant", "liarsd-t1-ha", "", "", v3IDRejected, v5IDNotValid},
				{"the referee's name, a wrong password", "liarsd-t1", user, "guess", v3NotAuthorized, v5BadLogin},
				{"the referee's name, a wrong password, another id", "someone", user, "guess", v3NotAuthorized, v5BadLogin},
				{"anonymous, another id", "liarsd-t1-x", "", "", accepted, accepted},
				{"the referee", "liarsd-t1", user, password, accepted, accepted},
				{"the referee as Home Assistant", "liarsd-t1-ha", user, password, accepted, accepted},
			} {
				for _, version := range []byte{4, 5} {
					c := rawConnect(t, b.URL(), login{version: version, id: tc.id, user: tc.user, pass: tc.pass})
					want := tc.v3
					if version == 5 {
						want = tc.v5
					}
					if c.code != want {
						t.Errorf("%s (%s, MQTT %d): CONNACK code %#x; want %#x", tc.name, tc.id, version, c.code, want)
					}
					c.drop()
				}
			}
		})
	}
}

// A command published retained is refused by the embedded broker: neither
// kept (it would be handed to the referee again at every start and
// reconnection, starting the same game over each time) nor delivered. At
// QoS 1 an MQTT 3.1.1 client's connection is closed, as for any publish
// the broker refuses. Other topics keep their retained messages.
func TestEmbeddedBrokerRefusesRetainedCommands(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const cmd, other = "liarsdice/t1/cmd", "liarsdice/elsewhere"
	live := mqtttest.Subscribe(t, b.URL(), "live", cmd)
	retained := `{"id":"r","type":"new_game","rules":"kids","seats":["a","b"]}`
	if err := publishOnce(b.URL(), "pub1", cmd, retained, 1, true); err == nil {
		t.Error("a command published retained at QoS 1 was acknowledged")
	}
	// At QoS 0 it is dropped; the same client's next publish comes after.
	pub := mqtttest.Subscribe(t, b.URL(), "pub0", other)
	if tok := pub.Client().Publish(cmd, 0, true, retained); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publishing: %v", tok.Error())
	}
	if tok := pub.Client().Publish(other, 1, true, "kept"); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publishing: %v", tok.Error())
	}
	pub.Publish(t, cmd, []byte(`{"id":"live","type":"new_game","rules":"kids","seats":["a","b"]}`))
	ms := live.Wait(t, 10*time.Second, "the live command", func(ms []mqtttest.Message) bool {
		return len(ms) > 0 && strings.Contains(string(ms[len(ms)-1].Payload), `"live"`)
	})
	for _, m := range ms {
		if string(m.Payload) == retained {
			t.Errorf("the command published retained was delivered")
		}
	}
	late := mqtttest.Subscribe(t, b.URL(), "late", cmd, other)
	late.Wait(t, 10*time.Second, "the other topic's retained message", func([]mqtttest.Message) bool { return len(late.On(other)) > 0 })
	if got := late.On(cmd); len(got) != 0 {
		t.Errorf("a new subscriber got %d retained commands; want none", len(got))
	}
}

// An MQTT 3.1.1 client is answered in MQTT 3.1.1's CONNACK codes (0x00 to
// 0x05), and an empty password is a password (3.1.3.5), checked like any
// other. mochi v2.7.9 refused a password flag with an empty password as a
// protocol error, answering 0x82, an MQTT 5 code, and an empty client id
// with a persistent session with 0x80.
func TestEmbeddedBrokerAnswersMQTT311InItsCodes(t *testing.T) {
	for _, exposed := range []bool{false, true} {
		opts := mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Logger: quiet()}
		if exposed {
			opts.TCP, opts.Users = "0.0.0.0:0", map[string]string{"app": "secret"}
		}
		b, err := mqtt.StartBroker(opts)
		if err != nil {
			t.Fatal(err)
		}
		referee, _ := b.Credentials()
		emptyApp := byte(accepted) // on loopback any name but the referee's goes
		if exposed {
			emptyApp = v3NotAuthorized
		}
		for _, tc := range []struct {
			name string
			l    login
			want byte
		}{
			{"a name with an empty password", login{version: 4, id: "app1", user: "app"}, emptyApp},
			{"the referee's name with an empty password", login{version: 4, id: "app2", user: referee}, v3NotAuthorized},
			{"an empty client id with a persistent session", login{version: 4, persistent: true}, v3IDRejected},
		} {
			c := rawConnect(t, b.URL(), tc.l)
			if c.code != tc.want {
				t.Errorf("exposed=%v, %s: CONNACK code %#x; want %#x", exposed, tc.name, c.code, tc.want)
			}
			c.drop()
		}
		if c := rawConnect(t, b.URL(), login{version: 5, id: "app3", user: referee}); c.code != v5BadLogin {
			t.Errorf("exposed=%v, MQTT 5, the referee's name with an empty password: CONNACK code %#x; want %#x", exposed, c.code, v5BadLogin)
		}
		b.Close()
	}
}
