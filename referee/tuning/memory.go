package tuning

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
)

// Memory is what the process holds: the resident set as the kernel counts
// it, split into anonymous pages (heaps: Go's, glibc malloc's arenas, the
// C libraries' own) and pages of mapped files (the binary and its shared
// libraries), and what of it is Go's.
type Memory struct {
	RSS, Anon, File int64 // bytes, from /proc/self/status
	Peak            int64 // the highest RSS so far (VmHWM), bytes
	Threads         int   // the process's threads (Go's, OpenCV's, OpenBLAS's)
	GoHeap          int64 // bytes in live and not yet swept Go objects
	GoTotal         int64 // bytes the Go runtime has mapped and not returned
}

// String gives the figures in MB of 2^20 bytes, as top and ps count them.
func (m Memory) String() string {
	mb := func(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) }
	return fmt.Sprintf("RSS %s MB (anonymous %s, files %s; peak %s), Go heap %s MB (Go runtime %s), %d threads",
		mb(m.RSS), mb(m.Anon), mb(m.File), mb(m.Peak), mb(m.GoHeap), mb(m.GoTotal), m.Threads)
}

// ReadMemory reads this process's memory from /proc/self/status and the Go
// runtime's metrics.
func ReadMemory() (Memory, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return Memory{}, fmt.Errorf("tuning: %w", err)
	}
	m, err := parseStatus(b)
	if err != nil {
		return Memory{}, err
	}
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	for i := range s {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return Memory{}, fmt.Errorf("tuning: the Go runtime has no metric %s", s[i].Name)
		}
	}
	m.GoHeap = int64(s[0].Value.Uint64())
	m.GoTotal = int64(s[1].Value.Uint64() - s[2].Value.Uint64())
	return m, nil
}

// parseStatus takes VmRSS, VmHWM, RssAnon, RssFile and Threads from the text of
// /proc/PID/status.
func parseStatus(b []byte) (Memory, error) {
	var m Memory
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(key) {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		case "RssAnon":
			dst = &m.Anon
		case "RssFile":
			dst = &m.File
		case "Threads":
			n, err := strconv.Atoi(string(bytes.TrimSpace(rest)))
			if err != nil {
				return Memory{}, fmt.Errorf("tuning: /proc status: Threads %q: %w", bytes.TrimSpace(rest), err)
			}
			m.Threads = n
			found++
			continue
		default:
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return Memory{}, fmt.Errorf("tuning: /proc status: %s %q: want a number of kB", key, bytes.TrimSpace(rest))
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("tuning: /proc status: %s: %w", key, err)
		}
		*dst = kb << 10
		found++
	}
	if found != 5 {
		return Memory{}, fmt.Errorf("tuning: /proc status: want VmRSS, VmHWM, RssAnon, RssFile and Threads, found %d of them", found)
	}
	return m, nil
}
