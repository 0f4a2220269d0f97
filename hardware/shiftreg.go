package hardware

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// ShiftRegisterSpeed is the SPI clock used for 74HC595 chains: well within
// the chip's limits at 3.3 V and long ribbon cables.
const ShiftRegisterSpeed = 1 * physic.MegaHertz

// ShiftRegisterStrip drives single-colour LEDs on a chain of 74HC595 shift
// registers over SPI: MOSI to the first register's SER, SCLK to every SRCLK,
// and the port's chip select to every RCLK, so the outputs change together
// when a frame has been shifted in.
//
// LED i is output Q(i mod 8) of register i/8, the first register being the
// one wired to MOSI. periph's nxp74hc595 drives a single register; a chain
// needs all its bytes in one transaction, so this writes the SPI bytes itself.
type ShiftRegisterStrip struct {
	conn      spi.Conn
	n         int
	activeLow bool
	buf       []byte
}

// NewShiftRegisterStrip returns a strip of n LEDs on the chain behind conn
// (SPI mode 0, 8 bits, MSB first; see OpenShiftRegisterStrip). With
// activeLow, an output goes low to light its LED. The LEDs are put out at
// once.
func NewShiftRegisterStrip(conn spi.Conn, n int, activeLow bool) (*ShiftRegisterStrip, error) {
	if conn == nil {
		return nil, errors.New("hardware: shift registers need an SPI connection")
	}
	if n < 1 {
		return nil, fmt.Errorf("hardware: a shift register chain of %d LEDs", n)
	}
	s := &ShiftRegisterStrip{conn: conn, n: n, activeLow: activeLow, buf: make([]byte, (n+7)/8)}
	if err := s.Write(make([]Color, n)); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenShiftRegisterStrip connects to port at ShiftRegisterSpeed in SPI mode
// 0 and returns a strip of n LEDs on it.
func OpenShiftRegisterStrip(port spi.Port, n int, activeLow bool) (*ShiftRegisterStrip, error) {
	conn, err := port.Connect(ShiftRegisterSpeed, spi.Mode0, 8)
	if err != nil {
		return nil, fmt.Errorf("hardware: shift registers on %s: %w", port, err)
	}
	return NewShiftRegisterStrip(conn, n, activeLow)
}

// Len returns the number of LEDs.
func (s *ShiftRegisterStrip) Len() int { return s.n }

// Registers returns the number of 74HC595 in the chain.
func (s *ShiftRegisterStrip) Registers() int { return len(s.buf) }

// Write shifts frame into the chain in one transaction.
func (s *ShiftRegisterStrip) Write(frame []Color) error {
	if err := checkFrame(frame, s.n); err != nil {
		return err
	}
	encodeShiftRegisters(s.buf, frame, s.activeLow)
	if err := s.conn.Tx(s.buf, nil); err != nil {
		return fmt.Errorf("hardware: shift registers: %w", err)
	}
	return nil
}

// encodeShiftRegisters fills buf with the bytes that show frame. The first
// byte shifted out travels to the far end of the chain, so registers go in
// reverse order; within a byte the MSB, sent first, lands on QH (Q7).
// Unused outputs of the last register stay off.
func encodeShiftRegisters(buf []byte, frame []Color, activeLow bool) {
	regs := len(buf)
	for r := range regs {
		var b byte
		for bit := range 8 {
			i := r*8 + bit
			on := i < len(frame) && frame[i].On()
			if on != activeLow {
				b |= 1 << bit
			}
		}
		buf[regs-1-r] = b
	}
}
