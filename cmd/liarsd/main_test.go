package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// run1 runs liarsd with args and no standard input.
func run1(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = dispatch(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// liarsd help lists every subcommand on standard output and exits 0; with
// no subcommand at all the same list is a usage error on standard error.
func TestHelpListsEverySubcommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, out, errs := run1(t, args...)
		if code != 0 || errs != "" {
			t.Errorf("liarsd %v: exit %d, stderr %q; want 0 and nothing on stderr", args, code, errs)
		}
		for _, n := range commandNames() {
			if !regexp.MustCompile(`(?m)^  ` + n + ` +` + regexp.QuoteMeta(commands[n].summary) + `$`).MatchString(out) {
				t.Errorf("liarsd %v does not list %s with its summary:\n%s", args, n, out)
			}
		}
		// Every exit status a subcommand gives: 3 is a damaged journal's.
		for _, status := range []string{"0 done", "1 failed", "2 usage error", "3 a damaged journal"} {
			if !strings.Contains(strings.ReplaceAll(out, "\n", " "), status) {
				t.Errorf("liarsd %v does not name the exit status %q:\n%s", args, status, out)
			}
		}
	}
	code, out, errs := run1(t)
	if code != 2 || out != "" || !strings.Contains(errs, "usage: liarsd SUBCOMMAND") || !strings.Contains(errs, "  adjudicate ") {
		t.Errorf("liarsd with no subcommand: exit %d, stdout %q, stderr %q; want 2 and the usage on stderr", code, out, errs)
	}
}

// Every subcommand's help, asked for in each usual way, is its usage with
// its flags, and exits 0.
func TestEverySubcommandHelp(t *testing.T) {
	for _, n := range commandNames() {
		for _, args := range [][]string{{n, "-h"}, {n, "--help"}, {n, "-help"}, {"help", n}, {"-h", n}} {
			code, _, errs := run1(t, args...)
			if code != 0 {
				t.Errorf("liarsd %v: exit %d; want 0 (help asked for is not an error)", args, code)
			}
			if !strings.HasPrefix(errs, "usage: liarsd "+n) {
				t.Errorf("liarsd %v: help starts %q; want \"usage: liarsd %s\"", args, firstLine(errs), n)
			}
			if n != "adjudicate" && !regexp.MustCompile(`(?m)^  -\w`).MatchString(errs) {
				t.Errorf("liarsd %v: the help lists no flags:\n%s", args, errs)
			}
		}
	}
	// -h after other flags is help too.
	if code, _, errs := run1(t, "demo", "--seats", "3", "-h"); code != 0 || !strings.HasPrefix(errs, "usage: liarsd demo") {
		t.Errorf("liarsd demo --seats 3 -h: exit %d, %q; want 0 and the usage", code, firstLine(errs))
	}
	for _, args := range [][]string{{"help", "dance"}, {"help", "run", "demo"}} {
		if code, _, errs := run1(t, args...); code != 2 || errs == "" {
			t.Errorf("liarsd %v: exit %d, %q; want 2 and a message", args, code, errs)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// An unknown subcommand or flag, a missing or stray argument and a flag's
// refused value are usage errors: exit 2, a message naming what is wrong,
// the usage, and no work done.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	calFile := dir + "/cal.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dance"}, `unknown subcommand "dance"`},
		{[]string{"adjudicate"}, "want one record"},
		{[]string{"adjudicate", "a.jsonl", "b.jsonl"}, "want one record"},
		{[]string{"arena", "extra"}, `stray argument "extra"`},
		{[]string{"arena", "-workers", "-1"}, "-workers -1"},
		{[]string{"arena", "-a-seats", "-1"}, "-a-seats -1"},
		{[]string{"calibrate", "--file", calFile}, "which step?"},
		{[]string{"calibrate", "--file", calFile, "dance"}, `no step "dance"`},
		{[]string{"calibrate", "--file", calFile, "board", "dice"}, "one step at a time"},
		{[]string{"calibrate", "--file", calFile, "--card", "nine", "board"}, "--card"},
		{[]string{"calibrate", "--file", calFile, "--card", "2x2@20", "board"}, "3 to 100"},
		{[]string{"calibrate", "--file", calFile, "seats"}, "needs --seats"},
		{[]string{"calibrate", "--file", calFile, "--seats", "a,b", "--centre", "middle", "seats"}, "--centre"},
		{[]string{"calibrate", "--file", calFile, "--seats", "a,b", "--layout", "hexagon", "all"}, `--layout "hexagon"`},
		{[]string{"demo", "extra"}, `stray argument "extra"`},
		{[]string{"demo", "--rules", "poker"}, `--rules "poker": the presets are`},
		{[]string{"demo", "--level", "grandmaster"}, `no level "grandmaster"`},
		{[]string{"demo", "--seats", "-1"}, "--seats -1"},
		{[]string{"demo", "--games", "-1"}, "--games -1"},
		{[]string{"demo", "--reveals", "-1"}, "--reveals -1"},
		{[]string{"demo", "--memory-every", "-2"}, "--memory-every -2"},
		{[]string{"demo", "--pace", "-1s"}, "--pace -1s"},
		{[]string{"demo", "--doubt", "1.5"}, "--doubt 1.5: want a share from 0 to 1"},
		{[]string{"demo", "--doubt", "-0.1"}, "--doubt -0.1: want a share from 0 to 1"},
		{[]string{"demo", "--duration", "-1s"}, "--duration -1s"},
		{[]string{"demo", "--board", "wall"}, `--board "wall"`},
		{[]string{"demo", "--options", "{bad"}, "--options"},
		{[]string{"demo", "--seats", "9"}, "--seats 9: star-board is played here by 2 to 6 seats"},
		{[]string{"demo", "--broker-websocket", "ws://h:9001"}, "--broker-websocket: only with --broker"},
		{[]string{"demo", "--broker", "tcp://h:1883", "--broker-websocket", "http://h:9001"}, `--broker-websocket "http://h:9001": want a ws:// or wss:// URL`},
		{[]string{"demo", "--options", `{"dice":99}`}, "option dice must be 1 to 20, not 99 (star-board takes dice, die_hard, show_reroll)"},
		{[]string{"demo", "--rules", "kids", "--options", `{"dice":3}`}, `kids does not take the option "dice"`},
		{[]string{"hwtest"}, "which board?"},
		{[]string{"hwtest", "--sim", "extra"}, `stray argument "extra"`},
		{[]string{"hwtest", "--sim", "--step", "0s"}, "--step 0s"},
		{[]string{"hwtest", "--sim", "--duration", "-1s"}, "--duration -1s"},
		{[]string{"hwtest", "--sim", "--color", "pink"}, `--color "pink"`},
		{[]string{"read"}, "usage: liarsd read"},
		{[]string{"readbench", "extra", "-photos", ""}, `stray argument "extra"`},
		{[]string{"readbench", "-synthetic", "-1"}, "-synthetic -1"},
		{[]string{"readbench", "-jpeg", "-1"}, "-jpeg -1"},
		{[]string{"readbench", "-subset", "held"}, "-subset is for the train split"},
		{[]string{"readbench", "-split", "train", "-subset", "third"}, `-subset "third"`},
		// A stray argument must not let readtrain run on its defaults
		// (which write over the committed bars).
		{[]string{"readtrain", "extra", "-o", ""}, `stray argument "extra"`},
		{[]string{"readtrain", "-synthetic", "-1"}, "-synthetic -1"},
		{[]string{"readtrain", "-max-wrong", "1"}, "-max-wrong 1"},
		{[]string{"readtrain", "-max-wrong", "-0.1"}, "-max-wrong -0.1"},
		{[]string{"readtrain", "-max-wrong-synthetic", "1"}, "-max-wrong-synthetic 1"},
		{[]string{"run", "extra"}, `stray argument "extra"`},
		{[]string{"web", "extra"}, `stray argument "extra"`},
		{[]string{"web", "--homeassistant"}, "needs --table"},
		{[]string{"web", "--listen", "bad:addr:x"}, `--listen "bad:addr:x": want host:port`},
		{[]string{"web", "--listen", "127.0.0.1:http"}, `port "http": want a number`},
		{[]string{"demo", "--http", "nonsense"}, `--http "nonsense": want host:port`},
		{[]string{"demo", "--listen", "127.0.0.1:99999"}, `port "99999": want a number from 0 to 65535`},
		{[]string{"demo", "--operator-after", "soon"}, "--operator-after"},
		{[]string{"demo", "--operator-after", "0s"}, "want a duration above 0 (3s) or off"},
		{[]string{"demo", "--correct-window", "-1s"}, "--correct-window -1s"},
	} {
		code, out, errs := run1(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "usage") {
			t.Errorf("liarsd %q: exit %d, stderr %q; want 2, the usage and %q", tc.args, code, errs, tc.want)
		}
		if out != "" {
			t.Errorf("liarsd %q: wrote %q on stdout; a usage error does no work", tc.args, out)
		}
	}
	if _, err := os.Stat(calFile); !os.IsNotExist(err) {
		t.Errorf("a refused calibrate wrote its file (%v)", err)
	}
	// An unknown flag, for every subcommand.
	for _, n := range commandNames() {
		code, out, errs := run1(t, n, "--no-such-flag")
		if code != 2 || !strings.Contains(errs, "flag provided but not defined: -no-such-flag") || !strings.Contains(errs, "usage: liarsd "+n) || out != "" {
			t.Errorf("liarsd %s --no-such-flag: exit %d, stdout %q, stderr %q; want 2, the flag named and the usage", n, code, out, errs)
		}
	}
}

// README's table of the command line names every subcommand, names only
// subcommands there are, and each flag it names for a subcommand is one of
// that subcommand's.
func TestREADMEMatchesTheBinary(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## The command line\n")
	if !ok {
		t.Fatal("README.md has no section The command line")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	name := regexp.MustCompile("`([a-z]+)")
	flagRE := regexp.MustCompile(`--([a-z][a-z-]*)`)
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue // not a subcommand's row
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "/"), "|")
		var names []string
		for _, n := range name.FindAllStringSubmatch(cells[1], -1) {
			if !slices.Contains(names, n[1]) {
				names = append(names, n[1])
			}
		}
		for _, n := range names {
			if _, ok := commands[n]; !ok {
				t.Errorf("README's command line names %q, which liarsd does not have", n)
				continue
			}
			listed = append(listed, n)
		}
		if len(names) != 1 {
			continue
		}
		_, _, help := run1(t, names[0], "-h")
		for _, f := range flagRE.FindAllStringSubmatch(line, -1) {
			if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(f[1]) + `\b`).MatchString(help) {
				t.Errorf("README gives %s the flag --%s, which its help does not list", names[0], f[1])
			}
		}
	}
	for _, n := range commandNames() {
		if !slices.Contains(listed, n) {
			t.Errorf("README's command line does not name the subcommand %s", n)
		}
	}
}
