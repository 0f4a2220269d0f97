package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// BenchmarkRevealToResolved measures, at a subscriber of the events topic,
// the time from a call (the cups come up) to its resolved event: the
// camera's capture, the vision read of 20 dice, the engine, the journal's
// fsync and the publish through the embedded broker. The synthetic frame
// is rendered before the call, as a real camera has its frame ready
// (BenchmarkRevealToResolvedRendering includes the rendering). It reports
// the median and the 99th percentile:
//
//	go test ./referee/demo -run '^$' -bench RevealToResolved -benchtime 100x
func BenchmarkRevealToResolved(b *testing.B) { benchReveal(b, true, false) }

// BenchmarkRevealToResolvedRendering is BenchmarkRevealToResolved with the
// synthetic camera rendering each frame at capture.
func BenchmarkRevealToResolvedRendering(b *testing.B) { benchReveal(b, false, false) }

// BenchmarkRevealToResolvedUnconfirmed is BenchmarkRevealToResolved with a
// die the camera does not see at every reveal, and a bid (one 4 at
// common-hand) that the die cannot change where another 4 is seen: the
// referee settles the call with the die unconfirmed, and the time is the
// camera's read, the engine's decision and the rest.
func BenchmarkRevealToResolvedUnconfirmed(b *testing.B) { benchReveal(b, true, true) }

func benchReveal(b *testing.B, prerender, unconfirmed bool) {
	names := []string{"ann", "bob", "cy", "dee"}
	layout := demo.Layout{Width: 1280, Height: 800, DieSize: 44, Seats: names}
	table := demo.NewTable(1)
	rules, bid := "star-board", `{"type":"bid","seat":"ann","quantity":3,"face":4}`
	if unconfirmed {
		rules, bid = "common-hand", `{"type":"bid","seat":"ann","quantity":1,"face":4}`
	}
	cam := demo.NewCamera(table, layout, !unconfirmed, 1)
	if unconfirmed {
		cam.Doubt = 1
	}
	defer cam.Close()
	c := config.Default()
	c.Table, c.StateDir = "bench", b.TempDir()
	c.Broker.Embedded.Listen, c.Broker.Embedded.WebSocket = "127.0.0.1:0", "off"
	for _, p := range layout.Positions() {
		c.Seats = append(c.Seats, config.Seat{Name: p.Name, X: p.X, Y: p.Y})
	}
	c.Camera.Retry = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var ref *referee.Referee
	var url string
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, c, daemon.Options{
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Camera: cam,
			Reader:  visiontest.NewReader(b, vision.Options{StarDice: !unconfirmed, PlainDice: unconfirmed}),
			Started: func(r *referee.Referee, u string) { ref, url = r, u; close(started) },
		})
	}()
	<-started
	var mu sync.Mutex
	resolved := make(chan time.Time, 16)
	settled := 0
	sub := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("bench-watch"))
	if tok := sub.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		b.Fatal(tok.Error())
	}
	sub.Subscribe("liarsdice/bench/events", 1, func(_ paho.Client, m paho.Message) {
		if strings.Contains(string(m.Payload()), `"unconfirmed"`) {
			mu.Lock()
			settled++
			mu.Unlock()
		}
		if strings.Contains(string(m.Payload()), `"type":"resolved"`) {
			resolved <- time.Now()
		}
	}).Wait()
	seconds := 0
	sub.Subscribe("liarsdice/bench/vision", 1, func(_ paho.Client, m paho.Message) {
		mu.Lock()
		seconds++
		mu.Unlock()
	}).Wait()
	do := func(line string) {
		rep, err := ref.Do(ctx, []byte(line), referee.SourceOperator)
		if err != nil || !rep.OK {
			b.Fatalf("%s: %+v %v", line, rep, err)
		}
	}
	var samples []time.Duration
	looks := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		do(fmt.Sprintf(`{"type":"new_game","rules":%q,"seats":["ann","bob","cy","dee"],"first":"ann","seed":%d}`, rules, i))
		table.Roll(map[string]int{"ann": 5, "bob": 5, "cy": 5, "dee": 5}, 6)
		if prerender {
			if err := cam.Prerender(); err != nil {
				b.Fatal(err)
			}
		}
		do(bid)
		b.StartTimer()
		t0 := time.Now()
		do(`{"type":"challenge","seat":"bob"}`)
		select {
		case t1 := <-resolved:
			samples = append(samples, t1.Sub(t0))
		case <-time.After(10 * time.Second):
			// The read stayed in doubt: an operator would step in (not
			// counted in the figures).
			looks++
			b.StopTimer()
			all, _ := json.Marshal(map[string]any{"type": "reveal", "dice": table.All()})
			do(string(all))
			<-resolved
			b.StartTimer()
		}
	}
	b.StopTimer()
	cancel()
	<-done
	sub.Disconnect(100)
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(samples[len(samples)/2]), "median-ms")
	b.ReportMetric(ms(samples[min(len(samples)-1, len(samples)*99/100)]), "p99-ms")
	b.ReportMetric(float64(looks), "looks")
	mu.Lock()
	b.ReportMetric(float64(seconds)/float64(b.N), "recaptures/op")
	if unconfirmed {
		b.ReportMetric(float64(settled)/float64(b.N), "unconfirmed/op")
	}
	mu.Unlock()
}
