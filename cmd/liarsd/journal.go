package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/liarsd/liarsd/referee/journal"
)

func init() {
	register(command{
		name:    "journal",
		summary: "check a table's journal (check FILE|DIR), or cut a damaged one at its first damaged line (repair --cut FILE|DIR)",
		run:     runJournal,
	})
}

// exitDamaged is the exit status for a damaged journal: liarsd run
// refusing to start on one, liarsd journal check finding one.
const exitDamaged = 3

// now is the clock that names repair's backups (tests set it).
var now = time.Now

func journalUsage(w io.Writer) {
	fmt.Fprint(w, `usage: liarsd journal check FILE|DIR
       liarsd journal repair [--cut] [--backup PATH] FILE|DIR

check reads every line of a journal (its directory, one segment's file, or an
older journal's file) and checks each line's checksum and each segment's
checkpoint. Exit status: 0 whole (a torn last line, which a start drops,
included), 3 damaged, 1 unreadable.

repair cuts a damaged journal at its first damaged line: that line and every
later one (later segments whole) are removed, after the whole journal is
copied to the backup. Without --cut it says what it would do and exits 1. Stop
the daemon first. See docs/referee.md.

repair's flags:
`)
	fs, _, _ := repairFlags(io.Discard)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// repairFlags returns repair's flags.
func repairFlags(stderr io.Writer) (fs *flag.FlagSet, cut *bool, backup *string) {
	fs = journalFlags("repair", stderr)
	cut = fs.Bool("cut", false, "cut the journal at its first damaged line (without it, say what would be done)")
	backup = fs.String("backup", "", "where the journal is copied first (default FILE|DIR.damaged-TIME)")
	return fs, cut, backup
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

func journalCheck(args []string, stdout, stderr io.Writer) int {
	fs := journalFlags("check", stderr)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "want one journal, FILE or DIR, not %d arguments", fs.NArg())
	}
	rep, err := journal.Check(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "liarsd journal check: %v\n", err)
		return 1
	}
	if rep.Damage != nil {
		fmt.Fprintf(stdout, "%s: DAMAGED: %d record lines whole, then line %d of %s (record line %d): %s\n",
			rep.Path, rep.Damage.Good, rep.Damage.Line, rep.Damage.File, rep.Damage.Record, rep.Damage.Reason)
		fmt.Fprintf(stdout, "restore it from a backup, or cut it there (a copy is kept): liarsd journal repair --cut %s\n", rep.Path)
		return exitDamaged
	}
	fmt.Fprintf(stdout, "%s: whole: %d record lines in %d segments, every checksum matching\n", rep.Path, rep.Lines, rep.Segments)
	if rep.Legacy {
		fmt.Fprintln(stdout, "it begins with an older journal's lines (segment 000000, or a file): they have no checksums to check")
	}
	if rep.Missing > 0 {
		fmt.Fprintf(stdout, "record lines 1 to %d are not here: the segments before %06d were removed (the table resumes; adjudicate and the scoreboard's records need them)\n", rep.Missing, rep.First)
	}
	if rep.Torn > 0 {
		fmt.Fprintf(stdout, "its last line is torn (%d bytes, a power cut while writing): never published, a start drops it\n", rep.Torn)
	}
	return 0
}

func journalRepair(args []string, stdout, stderr io.Writer) int {
	fs, cut, backup := repairFlags(stderr)
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
	rep, err := journal.Check(path)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd journal repair: %v\n", err)
		return 1
	}
	d := rep.Damage
	if d == nil {
		fmt.Fprintf(stdout, "%s is whole: nothing to repair\n", path)
		return 0
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
	fmt.Fprintln(stdout, "events of the lines cut may have been published: the daemon refuses to start while the broker's watermark names them (its message says how to go on)")
	return 0
}

// journalExit is the exit status of a command that failed on err: 3 for a
// damaged journal, 1 otherwise.
func journalExit(err error) int {
	if errors.Is(err, journal.ErrDamaged) {
		return exitDamaged
	}
	return 1
}
