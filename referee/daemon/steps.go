package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/buildinfo"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/homeassistant"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/leds"
	"github.com/liarsd/liarsd/referee/metrics"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/scoreboard/web"
	"github.com/liarsd/liarsd/vision"
)

// openJournal opens the table's journal, held against the last event the
// broker acknowledged: the replay starts from the journal's newest
// checkpoint before it, and a journal that ends before it lost lines whose
// events were published.
func (t *table) openJournal() error {
	c := t.c
	wm := mqtt.ReadWatermark(c.MQTTStoreDir())
	t.published = journal.Published{Journal: wm.Journal, Seq: wm.Seq, Lines: wm.Lines, Source: mqtt.WatermarkPath(c.MQTTStoreDir())}
	j, resume, err := journal.Open(c.JournalPath(), journal.Options{NoSync: t.o.NoSync, SegmentLines: c.JournalSegmentLines,
		Published: t.published})
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	t.j, t.resume = j, resume
	t.onClose(j.Close)
	if resume.Migrated {
		t.log.Info("daemon: an older journal (one file, no checksums) was moved into the journal's directory as segment 000000; new lines go to checksummed segments", "path", j.Path())
	}
	t.log.Info("daemon: journal", "path", j.Path(), "lines", j.Lines(), "replay_from_line", resume.Checkpoint.Lines+1, "segments_read", resume.Segments)
	bi := buildinfo.Get()
	t.log.Info("daemon: build", "version", bi.Version, "revision", bi.Revision, "built", bi.Built, "go", bi.Go, "opencv", bi.OpenCV)
	return nil
}

// brokerLink is how the table reaches its broker: the external one the
// configuration names, or the embedded one Run started.
type brokerLink struct {
	url, user, password string
	// stored is the embedded broker's Sync (nil for an external one).
	stored func()
	// webSocket is the embedded broker's WebSocket listener, as it
	// listens ("" for none).
	webSocket string
}

// startBroker starts the embedded broker when the configuration names no
// external one.
func (t *table) startBroker() error {
	c := t.c
	t.broker = brokerLink{url: c.Broker.URL, user: c.Broker.Username, password: c.Broker.Password}
	if c.Broker.URL != "" {
		return nil
	}
	ws := c.Broker.Embedded.WebSocket
	if ws == "off" {
		ws = ""
	}
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{
		TCP: c.Broker.Embedded.Listen, WebSocket: ws, Users: c.Broker.Embedded.Users,
		Prefix: c.Broker.Prefix, Table: c.Table, Store: filepath.Join(c.MQTTStoreDir(), "broker.db"),
		ClientIDs: []string{c.Broker.ClientID, homeassistant.DefaultClientID(c.Table)},
		// A command published before the referee's first subscription
		// (a table's first start) is refused rather than acknowledged
		// and dropped.
		AwaitReferee: true,
		Logger:       t.log.With("component", "broker"),
	})
	if err != nil {
		return err
	}
	t.onClose(b.Close)
	t.broker.url, t.broker.stored = b.URL(), b.Sync
	t.broker.user, t.broker.password = b.Credentials()
	t.broker.webSocket = strings.TrimPrefix(b.WebSocketURL(), "ws://")
	t.log.Info("daemon: embedded broker", "mqtt", b.URL(), "websocket", b.WebSocketURL())
	return nil
}

// loadCalibration reads the table's calibration, if it has one (the
// camera's settings, the reader's and the seat zones, and the board's
// wiring), and puts together the referee's configuration: the table's
// metrics, usual game and computer seats, and the operator page's reads.
func (t *table) loadCalibration() error {
	c := t.c
	if c.Calibration != "" {
		cal, err := calibration.Load(c.Calibration)
		if err != nil {
			return fmt.Errorf("daemon: the calibration file %s: %w", c.Calibration, err)
		}
		t.cal = cal
	}
	t.m = metrics.New(c.Table)
	t.reads = &operator.Reads{Clock: t.o.Clock}
	t.rc = refereeConfig(c, t.o, t.j, t.m, t.log)
	t.rc.Followers = append(t.rc.Followers, t.reads)
	return nil
}

// refereeConfig is the referee's configuration for table c, without its
// publisher, camera and board: its journal, clock and logger, the
// observer (the metrics, then o.Observe), the table's usual new_game and
// its computer seats.
func refereeConfig(c config.Config, o Options, j *journal.Journal, m *metrics.Metrics, log *slog.Logger) referee.Config {
	observe := o.Observe
	rc := referee.Config{
		Table: c.Table, Journal: j, Clock: o.Clock, Logger: log.With("component", "referee"), ComputerPace: o.ComputerPace,
		Observe: func(ch referee.Change) {
			m.Events(ch.Events)
			if observe != nil {
				observe(ch)
			}
		},
	}
	if len(c.Seats) > 0 {
		rc.NewGame = c.NewGameLine()
	}
	for _, s := range c.Seats {
		if s.Computer {
			rc.Computers = append(rc.Computers, referee.Computer{Name: s.Name, Level: s.Level, Insight: s.Insight})
		}
	}
	return rc
}

// openCamera puts the camera's adapter together when the table has a
// camera (the configured source, or Options.Camera): its source, its
// reader, its seat zones and the examples it keeps.
func (t *table) openCamera() error {
	c, o := t.c, t.o
	if o.Camera == nil && c.Camera.Source == "" {
		return nil
	}
	src, err := t.cameraSource()
	if err != nil {
		return err
	}
	reader := o.Reader
	if reader == nil {
		tr, err := calibration.NewTableReader(t.cal, c.ReaderSettings())
		if err != nil {
			return fmt.Errorf("daemon: %w", err)
		}
		t.onClose(tr.Close)
		reader = tr
	}
	var ex *camera.Examples
	if c.Camera.Learn {
		if ex, err = camera.OpenExamples(filepath.Join(c.StateDir, "examples"), c.Table, c.Rules == "star-board"); err != nil {
			return fmt.Errorf("daemon: %w", err)
		}
		t.onClose(ex.Close)
		t.log.Info("daemon: keeping each reveal as a training example", "folder", ex.Dir())
	}
	if msg := seatZonesDiffer(c.Seats, t.calibratedSeats()); msg != "" {
		// Dice assigned to a zone no seat of the game has are nobody's:
		// every reveal would ask for a look, unexplained.
		t.log.Warn("daemon: the calibration's seat zones are not the configured seats: run liarsd calibrate seats again", "differ", msg, "calibration", c.Calibration)
	}
	adapter, err := camera.New(camera.Options{Table: c.Table, Source: src, Reader: reader,
		Zones: camera.ZonesFor(seatPositions(c.Seats), c.Camera.MaxSeatDistance, t.cal),
		Retry: c.Camera.Retry, Clock: o.Clock, Logger: t.log.With("component", "camera"),
		Reads: t.reads, Examples: ex, OnRead: t.m.Read})
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	t.onClose(adapter.Close)
	t.rc.Camera = adapter
	return nil
}

// cameraSource is the table's camera: Options.Camera, or the configured
// source, opened again whenever it fails. A missing camera does not stop
// the table: reads ask for a look (the operator enters the dice) until it
// answers. Either is given the calibration's camera settings.
func (t *table) cameraSource() (camera.Source, error) {
	settings := func(cam any) {
		if t.cal != nil && t.cal.Camera != nil {
			calibration.ApplyCameraSettings(cam, t.cal.Camera, t.log)
		}
	}
	if t.o.Camera != nil {
		settings(t.o.Camera)
		return t.o.Camera, nil
	}
	dev := camera.NewDevice(t.c.Camera.Source, vision.Open, func(src vision.Source) { settings(src) })
	if err := dev.Connect(); err != nil {
		t.log.Error("daemon: the camera is not available: the referee starts without it, asks for a look at each reveal and tries the camera again each time", "source", t.c.Camera.Source, "err", err)
	}
	t.onClose(dev.Close)
	return dev, nil
}

// calibratedSeats returns the calibration's seat zones (none without a
// calibration).
func (t *table) calibratedSeats() []calibration.Seat {
	if t.cal == nil {
		return nil
	}
	return t.cal.Seats
}

// seatPositions are the configured seats' places in the image.
func seatPositions(seats []config.Seat) []camera.SeatPosition {
	pos := make([]camera.SeatPosition, len(seats))
	for i, s := range seats {
		pos[i] = camera.SeatPosition{Name: s.Name, X: s.X, Y: s.Y}
	}
	return pos
}

// openBoard opens the table's board (its LEDs and buttons), drawn through
// the calibration's wiring, and runs it until ctx is done.
func (t *table) openBoard(ctx context.Context, wg *sync.WaitGroup) error {
	if t.c.Board == nil {
		return nil
	}
	rig, err := hardware.Open(*t.c.Board, hardware.OpenOptions{
		Logger: t.log.With("component", "board"), SimOutput: t.o.SimOutput, SimInput: t.o.SimInput, ANSI: t.o.ANSI,
	})
	if err != nil {
		return fmt.Errorf("daemon: board: %w", err)
	}
	t.onClose(rig.Close)
	strip, presses, err := wiring(rig, t.cal, t.c.Calibration, t.log)
	if err != nil {
		return err
	}
	t.rig, t.presses = rig, presses
	t.rc.Board = leds.Board{Board: rig.Board}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = rig.Board.Run(ctx, strip, t.o.BoardPeriod, t.log.With("component", "board"))
	}()
	return nil
}

// newReferee makes the referee, its table resumed from the journal, and
// holds the journal against the broker's watermark.
func (t *table) newReferee() error {
	proxy := &publisherProxy{}
	t.rc.Publisher = proxy
	r, err := referee.New(t.rc, t.resume)
	if err != nil {
		return err
	}
	t.ref = r
	// The replay tells the seq the journal's events end at: held against
	// the last event the broker acknowledged, as liarsd journal check does.
	if d := journal.Missing(t.resume.Found, t.published, r.JournalSeq()); d != nil {
		return fmt.Errorf("daemon: %w", d)
	}
	if len(t.resume.Torn) > 0 {
		// Not synced when the power went, so never published: had it
		// been, the broker's watermark would say so (above).
		t.log.Warn("daemon: the journal's last line was cut short (power cut?) and is dropped; it was never published", "bytes", len(t.resume.Torn))
	}
	return nil
}

// dial connects the referee's MQTT client, which publishes for the
// referee and takes its commands.
func (t *table) dial() error {
	c := t.c
	var client *mqtt.Client
	// Commands may arrive (a session's queued ones) before Dial returns:
	// their replies wait for the client.
	dialed := make(chan struct{})
	client, err := mqtt.Dial(mqtt.Options{
		Broker: t.broker.url, Username: t.broker.user, Password: t.broker.password,
		CAFile: c.Broker.CAFile, InsecureSkipVerify: c.Broker.InsecureSkipVerify,
		Prefix: c.Broker.Prefix, Table: c.Table, ClientID: c.Broker.ClientID,
		StoreDir: c.MQTTStoreDir(), Journal: t.j.ID(), Stored: t.broker.stored,
		Logger: t.log.With("component", "mqtt"),
		OnCommand: commandHandler(t.ref.SubmitInput, func(b []byte, published func()) {
			<-dialed
			client.ReplyAcked(b, published)
		}, t.log),
	})
	if err != nil {
		return err
	}
	t.client = client
	t.rc.Publisher.(*publisherProxy).Client = client
	close(dialed)
	t.m.QueueDepth(client.Pending)
	t.m.BrokerConnection(func() metrics.Broker {
		s := client.Connection()
		return metrics.Broker{Connected: s.Connected, Failures: s.Failures, LastError: s.LastError}
	})
	t.onClose(t.flush)
	return nil
}

// flush delivers what the client has queued, within FlushTimeout, and
// closes it.
func (t *table) flush() error {
	fctx, cancel := context.WithTimeout(context.Background(), t.o.FlushTimeout)
	defer cancel()
	err := t.client.Close(fctx)
	var u *mqtt.UndeliveredError
	if errors.As(err, &u) {
		// A clean stop all the same: nothing is lost.
		t.log.Warn("daemon: stopped with messages not delivered; each is kept: the events are in the journal and the next start "+
			"publishes them again, the replies' commands were not acknowledged and the broker delivers them again (answered as then), "+
			"the state is published again at the start", "err", err, "events", u.Events, "states", u.States, "replies", u.Replies, "others", u.Others)
		return nil
	}
	return err
}

// startWeb serves the scoreboard, the operator page, the venue dashboard
// and /metrics.
func (t *table) startWeb(ctx context.Context) error {
	site := web.FromConfig(t.c, t.o.HTTP, t.m, t.log)
	site.Reads = t.reads
	if t.broker.webSocket != "" {
		site.WebSocket = t.broker.webSocket
	}
	w, err := web.Start(ctx, site)
	if err != nil {
		return err
	}
	t.web = w
	// Closed after the client's flush (the closers run last first), as
	// the client was dialled first.
	t.closers = append(t.closers[:len(t.closers)-1], func() error { w.Close(); return nil }, t.closers[len(t.closers)-1])
	if t.o.WebStarted != nil && w.URL() != "" {
		t.o.WebStarted(w.URL())
	}
	return nil
}

// runButtons takes the seats' button presses, through the calibrated
// wiring, as the buttons' inputs (buttons).
func (t *table) runButtons(ctx context.Context, wg *sync.WaitGroup) {
	if t.rig == nil || t.rig.Buttons == nil {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = t.rig.Buttons.Run(ctx, func(p hardware.Press) {
			in, ok := pressInput(t.rig.Keypad, t.presses, p)
			if !ok {
				return
			}
			if err := t.ref.SubmitInput(in, nil); err != nil {
				t.log.Warn("daemon: a button press is dropped", "press", p.String(), "err", err)
			}
		})
	}()
}

// startGame starts the configured game on a new journal (startsGame).
func (t *table) startGame() error {
	if !startsGame(t.c, t.resume) {
		return nil
	}
	return t.ref.Submit(t.c.NewGameLine(), referee.SourceOperator, func(rep referee.Reply) {
		if !rep.OK {
			t.log.Error("daemon: the configured game does not start", "reason", rep.Reason, "message", rep.Message)
		}
	})
}

// startsGame says whether a table starts its configured game: when the
// configuration asks it to (start_game) and the journal holds no record
// line yet.
func startsGame(c config.Config, resume journal.Resume) bool {
	return c.StartGame && resume.Checkpoint.Lines == 0 && blank(resume.Lines)
}

// runHomeAssistant publishes Home Assistant's discovery of the table,
// unless the configuration turns it off.
func (t *table) runHomeAssistant(ctx context.Context, wg *sync.WaitGroup) {
	c := t.c
	if c.Broker.HomeAssistant != nil && !*c.Broker.HomeAssistant {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := homeassistant.Run(ctx, homeassistant.RunOptions{
			Options: homeassistant.Options{Prefix: c.Broker.Prefix, Table: c.Table, Version: buildinfo.Get().Version,
				ConfigurationURL: t.web.PageURL()},
			Broker: t.broker.url, Username: t.broker.user, Password: t.broker.password,
			CAFile: c.Broker.CAFile, InsecureSkipVerify: c.Broker.InsecureSkipVerify,
			Logger: t.log,
		})
		if err != nil && ctx.Err() == nil {
			t.log.Error("daemon: Home Assistant discovery stopped", "err", err)
		}
	}()
}

// tellStarted calls Options.Started once commands can arrive (the broker
// may be away: then after a while anyway, the table runs without it).
func (t *table) tellStarted(ctx context.Context, wg *sync.WaitGroup) {
	if t.o.Started == nil {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-t.client.Ready():
		case <-time.After(5 * time.Second):
			t.log.Warn("daemon: the broker does not answer yet; carrying on")
		case <-ctx.Done():
			return
		}
		t.o.Started(t.ref, t.broker.url)
	}()
}
