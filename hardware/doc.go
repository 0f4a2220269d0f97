// Package hardware drives a table's board through periph.io: the LEDs of the
// bidding track and the seat buttons.
package hardware
