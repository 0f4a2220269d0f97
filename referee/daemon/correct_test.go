package daemon_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// A correction sent as an MQTT command, through Mosquitto and through the
// embedded broker: answered, journaled, its corrected event and the new
// result published as liarsd adjudicate of the journal gives them, and a
// correction after the next bid refused not_now.
func TestCorrectOverMQTT(t *testing.T) {
	for _, broker := range []string{"mosquitto", "embedded"} {
		t.Run(broker, func(t *testing.T) {
			c, _, sub := daemonOn(t, broker)
			const reply = "liarsdice/t1/reply"
			cmds := []string{
				`{"id":1,"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":5}`,
				`{"id":2,"type":"bid","seat":"ann","quantity":2,"face":3}`,
				`{"id":3,"type":"challenge","seat":"bob"}`,
				`{"id":4,"type":"reveal","dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}`,
				`{"id":5,"type":"correct","dice":{"ann":[3,1,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}`,
				`{"id":6,"type":"bid","seat":"ann","quantity":1,"face":2}`,
				`{"id":7,"type":"correct","dice":{"ann":[3,3,1,2],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}`,
			}
			want := []string{"ok", "ok", "ok", "ok", "ok", "ok", string(engine.NotNow)}
			for i, cmd := range cmds {
				sub.Publish(t, "liarsdice/t1/cmd", []byte(cmd))
				id := strconv.Itoa(i + 1)
				sub.Wait(t, 10*time.Second, "reply "+id, func(ms []mqtttest.Message) bool { return replyTo(ms, reply, id) != nil })
				r := replyTo(sub.Messages(), reply, id)
				got := "ok"
				if r["ok"] != true {
					got = fmt.Sprint(r["reason"])
				}
				if got != want[i] {
					t.Fatalf("%s: got %v; want %s", cmd, r, want[i])
				}
			}
			wantEvents := adjudicate(t, c.JournalPath())
			var evs []mqtttest.Message
			sub.Wait(t, 10*time.Second, "every event", func(ms []mqtttest.Message) bool {
				evs = evs[:0]
				for _, m := range ms {
					if m.Topic == "liarsdice/t1/events" {
						evs = append(evs, m)
					}
				}
				return len(evs) >= len(wantEvents)
			})
			got := uniqueEvents(t, evs)
			if !slices.Equal(got, wantEvents) {
				t.Errorf("events on MQTT:\n%s\nadjudicated journal:\n%s", strings.Join(got, "\n"), strings.Join(wantEvents, "\n"))
			}
			if n := strings.Count(strings.Join(got, "\n"), `"type":"corrected"`); n != 1 {
				t.Errorf("%d corrected events; want 1", n)
			}
		})
	}
}

// correctableOf returns the last state's seq and its correctable (nil
// when there is none).
func correctableOf(sub *mqtttest.Subscriber) (int, *engine.CorrectableView) {
	st := sub.On("liarsdice/t1/state")
	if len(st) == 0 {
		return 0, nil
	}
	var s struct {
		Seq         int                     `json:"seq"`
		Correctable *engine.CorrectableView `json:"correctable"`
	}
	if json.Unmarshal(st[len(st)-1].Payload, &s) != nil {
		return 0, nil
	}
	return s.Seq, s.Correctable
}

// kill -9 between a correction's journal line and its events (the daemon
// kills itself right after journaling it: killAt), then restart: the
// restarted daemon publishes the correction's events, and every event
// received is exactly liarsd adjudicate of the journal. Every preset's
// games in turn, the journal in segments of 5 lines so that restarts
// resume from checkpoints, some with the corrected reveal before them.
// LIARSD_CORRECT_KILLS sets the number of kills (6, one per preset).
func TestKill9BetweenACorrectionAndItsEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills daemon processes")
	}
	kills := len(engine.PresetNames())
	if n, err := strconv.Atoi(os.Getenv("LIARSD_CORRECT_KILLS")); err == nil && n > 0 {
		kills = n
	}
	c, dir, cfgPath, sub, drv := killTable(t, 33, engine.PresetNames())
	corrected := func() int {
		n := 0
		for _, m := range sub.On("liarsdice/t1/events") {
			if strings.Contains(string(m.Payload), `"type":"corrected"`) {
				n++
			}
		}
		return n
	}
	kill := killAtEnv + `="type":"correct"`
	cmd, wg := startChild(t, dir, cfgPath, sub, kill)
	for k := 0; k < kills; k++ {
		// Play on to a new reveal: a state with a correctable hand and a
		// seq beyond the last correction's.
		// The table as the journal has it (the restarted daemon's state
		// is out): the new reveal's events come after its last seq.
		from := 0
		if evs := adjudicate(t, c.JournalPath()); evs[0] != "" {
			from = len(evs)
		}
		sub.Wait(t, 15*time.Second, "the state after the journal's events", func([]mqtttest.Message) bool {
			seq, _ := correctableOf(sub)
			return seq >= from
		})
		var fix *engine.CorrectableView
		deadline := time.Now().Add(60 * time.Second)
		for fix == nil {
			if time.Now().After(deadline) {
				t.Fatalf("kill %d: no reveal to correct in 60 s", k+1)
			}
			if seq, c := correctableOf(sub); c != nil && seq > from {
				fix = c
				break
			}
			drv.step(t)
		}
		// Change the last die of the first seat (never a shown one: the
		// driver puts those first) to another face.
		names := make([]string, 0, len(fix.Dice))
		for name := range fix.Dice {
			names = append(names, name)
		}
		slices.Sort(names)
		faces := fix.Dice[names[0]]
		faces[len(faces)-1] = faces[len(faces)-1]%6 + 1
		before := corrected()
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("fix-%d", k), "type": engine.ActCorrect, "dice": fix.Dice})
		sub.Publish(t, "liarsdice/t1/cmd", line)
		exited := make(chan struct{})
		go func() { wg.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			t.Fatalf("kill %d: the daemon did not kill itself at the correction %s (reply %v)", k+1, line, replyTo(sub.Messages(), "liarsdice/t1/reply", fmt.Sprintf(`"fix-%d"`, k)))
		}
		if n := corrected(); n != before {
			t.Fatalf("kill %d: a corrected event went out before the kill", k+1)
		}
		if j := readJournal(t, c.JournalPath()); !strings.Contains(string(j), fmt.Sprintf(`"id":"fix-%d"`, k)) {
			t.Fatalf("kill %d: the correction is not in the journal", k+1)
		}
		cmd, wg = startChild(t, dir, cfgPath, sub, kill)
		sub.Wait(t, 15*time.Second, fmt.Sprintf("the correction's events after restart %d", k+1), func([]mqtttest.Message) bool {
			return corrected() > before
		})
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()

	want := adjudicate(t, c.JournalPath())
	got, _ := receivedEvents(t, sub, len(want))
	if !slices.Equal(got, want) {
		t.Errorf("received %d events, the journal gives %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if n := strings.Count(strings.Join(want, "\n"), `"type":"corrected"`); n != kills {
		t.Errorf("%d corrected events in adjudicate(journal); want %d", n, kills)
	}
	t.Logf("%d kills between a correction's journal line and its events, %d events, all equal to adjudicate(journal): %v",
		kills, len(want), slices.Equal(got, want))
}
