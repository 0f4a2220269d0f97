package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/liarsd/liarsd/calibration"
	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/mqtt"
)

// commandHandler reads each MQTT command once (referee.ParseCommand) and
// answers it through submit (the referee's SubmitInput) with reply. The broker hears a command was taken (ack)
// only once its answer is out: reply queues the answer and calls published
// when the broker has acknowledged it. Acknowledged any earlier, a command
// whose reply was still queued when the process died (a power cut) would
// be neither delivered again nor answered; this way the broker delivers it
// again at the next start, and the referee answers it as before when its
// id was journaled. A command the referee cannot take because it has
// stopped (the daemon is shutting down) is neither answered nor
// acknowledged, for the same reason; a full queue is answered busy. Acks
// may block on paho, so they run on goroutines of their own.
func commandHandler(submit func(in referee.Input, reply func(referee.Reply)) error, reply func(b []byte, published func()), log *slog.Logger) func(payload []byte, redelivered bool, ack func()) {
	return func(payload []byte, redelivered bool, ack func()) {
		in := referee.ParseCommand(payload, referee.SourceMQTT)
		in.Redelivered = redelivered
		id := in.ID() // for the debug lines: tests kill the process at each
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
		err := submit(in, answer)
		switch {
		case err == nil:
		case errors.Is(err, referee.ErrStopped):
			log.Info("daemon: a command arrived while stopping; left to the broker to deliver again at the next start")
		default:
			answer(referee.Reply{ID: id, Reason: "busy", Message: err.Error()})
		}
	}
}

// pressInput is the input a button press makes through the keypad (the
// pending bid of each seat) and the calibrated wiring (presses, nil for
// none), if it makes one: an action of the buttons, read where it enters.
func pressInput(k *hardware.Keypad, presses *hardware.PressMap, p hardware.Press) (referee.Input, bool) {
	cmd, ok := k.Press(presses.Map(p))
	if !ok {
		return referee.Input{}, false
	}
	a := engine.Action{Type: cmd.Type, Seat: cmd.Seat, Quantity: cmd.Quantity, Face: cmd.Face, Bluff: cmd.Bluff}
	return referee.ActionInput(a, referee.SourceButtons), true
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
