// Package mqtttest starts real brokers for tests: a Mosquitto process on a
// free loopback port, and an MQTT subscriber that records what it gets.
package mqtttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// MosquittoPath is where Debian installs the broker.
const MosquittoPath = "/usr/sbin/mosquitto"

// Mosquitto is a broker process started by a test.
type Mosquitto struct {
	t    testing.TB
	Port int
	// TLS: the listener speaks TLS only; CAFile is its authority.
	TLS    bool
	CAFile string
	dir    string
	cmd    *exec.Cmd
	done   chan struct{}
}

// FindMosquitto returns the broker's binary, or skips the test with a clear
// message when it is not installed.
func FindMosquitto(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(MosquittoPath); err == nil {
		return MosquittoPath
	}
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p
	}
	t.Skip("mosquitto is not installed (apt-get install mosquitto; make test installs it)")
	return ""
}

// FreePort returns a free TCP port on loopback.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartMosquitto starts Mosquitto on a free loopback port, with persistence
// (sessions and queued messages survive a Restart), and stops it when the
// test ends.
func StartMosquitto(t testing.TB) *Mosquitto {
	t.Helper()
	bin := FindMosquitto(t)
	m := &Mosquitto{t: t, Port: FreePort(t), dir: t.TempDir()}
	m.configure("allow_anonymous true\n")
	m.start(bin)
	t.Cleanup(m.Stop)
	return m
}

// StartMosquittoWith starts Mosquitto as StartMosquitto does, with extra
// lines of configuration.
func StartMosquittoWith(t testing.TB, extra string) *Mosquitto {
	t.Helper()
	bin := FindMosquitto(t)
	m := &Mosquitto{t: t, Port: FreePort(t), dir: t.TempDir()}
	m.configure("allow_anonymous true\n" + extra)
	m.start(bin)
	t.Cleanup(m.Stop)
	return m
}

// StartMosquittoTLS starts Mosquitto with TLS only (a certificate for
// 127.0.0.1 signed by a test authority, CAFile) and one user, no anonymous
// access.
func StartMosquittoTLS(t testing.TB, user, password string) *Mosquitto {
	t.Helper()
	bin := FindMosquitto(t)
	m := &Mosquitto{t: t, Port: FreePort(t), dir: t.TempDir(), TLS: true}
	m.CAFile = filepath.Join(m.dir, "ca.pem")
	writeCertificates(t, m.dir)
	passwd := filepath.Join(m.dir, "passwd")
	if err := os.WriteFile(passwd, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(filepath.Dir(bin), "..", "bin", "mosquitto_passwd"), "-b", passwd, user, password).CombinedOutput(); err != nil {
		if out2, err2 := exec.Command("mosquitto_passwd", "-b", passwd, user, password).CombinedOutput(); err2 != nil {
			t.Fatalf("mosquitto_passwd: %v %s %s", err2, out, out2)
		}
	}
	m.configure(fmt.Sprintf("allow_anonymous false\npassword_file %s\ncafile %s\ncertfile %s\nkeyfile %s\n",
		passwd, m.CAFile, filepath.Join(m.dir, "server.pem"), filepath.Join(m.dir, "server.key")))
	m.start(bin)
	t.Cleanup(m.Stop)
	return m
}

func (m *Mosquitto) configure(extra string) {
	if os.Getuid() == 0 {
		// Mosquitto started by root drops to the mosquitto user, which
		// cannot read the test's private temporary directory.
		extra += "user root\n"
	}
	// set_tcp_nodelay as docs/mqtt.md advises: without it Nagle's
	// algorithm holds a command's reply back ~40 ms.
	conf := fmt.Sprintf("listener %d 127.0.0.1\nset_tcp_nodelay true\npersistence true\npersistence_location %s/\nautosave_interval 1\nmax_queued_messages 100000\nlog_dest file %s\n%s",
		m.Port, m.dir, filepath.Join(m.dir, "mosquitto.log"), extra)
	if err := os.WriteFile(filepath.Join(m.dir, "mosquitto.conf"), []byte(conf), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// writeCertificates writes a test authority (ca.pem) and a certificate
// for 127.0.0.1 it signed (server.pem, server.key) into dir.
func writeCertificates(t testing.TB, dir string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "liarsd test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		"ca.pem":     {Type: "CERTIFICATE", Bytes: caDER},
		"server.pem": {Type: "CERTIFICATE", Bytes: der},
		"server.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func (m *Mosquitto) start(bin string) {
	m.t.Helper()
	m.cmd = exec.Command(bin, "-c", filepath.Join(m.dir, "mosquitto.conf"))
	stderr, _ := os.OpenFile(filepath.Join(m.dir, "mosquitto.stderr"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	m.cmd.Stdout, m.cmd.Stderr = stderr, stderr
	if err := m.cmd.Start(); err != nil {
		m.t.Fatalf("starting mosquitto: %v", err)
	}
	m.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(m.cmd, m.done)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", m.Addr(), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-m.done:
			log, _ := os.ReadFile(filepath.Join(m.dir, "mosquitto.log"))
			stderr, _ := os.ReadFile(filepath.Join(m.dir, "mosquitto.stderr"))
			m.t.Fatalf("mosquitto exited at start: %s%s", log, stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	m.t.Fatalf("mosquitto does not listen on %s", m.Addr())
}

// Addr is the broker's host:port.
func (m *Mosquitto) Addr() string { return fmt.Sprintf("127.0.0.1:%d", m.Port) }

// URL is the broker's URL.
func (m *Mosquitto) URL() string {
	if m.TLS {
		return "ssl://" + m.Addr()
	}
	return "tcp://" + m.Addr()
}

// Stop stops the broker (SIGTERM, so that it saves its persistence).
func (m *Mosquitto) Stop() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	select {
	case <-m.done:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(5 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

// RestartEmpty stops the broker and starts it again with nothing kept,
// as a broker without persistence restarts: no sessions, no retained
// messages.
func (m *Mosquitto) RestartEmpty() {
	m.t.Helper()
	m.Stop()
	if err := os.Remove(filepath.Join(m.dir, "mosquitto.db")); err != nil && !errors.Is(err, os.ErrNotExist) {
		m.t.Fatal(err)
	}
	m.start(m.cmd.Path)
}

// Kill9 kills the broker (SIGKILL: what it has not saved yet is lost) and
// starts it again on the same port.
func (m *Mosquitto) Kill9() {
	m.t.Helper()
	_ = m.cmd.Process.Kill()
	<-m.done
	m.start(m.cmd.Path)
}

// Restart stops the broker, waits down, and starts it again on the same
// port.
func (m *Mosquitto) Restart(down time.Duration) {
	m.t.Helper()
	m.Stop()
	time.Sleep(down)
	m.start(m.cmd.Path)
}

// Message is one message a Subscriber received.
type Message struct {
	Topic    string
	Payload  []byte
	Retained bool
	At       time.Time
}

// Subscriber records every message on its filters. Its session is
// persistent (a fixed client id, clean session off), so that a broker that
// keeps sessions delivers what was published while it was away.
type Subscriber struct {
	mu   sync.Mutex
	cli  paho.Client
	msgs []Message
	cond chan struct{}
}

// Subscribe connects to url as clientID and subscribes to filters at QoS 1.
func Subscribe(t testing.TB, url, clientID string, filters ...string) *Subscriber {
	t.Helper()
	return SubscribeWith(t, Login{URL: url, ClientID: clientID}, filters...)
}

// Login says how a Subscriber connects.
type Login struct {
	URL, ClientID      string
	Username, Password string
	// CAFile is the PEM of the broker's certificate authority (ssl://).
	CAFile string
}

// SubscribeWith connects as l says and subscribes to filters at QoS 1.
func SubscribeWith(t testing.TB, l Login, filters ...string) *Subscriber {
	t.Helper()
	url, clientID := l.URL, l.ClientID
	s := &Subscriber{cond: make(chan struct{}, 1)}
	subs := map[string]byte{}
	for _, f := range filters {
		subs[f] = 1
	}
	opts := paho.NewClientOptions().AddBroker(url).SetClientID(clientID).
		SetCleanSession(false).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectRetryInterval(100 * time.Millisecond).SetMaxReconnectInterval(500 * time.Millisecond).
		SetOrderMatters(true).
		SetOnConnectHandler(func(c paho.Client) {
			c.SubscribeMultiple(subs, nil)
		})
	opts.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { s.take(m) })
	if l.Username != "" {
		opts.SetUsername(l.Username).SetPassword(l.Password)
	}
	if l.CAFile != "" {
		pem, err := os.ReadFile(l.CAFile)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		opts.SetTLSConfig(&tls.Config{RootCAs: pool})
	}
	s.cli = paho.NewClient(opts)
	if tok := s.cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber: connecting to %s: %v", url, tok.Error())
	}
	// Wait until the subscription is in place. A connection the broker
	// drops meanwhile (a session taken over from this client id's last
	// connection as it closes) comes back by itself, as a real
	// subscriber's does: subscribe again on it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		tok := s.cli.SubscribeMultiple(subs, func(_ paho.Client, m paho.Message) { s.take(m) })
		ok := tok.WaitTimeout(time.Until(deadline))
		if ok && tok.Error() == nil {
			break
		}
		if !ok || time.Now().After(deadline) {
			t.Fatalf("subscriber: subscribing: %v", tok.Error())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { s.cli.Disconnect(100) })
	return s
}

func (s *Subscriber) take(m paho.Message) {
	s.mu.Lock()
	s.msgs = append(s.msgs, Message{Topic: m.Topic(), Payload: append([]byte(nil), m.Payload()...), Retained: m.Retained(), At: time.Now()})
	s.mu.Unlock()
	select {
	case s.cond <- struct{}{}:
	default:
	}
}

// Messages returns what was received so far, in order.
func (s *Subscriber) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// On returns the messages received on topic.
func (s *Subscriber) On(topic string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if m.Topic == topic {
			out = append(out, m)
		}
	}
	return out
}

// Wait waits until ok holds for the messages received, or fails the test
// after timeout.
func (s *Subscriber) Wait(t testing.TB, timeout time.Duration, what string, ok func([]Message) bool) []Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		msgs := s.Messages()
		if ok(msgs) {
			return msgs
		}
		select {
		case <-s.cond:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			var last []string
			for _, m := range msgs[max(0, len(msgs)-5):] {
				last = append(last, m.Topic+" "+string(m.Payload))
			}
			t.Fatalf("waiting %s for %s; %d messages, last:\n%s", timeout, what, len(msgs), strings.Join(last, "\n"))
			return nil
		}
	}
}

// Publish sends a message at QoS 1 and waits for the broker's ack.
func (s *Subscriber) Publish(t testing.TB, topic string, payload []byte) {
	t.Helper()
	tok := s.cli.Publish(topic, 1, false, payload)
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publishing to %s: %v", topic, tok.Error())
	}
}

// Client is the subscriber's paho client, for tests that need more.
func (s *Subscriber) Client() paho.Client { return s.cli }
