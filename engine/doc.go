// Package engine holds the rules of Liar's Dice as the referee plays them: the
// six presets of RULINGS.md, the game record's actions, and the events they
// cause.
//
// The engine is pure. It does no I/O, reads no clock and draws randomness only
// from the seeded source of each game, so that a record always replays to the
// same events. State in, action in, events out.
package engine
