package daemon_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// commandSteps are the points of a command's way from its publisher to the
// journal and back, each named by the log message (debug ones included)
// the daemon writes there; embedded says the step is the embedded
// broker's (through Mosquitto it happens in Mosquitto's process).
var commandSteps = []struct {
	name, msg string
	embedded  bool
}{
	{"delivered and stored by the broker, before its acknowledgement", "mqtt: a command delivered and stored; acknowledging it", true},
	{"acknowledged to its publisher", "mqtt: a publish acknowledged", true},
	{"received by the referee's client", "daemon: a command received", false},
	{"journaled, before its events", "referee: new game", false},
	{"answered (the reply acknowledged), before the referee acknowledges it", "daemon: a command answered; acknowledging it to the broker", false},
	{"acknowledged by the referee to the broker", "daemon: a command acknowledged to the broker", false},
}

// MQTT's promise for QoS 1: a command the broker acknowledged is the
// receiver's to keep. A publisher that never sends again (mosquitto_pub
// -q 1) publishes one command, and the daemon is killed (kill -9) at one
// step of its way, every step in turn, then started again: a command whose
// publisher got its PUBACK is journaled exactly once and answered, and the
// events a persistent subscriber received are liarsd adjudicate of the
// journal. mochi v2.7.9 acknowledged a publish before it stored it for
// the referee's session: killed right after that PUBACK, the daemon lost
// the command.
func TestKill9AtEveryStepOfACommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills daemon processes")
	}
	for _, broker := range []string{"embedded", "mosquitto"} {
		for _, step := range commandSteps {
			if step.embedded && broker != "embedded" {
				continue
			}
			t.Run(broker+"/"+step.name, func(t *testing.T) {
				killAtStep(t, broker == "mosquitto", step.msg)
			})
		}
	}
}

// killAtStep runs a daemon that kills itself at the log message msg while
// it takes one command, starts it again, and checks what the command's
// acknowledgement promised.
func killAtStep(t *testing.T, mosquitto bool, msg string) {
	dir := t.TempDir()
	c := config.Default()
	c.Table, c.StateDir = "t1", dir
	url := ""
	if mosquitto {
		m := mqtttest.StartMosquittoWith(t, "autosave_on_changes true\n")
		c.Broker.URL, url = m.URL(), m.URL()
	} else {
		addr := fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t))
		c.Broker.Embedded.Listen, c.Broker.Embedded.WebSocket = addr, "off"
		url = "tcp://" + addr
	}
	cfgPath := writeDaemonConfig(t, dir, c)
	start := func(env ...string) (*exec.Cmd, *sync.WaitGroup) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(append(os.Environ(), childEnv+"="+cfgPath), env...)
		return cmd, spawn(t, dir, cmd)
	}
	var sub *mqtttest.Subscriber
	online := func(mark int) {
		sub.Wait(t, 60*time.Second, "the daemon online", func(ms []mqtttest.Message) bool {
			for _, m := range ms[mark:] {
				if m.Topic == "liarsdice/t1/status" && string(m.Payload) == "online" {
					return true
				}
			}
			return false
		})
	}
	cmd, wg := start(killOnEnv + "=" + msg)
	sub = mqtttest.Subscribe(t, url, "watcher", "liarsdice/t1/#")
	online(0)

	const command = `{"id":"c1","type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann"}`
	acked := newOncePublisher(url, "app").publish("liarsdice/t1/cmd", []byte(command), 10*time.Second)
	exited := make(chan struct{})
	go func() { wg.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(60 * time.Second): // bounds a failure only: a loaded machine starts a daemon in seconds
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("the daemon never reached %q", msg)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the daemon ended by %v; want kill -9 at %q", cmd.ProcessState, msg)
	}

	mark := len(sub.Messages())
	cmd, wg = start()
	online(mark)
	if acked {
		sub.Wait(t, 60*time.Second, "the acknowledged command's reply", func(ms []mqtttest.Message) bool {
			for _, m := range ms {
				if m.Topic == "liarsdice/t1/reply" && strings.Contains(string(m.Payload), `"id":"c1","ok":true`) {
					return true
				}
			}
			return false
		})
	}
	time.Sleep(300 * time.Millisecond) // a redelivery, if any, is answered
	_ = cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()
	journaled := strings.Count(string(readJournal(t, c.JournalPath())), `"id":"c1"`)
	switch {
	case acked && journaled != 1:
		t.Errorf("the command was acknowledged to its publisher and journaled %d times; want once", journaled)
	case journaled > 1:
		t.Errorf("the command was journaled %d times; want at most once", journaled)
	}
	want := adjudicate(t, c.JournalPath())
	if got, _ := receivedEvents(t, sub, len(want)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("received events %q; want the journal's %q", got, want)
	}
	t.Logf("acknowledged %v, journaled %d times, %d events", acked, journaled, len(want))
}
