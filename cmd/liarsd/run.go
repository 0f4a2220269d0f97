package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/scoreboard/web"
)

func init() {
	register(command{
		name:    "run",
		summary: "referee a table: camera, board, journal and MQTT, from the configuration file",
		run:     runRun,
	})
}

// defaultConfig is the file liarsd run reads without --config (tests
// point it elsewhere).
var defaultConfig = config.DefaultPath

func runRun(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", defaultConfig, "configuration file (YAML); where the default file does not exist, the defaults")
	check := fs.Bool("check", false, "validate the configuration and exit")
	broker := fs.String("broker", "", "external broker URL (tcp://host:1883, ssl://..., ws://...); overrides the file")
	httpAddr := fs.String("http", web.DefaultListen, `address of the scoreboard, the venue dashboard and /metrics ("off": none)`)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd run [--config FILE] [--broker URL] [--check]\n\nReferees one table until interrupted. Without a broker in the file or\n--broker, an embedded broker listens on loopback. See docs/configuration.md.\nExit status 3: the journal is damaged, or lost lines whose effects were\npublished (the message names the line and the way out; see liarsd journal).")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	}
	c, defaults, err := loadConfig(*path, fs)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd run: %v\n", err)
		return 1
	}
	if *broker != "" {
		c.Broker.URL = *broker
		if err := c.Validate(); err != nil {
			fmt.Fprintf(stderr, "liarsd run: %v\n", err)
			return 1
		}
	}
	if *check {
		what := *path + " is valid"
		if defaults {
			// Intended (docs/configuration.md): a table with nothing
			// configured runs on the defaults. Say so rather than call a
			// file that is not there valid.
			what = *path + " does not exist: liarsd run uses the defaults"
		}
		fmt.Fprintf(stdout, "liarsd run: %s: table %q, %s, %d seats, journal %s, broker %s\n",
			what, c.Table, c.Rules, len(c.Seats), c.JournalPath(), brokerName(c))
		return 0
	}
	log := newLogger(stderr, c.Log)
	for _, t := range tuned {
		log.Info("liarsd run: memory and threads", "setting", t.String())
	}
	if err := daemon.Run(ctx, c, daemon.Options{Logger: log, SimOutput: stdout, HTTP: *httpAddr}); err != nil {
		// Also logged, for a journal read by log collectors only.
		log.Error("liarsd run: the daemon stopped", "err", err)
		fmt.Fprintf(stderr, "liarsd run: %v\n", err)
		return journalExit(err) // 3: the journal is damaged
	}
	return 0
}

// loadConfig reads the file; a missing default file means the defaults,
// and defaults says so. A missing file named by --config is an error.
func loadConfig(path string, fs *flag.FlagSet) (c config.Config, defaults bool, err error) {
	explicit := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "config" {
			explicit = true
		}
	})
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && !explicit {
		c := config.Default()
		return c, true, c.Validate()
	}
	c, err = config.Load(path)
	return c, false, err
}

func brokerName(c config.Config) string {
	if c.Broker.URL != "" {
		return c.Broker.URL
	}
	return "embedded on " + c.Broker.Embedded.Listen
}

func newLogger(w io.Writer, l config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(l.Level))
	opts := &slog.HandlerOptions{Level: level}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
