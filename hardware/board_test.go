package hardware

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liarsd/liarsd/hardware/hardwaretest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/hardware")

var epoch = time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)

// golden compares got with testdata/hardware/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "hardware", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./hardware -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (run go test ./hardware -update if the change is meant):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestBoardGolden renders what the board shows for bids, calls and outcomes
// at chosen times; testdata/hardware/frames.golden is the reference.
func TestBoardGolden(t *testing.T) {
	star := starBoardLayout(t)
	plain, err := NewLayout(12, 0, []string{"ann", "bob", "cy"})
	mustDo(t, err)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var out strings.Builder
	for _, sc := range []struct {
		name   string
		layout Layout
		do     func(b *Board) error
		at     []time.Duration
	}{
		{"star-board: empty board, ready", star, func(b *Board) error { return b.SetStatus(StatusReady) }, []time.Duration{0}},
		{"star-board: ann bids three 5s, bob's turn", star, func(b *Board) error {
			mustDo(t, b.ShowBid(3, 5, false))
			return b.ShowTurn(1)
		}, []time.Duration{0, ms(777)}},
		{"star-board: two stars (star space 2)", star, func(b *Board) error { return b.ShowBid(2, 1, true) }, []time.Duration{0}},
		{"star-board: thirty 6s, the last number space", star, func(b *Board) error { return b.ShowBid(30, 6, false) }, []time.Duration{0}},
		{"star-board: fifteen stars, the last space", star, func(b *Board) error { return b.ShowBid(15, 1, true) }, []time.Duration{0}},
		{"star-board: cy challenges four 6s, waiting for reveal", star, func(b *Board) error {
			mustDo(t, b.ShowBid(4, 6, false))
			mustDo(t, b.SetStatus(StatusWaitingReveal))
			return b.ShowCall(2)
		}, []time.Duration{0, ms(249), ms(250), ms(500), ms(750)}},
		{"star-board: bob and dee lost, dee is out", star, func(b *Board) error {
			mustDo(t, b.ShowBid(4, 6, false))
			mustDo(t, b.ShowCall(2))
			return b.ShowOutcome([]int{1, 3}, []int{3}, -1)
		}, []time.Duration{0, ms(250)}},
		{"star-board: fay wins the game, the track chases", star, func(b *Board) error {
			mustDo(t, b.ShowBid(9, 2, false))
			return b.ShowOutcome([]int{0}, []int{0}, 5)
		}, []time.Duration{0, ms(60), ms(120), ms(45 * 60)}},
		{"star-board: an out seat stays dim red in the next hand", star, func(b *Board) error {
			mustDo(t, b.ShowOutcome(nil, []int{4}, -1))
			mustDo(t, b.ShowBid(1, 3, false))
			return b.ShowTurn(0)
		}, []time.Duration{0}},
		{"plain track: five 1s, cy's turn", plain, func(b *Board) error {
			mustDo(t, b.ShowBid(5, 1, false))
			return b.ShowTurn(2)
		}, []time.Duration{0}},
		{"status: reading", plain, func(b *Board) error { return b.SetStatus(StatusReading) }, []time.Duration{0, ms(125), ms(250)}},
		{"status: uncertain read, double blink", plain, func(b *Board) error { return b.SetStatus(StatusUncertain) },
			[]time.Duration{0, ms(150), ms(300), ms(450), ms(600)}},
		{"status: error", plain, func(b *Board) error { return b.SetStatus(StatusError) }, []time.Duration{0, ms(75)}},
	} {
		clock := hardwaretest.NewClock(epoch)
		b := NewBoard(sc.layout, clock)
		mustDo(t, sc.do(b))
		fmt.Fprintf(&out, "# %s\n", sc.name)
		for _, d := range sc.at {
			fmt.Fprintf(&out, "%7s  %s\n", fmt.Sprintf("+%dms", d.Milliseconds()), FormatFrame(sc.layout, b.Render(epoch.Add(d)), false))
		}
		out.WriteString("\n")
	}
	golden(t, "frames.golden", []byte(out.String()))
}

func TestBoardCallFlashes(t *testing.T) {
	l := starBoardLayout(t)
	clock := hardwaretest.NewClock(epoch)
	b := NewBoard(l, clock)
	mustDo(t, b.ShowBid(4, 6, false))
	space, _ := l.NumberSpace(4)
	face, _ := l.Face(6)
	caller, _ := l.Seat(2)
	clock.Advance(10 * time.Second) // the call's flash starts when it is made
	mustDo(t, b.ShowCall(2))
	for _, tc := range []struct {
		after time.Duration
		lit   bool
	}{{0, true}, {200 * time.Millisecond, true}, {300 * time.Millisecond, false}, {600 * time.Millisecond, true}} {
		f := b.Render(clock.Now().Add(tc.after))
		if got := f[space].On(); got != tc.lit {
			t.Errorf("space at +%s lit %v; want %v", tc.after, got, tc.lit)
		}
		if got := f[face].On(); got != tc.lit {
			t.Errorf("face at +%s lit %v; want %v", tc.after, got, tc.lit)
		}
		if got := f[caller]; got != Red {
			t.Errorf("caller at +%s = %v; want red", tc.after, got)
		}
	}
}

func TestBoardRefusesAndKeepsState(t *testing.T) {
	l := starBoardLayout(t)
	plain, _ := NewLayout(12, 0, []string{"ann", "bob"})
	b := NewBoard(l, hardwaretest.NewClock(epoch))
	if err := b.ShowCall(0); err == nil {
		t.Error("ShowCall with no bid: no error")
	}
	mustDo(t, b.ShowBid(3, 5, false))
	mustDo(t, b.ShowTurn(1))
	before := FormatFrame(l, b.Render(epoch), false)
	for name, err := range map[string]error{
		"number beyond the track": b.ShowBid(31, 2, false),
		"star beyond the track":   b.ShowBid(16, 1, true),
		"face 7":                  b.ShowBid(3, 7, false),
		"face 0":                  b.ShowBid(3, 0, false),
		"quantity 0":              b.ShowBid(0, 3, false),
		"turn of seat 6":          b.ShowTurn(6),
		"turn of seat -2":         b.ShowTurn(-2),
		"call by seat 9":          b.ShowCall(9),
		"loser 7":                 b.ShowOutcome([]int{7}, nil, -1),
		"out -1":                  b.ShowOutcome(nil, []int{-1}, -1),
		"winner 6":                b.ShowOutcome(nil, nil, 6),
		"status 99":               b.SetStatus(99),
		"star bid on plain board": NewBoard(plain, nil).ShowBid(2, 1, true),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if after := FormatFrame(l, b.Render(epoch), false); after != before {
		t.Errorf("refused input changed the board:\n%s\n%s", before, after)
	}
}

// TestBoardRenderBeforeTheChange: a frame asked for a time before the last
// change (Render(t) for the past, or Frame's clock read just before a Show
// method ran in another goroutine) shows the change's first instant; it
// used to index the chase before the track and panic.
func TestBoardRenderBeforeTheChange(t *testing.T) {
	l := starBoardLayout(t)
	clock := hardwaretest.NewClock(epoch)
	b := NewBoard(l, clock)
	mustDo(t, b.SetStatus(StatusUncertain))
	clock.Advance(10 * time.Second)
	mustDo(t, b.ShowBid(9, 2, false))
	mustDo(t, b.ShowOutcome(nil, nil, 5))
	first := b.Render(clock.Now())
	for _, at := range []time.Time{epoch.Add(-time.Second), epoch, epoch.Add(9 * time.Second), clock.Now().Add(-time.Nanosecond)} {
		var got []Color
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Render(%s before the outcome) panicked: %v", clock.Now().Sub(at), r)
				}
			}()
			got = b.Render(at)
		}()
		if got == nil {
			continue
		}
		// The game's LEDs show the outcome's first instant; the status LED
		// follows its own start (epoch).
		if g, w := FormatFrame(l, got, false), FormatFrame(l, append(first[:l.Status():l.Status()], got[l.Status()]), false); g != w {
			t.Errorf("Render(%s before the outcome):\n%s\nwant the outcome's first frame:\n%s", clock.Now().Sub(at), g, w)
		}
		if at.Before(epoch) && got[l.Status()] != Amber {
			t.Errorf("Render(before the status was set): status %v; want amber, the pattern's first instant", got[l.Status()])
		}
	}
}

func TestBoardClear(t *testing.T) {
	l := starBoardLayout(t)
	b := NewBoard(l, hardwaretest.NewClock(epoch))
	mustDo(t, b.SetStatus(StatusReady))
	mustDo(t, b.ShowBid(3, 5, false))
	mustDo(t, b.ShowOutcome([]int{1}, []int{1}, -1))
	b.Clear()
	f := b.Render(epoch)
	for i, c := range f[:l.Status()] {
		if c != Off {
			t.Errorf("after Clear LED %s = %v; want off", l.Describe(i), c)
		}
	}
	if got := f[l.Status()]; got != Green {
		t.Errorf("status after Clear = %v; want green (Clear keeps the status)", got)
	}
}

func TestBoardNewHand(t *testing.T) {
	l := starBoardLayout(t)
	b := NewBoard(l, hardwaretest.NewClock(epoch))
	mustDo(t, b.ShowBid(3, 5, false))
	mustDo(t, b.ShowCall(0))
	mustDo(t, b.ShowOutcome([]int{1}, []int{1}, -1))
	b.NewHand()
	got := FormatFrame(l, b.Render(epoch), false)
	if want := "track [.............................................] faces [......] seats [.r....] status [.]"; got != want {
		t.Errorf("after NewHand:\n%s\nwant (the seat out stays):\n%s", got, want)
	}
}

func TestStatusString(t *testing.T) {
	if got := StatusUncertain.String(); got != "uncertain" {
		t.Errorf("got %q; want uncertain", got)
	}
	if got := Status(42).String(); got != "Status(42)" {
		t.Errorf("got %q; want Status(42)", got)
	}
}

// TestBoardRun drives a simulated board: frames reach the strip, repeated
// frames are not rewritten, and the board is put out when Run ends.
func TestBoardRun(t *testing.T) {
	l := starBoardLayout(t)
	b := NewBoard(l, nil)
	sim := NewSimStrip(l, nil, false)
	mustDo(t, b.ShowBid(3, 5, false))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- b.Run(ctx, sim, time.Millisecond, nil) }()
	space, _ := l.NumberSpace(3)
	deadline := time.Now().Add(5 * time.Second)
	for sim.Frame()[space] != White {
		if time.Now().After(deadline) {
			t.Fatal("the bid never reached the strip")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if n := sim.Writes(); n != 1 {
		t.Errorf("%d writes of a steady board; want 1", n)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run returned %v; want context.Canceled", err)
	}
	for i, c := range sim.Frame() {
		if c != Off {
			t.Errorf("after Run LED %s = %v; want off", l.Describe(i), c)
		}
	}
	short, _ := NewLayout(4, 0, []string{"a"})
	if err := b.Run(context.Background(), NewSimStrip(short, nil, false), time.Millisecond, nil); err == nil {
		t.Error("Run on a strip of the wrong length: no error")
	}
}

// TestBoardRunPeriod runs the board with no period: it is drawn at
// DefaultFramePeriod, never a panic.
func TestBoardRunPeriod(t *testing.T) {
	l := starBoardLayout(t)
	for _, period := range []time.Duration{0, -time.Second} {
		b := NewBoard(l, nil)
		mustDo(t, b.ShowBid(3, 5, false))
		sim := NewSimStrip(l, nil, false)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- fmt.Errorf("panic: %v", p)
				}
			}()
			done <- b.Run(ctx, sim, period, nil)
		}()
		deadline := time.Now().Add(5 * time.Second)
		for sim.Writes() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run with period %s: got %v; want context.Canceled", period, err)
		}
		if got := sim.Writes(); got != 2 {
			t.Errorf("Run with period %s: got %d writes; want 2 (the bid, then dark)", period, got)
		}
	}
}
