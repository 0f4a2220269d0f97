package venuetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// Player keeps a table playing: it sends the table a new_game of computer
// seats at the start and after each game_over, as a table's own operator
// would, through the broker it is given (the table's own, when the
// table's link to the venue is to be cut).
type Player struct {
	cli   paho.Client
	cmd   string
	line  func(n int) []byte
	games atomic.Int64
	mu    sync.Mutex
	stop  bool
}

// Play connects to url and keeps the table playing games of seats (all
// computer seats, at level strong) with options (a new_game's, or nil).
func Play(t testing.TB, url, prefix, table string, seats []string, options map[string]any) *Player {
	t.Helper()
	comp := map[string]any{}
	for _, s := range seats {
		comp[s] = map[string]any{"level": "strong"}
	}
	p := &Player{cmd: prefix + "/" + table + "/cmd"}
	p.line = func(n int) []byte {
		g := map[string]any{"id": fmt.Sprintf("player-%s-%d-%d", table, time.Now().UnixNano(), n), "type": "new_game", "rules": "common-hand",
			"seats": seats, "computer": comp, "seed": 1000 + n}
		if options != nil {
			g["options"] = options
		}
		b, _ := json.Marshal(g)
		return b
	}
	opts := paho.NewClientOptions().AddBroker(url).SetClientID("player-" + table).
		SetCleanSession(false).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectRetryInterval(200 * time.Millisecond).SetMaxReconnectInterval(time.Second)
	events := prefix + "/" + table + "/events"
	opts.SetOnConnectHandler(func(c paho.Client) { c.Subscribe(events, 1, nil) })
	opts.SetDefaultPublishHandler(func(c paho.Client, m paho.Message) {
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Payload(), &e) == nil && e.Type == "game_over" {
			p.next()
		}
	})
	p.cli = paho.NewClient(opts)
	if tok := p.cli.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("player: connecting to %s: %v", url, tok.Error())
	}
	if tok := p.cli.Subscribe(events, 1, nil); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("player: subscribing: %v", tok.Error())
	}
	p.next()
	t.Cleanup(func() { p.Stop(); p.cli.Disconnect(100) })
	return p
}

// next starts the next game. It never waits: it may run on paho's
// handler.
func (p *Player) next() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop {
		return
	}
	n := p.games.Add(1)
	p.cli.Publish(p.cmd, 1, false, p.line(int(n)))
}

// Games returns the games started.
func (p *Player) Games() int { return int(p.games.Load()) }

// Stop starts no more games.
func (p *Player) Stop() {
	p.mu.Lock()
	p.stop = true
	p.mu.Unlock()
}
