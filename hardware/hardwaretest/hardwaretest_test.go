package hardwaretest

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewClock(start)
	c.Advance(time.Second)
	if got, want := c.Now(), start.Add(time.Second); !got.Equal(want) {
		t.Errorf("Now() = %v; want %v", got, want)
	}
	c.Set(start)
	if got := c.Now(); !got.Equal(start) {
		t.Errorf("Now() = %v; want %v", got, start)
	}
}
