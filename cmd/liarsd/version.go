package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/liarsd/liarsd/referee/buildinfo"
)

func init() {
	register(command{
		name:    "version",
		summary: "print liarsd's version, revision, build date, and Go and OpenCV versions",
		run:     runVersion,
	})
}

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	short := fs.Bool("short", false, "print the version alone (as the Debian package and Home Assistant show it)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd version [-short]\n\nPrints liarsd's version, the VCS revision it was built from, the commit's and\nthe build's dates, and the Go and OpenCV versions it runs with.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q (version takes none)", fs.Arg(0))
	}
	i := buildinfo.Get()
	if *short {
		fmt.Fprintln(stdout, i.Version)
		return 0
	}
	or := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	fmt.Fprintf(stdout, "liarsd %s\nrevision %s", i.Version, or(i.Revision))
	if i.Modified {
		fmt.Fprint(stdout, " (with uncommitted changes)")
	}
	fmt.Fprintf(stdout, "\ncommitted %s\nbuilt %s\n%s\nOpenCV %s (gocv %s)\n", or(i.Commit), or(i.Built), i.Go, i.OpenCV, i.GoCV)
	return 0
}
