package tuning

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <malloc.h>

// liarsd_mallopt sets one of glibc malloc's parameters; it returns 1 when
// the C library took it, 0 when it refused it or has no such parameter.
static int liarsd_mallopt(int which, int value) {
	switch (which) {
#ifdef M_ARENA_MAX
	case 0: return mallopt(M_ARENA_MAX, value);
#endif
#ifdef M_MMAP_THRESHOLD
	case 1: return mallopt(M_MMAP_THRESHOLD, value);
#endif
	}
	return 0;
}

// liarsd_blas_threads calls OpenBLAS's openblas_set_num_threads when the
// BLAS loaded is OpenBLAS; it returns 0 when it is another BLAS.
static int liarsd_blas_threads(int n) {
	void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
	if (set == NULL) return 0;
	set(n);
	return 1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
)

// The defaults, and the reasons for them, are in docs/install.md (Memory).
const (
	// ArenaMax caps glibc malloc's arenas: the main one and one more for
	// every thread that allocates while it is taken.
	ArenaMax = 2
	// MmapThreshold is the size from which glibc serves an allocation
	// (an image, a network's buffers) with a mapping of its own, given
	// back whole when freed. Setting it stops glibc from raising it
	// (up to 32 MiB) after each such free, which moved the camera's
	// frames into the arenas, where their pages stayed.
	MmapThreshold = 256 << 10
	// BLASThreads is OpenBLAS's thread count: the reader's products are
	// small, and with a thread per core OpenBLAS's threads spin against
	// the reader's own.
	BLASThreads = 1
)

// A Setting is one default that Defaults considered.
type Setting struct {
	Name  string // the environment variable that overrides it
	Value int
	// Applied is false when the environment chose it already (the
	// environment's choice stands), or the library has no such setting.
	Applied bool
	Why     string // why it was not applied; "" when it was
}

// String gives the setting as NAME=VALUE, or why it was not set.
func (s Setting) String() string {
	if s.Applied {
		return fmt.Sprintf("%s=%d", s.Name, s.Value)
	}
	return fmt.Sprintf("%s not set: %s", s.Name, s.Why)
}

// Defaults sets glibc malloc's arena count and mmap threshold and
// OpenBLAS's thread count to liarsd's defaults, each unless the
// environment already chose it (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_,
// glibc.malloc.* in GLIBC_TUNABLES, OPENBLAS_NUM_THREADS,
// GOTO_NUM_THREADS, OMP_NUM_THREADS), so the systemd unit and a command
// typed by hand run alike and either can be overridden. Call it first
// thing in main, before OpenCV runs on other threads: an arena made
// before it stays. It reports what it did.
func Defaults() []Setting {
	return apply(os.Getenv)
}

// A knob is one default: the environment variables and glibc tunable that
// choose it instead, and how to set it.
type knob struct {
	env     []string // the first is the Setting's name
	tunable string
	value   int
	set     func() bool
	missing string // why set can fail
}

var knobs = []knob{
	{env: []string{"MALLOC_ARENA_MAX"}, tunable: "glibc.malloc.arena_max", value: ArenaMax,
		set: func() bool { return C.liarsd_mallopt(0, C.int(ArenaMax)) == 1 }, missing: "the C library has no M_ARENA_MAX"},
	{env: []string{"MALLOC_MMAP_THRESHOLD_"}, tunable: "glibc.malloc.mmap_threshold", value: MmapThreshold,
		set: func() bool { return C.liarsd_mallopt(1, C.int(MmapThreshold)) == 1 }, missing: "the C library has no M_MMAP_THRESHOLD"},
	// OpenBLAS reads the first of these that is set.
	{env: []string{"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"}, value: BLASThreads,
		set: func() bool { return C.liarsd_blas_threads(C.int(BLASThreads)) == 1 }, missing: "the BLAS loaded is not OpenBLAS"},
}

func apply(getenv func(string) string) []Setting {
	var out []Setting
	for _, k := range knobs {
		s := Setting{Name: k.env[0], Value: k.value}
		for _, e := range k.env {
			if v := getenv(e); v != "" && s.Why == "" {
				s.Why = fmt.Sprintf("the environment has %s=%s", e, v)
			}
		}
		switch {
		case s.Why != "":
		case k.tunable != "" && strings.Contains(getenv("GLIBC_TUNABLES"), k.tunable+"="):
			s.Why = "GLIBC_TUNABLES sets " + k.tunable
		case !k.set():
			s.Why = k.missing
		default:
			s.Applied = true
		}
		out = append(out, s)
	}
	return out
}
