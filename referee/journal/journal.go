// Package journal keeps a table's journal: every accepted input, one record
// line (RECORD.md) per line, appended and synced to disk before its effects
// are published. Replaying the journal through a fresh engine.Table gives
// the same events with the same seq, which is how the referee recovers
// after a crash or a power cut.
package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/liarsd/liarsd/engine/record"
)

// Journal is an append-only file of record lines. It is safe for
// concurrent use, though the referee appends from one goroutine.
type Journal struct {
	mu     sync.Mutex
	f      file
	path   string
	lines  int
	noSync bool
	// size is the length of the file's whole lines: a failed append is cut
	// back to it, so that a half-written line never merges with the next.
	size int64
	// broken is set when a failed append could not be cut back: appending
	// after it would journal lines a replay reads differently.
	broken error
}

// file is what the journal needs of its *os.File (tests inject failures).
type file interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
	Close() error
}

// Options tune Open.
type Options struct {
	// NoSync skips fsync after each append. Only benchmarks and the demo on
	// a throwaway journal set it: without it a power cut may lose the last
	// lines while their events were already published.
	NoSync bool
}

// Open opens (creating it and its directory when missing) the journal at
// path and returns it with the lines it already holds, oldest first: line
// n of the file is lines[n-1], so that rejected events number lines as
// liarsd adjudicate does. A blank line is an empty entry (a record skips
// it but counts it). A line longer than record.MaxLineBytes (a garbled
// file) is kept cut, still longer than record.MaxLineBytes, for the
// referee to refuse as bad_input as liarsd adjudicate does. A last line
// cut short by a power cut (no newline at the end) was never synced, so
// never published: it is dropped from the file and reported in dropped.
func Open(path string, opts Options) (j *Journal, lines [][]byte, dropped []byte, err error) {
	if path == "" {
		return nil, nil, nil, errors.New("journal: no path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, nil, fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("journal: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	keep := len(data)
	if keep > 0 && data[keep-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		dropped = append([]byte(nil), data[cut:]...)
		keep = cut
		if err := f.Truncate(int64(keep)); err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("journal: dropping a torn last line of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("journal: %w", err)
		}
	}
	err = record.ReadLines(bytes.NewReader(data[:keep]), func(num int, line []byte, tooLong bool) error {
		for len(lines) < num-1 { // the blank lines before this one
			lines = append(lines, []byte{})
		}
		l := append([]byte(nil), line...)
		if tooLong {
			// Kept (not a reason to refuse to start): liarsd adjudicate
			// gives it a rejected event, and so does the replay. Cut to
			// just over the limit, padded if trimming made it shorter.
			if len(l) > record.MaxLineBytes+1 {
				l = l[:record.MaxLineBytes+1]
			}
			for len(l) <= record.MaxLineBytes {
				l = append(l, ' ')
			}
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("journal: %s: %w", path, err)
	}
	// Blank lines at the end count too: the next line's number follows them.
	n := bytes.Count(data[:keep], []byte("\n"))
	for len(lines) < n {
		lines = append(lines, []byte{})
	}
	if _, err := f.Seek(int64(keep), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("journal: %w", err)
	}
	return &Journal{f: f, path: path, lines: n, noSync: opts.NoSync, size: int64(keep)}, lines, dropped, nil
}

// Append writes line (one record line, without its newline) and syncs it
// to disk. It returns only when the line is durable. A line holding a
// newline is refused: it would be read back as two.
func (j *Journal) Append(line []byte) error {
	if bytes.ContainsAny(line, "\n\r") {
		return errors.New("journal: a record line must not hold a line break")
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("journal: closed")
	}
	if j.broken != nil {
		return fmt.Errorf("journal: %s is unusable after a failed append: %w", j.path, j.broken)
	}
	// One write call: a crashed process leaves the line whole or absent;
	// only a power cut can tear it, and Open drops a torn tail.
	_, err := j.f.Write(buf)
	if err != nil {
		err = fmt.Errorf("journal: appending to %s: %w", j.path, err)
	} else if !j.noSync {
		if serr := j.f.Sync(); serr != nil {
			err = fmt.Errorf("journal: syncing %s: %w", j.path, serr)
		}
	}
	if err != nil {
		// The caller drops the line, so the file must not keep it: a part
		// (disk full) would merge with the next line into a garbled one,
		// and an unsynced whole one would come back at the next start
		// though its events were never published.
		j.cutBack()
		return err
	}
	j.size += int64(len(buf))
	j.lines++
	return nil
}

// cutBack truncates the file to its whole lines after a failed append; when
// that fails too, the journal refuses every later append.
func (j *Journal) cutBack() {
	if err := j.f.Truncate(j.size); err != nil {
		j.broken = fmt.Errorf("journal: cutting back a failed append: %w", err)
		return
	}
	if _, err := j.f.Seek(j.size, io.SeekStart); err != nil {
		j.broken = fmt.Errorf("journal: cutting back a failed append: %w", err)
	}
}

// Lines returns the number of lines in the journal (blank ones included).
func (j *Journal) Lines() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lines
}

// Path returns the journal's file name.
func (j *Journal) Path() string { return j.path }

// Close closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
