package daemon_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/config"
	"github.com/liarsd/liarsd/referee/daemon"
	"github.com/liarsd/liarsd/referee/mqtt/mqtttest"
)

// rateWindow is how many commands BenchmarkCommandRate's client keeps
// unanswered at once: a client that pipelines, within the referee's input
// queue. -rate.window 1 sends each command once the last is answered,
// which makes ms/reply a round trip.
var rateWindow = flag.Int("rate.window", 32, "commands BenchmarkCommandRate keeps unanswered at once")

// BenchmarkCommandRate measures how many commands one client gets answered
// per second through the broker, the daemon as it runs (the journal synced
// at every line, the embedded broker's store on disk) with a persistent
// QoS 1 subscriber of the events connected. Each command is accepted: a
// new_game, then eight bids, over and over; each is journaled and gives an
// event, the state and a reply. It reports cmd/s and the median time from
// a command to its reply:
//
//	go test ./referee/daemon -run '^$' -bench CommandRate -benchtime 2000x
//	go test ./referee/daemon -run '^$' -bench CommandRate -benchtime 300x -rate.window 1
func BenchmarkCommandRate(b *testing.B) {
	for _, broker := range []string{"embedded", "mosquitto"} {
		b.Run(broker, func(b *testing.B) {
			url := ""
			if broker == "mosquitto" {
				url = mqtttest.StartMosquitto(b).URL()
			}
			c := config.Default()
			c.Table, c.StateDir = "t1", b.TempDir()
			c.Broker.URL = url
			c.Broker.Embedded.Listen, c.Broker.Embedded.WebSocket = "127.0.0.1:0", "off"
			f := false
			c.Broker.HomeAssistant = &f
			url = startForBench(b, c)
			mqtttest.Subscribe(b, url, "watch", "liarsdice/t1/events")

			var mu sync.Mutex
			sent := map[int]time.Time{}
			var rtts []time.Duration
			answered := make(chan struct{}, b.N)
			o := paho.NewClientOptions().AddBroker(url).SetClientID("rate").SetCleanSession(true).SetOrderMatters(false)
			cli := paho.NewClient(o)
			if tok := cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
				b.Fatalf("connecting: %v", tok.Error())
			}
			defer cli.Disconnect(100)
			var bad []string
			tok := cli.Subscribe("liarsdice/t1/reply", 1, func(_ paho.Client, m paho.Message) {
				var r struct {
					ID int  `json:"id"`
					OK bool `json:"ok"`
				}
				_ = json.Unmarshal(m.Payload(), &r)
				mu.Lock()
				if at, ok := sent[r.ID]; ok {
					delete(sent, r.ID)
					rtts = append(rtts, time.Since(at))
					if !r.OK {
						bad = append(bad, string(m.Payload()))
					}
					answered <- struct{}{}
				}
				mu.Unlock()
			})
			if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
				b.Fatalf("subscribing: %v", tok.Error())
			}
			window := make(chan struct{}, *rateWindow)
			go func() {
				for range answered {
					<-window
				}
			}()
			b.ResetTimer()
			start := time.Now()
			for i := 1; i <= b.N; i++ {
				window <- struct{}{}
				mu.Lock()
				sent[i] = time.Now()
				mu.Unlock()
				cli.Publish("liarsdice/t1/cmd", 1, false, rateCommand(i))
			}
			for len(window) > 0 {
				time.Sleep(time.Millisecond)
			}
			took := time.Since(start)
			b.StopTimer()
			close(answered)
			mu.Lock()
			defer mu.Unlock()
			if len(bad) > 0 {
				b.Fatalf("%d commands refused, the first: %s", len(bad), bad[0])
			}
			b.ReportMetric(float64(b.N)/took.Seconds(), "cmd/s")
			if len(rtts) > 0 {
				b.ReportMetric(float64(median(rtts).Microseconds())/1000, "ms/reply")
			}
		})
	}
}

// rateCommand is the benchmark's command i (from 1): a common-hand
// new_game every ninth, bids in turn between them, all accepted.
func rateCommand(i int) []byte {
	k := (i - 1) % 9
	if k == 0 {
		return []byte(fmt.Sprintf(`{"id":%d,"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":%d}`, i, i))
	}
	seat := "ann"
	if k%2 == 0 {
		seat = "bob"
	}
	return []byte(fmt.Sprintf(`{"id":%d,"type":"bid","seat":%q,"quantity":%d,"face":2}`, i, seat, k))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// startForBench runs the daemon on c until the benchmark ends and returns
// its broker's URL once commands can arrive.
func startForBench(b *testing.B, c config.Config) string {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan string, 1)
	go func() {
		done <- daemon.Run(ctx, c, daemon.Options{
			Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
			Started: func(_ *referee.Referee, url string) { started <- url },
		})
	}()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("daemon: %v", err)
		}
	})
	select {
	case url := <-started:
		return url
	case err := <-done:
		b.Fatalf("daemon: %v", err)
	case <-time.After(20 * time.Second):
		b.Fatal("the daemon does not start")
	}
	return ""
}
