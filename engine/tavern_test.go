package engine_test

import "testing"

func TestTavern(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "stakes, pot and running pot on a challenge",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":3}
{"type":"bid","seat":"B","quantity":3,"face":3,"stake":5}
{"type":"bid","seat":"A","quantity":4,"face":3,"stake":4}
{"type":"bid","seat":"A","quantity":4,"face":3,"stake":60}
{"type":"spot_on","seat":"A"}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[3,3,1,2,4],"B":[3,5,5,6,6]}}`,
		want: `{"type":"hand_started","hand":1,"opener":"A"}
{"type":"rejected","line":4,"reason":"stake_too_low"}
{"type":"rejected","line":5,"reason":"insufficient_chips"}
{"type":"rejected","line":6,"reason":"not_allowed"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"B","caller":"A","count":3,"dice":{"A":-1},"out":[],"payout":{"B":5},"running_pot":6}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":5}}`,
	}, {
		name: "folds: a die at once, and the last seat in takes half the pot",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"fold","seat":"B"}
{"type":"bid","seat":"C","quantity":2,"face":2}
{"type":"fold","seat":"A"}`,
		want: `{"type":"hand_started"}
{"type":"folded","seat":"B","dice":{"B":-1},"out":[]}
{"type":"folded","seat":"A","dice":{"A":-1},"out":[]}
{"type":"resolved","call":"fold","bidder":"C","bid":{"quantity":2,"face":2},"dice":{},"out":[],"payout":{"C":1},"running_pot":1}
{"type":"hand_started","hand":2,"opener":"A","dice":{"A":4,"B":4,"C":5}}`,
	}, {
		name: "a folded seat's dice are out of play and not revealed",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"fold","seat":"B"}
{"type":"bid","seat":"C","quantity":11,"face":2}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2,3,4,5,6],"B":[2,2,2,2],"C":[3,4,5,6,6]}}
{"type":"reveal","dice":{"A":[2,3,4,5,6],"C":[3,4,5,6,6]}}`,
		want: `{"type":"hand_started"}
{"type":"folded","seat":"B"}
{"type":"rejected","line":4,"reason":"bad_bid"}
{"type":"rejected","line":6,"reason":"bad_reveal"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"C":-1},"payout":{"A":1},"running_pot":1}
{"type":"hand_started","opener":"C","dice":{"A":5,"B":4,"C":4}}`,
	}, {
		name: "all in: a seat that cannot pay challenges with every chip",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A","options":{"purse":1}}
{"type":"all_in","seat":"A"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"bid","seat":"B","quantity":2,"face":2}
{"type":"bid","seat":"A","quantity":3,"face":2}
{"type":"all_in","seat":"A"}
{"type":"reveal","dice":{"A":[2,3,4,5,6],"B":[2,3,4,5,6]}}
{"type":"all_in","seat":"A"}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"fold","seat":"A"}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":2,"reason":"not_allowed"}
{"type":"rejected","line":5,"reason":"insufficient_chips"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"B","caller":"A","count":2,"dice":{"A":-1},"payout":{"B":1},"running_pot":1}
{"type":"hand_started","hand":2,"opener":"A"}
{"type":"rejected","line":8,"reason":"no_bid_to_call"}
{"type":"rejected","line":9,"reason":"insufficient_chips"}
{"type":"folded","seat":"A","dice":{"A":-1}}
{"type":"resolved","call":"fold","dice":{},"out":[],"payout":{"B":0},"running_pot":1}
{"type":"hand_started","hand":3,"opener":"A","dice":{"A":3,"B":5}}`,
	}, {
		name: "the last seat with dice wins the running pot",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[4]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-1},"out":["A"],"payout":{"B":1},"running_pot":1}
{"type":"game_over","game":1,"winner":"B","pot":1}`,
	}, {
		name: "an out loser's place: fewest dice, then fewest chips",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B","C"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":1,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,3],"B":[4,5],"C":[6,6]}}
{"type":"bid","seat":"B","quantity":1,"face":2,"stake":1}
{"type":"bid","seat":"B","quantity":1,"face":2}
{"type":"challenge","seat":"C","stake":3}
{"type":"reveal","dice":{"A":[3,3],"B":[4],"C":[5,5]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1},"payout":{"A":1},"running_pot":1}
{"type":"hand_started","hand":2,"opener":"B"}
{"type":"rejected","line":5,"reason":"stake_too_low"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"B":-1},"out":["B"],"payout":{"C":2},"running_pot":4}
{"type":"hand_started","hand":3,"opener":"C","dice":{"A":2,"C":2}}`,
	}, {
		name: "Loria: three eight-sided dice; a higher face of any quantity raises",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A","options":{"dice":3,"sides":8}}
{"type":"bid","seat":"A","quantity":3,"face":2}
{"type":"bid","seat":"B","quantity":1,"face":5}
{"type":"bid","seat":"A","quantity":1,"face":4}
{"type":"bid","seat":"A","quantity":1,"face":9}
{"type":"bid","seat":"A","quantity":1,"face":8}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[8,7,7],"B":[1,2,3]}}`,
		want: `{"type":"hand_started","dice":{"A":3,"B":3}}
{"type":"rejected","line":4,"reason":"bid_not_higher"}
{"type":"rejected","line":5,"reason":"bad_bid"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"B":-1}}
{"type":"hand_started","opener":"B"}`,
	}, {
		name: "ones wild in tavern when asked",
		record: `{"type":"new_game","rules":"tavern","seats":["A","B"],"first":"A","options":{"wild":"ones"}}
{"type":"bid","seat":"A","quantity":3,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,6,2,2,2],"B":[1,3,3,3,3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":3,"dice":{"B":-1}}
{"type":"hand_started"}`,
	}})
}

func TestKids(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "one die each; the loser of a call gains a die and opens",
		record: `{"type":"new_game","rules":"kids","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[4]}}`,
		want: `{"type":"hand_started","dice":{"A":1,"B":1}}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"B":1},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":1,"B":2}}`,
	}, {
		name: "a seat that would reach six dice is out",
		record: `{"type":"new_game","rules":"kids","seats":["A","B"],"first":"B"}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"B":[2]}}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"B":[2,2]}}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"B":[2,2,2]}}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"B":[2,2,2,2]}}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[2],"B":[2,2,2,2,2]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":1,"B":2}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","dice":{"A":1,"B":3}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","dice":{"A":1,"B":4}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":[]}
{"type":"hand_started","dice":{"A":1,"B":5}}
{"type":"revealed"}
{"type":"resolved","dice":{"B":1},"out":["B"]}
{"type":"game_over","winner":"A"}`,
	}, {
		name: "spot-on reversed: right loses a die but never the last, wrong gains one",
		record: `{"type":"new_game","rules":"kids","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":1,"face":3}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[3],"B":[4]}}
{"type":"bid","seat":"B","quantity":1,"face":4}
{"type":"spot_on","seat":"A"}
{"type":"reveal","dice":{"A":[4],"B":[4]}}
{"type":"bid","seat":"A","quantity":2,"face":5}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[5,5],"B":[4]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":1,"dice":{},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":1,"B":1}}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":2,"dice":{"A":1}}
{"type":"hand_started","opener":"A","dice":{"A":2,"B":1}}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":2,"dice":{}}
{"type":"hand_started","opener":"B"}`,
	}, {
		name:   "kids take no dice option",
		record: `{"type":"new_game","rules":"kids","seats":["A","B"],"options":{"dice":3}}`,
		want:   `{"type":"rejected","line":1,"reason":"bad_input"}`,
	}})
}

func TestClassic(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "the face never goes down",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":3,"face":5}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"bid","seat":"C","quantity":5,"face":5}
{"type":"bid","seat":"C","quantity":1,"face":6}
{"type":"bid","seat":"C","quantity":2,"face":6}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":4,"reason":"bid_not_higher"}
{"type":"rejected","line":5,"reason":"bid_not_higher"}`,
	}, {
		name: "a right spot-on costs every other seat a die; the caller's right-hand seat opens",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C","D"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":6}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[6,1,2,3,4],"B":[6,1,2,3,4],"C":[1,1,2,3,4],"D":[1,1,2,3,4]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"spot_on","count":2,"dice":{"A":-1,"C":-1,"D":-1},"out":[]}
{"type":"hand_started","opener":"A","dice":{"A":4,"B":5,"C":4,"D":4}}`,
	}, {
		name: "a wrong spot-on costs the caller a die",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C"],"first":"A"}
{"type":"bid","seat":"A","quantity":2,"face":6}
{"type":"spot_on","seat":"B"}
{"type":"reveal","dice":{"A":[6,6,6,3,4],"B":[6,1,2,3,4],"C":[1,1,2,3,4]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":4,"dice":{"B":-1}}
{"type":"hand_started","opener":"B"}`,
	}, {
		name: "an out loser's next seat clockwise opens; the winner takes the antes",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C"],"first":"B","options":{"dice":1,"ante":2}}
{"type":"bid","seat":"B","quantity":1,"face":6}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[1],"B":[2],"C":[3]}}
{"type":"bid","seat":"C","quantity":1,"face":3}
{"type":"challenge","seat":"A"}
{"type":"reveal","dice":{"A":[1],"C":[3]}}`,
		want: `{"type":"hand_started","opener":"B"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1},"out":["B"]}
{"type":"hand_started","opener":"C","dice":{"A":1,"C":1}}
{"type":"revealed"}
{"type":"resolved","dice":{"A":-1},"out":["A"]}
{"type":"game_over","game":1,"winner":"C","pot":6}`,
	}, {
		name: "two to five seats",
		record: `{"type":"new_game","rules":"classic","seats":["A","B","C","D","E","F"]}
{"type":"new_game","rules":"classic","seats":["A"]}`,
		want: `{"type":"rejected","reason":"bad_seats"}
{"type":"rejected","reason":"bad_seats"}`,
	}})
}
