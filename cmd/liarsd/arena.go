package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
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
	plan, err := arenaPlan(*rules, *seats, *a, *b, *games)
	if err != nil {
		fmt.Fprintf(stderr, "liarsd arena: %v\n", err)
		return 2
	}
	sa, _ := computer.New(*a) // arenaPlan checked the levels

	// Fixed widths rather than a tabwriter, so that each line shows as soon
	// as its games are played.
	const row = "%-12s %5v  %-9s %-9s %6v %6v %8v  %-16s %10v %10v %7v\n"
	fmt.Fprintf(stdout, row, "rules", "seats", "a", "b", "games", "a won", "a share", "95% CI", "fair share", "hands/game", "time")
	played := 0
	for _, line := range plan {
		if ctx.Err() != nil {
			break
		}
		arena := computer.Arena{Rules: line.rules, Seats: line.seats, ASeats: *aSeats, Seed: *seed, Workers: *workers}
		if err := arena.Check(); err != nil {
			fmt.Fprintf(stderr, "liarsd arena: skipped: %v\n", err)
			continue
		}
		sb, _ := computer.New(line.b)
		start := time.Now()
		r, err := arena.Play(*games, sa, sb)
		if err != nil {
			fmt.Fprintf(stderr, "liarsd arena: %s, %d seats, %s against %s: %v\n", line.rules, line.seats, *a, line.b, err)
			return 1
		}
		lo, hi := computer.Wilson(r.AWins, r.Games, 1.96)
		fmt.Fprintf(stdout, row, r.Rules, r.Seats, *a, line.b, r.Games, r.AWins, percent(r.Share()),
			"["+percent(lo)+", "+percent(hi)+"]", percent(r.Fair()),
			fmt.Sprintf("%.1f", float64(r.Hands)/float64(max(1, r.Games))), fmt.Sprintf("%.1fs", time.Since(start).Seconds()))
		played++
	}
	if played == 0 {
		fmt.Fprintln(stderr, "liarsd arena: no table to play: every preset refused the seat counts")
		return 2
	}
	fmt.Fprintf(stdout, "seed %d, %s/%s, %d CPUs, %s\n", *seed, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
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
