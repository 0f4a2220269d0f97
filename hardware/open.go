package hardware

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"
	"periph.io/x/host/v3"
	"periph.io/x/host/v3/distro"
	"periph.io/x/host/v3/gpioioctl"
)

// OpenOptions are what Open needs besides the Config. Zero values use the
// machine: periph's host drivers, the system clock, slog.Default().
type OpenOptions struct {
	Clock  Clock
	Logger *slog.Logger

	// LookupPin finds a pin by name and AllPins lists the machine's pins;
	// both default to periph's registry after host.Init (on a Raspberry
	// Pi 5, pins come straight from the GPIO character device). Tests pass
	// periph's fake pins here.
	LookupPin func(name string) gpio.PinIO
	AllPins   func() []gpio.PinIO
	// OpenSPI opens an SPI port by name; default spireg.Open. Tests pass
	// spitest ports here.
	OpenSPI func(name string) (spi.PortCloser, error)

	// SimOutput receives the simulated board's frames (nil: not printed),
	// in colour when ANSI is set; SimInput, when not nil, gives the
	// simulated board's button presses (see SimButtons).
	SimOutput io.Writer
	ANSI      bool
	SimInput  io.Reader
}

// Rig is an opened board: the model, the strip that shows it, the seat
// buttons and the keypad that turns their presses into commands.
type Rig struct {
	Layout Layout
	Board  *Board
	Strip  Strip
	// Buttons delivers the seats' presses; nil for a simulated board
	// without input.
	Buttons PressSource
	Keypad  *Keypad
	// Sim is the simulated board, when the driver is sim.
	Sim *SimStrip
	// Platform says what drives the board, for logs and hwtest.
	Platform string

	closers []func() error
	closed  bool
}

// Close puts the LEDs out (a dark frame on the strip: a GPIO board's LED
// pins are left at their dark level, low unless active_low) and then
// releases the SPI port. Closing a closed Rig does nothing.
func (r *Rig) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	// A simulated board already dark (Board.Run puts it out) is not drawn
	// once more; a real strip's state is not known, so it is always sent.
	if r.Strip != nil && (r.Sim == nil || slices.ContainsFunc(r.Sim.Frame(), func(c Color) bool { return c != Off })) {
		errs = append(errs, r.Strip.Write(make([]Color, r.Strip.Len())))
	}
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i]())
	}
	r.closers = nil
	return errors.Join(errs...)
}

// Open checks c against this machine and opens the board it describes. A
// pin named twice, a pin this board does not have, or a machine without GPIO
// gives an error naming the pin; nothing is left open on error.
func Open(c Config, opts OpenOptions) (rig *Rig, err error) {
	uses, err := c.pins()
	if err != nil {
		return nil, err
	}
	l, _ := c.Layout() // checked by pins
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	sides := c.Buttons.Sides
	if sides == 0 {
		sides = FaceLEDs
	}
	keypad, err := NewKeypad(c.Seats, KeypadOptions{MaxQuantity: c.Track.NumberSpaces, Sides: sides, ConfirmCalls: c.Buttons.ConfirmCalls, BluffOnLongBid: c.Buttons.BluffOnLongBid})
	if err != nil {
		return nil, err
	}
	r := &Rig{Layout: l, Board: NewBoard(l, opts.Clock), Keypad: keypad}
	defer func() {
		if err != nil {
			_ = r.Close()
			rig = nil
		}
	}()

	if c.Driver == DriverSim {
		r.Sim = NewSimStrip(l, opts.SimOutput, opts.ANSI)
		r.Strip = r.Sim
		r.Platform = "simulated board"
		if opts.SimInput != nil {
			sb := NewSimButtons(c.Seats, opts.SimInput, opts.Clock)
			sb.OnError = func(line int, err error) {
				opts.Logger.Warn("hardware: simulated button ignored", "line", line, "err", err)
			}
			r.Buttons = sb
		}
		return r, nil
	}

	if opts.LookupPin == nil {
		lookup, all, platform, err := machinePins()
		if err != nil {
			return nil, err
		}
		opts.LookupPin, opts.AllPins, r.Platform = lookup, all, platform
	} else {
		r.Platform = "pins given by the caller"
	}
	pins, err := resolvePins(uses, opts.LookupPin, opts.AllPins, r.Platform)
	if err != nil {
		return nil, err
	}

	switch c.Driver {
	case DriverGPIO:
		outs := make([]gpio.PinOut, l.Len())
		for i, u := range uses {
			if u.led >= 0 {
				outs[u.led] = pins[i]
			}
		}
		if r.Strip, err = NewGPIOStrip(outs, c.ActiveLow); err != nil {
			return nil, err
		}
	case DriverShiftRegister, DriverAPA102:
		open := opts.OpenSPI
		if open == nil {
			open = spireg.Open
		}
		port, err := open(c.SPI.Port)
		if err != nil {
			return nil, fmt.Errorf("hardware: opening SPI port %s: %w (is SPI enabled? dtparam=spi=on in config.txt)", c.spiPort(), err)
		}
		r.closers = append(r.closers, port.Close)
		if c.SPI.MaxHz > 0 {
			if err := port.LimitSpeed(physic.Frequency(c.SPI.MaxHz) * physic.Hertz); err != nil {
				return nil, fmt.Errorf("hardware: limiting SPI port %s to %d Hz: %w", c.spiPort(), c.SPI.MaxHz, err)
			}
		}
		if c.Driver == DriverShiftRegister {
			r.Strip, err = OpenShiftRegisterStrip(port, l.Len(), c.ActiveLow)
		} else {
			var s *APA102Strip
			if s, err = OpenAPA102Strip(port, l.Len(), c.Intensity); err == nil {
				r.Strip = s
				r.closers = append(r.closers, s.Halt)
			}
		}
		if err != nil {
			return nil, err
		}
	}

	var bp []ButtonPin
	for i, u := range uses {
		if u.led < 0 {
			bp = append(bp, ButtonPin{Seat: u.seat, Button: u.btn, Pin: pins[i]})
		}
	}
	buttons, err := NewGPIOButtons(bp, ButtonOptions{
		Debounce: c.Buttons.Debounce, LongPress: c.Buttons.LongPress,
		Clock: opts.Clock, Logger: opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	r.Buttons = buttons
	return r, nil
}

// resolvePins finds the pin of every use, in order.
func resolvePins(uses []pinUse, lookup func(string) gpio.PinIO, all func() []gpio.PinIO, platform string) ([]gpio.PinIO, error) {
	if len(uses) == 0 {
		return nil, nil
	}
	if all != nil && len(all()) == 0 {
		return nil, fmt.Errorf("hardware: this machine has no GPIO (%s; not a Raspberry Pi?): cannot open pin %s for %s; use driver %q to run without a board",
			platform, uses[0].name, uses[0].use, DriverSim)
	}
	pins := make([]gpio.PinIO, len(uses))
	byReal := map[string]pinUse{}
	for i, u := range uses {
		p := lookup(strings.TrimSpace(u.name))
		if p == nil {
			return nil, fmt.Errorf("hardware: pin %s (%s) does not exist on this board (%s); pins are named like GPIO17", u.name, u.use, platform)
		}
		// Two names for one pin ("GPIO17" and its alias "17") are still
		// one pin.
		if first, dup := byReal[p.Name()]; dup {
			return nil, fmt.Errorf("hardware: pin %s named twice: %s (as %s) and %s (as %s)", p.Name(), first.use, first.name, u.use, u.name)
		}
		byReal[p.Name()] = u
		pins[i] = p
	}
	return pins, nil
}

// machinePins initialises periph's host drivers and returns this machine's
// pin lookup.
//
// A Raspberry Pi 4 (and earlier) has its GPIO in the SoC and periph drives
// it through bcm283x. A Pi 5's header pins are on the RP1 chip, reached only
// through the Linux GPIO character device (host v3.8.3+, gpioioctl); periph's
// bcm283x driver still claims the "GPIOn" names there and, run as root, maps
// the Pi 4's registers, so on a Pi 5 pins are looked up on the character
// device's chips directly.
func machinePins() (lookup func(string) gpio.PinIO, all func() []gpio.PinIO, platform string, err error) {
	if _, err := host.Init(); err != nil {
		return nil, nil, "", fmt.Errorf("hardware: initialising periph's host drivers: %w", err)
	}
	model := distro.DTModel()
	if model == "" || model == "<unknown>" {
		model = "unknown model"
	}
	if !isPi5(model, distro.DTCompatible()) {
		return gpioreg.ByName, gpioreg.All, model, nil
	}
	lookup = func(name string) gpio.PinIO {
		for _, chip := range gpioioctl.Chips {
			if line := chip.ByName(name); line != nil {
				return line
			}
		}
		return gpioreg.ByName(name)
	}
	return lookup, gpioreg.All, model + ", GPIO character device", nil
}

// isPi5 reports whether the device tree describes a Raspberry Pi 5 (or a
// Compute Module 5: the BCM2712 SoC with the RP1 I/O chip).
func isPi5(model string, compatible []string) bool {
	if strings.Contains(model, "Raspberry Pi 5") || strings.Contains(model, "Compute Module 5") {
		return true
	}
	for _, c := range compatible {
		if strings.Contains(c, "bcm2712") {
			return true
		}
	}
	return false
}
