// Command gen solves two-seat common-hand or perudo with one or two dice a
// seat by CFR+ and writes the strategy file that engine/computer embeds
// (go generate in engine/computer runs it). It prints the solution's
// values, and with -exploit the exact best response's chance against it.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/liarsd/liarsd/engine/computer/duel"
)

func main() {
	rulesName := flag.String("rules", "common-hand", "the game: common-hand or perudo")
	start := flag.Int("start", 1, "dice a seat starts with: 1 or 2")
	iters := flag.Int("iters", 200, "CFR+ iterations a round")
	rounds := flag.Int("rounds", 5, "rounds (after each, the values of the deals are updated)")
	out := flag.String("o", "", "file to write")
	exploit := flag.Bool("exploit", false, "compute the best response to the written solution")
	budget := flag.Int("budget", 50_000_000, "histories one hand's best response may search")
	purify := flag.Float64("purify", 0, "drop actions played with a smaller chance (and renormalise) before quantizing")
	from := flag.String("from", "", "start from this solution file instead of solving")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -o names no file")
		os.Exit(2)
	}
	rules := duel.RulesNamed(*rulesName)
	if rules == nil {
		fmt.Fprintf(os.Stderr, "gen: -rules %q: want common-hand or perudo\n", *rulesName)
		os.Exit(2)
	}
	t0 := time.Now()
	var sol *duel.Solution
	var err error
	if *from != "" {
		var data []byte
		if data, err = os.ReadFile(*from); err == nil {
			sol, err = duel.Decode(data)
		}
	} else {
		sol, err = duel.Solve(rules, *start, *iters, *rounds)
	}
	if err != nil {
		slog.Error("gen: solve", "err", err)
		os.Exit(1)
	}
	if *purify > 0 {
		sol.Purify(*purify)
	}
	sol.Quantize(duel.Steps)
	f, err := os.Create(*out)
	if err != nil {
		slog.Error("gen: create", "err", err)
		os.Exit(1)
	}
	if err := sol.Encode(f); err != nil {
		slog.Error("gen: encode", "err", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		slog.Error("gen: close", "err", err)
		os.Exit(1)
	}
	made := fmt.Sprintf("%d iterations x %d rounds", *iters, *rounds)
	if *from != "" {
		made = "read from " + *from
	}
	fmt.Printf("%s, start %d: %s, purified below %v, in %.1fs; opener's value %.4f\n", sol.Rules.Name, sol.Start, made, *purify, time.Since(t0).Seconds(), sol.Values[sol.Start][sol.Start])
	if *exploit {
		data, err := os.ReadFile(*out)
		if err != nil {
			slog.Error("gen: read back", "err", err)
			os.Exit(1)
		}
		back, err := duel.Decode(data)
		if err != nil {
			slog.Error("gen: decode", "err", err)
			os.Exit(1)
		}
		t1 := time.Now()
		e, err := duel.Exploit(back.Rules, back.Start, back, *budget)
		if err != nil {
			slog.Error("gen: exploit", "err", err)
			os.Exit(1)
		}
		fmt.Printf("best response: opens %.4f, responds %.4f, mean %.4f (%d histories, %d sweeps, %.1fs)\n", e.Open, e.Respond, e.Mean(), e.States, e.Sweeps, time.Since(t1).Seconds())
	}
}
