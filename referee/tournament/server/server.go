// Package server puts a tournament service together: its journal and
// state (service), its MQTT link to the venue's broker (link) and the
// organiser's page (organiser). liarsd tournament hands over to Run.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/liarsd/liarsd/referee/tournament/link"
	"github.com/liarsd/liarsd/referee/tournament/organiser"
	"github.com/liarsd/liarsd/referee/tournament/service"
)

// DefaultListen is where the organiser's page is served.
const DefaultListen = ":8090"

// Options configure a tournament service.
type Options struct {
	// Name is the tournament's id (1 to 64 letters, digits, - and _).
	Name string
	// StateDir holds the journal, <StateDir>/<Name>.tournament, unless
	// Journal names it.
	StateDir, Journal string
	// Broker is the venue broker's URL, with its login and TLS settings.
	Broker, Username, Password string
	CAFile                     string
	InsecureSkipVerify         bool
	Prefix                     string
	// Listen is the organiser page's address (DefaultListen); "off" for
	// none.
	Listen string
	// Users are the accounts that may log in to the organiser's page,
	// needed when Listen is beyond loopback.
	Users map[string]string
	// NoSync skips the journal's fsync (tests only).
	NoSync bool
	Logger *slog.Logger
	// Now is the clock (time.Now).
	Now func() time.Time
	// Started is called with the organiser page's address ("" when off)
	// once the service runs, and the service itself.
	Started func(url string, s *service.Service)
}

// JournalPath returns where the journal of o lives.
func (o Options) JournalPath() string {
	if o.Journal != "" {
		return o.Journal
	}
	return filepath.Join(o.StateDir, o.Name+".tournament")
}

// Run serves the tournament until ctx is done.
func Run(ctx context.Context, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if !link.ValidName(o.Name) {
		return fmt.Errorf("server: tournament name %q: 1 to 64 letters, digits, - and _", o.Name)
	}
	if o.Journal == "" && o.StateDir == "" {
		return errors.New("server: no state directory for the journal")
	}
	var ln net.Listener
	if o.Listen != "off" {
		var err error
		if ln, err = net.Listen("tcp", o.Listen); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		defer ln.Close()
		if !loopback(ln.Addr()) && len(o.Users) == 0 {
			return fmt.Errorf("server: the organiser's page listens beyond loopback (%s) and names no users: give it users (--users), or listen on 127.0.0.1", ln.Addr())
		}
	}
	lk, err := link.Dial(link.Options{Broker: o.Broker, Username: o.Username, Password: o.Password, CAFile: o.CAFile,
		InsecureSkipVerify: o.InsecureSkipVerify, Prefix: o.Prefix, Name: o.Name, Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	defer lk.Close(3 * time.Second)
	s, err := service.New(service.Config{Name: o.Name, Journal: o.JournalPath(), NoSync: o.NoSync, Link: lk, Prefix: o.Prefix,
		Now: o.Now, Logger: o.Logger})
	if err != nil {
		return err
	}
	url := ""
	if ln != nil {
		srv := &http.Server{
			Handler:           organiser.Handler(organiser.Options{Tournament: s, Name: o.Name, Login: !loopback(ln.Addr()), Users: o.Users, Logger: o.Logger}),
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
		}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				o.Logger.Error("server: serving the organiser's page", "err", err)
			}
		}()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		url = "http://" + ln.Addr().String() + "/"
		o.Logger.Info("server: the organiser's page", "url", url)
	}
	if o.Started != nil {
		o.Started(url, s)
	}
	return s.Run(ctx)
}

func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
