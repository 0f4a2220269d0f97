package seats_test

import (
	"fmt"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/seats"
)

func ExampleSimple() {
	t := engine.NewTable()
	_, _ = record.Apply(t, []byte(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`))
	_, _ = record.Apply(t, []byte(`{"type":"bid","seat":"ann","quantity":9,"face":6}`))
	// bob holds no 6: nine 6s among ten dice is a lie.
	p := seats.NewSimple(1)
	m := p.Act(seats.View{Snapshot: t.Snapshot(), Seat: "bob", Dice: []int{1, 2, 3, 4, 5}})
	fmt.Println(string(m.Line()))
	// Output:
	// {"type":"challenge","seat":"bob"}
}
