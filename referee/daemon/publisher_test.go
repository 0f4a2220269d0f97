package daemon_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/mochi-mqtt/server/v2/packets"
)

// oncePublisher is an MQTT 3.1.1 client that publishes at QoS 1 and never
// sends a publish again (a clean session, no resend after a lost
// connection), as mosquitto_pub -q 1 does: a command is the broker's once
// its PUBACK came, and lost to the publisher otherwise. A broken
// connection is made again at the next publish.
type oncePublisher struct {
	addr, id string
	conn     net.Conn
	r        *bufio.Reader
	next     uint16
}

// newOncePublisher returns a publisher to the broker at url (tcp://...)
// under client id id.
func newOncePublisher(url, id string) *oncePublisher {
	return &oncePublisher{addr: strings.TrimPrefix(url, "tcp://"), id: id}
}

// publish sends payload on topic at QoS 1 and says whether the broker
// acknowledged it within wait.
func (p *oncePublisher) publish(topic string, payload []byte, wait time.Duration) bool {
	if err := p.publishErr(topic, payload, wait); err != nil {
		p.close()
		return false
	}
	return true
}

func (p *oncePublisher) publishErr(topic string, payload []byte, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	if p.conn == nil {
		conn, err := net.DialTimeout("tcp", p.addr, wait)
		if err != nil {
			return err
		}
		p.conn, p.r = conn, bufio.NewReader(conn)
		_ = conn.SetDeadline(deadline)
		connect := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Connect}, ProtocolVersion: 4,
			Connect: packets.ConnectParams{ProtocolName: []byte("MQTT"), Clean: true, Keepalive: 60, ClientIdentifier: p.id}}
		if err := p.write(connect.ConnectEncode); err != nil {
			return err
		}
		ack, err := p.read(packets.Connack)
		if err != nil {
			return err
		}
		if ack.ReasonCode != 0 {
			return fmt.Errorf("CONNACK %#x", ack.ReasonCode)
		}
	}
	_ = p.conn.SetDeadline(deadline)
	p.next = p.next%65535 + 1
	pub := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Publish, Qos: 1}, ProtocolVersion: 4,
		TopicName: topic, Payload: payload, PacketID: p.next}
	if err := p.write(pub.PublishEncode); err != nil {
		return err
	}
	for {
		ack, err := p.read(packets.Puback)
		if err != nil {
			return err
		}
		if ack.PacketID == p.next {
			return nil
		}
	}
}

// write sends the packet encode writes.
func (p *oncePublisher) write(encode func(*bytes.Buffer) error) error {
	var buf bytes.Buffer
	if err := encode(&buf); err != nil {
		return err
	}
	_, err := p.conn.Write(buf.Bytes())
	return err
}

// read reads the next packet of type want, skipping others.
func (p *oncePublisher) read(want byte) (packets.Packet, error) {
	for {
		head, err := p.r.ReadByte()
		if err != nil {
			return packets.Packet{}, err
		}
		n, _, err := packets.DecodeLength(p.r)
		if err != nil {
			return packets.Packet{}, err
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(p.r, body); err != nil {
			return packets.Packet{}, err
		}
		pk := packets.Packet{ProtocolVersion: 4}
		if err := pk.FixedHeader.Decode(head); err != nil {
			return pk, err
		}
		pk.FixedHeader.Remaining = n
		if pk.FixedHeader.Type != want {
			continue
		}
		if want == packets.Connack {
			return pk, pk.ConnackDecode(body)
		}
		return pk, pk.PubackDecode(body)
	}
}

func (p *oncePublisher) close() {
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
}
