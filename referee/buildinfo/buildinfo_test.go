package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bi      *debug.BuildInfo
		linked  string
		version string
	}{
		{"no build info", nil, "", "(unknown)"},
		{"a tagged module", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "v1.2.3"},
		{"a checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-27T20:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			"", "devel-0123456789ab"},
		{"a dirty checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}},
			"", "devel-0123456789ab-dirty"},
		{"the Makefile's version", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}},
			"v1.2.0-3-g0123456789ab-dirty", "v1.2.0-3-g0123456789ab-dirty"},
		{"the Makefile's version without build info", nil, "v1.2.0", "v1.2.0"},
	} {
		got := parse(tc.bi, tc.linked, "2026-11-27")
		if got.Version != tc.version || got.Built != "2026-11-27" || got.Go != runtime.Version() || got.OpenCV == "" {
			t.Errorf("%s: got %+v; want version %q, built 2026-11-27, Go and OpenCV versions", tc.name, got, tc.version)
		}
	}
	if s := Get().String(); !strings.HasPrefix(s, "liarsd ") || !strings.Contains(s, "OpenCV 4.") {
		t.Errorf("Get().String() = %q; want liarsd's version with OpenCV's", s)
	}
}
