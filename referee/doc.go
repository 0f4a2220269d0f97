// Package referee runs one table: inputs (seat buttons, MQTT commands, an
// operator's corrections, the camera's reveals) go to the engine; a call
// triggers the camera; the engine's events go to the LEDs, to MQTT and to
// the journal.
//
// Every input is a record line of RECORD.md, and one goroutine (Run) owns
// the engine.Table and applies them one at a time. A line is appended to
// the journal and synced before any of its effects (events, state, LEDs)
// leave the referee; a refused one is answered with a Reply and, as in a
// record, journaled and published as its rejected event, so that
// adjudicating the journal gives exactly the events that were published.
package referee
