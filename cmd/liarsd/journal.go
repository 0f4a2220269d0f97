package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/mqtt"
)

func init() {
	register(command{
		name:    "journal",
		summary: "check a table's journal (check FILE|DIR), cut a damaged one at its first damaged line (repair --cut FILE|DIR), or start a new table (new DIR)",
		run:     runJournal,
	})
}

// exitDamaged is the exit status for a damaged journal: liarsd run
// refusing to start on one, liarsd journal check finding one.
const exitDamaged = 3

// now is the clock that names repair's backups (tests set it).
var now = time.Now

func journalUsage(w io.Writer) {
	fmt.Fprint(w, `usage: liarsd journal check [--watermark FILE] FILE|DIR
       liarsd journal repair [--cut] [--backup PATH] [--watermark FILE] FILE|DIR
       liarsd journal new [--watermark FILE] DIR

check reads every line of a journal (its directory, one segment's file, or an
older journal's file) and checks each line's checksum and each segment's
checkpoint, then the journal against the broker's watermark (the MQTT store's
watermark.json beside it, STATE_DIR/TABLE.mqtt, or --watermark): a journal
that published and is now gone, empty, another one or shorter is damaged.
liarsd run decides the same way. Exit status: 0 whole (a torn last line that
was never published, which a start drops, included), 3 damaged, 1 unreadable.

repair cuts a damaged journal at its first damaged line: that line and every
later one (later segments whole) are removed, after the whole journal is
copied to the backup. Without --cut it says what it would do and exits 1.
Lines whose effects were published cannot be brought back by cutting: restore
them from a backup, or start a new table. Stop the daemon first.

new starts a new table on purpose: it moves the journal and the watermark
aside (DIR.replaced-TIME, watermark.json.replaced-TIME), so that the next
liarsd run begins a new journal whose events count from seq 1 again.
Subscribers that skip the seqs they have seen must be told. Stop the daemon
first. See docs/referee.md.

flags:
`)
	fs, _, _, _ := repairFlags(io.Discard)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// repairFlags returns repair's flags (check's and new's are among them).
func repairFlags(stderr io.Writer) (fs *flag.FlagSet, cut *bool, backup, watermark *string) {
	fs = journalFlags("repair", stderr)
	cut = fs.Bool("cut", false, "repair: cut the journal at its first damaged line (without it, say what would be done)")
	backup = fs.String("backup", "", "repair: where the journal is copied first (default FILE|DIR.damaged-TIME)")
	watermark = watermarkFlag(fs)
	return fs, cut, backup, watermark
}

// watermarkFlag adds the flag naming the broker's watermark.
func watermarkFlag(fs *flag.FlagSet) *string {
	return fs.String("watermark", "", "the broker's watermark the journal is held against (default: STATE_DIR/TABLE.mqtt/watermark.json beside STATE_DIR/TABLE.journal, when there)")
}

func runJournal(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		journalUsage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		journalUsage(stderr) // as the flag package prints every subcommand's
		return 0
	case "check":
		return journalCheck(args[1:], stdout, stderr)
	case "repair":
		return journalRepair(args[1:], stdout, stderr)
	case "new":
		return journalNew(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		code, _ := parseFlags(journalFlags("", stderr), args) // names the flag
		return code
	}
	fmt.Fprintf(stderr, "liarsd journal: unknown step %q\n\n", args[0])
	journalUsage(stderr)
	return 2
}

func journalFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("journal "+name), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { journalUsage(stderr) }
	return fs
}

// watermarkBeside returns the watermark's file of the table whose journal
// is at path, by the state directory's layout: STATE_DIR/TABLE.journal and
// STATE_DIR/TABLE.mqtt/watermark.json (config.Config's JournalPath and
// MQTTStoreDir); "" when path is not named so.
func watermarkBeside(path string) string {
	path = filepath.Clean(path)
	if !strings.HasSuffix(path, ".journal") {
		return ""
	}
	return mqtt.WatermarkPath(strings.TrimSuffix(path, ".journal") + ".mqtt")
}

// published returns what the watermark the journal at path is held against
// says was published: the file named, or the one beside the journal when
// there. file is the watermark's file ("" for none).
func published(path, named string) (pub journal.Published, file string, err error) {
	file = named
	if file == "" {
		file = watermarkBeside(path)
		if _, err := os.Stat(file); file == "" || err != nil {
			return journal.Published{}, "", nil
		}
	}
	w, err := mqtt.ReadWatermarkFile(file)
	if err != nil {
		return journal.Published{}, file, err
	}
	return journal.Published{Journal: w.Journal, Seq: w.Seq, Lines: w.Lines, Source: file}, file, nil
}

// assess checks the journal at path against the watermark (named, or the
// one beside it) as a start does: every line, then what was published, the
// seq of its last event too (a replay of its record, as liarsd adjudicate
// gives it). It is liarsd journal check's verdict, and repair's.
func assess(path, named string) (journal.Report, journal.Published, error) {
	pub, _, err := published(path, named)
	if err != nil {
		return journal.Report{}, pub, err
	}
	rep, err := journal.CheckPublished(path, pub)
	if err != nil || rep.Damage != nil || pub.Seq <= 0 || rep.Missing > 0 {
		return rep, pub, err
	}
	seq, err := lastSeq(path)
	if err != nil {
		return rep, pub, err
	}
	rep.Damage = journal.Missing(rep, pub, seq)
	return rep, pub, nil
}

// lastSeq returns the seq of the last event of the journal at path: the
// number of events liarsd adjudicate gives for its record.
func lastSeq(path string) (int, error) {
	lines, err := journal.ReadRecord(path)
	if err != nil {
		return 0, err
	}
	var n lineCounter
	if err := record.Adjudicate(bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n')), &n); err != nil {
		return 0, err
	}
	return int(n), nil
}

// lineCounter counts the lines written to it.
type lineCounter int

func (c *lineCounter) Write(p []byte) (int, error) {
	*c += lineCounter(bytes.Count(p, []byte("\n")))
	return len(p), nil
}

func journalCheck(args []string, stdout, stderr io.Writer) int {
	fs := journalFlags("check", stderr)
	named := watermarkFlag(fs)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "want one journal, FILE or DIR, not %d arguments", fs.NArg())
	}
	rep, pub, err := assess(fs.Arg(0), *named)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd journal check: %v\n", err)
		return 1
	}
	if d := rep.Damage; d != nil {
		// The very words liarsd run refuses to start with.
		fmt.Fprintf(stdout, "DAMAGED: %s\n", strings.TrimPrefix(d.Error(), "journal: "))
		return exitDamaged
	}
	fmt.Fprintf(stdout, "%s: whole: %d record lines in %d segments, every checksum matching\n", rep.Path, rep.Lines, rep.Segments)
	if rep.Legacy {
		fmt.Fprintln(stdout, "it begins with an older journal's lines (segment 000000, or a file): they have no checksums to check")
	}
	if rep.Missing > 0 {
		fmt.Fprintf(stdout, "record lines 1 to %d are not here: the segments before %06d were removed (the table resumes; adjudicate and the scoreboard's records need them)\n", rep.Missing, rep.First)
	}
	switch {
	case pub.Source == "":
		fmt.Fprintln(stdout, "no broker's watermark beside it (--watermark names one): whether lines whose effects were published are missing is not checked")
	case !pub.Any():
		fmt.Fprintf(stdout, "the broker's watermark %s says nothing was published\n", pub.Source)
	default:
		fmt.Fprintf(stdout, "it holds what the broker's watermark %s says was published: events up to seq %d, the state after record line %d\n", pub.Source, pub.Seq, pub.Lines)
	}
	if rep.Torn > 0 {
		fmt.Fprintf(stdout, "its last line is torn (%d bytes, a power cut while writing): never published, a start drops it\n", rep.Torn)
	}
	return 0
}

func journalRepair(args []string, stdout, stderr io.Writer) int {
	fs, cut, backup, named := repairFlags(stderr)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "want one journal, FILE or DIR, not %d arguments", fs.NArg())
	}
	path := fs.Arg(0)
	if *backup == "" {
		*backup = path + ".damaged-" + now().UTC().Format("20060102T150405Z")
	}
	rep, _, err := assess(path, *named)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd journal repair: %v\n", err)
		return 1
	}
	d := rep.Damage
	if d == nil {
		fmt.Fprintf(stdout, "%s is whole: nothing to repair\n", path)
		return 0
	}
	if d.Published != nil {
		// Nothing to cut: what is missing was published.
		fmt.Fprintf(stdout, "cutting cannot repair it: %s\n", strings.TrimPrefix(d.Error(), "journal: "))
		return 1
	}
	if !*cut {
		fmt.Fprintf(stdout, "%s is damaged at line %d of %s (record line %d): %s\n", path, d.Line, d.File, d.Record, d.Reason)
		fmt.Fprintf(stdout, "liarsd journal repair --cut %s would copy it to %s, then cut it there: %d record lines kept, the rest removed\n", path, *backup, d.Good)
		return 1
	}
	done, err := journal.Repair(path, *backup)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd journal repair: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s copied to %s, then cut at line %d of %s (record line %d): %d record lines kept", path, done.Backup, d.Line, d.File, d.Record, done.Kept)
	if len(done.Removed) > 0 {
		fmt.Fprintf(stdout, ", %d later segments removed", len(done.Removed))
	}
	fmt.Fprintln(stdout)
	if after, _, err := assess(path, *named); err == nil && after.Damage != nil {
		// The lines cut had published effects: liarsd run refuses it.
		fmt.Fprintf(stdout, "liarsd run will refuse it: %s\n", strings.TrimPrefix(after.Damage.Error(), "journal: "))
	}
	return 0
}

// journalNew starts a new table on purpose: the journal and the broker's
// watermark are moved aside, so that the next start begins a new journal.
func journalNew(args []string, stdout, stderr io.Writer) int {
	fs := journalFlags("new", stderr)
	named := watermarkFlag(fs)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "want the table's journal, DIR, not %d arguments", fs.NArg())
	}
	path := filepath.Clean(fs.Arg(0))
	wm := *named
	if wm == "" {
		wm = watermarkBeside(path)
	}
	stamp := ".replaced-" + now().UTC().Format("20060102T150405Z")
	moved := 0
	for _, p := range []string{path, wm} {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.Rename(p, p+stamp); err != nil {
			fmt.Fprintf(stderr, "liarsd journal new: %v\n", err)
			return 1
		}
		syncDir(filepath.Dir(p))
		fmt.Fprintf(stdout, "%s moved to %s\n", p, p+stamp)
		moved++
	}
	if moved == 0 {
		fmt.Fprintf(stdout, "neither %s nor a watermark is there: the next start begins a new table anyway\n", path)
		return 0
	}
	fmt.Fprintln(stdout, "the next liarsd run starts a new table: a new journal, its events from seq 1 again (subscribers that skip seqs they have seen must be told)")
	return 0
}

// syncDir makes a rename in dir durable, as far as the system allows.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// journalExit is the exit status of a command that failed on err: 3 for a
// damaged journal, 1 otherwise.
func journalExit(err error) int {
	if errors.Is(err, journal.ErrDamaged) {
		return exitDamaged
	}
	return 1
}
