package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
)

func init() {
	register(command{
		name:    "arena",
		summary: "play seeded games between computer levels and print win rates",
		run:     runArena,
	})
}

func runArena(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rules := fs.String("rules", "common-hand,star-board", `presets, comma-separated, or "all"`)
	seats := fs.String("seats", "2,4", "seat counts, comma-separated")
	games := fs.Int("games", 2000, "games per line")
	a := fs.String("a", "strong", "level of A: "+strings.Join(computer.Levels, ", "))
	b := fs.String("b", "random,threshold", "levels of B, comma-separated")
	aSeats := fs.Int("a-seats", 0, "seats A plays (0: half, rounded up)")
	seed := fs.Int64("seed", 1, "seed of every game")
	workers := fs.Int("workers", 0, "games played at once (0: one per CPU)")
	timing := fs.Bool("time", false, "time each of A's decisions and print their median and 99th percentile (set -workers 1 for one core)")
	exploit := fs.Bool("exploit", false, "instead of games, compute the exact best response to each of -levels in the two-seat game of -rules (common-hand, the default, or perudo) with -dice dice a seat")
	levels := fs.String("levels", strings.Join(computer.Levels, ","), "levels -exploit measures, comma-separated")
	dice := fs.Int("dice", 0, "dice a seat starts with (options.dice; 0: the preset's default); -exploit takes 1 (its default) or 2")
	samples := fs.Int("samples", 200, "-exploit: choices drawn to read a level that draws at random and tells no distribution")
	budget := fs.Int("budget", 100_000_000, "-exploit: histories one hand's search may visit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: liarsd arena [flags]\n\nPlays seeded games of level A against each level B through the rules engine,\nrotating the seats, and prints A's share of the games won with its 95% Wilson\nconfidence interval, next to the share it would win by playing alike.\n\nflags:")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(fs, stderr, "stray argument %q", fs.Arg(0))
	}
	if *workers < 0 {
		return usageError(fs, stderr, "-workers %d: want 0 (one per CPU) or more", *workers)
	}
	if *aSeats < 0 {
		return usageError(fs, stderr, "-a-seats %d: want 0 (half) or more", *aSeats)
	}
	if *dice < 0 {
		return usageError(fs, stderr, "-dice %d: want 0 (the preset's default) or more", *dice)
	}
	if *exploit {
		if *dice == 0 {
			*dice = 1
		}
		if *dice < 1 || *dice > 2 {
			return usageError(fs, stderr, "-dice %d: want 1 or 2", *dice)
		}
		if *samples < 1 || *budget < 1 {
			return usageError(fs, stderr, "-samples and -budget must be at least 1")
		}
		game := "common-hand"
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "rules" {
				game = *rules
			}
		})
		if game != "common-hand" && game != "perudo" {
			return usageError(fs, stderr, "-exploit -rules %q: the solved games are common-hand and perudo", game)
		}
		return runExploit(ctx, game, splitList(*levels), *dice, *samples, *budget, uint64(*seed), stdout, stderr)
	}
	plan, err := arenaPlan(*rules, *seats, *a, *b, *games)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd arena: %v\n", err)
		return 2
	}
	sa, _ := computer.New(*a) // arenaPlan checked the levels
	playable := playableLines(plan, *aSeats, *dice, stderr)
	if len(playable) == 0 {
		fmt.Fprintln(stderr, "liarsd arena: no table to play: every preset refused the seat counts")
		return 2
	}

	// Fixed widths rather than a tabwriter, so that each line shows as soon
	// as its games are played.
	const row = "%-12s %5v  %-9s %-9s %6v %6v %8v  %-16s %10v %10v %7v%s\n"
	timeHead := ""
	if *timing {
		timeHead = fmt.Sprintf(" %10s %10s", "a median", "a p99")
	}
	fmt.Fprintf(stdout, row, "rules", "seats", "a", "b", "games", "a won", "a share", "95% CI", "fair share", "hands/game", "time", timeHead)
	for _, line := range playable {
		if ctx.Err() != nil {
			break
		}
		arena := computer.Arena{Rules: line.rules, Seats: line.seats, ASeats: *aSeats, Seed: *seed, Workers: *workers}
		if *dice > 0 {
			arena.Options.Dice = dice
		}
		sb, _ := computer.New(line.b)
		start := time.Now()
		var timed *timedStrategy
		playA := sa
		if *timing {
			timed = &timedStrategy{Strategy: sa}
			playA = timed
		}
		r, err := arena.Play(*games, playA, sb)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd arena: %s, %d seats, %s against %s: %v\n", line.rules, line.seats, *a, line.b, err)
			return 1
		}
		lo, hi := computer.Wilson(r.AWins, r.Games, 1.96)
		fmt.Fprintf(stdout, row, r.Rules, r.Seats, *a, line.b, r.Games, r.AWins, percent(r.Share()),
			"["+percent(lo)+", "+percent(hi)+"]", percent(r.Fair()),
			fmt.Sprintf("%.1f", float64(r.Hands)/float64(max(1, r.Games))), fmt.Sprintf("%.1fs", time.Since(start).Seconds()), timed.summary())
	}
	fmt.Fprintf(stdout, "seed %d, %s/%s, %d CPUs, %s\n", *seed, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	return 0
}

// playableLines leaves out of plan the tables the presets refuse, saying
// each once (not once for each level B), before anything is played.
func playableLines(plan []arenaRow, aSeats, dice int, stderr io.Writer) []arenaRow {
	var skipped []string
	playable := plan[:0:0]
	for _, line := range plan {
		arena := computer.Arena{Rules: line.rules, Seats: line.seats, ASeats: aSeats}
		if dice > 0 {
			arena.Options.Dice = &dice
		}
		if err := arena.Check(); err != nil {
			if msg := err.Error(); !slices.Contains(skipped, msg) {
				skipped = append(skipped, msg)
				fmt.Fprintf(stderr, "liarsd arena: skipped: %s\n", msg)
			}
			continue
		}
		playable = append(playable, line)
	}
	return playable
}

// timedStrategy times every decision of a strategy.
type timedStrategy struct {
	computer.Strategy
	mu    sync.Mutex
	times []time.Duration
}

// Choose times the strategy's choice.
func (t *timedStrategy) Choose(v computer.View, rng *rand.Rand) engine.Action {
	start := time.Now()
	a := t.Strategy.Choose(v, rng)
	d := time.Since(start)
	t.mu.Lock()
	t.times = append(t.times, d)
	t.mu.Unlock()
	return a
}

// summary returns the median and 99th percentile of the times, or
// nothing for a nil t.
func (t *timedStrategy) summary() string {
	if t == nil || len(t.times) == 0 {
		return ""
	}
	slices.Sort(t.times)
	at := func(q float64) time.Duration { return t.times[min(len(t.times)-1, int(q*float64(len(t.times))))] }
	return fmt.Sprintf(" %10v %10v", at(0.5).Round(time.Microsecond/10), at(0.99).Round(time.Microsecond/10))
}

// runExploit prints, for each level, the exact best response's chance of
// winning the two-seat game of the rules against it, in both seatings.
func runExploit(ctx context.Context, rules string, levels []string, dice, samples, budget int, seed uint64, stdout, stderr io.Writer) int {
	if len(levels) == 0 {
		fmt.Fprintln(stderr, "liarsd arena: -levels names no level")
		return 2
	}
	for _, l := range levels {
		if _, err := computer.New(l); err != nil {
			fmt.Fprintf(stderr, "liarsd arena: %v\n", err)
			return 2
		}
	}
	const row = "%-10s %9v %9v %9v %14v %10v %7v\n"
	unit := "dice"
	if dice == 1 {
		unit = "die"
	}
	fmt.Fprintf(stdout, "best response in two-seat %s, %d %s a seat (options.dice = %d)\n", rules, dice, unit, dice)
	fmt.Fprintf(stdout, row, "level", "br opens", "br second", "br mean", "exploitability", "histories", "time")
	for _, l := range levels {
		if ctx.Err() != nil {
			return 1
		}
		s, _ := computer.New(l)
		start := time.Now()
		e, err := computer.Exploit(s, rules, dice, samples, seed, budget)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd arena: %s: %v\n", l, err)
			return 1
		}
		fmt.Fprintf(stdout, row, l, fmt.Sprintf("%.2f%%", 100*e.Open), fmt.Sprintf("%.2f%%", 100*e.Respond), fmt.Sprintf("%.2f%%", 100*e.Mean()),
			fmt.Sprintf("%+.2f%%", 100*(e.Mean()-0.5)), e.States, fmt.Sprintf("%.1fs", time.Since(start).Seconds()))
	}
	fmt.Fprintf(stdout, "seed %d, %d samples, %s/%s, %s\n", seed, samples, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return 0
}

func percent(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// arenaRow is one line of the arena's table.
type arenaRow struct {
	rules string
	seats int
	b     string
}

// arenaPlan checks the flags and lists the lines to play: every preset,
// seat count and level of B.
func arenaPlan(rules, seats, a, b string, games int) ([]arenaRow, error) {
	if games < 1 {
		return nil, fmt.Errorf("-games must be at least 1, not %d", games)
	}
	if _, err := computer.New(a); err != nil {
		return nil, err
	}
	var presets []string
	if rules == "all" {
		presets = engine.PresetNames()
	} else {
		for _, r := range splitList(rules) {
			if _, ok := engine.Presets[r]; !ok {
				return nil, fmt.Errorf("no preset %q (presets are %s, or all)", r, strings.Join(engine.PresetNames(), ", "))
			}
			presets = append(presets, r)
		}
	}
	var counts []int
	for _, s := range splitList(seats) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-seats takes seat counts such as 2,4, not %q", s)
		}
		counts = append(counts, n)
	}
	bs := splitList(b)
	for _, l := range bs {
		if _, err := computer.New(l); err != nil {
			return nil, err
		}
	}
	if len(presets) == 0 || len(counts) == 0 || len(bs) == 0 {
		return nil, errors.New("-rules, -seats and -b each need at least one value")
	}
	var plan []arenaRow
	for _, r := range presets {
		for _, n := range counts {
			for _, l := range bs {
				plan = append(plan, arenaRow{rules: r, seats: n, b: l})
			}
		}
	}
	return plan, nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
