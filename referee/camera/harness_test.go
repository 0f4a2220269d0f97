package camera_test

import (
	"bytes"
	"testing"

	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/referee/journal"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/refereetest"
)

// harness is a referee with the camera's adapter and the operator page's
// reads, over a journal of its own.
type harness struct {
	*refereetest.Harness
	reads *operator.Reads
}

// start runs a referee over the journal at path whose camera is o's.
func start(t *testing.T, path string, o camera.Options) *harness {
	t.Helper()
	reads := &operator.Reads{}
	o.Reads = reads
	a, err := camera.New(o)
	if err != nil {
		t.Fatal(err)
	}
	h := refereetest.Start(t, path, referee.Config{Camera: a, Followers: []referee.Follower{reads}})
	h.AfterStop(func() { _ = a.Close() })
	return &harness{Harness: h, reads: reads}
}

// readJournal returns the journal's record: its lines, each ending in a
// newline.
func readJournal(t *testing.T, path string) []byte {
	t.Helper()
	lines, err := journal.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
