package computer_test

import (
	"fmt"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/computer"
	"github.com/liarsd/liarsd/engine/record"
)

func ExampleSimple() {
	t := engine.NewTable()
	_, _ = record.Apply(t, []byte(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","seed":1}`))
	_, _ = record.Apply(t, []byte(`{"type":"bid","seat":"ann","quantity":9,"face":6}`))
	// bob holds no 6: nine 6s among ten dice is a lie.
	p := computer.NewSimple(1)
	m := p.Act(computer.View{Snapshot: t.Snapshot(), Seat: "bob", Dice: []int{1, 2, 3, 4, 5}})
	fmt.Println(string(record.Encode(m)))
	// Output:
	// {"type":"challenge","seat":"bob"}
}
