package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/journal"
)

func init() {
	register(command{
		name:    "adjudicate",
		summary: "read a game record (FILE or -) and write the referee's events",
		run:     runAdjudicate,
	})
}

func runAdjudicate(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adjudicate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd adjudicate FILE|DIR|-\n\nReads a game record (JSON Lines, RECORD.md) and writes the referee's events\nto standard output. Refused lines are rejected events, not failures: the exit\ncode is 0 when the record was read to its end. A table's journal (its\ndirectory, or a segment file) is read whole, its checksums checked: exit 3\nwhen it is damaged.")
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "want one record, FILE or - (standard input), not %d arguments", fs.NArg())
	}
	in := stdin
	if name := fs.Arg(0); name != "-" && journal.IsJournal(name) {
		// A table's journal: its segments' record lines, checksums checked.
		lines, err := journal.ReadRecord(name)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd adjudicate: %v\n", err)
			return journalExit(err)
		}
		in = bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n'))
	} else if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd adjudicate: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd adjudicate: %v\n", err)
		return 1
	}
	if err := record.Adjudicate(bytes.NewReader(data), stdout); err != nil {
		fmt.Fprintf(stderr, "liarsd adjudicate: %v\n", err)
		return 1
	}
	if n, any := recordLines(data); n > 0 && !any {
		// Every line refused as bad input: most likely not a record at all.
		fmt.Fprintf(stderr, "liarsd adjudicate: %s: none of its %d lines is a record line (RECORD.md): each is a rejected event\n", fs.Arg(0), n)
	}
	return 0
}

// recordLines counts the non-blank lines of a record and says whether any
// of them decodes as a record line.
func recordLines(data []byte) (n int, any bool) {
	_ = record.ReadLines(bytes.NewReader(data), func(_ int, line []byte, tooLong bool) error {
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			return nil
		}
		n++
		if !tooLong && !any {
			_, err := record.Decode(line)
			any = err == nil
		}
		return nil
	})
	return n, any
}
