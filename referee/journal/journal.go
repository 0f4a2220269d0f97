// Package journal keeps a table's journal: every input the referee takes,
// one record line (RECORD.md) per line, appended and synced to disk before
// its effects are published. Replaying the journal through a fresh
// engine.Table gives the same events with the same seq, which is how the
// referee recovers after a crash or a power cut.
//
// A journal is a directory of segments, 000001.journal, 000002.journal,
// ...: a new one every Options.SegmentLines record lines. A segment begins
// with a checkpoint, the referee's State after the lines before it, so that
// a start replays the last segment, not the whole journal. Each line of a
// segment carries a chained checksum (see chain), so that a line changed
// or a segment cut short is found, not replayed as something else. An
// older journal, one file of lines without checksums, is moved into the
// directory as segment 000000 by Open and read as it always was.
package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Journal appends record lines to a journal's last segment. It is safe for
// concurrent use, though the referee appends from one goroutine.
type Journal struct {
	mu           sync.Mutex
	f            file
	path         string
	noSync       bool
	segmentLines int

	id       string
	seg      int    // the last segment's number
	segPath  string // and its file
	legacy   bool   // it is an older journal's file: lines without checksums
	base     int    // record lines before it
	segLines int    // record lines in it
	sum      uint32 // the checksum of its last line
	// size is the length of its whole lines: a failed append is cut back
	// to it, so that a half-written line never merges with the next.
	size int64
	// torn is set while a torn last line is still in the file, and drop
	// names a last segment file without one whole line: both go at the
	// first write.
	torn bool
	drop string
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
	// SegmentLines is the number of record lines after which Full says a
	// new segment is due (DefaultSegmentLines).
	SegmentLines int
	// Published is the last event known delivered (the MQTT watermark):
	// Open resumes from the newest checkpoint before it, so that the
	// replay gives that event again (to be recognised) and every later one.
	// The zero Published, or one of another journal, resumes from the
	// journal's start: every event is published again.
	Published Published
}

// Published is what the broker's watermark says was published of a
// journal: its id (the journal's Checkpoint.ID; "" in a watermark saved
// before journals had ids), the seq of the last event acknowledged, and
// the record lines whose state was acknowledged. Source is where it was
// read (the watermark's file), for messages.
type Published struct {
	Journal string
	Seq     int
	Lines   int
	Source  string
}

// Resume is what Open read: a checkpoint and the record lines after it.
type Resume struct {
	// Checkpoint is where the replay starts: its State, and its Lines, the
	// record lines before Lines[0]. The zero Checkpoint is the journal's
	// start.
	Checkpoint Checkpoint
	// Lines are the record lines from there on: record line
	// Checkpoint.Lines+i+1 is Lines[i], a blank line an empty entry. A line
	// longer than record.MaxLineBytes is kept longer, for the referee to
	// refuse as bad_input as liarsd adjudicate does.
	Lines [][]byte
	// Torn is a last line cut short by a power cut (no newline at its
	// end): it was never synced, so never published. It is left out, and
	// cut from the file at the first write.
	Torn []byte
	// Migrated says that an older journal's file was moved into the
	// journal's directory as segment 000000.
	Migrated bool
	// Segments is the number of segments read for the replay (every
	// segment is checked).
	Segments int
	// Found is what the start found: every segment checked, as liarsd
	// journal check reports it. The daemon holds it against the seq the
	// replay reached (Missing).
	Found Report
}

// Open opens the journal at path (a directory, created with its first
// segment when missing) for appending, and returns what a referee resumes
// from. It first checks every line of every segment, as CheckPublished
// does, and then the journal against opts.Published (Missing): damage (a
// line whose checksum does not match, a segment cut short or missing, or
// lines gone whose effects were published) is a *DamageError, and nothing
// is written; a torn last line that was never published is left out (see
// Resume.Torn). An older journal, a file, is first moved into a directory
// of the same name.
func Open(path string, opts Options) (*Journal, Resume, error) {
	if path == "" {
		return nil, Resume{}, errors.New("journal: no path")
	}
	if opts.SegmentLines <= 0 {
		opts.SegmentLines = DefaultSegmentLines
	}
	path = filepath.Clean(path)
	pub := opts.Published
	j := &Journal{path: path, noSync: opts.NoSync, segmentLines: opts.SegmentLines}
	// A journal that is not there, or an older journal's file, is held
	// against what was published before anything is made or moved.
	if st, err := os.Stat(path); err == nil && !st.IsDir() || errors.Is(err, fs.ErrNotExist) && !isDir(path+".migrating") {
		if rep, err := CheckPublished(path, pub); err == nil && rep.Damage != nil {
			return nil, Resume{}, rep.Damage
		}
	}
	var res Resume
	var err error
	if res.Migrated, err = prepare(path, opts.NoSync); err != nil {
		return nil, Resume{}, err
	}
	removeTemps(path)
	nums, err := listSegments(path)
	if err != nil {
		return nil, Resume{}, err
	}
	// Every segment is checked, one at a time (their lines dropped), and
	// the whole against what was published: the same decision as liarsd
	// journal check's.
	segs, found, err := scan(path, false)
	if err != nil {
		return nil, Resume{}, err
	}
	if found.Damage != nil {
		return nil, Resume{}, found.Damage
	}
	if d := Missing(found, pub, -1); d != nil {
		return nil, Resume{}, d
	}
	res.Found = found
	if len(nums) > len(segs) {
		// A last segment without one whole line: its checkpoint was never
		// written whole (or the file was emptied), and nothing of it was
		// published (Missing). Left out, removed at the first write.
		j.drop = filepath.Join(path, segmentName(nums[len(nums)-1]))
		res.Torn = dropTorn(j.drop)
		nums = nums[:len(segs)]
	}
	if len(segs) == 0 {
		if j.drop != "" {
			if err := os.Remove(j.drop); err != nil {
				return nil, Resume{}, fmt.Errorf("journal: %w", err)
			}
			j.drop = ""
		}
		cp, err := j.create()
		if err != nil {
			return nil, Resume{}, err
		}
		return j, Resume{Checkpoint: cp, Torn: res.Torn, Migrated: res.Migrated, Segments: 1, Found: found}, nil
	}
	// The segments the replay reads, lines and all: from the newest whose
	// checkpoint comes before the published event.
	first := resumeFrom(segs, pub)
	var read []*segment
	for _, s := range segs[first:] {
		full, err := readSegment(path, s.path, s.num, s.num == nums[len(nums)-1] && j.drop == "")
		if err != nil {
			return nil, Resume{}, err
		}
		read = append(read, full)
	}
	last := read[len(read)-1]
	res.Checkpoint = read[0].cp
	if !read[0].legacy {
		if res.Checkpoint, err = fullCheckpoint(read[0].cpText); err != nil {
			return nil, Resume{}, &DamageError{Journal: path, File: read[0].path, Line: 1, Record: read[0].cp.Lines + 1, Good: read[0].cp.Lines,
				Reason: "its checkpoint's state is unreadable: " + err.Error(), segment: read[0].num}
		}
	}
	for _, s := range read {
		res.Lines = append(res.Lines, s.lines...)
	}
	if last.torn != nil {
		res.Torn = last.torn
	}
	res.Segments = len(read)
	j.id = last.cp.ID
	j.seg, j.segPath, j.legacy = last.num, last.path, last.legacy
	j.base, j.segLines, j.sum, j.size = last.cp.Lines, last.count, last.sum, last.size
	j.torn = last.torn != nil
	f, err := os.OpenFile(last.path, os.O_RDWR, 0)
	if err != nil {
		return nil, Resume{}, fmt.Errorf("journal: %w", err)
	}
	if _, err := f.Seek(j.size, io.SeekStart); err != nil {
		f.Close()
		return nil, Resume{}, fmt.Errorf("journal: %w", err)
	}
	j.f = f
	return j, res, nil
}

// resumeFrom returns the index of the segment a start replays from: the
// newest whose checkpoint comes before the published event (or an older
// journal's segment 000000, which has none), or the first when nothing of
// this journal is known published.
func resumeFrom(segs []*segment, pub Published) int {
	last := segs[len(segs)-1]
	if pub.Seq <= 0 || (pub.Journal != "" && !last.legacy && pub.Journal != last.cp.ID) {
		return 0
	}
	i := len(segs) - 1
	for i > 0 && !segs[i].legacy && segs[i].cp.Seq >= pub.Seq {
		i--
	}
	return i
}

// dropTorn returns what a segment file without one whole line holds.
func dropTorn(file string) []byte {
	data, _ := os.ReadFile(file)
	return data
}

// isDir says whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// prepare makes sure path is a journal's directory: it creates it when
// missing, and moves an older journal's file into it as segment 000000
// (migrated). The move renames twice through path+".migrating"; a start
// that finds that directory and no path finishes it.
func prepare(path string, noSync bool) (migrated bool, err error) {
	mig := path + ".migrating"
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if ms, merr := os.Stat(mig); merr == nil && ms.IsDir() {
			if err := os.Rename(mig, path); err != nil {
				return false, fmt.Errorf("journal: finishing the move of an older journal into %s: %w", path, err)
			}
			return true, syncParent(path, noSync)
		}
		if err := os.MkdirAll(path, 0o750); err != nil {
			return false, fmt.Errorf("journal: %w", err)
		}
		return false, syncParent(path, noSync)
	case err != nil:
		return false, fmt.Errorf("journal: %w", err)
	case st.IsDir():
		return false, nil
	case !st.Mode().IsRegular():
		return false, fmt.Errorf("journal: %s is neither a journal's directory nor an older journal's file", path)
	}
	// An older journal: one file of lines without checksums. It becomes
	// segment 000000 of the directory, byte for byte.
	if err := os.RemoveAll(mig); err != nil {
		return false, fmt.Errorf("journal: %w", err)
	}
	if err := os.Mkdir(mig, 0o750); err != nil {
		return false, fmt.Errorf("journal: %w", err)
	}
	if err := os.Rename(path, filepath.Join(mig, segmentName(legacySegment))); err != nil {
		return false, fmt.Errorf("journal: moving the older journal %s: %w", path, err)
	}
	if !noSync {
		if err := syncDir(mig); err != nil {
			return false, fmt.Errorf("journal: %w", err)
		}
	}
	if err := os.Rename(mig, path); err != nil {
		return false, fmt.Errorf("journal: moving the older journal %s: %w", path, err)
	}
	return true, syncParent(path, noSync)
}

func syncParent(path string, noSync bool) error {
	if noSync {
		return nil
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// newID returns a new journal's id.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// create starts a new journal: segment 1, its checkpoint the start.
func (j *Journal) create() (Checkpoint, error) {
	j.id, j.sum = newID(), 0
	cp := Checkpoint{Format: Format, ID: j.id, Segment: 1, Prev: "00000000"}
	text, err := json.Marshal(cp)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("journal: %w", err)
	}
	sum := chain(0, text)
	line := frame(sum, text)
	file, err := writeSegment(j.path, 1, line, j.noSync)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("journal: starting %s: %w", j.path, err)
	}
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("journal: %w", err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return Checkpoint{}, fmt.Errorf("journal: %w", err)
	}
	j.f, j.seg, j.segPath, j.sum, j.size = f, 1, file, sum, int64(len(line))
	return cp, nil
}

// settleLocked cuts a torn last line and removes a dropped segment file
// before the first write; j.mu is held.
func (j *Journal) settleLocked() error {
	if j.torn {
		if err := j.f.Truncate(j.size); err != nil {
			return fmt.Errorf("journal: dropping a torn last line of %s: %w", j.segPath, err)
		}
		if !j.noSync {
			if err := j.f.Sync(); err != nil {
				return fmt.Errorf("journal: %w", err)
			}
		}
		j.torn = false
	}
	if j.drop != "" {
		if err := os.Remove(j.drop); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: dropping a torn last segment: %w", err)
		}
		if !j.noSync {
			if err := syncDir(j.path); err != nil {
				return fmt.Errorf("journal: %w", err)
			}
		}
		j.drop = ""
	}
	return nil
}

// usableLocked says why the journal cannot be written, if it cannot.
func (j *Journal) usableLocked() error {
	if j.f == nil {
		return errors.New("journal: closed")
	}
	if j.broken != nil {
		return fmt.Errorf("journal: %s is unusable after a failed append: %w", j.path, j.broken)
	}
	return nil
}

// Append writes line (one record line, without its newline) with its
// checksum and syncs it to disk. It returns only when the line is
// durable. A line holding a line break is refused: it would be read back
// as two.
func (j *Journal) Append(line []byte) error {
	if bytes.ContainsAny(line, "\n\r") {
		return errors.New("journal: a record line must not hold a line break")
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usableLocked(); err != nil {
		return err
	}
	if err := j.settleLocked(); err != nil {
		return err
	}
	var buf []byte
	sum := j.sum
	if j.legacy {
		// An older journal's file until the referee starts a segment.
		buf = append(append(make([]byte, 0, len(line)+1), line...), '\n')
	} else {
		sum = chain(j.sum, line)
		buf = frame(sum, line)
	}
	// One write call: a crashed process leaves the line whole or absent;
	// only a power cut can tear it, and Open leaves a torn tail out.
	_, err := j.f.Write(buf)
	if err != nil {
		err = fmt.Errorf("journal: appending to %s: %w", j.segPath, err)
	} else if !j.noSync {
		if serr := j.f.Sync(); serr != nil {
			err = fmt.Errorf("journal: syncing %s: %w", j.segPath, serr)
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
	j.segLines++
	j.sum = sum
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

// Full says whether a new segment is due: the last one holds
// Options.SegmentLines record lines, or it is an older journal's file,
// whose lines have no checksums.
func (j *Journal) Full() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.legacy || j.segLines >= j.segmentLines
}

// Rotate starts a new segment whose checkpoint holds st, the referee's
// state after the journal's last line, and returns the checkpoint. The
// segment is written whole before it is used: a crash leaves it whole or
// absent. Lines are appended to it from then on.
func (j *Journal) Rotate(st State) (Checkpoint, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usableLocked(); err != nil {
		return Checkpoint{}, err
	}
	if err := j.settleLocked(); err != nil {
		return Checkpoint{}, err
	}
	prev := j.sum
	if j.legacy {
		prev = 0
	}
	cp := Checkpoint{Format: Format, ID: j.id, Segment: j.seg + 1, Lines: j.base + j.segLines, Prev: fmt.Sprintf("%08x", prev), State: st}
	text, err := json.Marshal(cp)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("journal: %w", err)
	}
	sum := chain(prev, text)
	line := frame(sum, text)
	file, err := writeSegment(j.path, cp.Segment, line, j.noSync)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("journal: starting segment %d of %s: %w", cp.Segment, j.path, err)
	}
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		// Lines go on to the segment before: the new one must go, or the
		// next start would find that segment longer than its successor's
		// checkpoint says.
		if rerr := os.Remove(file); rerr != nil {
			j.broken = fmt.Errorf("journal: a new segment can be neither used nor removed: %w", rerr)
		}
		return Checkpoint{}, fmt.Errorf("journal: %w", err)
	}
	_ = j.f.Close()
	j.f, j.seg, j.segPath, j.legacy = f, cp.Segment, file, false
	j.base, j.segLines, j.sum, j.size = cp.Lines, 0, sum, int64(len(line))
	return cp, nil
}

// Lines returns the number of record lines in the journal (blank ones
// included), from its first segment's.
func (j *Journal) Lines() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.base + j.segLines
}

// ID returns the journal's id (Checkpoint.ID).
func (j *Journal) ID() string { return j.id }

// Path returns the journal's directory.
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

// removeTemps removes the segments a crash left half written (never
// renamed into place, so never part of the journal).
func removeTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".journal.tmp") {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
