package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/camera"
	"github.com/liarsd/liarsd/vision"
)

// maxRevealDice is the most dice of a photograph benchReveals deals to a
// seat (the dice option's limit, kids' seats').
const maxRevealDice = 20

// revealPresets are the presets whose dice the camera reads, as
// benchReveals plays them.
var revealPresets = []string{"common-hand", "classic", "star-board", "tavern", "endurance", "kids"}

// labelZones gives a die the seat of the labelled die whose box holds its
// centre: the photograph's dice are the seats' as benchReveals deals them.
type labelZones struct {
	labels []vision.Label
	seats  []string // the seat of each label
}

func (z labelZones) SeatOf(d vision.Die) (string, bool) {
	for i, k := range vision.Match([]vision.Die{d}, z.labels) {
		if k == 0 {
			return z.seats[i], true
		}
	}
	return "", false
}

// revealTally counts one preset's replayed reveals.
type revealTally struct {
	reveals, skipped int
	// doubted are the reveals with a die in doubt, missed or invented
	// (each waited for a person before doubts were settled); waiting those
	// that still wait (Settle cannot settle them).
	doubted, waiting int
	// wrongSure and wrongSettled are the reveals resolved otherwise than
	// the labelled dice resolve them: read wholly confidently, or settled
	// with dice in doubt.
	wrongSure, wrongSettled int
}

// benchReveals replays each photograph of split as n reveals of random
// bids at a table of each preset whose dice the camera reads, and counts
// the reveals that wait for a person: before doubts that cannot change
// the verdict were settled (any die in doubt, missed or invented) and
// after (Settle cannot settle the read). The photograph's dice are one
// seat's, beside two computer seats of as many dice (kids: a seat a die),
// the bid is a random face at about the expected count, and the next seat
// challenges or calls it spot on.
func benchReveals(ctx context.Context, dir, split, subset string, n int, newReader func(vision.Options) *vision.Reader, out io.Writer) error {
	byImage, names, err := photoLabels(dir, split, subset)
	if err != nil {
		return err
	}
	reads := map[bool][][]vision.Die{} // by star dice: each photograph's read
	for _, star := range []bool{false, true} {
		reader := newReader(vision.Options{StarDice: star, PlainDice: !star})
		if reader == nil {
			return fmt.Errorf("no reader")
		}
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				reader.Close()
				return err
			}
			img, err := vision.LoadImage(filepath.Join(dir, split, name))
			if err != nil {
				reader.Close()
				return err
			}
			dice, err := reader.Read(img)
			img.Close()
			if err != nil {
				reader.Close()
				return err
			}
			reads[star] = append(reads[star], dice)
		}
		reader.Close()
	}
	fmt.Fprintf(out, "reveals: each of %d photographs of %s as %d reveals of random bids a preset; waiting: for a person\n", len(names), split, n)
	var all revealTally
	for p, preset := range revealPresets {
		var t revealTally
		for i, name := range names {
			for k := 0; k < n; k++ {
				rng := rand.New(rand.NewPCG(uint64(i)<<8|uint64(p), uint64(k)))
				if err := replayReveal(preset, byImage[name], reads[preset == "star-board"][i], rng, &t); err != nil {
					return fmt.Errorf("%s, %s: %w", preset, name, err)
				}
			}
		}
		fmt.Fprintf(out, "  %-12s %5d reveals: %5.1f%% waited before (%d), %5.1f%% wait now (%d); verdicts unlike the labels': %d read confidently, %d settled in doubt (%d skipped: a photograph of more than %d dice, or kids with one)\n",
			preset, t.reveals, pct(t.doubted, t.reveals), t.doubted, pct(t.waiting, t.reveals), t.waiting, t.wrongSure, t.wrongSettled, t.skipped, maxRevealDice)
		all.reveals += t.reveals
		all.doubted += t.doubted
		all.waiting += t.waiting
		all.wrongSure += t.wrongSure
		all.wrongSettled += t.wrongSettled
	}
	fmt.Fprintf(out, "  %-12s %5d reveals: %5.1f%% waited before (%d), %5.1f%% wait now (%d); of the reveals in doubt, %.1f%% wait now; verdicts unlike the labels': %d read confidently, %d settled in doubt\n",
		"all", all.reveals, pct(all.doubted, all.reveals), all.doubted, pct(all.waiting, all.reveals), all.waiting, pct(all.waiting, all.doubted), all.wrongSure, all.wrongSettled)
	return nil
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// replayReveal plays one reveal of the labelled dice (read as dice) at a
// table of preset and tallies it.
func replayReveal(preset string, labels []vision.Label, dice []vision.Die, rng *rand.Rand, t *revealTally) error {
	if len(labels) == 0 || len(labels) > maxRevealDice {
		t.skipped++
		return nil
	}
	seats := make([]string, len(labels))
	truth := map[string][]int{}
	var names []string
	computer := map[string]any{}
	if preset == "kids" {
		if len(labels) < 2 {
			t.skipped++
			return nil
		}
		for i, l := range labels {
			seats[i] = fmt.Sprintf("s%d", i+1)
			names = append(names, seats[i])
			truth[seats[i]] = []int{l.Face}
		}
	} else {
		for i, l := range labels {
			seats[i] = "cam"
			truth["cam"] = append(truth["cam"], l.Face)
		}
		names = []string{"cam", "c1", "c2"}
		computer = map[string]any{"c1": map[string]any{"insight": 0}, "c2": map[string]any{"insight": 0}}
	}
	want := map[string]int{}
	for s, f := range truth {
		want[s] = len(f)
	}
	game := map[string]any{"type": "new_game", "rules": preset, "seats": names, "first": names[0], "seed": rng.Int64N(1 << 40)}
	if preset != "kids" {
		game["computer"] = computer
		game["options"] = map[string]any{"dice": len(labels)}
		if preset == "star-board" {
			game["options"] = map[string]any{"dice": len(labels), "show_reroll": false}
		}
	}
	total := len(labels) * len(names)
	if preset == "kids" {
		total = len(labels)
	}
	face := 1 + rng.IntN(6)
	share := 1.0 / 6
	if preset == "star-board" && face != 1 {
		share = 1.0 / 3
	}
	q := int(math.Round(float64(total)*share + 3*rng.Float64() - 1.5))
	q = min(max(q, 1), total)
	call := "challenge"
	if preset != "star-board" && preset != "tavern" && rng.IntN(2) == 0 {
		call = "spot_on"
	}
	lines := []any{game,
		map[string]any{"type": "bid", "seat": names[0], "quantity": q, "face": face},
		map[string]any{"type": call, "seat": names[1]}}
	table := func() (*engine.Table, error) {
		tab := engine.NewTable()
		for _, l := range lines {
			b, _ := json.Marshal(l)
			a, err := record.Decode(b)
			if err != nil {
				return nil, err
			}
			if _, err := tab.Apply(a); err != nil {
				return nil, fmt.Errorf("%s: %w", b, err)
			}
		}
		return tab, nil
	}
	tab, err := table()
	if err != nil {
		return err
	}
	zones := labelZones{labels, seats}
	right := outcomeOf(tab, truth, nil)
	tab, _ = table()
	t.reveals++
	look := camera.CheckRead(dice, zones, want)
	if look.OK {
		tab, _ = table()
		if got := outcomeOf(tab, look.Dice, nil); !reflect.DeepEqual(got, right) {
			t.wrongSure++
		}
		return nil
	}
	t.doubted++
	set, rej := tab.Settle(camera.SettleRead(dice, zones, want))
	if rej != nil {
		return fmt.Errorf("settling the read: %w", rej)
	}
	if !set.Settled {
		t.waiting++
		return nil
	}
	tab, _ = table()
	if got := outcomeOf(tab, set.Dice, set.Unconfirmed); !reflect.DeepEqual(got, right) {
		t.wrongSettled++
	}
	return nil
}

// outcomeOf applies a reveal to the table at its call and returns what
// the resolution decides: its events but the revealed faces and the
// count, as JSON.
func outcomeOf(tab *engine.Table, dice, unconfirmed map[string][]int) []string {
	evs, err := tab.Apply(engine.Action{Type: engine.ActReveal, Dice: dice, Unconfirmed: unconfirmed})
	if err != nil {
		return []string{"refused: " + err.Error()}
	}
	var out []string
	for _, e := range evs {
		switch v := e.(type) {
		case *engine.Revealed:
			continue
		case *engine.Resolved:
			r := *v
			r.Count = nil
			e = &r
		}
		b, _ := json.Marshal(e)
		out = append(out, strings.TrimSpace(string(b)))
	}
	return out
}
