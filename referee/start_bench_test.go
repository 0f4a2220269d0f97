package referee_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/refereetest"
)

// discard is a Publisher that keeps nothing.
type discard struct{}

func (discard) Event(int, []byte) {}
func (discard) State([]byte)      {}
func (discard) Reply([]byte)      {}
func (discard) Vision([]byte)     {}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// BenchmarkStart100k measures a table's start on a journal of 100,000
// lines (whole games of common-hand, every command with an id, as they
// come over MQTT): opening the journal and making the referee, which
// replays it from its last checkpoint (checkpoint), or whole (whole, as
// before the journal had segments). Open checks every segment's lines
// either way; check is that check alone (journal.Check). The journal is
// written by a referee, as a table writes it, a segment every 1,000 lines:
//
//	go test ./referee -run '^$' -bench Start100k -benchtime 10x
func BenchmarkStart100k(b *testing.B) {
	const n = 100_000
	path := filepath.Join(b.TempDir(), "t1.journal")
	j, resume, err := journal.Open(path, journal.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	r, err := referee.New(referee.Config{Table: "t1", Journal: j, Publisher: discard{}, Logger: quietLogger()}, resume)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx)
	}()
	seq := 0
	for i, line := range refereetest.Script("common-hand", []string{"ann", "bob", "cy"}, nil, 1, n)[:n] {
		cmd := fmt.Appendf(nil, `{"id":"c%d",%s`, i+1, line[1:])
		rep, err := r.Do(ctx, cmd, referee.SourceMQTT)
		if err != nil || !rep.OK {
			b.Fatalf("line %d: %+v, %v", i+1, rep, err)
		}
		seq = rep.Seq
	}
	cancel()
	<-done
	j.Close()
	for _, c := range []struct {
		name      string
		published journal.Published
	}{
		// Every event was delivered: the daemon opens the journal with
		// the watermark at the last one, and resumes from the last
		// checkpoint.
		{"checkpoint", journal.Published{Journal: j.ID(), Seq: seq}},
		// No watermark (a new MQTT store): the whole journal is replayed,
		// as every start did before checkpoints.
		{"whole", journal.Published{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				j, resume, err := journal.Open(path, journal.Options{Published: c.published})
				if err != nil {
					b.Fatal(err)
				}
				r, err := referee.New(referee.Config{Table: "t1", Journal: j, Publisher: discard{}, Logger: quietLogger()}, resume)
				if err != nil {
					b.Fatal(err)
				}
				if got := r.JournalSeq(); got != seq {
					b.Fatalf("replayed to seq %d; want %d", got, seq)
				}
				j.Close()
			}
		})
	}
	b.Run("check", func(b *testing.B) {
		for range b.N {
			if rep, err := journal.Check(path); err != nil || rep.Damage != nil || rep.Lines != n {
				b.Fatalf("check: %+v, %v", rep, err)
			}
		}
	})
}
