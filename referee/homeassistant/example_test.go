package homeassistant_test

import (
	"fmt"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee/homeassistant"
)

// The discovery configs of a two-seat tavern table: one entity per config
// topic, the seats' dice and chips among them.
func ExampleConfigs() {
	t := engine.NewTable()
	_, _ = record.Apply(t, []byte(`{"type":"new_game","rules":"tavern","seats":["ann","bob"],"seed":1}`))
	for _, m := range homeassistant.Configs(homeassistant.Options{Table: "bar-1"}, t.Snapshot()) {
		fmt.Println(m.Topic)
	}
	// Output:
	// homeassistant/binary_sensor/liarsd_bar-1/online/config
	// homeassistant/event/liarsd_bar-1/result/config
	// homeassistant/sensor/liarsd_bar-1/bid/config
	// homeassistant/sensor/liarsd_bar-1/chips_ann/config
	// homeassistant/sensor/liarsd_bar-1/chips_bob/config
	// homeassistant/sensor/liarsd_bar-1/dice_ann/config
	// homeassistant/sensor/liarsd_bar-1/dice_bob/config
	// homeassistant/sensor/liarsd_bar-1/game/config
	// homeassistant/sensor/liarsd_bar-1/hand/config
	// homeassistant/sensor/liarsd_bar-1/last_result/config
	// homeassistant/sensor/liarsd_bar-1/phase/config
	// homeassistant/sensor/liarsd_bar-1/pot/config
	// homeassistant/sensor/liarsd_bar-1/rules/config
	// homeassistant/sensor/liarsd_bar-1/status/config
	// homeassistant/sensor/liarsd_bar-1/turn/config
}

// A Publisher keeps Home Assistant in step: here it publishes through a
// function that prints; the referee passes its MQTT client's Publish.
func ExamplePublisher() {
	p := homeassistant.NewPublisher(homeassistant.Options{Table: "t1"}, func(topic string, payload []byte, retained bool) {
		if len(payload) == 0 {
			fmt.Println("removed", topic)
		}
	})
	t := engine.NewTable()
	_, _ = record.Apply(t, []byte(`{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"seed":1}`))
	p.Update(t.Snapshot())
	_, _ = record.Apply(t, []byte(`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"seed":2}`))
	p.Update(t.Snapshot()) // cy has left the table
	// Output:
	// removed homeassistant/sensor/liarsd_t1/dice_cy/config
}
