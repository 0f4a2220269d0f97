package refereetest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine/record"
)

// Every preset's script is accepted line by line by the engine: the simple
// players make legal, plausible moves.
func TestScriptIsAcceptedForEveryPreset(t *testing.T) {
	cases := []struct {
		rules string
		seats []string
	}{
		{"star-board", []string{"ann", "bob", "cy", "dee"}},
		{"tavern", []string{"ann", "bob", "cy"}},
		{"common-hand", []string{"ann", "bob"}},
		{"kids", []string{"ann", "bob", "cy"}},
		{"classic", []string{"ann", "bob", "cy"}},
		{"endurance", []string{"ann", "bob", "cy"}},
	}
	for _, c := range cases {
		t.Run(c.rules, func(t *testing.T) {
			lines, refused := script(c.rules, c.seats, nil, 5, 400)
			if refused > 0 {
				t.Errorf("the simple players made %d illegal moves", refused)
			}
			var in bytes.Buffer
			for _, l := range lines {
				in.Write(l)
				in.WriteByte('\n')
			}
			var out bytes.Buffer
			if err := record.Adjudicate(&in, &out); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), `"type":"rejected"`) {
				t.Errorf("the script holds refused lines:\n%s", out.String())
			}
			for _, want := range []string{"resolved", "game_over"} {
				if !strings.Contains(out.String(), fmt.Sprintf(`"type":%q`, want)) {
					t.Errorf("400 lines of %s and no %s", c.rules, want)
				}
			}
		})
	}
}
