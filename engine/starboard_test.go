package engine_test

import "testing"

func TestStarBoard(t *testing.T) {
	const ab = `{"type":"new_game","rules":"star-board","seats":["A","B"],"first":"A"}` + "\n"
	const abc = `{"type":"new_game","rules":"star-board","seats":["A","B","C"],"first":"A"}` + "\n"
	runCases(t, []ruleCase{{
		name: "RULINGS example: after eight 5s, four stars raises and three stars does not",
		record: ab + `{"type":"bid","seat":"A","quantity":8,"face":5}
{"type":"bid","seat":"B","quantity":3,"face":1}
{"type":"bid","seat":"B","quantity":4,"face":1}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"bid_not_higher"}`,
	}, {
		name: "RULINGS example: after four stars the lowest number bid is nine",
		record: ab + `{"type":"bid","seat":"A","quantity":4,"face":1}
{"type":"bid","seat":"B","quantity":8,"face":6}
{"type":"bid","seat":"B","quantity":9,"face":2}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"bid_not_higher"}`,
	}, {
		name: "RULINGS example: after four 6s, two stars raises",
		record: ab + `{"type":"bid","seat":"A","quantity":4,"face":6}
{"type":"bid","seat":"B","quantity":2,"face":1}
{"type":"bid","seat":"A","quantity":4,"face":6}
{"type":"bid","seat":"A","quantity":2,"face":1}
{"type":"bid","seat":"A","quantity":3,"face":1}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":4,"reason":"bid_not_higher"}
{"type":"rejected","line":5,"reason":"bid_not_higher"}`,
	}, {
		name: "a higher face on the same number space; from a star space only a later space",
		record: ab + `{"type":"bid","seat":"A","quantity":3,"face":4}
{"type":"bid","seat":"B","quantity":3,"face":3}
{"type":"bid","seat":"B","quantity":3,"face":5}
{"type":"bid","seat":"A","quantity":2,"face":1}
{"type":"bid","seat":"B","quantity":4,"face":6}
{"type":"bid","seat":"B","quantity":5,"face":2}
{"type":"bid","seat":"A","quantity":11,"face":2}
{"type":"bid","seat":"A","quantity":5,"face":7}
{"type":"spot_on","seat":"A"}
{"type":"fold","seat":"A"}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"bid_not_higher"}
{"type":"rejected","line":6,"reason":"bid_not_higher"}
{"type":"rejected","line":8,"reason":"bad_bid"}
{"type":"rejected","line":9,"reason":"bad_bid"}
{"type":"rejected","line":10,"reason":"not_allowed"}
{"type":"rejected","line":11,"reason":"not_allowed"}`,
	}, {
		name: "too few: the bidder loses the difference; the challenger opens",
		record: abc + `{"type":"bid","seat":"A","quantity":4,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,2,2,2,2],"B":[5,3,3,3,3],"C":[2,3,4,6,6]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","call":"challenge","bidder":"A","caller":"B","count":1,"dice":{"A":-3},"out":[]}
{"type":"hand_started","hand":2,"opener":"B","dice":{"A":2,"B":5,"C":5}}`,
	}, {
		name: "too many: the challenger loses the difference; stars are wild",
		record: abc + `{"type":"bid","seat":"A","quantity":2,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,5,2,2,2],"B":[5,5,3,3,3],"C":[1,2,3,4,6]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":5,"dice":{"B":-3},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":5,"B":2,"C":5}}`,
	}, {
		name: "a star bid counts stars only",
		record: ab + `{"type":"bid","seat":"A","quantity":2,"face":1}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[1,6,6,6,6],"B":[2,3,4,5,5]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":1,"dice":{"A":-1}}
{"type":"hand_started","opener":"B"}`,
	}, {
		name: "a perfect bid: every seat but the bidder loses a die, the challenger too",
		record: abc + `{"type":"bid","seat":"A","quantity":3,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5,2,2,2,2],"B":[1,3,3,3,3],"C":[5,4,4,4,4]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":3,"dice":{"B":-1,"C":-1},"out":[]}
{"type":"hand_started","opener":"B","dice":{"A":5,"B":4,"C":4}}`,
	}, {
		name: "perfect bid without die hard: last dice are lost",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"],"first":"A","options":{"dice":1}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5],"B":[2],"C":[3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1,"C":-1},"out":["B","C"]}
{"type":"game_over","game":1,"winner":"A"}`,
	}, {
		name: "die hard: a last die is kept but by the challenger; an out challenger's next seat opens",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"],"first":"A","options":{"dice":1,"die_hard":true}}
{"type":"bid","seat":"A","quantity":1,"face":5}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[5],"B":[2],"C":[3]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","dice":{"B":-1},"out":["B"]}
{"type":"hand_started","hand":2,"opener":"C","dice":{"A":1,"C":1}}`,
	}, {
		name: "nobody loses more dice than they have",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B"],"first":"A","options":{"dice":2}}
{"type":"bid","seat":"A","quantity":4,"face":6}
{"type":"challenge","seat":"B"}
{"type":"reveal","dice":{"A":[2,3],"B":[4,5]}}`,
		want: `{"type":"hand_started"}
{"type":"revealed"}
{"type":"resolved","count":0,"dice":{"A":-2},"out":["A"]}
{"type":"game_over","winner":"B"}`,
	}, {
		name: "opening roll: most stars, then the highest sum of the rest",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"]}
{"type":"bid","seat":"A","quantity":1,"face":2}
{"type":"opening_roll","dice":{"A":[1,1,2,3,4],"B":[1,1,6,6,6],"C":[1,2,3,4,5]}}`,
		want: `{"type":"rejected","line":2,"reason":"not_now"}
{"type":"hand_started","game":1,"hand":1,"opener":"B","dice":{"A":5,"B":5,"C":5}}`,
	}, {
		name: "opening roll: a full tie is rolled again by the tied seats only",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B","C"]}
{"type":"opening_roll","dice":{"A":[1,1,2,3,4],"B":[1,1,4,3,2],"C":[1,2,3,4,5]}}
{"type":"opening_roll","dice":{"A":[1,1,2,3,4],"B":[1,1,4,3,2],"C":[1,2,3,4,5]}}
{"type":"opening_roll","dice":{"A":[2,2,2,2,2]}}
{"type":"opening_roll","dice":{"A":[2,2,2,2,2],"B":[1,2,2,2,2]}}`,
		want: `{"type":"rejected","line":3,"reason":"bad_reveal"}
{"type":"rejected","line":4,"reason":"bad_reveal"}
{"type":"hand_started","opener":"B"}`,
	}, {
		name: "show and reroll: shown dice stay and count",
		record: abc + `{"type":"bid","seat":"A","quantity":3,"face":5}
{"type":"show","seat":"A","shown":[5,5]}
{"type":"show","seat":"A","shown":[5]}
{"type":"bid","seat":"B","quantity":4,"face":5}
{"type":"show","seat":"A","shown":[5]}
{"type":"show","seat":"B","shown":[1,1,1,1,1]}
{"type":"show","seat":"B","shown":[1,1,1,1]}
{"type":"challenge","seat":"C"}
{"type":"reveal","dice":{"A":[2,3,4,6,6],"B":[1,1,1,1,6],"C":[2,2,2,2,2]}}
{"type":"reveal","dice":{"A":[5,2,5,3,4],"B":[1,1,1,1,6],"C":[2,2,2,2,2]}}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":4,"reason":"not_allowed"}
{"type":"rejected","line":6,"reason":"not_allowed"}
{"type":"rejected","line":7,"reason":"not_allowed"}
{"type":"rejected","line":10,"reason":"bad_reveal"}
{"type":"revealed","dice":{"A":[5,2,5,3,4],"B":[1,1,1,1,6],"C":[2,2,2,2,2]}}
{"type":"resolved","count":6,"dice":{"C":-2}}
{"type":"hand_started","opener":"C"}`,
	}, {
		name: "show is refused when show_reroll is off, and in other presets",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B"],"first":"A","options":{"show_reroll":false}}
{"type":"bid","seat":"A","quantity":3,"face":5}
{"type":"show","seat":"A","shown":[5]}
{"type":"new_game","rules":"common-hand","seats":["A","B"],"first":"A"}
{"type":"bid","seat":"A","quantity":3,"face":5}
{"type":"show","seat":"A","shown":[5]}`,
		want: `{"type":"hand_started"}
{"type":"rejected","line":3,"reason":"not_allowed"}
{"type":"hand_started"}
{"type":"rejected","line":6,"reason":"not_allowed"}`,
	}, {
		name: "star dice take no sides or wild option; two to six seats",
		record: `{"type":"new_game","rules":"star-board","seats":["A","B"],"options":{"sides":8}}
{"type":"new_game","rules":"star-board","seats":["A","B"],"options":{"wild":"none"}}
{"type":"new_game","rules":"star-board","seats":["A"]}
{"type":"new_game","rules":"star-board","seats":["A","B","C","D","E","F","G"]}`,
		want: `{"type":"rejected","line":1,"reason":"bad_input"}
{"type":"rejected","line":2,"reason":"bad_input"}
{"type":"rejected","line":3,"reason":"bad_seats"}
{"type":"rejected","line":4,"reason":"bad_seats"}`,
	}})
}
