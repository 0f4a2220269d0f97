// Package buildinfo says which liarsd is running: its module version, the
// revision it was built from, when, and with which Go and OpenCV. The
// command line, the metrics and Home Assistant's device all show it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"gocv.io/x/gocv"
)

// date is the build's date, set by the Makefile's link flags
// (-X github.com/liarsd/liarsd/referee/buildinfo.date=...); empty in a
// plain go build.
var date string

// Info describes a build.
type Info struct {
	// Version is the module's version ("(devel)" for a build from a
	// checkout), with the revision appended when there is one.
	Version  string
	Revision string // VCS revision, "" when unknown
	Modified bool   // built from a checkout with uncommitted changes
	Commit   string // the revision's time, RFC 3339, "" when unknown
	Built    string // the build's date, "" when unknown
	Go       string
	OpenCV   string
	GoCV     string
}

// Get returns this binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return parse(bi, date)
}

// parse reads what the Go toolchain recorded in bi.
func parse(bi *debug.BuildInfo, built string) Info {
	i := Info{Version: "(unknown)", Built: built, Go: runtime.Version(), OpenCV: gocv.OpenCVVersion(), GoCV: gocv.Version()}
	if bi == nil {
		return i
	}
	if v := bi.Main.Version; v != "" {
		i.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Commit = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	if i.Version == "(devel)" && i.Revision != "" {
		short := i.Revision
		if len(short) > 12 {
			short = short[:12]
		}
		i.Version = "devel-" + short
		if i.Modified {
			i.Version += "-dirty"
		}
	}
	return i
}

// String is one line for logs and Home Assistant.
func (i Info) String() string {
	return fmt.Sprintf("liarsd %s (%s, OpenCV %s)", i.Version, i.Go, i.OpenCV)
}
