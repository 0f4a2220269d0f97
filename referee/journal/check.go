package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Report is what Check found in a journal.
type Report struct {
	// Path is the journal's path; Segments the segment files read whole
	// and First the first one's number.
	Path     string
	Segments int
	First    int
	// Lines is the number of record lines read whole, up to any damage.
	Lines int
	// Legacy says the journal begins with an older journal's lines,
	// which have no checksums (segment 000000, or a file).
	Legacy bool
	// Torn is the length of a torn last line, which a start leaves out.
	Torn int
	// Missing is the number of record lines before the first segment:
	// earlier segments were removed (the table resumes, but the journal no
	// longer holds its whole record).
	Missing int
	// ID is the journal's id (its last segment's checkpoint's; an older
	// journal's is made of its lines). Last is its last segment's file and
	// LastLines that file's whole lines, its checkpoint included.
	ID        string
	Last      string
	LastLines int
	// Damage is the first damage found, or nil.
	Damage *DamageError
}

// Check reads every line of the journal at path (a journal's directory,
// one segment's file, or an older journal's file) and checks it. The error
// is for a journal that cannot be read; damage is in the report. It is
// CheckPublished with nothing known published.
func Check(path string) (Report, error) { return CheckPublished(path, Published{}) }

// CheckPublished checks the journal at path as Check does, and then
// against pub, what the broker's watermark says was published (Missing):
// a journal that published and is now gone, empty, another one or shorter
// is damaged. A start (Open) decides the same way: what liarsd journal
// check calls damage, liarsd run refuses to start on.
func CheckPublished(path string, pub Published) (Report, error) {
	_, rep, err := scan(path, false)
	if err != nil {
		if pub.Any() && gone(path) {
			rep = Report{Path: path}
			rep.Damage = Missing(rep, pub, -1)
			return rep, nil
		}
		return rep, err
	}
	if rep.Damage == nil {
		rep.Damage = Missing(rep, pub, -1)
	}
	if rep.Damage == nil && rep.Segments == 0 {
		return rep, fmt.Errorf("journal: %s holds no journal segment (000001.journal, ...)", path)
	}
	return rep, nil
}

// gone says whether nothing is at path, or a directory without segments.
func gone(path string) bool {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil || !st.IsDir() {
		return false
	}
	nums, err := listSegments(path)
	return err == nil && len(nums) == 0
}

// Any says whether p says anything was published.
func (p Published) Any() bool { return p.Seq > 0 || p.Lines > 0 }

// Missing decides whether the journal rep describes (what a check or a
// start read: its whole lines, up to any damage) still holds what pub says
// was published, and returns the damage of one that does not: it is gone
// (no segment, or none with a line of its own), it is another journal
// than the one pub names, it ends before the record line whose state the
// broker acknowledged (cut, or its last line torn after it was
// published), or, when seq (the seq of its last event, as a replay tells
// it; -1 for not known) is less than pub's, its events end before the
// last one acknowledged. Subscribers have seen those lines' effects:
// starting on such a journal would publish other events under their seqs.
// It returns nil when nothing is missing, or pub says nothing was
// published.
func Missing(rep Report, pub Published, seq int) *DamageError {
	if !pub.Any() {
		return nil
	}
	d := &DamageError{Journal: rep.Path, File: rep.Path, Line: 1, Record: rep.Lines + 1, Good: rep.Lines, Published: &pub}
	if rep.Last != "" {
		d.File, d.Line = rep.Last, rep.LastLines+1
	}
	switch {
	case rep.Segments == 0:
		d.Reason = "it is gone: there is no journal there, or no segment holding a whole line"
	case rep.Lines == 0 && pub.Journal != "" && rep.ID != pub.Journal:
		d.Reason = fmt.Sprintf("it is gone: an empty journal (%s) is in its place", rep.ID)
	case pub.Journal != "" && rep.ID != pub.Journal:
		d.Reason = fmt.Sprintf("it is another journal (%s, %d record lines) than the one published", rep.ID, rep.Lines)
	case rep.Lines < pub.Lines && rep.Torn > 0:
		d.Reason = fmt.Sprintf("it ends at record line %d, the next (line %d of %s) cut short (%d bytes)", rep.Lines, d.Line, d.File, rep.Torn)
	case rep.Lines < pub.Lines:
		d.Reason = fmt.Sprintf("it ends at record line %d", rep.Lines)
	case seq >= 0 && seq < pub.Seq:
		d.Reason = fmt.Sprintf("its events end at seq %d (record line %d)", seq, rep.Lines)
	default:
		return nil
	}
	return d
}

// ReadRecord returns every record line of the journal at path, oldest
// first, blank lines as empty entries: liarsd adjudicate's input. A torn
// last line is left out. Damage is a *DamageError; a journal whose first
// segments are missing is an error too.
func ReadRecord(path string) ([][]byte, error) {
	segs, rep, err := scan(path, true)
	if err != nil {
		return nil, err
	}
	if rep.Damage != nil {
		return nil, rep.Damage
	}
	if rep.Segments == 0 {
		return nil, fmt.Errorf("journal: %s holds no journal segment (000001.journal, ...)", path)
	}
	if rep.Missing > 0 {
		return nil, fmt.Errorf("journal: %s begins at record line %d: the segments before %s are missing", path, rep.Missing+1, segmentName(rep.First))
	}
	var lines [][]byte
	for _, s := range segs {
		lines = append(lines, s.lines...)
	}
	return lines, nil
}

// IsJournal says whether path is a journal in the segmented form: a
// directory, or a segment's file. Anything else is read as a record.
func IsJournal(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.IsDir() {
		return true
	}
	line, _, err := readFirstLine(path)
	return err == nil && looksSegment(line)
}

// scan reads and checks every segment of the journal at path, stopping at
// the first damage. keep keeps each segment's lines; without it only
// their count is kept, so that a long journal is checked a segment at a
// time. A directory without segments is a report of none.
func scan(path string, keep bool) ([]*segment, Report, error) {
	rep := Report{Path: path}
	st, err := os.Stat(path)
	if err != nil {
		return nil, rep, fmt.Errorf("journal: %w", err)
	}
	if !st.IsDir() {
		return scanFile(path, rep)
	}
	nums, err := listSegments(path)
	if err != nil {
		return nil, rep, err
	}
	var segs []*segment
	for i, n := range nums {
		last := i == len(nums)-1
		s, err := readSegment(path, filepath.Join(path, segmentName(n)), n, last)
		var d *DamageError
		if errors.As(err, &d) {
			rep.Damage = d
			break
		}
		if err != nil {
			return nil, rep, err
		}
		if !s.legacy && s.size == 0 {
			if last {
				rep.Torn = len(s.torn) // a torn last segment: a start drops it
				break
			}
			n := 0
			if len(segs) > 0 {
				p := segs[len(segs)-1]
				n = p.cp.Lines + p.count
			}
			rep.Damage = &DamageError{Journal: path, File: s.path, Line: 1, Record: n + 1, Good: n, Reason: "the segment holds no whole line and is not the journal's last", segment: s.num}
			break
		}
		if len(segs) > 0 {
			if err := follows(path, segs[len(segs)-1], s); err != nil {
				rep.Damage = err.(*DamageError)
				break
			}
		}
		if !keep {
			s.lines, s.offsets = nil, nil
		}
		segs = append(segs, s)
		if last {
			rep.Torn = len(s.torn)
		}
	}
	return segs, summarize(rep, segs), nil
}

// scanFile reads a journal that is one file: one segment, or an older
// journal's lines.
func scanFile(path string, rep Report) ([]*segment, Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, rep, fmt.Errorf("journal: %w", err)
	}
	num := legacySegment
	first := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		first = data[:i]
	}
	if looksSegment(first) {
		cp, _, why := parseCheckpoint(first)
		if why != "" {
			rep.Damage = &DamageError{Journal: path, File: path, Line: 1, Reason: why}
			return nil, rep, nil
		}
		num = cp.Segment
	}
	s, err := parseSegment(path, path, num, true, data)
	var d *DamageError
	if errors.As(err, &d) {
		rep.Damage = d
		return nil, rep, nil
	}
	if err != nil {
		return nil, rep, err
	}
	rep.Torn = len(s.torn)
	return []*segment{s}, summarize(rep, []*segment{s}), nil
}

func summarize(rep Report, segs []*segment) Report {
	rep.Segments = len(segs)
	if len(segs) == 0 {
		return rep
	}
	rep.First = segs[0].num
	rep.Legacy = segs[0].legacy
	rep.Missing = segs[0].cp.Lines
	last := segs[len(segs)-1]
	rep.Lines = last.cp.Lines + last.count
	rep.ID, rep.Last, rep.LastLines = last.cp.ID, last.path, last.count
	if !last.legacy {
		rep.LastLines++ // its checkpoint
	}
	return rep
}

// Repaired is what Repair did.
type Repaired struct {
	// Damage is where the journal was cut (nil: it was not damaged, and
	// nothing was done).
	Damage *DamageError
	// Backup is the copy of the journal as it was.
	Backup string
	// Kept is the number of record lines kept; Removed the segment files
	// removed whole (the damaged one's lines before the damage are kept).
	Kept    int
	Removed []string
}

// Repair cuts the journal at path at its first damaged line: that line
// and every one after it are removed (whole segments after the damaged
// one). It first copies the journal as it was to backup, which must not
// exist. A journal without damage is left alone. The daemon must not be
// running.
func Repair(path, backup string) (Repaired, error) {
	rep, err := Check(path)
	if err != nil {
		return Repaired{}, err
	}
	if rep.Damage == nil {
		return Repaired{}, nil
	}
	d := rep.Damage
	out := Repaired{Damage: d, Backup: backup, Kept: d.Good}
	if err := copyJournal(path, backup); err != nil {
		return Repaired{}, fmt.Errorf("journal: backing up %s: %w", path, err)
	}
	if d.File == path { // one file
		if err := cutFile(path, d.offset); err != nil {
			return Repaired{}, err
		}
		return out, nil
	}
	nums, err := listSegments(path)
	if err != nil {
		return Repaired{}, err
	}
	for _, n := range nums {
		file := filepath.Join(path, segmentName(n))
		switch {
		case n < d.segment:
		case n == d.segment && d.Line > 1:
			if err := cutFile(file, d.offset); err != nil {
				return Repaired{}, err
			}
		default:
			if err := os.Remove(file); err != nil {
				return Repaired{}, fmt.Errorf("journal: %w", err)
			}
			out.Removed = append(out.Removed, file)
		}
	}
	if err := syncDir(path); err != nil {
		return Repaired{}, fmt.Errorf("journal: %w", err)
	}
	return out, nil
}

// cutFile truncates a file to size and syncs it.
func cutFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("journal: cutting %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// copyJournal copies a journal (a directory's files, or a file) to dst,
// which must not exist, and syncs the copy.
func copyJournal(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("%s exists", dst)
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return copyFile(src, dst)
	}
	if err := os.Mkdir(dst, 0o750); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return syncDir(dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
