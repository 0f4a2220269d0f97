package referee

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/liarsd/liarsd/referee/journal"
)

type nopPublisher struct{}

func (nopPublisher) Event(int, []byte) {}
func (nopPublisher) State([]byte)      {}
func (nopPublisher) Reply([]byte)      {}
func (nopPublisher) Vision([]byte)     {}

// post is called on the referee's own goroutine (a computer seat's show, a
// reveal of computer seats alone), the only one that empties its channel:
// with the channel full it must not wait, and what it posts still runs.
func TestPostNeverBlocksTheLoop(t *testing.T) {
	j, resume, err := journal.Open(filepath.Join(t.TempDir(), "t.journal"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r, err := New(Config{Journal: j, Publisher: nopPublisher{}}, resume)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan int, 64)
	posted := make(chan struct{})
	// On the loop: fill the channel, then post once more.
	r.internal <- func() {
		for i := 0; i < cap(r.internal)+1; i++ {
			r.post(func() { ran <- i })
		}
		close(posted)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	select {
	case <-posted:
	case <-time.After(5 * time.Second):
		t.Fatal("post blocked the referee's goroutine on a full channel")
	}
	for n := 0; n < cap(r.internal)+1; n++ {
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatalf("got %d posted functions run; want %d", n, cap(r.internal)+1)
		}
	}
	cancel()
	<-done
}
