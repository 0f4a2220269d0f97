package demo

import "github.com/liarsd/liarsd/referee/refereetest"

// Script plays games offline with simple players and seeded dice and
// returns at least n record lines, every one accepted in order
// (refereetest.Script).
func Script(rules string, names []string, options map[string]any, seed uint64, n int) [][]byte {
	return refereetest.Script(rules, names, options, seed, n)
}
