package engine_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
)

// tableAt returns a table that has taken the record's lines, each of
// which must be accepted.
func tableAt(t *testing.T, rec string) *engine.Table {
	t.Helper()
	tab := engine.NewTable()
	for n, l := range strings.Split(strings.TrimSpace(rec), "\n") {
		a, err := record.Decode([]byte(strings.TrimSpace(l)))
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if _, err := tab.Apply(a); err != nil {
			t.Fatalf("line %d %s: %v", n+1, l, err)
		}
	}
	return tab
}

// sure is a die read for sure; maybe a die in doubt between faces,
// likeliest first.
func sure(f int) engine.ReadDie                 { return engine.ReadDie{Faces: []int{f}, Sure: true} }
func maybe(f ...int) engine.ReadDie             { return engine.ReadDie{Faces: f} }
func read(d ...engine.ReadDie) []engine.ReadDie { return d }

func TestSettle(t *testing.T) {
	const common = `{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","options":{"dice":2}}`
	const classic = `{"type":"new_game","rules":"classic","seats":["ann","bob","cy"],"first":"ann","options":{"dice":2}}`
	const star = `{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","options":{"dice":2,"show_reroll":false}}`
	const tavern = `{"type":"new_game","rules":"tavern","seats":["ann","bob","cy"],"first":"ann","options":{"dice":2}}`
	const endurance = `{"type":"new_game","rules":"endurance","seats":["ann","bob","cy"],"first":"ann"}`
	const kids = `{"type":"new_game","rules":"kids","seats":["ann","bob","cy"],"first":"ann"}`
	cases := []struct {
		name    string
		rec     string
		read    map[string][]engine.ReadDie
		settled bool
		dice    map[string][]int // when settled
		unconf  map[string][]int
		why     string // when not: a part of Why
	}{
		{
			name:    "common-hand: a doubt between two faces the bid does not count",
			rec:     common + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(5), sure(2)), "bob": read(sure(5), maybe(3, 2)), "cy": read(sure(1), sure(4))},
			settled: true, dice: map[string][]int{"ann": {5, 2}, "bob": {5, 3}, "cy": {1, 4}}, unconf: map[string][]int{"bob": {1}},
		},
		{
			name: "common-hand: a doubt that could make the bid true",
			rec:  common + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(5), sure(2)), "bob": read(sure(5), maybe(3, 5)), "cy": read(sure(1), sure(4))},
			why:  "bob's die could make three 5s true",
		},
		{
			name:    "common-hand: a missed die that cannot reach the bid",
			rec:     common + "\n" + `{"type":"bid","seat":"ann","quantity":4,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(5), sure(2)), "bob": read(sure(5)), "cy": read(sure(1), sure(4))},
			settled: true, dice: map[string][]int{"ann": {5, 2}, "bob": {5, 1}, "cy": {1, 4}}, unconf: map[string][]int{"bob": {1}},
		},
		{
			name: "common-hand: a missed die that could make the bid true",
			rec:  common + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(5), sure(2)), "bob": read(sure(5)), "cy": read(sure(1), sure(4))},
			why:  "bob's unseen die could make three 5s true",
		},
		{
			name:    "common-hand: an invented die either way",
			rec:     common + "\n" + `{"type":"bid","seat":"ann","quantity":2,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(5), sure(5)), "bob": read(sure(3), maybe(5), maybe(6, 2)), "cy": read(sure(1), sure(4))},
			settled: true, dice: map[string][]int{"ann": {5, 5}, "bob": {3, 6}, "cy": {1, 4}}, unconf: map[string][]int{"bob": {1}},
		},
		{
			name: "common-hand: an invented die that could make the bid a lie",
			rec:  common + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(5), sure(5)), "bob": read(sure(3), maybe(5), maybe(6, 2)), "cy": read(sure(1), sure(4))},
			why:  "bob's 2 dice could make three 5s true",
		},
		{
			name: "common-hand: more dice read for sure than held",
			rec:  common + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":5}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(5), sure(5), sure(5)), "bob": read(sure(3), sure(2)), "cy": read(sure(1), sure(4))},
			why:  "ann has 2 dice and 3 were read for sure",
		},
		{
			name: "classic: a doubt that could make the spot-on right",
			rec:  classic + "\n" + `{"type":"bid","seat":"ann","quantity":2,"face":4}` + "\n" + `{"type":"spot_on","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(4), sure(2)), "bob": read(sure(6), maybe(4, 6)), "cy": read(sure(1), sure(3))},
			why:  "bob's die could make two 4s exactly right or wrong",
		},
		{
			name:    "classic: a doubt that cannot make the spot-on right",
			rec:     classic + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":4}` + "\n" + `{"type":"spot_on","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(4), sure(2)), "bob": read(sure(6), maybe(4, 6)), "cy": read(sure(1), sure(3))},
			settled: true, dice: map[string][]int{"ann": {4, 2}, "bob": {6, 4}, "cy": {1, 3}}, unconf: map[string][]int{"bob": {1}},
		},
		{
			name:    "star-board: a doubt between the star and the bid's face counts either way",
			rec:     star + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":4}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(4), sure(2)), "bob": read(sure(6), maybe(1, 4)), "cy": read(sure(1), sure(3))},
			settled: true, dice: map[string][]int{"ann": {4, 2}, "bob": {6, 1}, "cy": {1, 3}}, unconf: map[string][]int{"bob": {1}},
		},
		{
			name: "star-board: a doubt that changes the difference lost",
			rec:  star + "\n" + `{"type":"bid","seat":"ann","quantity":4,"face":4}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(4), sure(2)), "bob": read(sure(6), maybe(3, 4)), "cy": read(sure(1), sure(3))},
			why:  "bob's die could change what four 4s costs (a count of 2 to 3)",
		},
		{
			name: "star-board: a doubt that could make a perfect bid",
			rec:  star + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":4}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(4), sure(2)), "bob": read(sure(6), maybe(3, 4)), "cy": read(sure(1), sure(3))},
			why:  "bob's die could make three 4s true",
		},
		{
			name:    "tavern: the pot goes the same way",
			rec:     tavern + "\n" + `{"type":"bid","seat":"ann","quantity":4,"face":6}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(6), sure(2)), "bob": read(sure(6), maybe(6, 3)), "cy": read(maybe(2, 5), sure(3))},
			settled: true, dice: map[string][]int{"ann": {6, 2}, "bob": {6, 6}, "cy": {2, 3}}, unconf: map[string][]int{"bob": {1}, "cy": {0}},
		},
		{
			name: "tavern: a doubt that moves the pot",
			rec:  tavern + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":6}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(6), sure(2)), "bob": read(sure(6), maybe(6, 3)), "cy": read(maybe(2, 5), sure(3))},
			why:  "bob's die could make three 6s true",
		},
		{
			name:    "endurance: out of the round either way",
			rec:     endurance + "\n" + `{"type":"bid","seat":"ann","quantity":9,"face":2}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(2), sure(2), sure(3), sure(4), sure(5)), "bob": read(sure(2), maybe(2, 6), sure(1), sure(1), sure(6)), "cy": read(sure(3), sure(3), sure(3), sure(4))},
			settled: true, dice: map[string][]int{"ann": {2, 2, 3, 4, 5}, "bob": {2, 2, 1, 1, 6}, "cy": {3, 3, 3, 4, 1}}, unconf: map[string][]int{"bob": {1}, "cy": {4}},
		},
		{
			name: "kids: a doubt that could make the bid true",
			rec:  kids + "\n" + `{"type":"bid","seat":"ann","quantity":2,"face":3}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read: map[string][]engine.ReadDie{"ann": read(sure(3)), "bob": read(maybe(3, 5)), "cy": read(sure(1))},
			why:  "bob's die could make two 3s true",
		},
		{
			name:    "kids: a doubt that cannot",
			rec:     kids + "\n" + `{"type":"bid","seat":"ann","quantity":3,"face":3}` + "\n" + `{"type":"challenge","seat":"bob"}`,
			read:    map[string][]engine.ReadDie{"ann": read(sure(3)), "bob": read(maybe(3, 5)), "cy": read(sure(1))},
			settled: true, dice: map[string][]int{"ann": {3}, "bob": {3}, "cy": {1}}, unconf: map[string][]int{"bob": {0}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := tableAt(t, c.rec)
			got, rej := tab.Settle(c.read)
			if rej != nil {
				t.Fatalf("Settle: %v", rej)
			}
			if got.Settled != c.settled {
				t.Fatalf("Settled = %v (why %q); want %v", got.Settled, got.Why, c.settled)
			}
			if !c.settled {
				if !strings.Contains(got.Why, c.why) {
					t.Errorf("Why = %q; want it to say %q", got.Why, c.why)
				}
				return
			}
			if !reflect.DeepEqual(got.Dice, c.dice) {
				t.Errorf("Dice = %v; want %v", got.Dice, c.dice)
			}
			if !reflect.DeepEqual(got.Unconfirmed, c.unconf) {
				t.Errorf("Unconfirmed = %v; want %v", got.Unconfirmed, c.unconf)
			}
			// The settled reveal is taken, and its events mark the dice.
			evs, err := tab.Apply(engine.Action{Type: engine.ActReveal, Dice: got.Dice, Unconfirmed: got.Unconfirmed})
			if err != nil {
				t.Fatalf("applying the settled reveal: %v", err)
			}
			rev, ok := evs[0].(*engine.Revealed)
			if !ok || !reflect.DeepEqual(rev.Unconfirmed, c.unconf) {
				t.Errorf("revealed event %+v; want unconfirmed %v", evs[0], c.unconf)
			}
		})
	}
}

// TestSettleSameAsEveryWorld checks Settle against brute force: every
// face of every die in doubt, and every die that may be invented left
// out, resolved one by one.
func TestSettleSameAsEveryWorld(t *testing.T) {
	rec := `{"type":"new_game","rules":"star-board","seats":["ann","bob","cy"],"first":"ann","options":{"dice":2,"show_reroll":false}}
{"type":"bid","seat":"ann","quantity":4,"face":3}
{"type":"challenge","seat":"bob"}`
	faces := [][]int{{3}, {1}, {6}, {3, 1}, {3, 6}, {1, 6}, {2, 6}}
	for _, a := range faces {
		for _, b := range faces {
			r := map[string][]engine.ReadDie{"ann": read(sure(3), maybe(a...)), "bob": read(maybe(b...), sure(2)), "cy": read(sure(1), sure(5))}
			got, rej := tableAt(t, rec).Settle(r)
			if rej != nil {
				t.Fatal(rej)
			}
			outcomes := map[string]bool{}
			for _, fa := range a {
				for _, fb := range b {
					tab := tableAt(t, rec)
					evs, err := tab.Apply(engine.Action{Type: engine.ActReveal, Dice: map[string][]int{"ann": {3, fa}, "bob": {fb, 2}, "cy": {1, 5}}})
					if err != nil {
						t.Fatal(err)
					}
					res := *evs[1].(*engine.Resolved)
					res.Count = nil
					b, _ := json.Marshal(res)
					outcomes[string(b)] = true
				}
			}
			if want := len(outcomes) == 1; got.Settled != want {
				t.Errorf("ann %v, bob %v: Settled = %v; the worlds give %d outcomes", a, b, got.Settled, len(outcomes))
			}
		}
	}
}

func TestSettleRefuses(t *testing.T) {
	tab := tableAt(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann"}`)
	if _, rej := tab.Settle(map[string][]engine.ReadDie{"ann": read(sure(1))}); rej == nil || rej.Reason != engine.NotNow {
		t.Errorf("Settle before a call: %v; want not_now", rej)
	}
	tab = tableAt(t, `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann"}
{"type":"bid","seat":"ann","quantity":1,"face":2}
{"type":"challenge","seat":"bob"}`)
	if _, rej := tab.Settle(map[string][]engine.ReadDie{"zed": read(sure(1))}); rej == nil || rej.Reason != engine.UnknownSeat {
		t.Errorf("Settle of an unknown seat: %v; want unknown_seat", rej)
	}
	if _, rej := tab.Settle(map[string][]engine.ReadDie{"ann": read(engine.ReadDie{Faces: []int{9}, Sure: true})}); rej == nil || rej.Reason != engine.BadReveal {
		t.Errorf("Settle of a sure face 9: %v; want bad_reveal", rej)
	}
}

func TestRevealUnconfirmedChecked(t *testing.T) {
	rec := `{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","options":{"dice":2}}
{"type":"bid","seat":"ann","quantity":1,"face":2}
{"type":"challenge","seat":"bob"}`
	for _, u := range []map[string][]int{{"ann": {2}}, {"ann": {1, 0}}, {"ann": {0, 0}}, {"cy": {0}}, {"ann": {-1}}} {
		tab := tableAt(t, rec)
		_, err := tab.Apply(engine.Action{Type: engine.ActReveal, Dice: map[string][]int{"ann": {2, 3}, "bob": {4, 5}}, Unconfirmed: u})
		if r, ok := err.(*engine.Rejection); !ok || r.Reason != engine.BadReveal {
			t.Errorf("unconfirmed %v: %v; want bad_reveal", u, err)
		}
	}
}

// BenchmarkSettle measures the decision alone: a four-seat common-hand
// reveal of 20 dice read with three dice in doubt (two faces each) and one
// unseen, against a bid the doubt cannot change.
//
//	go test ./engine -run '^$' -bench Settle
func BenchmarkSettle(b *testing.B) {
	tab := tableAt(&testing.T{}, `{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy","dee"],"first":"ann"}
{"type":"bid","seat":"ann","quantity":1,"face":4}
{"type":"challenge","seat":"bob"}`)
	r := map[string][]engine.ReadDie{
		"ann": read(sure(4), sure(2), maybe(3, 5), sure(6), sure(1)),
		"bob": read(sure(2), maybe(6, 2), sure(3), sure(5)),
		"cy":  read(sure(5), sure(5), sure(6), maybe(2, 3), sure(2)),
		"dee": read(sure(3), sure(6), sure(6), sure(2), sure(3)),
	}
	for i := 0; i < b.N; i++ {
		set, rej := tab.Settle(r)
		if rej != nil || !set.Settled {
			b.Fatalf("settle: %+v %v", set, rej)
		}
	}
}

// TestSettleMissedAndInventedEveryPreset reads, at a table of every preset
// whose dice a camera reads, a reveal with one of bob's dice not seen and
// one with a die of bob's read twice (one of them invented), against a
// bid the doubt cannot change and one it can.
func TestSettleMissedAndInventedEveryPreset(t *testing.T) {
	type preset struct {
		name, options string
		dice          int // each seat's
	}
	presets := []preset{
		{"common-hand", `{"dice":2}`, 2},
		{"classic", `{"dice":2}`, 2},
		{"star-board", `{"dice":2,"show_reroll":false}`, 2},
		{"tavern", `{"dice":2}`, 2},
		{"endurance", `{"dice":2}`, 2},
		{"perudo", `{"dice":2}`, 2},
		{"kids", ``, 1},
	}
	for _, p := range presets {
		opts := ""
		if p.options != "" {
			opts = `,"options":` + p.options
		}
		game := `{"type":"new_game","rules":"` + p.name + `","seats":["ann","bob","cy"],"first":"ann"` + opts + `}`
		// ann's and cy's dice are all 4s, read for sure; bob's are a 6 and a
		// die not seen (missed) or read as two dice in doubt between a 4
		// and a 6, one of which is not there (invented).
		fours := func(n int) []engine.ReadDie {
			var out []engine.ReadDie
			for i := 0; i < n; i++ {
				out = append(out, sure(4))
			}
			return out
		}
		bob := map[string][]engine.ReadDie{
			"missed":   read(sure(6)),
			"invented": read(sure(6), maybe(4, 6), maybe(6, 4)),
		}
		if p.dice == 1 {
			bob = map[string][]engine.ReadDie{"missed": {}, "invented": read(maybe(4, 6), maybe(6, 4))}
		}
		sureFours := 2 * p.dice
		for _, kind := range []string{"missed", "invented"} {
			for _, matters := range []bool{false, true} {
				// The count is sureFours, or one more with bob's die. A bid
				// of sureFours+1 4s turns on it; one 4 does not, but in
				// star-board, where what a challenger loses is the
				// count's difference, bob then has fewer dice than either
				// count takes from him.
				q := 1
				if matters {
					q = sureFours + 1
				}
				name := fmt.Sprintf("%s/%s/matters=%v", p.name, kind, matters)
				t.Run(name, func(t *testing.T) {
					tab := tableAt(t, game+"\n"+fmt.Sprintf(`{"type":"bid","seat":"ann","quantity":%d,"face":4}`, q)+"\n"+`{"type":"challenge","seat":"bob"}`)
					got, rej := tab.Settle(map[string][]engine.ReadDie{"ann": fours(p.dice), "bob": bob[kind], "cy": fours(p.dice)})
					if rej != nil {
						t.Fatalf("Settle: %v", rej)
					}
					if got.Settled == matters {
						t.Fatalf("Settled = %v (why %q); want %v", got.Settled, got.Why, !matters)
					}
					if matters {
						if !strings.Contains(got.Why, "bob's") || !strings.Contains(got.Why, "true") {
							t.Errorf("Why = %q; want bob's doubt named as what could make the bid true", got.Why)
						}
						return
					}
					if len(got.Unconfirmed["bob"]) != 1 || len(got.Dice["bob"]) != p.dice {
						t.Errorf("settled reveal %v, unconfirmed %v; want bob's %d dice, one unconfirmed", got.Dice, got.Unconfirmed, p.dice)
					}
					if _, err := tab.Apply(engine.Action{Type: engine.ActReveal, Dice: got.Dice, Unconfirmed: got.Unconfirmed}); err != nil {
						t.Errorf("the settled reveal is refused: %v", err)
					}
				})
			}
		}
	}
}
