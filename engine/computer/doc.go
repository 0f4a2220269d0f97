// Package computer plays Liar's Dice seats for the referee: pure strategy
// over what a seat may know.
//
// A Strategy sees a View: the table's public Snapshot, the seat's own dice
// and whether a bluff check has flustered it. It returns an engine.Action
// that the engine accepts. The package does no I/O and has no global
// randomness: every random choice comes from the *rand.Rand passed in, so a
// seeded game replays exactly.
//
// Levels (New): "random" picks uniformly among the legal actions;
// "threshold" challenges when the standing bid's chance is below one half
// and otherwise makes the lowest raise it believes; "beginner" and "strong"
// rank every legal option by its expected value (Rank) from exact binomial
// odds, and play the best (the beginner blurs its values, as a person
// does). Arena plays seeded games between strategies through a real
// engine.Table and measures their win rates.
package computer
