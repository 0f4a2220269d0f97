package hardware

import (
	"context"
	"errors"
	"time"
)

// Walk lights every LED of strip in turn, in layout order, each alone for
// step, so that an installer can check the wiring; it calls each(i) as LED i
// lights. It puts the strip out and returns when the walk is done (nil), ctx
// is done (ctx's error) or a write fails.
func Walk(ctx context.Context, strip Strip, step time.Duration, each func(i int)) error {
	if strip == nil {
		return errors.New("hardware: no strip to walk")
	}
	frame := make([]Color, strip.Len())
	defer func() { _ = strip.Write(make([]Color, strip.Len())) }()
	timer := time.NewTimer(0)
	<-timer.C
	for i := range frame {
		clear(frame)
		frame[i] = White
		if err := strip.Write(frame); err != nil {
			return err
		}
		if each != nil {
			each(i)
		}
		timer.Reset(step)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
	return nil
}
