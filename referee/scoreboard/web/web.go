// Package web runs a table's web side: the scoreboard and the venue
// dashboard over HTTP, /metrics, and Home Assistant discovery. liarsd run
// and liarsd demo start it beside the referee once the broker is up;
// liarsd web runs it on its own.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/homeassistant"
	"github.com/liarsd/liarsd/referee/metrics"
	"github.com/liarsd/liarsd/referee/scoreboard"
)

// DefaultListen is where the scoreboard, the venue dashboard and /metrics
// are served.
const DefaultListen = ":8080"

// Setup is what the web side of a table needs.
type Setup struct {
	// Listen is the HTTP address (:8080); "" or "off" serves nothing.
	Listen string
	Prefix string
	Table  string
	// WebSocket is the broker's WebSocket address for browsers (the
	// embedded broker's websocket setting, or a ws:// or wss:// URL: an
	// external broker's broker.websocket).
	WebSocket string
	// Journal is the table's journal, its directory ("" for no history or
	// records).
	Journal string
	// Metrics, when set, are served at /metrics.
	Metrics *metrics.Metrics
	// HomeAssistant runs MQTT discovery for the table against Broker.
	HomeAssistant      bool
	Broker             string
	Username, Password string
	// CAFile and InsecureSkipVerify are the broker's TLS settings
	// (broker.ca_file, broker.insecure_skip_verify), for discovery.
	CAFile             string
	InsecureSkipVerify bool
	// PublicURL is where phones and Home Assistant open the pages
	// (web.public_url); empty: found from the listener (PageURL).
	PublicURL string
	Logger    *slog.Logger
	// Reads gives the operator page the camera's reads (the referee);
	// nil for none.
	Reads scoreboard.Reads
	// Users are the accounts that may send commands: the operator page's
	// login whenever Listen is beyond loopback.
	Users map[string]string
}

// FromConfig is the web side of the table a configuration describes:
// its topics, its journal, and its broker: an external one with its login,
// its TLS settings and the WebSocket address browsers reach it at
// (broker.websocket), or the embedded one reached on loopback, with one of
// its configured users when it is exposed, and its WebSocket listener.
func FromConfig(c config.Config, listen string, m *metrics.Metrics, log *slog.Logger) Setup {
	s := Setup{Listen: listen, Prefix: c.Broker.Prefix, Table: c.Table, Journal: c.JournalPath(), Metrics: m, Logger: log,
		Broker: c.Broker.URL, Username: c.Broker.Username, Password: c.Broker.Password, Users: c.Broker.Embedded.Users,
		WebSocket: c.Broker.WebSocket, CAFile: c.Broker.CAFile, InsecureSkipVerify: c.Broker.InsecureSkipVerify,
		PublicURL: c.Web.PublicURL}
	if c.Broker.URL == "" {
		s.WebSocket, s.CAFile, s.InsecureSkipVerify = "", "", false
		if c.Broker.Embedded.WebSocket != "off" {
			s.WebSocket = c.Broker.Embedded.WebSocket
		}
		s.Broker = "tcp://" + c.Broker.Embedded.Listen
		if host, port, err := net.SplitHostPort(c.Broker.Embedded.Listen); err == nil {
			if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
				s.Broker = "tcp://" + net.JoinHostPort("127.0.0.1", port)
			}
		}
		for u, p := range c.Broker.Embedded.Users {
			s.Username, s.Password = u, p
			break
		}
	}
	return s
}

// Server is a running web side.
type Server struct {
	// Addr is the HTTP listener's address ("" when off).
	Addr      string
	publicURL string
	srv       *http.Server
	wg        sync.WaitGroup
	stop      context.CancelFunc
}

// URL returns the scoreboard's address as a person types it: the
// machine's host name when listening on every address; "" when off.
func (w *Server) URL() string {
	if w.Addr == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(w.Addr)
	if err != nil {
		return "http://" + w.Addr + "/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// PageURL returns the table page's address for phones and Home
// Assistant: the public URL when one is set, else the machine's address
// on the network (scoreboard.LANURL); "" when the pages are off or only
// this machine can reach them.
func (w *Server) PageURL() string {
	if w.publicURL != "" {
		return w.publicURL
	}
	if w.Addr == "" {
		return ""
	}
	return scoreboard.LANURL(w.Addr)
}

// Start listens and serves until Close or ctx is done. It returns once the
// listener is up, so that the address can be printed.
func Start(ctx context.Context, s Setup) (*Server, error) {
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	log := s.Logger.With("component", "web")
	if s.HomeAssistant && (s.Broker == "" || s.Table == "") {
		return nil, errors.New("web: Home Assistant discovery needs a broker and a table")
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Server{stop: cancel, publicURL: s.PublicURL}
	if s.Listen != "" && s.Listen != "off" {
		var journal scoreboard.Journal
		if s.Journal != "" {
			journal = scoreboard.JournalFile(s.Journal)
		}
		mux := http.NewServeMux()
		if s.Metrics != nil {
			mux.Handle("GET /metrics", s.Metrics.Handler())
		}
		ln, err := net.Listen("tcp", s.Listen)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("web: %w", err)
		}
		w.Addr = ln.Addr().String()
		mux.Handle("/", scoreboard.Handler(scoreboard.Options{
			Prefix: s.Prefix, Table: s.Table, WebSocket: s.WebSocket, Journal: journal, Logger: log,
			PublicURL: s.PublicURL, HostURL: scoreboard.LANURL(w.Addr),
			Reads: s.Reads, Users: s.Users, Login: !loopbackAddr(ln.Addr()),
		}))
		w.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			if err := w.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("web: serving", "err", err)
			}
		}()
		if s.WebSocket == "" {
			log.Warn("web: the broker has no WebSocket listener for browsers: the pages cannot follow the table (broker.embedded.websocket, or broker.websocket for an external broker)")
		}
		log.Info("web: scoreboard", "url", w.URL(), "venue", w.URL()+"venue", "broker_websocket", s.WebSocket)
	}
	if s.HomeAssistant {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			err := homeassistant.Run(ctx, homeassistant.RunOptions{
				Options: homeassistant.Options{Prefix: s.Prefix, Table: s.Table, ConfigurationURL: w.PageURL()},
				Broker:  s.Broker, Username: s.Username, Password: s.Password,
				CAFile: s.CAFile, InsecureSkipVerify: s.InsecureSkipVerify, Logger: s.Logger,
			})
			if err != nil {
				log.Error("web: home assistant discovery", "err", err)
			}
		}()
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		<-ctx.Done()
		if w.srv != nil {
			sctx, c := context.WithTimeout(context.Background(), 2*time.Second)
			defer c()
			_ = w.srv.Shutdown(sctx)
		}
	}()
	return w, nil
}

// Close stops serving and waits for it.
func (w *Server) Close() {
	w.stop()
	w.wg.Wait()
}

// loopbackAddr reports whether a listener's address is on loopback only.
func loopbackAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
