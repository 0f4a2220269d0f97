package referee

import (
	"encoding/json"
	"time"

	"github.com/liarsd/liarsd/engine"
)

// Publisher carries the referee's outputs to the outside (MQTT). Its
// methods are called from the referee's goroutine and must not block on the
// network: an implementation queues and delivers in the order of the calls.
type Publisher interface {
	// Event publishes one event (its JSON, with type and seq). Events come
	// in seq order; after a restart the referee replays the journal from
	// the checkpoint it resumed from and calls Event again for every event
	// after it (from seq 1 when it resumed from the journal's start), so
	// an implementation skips those it knows were delivered.
	Event(seq int, payload []byte)
	// State publishes the table's state (retained).
	State(payload []byte)
	// Reply answers a command.
	Reply(payload []byte)
	// Vision publishes what the camera is unsure of while a reveal needs a
	// look. It never holds a hidden face.
	Vision(payload []byte)
}

// LinePublisher is a Publisher that also takes, with each state, the
// number of journal lines it follows (*mqtt.Client): a publisher that
// remembers the last one delivered can tell, after a restart, a journal
// that lost lines whose effects were published.
type LinePublisher interface {
	Publisher
	StateAt(payload []byte, lines int)
}

// Clock tells the time and runs timers; tests inject their own.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the machine's clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc runs f after d, as time.AfterFunc.
func (SystemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Reply answers one input, as MQTT's reply topic carries it.
type Reply struct {
	// ID is the command's id, as given (any JSON value), or null.
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Reason  engine.Reason   `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	// Seq is the seq of the last event at the table after the input. It
	// stays off the reply topic, whose payload MQTT.md gives exactly.
	Seq int `json:"-"`
}
