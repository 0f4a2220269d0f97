package engine_test

import "testing"

func TestCommonHand(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "RECORD.md example",
		record: `{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann"}
{"type":"bid","seat":"ann","quantity":2,"face":3}
{"type":"bid","seat":"bob","quantity":2,"face":2}
{"type":"challenge","seat":"bob"}
{"type":"reveal","dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}`,
		want: `{"type":"hand_started","seq":1,"game":1,"hand":1,"opener":"ann","dice":{"ann":5,"bob":5,"cy":5}}
{"type":"rejected","seq":2,"line":3,"reason":"bid_not_higher"}
{"type":"revealed","seq":3,"dice":{"ann":[3,3,1,2,5],"bob":[6,6,4,2,1],"cy":[5,5,4,4,2]}}
{"type":"resolved","seq":4,"call":"challenge","bidder":"ann","caller":"bob","bid":{"quantity":2,"face":3},"count":2,"dice":{"bob":-1},"out":[]}
{"type":"hand_started","seq":5,"game":1,"hand":2,"opener":"bob","dice":{"ann":5,"bob":4,"cy":5}}`,
	}, {
		// Seed 003: five players; E's five sixes is called by A; there are four.
		name: "seed 003 call example: the bidder was wrong",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C","D","E"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"bid","seat":"B","quantity":2,"face":6}
{"type":"bid","seat":"C","quantity":3,"face":3}
{"type":"bid","seat":"D","quantity":4,"face":1}
{"type":"bid","seat":"E","quantity":5,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[6,6,1,2,3],"C":[1,2,3,4,5],"D":[1,2,3,4,5],"E":[6,6,5,4,3]}}`,
		want: `{"type":"hand_started","opener":"A"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"E","caller":"A","bid":{"quantity":5,"face":6},"count":4,"dice":{"E":-1},"out":[]}
{"type":"hand_started","hand":2,"opener":"E","dice":{"A":5,"B":5,"C":5,"D":5,"E":4}}`,
	}, {
		name: "seed 003 call example: five sixes were there, the caller loses",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C","D","E"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"bid","seat":"B","quantity":2,"face":6}
{"type":"bid","seat":"C","quantity":3,"face":3}
{"type":"bid","seat":"D","quantity":4,"face":1}
{"type":"bid","seat":"E","quantity":5,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[1,2,3,4,6],"B":[6,6,1,2,3],"C":[1,2,3,4,5],"D":[1,2,3,4,5],"E":[6,6,5,4,3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":5,"dice":{"A":-1},"out":[]}
{"type":"hand_started","opener":"A","dice":{"A":4,"B":5,"C":5,"D":5,"E":5}}`,
	}, {
		// Seed 003's spot-on example: A {1,3,6,6}, B {2,4,6}; A bids three
		// sixes and B's spot-on is right: B regains a die and opens.
		name: "seed 003 spot-on example",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A","options":{"dice":4}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,3,4,5],"B":[1,1,1,1]}}
{"type":"bid","seat":"B","quantity":2,"face":5}
{"type":"bid","seat":"A","quantity":3,"face":6}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[1,3,6,6],"B":[2,4,6]}}`,
		want: `{"type":"hand_started","opener":"A"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1}}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":4,"B":3}}
{"type":"revealed","dice":{"A":[1,3,6,6],"B":[2,4,6]}}
{"type":"resolved","call":"spot_on","bidder":"A","caller":"B","count":3,"dice":{"B":1},"out":[]}
{"type":"hand_started","hand":3,"opener":"B","dice":{"A":4,"B":4}}`,
	}, {
		name: "a right spot-on with all dice changes nothing",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":6}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[6,1,2,3,4],"B":[6,1,2,3,4]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":2,"dice":{},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":5,"B":5}}`,
	}, {
		name: "a wrong spot-on costs the caller a die, and the caller opens",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":6}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[6,6,6,3,4],"B":[5,1,2,3,4],"C":[1,1,1,1,1]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":3,"dice":{"B":-1},"out":[]}
{"type":"hand_started","opener":"B"}`,
	}, {
		name: "an out loser's place goes to the call's winner; the last seat wins",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2],"B":[3],"C":[4]}}
{"type":"bid","seat":"B","quantity":1,"face":2}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"B":[2],"C":[4]}}`,
		want: `{"type":"hand_started","opener":"A"}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1},"out":["A"]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"B":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"C":-1},"out":["C"]}
{"type":"game_over","game":1,"winner":"B"}`,
	}, {
		name: "wild ones count for other faces but not for ones",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A","options":{"wild":"ones"}}
{"type":"bid","seat":"A","quantity":4,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,1,5,2,3],"B":[5,2,2,3,4]}}
{"type":"bid","seat":"B","quantity":3,"face":1}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[1,1,5,2,3],"B":[5,2,2,3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":4,"dice":{"B":-1}}
{"type":"hand_started","opener":"B"}
{"type":"revealed"}
{"type":"resolved","count":2,"dice":{"B":-1}}
{"type":"hand_started","opener":"B","dice":{"A":5,"B":3}}`,
	}, {
		name: "raises: more of any face, or as many of a higher face",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"bid","seat":"B","quantity":2,"face":4}
{"type":"bid","seat":"C","quantity":2,"face":4}
{"type":"bid","seat":"C","quantity":3,"face":1}
{"type":"bid","seat":"A","quantity":3,"face":1}
{"type":"bid","seat":"A","quantity":2,"face":6}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":4,"reason":"bid_not_higher"}
{"type":"rejected","line":6,"reason":"bid_not_higher"}
{"type":"rejected","line":7,"reason":"bid_not_higher"}`,
	}, {
		name: "refusals change nothing",
		record: `{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"challenge","seat":"A"}
{"type":"bid","seat":"B","quantity":1,"face":2}
{"type":"bid","seat":"Z","quantity":1,"face":2}
{"type":"bid","seat":"A","quantity":11,"face":2}
{"type":"bid","seat":"A","quantity":0,"face":2}
{"type":"bid","seat":"A","quantity":1,"face":7}
{"type":"fold","seat":"A"}
{"type":"spot_on","seat":"A"}
{"type":"leave","seat":"B"}
{"type":"bid","seat":"A","quantity":10,"face":6}
{"type":"leave","seat":"B"}
{"type":"bid","seat":"B","quantity":10,"face":6}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4,5]}}
{"type":"challenge","seat":"B"}
{"type":"bid","seat":"A","quantity":10,"face":6}
{"type":"reveal","dice":{"A":[1,2,3,4,5]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4,7]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4,5],"C":[1]}}
{"type":"reveal","dice":{"A":[6,6,6,6,6],"B":[6,6,6,6,6]}}`,
		want: `{"type":"rejected","line":1,"reason":"no_game"}
{"type":"hand_started","opener":"A"}
{"type":"rejected","line":3,"reason":"no_bid_to_call"}
{"type":"rejected","line":4,"reason":"not_your_turn"}
{"type":"rejected","line":5,"reason":"unknown_seat"}
{"type":"rejected","line":6,"reason":"bad_bid"}
{"type":"rejected","line":7,"reason":"bad_bid"}
{"type":"rejected","line":8,"reason":"bad_bid"}
{"type":"rejected","line":9,"reason":"not_allowed"}
{"type":"rejected","line":10,"reason":"no_bid_to_call"}
{"type":"left","seat":"B"}
{"type":"game_over","winner":"A"}
{"type":"rejected","line":12,"reason":"no_game"}
{"type":"rejected","line":13,"reason":"no_game"}
{"type":"rejected","line":14,"reason":"no_game"}
{"type":"rejected","line":15,"reason":"no_game"}
{"type":"rejected","line":16,"reason":"no_game"}
{"type":"rejected","line":17,"reason":"no_game"}
{"type":"rejected","line":18,"reason":"no_game"}
{"type":"rejected","line":19,"reason":"no_game"}
{"type":"rejected","line":20,"reason":"no_game"}
{"type":"rejected","line":21,"reason":"no_game"}
{"type":"rejected","line":22,"reason":"no_game"}`,
	}, {
		name: "refusals during a hand",
		record: `{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":2}
{"type":"leave","seat":"B"}
{"type":"challenge","seat":"B"}
{"type":"bid","seat":"A","quantity":3,"face":2}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[1,2,3,4,5]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4,7]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[1,2,3,4,5],"C":[1]}}
{"type":"reveal","dice":{"A":[1,2,3,4,5],"B":[2,2,3,4,5]}}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"not_now"}
{"type":"rejected","line":5,"reason":"not_now"}
{"type":"rejected","line":6,"reason":"not_now"}
{"type":"rejected","line":7,"reason":"bad_reveal"}
{"type":"rejected","line":8,"reason":"bad_reveal"}
{"type":"rejected","line":9,"reason":"bad_reveal"}
{"type":"rejected","line":10,"reason":"unknown_seat"}
{"type":"revealed"}
{"type":"resolved","count":3,"dice":{"B":-1}}
{"type":"hand_started","opener":"B"}`,
	}})
}
