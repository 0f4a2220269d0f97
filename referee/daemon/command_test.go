package daemon

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee"
)

// A command is acknowledged to the broker only once its answer is
// published (the broker acknowledged the reply); one that arrives while the
// referee stops is neither answered nor acknowledged, so that the broker
// delivers it again at the next start.
func TestCommandHandlerAcksOnlyAnswered(t *testing.T) {
	cases := []struct {
		name      string
		submitErr error
		answer    *referee.Reply // what the referee answers, when it takes it
		wantReply string
		wantAck   bool
	}{
		{"answered", nil, &referee.Reply{ID: json.RawMessage(`7`), OK: true}, `{"id":7,"ok":true}`, true},
		{"refused", nil, &referee.Reply{ID: json.RawMessage(`7`), Reason: "not_your_turn", Message: "it is ann's turn"},
			`{"id":7,"ok":false,"reason":"not_your_turn","message":"it is ann's turn"}`, true},
		{"busy", referee.ErrBusy, nil, `{"id":7,"ok":false,"reason":"busy","message":"referee: busy, the input queue is full"}`, true},
		{"stopped", referee.ErrStopped, nil, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var replies []string
			acked := make(chan struct{}, 1)
			submit := func(in referee.Input, reply func(referee.Reply)) error {
				if c.submitErr != nil {
					return c.submitErr
				}
				reply(*c.answer)
				return nil
			}
			var published []func()
			h := commandHandler(submit, func(b []byte, sent func()) {
				mu.Lock()
				replies = append(replies, string(b))
				published = append(published, sent)
				mu.Unlock()
			}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			h([]byte(`{"id":7,"type":"bid","seat":"ann","quantity":1,"face":2}`), false, func() { acked <- struct{}{} })
			select {
			case <-acked:
				t.Fatal("acknowledged before the reply was published")
			case <-time.After(50 * time.Millisecond):
			}
			mu.Lock()
			for _, sent := range published {
				sent()
			}
			mu.Unlock()
			gotAck := false
			select {
			case <-acked:
				gotAck = true
			case <-time.After(200 * time.Millisecond):
			}
			if gotAck != c.wantAck {
				t.Errorf("acknowledged: got %v; want %v", gotAck, c.wantAck)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{}
			if c.wantReply != "" {
				want = append(want, c.wantReply)
			}
			if len(replies) != len(want) || len(want) > 0 && replies[0] != want[0] {
				t.Errorf("replies: got %q; want %q", replies, want)
			}
		})
	}
}
