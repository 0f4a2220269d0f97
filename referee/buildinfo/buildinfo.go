// Package buildinfo says which liarsd is running: its version, the
// revision it was built from, when, and with which Go and OpenCV. The
// command line, the metrics, Home Assistant's device and the Debian
// package all show the same version: the Makefile's VERSION (git
// describe), linked in as version.
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

// version is the Makefile's VERSION (git describe, e.g.
// v1.2.0-3-gabcdef123456), set by its link flags
// (-X github.com/liarsd/liarsd/referee/buildinfo.version=...); the Debian
// package's version is derived from the same string. Empty in a plain go
// build, which then shows the module's version or the revision.
var version string

// Info describes a build.
type Info struct {
	// Version is the version the Makefile linked in (git describe); else
	// the module's version, or for a build from a checkout "devel-" and
	// the revision.
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
	return parse(bi, version, date)
}

// parse reads what the Go toolchain recorded in bi; linked, when not empty,
// is the version the link flags set.
func parse(bi *debug.BuildInfo, linked, built string) Info {
	i := Info{Version: "(unknown)", Built: built, Go: runtime.Version(), OpenCV: gocv.OpenCVVersion(), GoCV: gocv.Version()}
	if linked != "" {
		i.Version = linked
	}
	if bi == nil {
		return i
	}
	if v := bi.Main.Version; v != "" && linked == "" {
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
