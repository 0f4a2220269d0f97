// Package fleet runs many simulated tables in one process against a
// broker, to drive a tournament (or any load) without people. Each table
// is a real referee, put together by daemon.Run as liarsd run puts one
// together: its own journal and MQTT store under the state directory, its
// own client id (liarsd-<table>), its events, state and replies on its own
// topics. Its seats are computer players: the tournament's new_game names
// them (the computer field), the referee rolls their dice from the game's
// seed and plays their turns at the fleet's pace, and a reveal of computer
// seats alone needs no camera. A table may have the simulated board (its
// frames discarded) and its own broker (a table's Mosquitto bridged to the
// venue's).
package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
)

// Options configure a fleet.
type Options struct {
	// Tables are the tables' ids.
	Tables []string
	// Broker is the broker's URL (tcp://127.0.0.1:1883), with its login.
	Broker, Username, Password string
	// Brokers gives a table a broker of its own (its Mosquitto, bridged to
	// the venue's), by table id.
	Brokers map[string]string
	// Prefix is the topics' first level (liarsdice).
	Prefix string
	// StateDir holds each table's journal (<table>.journal) and MQTT store
	// (<table>.mqtt), as a table's state_dir does.
	StateDir string
	// Rules is what a new_game that names none plays (common-hand).
	Rules string
	// Pace is the pause before a computer seat acts
	// (referee.DefaultComputerPace).
	Pace time.Duration
	// NoSync skips each journal line's fsync (throwaway journals only).
	NoSync bool
	// Board gives each table the simulated board, its frames discarded.
	Board bool
	// Logger receives the tables' logs, each with its table.
	Logger *slog.Logger
	// Ready is called once every table has connected to its broker (or
	// given up waiting for it).
	Ready func()
}

var tableID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Names returns n table ids: prefix and a number, zero-padded to the
// width of n (t001 ... t200).
func Names(prefix string, n int) []string {
	w := len(fmt.Sprint(n))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%0*d", prefix, w, i+1)
	}
	return out
}

// Configs returns each table's configuration, checked as liarsd run
// checks a file.
func Configs(o Options) ([]config.Config, error) {
	if len(o.Tables) == 0 {
		return nil, errors.New("fleet: no tables")
	}
	if o.Broker == "" {
		return nil, errors.New("fleet: no broker: the tables share one (--broker tcp://host:1883)")
	}
	if o.StateDir == "" {
		return nil, errors.New("fleet: no state directory")
	}
	seen := map[string]bool{}
	off := false
	var out []config.Config
	for _, id := range o.Tables {
		if !tableID.MatchString(id) {
			return nil, fmt.Errorf("fleet: table %q: a table id is 1 to 64 letters, digits, - and _", id)
		}
		if seen[id] {
			return nil, fmt.Errorf("fleet: table %s is named twice", id)
		}
		seen[id] = true
		c := config.Default()
		c.Table, c.StateDir = id, o.StateDir
		if o.Rules != "" {
			c.Rules = o.Rules
		} else {
			c.Rules = "common-hand"
		}
		c.Broker.URL, c.Broker.Username, c.Broker.Password = o.Broker, o.Username, o.Password
		if b, ok := o.Brokers[id]; ok {
			c.Broker.URL = b
		}
		if o.Prefix != "" {
			c.Broker.Prefix = o.Prefix
		}
		c.Broker.HomeAssistant = &off
		if o.Board {
			c.Board = &hardware.Config{Driver: hardware.DriverSim, Seats: []string{"seat1", "seat2", "seat3", "seat4", "seat5", "seat6"},
				Track: hardware.TrackConfig{NumberSpaces: 30}}
		}
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("fleet: table %s: %w", id, err)
		}
		out = append(out, c)
	}
	for id := range o.Brokers {
		if !seen[id] {
			return nil, fmt.Errorf("fleet: a broker is given for table %s, which is not one of the fleet's", id)
		}
	}
	return out, nil
}

// Run runs the tables until ctx is done, then stops each cleanly. A table
// that fails is logged and the others play on; Run returns the failures.
func Run(ctx context.Context, o Options) error {
	cs, err := Configs(o)
	if err != nil {
		return err
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		ready atomic.Int64
		once  sync.Once
	)
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tlog := log.With("table", c.Table)
			err := daemon.Run(ctx, c, daemon.Options{
				Logger: tlog, HTTP: "off", ComputerPace: o.Pace, NoSync: o.NoSync, SimOutput: io.Discard,
				Started: func(*referee.Referee, string) {
					if ready.Add(1) == int64(len(cs)) && o.Ready != nil {
						once.Do(o.Ready)
					}
				},
			})
			if err != nil {
				tlog.Error("fleet: the table stopped", "err", err)
				mu.Lock()
				errs = append(errs, fmt.Errorf("fleet: table %s: %w", c.Table, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}
