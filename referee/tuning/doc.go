// Package tuning fits the C libraries under liarsd to a small machine, and
// measures what the process holds.
//
// liarsd's Go heap stays at a few megabytes; what grew was glibc's malloc,
// which gives each thread that allocates (Go's threads calling OpenCV, and
// OpenCV's own) an arena of its own, up to eight per core, and keeps each
// arena's freed pages (docs/install.md, Memory). Defaults sets the
// process's defaults at start; ReadMemory reports the resident set.
package tuning
