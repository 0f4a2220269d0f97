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
// and otherwise makes the lowest raise it believes; "strong-v1" ranks every
// legal option by its expected value (Rank) from exact binomial odds and
// plays the best; "strong" plays the CFR+ equilibrium embedded for two
// seats of common-hand with one or two dice a seat, and for two seats of
// perudo with at most two dice each (package duel), and elsewhere the odds
// player that reads every bid of the hand and mixes close options; "beginner" is that odds player with its values blurred,
// as a person's are. Arena plays seeded games between strategies through a
// real engine.Table and measures their win rates; Exploit measures a level
// by its exact best response in the solved games.
//
// Every computer move is chosen here: the referee's computer seats ask a
// Strategy (with the table's view of the seat and a seeded source), and a
// Player plays a seat from outside the referee, as the demo's players and
// the tests' tables do with dice they roll themselves: NewPlayer plays a
// level's strategy, Simple plays by plain expectation (record scripts).
// Their moves are engine.Actions; record.Encode writes them as record lines.
package computer
