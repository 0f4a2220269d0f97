// Package camera is the table's camera as an input of the referee, as the
// seat buttons are one: the adapter (New) follows the table, and at a
// call (or star-board's opening roll) it captures the table, reads the
// dice (vision), assigns each die to its seat (Zones: the calibration's
// seat zones, or the nearest configured seat) and checks the read against
// the dice in play (CheckRead). A read it is sure of, or one whose doubt
// the engine finds cannot change the verdict (SettleRead,
// referee.Desk.Settle), it takes as the reveal from referee.SourceCamera;
// any other asks for a look (referee.Desk.AskForLook) and captures again.
//
// It keeps the frame of each read for the operator page
// (referee/operator) and, with Examples, each reveal's frame with its
// final dice as a labelled training example. Device opens a vision
// source again whenever it fails. This package and vision are the only
// ones of the referee that need OpenCV; the referee's core does not.
package camera
