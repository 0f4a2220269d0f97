package mqtt_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// awayCommands is the topic of table t1's commands.
const awayCommands = "liarsdice/t1/cmd"

// A command the embedded broker acknowledged is on disk, owed to the
// referee's session, when its publisher reads the PUBACK: a kill -9 of the
// daemon at that moment leaves it for the referee. mochi v2.7.9 wrote the
// PUBACK before it delivered the command to its subscribers and stored
// it, and a kill -9 in between lost a command its publisher had been told
// was taken (with thirty sessions to store it for, the last ones' copies
// were not there yet).
func TestEmbeddedBrokerStoresACommandBeforeItsAcknowledgement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.db")
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", Store: path, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const away = 30
	for i := range away {
		mqtttest.Subscribe(t, b.URL(), fmt.Sprintf("away%d", i), awayCommands).Client().Disconnect(100)
	}
	user, password := b.Credentials()
	ref := mqtttest.SubscribeWith(t, mqtttest.Login{URL: b.URL(), ClientID: mqtt.DefaultClientID("t1"), Username: user, Password: password}, awayCommands)
	ref.Client().Disconnect(100)

	// A publisher that does not send again: a clean session.
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("app").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting: %v", tok.Error())
	}
	defer pub.Disconnect(50)
	for i := 1; i <= 6; i++ {
		qos := byte(1)
		if i == 6 {
			qos = 2 // stored once too
		}
		tok := pub.Publish(awayCommands, qos, false, fmt.Sprintf(`{"id":%d,"type":"leave","seat":"ann"}`, i))
		if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("command %d: %v", i, tok.Error())
		}
		for _, id := range []string{mqtt.DefaultClientID("t1"), fmt.Sprintf("away%d", away-1)} {
			if got := storedFor(t, path, id); got != i {
				t.Fatalf("after the acknowledgement of command %d, the store owes %s %d commands; want %d", i, id, got, i)
			}
		}
	}
}

// A daemon's broker (AwaitReferee) refuses, unacknowledged, a command
// published before the referee has subscribed to commands: with no
// subscriber, an acknowledged command would be dropped. Once the referee
// has subscribed, commands are taken.
func TestEmbeddedBrokerAwaitsTheReferee(t *testing.T) {
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", Table: "t1", AwaitReferee: true, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, v := range []uint{3, 4, 5} {
		if err := publishVersion(b.URL(), "early", awayCommands, v); err == nil {
			t.Errorf("MQTT version %d: a command was acknowledged before the referee subscribed", v)
		}
	}
	user, password := b.Credentials()
	mqtttest.SubscribeWith(t, mqtttest.Login{URL: b.URL(), ClientID: mqtt.DefaultClientID("t1"), Username: user, Password: password}, awayCommands)
	if err := publishVersion(b.URL(), "late", awayCommands, 4); err != nil {
		t.Errorf("a command after the referee subscribed: %v; want it acknowledged", err)
	}
}

// publishVersion publishes one command at QoS 1 as a client of MQTT
// protocol version v (3 and 4: 3.1 and 3.1.1; 5 through a raw client) and
// returns nil only when the broker acknowledged it with success.
func publishVersion(url, clientID, topic string, v uint) error {
	if v == 5 {
		return rawPublish5(url, clientID, topic, `{"type":"leave","seat":"ann"}`)
	}
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(clientID).SetProtocolVersion(v).SetAutoReconnect(false))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		return fmt.Errorf("connecting: %v", tok.Error())
	}
	defer c.Disconnect(50)
	tok := c.Publish(topic, 1, false, `{"type":"leave","seat":"ann"}`)
	if !tok.WaitTimeout(3 * time.Second) {
		return fmt.Errorf("no acknowledgement")
	}
	return tok.Error()
}

// rawPublish5 connects as an MQTT 5 client, publishes payload at QoS 1 and
// reads the PUBACK: nil when its reason code is a success.
func rawPublish5(url, clientID, topic, payload string) error {
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "tcp://"))
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	read := func(want byte) (packets.Packet, error) {
		head, err := r.ReadByte()
		if err != nil {
			return packets.Packet{}, err
		}
		n, _, err := packets.DecodeLength(r)
		if err != nil {
			return packets.Packet{}, err
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return packets.Packet{}, err
		}
		pk := packets.Packet{ProtocolVersion: 5}
		if err := pk.FixedHeader.Decode(head); err != nil {
			return pk, err
		}
		pk.FixedHeader.Remaining = n
		if pk.FixedHeader.Type != want {
			return pk, fmt.Errorf("got packet type %d; want %d", pk.FixedHeader.Type, want)
		}
		if want == packets.Connack {
			return pk, pk.ConnackDecode(body)
		}
		return pk, pk.PubackDecode(body)
	}
	var buf bytes.Buffer
	connect := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Connect}, ProtocolVersion: 5,
		Connect: packets.ConnectParams{ProtocolName: []byte("MQTT"), Clean: true, Keepalive: 60, ClientIdentifier: clientID}}
	if err := connect.ConnectEncode(&buf); err != nil {
		return err
	}
	if _, err := conn.Write(buf.Bytes()); err != nil {
		return err
	}
	if ack, err := read(packets.Connack); err != nil || ack.ReasonCode != 0 {
		return fmt.Errorf("connecting: code %#x, %v", ack.ReasonCode, err)
	}
	buf.Reset()
	publish := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Publish, Qos: 1}, ProtocolVersion: 5,
		TopicName: topic, Payload: []byte(payload), PacketID: 7}
	if err := publish.PublishEncode(&buf); err != nil {
		return err
	}
	if _, err := conn.Write(buf.Bytes()); err != nil {
		return err
	}
	ack, err := read(packets.Puback)
	if err != nil {
		return err
	}
	if ack.ReasonCode >= 0x80 {
		return fmt.Errorf("PUBACK reason code %#x (%s)", ack.ReasonCode, ack.Properties.ReasonString)
	}
	return nil
}
