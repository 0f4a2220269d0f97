// Package referee runs one table: inputs (seat buttons, MQTT commands, an
// operator's corrections) go to the engine; a call triggers the camera; the
// engine's events go to the LEDs, to MQTT and to the journal.
package referee
