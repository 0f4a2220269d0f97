package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/liarsd/liarsd/engine/record"
)

// Format names the journal's format in each checkpoint.
const Format = "liarsd-journal/1"

// DefaultSegmentLines is the number of record lines after which the
// journal starts a new segment.
const DefaultSegmentLines = 1000

// legacySegment is the number of the segment that holds an older journal's
// file (lines without checksums), moved into the directory as it was.
const legacySegment = 0

var (
	castagnoli  = crc32.MakeTable(crc32.Castagnoli)
	segmentFile = regexp.MustCompile(`^([0-9]{6,9})\.journal$`)
)

// segmentName is the file name of segment n.
func segmentName(n int) string { return fmt.Sprintf("%06d.journal", n) }

// chain is a line's checksum: CRC-32C of the previous line's checksum (4
// bytes, big-endian) followed by the line's text. Each line's checksum so
// vouches for every line before it in its segment, and a segment's first
// line (its checkpoint) continues the chain of the segment before.
func chain(prev uint32, text []byte) uint32 {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], prev)
	return crc32.Update(crc32.Update(0, castagnoli, b[:]), castagnoli, text)
}

// frame returns a checksummed line as the file holds it: the checksum in 8
// lowercase hex digits, a space, the text and a newline.
func frame(sum uint32, text []byte) []byte {
	buf := make([]byte, 0, len(text)+10)
	buf = fmt.Appendf(buf, "%08x ", sum)
	buf = append(buf, text...)
	return append(buf, '\n')
}

// unframe splits a checksummed line (without its newline) into its
// checksum and its text.
func unframe(line []byte) (uint32, []byte, bool) {
	if len(line) < 9 || line[8] != ' ' {
		return 0, nil, false
	}
	for _, c := range line[:8] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return 0, nil, false
		}
	}
	sum, err := strconv.ParseUint(string(line[:8]), 16, 32)
	if err != nil {
		return 0, nil, false
	}
	return uint32(sum), line[9:], true
}

// State is what a referee needs to resume at a point of the journal
// without the lines before it. The journal keeps it in checkpoints and
// does not read it.
type State struct {
	// Seq is the seq of the last event of the lines before the checkpoint.
	Seq int `json:"seq"`
	// Game holds the accepted record lines of the game in progress, from
	// its new_game: replayed through a fresh table they rebuild the game.
	Game []string `json:"game,omitempty"`
	// Last is the last resolution (the state's "last"), as its event.
	Last json.RawMessage `json:"last,omitempty"`
	// Games counts the new_game lines the journal accepted before the
	// checkpoint: the game in progress's number in the journal (0 before
	// the first), which the pages and the state show.
	Games int `json:"games,omitempty"`
	// Commands are the referee's whole window of remembered command ids
	// with their answers, oldest first: a start from the checkpoint
	// remembers them, so that a command seen before is answered as then
	// after a restart, whichever segment it resumed from.
	Commands []json.RawMessage `json:"commands,omitempty"`
}

// Checkpoint is a segment's first line: where the segment stands in the
// journal, and the referee's State there.
type Checkpoint struct {
	Format string `json:"journal"`
	// ID names the journal: the same in all its segments, a new one for a
	// new journal. The MQTT watermark keeps it, to tell a journal that lost
	// lines from another journal.
	ID      string `json:"id"`
	Segment int    `json:"segment"`
	// Lines is the number of record lines before the segment.
	Lines int `json:"lines"`
	// Prev is the checksum of the previous segment's last line ("00000000"
	// for none, or after an older journal without checksums): the chain's
	// start, so that a segment can be checked on its own.
	Prev string `json:"prev"`
	State
}

// segment is one segment file as read.
type segment struct {
	num    int
	path   string
	legacy bool
	cp     Checkpoint // implicit (all zero) for the legacy segment
	// cpText is the checkpoint line's text: fullCheckpoint decodes it.
	cpText []byte
	// lines are the record lines (not the checkpoint), blank ones empty;
	// offsets are where each starts in the file. count is their number,
	// kept when a check that does not need the lines drops them.
	lines   [][]byte
	offsets []int64
	count   int
	sum     uint32 // the checksum of the last whole line
	size    int64  // the length of the whole lines
	torn    []byte // what follows the last newline
}

// DamageError says where a journal is damaged: a line whose checksum does
// not match (changed or overwritten), a segment cut short, one missing, or
// a checkpoint that does not follow its segment's predecessor.
type DamageError struct {
	// Journal is the journal's path (its directory, or a file).
	Journal string
	// File is the damaged segment's file and Line its damaged line
	// (counting from 1, the checkpoint being line 1).
	File string
	Line int
	// Record is the record line the damaged line holds or would hold
	// (counting from 1 over the whole journal); Good the record lines
	// before it, intact.
	Record int
	Good   int
	Reason string

	// Published is set when the damage is lines missing whose effects
	// were published (Missing): what the broker's watermark says.
	Published *Published

	segment int
	offset  int64 // where the damaged line starts in File
}

// ErrDamaged is what every *DamageError is (errors.Is).
var ErrDamaged = errors.New("journal: damaged")

func (e *DamageError) Error() string {
	if p := e.Published; p != nil {
		wm := "the broker's watermark"
		flag := ""
		if p.Source != "" {
			wm += " (" + p.Source + ")"
			flag = " --watermark " + p.Source
		}
		return fmt.Sprintf("journal: %s is damaged: %s. Lines whose effects were published are missing: %s says journal %s published its events up to seq %d and its state after record line %d. "+
			"Stop the daemon, then restore the journal from a backup ('liarsd journal check%s %s' says whether it holds them); "+
			"or start a new table on purpose with 'liarsd journal new%s %s' (it keeps the journal and the watermark aside; subscribers then see seq 1 onward again, with new events)",
			e.Journal, e.Reason, wm, orNone(p.Journal), p.Seq, p.Lines, flag, e.Journal, flag, e.Journal)
	}
	return fmt.Sprintf("journal: %s is damaged at line %d of %s (record line %d): %s; the %d record lines before it are intact. "+
		"Stop the daemon, see 'liarsd journal check %s', then restore the journal from a backup or cut it there with 'liarsd journal repair --cut %s' (it keeps a copy; the lines from the damaged one on are lost)",
		e.Journal, e.Line, e.File, e.Record, e.Reason, e.Good, e.Journal, e.Journal)
}

// orNone is an id, or "(none named)" for a watermark saved before
// journals had ids.
func orNone(id string) string {
	if id == "" {
		return "(none named)"
	}
	return id
}

// Is makes errors.Is(err, ErrDamaged) hold.
func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

// listSegments returns the numbers of the segment files in dir, in order.
func listSegments(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var nums []int
	for _, e := range entries {
		m := segmentFile.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		nums = append(nums, n)
	}
	sort.Ints(nums)
	return nums, nil
}

// readFirstLine returns a file's first line, without its newline; ok is
// false when the file holds no whole line.
func readFirstLine(path string) (line []byte, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	line, err = bufio.NewReaderSize(f, 64<<10).ReadBytes('\n')
	if errors.Is(err, io.EOF) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	return line[:len(line)-1], true, nil
}

// parseCheckpoint checks a segment's first line and returns its
// checkpoint without its State's Game, Last and Commands (see
// fullCheckpoint), which the start alone needs: a whole journal is read
// without decoding them.
func parseCheckpoint(line []byte) (Checkpoint, uint32, string) {
	sum, text, ok := unframe(line)
	if !ok {
		return Checkpoint{}, 0, "its checkpoint line has no checksum"
	}
	cp, err := checkpointHeader(text)
	if err != nil || cp.Format != Format {
		return Checkpoint{}, 0, fmt.Sprintf("its first line is not a %s checkpoint (it was changed)", Format)
	}
	prev, err := strconv.ParseUint(cp.Prev, 16, 32)
	if err != nil || len(cp.Prev) != 8 || chain(uint32(prev), text) != sum {
		return Checkpoint{}, 0, "its checkpoint line's checksum does not match"
	}
	return cp, sum, ""
}

// checkpointHeader decodes a checkpoint's fields up to its seq, which
// Rotate writes first, and leaves the rest of the line unread.
func checkpointHeader(text []byte) (Checkpoint, error) {
	var cp Checkpoint
	dec := json.NewDecoder(bytes.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return cp, errors.New("not a JSON object")
	}
	fields := map[string]any{"journal": &cp.Format, "id": &cp.ID, "segment": &cp.Segment, "lines": &cp.Lines, "prev": &cp.Prev, "seq": &cp.Seq}
	for n := 0; n < len(fields) && dec.More(); {
		t, err := dec.Token()
		if err != nil {
			return cp, err
		}
		key, _ := t.(string)
		into, ok := fields[key]
		if !ok {
			into = new(json.RawMessage)
		} else {
			n++
		}
		if err := dec.Decode(into); err != nil {
			return cp, err
		}
	}
	return cp, nil
}

// fullCheckpoint decodes a checkpoint line's text whole, its State too.
func fullCheckpoint(text []byte) (Checkpoint, error) {
	var cp Checkpoint
	err := json.Unmarshal(text, &cp)
	return cp, err
}

// looksSegment says whether data begins as a segment does: a checksum and
// a checkpoint.
func looksSegment(first []byte) bool {
	_, text, ok := unframe(first)
	return ok && bytes.HasPrefix(text, []byte(`{"journal":"liarsd-journal/`))
}

// readSegment reads and checks segment num of the journal at jpath, from
// file. last says it is the journal's last segment, the only one whose
// last line may be torn.
func readSegment(jpath, file string, num int, last bool) (*segment, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return parseSegment(jpath, file, num, last, data)
}

func parseSegment(jpath, file string, num int, last bool, data []byte) (*segment, error) {
	s := &segment{num: num, path: file, legacy: num == legacySegment}
	whole := data[:bytes.LastIndexByte(data, '\n')+1]
	s.size = int64(len(whole))
	if len(whole) < len(data) {
		s.torn = append([]byte(nil), data[len(whole):]...)
	}
	damage := func(line int, offset int64, record int, reason string) *DamageError {
		return &DamageError{Journal: jpath, File: file, Line: line, Record: record, Good: max(record-1, 0), Reason: reason, segment: num, offset: offset}
	}
	if s.legacy {
		s.lines, s.offsets = legacyLines(whole)
		s.count = len(s.lines)
		s.cp.ID = legacyID(whole)
		if s.torn != nil && !last {
			n := len(s.lines)
			return nil, damage(n+1, s.size, n+1, "the segment ends inside a line (it was cut) and is not the journal's last")
		}
		return s, nil
	}
	if len(whole) == 0 {
		return s, nil // no whole line: the caller decides (a torn last segment)
	}
	lineNo := 0
	var off int64
	for len(whole) > 0 {
		i := bytes.IndexByte(whole, '\n')
		line := whole[:i]
		whole = whole[i+1:]
		lineNo++
		start := off
		off += int64(i + 1)
		if lineNo == 1 {
			cp, sum, why := parseCheckpoint(line)
			if why != "" {
				return nil, damage(1, 0, 0, why)
			}
			if cp.Segment != num {
				return nil, damage(1, 0, cp.Lines+1, fmt.Sprintf("its checkpoint names segment %d, not %d", cp.Segment, num))
			}
			s.cp, s.sum = cp, sum
			_, s.cpText, _ = unframe(line)
			continue
		}
		record := s.cp.Lines + lineNo - 1
		sum, text, ok := unframe(line)
		if !ok {
			return nil, damage(lineNo, start, record, "the line has no checksum (it was changed)")
		}
		if chain(s.sum, text) != sum {
			return nil, damage(lineNo, start, record, "the line's checksum does not match (it was changed)")
		}
		s.sum = sum
		s.lines = append(s.lines, text)
		s.offsets = append(s.offsets, start)
	}
	s.count = len(s.lines)
	if s.torn != nil && !last {
		n := s.cp.Lines + s.count + 1
		return nil, damage(lineNo+1, s.size, n, "the segment ends inside a line (it was cut) and is not the journal's last")
	}
	return s, nil
}

// follows checks that segment s continues prev: the next number, the same
// journal, its checkpoint's line count and chain start where prev ended.
func follows(jpath string, prev, s *segment) error {
	damage := func(reason string) error {
		return &DamageError{Journal: jpath, File: s.path, Line: 1, Record: prev.cp.Lines + prev.count + 1,
			Good: prev.cp.Lines + prev.count, Reason: reason, segment: s.num}
	}
	switch {
	case s.num != prev.num+1:
		return damage(fmt.Sprintf("segment %d is missing", prev.num+1))
	case !prev.legacy && s.cp.ID != prev.cp.ID:
		return damage(fmt.Sprintf("it is of another journal (%s, not %s)", s.cp.ID, prev.cp.ID))
	case s.cp.Lines != prev.cp.Lines+prev.count:
		return damage(fmt.Sprintf("its checkpoint follows record line %d but segment %d ends at line %d (it was cut or changed)",
			s.cp.Lines, prev.num, prev.cp.Lines+prev.count))
	case !prev.legacy && s.cp.Prev != fmt.Sprintf("%08x", prev.sum):
		return damage(fmt.Sprintf("its checkpoint does not continue segment %d's last line (segment %d was cut or changed)", prev.num, prev.num))
	}
	return nil
}

// legacyID is the id of an older journal, whose file names none: made of
// its whole lines, which never change once it is segment 000000 (new
// lines go to the segments after it), so that every start, and the
// segments it is continued by, give it the same id.
func legacyID(whole []byte) string {
	sum := sha256.Sum256(whole)
	return "legacy-" + hex.EncodeToString(sum[:8])
}

// legacyLines reads the lines of an older journal (no checksums) as it
// was always read: line n of the file is lines[n-1], a blank line an empty
// entry, a line longer than record.MaxLineBytes kept cut, still longer,
// for the referee to refuse as bad_input as liarsd adjudicate does.
func legacyLines(data []byte) (lines [][]byte, offsets []int64) {
	_ = record.ReadLines(bytes.NewReader(data), func(num int, line []byte, tooLong bool) error {
		for len(lines) < num-1 { // the blank lines before this one
			lines = append(lines, []byte{})
		}
		l := append([]byte(nil), line...)
		if tooLong {
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
	// Blank lines at the end count too: the next line's number follows them.
	n := bytes.Count(data, []byte("\n"))
	for len(lines) < n {
		lines = append(lines, []byte{})
	}
	var off int64
	for len(offsets) < n {
		offsets = append(offsets, off)
		off += int64(bytes.IndexByte(data[off:], '\n') + 1)
	}
	return lines, offsets
}

// syncDir makes a directory's entries (a created, renamed or removed file)
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeSegment writes a new segment file holding its checkpoint line,
// atomically: a crash leaves the whole file or none.
func writeSegment(dir string, num int, line []byte, noSync bool) (string, error) {
	final := filepath.Join(dir, segmentName(num))
	tmp := filepath.Join(dir, "."+segmentName(num)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return "", err
	}
	_, err = f.Write(line)
	if err == nil && !noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil && !noSync {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return final, nil
}
