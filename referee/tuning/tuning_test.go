package tuning

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseStatus(t *testing.T) {
	full := "Name:\tliarsd\nVmHWM:\t  301000 kB\nVmRSS:\t  277032 kB\nRssAnon:\t  196872 kB\nRssFile:\t   80160 kB\nRssShmem:\t       0 kB\nThreads:\t13\n"
	tests := []struct {
		name    string
		in      string
		want    Memory
		wantErr string
	}{
		{"full", full, Memory{RSS: 277032 << 10, Peak: 301000 << 10, Anon: 196872 << 10, File: 80160 << 10, Threads: 13}, ""},
		{"no threads", "VmHWM:\t1 kB\nVmRSS:\t1 kB\nRssAnon:\t1 kB\nRssFile:\t0 kB\n", Memory{}, "found 4 of them"},
		{"not kB", "VmRSS:\t1 MB\nRssAnon:\t1 kB\nRssFile:\t0 kB\nThreads:\t1\n", Memory{}, `VmRSS "1 MB"`},
		{"not a number", "VmRSS:\tx kB\nRssAnon:\t1 kB\nRssFile:\t0 kB\nThreads:\t1\n", Memory{}, "VmRSS"},
		{"bad threads", "VmRSS:\t1 kB\nRssAnon:\t1 kB\nRssFile:\t0 kB\nThreads:\tmany\n", Memory{}, `Threads "many"`},
		{"empty", "", Memory{}, "found 0 of them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "tuning: ") {
					t.Fatalf("got error %v; want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v; want %+v", got, tt.want)
			}
		})
	}
}

func TestReadMemory(t *testing.T) {
	m, err := ReadMemory()
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.Anon <= 0 || m.File <= 0 || m.RSS < m.Anon || m.Peak < m.RSS || m.Threads < 1 || m.GoHeap <= 0 || m.GoTotal < m.GoHeap {
		t.Errorf("got %+v; want positive figures, RSS >= anonymous, Go's total >= its heap", m)
	}
	if s := m.String(); !strings.HasPrefix(s, "RSS ") || !strings.Contains(s, " threads") {
		t.Errorf("got %q; want RSS ... threads", s)
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		// want: for each setting by name, "applied" or a part of why not.
		want map[string]string
	}{
		{"unit file sets all", map[string]string{"MALLOC_ARENA_MAX": "4", "MALLOC_MMAP_THRESHOLD_": "65536", "OPENBLAS_NUM_THREADS": "2"},
			map[string]string{"MALLOC_ARENA_MAX": "MALLOC_ARENA_MAX=4", "MALLOC_MMAP_THRESHOLD_": "MALLOC_MMAP_THRESHOLD_=65536", "OPENBLAS_NUM_THREADS": "OPENBLAS_NUM_THREADS=2"}},
		{"tunables", map[string]string{"GLIBC_TUNABLES": "glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=4096", "OMP_NUM_THREADS": "3"},
			map[string]string{"MALLOC_ARENA_MAX": "GLIBC_TUNABLES sets glibc.malloc.arena_max", "MALLOC_MMAP_THRESHOLD_": "GLIBC_TUNABLES sets glibc.malloc.mmap_threshold", "OPENBLAS_NUM_THREADS": "OMP_NUM_THREADS=3"}},
		{"other tunable", map[string]string{"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0", "GOTO_NUM_THREADS": "1"},
			map[string]string{"MALLOC_ARENA_MAX": "applied", "MALLOC_MMAP_THRESHOLD_": "applied", "OPENBLAS_NUM_THREADS": "GOTO_NUM_THREADS=1"}},
		{"nothing set", nil,
			map[string]string{"MALLOC_ARENA_MAX": "applied", "MALLOC_MMAP_THRESHOLD_": "applied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := apply(func(k string) string { return tt.env[k] })
			if len(got) != 3 {
				t.Fatalf("got %d settings; want 3", len(got))
			}
			for _, s := range got {
				want, ok := tt.want[s.Name]
				switch {
				case !ok:
					// OpenBLAS is not linked into this test: either is right.
					if !s.Applied && s.Why != "the BLAS loaded is not OpenBLAS" {
						t.Errorf("%s: got %v; want it set, or not for want of OpenBLAS", s.Name, s)
					}
				case want == "applied":
					if !s.Applied || s.String() != s.Name+"="+strconv.Itoa(s.Value) {
						t.Errorf("%s: got %v; want it set", s.Name, s)
					}
				default:
					if s.Applied || !strings.Contains(s.Why, want) {
						t.Errorf("%s: got %v; want it left, because of %s", s.Name, s, want)
					}
				}
			}
		})
	}
}
