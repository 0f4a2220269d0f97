// Package visiontest helps the tests of packages that read dice: a real
// vision.Reader, with the embedded networks, made and closed for a test.
package visiontest

import (
	"testing"

	"github.com/liarsd/liarsd/vision"
)

// NewReader returns a dice reader with opts, closed when the test ends; a
// reader that cannot be made fails the test.
func NewReader(t testing.TB, opts vision.Options) *vision.Reader {
	t.Helper()
	r, err := vision.NewReader(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
