package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/homeassistant"
	"github.com/liarsd/liarsd/referee/scoreboard/web"
)

func init() {
	register(command{
		name:    "web",
		summary: "serve the scoreboard and venue dashboard (and Home Assistant discovery) for tables on a broker",
		run:     runWeb,
	})
}

func runWeb(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "a table's configuration file: its table, prefix, journal and broker")
	listen := fs.String("listen", web.DefaultListen, "HTTP address of the scoreboard and the venue dashboard")
	websocket := fs.String("websocket", "", "the broker's WebSocket address for browsers (ws://host:1884/, or host:port)")
	prefix := fs.String("prefix", homeassistant.DefaultPrefix, "topic prefix")
	table := fs.String("table", "", "the table the scoreboard's front page shows (?table=ID shows another)")
	journal := fs.String("journal", "", "the table's journal (its directory), for its history and game records")
	ha := fs.Bool("homeassistant", false, "publish Home Assistant discovery for the table (needs --broker or --config)")
	haRemove := fs.Bool("homeassistant-remove", false, "remove the table's Home Assistant device (its discovery configs) and exit")
	broker := fs.String("broker", "", "the broker's MQTT URL for Home Assistant discovery (tcp://host:1883)")
	user := fs.String("username", "", "broker user name")
	password := fs.String("password", "", "broker password")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd web [--config FILE | --websocket ADDR --table ID] [flags]\n\nServes the scoreboard (/), the venue dashboard (/venue) and the records of\nfinished games for tables on a broker, e.g. on a venue's server for many\ntables. liarsd run and liarsd demo serve the same pages themselves. See\ndocs/scoreboard.md.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	}
	if err := checkAddr(*listen); err != nil {
		return usageError(fs, stderr, "--listen %q: %v", *listen, err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s := web.Setup{Listen: *listen, Prefix: *prefix, Table: *table, WebSocket: *websocket, Journal: *journal,
		HomeAssistant: *ha, Broker: *broker, Username: *user, Password: *password, Logger: log}
	if *cfgPath != "" {
		c, err := config.Load(*cfgPath)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd web: %v\n", err)
			return 1
		}
		s = web.FromConfig(c, *listen, nil, log)
		s.HomeAssistant = *ha
		// Flags given on the command line win over the file's settings.
		fs.Visit(func(f *flag.Flag) {
			overrideSetup(&s, f.Name, web.Setup{Table: *table, Prefix: *prefix, Journal: *journal,
				WebSocket: *websocket, Broker: *broker, Username: *user, Password: *password})
		})
	}
	if s.Table == "" && (s.HomeAssistant || *haRemove) {
		return usageError(fs, stderr, "Home Assistant discovery needs --table or --config")
	}
	if (s.HomeAssistant || *haRemove) && s.Broker == "" {
		return usageError(fs, stderr, "Home Assistant discovery needs --broker or --config")
	}
	if *haRemove {
		err := homeassistant.RemoveAll(ctx, homeassistant.RunOptions{Options: homeassistant.Options{Prefix: s.Prefix, Table: s.Table},
			Broker: s.Broker, Username: s.Username, Password: s.Password,
			CAFile: s.CAFile, InsecureSkipVerify: s.InsecureSkipVerify, Logger: log})
		if err != nil {
			fmt.Fprintf(stderr, "liarsd web: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "liarsd web: table %q removed from Home Assistant\n", s.Table)
		return 0
	}
	w, err := web.Start(ctx, s)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd web: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "liarsd web: scoreboard at %s, all tables at %svenue\n", w.URL(), w.URL())
	<-ctx.Done()
	w.Close()
	return 0
}

// overrideSetup sets in s the setting of the flag named name, as given in
// flags, when that flag is one the configuration file also sets.
func overrideSetup(s *web.Setup, name string, flags web.Setup) {
	switch name {
	case "table":
		s.Table = flags.Table
	case "prefix":
		s.Prefix = flags.Prefix
	case "journal":
		s.Journal = flags.Journal
	case "websocket":
		s.WebSocket = flags.WebSocket
	case "broker":
		s.Broker, s.Username, s.Password = flags.Broker, flags.Username, flags.Password
	}
}
