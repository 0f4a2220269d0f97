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
	f      *os.File
	path   string
	lines  int
	noSync bool
}

// Options tune Open.
type Options struct {
	// NoSync skips fsync after each append. Only benchmarks and the demo on
	// a throwaway journal set it: without it a power cut may lose the last
	// lines while their events were already published.
	NoSync bool
}

// Open opens (creating it and its directory when missing) the journal at
// path and returns it with the lines it already holds, oldest first. A
// last line cut short by a power cut (no newline at the end) was never
// synced, so never published: it is dropped from the file and reported in
// dropped.
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
	n := 0
	err = record.ReadLines(bytes.NewReader(data[:keep]), func(num int, line []byte, tooLong bool) error {
		n = num
		if tooLong {
			return fmt.Errorf("journal: %s: line %d is longer than %d bytes", path, num, record.MaxLineBytes)
		}
		lines = append(lines, append([]byte(nil), line...))
		return nil
	})
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	if _, err := f.Seek(int64(keep), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("journal: %w", err)
	}
	return &Journal{f: f, path: path, lines: n, noSync: opts.NoSync}, lines, dropped, nil
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
	// One write call: a crashed process leaves the line whole or absent;
	// only a power cut can tear it, and Open drops a torn tail.
	if _, err := j.f.Write(buf); err != nil {
		return fmt.Errorf("journal: appending to %s: %w", j.path, err)
	}
	if !j.noSync {
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("journal: syncing %s: %w", j.path, err)
		}
	}
	j.lines++
	return nil
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
