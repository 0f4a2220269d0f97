package main

import (
	"reflect"
	"testing"

	"github.com/liarsd/liarsd/referee/scoreboard/web"
)

func TestOverrideSetup(t *testing.T) {
	file := web.Setup{Table: "bar-1", Prefix: "liarsdice", Journal: "/var/lib/liarsd/bar-1.journal", WebSocket: ":9001", Broker: "tcp://a:1883"}
	flags := web.Setup{Table: "bar-2", Prefix: "pub", Journal: "/tmp/j", WebSocket: ":9002", Broker: "tcp://b:1883", Username: "u", Password: "p"}
	for _, tc := range []struct {
		flag  string
		check func(web.Setup) bool
	}{
		{"table", func(s web.Setup) bool { return s.Table == "bar-2" }},
		{"prefix", func(s web.Setup) bool { return s.Prefix == "pub" }},
		{"journal", func(s web.Setup) bool { return s.Journal == "/tmp/j" }},
		{"websocket", func(s web.Setup) bool { return s.WebSocket == ":9002" }},
		{"broker", func(s web.Setup) bool { return s.Broker == "tcp://b:1883" && s.Username == "u" && s.Password == "p" }},
		{"listen", func(s web.Setup) bool { return reflect.DeepEqual(s, file) }}, // not the file's: nothing to override
	} {
		s := file
		overrideSetup(&s, tc.flag, flags)
		if !tc.check(s) {
			t.Errorf("--%s: got %+v; want the flag's setting over the file's", tc.flag, s)
		}
		if tc.flag != "table" && s.Table != file.Table {
			t.Errorf("--%s: got table %q; want the file's %q kept", tc.flag, s.Table, file.Table)
		}
	}
}
