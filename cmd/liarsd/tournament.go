package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/tournament/server"
	"github.com/liarsd/liarsd/referee/tournament/service"
)

func init() {
	register(command{
		name:    "tournament",
		summary: "run a tournament across a venue's tables (the organiser's page; tables' results from their events), or export one's results from its journal",
		run:     runTournament,
	})
}

func tournamentUsage(w io.Writer) {
	fmt.Fprint(w, `usage: liarsd tournament [serve] [flags]
       liarsd tournament export [--format json|standings|results] DIR

serve (the default) runs a tournament on the venue's broker: the organiser's
page (set up, register, start rounds, override, export), each game started
by its table's own new_game and its result taken from the table's events,
the tournament's state journaled in STATE_DIR/NAME.tournament. export
replays such a journal and prints the results: the standings and every
game (json), or one of them as CSV. Exit status 3: the journal is damaged.
See docs/venue.md.

serve's flags:
`)
	fs, _ := serveFlags(io.Discard)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

type serveSettings struct {
	name, stateDir, journal, broker, user, password, caFile, prefix, listen, users string
	verbose                                                                        bool
}

func serveFlags(stderr io.Writer) (*flag.FlagSet, *serveSettings) {
	fs := flag.NewFlagSet("tournament", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s := &serveSettings{}
	fs.StringVar(&s.name, "name", "tournament", "the tournament's id (letters, digits, - and _): its journal, topics and MQTT client id")
	fs.StringVar(&s.stateDir, "state-dir", "/var/lib/liarsd", "where the journal is kept (NAME.tournament)")
	fs.StringVar(&s.journal, "journal", "", "the journal's directory (default STATE_DIR/NAME.tournament)")
	fs.StringVar(&s.broker, "broker", "tcp://127.0.0.1:1883", "the venue broker's URL (tcp://, ssl://, ws://, wss://)")
	fs.StringVar(&s.user, "username", "", "broker user name")
	fs.StringVar(&s.password, "password", "", "broker password")
	fs.StringVar(&s.caFile, "ca-file", "", "PEM of the broker's certificate authority (ssl://, wss://)")
	fs.StringVar(&s.prefix, "prefix", mqtt.DefaultPrefix, "topic prefix")
	fs.StringVar(&s.listen, "listen", server.DefaultListen, `address of the organiser's page ("off": none)`)
	fs.StringVar(&s.users, "users", "", "a YAML file of the organiser page's accounts (name: password), needed beyond loopback")
	fs.BoolVar(&s.verbose, "v", false, "log at debug level")
	return fs, s
}

func runTournament(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			tournamentUsage(stderr)
			return 0
		case "serve":
			args = args[1:]
		case "export":
			return tournamentExport(args[1:], stdout, stderr)
		default:
			if !strings.HasPrefix(args[0], "-") {
				fmt.Fprintf(stderr, "liarsd tournament: unknown step %q\n\n", args[0])
				tournamentUsage(stderr)
				return 2
			}
		}
	}
	fs, s := serveFlags(stderr)
	fs.Usage = func() { tournamentUsage(stderr) }
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	}
	var users map[string]string
	if s.users != "" {
		var err error
		if users, err = readUsers(s.users); err != nil {
			return usageError(fs, stderr, "%v", err)
		}
	}
	level := slog.LevelInfo
	if s.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	err := server.Run(ctx, server.Options{Name: s.name, StateDir: s.stateDir, Journal: s.journal, Broker: s.broker,
		Username: s.user, Password: s.password, CAFile: s.caFile, Prefix: s.prefix, Listen: s.listen, Users: users, Logger: log,
		Started: func(url string, _ *service.Service) {
			if url != "" {
				fmt.Fprintf(stdout, "liarsd tournament: %s: the organiser's page at %s\n", s.name, url)
			}
		}})
	if err != nil {
		fmt.Fprintf(stderr, "liarsd tournament: %v\n", err)
		if errors.Is(err, journal.ErrDamaged) {
			return exitDamaged
		}
		return 1
	}
	return 0
}

// readUsers reads a YAML file of name: password.
func readUsers(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--users: %w", err)
	}
	var users map[string]string
	if err := yaml.Unmarshal(b, &users); err != nil {
		return nil, fmt.Errorf("--users: %s is not a YAML map of name: password: %w", path, err)
	}
	for name, pw := range users {
		if name == "" || pw == "" {
			return nil, fmt.Errorf("--users: %s: every account needs a name and a password", path)
		}
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("--users: %s names nobody", path)
	}
	return users, nil
}

func tournamentExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tournament export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "json", "json (standings and every game), standings (CSV) or results (CSV, a line a player of each game)")
	fs.Usage = func() { tournamentUsage(stderr) }
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs, stderr, "export reads one journal: liarsd tournament export DIR")
	}
	if *format != "json" && *format != "standings" && *format != "results" {
		return usageError(fs, stderr, "--format %q: json, standings or results", *format)
	}
	dir := fs.Arg(0)
	lines, err := journal.ReadRecord(dir)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd tournament export: %v\n", err)
		if errors.Is(err, journal.ErrDamaged) {
			return exitDamaged
		}
		return 1
	}
	name := strings.TrimSuffix(baseName(dir), ".tournament")
	t, err := service.Replay(name, lines)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd tournament export: %s: %v\n", dir, err)
		return exitDamaged
	}
	e := t.Export()
	switch *format {
	case "json":
		_, err = stdout.Write(e.JSON())
	case "standings":
		_, err = stdout.Write(e.StandingsCSV())
	case "results":
		_, err = stdout.Write(e.ResultsCSV())
	}
	if err != nil {
		return 1
	}
	return 0
}

func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
