// Package daemon puts a table together from its configuration: the
// journal, the broker (embedded or external), the MQTT client, the camera
// and its reader, the board and its buttons, the pages, and the referee's
// loop. liarsd run and liarsd demo both hand over to Run.
//
// Run only wires: each decision (the reader's settings, the seat zones,
// whether the configured game starts, the journal held against the
// broker's watermark) is a function of its own, tested on its own, here
// or in the package that owns it (calibration.NewTableReader,
// camera.ZonesFor, journal.Missing).
package daemon

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/metrics"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/scoreboard/web"
)

// Options are what Run takes besides the configuration; the demo and tests
// set them, liarsd run leaves most empty.
type Options struct {
	Logger *slog.Logger
	Clock  referee.Clock
	// Camera, when set, replaces the configured camera source (the demo's
	// synthetic camera); like an opened source, it is given the
	// calibration's camera settings when it takes controls
	// (calibration.Controller). Reader defaults to the table's reader
	// (calibration.NewTableReader).
	Camera camera.Source
	Reader camera.Reader
	// Observe is called after each accepted input (the demo's seats).
	Observe func(referee.Change)
	// Started is called once the referee runs, with it and the broker's
	// URL (for the demo's narrator and tests).
	Started func(ref *referee.Referee, brokerURL string)
	// SimOutput receives the simulated board's frames; SimInput its button
	// presses; ANSI colours them.
	SimOutput io.Writer
	SimInput  io.Reader
	ANSI      bool
	// BoardPeriod is how often the board is redrawn
	// (hardware.DefaultFramePeriod, 50 ms).
	BoardPeriod time.Duration
	// NoSync skips fsync of the journal (throwaway journals only).
	NoSync bool
	// FlushTimeout bounds the delivery of queued messages at shutdown (3 s).
	FlushTimeout time.Duration
	// HTTP is where the scoreboard, the venue dashboard and /metrics are
	// served (web.DefaultListen); "" or "off" serves nothing.
	HTTP string
	// WebStarted is called with the scoreboard's address once it listens.
	WebStarted func(url string)
	// ComputerPace is the pause before a computer seat acts
	// (referee.DefaultComputerPace); many simulated tables play faster.
	ComputerPace time.Duration
}

// withDefaults fills what o leaves out.
func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.BoardPeriod <= 0 {
		o.BoardPeriod = hardware.DefaultFramePeriod
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = 3 * time.Second
	}
	return o
}

// Run referees the table c describes until ctx is done, then shuts down
// cleanly: queued messages are delivered (within FlushTimeout), status goes
// offline, the journal is closed.
func Run(ctx context.Context, c config.Config, o Options) (err error) {
	t := &table{c: c, o: o.withDefaults()}
	t.log = t.o.Logger
	defer func() { err = t.closeAll(err) }()
	var wg sync.WaitGroup
	defer wg.Wait()
	bctx, cancelBoard := context.WithCancel(ctx)
	defer cancelBoard()
	steps := []func() error{
		t.openJournal, t.startBroker, t.loadCalibration, t.openCamera,
		func() error { return t.openBoard(bctx, &wg) },
		t.newReferee, t.dial,
		func() error { return t.startWeb(ctx) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	t.runButtons(bctx, &wg)
	if err := t.startGame(); err != nil {
		return err
	}
	t.runHomeAssistant(bctx, &wg)
	t.tellStarted(ctx, &wg)
	runErr := t.ref.Run(ctx)
	cancelBoard()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	return nil
}

// table is a table being put together: what each step of Run made, and
// what closes it, in the order made.
type table struct {
	c   config.Config
	o   Options
	log *slog.Logger

	closers []func() error

	j         *journal.Journal
	resume    journal.Resume
	published journal.Published
	broker    brokerLink
	m         *metrics.Metrics
	cal       *calibration.File
	rc        referee.Config
	reads     *operator.Reads
	rig       *hardware.Rig
	presses   *hardware.PressMap
	ref       *referee.Referee
	client    *mqtt.Client
	web       *web.Server
}

// closeAll closes what Run opened, the last opened first, and returns err
// or, when there was none, the first error of a close.
func (t *table) closeAll(err error) error {
	for i := len(t.closers) - 1; i >= 0; i-- {
		if cerr := t.closers[i](); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// onClose has f run when Run ends.
func (t *table) onClose(f func() error) { t.closers = append(t.closers, f) }
