package hardware

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The drivers a Config may name.
const (
	DriverGPIO          = "gpio"           // one GPIO pin per LED
	DriverShiftRegister = "shift_register" // a chain of 74HC595 on SPI
	DriverAPA102        = "apa102"         // an APA102 colour strip on SPI
	DriverSim           = "sim"            // the simulated board
)

var drivers = []string{DriverGPIO, DriverShiftRegister, DriverAPA102, DriverSim}

// Config is the board's section of a table's configuration file (board: in
// liarsd.yaml), or a file of its own. Pins are named as periph names them on
// a Raspberry Pi: "GPIO17" (BCM numbering, not the header's pin numbers).
//
//	driver: apa102
//	seats: [ann, bob, cy]
//	track: {number_spaces: 15, star_spaces: 7}
//	spi: {port: SPI0.0}
//	buttons:
//	  seats:
//	    ann: {quantity_up: GPIO5, quantity_down: GPIO6, face: GPIO13, bid: GPIO19, challenge: GPIO26}
type Config struct {
	// Driver is gpio, shift_register, apa102 or sim.
	Driver string `yaml:"driver"`
	// Seats are the seats' names, clockwise, as in the game record.
	Seats []string    `yaml:"seats"`
	Track TrackConfig `yaml:"track"`
	// LEDs wires each LED to a pin, for the gpio driver.
	LEDs LEDPins `yaml:"leds,omitempty"`
	// SPI is the port of the shift_register and apa102 drivers.
	SPI SPIConfig `yaml:"spi,omitempty"`
	// ActiveLow: the gpio and shift_register drivers light an LED by
	// driving its output low.
	ActiveLow bool `yaml:"active_low,omitempty"`
	// Intensity caps an APA102 strip's brightness, 1-255 (default 128).
	Intensity uint8         `yaml:"intensity,omitempty"`
	Buttons   ButtonsConfig `yaml:"buttons,omitempty"`
}

// TrackConfig sizes the bidding track: number spaces 1, 2, star 1, 3, 4,
// star 2, ... for star-board (star_spaces at most number_spaces/2), number
// spaces only (star_spaces 0) for the other presets.
type TrackConfig struct {
	NumberSpaces int `yaml:"number_spaces"`
	StarSpaces   int `yaml:"star_spaces"`
}

// LEDPins names the pin of every LED for the gpio driver.
type LEDPins struct {
	Track  []string          `yaml:"track"`  // one per space, in track order
	Faces  []string          `yaml:"faces"`  // six: star/1 to 6
	Seats  map[string]string `yaml:"seats"`  // seat name to pin
	Status string            `yaml:"status"` // the status LED
}

// SPIConfig names an SPI port.
type SPIConfig struct {
	// Port is a periph SPI port name, e.g. "SPI0.0" (bus 0, chip select
	// 0: /dev/spidev0.0); empty for the first port.
	Port string `yaml:"port"`
	// MaxHz caps the bus clock, for long wires (0: the driver's speed,
	// 1 MHz for shift registers, 20 MHz for APA102).
	MaxHz int `yaml:"max_hz,omitempty"`
}

// ButtonsConfig wires the seat buttons.
type ButtonsConfig struct {
	// Seats maps a seat's name to its buttons: button name (quantity_up,
	// quantity_down, face, bid, challenge, spot_on) to pin. A seat may
	// leave out buttons its preset has no use for (spot_on in star-board).
	Seats map[string]map[Button]string `yaml:"seats"`
	// Debounce and LongPress default to 30ms and 800ms.
	Debounce  time.Duration `yaml:"debounce,omitempty"`
	LongPress time.Duration `yaml:"long_press,omitempty"`
	// ConfirmCalls makes challenge and spot-on need a long press.
	ConfirmCalls bool `yaml:"confirm_calls,omitempty"`
	// BluffOnLongBid makes a long press of bid a bid with the bluff check.
	BluffOnLongBid bool `yaml:"bluff_on_long_bid,omitempty"`
	// Sides is the number of faces the face button steps through
	// (default 6).
	Sides int `yaml:"sides,omitempty"`
}

// Layout returns the board's layout from c's seats and track.
func (c Config) Layout() (Layout, error) {
	return NewLayout(c.Track.NumberSpaces, c.Track.StarSpaces, c.Seats)
}

// pinUse is one pin named in a Config and what it is for.
type pinUse struct {
	name string // as written
	use  string // "seat ann's bid button", "LED track 3: star space 1"
	seat string // the button's seat, for buttons
	btn  Button // the button, for buttons
	led  int    // the LED, for LEDs; -1 for buttons
}

// Validate checks c on its own, without touching hardware: a known driver,
// a track and seats that make a layout, a pin for every LED of the gpio
// driver, known seats and buttons, and no pin named twice (nor a pin of the
// SPI port in use). Open also checks that every pin exists on this machine.
func (c Config) Validate() error {
	_, err := c.pins()
	return err
}

// pins validates c and lists the pins it names, LEDs first.
func (c Config) pins() ([]pinUse, error) {
	if !slices.Contains(drivers, c.Driver) {
		return nil, fmt.Errorf("hardware: unknown driver %q (one of %s)", c.Driver, strings.Join(drivers, ", "))
	}
	l, err := c.Layout()
	if err != nil {
		return nil, err
	}
	var uses []pinUse
	if c.Driver == DriverGPIO {
		if len(c.LEDs.Track) != l.TrackLen() {
			return nil, fmt.Errorf("hardware: leds.track names %d pins for a track of %d spaces", len(c.LEDs.Track), l.TrackLen())
		}
		if len(c.LEDs.Faces) != FaceLEDs {
			return nil, fmt.Errorf("hardware: leds.faces names %d pins, not %d", len(c.LEDs.Faces), FaceLEDs)
		}
		for name := range c.LEDs.Seats {
			if l.SeatIndex(name) < 0 {
				return nil, fmt.Errorf("hardware: leds.seats names seat %q, which is not at the table", name)
			}
		}
		names := slices.Concat(c.LEDs.Track, c.LEDs.Faces)
		for _, s := range c.Seats {
			p, ok := c.LEDs.Seats[s]
			if !ok {
				return nil, fmt.Errorf("hardware: leds.seats has no pin for seat %q", s)
			}
			names = append(names, p)
		}
		names = append(names, c.LEDs.Status)
		for i, name := range names {
			if name == "" {
				return nil, fmt.Errorf("hardware: no pin for LED %s", l.Describe(i))
			}
			uses = append(uses, pinUse{name: name, use: "LED " + l.Describe(i), led: i})
		}
	} else if len(c.LEDs.Track)+len(c.LEDs.Faces)+len(c.LEDs.Seats) > 0 || c.LEDs.Status != "" {
		return nil, fmt.Errorf("hardware: leds names pins, but driver %s does not use them", c.Driver)
	}
	for seat := range c.Buttons.Seats {
		if l.SeatIndex(seat) < 0 {
			return nil, fmt.Errorf("hardware: buttons.seats names seat %q, which is not at the table", seat)
		}
	}
	for _, seat := range c.Seats {
		buttons := c.Buttons.Seats[seat]
		for b := range buttons {
			if !b.valid() {
				return nil, fmt.Errorf("hardware: seat %s: unknown button %q (buttons: %s)", seat, b, buttonNames())
			}
		}
		for _, b := range Buttons { // a fixed order, for stable errors
			name, ok := buttons[b]
			if !ok {
				continue
			}
			use := fmt.Sprintf("seat %s's %s button", seat, b)
			if name == "" {
				return nil, fmt.Errorf("hardware: no pin for %s", use)
			}
			uses = append(uses, pinUse{name: name, use: use, seat: seat, btn: b, led: -1})
		}
	}
	if c.SPI.MaxHz < 0 {
		return nil, fmt.Errorf("hardware: spi.max_hz %d is negative", c.SPI.MaxHz)
	}
	if c.Buttons.Debounce < 0 || c.Buttons.LongPress < 0 {
		return nil, errors.New("hardware: negative button timing")
	}
	if c.Buttons.Sides != 0 && c.Buttons.Sides < 2 {
		return nil, fmt.Errorf("hardware: buttons.sides %d: dice have at least 2 sides", c.Buttons.Sides)
	}

	seen := c.reservedPins()
	for _, u := range uses {
		// "gpio17" and "17" are GPIO17 too: periph knows pins by number.
		key := strings.ToUpper(canonicalPin(u.name))
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("hardware: pin %s named twice: %s and %s", u.name, first, u.use)
		}
		seen[key] = u.use
	}
	return uses, nil
}

// reservedPins are the pins the driver's SPI port takes, by name, each with
// what takes it.
func (c Config) reservedPins() map[string]string {
	r := map[string]string{}
	if c.Driver == DriverShiftRegister || c.Driver == DriverAPA102 {
		for _, p := range spiPins(c.SPI.Port) {
			r[p] = "the SPI port " + c.spiPort()
		}
	}
	return r
}

// spiPort is the SPI port's name for messages.
func (c Config) spiPort() string {
	if c.SPI.Port == "" {
		return "(first SPI port)"
	}
	return c.SPI.Port
}

// spiPins are the GPIO pins a Raspberry Pi's SPI0 takes, so that a button
// on them is caught before it fights the bus: MISO, MOSI and SCLK, and both
// chip selects, which dtparam=spi=on claims whichever one is used.
func spiPins(port string) []string {
	switch strings.ToUpper(port) {
	case "", "SPI0.0", "SPI0.1", "/DEV/SPIDEV0.0", "/DEV/SPIDEV0.1":
		return []string{"GPIO7", "GPIO8", "GPIO9", "GPIO10", "GPIO11"}
	}
	return nil
}

// canonicalPin returns the name a pin is checked and looked up by: "GPIO17"
// for "GPIO17", "gpio17" or "17" (periph's registry knows a Raspberry Pi's
// pins by Broadcom number too, but only as an alias, and its names are case
// sensitive), any other name trimmed as written.
func canonicalPin(name string) string {
	name = strings.TrimSpace(name)
	if n, ok := gpioNumber(name); ok {
		return "GPIO" + strconv.Itoa(n)
	}
	return name
}

// gpioNumber reads the Broadcom number of "GPIO17", "gpio17" or "17".
func gpioNumber(name string) (int, bool) {
	digits := name
	if len(name) > 4 && strings.EqualFold(name[:4], "GPIO") {
		digits = name[4:]
	}
	if digits == "" || len(digits) > 3 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, _ := strconv.Atoi(digits)
	return n, true
}

func buttonNames() string {
	names := make([]string, len(Buttons))
	for i, b := range Buttons {
		names[i] = string(b)
	}
	return strings.Join(names, ", ")
}

// sectionKeys are the keys under which a table's configuration file holds
// the board's Config: "board" in liarsd.yaml, and "hardware".
var sectionKeys = []string{"board", "hardware"}

// DecodeConfig reads a Config from YAML and validates it: either the board's
// section on its own, or a table's configuration file (liarsd.yaml) holding
// it under the key "board" (or "hardware"), whose other keys are left to their readers.
// Unknown keys in the section, or in a file that is the section alone, are
// refused, so a typo is caught at start.
func DecodeConfig(r io.Reader) (Config, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		return Config{}, fmt.Errorf("hardware: reading the configuration: %w", err)
	}
	section := &doc
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0]
		found := ""
		for i := 0; i+1 < len(m.Content); i += 2 {
			key := m.Content[i].Value
			if !slices.Contains(sectionKeys, key) {
				continue
			}
			if found != "" {
				return Config{}, fmt.Errorf("hardware: the configuration has both a %s and a %s section; keep one", found, key)
			}
			found, section = key, m.Content[i+1]
		}
		if found != "" && section.Kind != yaml.MappingNode {
			return Config{}, fmt.Errorf("hardware: the configuration's %s section is not a mapping of the board's settings", found)
		}
	}
	// yaml.Node.Decode cannot refuse unknown fields; a decoder can.
	raw, err := yaml.Marshal(section)
	if err != nil {
		return Config{}, fmt.Errorf("hardware: reading the configuration: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("hardware: reading the configuration: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}
