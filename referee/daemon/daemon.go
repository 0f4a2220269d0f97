// Package daemon puts a table together from its configuration: the
// journal, the broker (embedded or external), the MQTT client, the camera
// and reader, the board and its buttons, and the referee's loop. liarsd
// run and liarsd demo both hand over to Run.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/buildinfo"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/homeassistant"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/metrics"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/scoreboard/web"
	"github.com/liarsd/liarsd/vision"
)

// Options are what Run takes besides the configuration; the demo and tests
// set them, liarsd run leaves most empty.
type Options struct {
	Logger *slog.Logger
	Clock  referee.Clock
	// Camera, when set, replaces the configured camera source (the demo's
	// synthetic camera); like an opened source, it is given the
	// calibration's camera settings when it takes controls
	// (calibration.Controller). Reader defaults to a vision.Reader
	// configured from the file.
	Camera referee.Camera
	Reader referee.Reader
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

// Run referees the table c describes until ctx is done, then shuts down
// cleanly: queued messages are delivered (within FlushTimeout), status goes
// offline, the journal is closed.
func Run(ctx context.Context, c config.Config, o Options) (err error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.BoardPeriod <= 0 {
		o.BoardPeriod = hardware.DefaultFramePeriod
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = 3 * time.Second
	}
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			if cerr := closers[i](); cerr != nil && err == nil {
				err = cerr
			}
		}
	}()

	// The last event the broker acknowledged: the replay starts from the
	// journal's newest checkpoint before it, and a journal that ends
	// before it lost lines whose events were published.
	wm := mqtt.ReadWatermark(c.MQTTStoreDir())
	published := journal.Published{Journal: wm.Journal, Seq: wm.Seq, Lines: wm.Lines, Source: mqtt.WatermarkPath(c.MQTTStoreDir())}
	j, resume, err := journal.Open(c.JournalPath(), journal.Options{NoSync: o.NoSync, SegmentLines: c.JournalSegmentLines,
		Published: published})
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	closers = append(closers, j.Close)
	if resume.Migrated {
		log.Info("daemon: an older journal (one file, no checksums) was moved into the journal's directory as segment 000000; new lines go to checksummed segments", "path", j.Path())
	}
	log.Info("daemon: journal", "path", j.Path(), "lines", j.Lines(), "replay_from_line", resume.Checkpoint.Lines+1, "segments_read", resume.Segments)
	bi := buildinfo.Get()
	log.Info("daemon: build", "version", bi.Version, "revision", bi.Revision, "built", bi.Built, "go", bi.Go, "opencv", bi.OpenCV)

	brokerURL, user, password := c.Broker.URL, c.Broker.Username, c.Broker.Password
	var stored func() // the embedded broker's Sync
	wsAddr := ""      // the embedded broker's WebSocket listener, as it listens
	if brokerURL == "" {
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
			Logger:       log.With("component", "broker"),
		})
		if err != nil {
			return err
		}
		closers = append(closers, b.Close)
		brokerURL, stored = b.URL(), b.Sync
		user, password = b.Credentials()
		log.Info("daemon: embedded broker", "mqtt", b.URL(), "websocket", b.WebSocketURL())
		wsAddr = strings.TrimPrefix(b.WebSocketURL(), "ws://")
	}

	m := metrics.New(c.Table)
	observe := o.Observe
	rc := referee.Config{
		Table: c.Table, Journal: j,
		RetryCapture: c.Camera.Retry, Clock: o.Clock, Logger: log.With("component", "referee"), ComputerPace: o.ComputerPace,
		Observe: func(ch referee.Change) {
			m.Events(ch.Events)
			if observe != nil {
				observe(ch)
			}
		},
		OnRead: m.Read,
	}
	if len(c.Seats) > 0 {
		rc.NewGame = c.NewGameLine()
	}
	for _, s := range c.Seats {
		if s.Computer {
			rc.Computers = append(rc.Computers, referee.Computer{Name: s.Name, Level: s.Level, Insight: s.Insight})
		}
	}
	// The calibration: the camera's settings, the reader's and the seat
	// zones, and the board's wiring.
	var cal *calibration.File
	if c.Calibration != "" {
		if cal, err = calibration.Load(c.Calibration); err != nil {
			return fmt.Errorf("daemon: the calibration file %s: %w", c.Calibration, err)
		}
	}
	if o.Camera != nil || c.Camera.Source != "" {
		settings := func(cam any) {
			if cal != nil && cal.Camera != nil {
				applyCameraSettings(cam, cal.Camera, log)
			}
		}
		rc.Camera = o.Camera
		if rc.Camera != nil {
			settings(o.Camera)
		} else {
			// A missing camera does not stop the table: reads ask for a
			// look (the operator enters the dice) until it answers.
			tc := &tableCamera{spec: c.Camera.Source, open: vision.Open, opened: func(src vision.Source) { settings(src) }}
			if err := tc.connect(); err != nil {
				log.Error("daemon: the camera is not available: the referee starts without it, asks for a look at each reveal and tries the camera again each time", "source", c.Camera.Source, "err", err)
			}
			closers = append(closers, tc.Close)
			rc.Camera = tc
		}
		rc.Reader = o.Reader
		if rc.Reader == nil {
			// Only the star-board game is played with star dice; at any
			// other table a star-looking face is a doubt, and a lone mark a 1.
			starDice := c.Rules == "star-board"
			vo := vision.Options{StarDice: starDice, PlainDice: !starDice}
			if cal != nil {
				vo = cal.VisionOptions()
				vo.StarDice, vo.PlainDice = starDice, !starDice
			}
			// The file's settings, where given, win over the calibration's.
			if c.Camera.View != "" && (cal == nil || cal.Camera == nil || cal.Camera.View == "") {
				if vo.View, err = vision.ParseView(c.Camera.View); err != nil {
					return err
				}
			}
			if c.Camera.DieSize > 0 {
				vo.DieSize = c.Camera.DieSize
			}
			if c.Camera.MinConfidence > 0 {
				vo.MinConfidence = c.Camera.MinConfidence
			}
			if c.Camera.Models != "" { // the table's own retrained networks
				if vo.Models, err = vision.LoadModels(c.Camera.Models); err != nil {
					return fmt.Errorf("daemon: camera.models: %w", err)
				}
			}
			if cal != nil { // the table's faces and star artwork, learned by the dice step
				cr, err := cal.ReaderWith(vo)
				if err != nil {
					return fmt.Errorf("daemon: %w", err)
				}
				rc.Reader = cr
				closers = append(closers, cr.Close)
			} else {
				vr, err := vision.NewReader(vo)
				if err != nil {
					return fmt.Errorf("daemon: %w", err)
				}
				rc.Reader = vr
				closers = append(closers, vr.Close)
			}
		}
		if c.Camera.Learn {
			ex, err := referee.OpenExamples(filepath.Join(c.StateDir, "examples"), c.Table, c.Rules == "star-board")
			if err != nil {
				return fmt.Errorf("daemon: %w", err)
			}
			rc.Examples = ex
			closers = append(closers, ex.Close)
			log.Info("daemon: keeping each reveal as a training example", "folder", ex.Dir())
		}
		pos := make([]referee.SeatPosition, len(c.Seats))
		for i, s := range c.Seats {
			pos[i] = referee.SeatPosition{Name: s.Name, X: s.X, Y: s.Y}
		}
		var nearest referee.Zones
		if len(pos) > 0 {
			nearest = referee.NearestSeat{Positions: pos, MaxDistance: c.Camera.MaxSeatDistance}
		}
		rc.Zones = nearest
		if cal != nil {
			rc.Zones = referee.CalibratedZones{File: cal, Fallback: nearest}
			if msg := seatZonesDiffer(c.Seats, cal.Seats); msg != "" {
				// Dice assigned to a zone no seat of the game has are
				// nobody's: every reveal would ask for a look, unexplained.
				log.Warn("daemon: the calibration's seat zones are not the configured seats: run liarsd calibrate seats again", "differ", msg, "calibration", c.Calibration)
			}
		}
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	bctx, cancelBoard := context.WithCancel(ctx)
	defer cancelBoard()
	var rig *hardware.Rig
	var strip hardware.Strip       // the board's strip, through the calibrated LED order
	var presses *hardware.PressMap // the calibrated button wiring
	if c.Board != nil {
		rig, err = hardware.Open(*c.Board, hardware.OpenOptions{
			Logger: log.With("component", "board"), SimOutput: o.SimOutput, SimInput: o.SimInput, ANSI: o.ANSI,
		})
		if err != nil {
			return fmt.Errorf("daemon: board: %w", err)
		}
		closers = append(closers, rig.Close)
		if strip, presses, err = wiring(rig, cal, c.Calibration, log); err != nil {
			return err
		}
		rc.Board = referee.HardwareBoard{Board: rig.Board}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = rig.Board.Run(bctx, strip, o.BoardPeriod, log.With("component", "board"))
		}()
	}

	proxy := &publisherProxy{}
	rc.Publisher = proxy
	r, err := referee.New(rc, resume)
	if err != nil {
		return err
	}
	// The replay tells the seq the journal's events end at: held against
	// the last event the broker acknowledged, as liarsd journal check does.
	if d := journal.Missing(resume.Found, published, r.JournalSeq()); d != nil {
		return fmt.Errorf("daemon: %w", d)
	}
	if len(resume.Torn) > 0 {
		// Not synced when the power went, so never published: had it
		// been, the broker's watermark would say so (above).
		log.Warn("daemon: the journal's last line was cut short (power cut?) and is dropped; it was never published", "bytes", len(resume.Torn))
	}
	var client *mqtt.Client
	// Commands may arrive (a session's queued ones) before Dial returns:
	// their replies wait for the client.
	dialed := make(chan struct{})
	client, err = mqtt.Dial(mqtt.Options{
		Broker: brokerURL, Username: user, Password: password,
		CAFile: c.Broker.CAFile, InsecureSkipVerify: c.Broker.InsecureSkipVerify,
		Prefix: c.Broker.Prefix, Table: c.Table, ClientID: c.Broker.ClientID,
		StoreDir: c.MQTTStoreDir(), Journal: j.ID(), Stored: stored,
		Logger: log.With("component", "mqtt"),
		OnCommand: commandHandler(r.SubmitCommand, func(b []byte, published func()) {
			<-dialed
			client.ReplyAcked(b, published)
		}, log),
	})
	if err != nil {
		return err
	}
	proxy.Client = client
	close(dialed)
	m.QueueDepth(client.Pending)
	m.BrokerConnection(func() metrics.Broker {
		s := client.Connection()
		return metrics.Broker{Connected: s.Connected, Failures: s.Failures, LastError: s.LastError}
	})
	site := web.FromConfig(c, o.HTTP, m, log)
	site.Reads = r
	if wsAddr != "" {
		site.WebSocket = wsAddr
	}
	w, err := web.Start(ctx, site)
	if err != nil {
		return err
	}
	closers = append(closers, func() error { w.Close(); return nil })
	if o.WebStarted != nil && w.URL() != "" {
		o.WebStarted(w.URL())
	}
	closers = append(closers, func() error {
		fctx, cancel := context.WithTimeout(context.Background(), o.FlushTimeout)
		defer cancel()
		err := client.Close(fctx)
		var u *mqtt.UndeliveredError
		if errors.As(err, &u) {
			// A clean stop all the same: nothing is lost.
			log.Warn("daemon: stopped with messages not delivered; each is kept: the events are in the journal and the next start "+
				"publishes them again, the replies' commands were not acknowledged and the broker delivers them again (answered as then), "+
				"the state is published again at the start", "err", err, "events", u.Events, "states", u.States, "replies", u.Replies, "others", u.Others)
			return nil
		}
		return err
	})
	if rig != nil && rig.Buttons != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = rig.Buttons.Run(bctx, func(p hardware.Press) {
				cmd, ok := rig.Keypad.Press(presses.Map(p))
				if !ok {
					return
				}
				b, _ := json.Marshal(cmd)
				if err := r.Submit(b, referee.SourceButtons, nil); err != nil {
					log.Warn("daemon: a button press is dropped", "press", p.String(), "err", err)
				}
			})
		}()
	}
	if c.StartGame && resume.Checkpoint.Lines == 0 && blank(resume.Lines) {
		if err := r.Submit(c.NewGameLine(), referee.SourceOperator, func(rep referee.Reply) {
			if !rep.OK {
				log.Error("daemon: the configured game does not start", "reason", rep.Reason, "message", rep.Message)
			}
		}); err != nil {
			return err
		}
	}
	if c.Broker.HomeAssistant == nil || *c.Broker.HomeAssistant {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := homeassistant.Run(bctx, homeassistant.RunOptions{
				Options: homeassistant.Options{Prefix: c.Broker.Prefix, Table: c.Table, Version: buildinfo.Get().Version,
					ConfigurationURL: w.PageURL()},
				Broker: brokerURL, Username: user, Password: password,
				CAFile: c.Broker.CAFile, InsecureSkipVerify: c.Broker.InsecureSkipVerify,
				Logger: log,
			})
			if err != nil && bctx.Err() == nil {
				log.Error("daemon: Home Assistant discovery stopped", "err", err)
			}
		}()
	}
	if o.Started != nil {
		// Tell once commands can arrive (the broker may be away: then
		// after a while anyway, the table runs without it).
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-client.Ready():
			case <-time.After(5 * time.Second):
				log.Warn("daemon: the broker does not answer yet; carrying on")
			case <-ctx.Done():
				return
			}
			o.Started(r, brokerURL)
		}()
	}
	runErr := r.Run(ctx)
	cancelBoard()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	return nil
}

// commandHandler answers the MQTT commands through submit (the referee's
// SubmitCommand) with reply. The broker hears a command was taken (ack)
// only once its answer is out: reply queues the answer and calls published
// when the broker has acknowledged it. Acknowledged any earlier, a command
// whose reply was still queued when the process died (a power cut) would
// be neither delivered again nor answered; this way the broker delivers it
// again at the next start, and the referee answers it as before when its
// id was journaled. A command the referee cannot take because it has
// stopped (the daemon is shutting down) is neither answered nor
// acknowledged, for the same reason; a full queue is answered busy. Acks
// may block on paho, so they run on goroutines of their own.
func commandHandler(submit func(payload []byte, redelivered bool, reply func(referee.Reply)) error, reply func(b []byte, published func()), log *slog.Logger) func(payload []byte, redelivered bool, ack func()) {
	return func(payload []byte, redelivered bool, ack func()) {
		var id json.RawMessage // for the debug lines: tests kill the process at each
		if log.Enabled(context.Background(), slog.LevelDebug) {
			id = referee.CommandID(payload)
		}
		log.Debug("daemon: a command received", "id", id, "redelivered", redelivered)
		answer := func(rep referee.Reply) {
			b, _ := json.Marshal(rep)
			reply(b, func() { // queued, in the order of the answers
				go func() {
					log.Debug("daemon: a command answered; acknowledging it to the broker", "id", id)
					ack()
					log.Debug("daemon: a command acknowledged to the broker", "id", id)
				}()
			})
		}
		err := submit(payload, redelivered, answer)
		switch {
		case err == nil:
		case errors.Is(err, referee.ErrStopped):
			log.Info("daemon: a command arrived while stopping; left to the broker to deliver again at the next start")
		default:
			answer(referee.Reply{ID: referee.CommandID(payload), Reason: "busy", Message: err.Error()})
		}
	}
}

// wiring returns the strip the board is drawn on and the map of button
// presses, through the calibration's wiring where it has one: the LEDs in
// the order the leds step confirmed, and presses that arrive as another
// button read as the one pressed (the buttons step). A wiring that does not
// fit the board is an error naming the calibration file.
func wiring(rig *hardware.Rig, cal *calibration.File, path string, log *slog.Logger) (hardware.Strip, *hardware.PressMap, error) {
	if cal == nil || cal.Wiring == nil {
		return rig.Strip, nil, nil
	}
	strip := rig.Strip
	if order := cal.Wiring.LEDOrder; len(order) > 0 {
		r, err := hardware.NewRemapStrip(rig.Strip, order)
		if err != nil {
			return nil, nil, fmt.Errorf("daemon: calibration %s: its wiring's LED order does not fit the board (run liarsd calibrate leds again): %w", path, err)
		}
		strip = r
		log.Info("daemon: the board's LEDs go through the calibrated order", "calibration", path, "leds", len(order))
	}
	presses, err := hardware.NewPressMap(cal.Wiring.Buttons, rig.Layout.Seats())
	if err != nil {
		return nil, nil, fmt.Errorf("daemon: calibration %s: its wiring's buttons do not fit the board (run liarsd calibrate buttons again): %w", path, err)
	}
	if presses != nil {
		log.Info("daemon: button presses go through the calibrated wiring", "calibration", path, "buttons", len(cal.Wiring.Buttons))
	}
	return strip, presses, nil
}

// applyCameraSettings sets the calibration's locked camera settings
// (exposure, white balance, focus, frame size) on cam when it takes
// controls: a camera forgets them when it is unplugged or the machine
// restarts. A camera without controls keeps its own.
func applyCameraSettings(cam any, set *calibration.Camera, log *slog.Logger) {
	var applied []any
	if set.Width > 0 && set.Height > 0 {
		applied = append(applied, "width", set.Width, "height", set.Height)
	}
	for _, v := range []struct {
		name  string
		value *float64
	}{{"exposure", set.Exposure}, {"white_balance", set.WhiteBalance}, {"focus", set.Focus}} {
		if v.value != nil {
			applied = append(applied, v.name, *v.value)
		}
	}
	if len(applied) == 0 {
		return
	}
	ctl, ok := cam.(calibration.Controller)
	if !ok {
		log.Debug("daemon: the camera takes no controls; the calibration's camera settings are not applied", applied...)
		return
	}
	set.Apply(ctl)
	log.Info("daemon: the calibration's camera settings applied", applied...)
}

// tableCamera is the table's camera as the referee uses it. It captures
// one frame at a time (vision sources are not safe for concurrent use, and
// a retry may overlap a slow capture), and it opens the source again when
// the source is missing or a capture fails, so that a camera plugged in
// late, or unplugged and plugged in again, comes back without a restart.
type tableCamera struct {
	mu     sync.Mutex
	spec   string
	open   func(spec string) (vision.Source, error)
	opened func(vision.Source) // after each opening: the calibration's settings
	src    vision.Source
}

// connect opens the source if it is not open.
func (c *tableCamera) connect() error {
	if c.src != nil {
		return nil
	}
	src, err := c.open(c.spec)
	if err != nil {
		return err
	}
	c.src = src
	if c.opened != nil {
		c.opened(src)
	}
	return nil
}

// Capture reads a frame, opening the source first when it is not open; a
// failed capture closes it, to be opened again at the next capture.
func (c *tableCamera) Capture() (gocv.Mat, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.connect(); err != nil {
		return gocv.Mat{}, err
	}
	img, err := c.src.Capture()
	if err != nil {
		c.src.Close()
		c.src = nil
	}
	return img, err
}

// Close releases the source.
func (c *tableCamera) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.src == nil {
		return nil
	}
	err := c.src.Close()
	c.src = nil
	return err
}

// blank says whether lines hold no record line (blank ones aside).
func blank(lines [][]byte) bool {
	for _, l := range lines {
		if len(l) > 0 {
			return false
		}
	}
	return true
}

// publisherProxy lets the referee exist before the MQTT client, so that a
// command the broker delivers at the first connection finds it; the
// referee publishes nothing before Run, when Client is set.
type publisherProxy struct{ *mqtt.Client }

// seatZonesDiffer says how the configured seats and the calibration's seat
// zones differ by name, or "" when each has the other's names (or either
// names none: no seats configured, or no zones calibrated yet).
func seatZonesDiffer(seats []config.Seat, zones []calibration.Seat) string {
	if len(seats) == 0 || len(zones) == 0 {
		return ""
	}
	configured := make([]string, len(seats))
	for i, s := range seats {
		configured[i] = s.Name
	}
	zoned := make([]string, len(zones))
	for i, z := range zones {
		zoned[i] = z.Name
	}
	var parts []string
	if only := missingFrom(configured, zoned); len(only) > 0 {
		parts = append(parts, "seats with no zone: "+strings.Join(only, ", "))
	}
	if only := missingFrom(zoned, configured); len(only) > 0 {
		parts = append(parts, "zones of no seat: "+strings.Join(only, ", "))
	}
	return strings.Join(parts, "; ")
}

// missingFrom returns the names of a that b lacks, in a's order.
func missingFrom(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}
