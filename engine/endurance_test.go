package engine_test

import "testing"

func TestEndurance(t *testing.T) {
	runCases(t, []ruleCase{{
		// Seed 000's doubt example: D doubts C's five twos; there are fewer.
		name: "seed 000 doubt example",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C","D"],"first":"A"}
{"type":"bid","seat":"A","quantity":3,"face":2}
{"type":"bid","seat":"B","quantity":4,"face":3}
{"type":"bid","seat":"C","quantity":5,"face":2}
{"type":"challenge","seat":"D"}
{"type":"reveal","dice":{"A":[2,2,3,4,5],"B":[2,3,3,4,5],"C":[1,3,4,5,6],"D":[6,6,6,6,6]}}`,
		want: `{"type":"hand_started","game":1,"hand":1,"opener":"A","dice":{"A":5,"B":5,"C":5,"D":5}}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"C","caller":"D","count":3,"dice":{},"out":["C"]}
{"type":"hand_started","game":1,"hand":2,"opener":"D","dice":{"A":5,"B":5,"D":5}}`,
	}, {
		name: "a right doubt's bid stands: the challenger is out",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C","D"],"first":"A"}
{"type":"bid","seat":"A","quantity":3,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,2,3,4,5],"B":[2,3,3,4,5],"C":[1,3,4,5,6],"D":[6,6,6,6,6]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":3,"dice":{},"out":["B"]}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":5,"C":5,"D":5}}`,
	}, {
		// Seed 000's spot-on example: B says spot on to A's four fours.
		name: "seed 000 spot-on example, right: B wins the round",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":4,"face":4}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[4,4,1,2,3],"B":[4,5,5,5,5],"C":[4,6,6,6,6]}}`,
		want: `{"type":"hand_started","game":1,"hand":1}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","bidder":"A","caller":"B","count":4,"dice":{},"out":["A","C"]}
{"type":"game_over","game":1,"winner":"B"}
{"type":"hand_started","game":2,"hand":1,"opener":"B","dice":{"A":5,"B":5,"C":5}}`,
	}, {
		name: "seed 000 spot-on example, wrong: B is out and the round goes on",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":4,"face":4}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[4,4,1,2,3],"B":[4,5,5,5,5],"C":[6,6,6,6,6]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":3,"dice":{},"out":["B"]}
{"type":"hand_started","game":1,"hand":2,"opener":"C","dice":{"A":5,"C":5}}`,
	}, {
		name: "the match ends after its rounds",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A","options":{"games":1,"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[3],"C":[4]}}
{"type":"bid","seat":"C","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"C":[3]}}
{"type":"bid","seat":"A","quantity":1,"face":6}`,
		want: `{"type":"hand_started","opener":"A"}
{"type":"revealed"}
{"type":"resolved","out":["B"]}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","out":["C"]}
{"type":"game_over","game":1,"winner":"A"}
{"type":"match_over","winner":"A","wins":{"A":1,"B":0,"C":0}}
{"type":"rejected","line":8,"reason":"no_game"}`,
	}, {
		name: "a shared lead after the last round plays on",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A","options":{"games":2,"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[3],"C":[4]}}
{"type":"bid","seat":"C","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"C":[3]}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1],"B":[2],"C":[3]}}
{"type":"bid","seat":"B","quantity":1,"face":2}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"B":[2],"C":[4]}}`,
		want: `{"type":"hand_started","game":1}
{"type":"revealed"}
{"type":"resolved","out":["B"]}
{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","out":["C"]}
{"type":"game_over","game":1,"winner":"A"}
{"type":"hand_started","game":2,"hand":1,"opener":"A"}
{"type":"revealed"}
{"type":"resolved","out":["A"]}
{"type":"hand_started","game":2,"hand":2,"opener":"B","dice":{"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","out":["C"]}
{"type":"game_over","game":2,"winner":"B"}
{"type":"hand_started","game":3,"hand":1,"opener":"B","dice":{"A":1,"B":1,"C":1}}`,
	}, {
		name: "three to six seats",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B"]}
{"type":"new_game","rules":"endurance","seats":["A","B","C","D","E","F","G"]}`,
		want: `{"type":"rejected","line":1,"reason":"bad_seats"}
{"type":"rejected","line":2,"reason":"bad_seats"}`,
	}, {
		name: "a seat that leaves is out of the match",
		record: `{"type":"new_game","rules":"endurance","seats":["A","B","C"],"first":"A","options":{"games":1}}
{"type":"leave","seat":"C"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3,3,3,3,3],"B":[3,3,3,3,3]}}`,
		want: `{"type":"hand_started","dice":{"A":5,"B":5,"C":5}}
{"type":"left","seat":"C"}
{"type":"revealed"}
{"type":"resolved","count":0,"out":["A"]}
{"type":"game_over","game":1,"winner":"B"}
{"type":"match_over","winner":"B","wins":{"A":0,"B":1,"C":0}}`,
	}})
}
