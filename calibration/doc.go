// Package calibration holds what a table knows about itself (camera geometry,
// seat zones, die size, the star's artwork, the pin map), how each is
// measured, and the versioned file it lives in.
package calibration
