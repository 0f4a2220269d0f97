package record

import (
	"bytes"
	"strings"
	"testing"
)

// A number beyond 32 bits in a bid is refused as out of range (bad_bid),
// and the message says it is too large or too small, not the 32-bit bound
// the decoder holds it at: a quantity of 1e308 was refused as "not
// 2147483647".
func TestANumberTooLargeIsSaidSo(t *testing.T) {
	const game = `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}` + "\n"
	for _, tt := range []struct {
		bid, want string
	}{
		{`"quantity":1e308,"face":3`, "the quantity must be 1 to 10 (the dice in play), not a number too large"},
		{`"quantity":2147483647,"face":3`, "not a number too large"},
		{`"quantity":-1e308,"face":3`, "the quantity must be 1 to 10 (the dice in play), not a number too small"},
		{`"quantity":11,"face":3`, "the quantity must be 1 to 10 (the dice in play), not 11"},
		{`"quantity":2,"face":9e99`, "the face must be 1 to 6, not a number too large"},
	} {
		var out bytes.Buffer
		line := `{"type":"bid","seat":"ann",` + tt.bid + "}\n"
		if err := Adjudicate(strings.NewReader(game+line), &out); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); !strings.Contains(got, `"reason":"bad_bid"`) || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %s; want bad_bid, %q", line, got, tt.want)
		}
	}
}
