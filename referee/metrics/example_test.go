package metrics_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/liarsd/liarsd/referee/metrics"
)

// The referee reports each camera read; /metrics shows them.
func ExampleMetrics_Read() {
	m := metrics.New("bar-1")
	m.Read(180*time.Millisecond, metrics.ReadOK, 0)
	m.Read(2100*time.Millisecond, metrics.ReadNeedsLook, 1)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "liarsd_reads_total") || strings.HasPrefix(line, "liarsd_uncertain_reads_total") {
			fmt.Println(line)
		}
	}
	// Output:
	// liarsd_reads_total{result="needs_look",table="bar-1"} 1
	// liarsd_reads_total{result="ok",table="bar-1"} 1
	// liarsd_uncertain_reads_total{table="bar-1"} 1
}
