package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/liarsd/liarsd/engine"
)

// MaxLineBytes is the longest record line read; a longer one is refused as
// bad_input and skipped.
const MaxLineBytes = 1 << 20

// Adjudicate reads a game record from r and writes the referee's events to
// w, one JSON object per line. Refused lines become rejected events and
// change nothing. It returns an error only when r cannot be read or w
// cannot be written.
func Adjudicate(r io.Reader, w io.Writer) error {
	t := engine.NewTable()
	ew := NewEventWriter(w)
	err := ReadLines(r, func(n int, line []byte, tooLong bool) error {
		if tooLong {
			return ew.Write(t.Reject(n, badInput("the line is longer than %d bytes", MaxLineBytes)))
		}
		evs, err := Apply(t, line)
		if err != nil {
			// As ApplyLine, without a list for the one event.
			return ew.Write(t.Reject(n, err))
		}
		return ew.Write(evs...)
	})
	if ferr := ew.Flush(); err == nil {
		err = ferr
	}
	return err
}

// ApplyLine applies line n of a record to t as liarsd adjudicate does: it
// returns the line's events, or, for a refused line, its rejected event
// and false.
func ApplyLine(t *engine.Table, n int, line []byte) ([]engine.Event, bool) {
	evs, err := Apply(t, line)
	if err != nil {
		return []engine.Event{t.Reject(n, err)}, false
	}
	return evs, true
}

// Apply decodes one record line and applies it to the table.
func Apply(t *engine.Table, line []byte) ([]engine.Event, error) {
	a, err := Decode(line)
	if err != nil {
		return nil, err
	}
	return t.Apply(a)
}

// ReadLines calls fn with each non-blank line of r and its number (counting
// from 1, blank lines included). A line longer than MaxLineBytes is passed
// with tooLong set and its text cut.
func ReadLines(r io.Reader, fn func(n int, line []byte, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	n := 0
	// blank is whether the line read so far is all white space: a blank
	// line is skipped however long, and only its start is kept in long.
	blank := true
	for {
		chunk, err := br.ReadSlice('\n')
		if n == 0 && long == nil {
			// A byte order mark some editors put before the first line is
			// no part of it (RFC 8259 lets a reader ignore it).
			chunk = bytes.TrimPrefix(chunk, []byte("\ufeff"))
		}
		blank = blank && len(bytes.TrimSpace(chunk)) == 0
		if err == bufio.ErrBufferFull {
			if len(long) <= MaxLineBytes {
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("record: reading line %d: %w", n+1, err)
		}
		if len(chunk) == 0 && err == io.EOF && long == nil {
			return nil
		}
		n++
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		// The line's length is its text's, without its "\n" or "\r\n".
		text := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		tooLong := len(text) > MaxLineBytes && !blank
		blank = true
		if t := bytes.TrimSpace(line); len(t) > 0 || tooLong {
			if ferr := fn(n, t, tooLong); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// EventWriter writes events as JSON Lines.
type EventWriter struct {
	bw   *bufio.Writer
	enc  *json.Encoder
	fast *eventEncoder
}

// NewEventWriter returns a writer of events to w; call Flush when done.
func NewEventWriter(w io.Writer) *EventWriter {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &EventWriter{bw: bw, enc: enc, fast: newEventEncoder()}
}

// Write writes each event on a line of its own, as encoding/json writes
// it: the engine's events without reflection (eventEncoder), any other
// through encoding/json.
func (ew *EventWriter) Write(evs ...engine.Event) error {
	for _, e := range evs {
		if b, ok := ew.fast.appendEvent(ew.bw.AvailableBuffer(), e); ok {
			if _, err := ew.bw.Write(b); err != nil {
				return fmt.Errorf("record: writing event: %w", err)
			}
			continue
		}
		if err := ew.enc.Encode(e); err != nil {
			return fmt.Errorf("record: writing event: %w", err)
		}
	}
	return nil
}

// Flush writes any buffered events.
func (ew *EventWriter) Flush() error {
	if err := ew.bw.Flush(); err != nil {
		return fmt.Errorf("record: writing events: %w", err)
	}
	return nil
}
