package referee

import (
	"errors"
	"fmt"
	"testing"

	"github.com/liarsd/liarsd/engine"
)

func TestLosers(t *testing.T) {
	res := &engine.Resolved{Dice: map[string]int{"ann": -1, "bob": 1}, Out: []string{"cy"}}
	for rules, want := range map[string][]string{"common-hand": {"ann"}, "kids": {"bob"}, "endurance": {"ann", "cy"}} {
		got := losers(rules, res)
		if len(got) != len(want) {
			t.Errorf("%s: got %v; want %v", rules, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v; want %v", rules, got, want)
			}
		}
	}
}

// trackBoard records the bids shown on the track; without star spaces it
// refuses a star space, as a hardware board does.
type trackBoard struct {
	noStars bool
	shown   []string
}

func (b *trackBoard) ShowBid(q, f int, star bool) error {
	if star && b.noStars {
		return errors.New("no star spaces")
	}
	where := "number"
	if star {
		where = "star"
	}
	b.shown = append(b.shown, fmt.Sprintf("%d of %d on %s space %d", q, f, where, q))
	return nil
}
func (b *trackBoard) ShowTurn(string) error                            { return nil }
func (b *trackBoard) ShowCall(string) error                            { return nil }
func (b *trackBoard) ShowOutcome(losers, out []string, w string) error { return nil }
func (b *trackBoard) SetStatus(Status) error                           { return nil }
func (b *trackBoard) Clear()                                           {}

// TestShowBidOnTrack: star-board's star bids and perudo's bids on wild
// ones stand on a star space (q ones right after 2q of a face); a perudo
// board without star spaces shows them on number space q; a palifico
// hand's ones, not wild, and every other bid stand on number spaces.
func TestShowBidOnTrack(t *testing.T) {
	cases := []struct {
		name    string
		snap    engine.Snapshot
		q, f    int
		noStars bool
		want    string
	}{
		{"star-board star", engine.Snapshot{Rules: "star-board", StarDie: true, Wild: true}, 2, 1, false, "2 of 1 on star space 2"},
		{"star-board number", engine.Snapshot{Rules: "star-board", StarDie: true, Wild: true}, 4, 5, false, "4 of 5 on number space 4"},
		{"perudo ones", engine.Snapshot{Rules: "perudo", Wild: true}, 3, 1, false, "3 of 1 on star space 3"},
		{"perudo ones, no star spaces", engine.Snapshot{Rules: "perudo", Wild: true}, 3, 1, true, "3 of 1 on number space 3"},
		{"perudo palifico ones", engine.Snapshot{Rules: "perudo", Palifico: true}, 3, 1, false, "3 of 1 on number space 3"},
		{"perudo face", engine.Snapshot{Rules: "perudo", Wild: true}, 7, 5, false, "7 of 5 on number space 7"},
		{"common-hand wild ones", engine.Snapshot{Rules: "common-hand", Wild: true}, 3, 1, false, "3 of 1 on number space 3"},
	}
	for _, c := range cases {
		b := &trackBoard{noStars: c.noStars}
		if err := showBid(b, c.snap, c.q, c.f); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(b.shown) != 1 || b.shown[0] != c.want {
			t.Errorf("%s: got %v; want %q", c.name, b.shown, c.want)
		}
	}
}
