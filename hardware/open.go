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
	pins, err := resolvePins(uses, c.reservedPins(), opts.LookupPin, opts.AllPins, r.Platform)
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

// resolvePins finds the pin of every use, in order. reserved names the
// pins taken by something else (the SPI port) and what takes them.
func resolvePins(uses []pinUse, reserved map[string]string, lookup func(string) gpio.PinIO, all func() []gpio.PinIO, platform string) ([]gpio.PinIO, error) {
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
		p := lookup(canonicalPin(u.name))
		if p == nil {
			return nil, fmt.Errorf("hardware: pin %s (%s) does not exist on this board (%s); pins are named like GPIO17", u.name, u.use, platform)
		}
		// periph's registry answers an alias ("SPI0_MOSI", "PWM0") with a
		// pin named as the alias; two names for one pin are still one pin,
		// so compare the pins behind them.
		name := realPinName(p)
		if what, taken := reserved[name]; taken {
			return nil, fmt.Errorf("hardware: pin %s named twice: %s and %s (as %s)", name, what, u.use, u.name)
		}
		if first, dup := byReal[name]; dup {
			return nil, fmt.Errorf("hardware: pin %s named twice: %s (as %s) and %s (as %s)", name, first.use, first.name, u.use, u.name)
		}
		byReal[name] = u
		pins[i] = p
	}
	return pins, nil
}

// realPinName is the name of the pin behind p, which may be an alias.
func realPinName(p gpio.PinIO) string {
	for range 8 { // aliases of aliases, but never a loop
		r, ok := p.(gpio.RealPin)
		if !ok {
			break
		}
		behind := r.Real()
		if behind == nil {
			break
		}
		p = behind
	}
	return p.Name()
}

// machinePins initialises periph's host drivers and returns this machine's
// pin lookup.
//
// A Raspberry Pi 4 (and earlier) has its GPIO in the SoC and periph drives
// it through bcm283x. A Pi 5's header pins are on the RP1 chip, reached only
// through the Linux GPIO character device (host v3.8.3+, gpioioctl); periph's
// bcm283x driver still claims the "GPIOn" names there (and its aliases, "17",
// "SPI0_MOSI") and, run as root, maps the Pi 4's registers, so on a Pi 5 pins
// are looked up on the character device's chips only. On any Raspberry Pi,
// only the header's pins (GPIO0 to GPIO27) are offered: the SoC's others
// (GPIO28 and up) drive the SD card, Wi-Fi, audio or the activity LED.
func machinePins() (lookup func(string) gpio.PinIO, all func() []gpio.PinIO, platform string, err error) {
	if _, err := host.Init(); err != nil {
		return nil, nil, "", fmt.Errorf("hardware: initialising periph's host drivers: %w", err)
	}
	model, compatible := distro.DTModel(), distro.DTCompatible()
	if model == "" || model == "<unknown>" {
		model = "unknown model"
	}
	lookup, platform = gpioreg.ByName, model
	if isPi5(model, compatible) {
		chips := make([]lineChip, len(gpioioctl.Chips))
		for i, c := range gpioioctl.Chips {
			chips[i] = ioctlChip{c}
		}
		lookup, platform = pi5Lookup(chips), model+", GPIO character device"
	}
	if isRaspberryPi(model, compatible) {
		lookup = headerOnly(lookup)
	}
	return lookup, gpioreg.All, platform, nil
}

// maxHeaderGPIO is the highest GPIO on the Raspberry Pi's 40-pin header.
const maxHeaderGPIO = 27

// headerOnly wraps a Raspberry Pi's lookup so that it finds only the pins
// of the 40-pin header, whatever name or alias leads to them.
func headerOnly(lookup func(string) gpio.PinIO) func(string) gpio.PinIO {
	return func(name string) gpio.PinIO {
		p := lookup(name)
		if p == nil {
			return nil
		}
		if n, ok := gpioNumber(realPinName(p)); ok && n > maxHeaderGPIO {
			return nil
		}
		return p
	}
}

// lineChip is a GPIO character device's chip, as the Pi 5's lookup needs it.
type lineChip interface {
	Label() string
	line(name string) gpio.PinIO // nil when no line has that name
	lineNumber(n int) gpio.PinIO // nil when out of range
}

// ioctlChip is a lineChip of periph's gpioioctl.
type ioctlChip struct{ c *gpioioctl.GPIOChip }

func (c ioctlChip) Label() string { return c.c.Label() }

func (c ioctlChip) line(name string) gpio.PinIO {
	if l := c.c.ByName(name); l != nil { // not a typed nil in the interface
		return l
	}
	return nil
}

func (c ioctlChip) lineNumber(n int) gpio.PinIO {
	if n < 0 || n >= c.c.LineCount() {
		return nil
	}
	if l := c.c.ByNumber(n); l != nil {
		return l
	}
	return nil
}

// rp1Label is the label of the Pi 5's RP1 GPIO chip: its line n is the
// header's GPIOn.
const rp1Label = "pinctrl-rp1"

// pi5Lookup finds pins on a Pi 5's GPIO chips: a line of that name
// ("GPIO17"), else, for GPIOn, line n of the RP1 (where periph's bcm283x
// would send it too, without the risk of mapping a Pi 4's registers). It
// never falls back on periph's registry, whose GPIOn are bcm283x's.
func pi5Lookup(chips []lineChip) func(string) gpio.PinIO {
	return func(name string) gpio.PinIO {
		for _, c := range chips {
			if p := c.line(name); p != nil {
				return p
			}
		}
		n, ok := gpioNumber(name)
		if !ok || n > maxHeaderGPIO {
			return nil
		}
		for _, c := range chips {
			if c.Label() == rp1Label {
				return c.lineNumber(n)
			}
		}
		return nil
	}
}

// isRaspberryPi reports whether the device tree describes a Raspberry Pi.
func isRaspberryPi(model string, compatible []string) bool {
	if strings.Contains(model, "Raspberry Pi") {
		return true
	}
	for _, c := range compatible {
		if strings.HasPrefix(c, "raspberrypi,") {
			return true
		}
	}
	return false
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
