package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/liarsd/liarsd/engine/record"
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
		fmt.Fprintln(stderr, "usage: liarsd adjudicate FILE|-\n\nReads a game record (JSON Lines, RECORD.md) and writes the referee's events\nto standard output. Refused lines are rejected events, not failures: the exit\ncode is 0 when the record was read to its end.")
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "want one record, FILE or - (standard input), not %d arguments", fs.NArg())
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd adjudicate: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	if err := record.Adjudicate(in, stdout); err != nil {
		fmt.Fprintf(stderr, "liarsd adjudicate: %v\n", err)
		return 1
	}
	return 0
}
