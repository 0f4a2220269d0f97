package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestFlagsAfterArguments: flags may follow arguments, as people type them,
// and "--" ends the flags.
func TestFlagsAfterArguments(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		plain bool
		view  string
		rest  []string
	}{
		{[]string{"a.png", "--plain-dice"}, true, "top", []string{"a.png"}},
		{[]string{"--view", "bottom", "a.png", "b.png", "-plain-dice"}, true, "bottom", []string{"a.png", "b.png"}},
		{[]string{"a.png", "-view=bottom", "b.png"}, false, "bottom", []string{"a.png", "b.png"}},
		{[]string{"a.png", "--", "--plain-dice"}, false, "top", []string{"a.png", "--plain-dice"}},
		{[]string{"-", "--plain-dice"}, true, "top", []string{"-"}},
		{nil, false, "top", nil},
	} {
		fs := flag.NewFlagSet("read", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		plain := fs.Bool("plain-dice", false, "")
		view := fs.String("view", "top", "")
		if code, done := parseFlags(fs, tc.args); done {
			t.Errorf("%q: exit %d; want parsed", tc.args, code)
			continue
		}
		if *plain != tc.plain || *view != tc.view || !slices.Equal(fs.Args(), tc.rest) {
			t.Errorf("%q: got plain %v view %q args %q; want %v %q %q", tc.args, *plain, *view, fs.Args(), tc.plain, tc.view, tc.rest)
		}
	}
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if code, done := parseFlags(fs, []string{"a.png", "--no-such-flag"}); !done || code != 2 {
		t.Errorf("an unknown flag after an argument: exit %d, done %v; want 2", code, done)
	}
}

// TestVersion prints the version, revision, dates, and Go and OpenCV
// versions, and refuses arguments.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runVersion(context.Background(), nil, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"liarsd ", "\nrevision ", "\ncommitted ", "\nbuilt ", "\ngo1.", "\nOpenCV 4."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("liarsd version printed %q; want a line with %q", out.String(), want)
		}
	}
	if code := runVersion(context.Background(), []string{"extra"}, nil, io.Discard, io.Discard); code != 2 {
		t.Errorf("liarsd version extra: exit %d; want 2", code)
	}
}
