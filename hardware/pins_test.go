package hardware

import (
	"fmt"
	"testing"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// testPin is periph's own fake pin: set L for inputs, push levels into
// EdgesChan for edges.
type testPin = *gpiotest.Pin

func newTestPin(name string, num int) testPin {
	return &gpiotest.Pin{N: name, Num: num, EdgesChan: make(chan gpio.Level)}
}

func newTestPins(t *testing.T, n int) []testPin {
	pins := make([]testPin, n)
	for i := range pins {
		pins[i] = newTestPin(fmt.Sprintf("GPIO%d", i+2), i+2)
	}
	return pins
}
