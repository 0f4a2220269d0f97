package mqtt

import "time"

// SetWriteTimeout sets the bound of the embedded broker's writes under its
// lock for a test, and returns a function that restores it.
func SetWriteTimeout(d time.Duration) (restore func()) {
	old := writeTimeout
	writeTimeout = d
	return func() { writeTimeout = old }
}
