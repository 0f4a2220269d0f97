package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/fleet"
	"github.com/liarsd/liarsd/referee/mqtt"
)

func init() {
	register(command{
		name:    "fleet",
		summary: "run many simulated tables (real referees with computer seats) in one process against a broker",
		run:     runFleet,
	})
}

// tableBrokers is --table-broker, given once per table: TABLE=URL.
type tableBrokers map[string]string

func (t tableBrokers) String() string { return "" }

func (t tableBrokers) Set(v string) error {
	table, url, ok := strings.Cut(v, "=")
	if !ok || table == "" || url == "" {
		return fmt.Errorf("%q: write TABLE=URL (t001=tcp://127.0.0.1:1893)", v)
	}
	t[table] = url
	return nil
}

func runFleet(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("tables", 10, "how many tables")
	prefix := fs.String("table-prefix", "t", "the tables' ids: this and a number (t001, t002, ...)")
	broker := fs.String("broker", "tcp://127.0.0.1:1883", "the broker every table uses")
	user := fs.String("username", "", "broker user name")
	password := fs.String("password", "", "broker password")
	brokers := tableBrokers{}
	fs.Var(brokers, "table-broker", "TABLE=URL: that table's own broker (bridged to the venue's); once per table")
	topicPrefix := fs.String("prefix", mqtt.DefaultPrefix, "topic prefix")
	stateDir := fs.String("state-dir", "", "where each table keeps its journal (TABLE.journal) and MQTT store (required)")
	pace := fs.Duration("pace", referee.DefaultComputerPace, "the pause before a computer seat acts")
	rules := fs.String("rules", "common-hand", "what a new_game that names no rules plays")
	board := fs.Bool("board", false, "give each table the simulated board (its frames discarded)")
	noSync := fs.Bool("no-sync", false, "skip each journal line's fsync (throwaway journals only)")
	verbose := fs.Bool("v", false, "log the referees' work (info level)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd fleet --state-dir DIR [--tables N] [--broker URL] [flags]\n\nRuns N simulated tables in one process, each a real referee with its own\njournal, MQTT store and client id (liarsd-TABLE), its seats computer players\nplaying at --pace: a tournament's new_game names them. Until interrupted.\nSee docs/venue.md.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	}
	if *n < 1 || *n > 10000 {
		return usageError(fs, stderr, "--tables %d: 1 to 10000", *n)
	}
	if *stateDir == "" {
		return usageError(fs, stderr, "--state-dir is required: the tables' journals are kept there")
	}
	if *pace < 0 {
		return usageError(fs, stderr, "--pace %s: not negative", *pace)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	o := fleet.Options{Tables: fleet.Names(*prefix, *n), Broker: *broker, Username: *user, Password: *password, Brokers: brokers,
		Prefix: *topicPrefix, StateDir: *stateDir, Rules: *rules, Pace: *pace, NoSync: *noSync, Board: *board,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	if _, err := fleet.Configs(o); err != nil {
		return usageError(fs, stderr, "%v", err)
	}
	start := time.Now()
	o.Ready = func() {
		fmt.Fprintf(stdout, "liarsd fleet: %d tables ready in %s (%s ... %s) on %s\n", *n, time.Since(start).Round(time.Millisecond), o.Tables[0], o.Tables[len(o.Tables)-1], *broker)
	}
	if err := fleet.Run(ctx, o); err != nil {
		fmt.Fprintf(stderr, "liarsd fleet: %v\n", err)
		return 1
	}
	return 0
}
