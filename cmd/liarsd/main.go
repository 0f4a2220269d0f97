// Command liarsd referees Liar's Dice tables: it reads dice with a camera,
// applies the rules, lights the board and publishes every event on MQTT.
//
// Each subcommand lives in its own file and registers itself in init, so
// this file only dispatches.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/liarsd/liarsd/referee/tuning"
)

// command is one subcommand of liarsd.
type command struct {
	name    string
	summary string
	// run receives the arguments after the subcommand's name.
	run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// tuned is what tuning.Defaults set at the start (run logs it).
var tuned []tuning.Setting

// register adds a subcommand; each subcommand's file calls it from init.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("liarsd: subcommand registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	// Before anything runs OpenCV: glibc's arenas, OpenBLAS's threads.
	tuned = tuning.Defaults()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch runs the subcommand named by args[0] and returns the exit code:
// 0 when it did what was asked (help included), 1 when it failed, 2 on a
// usage error (no or an unknown subcommand, an unknown flag, a missing or
// stray argument, a flag's value refused before any work), 3 when a
// table's journal is damaged (journalExit).
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		if len(args) > 2 {
			fmt.Fprintln(stderr, "usage: liarsd help [SUBCOMMAND]")
			return 2
		}
		// liarsd help SUBCOMMAND (or -h SUBCOMMAND) is liarsd SUBCOMMAND -h.
		args = []string{args[1], "-h"}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "liarsd: unknown subcommand %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(ctx, args[1:], stdin, stdout, stderr)
}

// parseFlags parses a subcommand's flags. When done, the subcommand returns
// code at once: 0 after -h (its usage is printed), 2 after a usage error
// (the flag package has named it and printed the usage).
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	switch err := parseInterspersed(fs, args); {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	default:
		return 2, true
	}
}

// parseInterspersed parses args with fs, taking flags after arguments too
// (`liarsd read IMG --plain-dice`), as people type them; the standard
// library stops at the first argument. After "--" everything is an
// argument. fs.Args() then holds the arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...) // after "--": all arguments
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
}

// usageError names what is wrong with a subcommand's arguments, prints its
// usage, and returns 2.
func usageError(fs *flag.FlagSet, stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "liarsd %s: %s\n\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return 2
}

// checkAddr checks an address to listen on (host:port, the host an IP
// address, a name or empty for every interface; the port a number from 0
// to 65535) before anything starts: a bad one is a usage error.
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port (127.0.0.1:8080, :8080): %w", err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	if strings.ContainsAny(host, " /\\") {
		return fmt.Errorf("host %q is not a host name or an address", host)
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: liarsd SUBCOMMAND [flags] [args]")
	fmt.Fprintln(w, "\nsubcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'liarsd SUBCOMMAND -h' (or 'liarsd help SUBCOMMAND') for a subcommand's flags.")
	fmt.Fprintln(w, "Exit status: 0 done, 1 failed, 2 usage error (an unknown subcommand or flag,")
	fmt.Fprintln(w, "a missing or stray argument, a refused flag value), 3 a damaged journal")
	fmt.Fprintln(w, "(run, adjudicate, journal: docs/referee.md, Damage).")
}
