package venuetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/tournament"
)

// Recorder subscribes to every table's events with a persistent session
// (QoS 1, a fixed client id, clean session off: a broker that keeps
// sessions delivers what was published while it was away) and keeps each
// table's events in the order they came.
type Recorder struct {
	cli    paho.Client
	prefix string
	mu     sync.Mutex
	tables map[string]*arrivals
	// At, when set, is called with each event's table, seq and the time
	// it came.
	At func(table string, seq int, at time.Time)
}

type arrivals struct {
	seqs     []int
	payloads map[int][]byte
}

// Record subscribes to <prefix>/+/events (or to topic when given) on url
// as clientID.
func Record(t testing.TB, url, clientID, prefix, topic string) *Recorder {
	t.Helper()
	if topic == "" {
		topic = prefix + "/+/events"
	}
	r := &Recorder{prefix: prefix, tables: map[string]*arrivals{}}
	opts := paho.NewClientOptions().AddBroker(url).SetClientID(clientID).
		SetCleanSession(false).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectRetryInterval(200 * time.Millisecond).SetMaxReconnectInterval(time.Second).
		// A busy test machine answers pings late: a dropped connection
		// is a reconnection of a persistent session, which is what a
		// benchmark should do only when it means to.
		SetKeepAlive(60 * time.Second).SetPingTimeout(60 * time.Second).
		SetOrderMatters(true).
		SetOnConnectHandler(func(c paho.Client) { c.Subscribe(topic, 1, nil) })
	opts.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { r.take(m.Topic(), m.Payload()) })
	r.cli = paho.NewClient(opts)
	if tok := r.cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("recorder: connecting to %s: %v", url, tok.Error())
	}
	if tok := r.cli.Subscribe(topic, 1, nil); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("recorder: subscribing: %v", tok.Error())
	}
	t.Cleanup(func() { r.cli.Disconnect(100) })
	return r
}

func (r *Recorder) take(topic string, payload []byte) {
	parts := strings.Split(topic, "/")
	if len(parts) < 3 || parts[len(parts)-1] != "events" {
		return
	}
	table := parts[len(parts)-2]
	var e struct {
		Seq int `json:"seq"`
	}
	if json.Unmarshal(payload, &e) != nil || e.Seq < 1 {
		return
	}
	now := time.Now()
	r.mu.Lock()
	a := r.tables[table]
	if a == nil {
		a = &arrivals{payloads: map[int][]byte{}}
		r.tables[table] = a
	}
	a.seqs = append(a.seqs, e.Seq)
	if _, ok := a.payloads[e.Seq]; !ok {
		a.payloads[e.Seq] = append([]byte(nil), payload...)
	}
	r.mu.Unlock()
	if r.At != nil {
		r.At(table, e.Seq, now)
	}
}

// Count returns the events received so far, repeats included.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, a := range r.tables {
		n += len(a.seqs)
	}
	return n
}

// Last returns the highest seq received from table.
func (r *Recorder) Last(table string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := 0
	if a := r.tables[table]; a != nil {
		for _, s := range a.seqs {
			m = max(m, s)
		}
	}
	return m
}

// Check is what a recorder received against what each table's journal
// says was published.
type Check struct {
	Tables int
	// Events are the events the journals hold; Received the messages
	// that came, repeats included.
	Events, Received int
	// Lost: events of a journal that never came. Repeated: events that
	// came more than once (QoS 1 allows it). Reordered: events that came
	// after one of a higher seq of their table. Differing: events whose
	// payload is not the journal's.
	Lost, Repeated, Reordered, Differing int
	// Examples name a few of the problems.
	Examples []string
}

// String says the check in one line.
func (c Check) String() string {
	return fmt.Sprintf("tables %d, events %d, received %d, lost %d, repeated %d, reordered %d, differing %d",
		c.Tables, c.Events, c.Received, c.Lost, c.Repeated, c.Reordered, c.Differing)
}

// CheckAgainst compares what came of each table with its events as
// liarsd adjudicate gives them (want: table to events, oldest first).
func (r *Recorder) CheckAgainst(want map[string][][]byte) Check {
	r.mu.Lock()
	defer r.mu.Unlock()
	var c Check
	example := func(f string, a ...any) {
		if len(c.Examples) < 10 {
			c.Examples = append(c.Examples, fmt.Sprintf(f, a...))
		}
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		evs := want[id]
		c.Tables++
		c.Events += len(evs)
		a := r.tables[id]
		if a == nil {
			a = &arrivals{payloads: map[int][]byte{}}
		}
		c.Received += len(a.seqs)
		seen := map[int]int{}
		high := 0
		for _, s := range a.seqs {
			seen[s]++
			if seen[s] == 1 && s < high {
				c.Reordered++
				example("%s: seq %d came after %d", id, s, high)
			}
			high = max(high, s)
		}
		for s, n := range seen {
			if n > 1 {
				c.Repeated += n - 1
			}
			if s > len(evs) {
				c.Differing++
				example("%s: seq %d came, but the journal's events end at %d", id, s, len(evs))
			}
		}
		for i, ev := range evs {
			s := i + 1
			got, ok := a.payloads[s]
			if !ok {
				c.Lost++
				example("%s: seq %d never came", id, s)
				continue
			}
			if !sameEvent(got, ev) {
				c.Differing++
				example("%s: seq %d came as %s; the journal gives %s", id, s, got, ev)
			}
		}
	}
	return c
}

// sameEvent compares two events as JSON values.
func sameEvent(a, b []byte) bool {
	if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// Adjudicate returns the events of the table's journal at dir as liarsd
// adjudicate gives them: by running bin (a liarsd binary) when given, else
// through the same library calls.
func Adjudicate(bin, dir string) ([][]byte, error) {
	var out []byte
	if bin != "" {
		var err error
		if out, err = exec.Command(bin, "adjudicate", dir).Output(); err != nil {
			return nil, fmt.Errorf("venuetest: %s adjudicate %s: %w", bin, dir, err)
		}
	} else {
		lines, err := journal.ReadRecord(dir)
		if err != nil {
			return nil, err
		}
		var in, w bytes.Buffer
		for _, l := range lines {
			in.Write(l)
			in.WriteByte('\n')
		}
		if err := record.Adjudicate(&in, &w); err != nil {
			return nil, err
		}
		out = w.Bytes()
	}
	var evs [][]byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			evs = append(evs, append([]byte(nil), l...))
		}
	}
	return evs, sc.Err()
}

// FinishingOrder is the finishing order that a table's events (evs, as
// Adjudicate returns them) from seq start to seq end give: what a
// tournament's result for that game must say.
func FinishingOrder(evs [][]byte, table string, seats []string, start, end int) ([][]string, error) {
	if start < 1 || end > len(evs) || start > end {
		return nil, fmt.Errorf("seqs %d to %d are not in the journal's %d events", start, end, len(evs))
	}
	var kept []tournament.TableEvent
	for _, raw := range evs[start-1 : end] {
		if e, ok := tournament.ParseEvent(table, raw); ok {
			kept = append(kept, e)
		}
	}
	order, ok := tournament.OrderOf(seats, kept)
	if !ok {
		return nil, fmt.Errorf("seqs %d to %d hold no game_over", start, end)
	}
	return order, nil
}
