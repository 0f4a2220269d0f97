package hardware

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"
	"periph.io/x/host/v3"

	"github.com/liarsd/liarsd/hardware/hardwaretest"
)

func loadConfig(t *testing.T, name string) Config {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "hardware", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// fakeMachine is a Raspberry Pi's GPIO2 to GPIO27 as periph's fake pins.
type fakeMachine struct {
	pins map[string]testPin
}

func newFakeMachine() *fakeMachine {
	m := &fakeMachine{pins: map[string]testPin{}}
	for n := 2; n <= 27; n++ {
		name := fmt.Sprintf("GPIO%d", n)
		m.pins[name] = newTestPin(name, n)
	}
	return m
}

// fakeAliases are some of the function names bcm283x registers in
// periph's registry as aliases of a Pi's pins.
var fakeAliases = map[string]string{"SPI0_MOSI": "GPIO10", "PWM0": "GPIO18", "I2C1_SDA": "GPIO2"}

// lookup finds a pin as periph's registry does: names are case sensitive,
// and an alias (a pin's number, a function name) answers with a pin named
// as the alias, the real pin behind it (gpio.RealPin).
func (m *fakeMachine) lookup(name string) gpio.PinIO {
	if p, ok := m.pins[name]; ok {
		return p
	}
	if real, ok := fakeAliases[name]; ok {
		return &fakeAlias{m.pins[real], name}
	}
	var n int
	if _, err := fmt.Sscanf(name, "%d", &n); err == nil && fmt.Sprint(n) == name {
		if p, ok := m.pins[fmt.Sprintf("GPIO%d", n)]; ok {
			return &fakeAlias{p, name}
		}
	}
	return nil
}

// fakeAlias is a pin under another name, as gpioreg's aliases are.
type fakeAlias struct {
	testPin
	name string
}

func (a *fakeAlias) Name() string     { return a.name }
func (a *fakeAlias) Real() gpio.PinIO { return a.testPin }

func (m *fakeMachine) all() []gpio.PinIO {
	var all []gpio.PinIO
	for _, p := range m.pins {
		all = append(all, p)
	}
	return all
}

func (m *fakeMachine) options(port spi.PortCloser) OpenOptions {
	return OpenOptions{
		Clock:     hardwaretest.NewClock(epoch),
		LookupPin: m.lookup,
		AllPins:   m.all,
		OpenSPI:   func(string) (spi.PortCloser, error) { return port, nil },
	}
}

func TestDecodeConfig(t *testing.T) {
	c := loadConfig(t, "gpio.yaml")
	if c.Driver != DriverGPIO || len(c.Seats) != 2 || c.Track.NumberSpaces != 4 {
		t.Errorf("gpio.yaml: driver %q, seats %v, track %+v", c.Driver, c.Seats, c.Track)
	}
	if c.Buttons.Debounce != 30*time.Millisecond || c.Buttons.LongPress != 800*time.Millisecond {
		t.Errorf("gpio.yaml: debounce %s, long press %s; want 30ms, 800ms", c.Buttons.Debounce, c.Buttons.LongPress)
	}
	if got := c.Buttons.Seats["bob"][ButtonChallenge]; got != "GPIO26" {
		t.Errorf("bob's challenge button on %q; want GPIO26", got)
	}
	for _, name := range []string{"shift_register.yaml", "apa102.yaml", "sim.yaml"} {
		loadConfig(t, name)
	}
	for _, key := range []string{"board", "hardware"} {
		nested, err := DecodeConfig(strings.NewReader("camera: {device: 0}\n" + key + ":\n  driver: sim\n  seats: [ann, bob]\n  track: {number_spaces: 10}\nlog: {level: info}\n"))
		if err != nil || nested.Driver != DriverSim || len(nested.Seats) != 2 {
			t.Errorf("a table file with a %s section: got %+v, %v; want the sim board of ann and bob", key, nested, err)
		}
	}
	for _, tc := range []struct{ yaml, want string }{
		{"", "reading the configuration"},
		{"hardware:\n  driver: sim\n  seats: [a]\n  track: {number_spaces: 4}\n  colour: red\n", "field colour not found"},
		{"table: t\nboard:\n  driver: sim\n  seats: [a]\n  track: {number_spaces: 4}\n  colour: red\n", "field colour not found"},
		{"board: {driver: sim, seats: [a], track: {number_spaces: 4}}\nhardware: {driver: sim, seats: [a], track: {number_spaces: 4}}\n", "both a board and a hardware section"},
		{"table: t\nboard: sim\n", "board section is not a mapping"},
		{"table: t\ncamera: {source: /dev/video0}\n", "field table not found"}, // a table file without a board
		{"driver: sim\nseats: [a]\ntrack: {number_spaces: 4}\nleds_typo: {}\n", "field leds_typo not found"},
		{"driver: [", "reading the configuration"},
		{"driver: neon\nseats: [a]\ntrack: {number_spaces: 4}\n", `unknown driver "neon"`},
	} {
		if _, err := DecodeConfig(strings.NewReader(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeConfig(%q) = %v; want an error with %q", tc.yaml, err, tc.want)
		}
	}
}

// TestDecodeConfigTableFile reads the board from the repository's example
// liarsd.yaml, as liarsd hwtest --config and liarsd calibrate --hardware do.
func TestDecodeConfigTableFile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "referee", "liarsd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := DecodeConfig(f)
	if err != nil {
		t.Fatalf("liarsd.yaml: got %v; want its board section", err)
	}
	if want := []string{"ann", "bob", "cy", "dee"}; c.Driver != DriverSim || !slices.Equal(c.Seats, want) ||
		c.Track != (TrackConfig{NumberSpaces: 20, StarSpaces: 10}) {
		t.Errorf("liarsd.yaml: got driver %q, seats %v, track %+v; want sim, %v, 20 and 10 spaces", c.Driver, c.Seats, c.Track, want)
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		file   string
		change func(c *Config)
		want   string
	}{
		{"a pin named twice", "gpio.yaml", func(c *Config) { c.Buttons.Seats["bob"][ButtonBid] = "GPIO3" },
			"pin GPIO3 named twice: LED track 2: number space 2 and seat bob's bid button"},
		{"a pin named twice in another case", "gpio.yaml", func(c *Config) { c.LEDs.Status = "gpio2" },
			"pin gpio2 named twice: LED track 1: number space 1 and LED status"},
		{"a button on the SPI bus", "apa102.yaml", func(c *Config) { c.Buttons.Seats["ann"][ButtonBid] = "GPIO10" },
			"pin GPIO10 named twice: the SPI port SPI0.0 and seat ann's bid button"},
		{"a button on a chip select", "shift_register.yaml", func(c *Config) { c.Buttons.Seats["dee"][ButtonFace] = "GPIO7" },
			"pin GPIO7 named twice: the SPI port SPI0.0 and seat dee's face button"},
		{"too few track LEDs", "gpio.yaml", func(c *Config) { c.LEDs.Track = c.LEDs.Track[:3] },
			"leds.track names 3 pins for a track of 4 spaces"},
		{"five face LEDs", "gpio.yaml", func(c *Config) { c.LEDs.Faces = c.LEDs.Faces[:5] }, "leds.faces names 5 pins, not 6"},
		{"a seat without an LED", "gpio.yaml", func(c *Config) { delete(c.LEDs.Seats, "bob") }, `no pin for seat "bob"`},
		{"one pin by name and by number", "gpio.yaml", func(c *Config) { c.Buttons.Seats["bob"][ButtonBid] = "24" },
			"pin 24 named twice: LED seat ann and seat bob's bid button"},
		{"a button on the SPI bus by number", "apa102.yaml", func(c *Config) { c.Buttons.Seats["ann"][ButtonBid] = "10" },
			"pin 10 named twice: the SPI port SPI0.0 and seat ann's bid button"},
		{"a button on a chip select in small letters", "apa102.yaml", func(c *Config) { c.Buttons.Seats["cy"][ButtonFace] = "gpio08" },
			"pin gpio08 named twice: the SPI port SPI0.0 and seat cy's face button"},
		{"an LED for a stranger", "gpio.yaml", func(c *Config) { c.LEDs.Seats["zed"] = "GPIO21" }, `seat "zed", which is not at the table`},
		{"no status LED", "gpio.yaml", func(c *Config) { c.LEDs.Status = "" }, "no pin for LED status"},
		{"LED pins for an SPI strip", "apa102.yaml", func(c *Config) { c.LEDs.Status = "GPIO21" }, "driver apa102 does not use them"},
		{"an unknown button", "gpio.yaml", func(c *Config) { c.Buttons.Seats["ann"]["pass"] = "GPIO21" }, `seat ann: unknown button "pass"`},
		{"buttons for a stranger", "gpio.yaml", func(c *Config) { c.Buttons.Seats["zed"] = map[Button]string{ButtonBid: "GPIO21"} }, `seat "zed", which is not at the table`},
		{"an empty pin name", "gpio.yaml", func(c *Config) { c.Buttons.Seats["ann"][ButtonBid] = "" }, "no pin for seat ann's bid button"},
		{"too many star spaces", "sim.yaml", func(c *Config) { c.Track.StarSpaces = 16 }, "16 star spaces need 32 number spaces"},
		{"one-sided dice", "sim.yaml", func(c *Config) { c.Buttons.Sides = 1 }, "at least 2 sides"},
		{"negative debounce", "sim.yaml", func(c *Config) { c.Buttons.Debounce = -1 }, "negative button timing"},
	} {
		c := loadConfig(t, tc.file)
		tc.change(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestOpenGPIO opens the small GPIO board on periph's fake pins, shows a
// frame and presses a button through the pin map.
func TestOpenGPIO(t *testing.T) {
	m := newFakeMachine()
	opts := m.options(nil)
	opts.Clock = nil // the buttons' timing is checked with a fake clock in TestGPIOButtons
	rig, err := Open(loadConfig(t, "gpio.yaml"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rig.Close()
	mustDo(t, rig.Board.ShowBid(3, 6, false))
	mustDo(t, rig.Board.ShowTurn(1))
	mustDo(t, rig.Strip.Write(rig.Board.Frame()))
	for name, want := range map[string]gpio.Level{
		"GPIO4": gpio.High, "GPIO3": gpio.Low, // number space 3 lit, 2 dark
		"GPIO23": gpio.High, "GPIO22": gpio.Low, // face 6 lit, 5 dark
		"GPIO10": gpio.High, "GPIO24": gpio.Low, // bob's turn
	} {
		if got := m.pins[name].Read(); got != want {
			t.Errorf("%s = %s; want %s", name, got, want)
		}
	}
	// Buttons are inputs with pull-ups.
	if got := m.pins["GPIO26"].Pull(); got != gpio.PullUp {
		t.Errorf("bob's challenge button pull %s; want PullUp", got)
	}
	if rig.Keypad == nil || rig.Buttons == nil {
		t.Fatal("no keypad or buttons")
	}
	ctx, cancel := context.WithCancel(context.Background())
	presses := make(chan Press, 1)
	done := make(chan error)
	go func() { done <- rig.Buttons.Run(ctx, func(p Press) { presses <- p }) }()
	pin := m.pins["GPIO26"]
	pin.EdgesChan <- gpio.Low
	time.Sleep(2 * DefaultDebounce)
	pin.EdgesChan <- gpio.High
	select {
	case p := <-presses:
		if p.Seat != "bob" || p.Button != ButtonChallenge {
			t.Errorf("press %v; want bob's challenge", p)
		}
		if c, ok := rig.Keypad.Press(p); !ok || c != (Command{Type: "challenge", Seat: "bob"}) {
			t.Errorf("command %v, %v; want bob's challenge", c, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no press")
	}
	cancel()
	<-done
}

func TestOpenSPIDrivers(t *testing.T) {
	for _, tc := range []struct {
		file   string
		writes int // SPI transactions for Open and one frame
	}{
		{"shift_register.yaml", 2},
		{"apa102.yaml", 2},
	} {
		m := newFakeMachine()
		rec := &spitest.Record{}
		rig, err := Open(loadConfig(t, tc.file), m.options(rec))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		mustDo(t, rig.Board.ShowBid(5, 2, false))
		mustDo(t, rig.Strip.Write(rig.Board.Frame()))
		if got := len(rec.Ops); got != tc.writes {
			t.Errorf("%s: %d SPI writes; want %d", tc.file, got, tc.writes)
		}
		mustDo(t, rig.Close())
		if got := m.pins["GPIO2"].Pull(); got != gpio.PullUp {
			t.Errorf("%s: ann's up button pull %s; want PullUp", tc.file, got)
		}
	}
	// The shift register chain is sized from the layout: 41 LEDs, 6 bytes.
	rec := &spitest.Record{}
	rig, err := Open(loadConfig(t, "shift_register.yaml"), newFakeMachine().options(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rec.Ops[0].W); got != 6 {
		t.Errorf("shift register writes %d bytes; want 6", got)
	}
	rig.Close()
}

func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		file   string
		change func(c *Config, m *fakeMachine, o *OpenOptions)
		want   string
	}{
		{"a pin this board does not have", "gpio.yaml", func(c *Config, m *fakeMachine, o *OpenOptions) {
			c.Buttons.Seats["bob"][ButtonBid] = "GPIO40"
		}, "pin GPIO40 (seat bob's bid button) does not exist on this board"},
		{"one pin under a function's name and its own", "gpio.yaml", func(c *Config, m *fakeMachine, o *OpenOptions) {
			c.Buttons.Seats["bob"][ButtonBid] = "PWM0"
		}, "pin GPIO18 named twice: LED face 2 (as GPIO18) and seat bob's bid button (as PWM0)"},
		{"a button on the SPI bus under a function's name", "apa102.yaml", func(c *Config, m *fakeMachine, o *OpenOptions) {
			c.Buttons.Seats["ann"][ButtonBid] = "SPI0_MOSI"
		}, "pin GPIO10 named twice: the SPI port SPI0.0 and seat ann's bid button (as SPI0_MOSI)"},
		{"no GPIO at all", "apa102.yaml", func(c *Config, m *fakeMachine, o *OpenOptions) {
			o.AllPins = func() []gpio.PinIO { return nil }
		}, "this machine has no GPIO (pins given by the caller; not a Raspberry Pi?): cannot open pin GPIO2 for seat ann's quantity_up button"},
		{"no SPI", "apa102.yaml", func(c *Config, m *fakeMachine, o *OpenOptions) {
			o.OpenSPI = func(string) (spi.PortCloser, error) { return nil, errors.New("no such file") }
		}, "opening SPI port SPI0.0: no such file"},
		{"a button that cannot detect edges", "gpio.yaml", func(c *Config, m *fakeMachine, o *OpenOptions) {
			m.pins["GPIO26"].EdgesChan = nil
		}, "seat bob's challenge button on GPIO26"},
	} {
		m := newFakeMachine()
		c := loadConfig(t, tc.file)
		o := m.options(&spitest.Record{})
		tc.change(&c, m, &o)
		rig, err := Open(c, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		}
		if rig != nil {
			t.Errorf("%s: a rig on error", tc.name)
		}
	}
}

// TestOpenPinNames: a pin may be written as periph's registry would not
// find it as written ("gpio17", " 17 "); it is GPIO17 all the same.
func TestOpenPinNames(t *testing.T) {
	for _, name := range []string{"GPIO21", "gpio21", "Gpio21", "21", " GPIO21 ", "GPIO021"} {
		m := newFakeMachine()
		c := loadConfig(t, "apa102.yaml")
		c.Buttons.Seats["ann"][ButtonBid] = name
		rig, err := Open(c, m.options(&spitest.Record{}))
		if err != nil {
			t.Errorf("bid button on %q: %v; want it on GPIO21", name, err)
			continue
		}
		if got := m.pins["GPIO21"].Pull(); got != gpio.PullUp {
			t.Errorf("bid button on %q: GPIO21's pull %s; want PullUp", name, got)
		}
		mustDo(t, rig.Close())
	}
}

func TestCanonicalPin(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"GPIO17", "GPIO17"}, {"gpio17", "GPIO17"}, {"17", "GPIO17"}, {" 17\t", "GPIO17"}, {"GPIO017", "GPIO17"},
		{"GPIO", "GPIO"}, {"GPIO-1", "GPIO-1"}, {"+17", "+17"}, {"GPIO1234", "GPIO1234"}, {"SPI0_MOSI", "SPI0_MOSI"}, {"P1_11", "P1_11"},
	} {
		if got := canonicalPin(tc.name); got != tc.want {
			t.Errorf("canonicalPin(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestHeaderOnly: on a Raspberry Pi only the header's GPIO0 to GPIO27 are
// offered, however a pin is named; the SoC's others run the SD card, Wi-Fi,
// audio and the activity LED.
func TestHeaderOnly(t *testing.T) {
	m := newFakeMachine()
	for _, n := range []int{40, 42} {
		name := fmt.Sprintf("GPIO%d", n)
		m.pins[name] = newTestPin(name, n)
	}
	fakeAliases["PWM1"] = "GPIO40" // a Pi 4's audio
	defer delete(fakeAliases, "PWM1")
	lookup := headerOnly(m.lookup)
	for _, tc := range []struct {
		name string
		want string // the real pin found, "" for none
	}{
		{"GPIO17", "GPIO17"}, {"GPIO27", "GPIO27"}, {"PWM0", "GPIO18"}, {"24", "GPIO24"},
		{"GPIO40", ""}, {"GPIO42", ""}, {"PWM1", ""}, {"GPIO99", ""},
	} {
		got := ""
		if p := lookup(tc.name); p != nil {
			got = realPinName(p)
		}
		if got != tc.want {
			t.Errorf("lookup(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
	// Open names the pin and the board.
	c := loadConfig(t, "apa102.yaml")
	c.Buttons.Seats["bob"][ButtonBid] = "GPIO40"
	o := m.options(&spitest.Record{})
	o.LookupPin = lookup
	_, err := Open(c, o)
	if want := "pin GPIO40 (seat bob's bid button) does not exist on this board"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open with a button on GPIO40: %v; want an error with %q", err, want)
	}
}

// fakeChip is a GPIO character device's chip for pi5Lookup.
type fakeChip struct {
	label string
	lines []testPin
}

func (c fakeChip) Label() string { return c.label }

func (c fakeChip) line(name string) gpio.PinIO {
	for _, l := range c.lines {
		if l.Name() == name {
			return l
		}
	}
	return nil
}

func (c fakeChip) lineNumber(n int) gpio.PinIO {
	if n < 0 || n >= len(c.lines) {
		return nil
	}
	return c.lines[n]
}

// TestPi5Lookup: on a Pi 5 pins come from the GPIO character device's
// chips, by line name or, for GPIOn, as line n of the RP1; never from
// periph's registry, whose GPIOn are bcm283x's (the Pi 4's registers).
func TestPi5Lookup(t *testing.T) {
	rp1 := fakeChip{label: rp1Label}
	for n := range 54 {
		name := fmt.Sprintf("GPIO%d", n)
		switch {
		case n == 0:
			name = "ID_SDA"
		case n == 1:
			name = "ID_SCL"
		case n > 27:
			name = fmt.Sprintf("RP1_LINE%d", n)
		}
		rp1.lines = append(rp1.lines, newTestPin(name, n))
	}
	soc := fakeChip{label: "gpio-brcmstb@107d508500", lines: []testPin{newTestPin("2712_BOOT_CS_N", 0), newTestPin("PWR_GPIO", 1)}}
	// Unnamed RP1 lines: only the number finds them.
	bare := fakeChip{label: rp1Label}
	for n := range 54 {
		bare.lines = append(bare.lines, newTestPin("", n))
	}
	for _, tc := range []struct {
		chips []lineChip
		name  string
		want  string // chip label and line number, "" for none
	}{
		{[]lineChip{soc, rp1}, "GPIO17", "pinctrl-rp1 17"},
		{[]lineChip{soc, rp1}, "GPIO0", "pinctrl-rp1 0"}, // named ID_SDA
		{[]lineChip{soc, rp1}, "ID_SDA", "pinctrl-rp1 0"},
		{[]lineChip{soc, rp1}, "PWR_GPIO", "gpio-brcmstb@107d508500 1"},
		{[]lineChip{soc, rp1}, "GPIO28", ""},
		{[]lineChip{soc, rp1}, "SPI0_MOSI", ""}, // a bcm283x alias
		{[]lineChip{soc, bare}, "GPIO10", "pinctrl-rp1 10"},
		{[]lineChip{soc}, "GPIO10", ""}, // no RP1
		{nil, "GPIO10", ""},
	} {
		got := ""
		if p := pi5Lookup(tc.chips)(tc.name); p != nil {
			for _, c := range tc.chips {
				for _, l := range c.(fakeChip).lines {
					if gpio.PinIO(l) == p {
						got = fmt.Sprintf("%s %d", c.Label(), l.Number())
					}
				}
			}
		}
		if got != tc.want {
			t.Errorf("pi5Lookup(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
}

func TestIsRaspberryPi(t *testing.T) {
	for _, tc := range []struct {
		model      string
		compatible []string
		want       bool
	}{
		{"Raspberry Pi 4 Model B Rev 1.5", nil, true},
		{"Raspberry Pi 5 Model B Rev 1.0", []string{"raspberrypi,5-model-b", "brcm,bcm2712"}, true},
		{"unknown model", []string{"raspberrypi,4-model-b"}, true},
		{"unknown model", nil, false},
		{"Radxa ROCK 5B", []string{"radxa,rock-5b", "rockchip,rk3588"}, false},
	} {
		if got := isRaspberryPi(tc.model, tc.compatible); got != tc.want {
			t.Errorf("isRaspberryPi(%q, %q) = %v; want %v", tc.model, tc.compatible, got, tc.want)
		}
	}
}

// TestOpenOnThisMachine opens a real pin map with periph's real host
// drivers. On a machine without GPIO (this project's CI) it must say so and
// name the pin, not panic.
func TestOpenOnThisMachine(t *testing.T) {
	if _, err := host.Init(); err != nil {
		t.Skipf("host.Init: %v", err)
	}
	if len(gpioreg.All()) > 0 {
		t.Skip("this machine has GPIO: not opening the test pin map on real pins")
	}
	_, err := Open(loadConfig(t, "gpio.yaml"), OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "no GPIO") || !strings.Contains(err.Error(), "GPIO2") {
		t.Errorf("Open on a machine without GPIO: %v; want a no GPIO error naming GPIO2", err)
	}
}

func TestOpenSim(t *testing.T) {
	var out strings.Builder
	rig, err := Open(loadConfig(t, "sim.yaml"), OpenOptions{SimOutput: &out, SimInput: strings.NewReader("fay bid\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer rig.Close()
	if rig.Sim == nil || rig.Strip != Strip(rig.Sim) || rig.Platform != "simulated board" {
		t.Fatalf("sim rig: Sim %v, Platform %q", rig.Sim, rig.Platform)
	}
	mustDo(t, rig.Board.ShowBid(2, 1, true))
	mustDo(t, rig.Strip.Write(rig.Board.Frame()))
	if !strings.HasPrefix(out.String(), "track [wwywwY....") {
		t.Errorf("printed %q", out.String())
	}
	var got []Press
	mustDo(t, rig.Buttons.Run(context.Background(), func(p Press) { got = append(got, p) }))
	if len(got) != 1 || got[0].Seat != "fay" || got[0].Button != ButtonBid {
		t.Errorf("presses %v; want fay's bid", got)
	}
}

func TestIsPi5(t *testing.T) {
	for _, tc := range []struct {
		model      string
		compatible []string
		want       bool
	}{
		{"Raspberry Pi 5 Model B Rev 1.0", []string{"raspberrypi,5-model-b", "brcm,bcm2712"}, true},
		{"Raspberry Pi Compute Module 5 Rev 1.0", nil, true},
		{"<unknown>", []string{"brcm,bcm2712"}, true},
		{"Raspberry Pi 4 Model B Rev 1.5", []string{"raspberrypi,4-model-b", "brcm,bcm2711"}, false},
		{"<unknown>", nil, false},
	} {
		if got := isPi5(tc.model, tc.compatible); got != tc.want {
			t.Errorf("isPi5(%q, %q) = %v; want %v", tc.model, tc.compatible, got, tc.want)
		}
	}
}

// closeRecord is periph's spitest.Record noting how many writes it had when
// it was released.
type closeRecord struct {
	spitest.Record
	closed     bool
	opsAtClose int
}

func (r *closeRecord) Close() error {
	r.closed, r.opsAtClose = true, len(r.Ops)
	return r.Record.Close()
}

// TestRigClosePutsLEDsOut opens each driver on periph's fakes, lights a bid,
// closes the rig and checks that every LED is dark, sent before the SPI port
// is released.
func TestRigClosePutsLEDsOut(t *testing.T) {
	for _, file := range []string{"gpio.yaml", "shift_register.yaml", "apa102.yaml", "sim.yaml"} {
		t.Run(file, func(t *testing.T) {
			m := newFakeMachine()
			port := &closeRecord{}
			c := loadConfig(t, file)
			rig, err := Open(c, m.options(port))
			if err != nil {
				t.Fatal(err)
			}
			mustDo(t, rig.Board.ShowBid(2, 3, false))
			mustDo(t, rig.Board.ShowTurn(0))
			mustDo(t, rig.Board.SetStatus(StatusReady))
			mustDo(t, rig.Strip.Write(rig.Board.Frame()))
			mustDo(t, rig.Close())
			mustDo(t, rig.Close()) // a second Close does nothing
			switch c.Driver {
			case DriverGPIO:
				var names []string
				names = append(names, c.LEDs.Track...)
				names = append(names, c.LEDs.Faces...)
				for _, s := range c.Seats {
					names = append(names, c.LEDs.Seats[s])
				}
				for _, name := range append(names, c.LEDs.Status) {
					if got := m.lookup(name).Read(); got != gpio.Low {
						t.Errorf("LED pin %s after Close: got %s; want Low", name, got)
					}
				}
			case DriverShiftRegister, DriverAPA102:
				if !port.closed {
					t.Fatal("the SPI port was not released")
				}
				if port.opsAtClose == 0 || len(port.Ops) != port.opsAtClose {
					t.Fatalf("got %d SPI writes, %d of them before the port was released; want every one before", len(port.Ops), port.opsAtClose)
				}
				last := port.Ops[port.opsAtClose-1].W
				if c.Driver == DriverShiftRegister {
					want := make([]byte, len(last))
					encodeShiftRegisters(want, make([]Color, rig.Layout.Len()), c.ActiveLow)
					if !slices.Equal(last, want) {
						t.Errorf("last shift register bytes: got % x; want % x", last, want)
					}
					break
				}
				for i := range rig.Layout.Len() { // start frame, then 0xE0|brightness, blue, green, red
					if px := last[4+4*i : 8+4*i]; px[1] != 0 || px[2] != 0 || px[3] != 0 {
						t.Errorf("APA102 LED %s after Close: got % x; want no colour", rig.Layout.Describe(i), px)
					}
				}
			case DriverSim:
				for i, col := range rig.Sim.Frame() {
					if col != Off {
						t.Errorf("simulated LED %s after Close: got %v; want off", rig.Layout.Describe(i), col)
					}
				}
			}
		})
	}
}
