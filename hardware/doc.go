// Package hardware drives a table's board through periph.io: the LEDs of the
// bidding track and the seat buttons.
//
// The package has three layers, each usable without the others:
//
//   - Board is a pure model of what the table shows: the bid on the
//     bidding track and the face LEDs, whose turn it is, a call, the outcome
//     of a call and the status LED. It renders frames (one Color per LED,
//     in Layout order) as a function of time, read from an injected Clock.
//   - A Strip puts frames on real LEDs: GPIOStrip (one pin per LED),
//     ShiftRegisterStrip (a chain of 74HC595 on SPI), APA102Strip (colour
//     LEDs on SPI) or SimStrip (a simulated board for terminals and tests).
//   - GPIOButtons watch the seat buttons (GPIO inputs with pull-ups and edge
//     detection), debounce them and tell short presses from long ones
//     (SimButtons reads presses typed as text);
//     a Keypad turns presses into commands in the game record's vocabulary.
//
// Config is the board's section of a table's configuration file (YAML,
// board: in liarsd.yaml); Open checks it against the machine (host.Init,
// gpioreg, spireg) and builds the pieces, or a simulated board when the
// driver is "sim". RemapStrip and PressMap apply the wiring a calibration
// recorded: the chain's LED order and buttons wired to other pins.
//
// The package does not know the rules: the referee tells the Board what to
// show and forwards the Keypad's commands to the engine.
package hardware
