package hardware_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/spi/spitest"

	"github.com/liarsd/liarsd/hardware"
	"github.com/liarsd/liarsd/hardware/hardwaretest"
)

// The referee tells the board what happened; the board renders frames.
func ExampleBoard() {
	layout, err := hardware.NewLayout(15, 7, []string{"ann", "bob", "cy"})
	if err != nil {
		fmt.Println(err)
		return
	}
	clock := hardwaretest.NewClock(time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC))
	board := hardware.NewBoard(layout, clock)
	_ = board.SetStatus(hardware.StatusReady)
	_ = board.ShowBid(2, 1, true) // two stars
	_ = board.ShowTurn(1)         // bob to act
	fmt.Println(hardware.FormatFrame(layout, board.Frame(), false))
	_ = board.ShowCall(1) // bob challenges: the bid flashes
	clock.Advance(300 * time.Millisecond)
	fmt.Println(hardware.FormatFrame(layout, board.Frame(), false))
	// Output:
	// track [wwywwY................] faces [Y.....] seats [.G.] status [G]
	// track [wwyww.................] faces [......] seats [.R.] status [G]
}

// A seat's presses become commands in the game record's vocabulary.
func ExampleKeypad() {
	keypad, _ := hardware.NewKeypad([]string{"ann", "bob"}, hardware.KeypadOptions{MaxQuantity: 30, Sides: 6})
	keypad.SetPending(3, 4) // the last bid: three 4s
	for _, p := range []hardware.Press{
		{Seat: "ann", Button: hardware.ButtonFace},      // 5s
		{Seat: "ann", Button: hardware.ButtonBid},       // three 5s
		{Seat: "bob", Button: hardware.ButtonUp},        // four
		{Seat: "bob", Button: hardware.ButtonBid},       // four 4s
		{Seat: "ann", Button: hardware.ButtonChallenge}, // liar!
	} {
		if c, ok := keypad.Press(p); ok {
			line, _ := json.Marshal(c)
			fmt.Println(string(line))
		}
	}
	// Output:
	// {"type":"bid","seat":"ann","quantity":3,"face":5}
	// {"type":"bid","seat":"bob","quantity":4,"face":4}
	// {"type":"challenge","seat":"ann"}
}

// Open builds the board from the table's configuration; with the sim
// driver it needs no Pi.
func ExampleOpen() {
	cfg, err := hardware.DecodeConfig(strings.NewReader(`
driver: sim
seats: [ann, bob]
track: {number_spaces: 10}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	rig, err := hardware.Open(cfg, hardware.OpenOptions{SimInput: strings.NewReader("ann u\nann bid\n")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rig.Close()
	_ = rig.Buttons.Run(context.Background(), func(p hardware.Press) {
		if c, ok := rig.Keypad.Press(p); ok {
			fmt.Printf("%+v\n", c)
		}
	})
	// Output:
	// {Type:bid Seat:ann Quantity:2 Face:1 Bluff:false}
}

func BenchmarkRender(b *testing.B) {
	layout, _ := hardware.NewLayout(30, 15, []string{"a", "b", "c", "d", "e", "f"})
	board := hardware.NewBoard(layout, nil)
	_ = board.ShowBid(17, 5, false)
	_ = board.ShowCall(3)
	_ = board.SetStatus(hardware.StatusWaitingReveal)
	now := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		board.Render(now.Add(time.Duration(i) * time.Millisecond))
	}
}

func BenchmarkAPA102Write(b *testing.B) {
	layout, _ := hardware.NewLayout(30, 15, []string{"a", "b", "c", "d", "e", "f"})
	strip, err := hardware.OpenAPA102Strip(spitest.NewRecordRaw(io.Discard), layout.Len(), 0)
	if err != nil {
		b.Fatal(err)
	}
	board := hardware.NewBoard(layout, nil)
	_ = board.ShowBid(17, 5, false)
	frame := board.Frame()
	b.ReportAllocs()
	for b.Loop() {
		if err := strip.Write(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkShiftRegisterWrite(b *testing.B) {
	layout, _ := hardware.NewLayout(30, 15, []string{"a", "b", "c", "d", "e", "f"})
	strip, err := hardware.OpenShiftRegisterStrip(spitest.NewRecordRaw(io.Discard), layout.Len(), false)
	if err != nil {
		b.Fatal(err)
	}
	frame := make([]hardware.Color, layout.Len())
	b.ReportAllocs()
	for b.Loop() {
		if err := strip.Write(frame); err != nil {
			b.Fatal(err)
		}
	}
}
