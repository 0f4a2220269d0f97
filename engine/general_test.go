package engine_test

import "testing"

func TestRecordInput(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "bad input of every kind; blank lines count",
		record: `not json
[1,2]

{"seat":"A"}
{"type":"dance"}
{"type":7}
{"type":"new_game","rules":"common-hand","seats":"A,B"}
{"type":"new_game","rules":"common-hand","seats":["A",2]}
{"type":"new_game","rules":"nope","seats":["A",2]}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"seed":"x"}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"options":{"dicee":3}}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"options":{"dice":"3"}}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"options":{"dice":0}}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"options":{"wild":"twos"}}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"options":{"games":3}}
{"type":"new_game","rules":"common-hand","seats":["A","A"],"options":{"purse":3}}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":"2","face":3}
{"type":"bid","seat":"A","quantity":2.5,"face":3}
{"type":"bid","seat":"A","face":3}
{"type":"bid","quantity":2,"face":3}
{"type":"reveal","dice":[1,2]}
{"type":"bid","seat":"A","quantity":2,"face":3,"id":"x-1","note":"fields nobody knows are ignored"}`,
		want: `{"type":"rejected","line":1,"reason":"bad_input"}
{"type":"rejected","line":2,"reason":"bad_input"}
{"type":"rejected","line":4,"reason":"bad_input"}
{"type":"rejected","line":5,"reason":"bad_input"}
{"type":"rejected","line":6,"reason":"bad_input"}
{"type":"rejected","line":7,"reason":"bad_input"}
{"type":"rejected","line":8,"reason":"bad_input"}
{"type":"rejected","line":9,"reason":"bad_input"}
{"type":"rejected","line":10,"reason":"bad_input"}
{"type":"rejected","line":11,"reason":"bad_input"}
{"type":"rejected","line":12,"reason":"bad_input"}
{"type":"rejected","line":13,"reason":"bad_input"}
{"type":"rejected","line":14,"reason":"bad_input"}
{"type":"rejected","line":15,"reason":"bad_input"}
{"type":"rejected","line":16,"reason":"bad_input"}
{"type":"hand_started","opener":"A"}
{"type":"rejected","line":18,"reason":"bad_input"}
{"type":"rejected","line":19,"reason":"bad_input"}
{"type":"rejected","line":20,"reason":"bad_input"}
{"type":"rejected","line":21,"reason":"bad_input"}
{"type":"rejected","line":22,"reason":"bad_input"}`,
	}, {
		name: "new_game: rules, then seats, then the first seat",
		record: `{"type":"new_game","rules":"poker","seats":["A","B"]}
{"type":"new_game","seats":["A","B"]}
{"type":"new_game","rules":"classic","seats":["A","A"]}
{"type":"new_game","rules":"classic","seats":[]}
{"type":"new_game","rules":"classic"}
{"type":"new_game","rules":"classic","seats":["A","B!"]}
{"type":"new_game","rules":"classic","seats":["A",""]}
{"type":"new_game","rules":"classic","seats":["A","abcdefghijabcdefghijabcdefghijabc"]}
{"type":"new_game","rules":"classic","seats":["A","B"],"first":"C"}
{"type":"new_game","rules":"classic","seats":["A","B"],"first":""}
{"type":"new_game","rules":"poker","seats":["A","B"],"first":""}
{"type":"new_game","rules":"classic","seats":["Ann Lee","bob_2","Zoë-3"],"first":"Zoë-3"}`,
		want: `{"type":"rejected","line":1,"reason":"unknown_rules"}
{"type":"rejected","line":2,"reason":"unknown_rules"}
{"type":"rejected","line":3,"reason":"bad_seats"}
{"type":"rejected","line":4,"reason":"bad_seats"}
{"type":"rejected","line":5,"reason":"bad_seats"}
{"type":"rejected","line":6,"reason":"bad_seats"}
{"type":"rejected","line":7,"reason":"bad_seats"}
{"type":"rejected","line":8,"reason":"bad_seats"}
{"type":"rejected","line":9,"reason":"unknown_seat"}
{"type":"rejected","line":10,"reason":"unknown_seat"}
{"type":"rejected","line":11,"reason":"unknown_rules"}
{"type":"hand_started","opener":"Zoë-3","dice":{"Ann Lee":5,"bob_2":5,"Zoë-3":5}}`,
	}, {
		name: "a new_game abandons the game in progress and counts from 1 again",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"new_game","rules":"kids","seats":["C","D"],"first":"D"}
{"type":"bid","seat":"A","quantity":3,"face":3}`,
		want: `{"type":"hand_started","game":1,"hand":1,"opener":"A"}
{"type":"hand_started","game":1,"hand":1,"opener":"D","dice":{"C":1,"D":1}}
{"type":"rejected","line":4,"reason":"unknown_seat"}`,
	}, {
		name: "a seed makes the random opener the same every time",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C","D","E"],"seed":42}
{"type":"new_game","rules":"common-hand","seats":["A","B","C","D","E"],"seed":42}`,
		want: `{"type":"hand_started","opener":"C"}
{"type":"hand_started","opener":"C"}`,
	}})
}

func TestLeave(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "a seat leaves between hands; if it was to open, the opener rule applies again",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"leave","seat":"C"}
{"type":"leave","seat":"B"}
{"type":"leave","seat":"C"}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1}}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":5,"B":4,"C":5}}
{"type":"left","seat":"C"}
{"type":"left","seat":"B"}
{"type":"game_over","winner":"A"}
{"type":"rejected","line":7,"reason":"no_game"}`,
	}, {
		name: "the leaving opener's place goes by the preset's rule",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,1,2,5],"B":[6,6,4,2,1],"C":[5,5,4,4,2]}}
{"type":"leave","seat":"B"}
{"type":"bid","seat":"B","quantity":2,"face":3}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"leave","seat":"C"}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1}}
{"type":"hand_started","hand":2,"opener":"B"}
{"type":"left","seat":"B"}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":5,"C":5}}
{"type":"rejected","line":6,"reason":"unknown_seat"}
{"type":"rejected","line":8,"reason":"not_now"}`,
	}, {
		name: "star-board: a seat may leave before the opening roll",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"]}
{"type":"leave","seat":"C"}
{"type":"opening_roll","dice":{"A":[1,1,2,3,4],"B":[1,2,2,3,4],"C":[1,1,1,1,1]}}
{"type":"opening_roll","dice":{"A":[1,1,2,3,4],"B":[1,2,2,3,4]}}`,
		want: `{"type":"left","seat":"C"}
{"type":"rejected","line":3,"reason":"unknown_seat"}
{"type":"hand_started","opener":"A","dice":{"A":5,"B":5}}`,
	}, {
		name: "star-board: when the rolled-for opener leaves, the roll is made again",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"]}
{"type":"opening_roll","dice":{"A":[1,1,2,3,4],"B":[1,2,2,3,4],"C":[2,2,2,2,2]}}
{"type":"leave","seat":"A"}
{"type":"opening_roll","dice":{"B":[1,2,2,3,4],"C":[1,1,1,1,1]}}`,
		want: `{"type":"hand_started","hand":1,"opener":"A"}
{"type":"left","seat":"A"}
{"type":"hand_started","hand":1,"opener":"C","dice":{"B":5,"C":5}}`,
	}, {
		name: "tavern: a seat leaves with its chips; the pot is untouched",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A"}
{"type":"leave","seat":"B"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2,2,2,2,2],"C":[3,3,3,3,3]}}`,
		want: `{"type":"hand_started"}
{"type":"left","seat":"B"}
{"type":"revealed"}
{"type":"resolved","dice":{"C":-1},"payout":{"A":1},"running_pot":1}
{"type":"hand_started","opener":"C","dice":{"A":5,"C":4}}`,
	}})
}
