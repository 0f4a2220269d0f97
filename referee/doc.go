// Package referee is the table's core: inputs in, the rules engine, the
// journal, and the events and the state out. It runs one table, and needs
// neither OpenCV nor hardware: the camera, the buttons, MQTT, the LEDs and
// the pages are adapters around it.
//
// Every input is read once where it enters into an Input (ParseCommand
// for a command, ActionInput for an action a program chose), and one
// goroutine (Run) owns the engine.Table and takes the inputs one at a
// time. An accepted input is appended to the journal and synced before any
// of its effects leave the referee: its events and the state go to the
// Publisher (MQTT), then each Follower is told of the Change, in order
// (the board, the operator page's reads, the camera's adapter, an
// observer, the computer seats). A refused input is answered with a Reply
// and, as in a record, journaled and published as its rejected event, so
// that adjudicating the journal gives exactly the events that were
// published.
//
// Adapters act at the table through a Desk, on the referee's goroutine:
// the camera's adapter (referee/camera) asks which dice are awaited,
// weighs a read in doubt with the engine, takes its read as the reveal or
// asks for a look; the computer seats (computer.go, with engine/computer's
// strategies) take their moves the same way.
package referee
