// Package venuetest starts what a venue's tests need: Mosquitto processes
// on free loopback ports from the repository's configuration files (the
// bridges of docs/venue), a TCP link between two brokers that a test can
// cut and restore, a recorder of every table's events that counts what
// was lost, repeated and reordered, and a process's CPU time and memory.
package venuetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// Broker is a Mosquitto process started from a configuration file.
type Broker struct {
	t    testing.TB
	Port int
	// WebSocket is the pages' listener's port (0: none).
	WebSocket int
	Dir       string
	conf      string
	bin       string
	cmd       *exec.Cmd
	done      chan struct{}
}

// Configure turns a configuration file of the repository into one for a
// test: its listener on port (loopback), its second listener (WebSocket)
// on wsPort or left out when wsPort is 0, its persistence and log in dir,
// and each bridge's address as addresses gives it by connection name.
// Nothing else is changed.
func Configure(conf string, port, wsPort int, dir string, addresses map[string]string) (string, error) {
	lines := strings.Split(conf, "\n")
	var out []string
	conn := ""
	listeners := 0
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) >= 2 && f[0] == "listener":
			listeners++
			if listeners > 1 {
				// The second listener, the pages' WebSocket.
				if wsPort == 0 {
					out = append(out, "# "+l)
					continue
				}
				l = fmt.Sprintf("listener %d 127.0.0.1", wsPort)
			} else {
				l = fmt.Sprintf("listener %d 127.0.0.1", port)
			}
		case len(f) >= 1 && f[0] == "protocol" && listeners > 1 && wsPort == 0:
			l = "# " + l
		case len(f) >= 2 && (f[0] == "persistence_location" || f[0] == "log_dest" || f[0] == "password_file" || f[0] == "acl_file"):
			continue
		case len(f) >= 2 && f[0] == "connection":
			conn = f[1]
		case len(f) >= 2 && f[0] == "address":
			a, ok := addresses[conn]
			if !ok {
				return "", fmt.Errorf("venuetest: no address for the bridge %q", conn)
			}
			l = "address " + a
		}
		out = append(out, l)
	}
	if listeners == 0 {
		return "", errors.New("venuetest: the configuration has no listener")
	}
	extra := fmt.Sprintf("\npersistence_location %s/\nlog_dest file %s\n", dir, filepath.Join(dir, "mosquitto.log"))
	if os.Getuid() == 0 {
		// Started by root, Mosquitto drops to its own user, which cannot
		// read the test's private directory.
		extra += "user root\n"
	}
	// Global settings go before the first bridge's connection line, where
	// Mosquitto reads them as global.
	text := strings.Join(out, "\n")
	if i := regexp.MustCompile(`(?m)^connection `).FindStringIndex(text); i != nil {
		return text[:i[0]] + strings.TrimPrefix(extra, "\n") + "\n" + text[i[0]:], nil
	}
	return text + extra, nil
}

// StartBroker starts Mosquitto on a free loopback port with the
// configuration file at path (Configure), and stops it at the test's end.
func StartBroker(t testing.TB, path string, addresses map[string]string) *Broker {
	t.Helper()
	return StartBrokerOn(t, path, mqtttest.FreePort(t), 0, addresses)
}

// StartBrokerOn starts Mosquitto as StartBroker does, on port, with its
// WebSocket listener on wsPort (0: none).
func StartBrokerOn(t testing.TB, path string, port, wsPort int, addresses map[string]string) *Broker {
	t.Helper()
	bin := mqtttest.FindMosquitto(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := &Broker{t: t, Port: port, WebSocket: wsPort, Dir: t.TempDir(), bin: bin}
	if b.conf, err = Configure(string(raw), port, wsPort, b.Dir, addresses); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Dir, "mosquitto.conf"), []byte(b.conf), 0o644); err != nil {
		t.Fatal(err)
	}
	b.start()
	t.Cleanup(b.Stop)
	return b
}

func (b *Broker) start() {
	b.t.Helper()
	b.cmd = exec.Command(b.bin, "-c", filepath.Join(b.Dir, "mosquitto.conf"))
	stderr, _ := os.OpenFile(filepath.Join(b.Dir, "mosquitto.stderr"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	b.cmd.Stdout, b.cmd.Stderr = stderr, stderr
	if err := b.cmd.Start(); err != nil {
		b.t.Fatalf("starting mosquitto: %v", err)
	}
	done := make(chan struct{})
	b.done = done
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(done) }(b.cmd)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", b.Addr(), 200*time.Millisecond); err == nil {
			c.Close()
			return
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(b.Dir, "mosquitto.log"))
			se, _ := os.ReadFile(filepath.Join(b.Dir, "mosquitto.stderr"))
			b.t.Fatalf("mosquitto exited at start: %s%s\nconfiguration:\n%s", log, se, b.conf)
		case <-time.After(50 * time.Millisecond):
		}
	}
	b.t.Fatalf("mosquitto does not listen on %s", b.Addr())
}

// Addr is the broker's host:port, URL its tcp:// URL.
func (b *Broker) Addr() string { return fmt.Sprintf("127.0.0.1:%d", b.Port) }

// URL is the broker's tcp:// URL.
func (b *Broker) URL() string { return "tcp://" + b.Addr() }

// Pid is the broker's process id.
func (b *Broker) Pid() int { return b.cmd.Process.Pid }

// Log returns the broker's log.
func (b *Broker) Log() string {
	l, _ := os.ReadFile(filepath.Join(b.Dir, "mosquitto.log"))
	return string(l)
}

// Stop stops the broker with SIGTERM (it saves its persistence).
func (b *Broker) Stop() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	select {
	case <-b.done:
		return
	default:
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// Restart stops the broker, waits down, and starts it again on its port.
func (b *Broker) Restart(down time.Duration) {
	b.t.Helper()
	b.Stop()
	time.Sleep(down)
	b.start()
}

// Link forwards TCP connections from its own loopback port to a target
// address, until it is cut: a network between two brokers that a test
// can break.
type Link struct {
	Port   int
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	cut    bool
}

// NewLink listens on a free loopback port and forwards to target.
func NewLink(t testing.TB, target string) *Link {
	t.Helper()
	l := &Link{Port: mqtttest.FreePort(t), target: target, conns: map[net.Conn]bool{}}
	if err := l.listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Cut() })
	return l
}

// Addr is the link's own address.
func (l *Link) Addr() string { return fmt.Sprintf("127.0.0.1:%d", l.Port) }

func (l *Link) listen() error {
	ln, err := net.Listen("tcp", l.Addr())
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.ln, l.cut = ln, false
	l.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.forward(c)
		}
	}()
	return nil
}

func (l *Link) forward(c net.Conn) {
	r, err := net.DialTimeout("tcp", l.target, 2*time.Second)
	if err != nil {
		c.Close()
		return
	}
	l.mu.Lock()
	if l.cut {
		l.mu.Unlock()
		c.Close()
		r.Close()
		return
	}
	l.conns[c], l.conns[r] = true, true
	l.mu.Unlock()
	go func() { _, _ = io.Copy(r, c); r.Close(); c.Close() }()
	_, _ = io.Copy(c, r)
	c.Close()
	r.Close()
}

// Cut breaks every connection through the link and refuses new ones.
func (l *Link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return
	}
	l.cut = true
	if l.ln != nil {
		l.ln.Close()
	}
	for c := range l.conns {
		c.Close()
	}
	l.conns = map[net.Conn]bool{}
}

// Restore lets connections through again.
func (l *Link) Restore() error { return l.listen() }

// Proc is a process's CPU time and memory, from /proc.
type Proc struct {
	CPU time.Duration
	// RSS and Peak are its resident memory now and at its highest, in
	// bytes.
	RSS, Peak int64
}

// ReadProc reads pid's CPU time (user and system) and memory.
func ReadProc(pid int) (Proc, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, err
	}
	// The fields after the command's name (in parentheses, which may
	// hold spaces): utime and stime are the 12th and 13th of those.
	i := bytes.LastIndexByte(stat, ')')
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return Proc{}, fmt.Errorf("venuetest: /proc/%d/stat: too short", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	p := Proc{CPU: time.Duration(ut+st) * time.Second / 100} // USER_HZ is 100 on Linux
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Proc{}, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			p.RSS = n * 1024
		case "VmHWM":
			p.Peak = n * 1024
		}
	}
	return p, nil
}
