// Package tournament is the rules of an event played across a venue's
// tables: players registered, seated at the tables for each round (Swiss
// by standings, or knock-out to a final table), each game's result taken
// from the table's own events, the organiser's overrides, and the
// standings with their tie-breaks.
//
// It is pure: no clock, no I/O. Its inputs are Input values, each one line
// of the tournament's journal (JSON, one object a line); Apply takes them
// one at a time, and a refused input changes nothing. Replaying the
// journal's lines through a new Tournament rebuilds it exactly, which is
// how the service resumes after a crash. What the service must do after
// an input (a table's new_game to send) comes back as Commands.
//
// Seating, planned from the state when the organiser starts a round, is
// written into the start_round line itself before it is journaled (Plan),
// so that a replay seats the round as it was seated, whatever this code
// would plan today.
package tournament
