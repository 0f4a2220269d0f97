package referee

import (
	"bytes"
	"encoding/json"
	"log/slog"

	"github.com/liarsd/liarsd/engine"
)

// MaxRememberedIDs is how many command ids a table remembers (the window):
// those of its last MaxRememberedIDs journaled lines (accepted or refused)
// that have one, fewer only when their answers would exceed
// MaxRememberedBytes. A command whose id is among them is answered as then
// and not applied again; an older id is forgotten, and a command that
// reuses it is taken as a new one. Inputs that are not journaled (a busy
// or journal_error answer, a camera's misread) are not remembered. Each
// journal segment's checkpoint keeps the whole window, so that a start
// from it remembers the same ids as one that replays the whole journal.
const MaxRememberedIDs = 4096

// MaxRememberedBytes bounds the window's answers as a checkpoint keeps them
// (JSON: each its id, reason and message and about 30 bytes more; a short
// id and a refusal's message take about 100): an id may be any
// JSON value up to MaxCommandBytes, and every segment's checkpoint holds
// them all. 4096 answers fit when they average 256 bytes; longer ones
// shorten the window, the oldest forgotten first.
const MaxRememberedBytes = 1 << 20

// window remembers the answers to the command ids of the last
// MaxRememberedIDs journaled lines that have one (see MaxRememberedIDs),
// by idKey, so that a command sent again (a client's retry, the broker's
// redelivery after a crash) is answered as then, not applied (or refused
// and journaled) twice. order holds their keys, oldest first, and bytes
// the length of their answers as a checkpoint keeps them. At a start the
// window is the checkpoint's, then the ids of the lines replayed after it.
type window struct {
	log     *slog.Logger
	applied map[string]answer
	order   []string
	bytes   int
}

func newWindow(log *slog.Logger) window {
	return window{log: log, applied: map[string]answer{}}
}

// answer is a remembered command id's answer, and its encoding as a
// checkpoint keeps it.
type answer struct {
	rep Reply
	enc []byte
}

// remembered is an answer to a command id, as a checkpoint keeps it.
type remembered struct {
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Reason  engine.Reason   `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	Seq     int             `json:"seq"`
}

// restore remembers the answers a journal checkpoint keeps, oldest first.
func (w *window) restore(commands []json.RawMessage, segment int) {
	for _, c := range commands {
		var m remembered
		if err := json.Unmarshal(c, &m); err != nil {
			w.log.Warn("referee: a command id of the journal's checkpoint is unreadable; left out", "segment", segment, "err", err)
			continue
		}
		w.remember(Reply(m))
	}
}

// encoded returns the window's answers as a checkpoint keeps them, oldest
// first: a start from it remembers what the referee remembers now.
func (w *window) encoded() []json.RawMessage {
	var out []json.RawMessage
	for _, key := range w.order {
		out = append(out, w.applied[key].enc)
	}
	return out
}

// answered returns the answer a command id had, if the window holds it.
func (w *window) answered(id json.RawMessage) (Reply, bool) {
	a, ok := w.applied[idKey(id)]
	return a.rep, ok
}

// rememberEvents notes the id of a journaled line, if it has one (not
// null), with the answer it had: accepted, or refused as its rejected
// event says.
func (w *window) rememberEvents(id json.RawMessage, evs []engine.Event, seq int) {
	if len(id) == 0 || string(id) == "null" {
		return
	}
	rep := Reply{ID: id, OK: true, Seq: seq}
	for _, e := range evs {
		if rj, ok := e.(*engine.Rejected); ok {
			rep = Reply{ID: id, Reason: rj.Reason, Message: rj.Message, Seq: seq}
		}
	}
	w.remember(rep)
}

// remember keeps the answer to a command id, as the newest in the window
// (see MaxRememberedIDs), and forgets the oldest beyond it. An id
// remembered already keeps its first answer and its place: a journal
// written before ids were checked on every path may hold an id twice, and
// its first answer is the one given again.
func (w *window) remember(rep Reply) {
	key := idKey(rep.ID)
	if _, ok := w.applied[key]; ok {
		return
	}
	enc, err := json.Marshal(remembered(rep))
	if err != nil {
		w.log.Warn("referee: an answer to a command id cannot be kept", "err", err)
		return
	}
	w.applied[key] = answer{rep: rep, enc: enc}
	w.order = append(w.order, key)
	w.bytes += len(enc)
	for len(w.order) > 1 && (len(w.order) > MaxRememberedIDs || w.bytes > MaxRememberedBytes) {
		old := w.order[0]
		w.bytes -= len(w.applied[old].enc)
		delete(w.applied, old)
		w.order = w.order[1:]
	}
}

// idKey is the key of a command id in the window: the id as a journal
// checkpoint gives it back. encoding/json writes <, > and & in strings as
// \u003c, \u003e and \u0026, so that an id holding one would otherwise be
// another key after a restart from a checkpoint than after a whole replay.
func idKey(id json.RawMessage) string {
	if !bytes.ContainsAny(id, "<>&\u2028\u2029") {
		return string(id)
	}
	var b bytes.Buffer
	json.HTMLEscape(&b, id)
	return b.String()
}
