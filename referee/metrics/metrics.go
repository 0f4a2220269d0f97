// Package metrics counts what a table does, for venues that monitor their
// tables with Prometheus: reveals, how long the camera takes to read the
// dice, reads that needed a look, rejected inputs, events, and the MQTT
// client's queue and its connection to the broker. The referee calls the methods of Metrics; Handler
// serves them at /metrics in Prometheus's text format.
//
// All methods are safe on a nil *Metrics, so that a referee built without
// metrics needs no checks.
package metrics

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/liarsd/liarsd/referee/buildinfo"

	"github.com/liarsd/liarsd/engine"
)

// Namespace prefixes every metric's name.
const Namespace = "liarsd"

// Read results, the values of the result label of reads_total.
const (
	ReadOK          = "ok"          // every die read with confidence, the counts fit
	ReadUnconfirmed = "unconfirmed" // dice in doubt, none of which could change the verdict
	ReadNeedsLook   = "needs_look"  // some die uncertain or the counts do not fit
	ReadError       = "error"       // no image, or the reader failed
)

// Metrics are one table's metrics.
type Metrics struct {
	reg *prometheus.Registry
	// labels are every metric's constant labels: the table.
	labels prometheus.Labels

	events         *prometheus.CounterVec
	reveals        prometheus.Counter
	rejected       *prometheus.CounterVec
	games          prometheus.Counter
	reads          *prometheus.CounterVec
	readSeconds    prometheus.Histogram
	uncertainDice  prometheus.Counter
	uncertainReads prometheus.Counter
	lastEventSeq   prometheus.Gauge

	// pending is QueueDepth's latest function, registered once.
	pending     atomic.Pointer[func() int]
	pendingOnce sync.Once
	// broker is BrokerConnection's latest function, registered once.
	broker     atomic.Pointer[func() Broker]
	brokerOnce sync.Once
}

// Broker is how the MQTT client's connection to the broker goes.
type Broker struct {
	Connected bool
	// Failures counts the failed connection attempts since the start;
	// LastError is the last one's cause ("" for none).
	Failures  int
	LastError string
}

// New returns the metrics of table, registered in a registry of their own
// along with the Go runtime's and the process's collectors.
func New(table string) *Metrics {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"table": table}
	m := &Metrics{
		reg:    reg,
		labels: labels,
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "events_total",
			Help: "Events the referee published, by type (RECORD.md).", ConstLabels: labels}, []string{"type"}),
		reveals: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "reveals_total",
			Help: "Reveals accepted (revealed events).", ConstLabels: labels}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "rejected_total",
			Help: "Inputs refused, by reason (RECORD.md).", ConstLabels: labels}, []string{"reason"}),
		games: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "games_total",
			Help: "Games (rounds in endurance) finished.", ConstLabels: labels}),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "reads_total",
			Help: "Camera reads of a reveal, by result: ok, needs_look or error.", ConstLabels: labels}, []string{"result"}),
		readSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "read_seconds",
			Help:        "Time to capture and read the dice of a reveal.",
			Buckets:     []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10},
			ConstLabels: labels}),
		uncertainReads: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "uncertain_reads_total",
			Help: "Reads that needed a look (a die read without confidence, or counts that do not fit).", ConstLabels: labels}),
		uncertainDice: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "uncertain_dice_total",
			Help: "Dice the camera could not read with confidence.", ConstLabels: labels}),
		lastEventSeq: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "last_event_seq",
			Help: "The seq of the last event published.", ConstLabels: labels}),
	}
	bi := buildinfo.Get()
	build := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "build_info",
		Help: "Always 1: the build's version, VCS revision, and Go and OpenCV versions as labels (liarsd version).",
		ConstLabels: prometheus.Labels{"table": table, "version": bi.Version, "revision": bi.Revision,
			"goversion": bi.Go, "opencv": bi.OpenCV}})
	build.Set(1)
	reg.MustRegister(m.events, m.reveals, m.rejected, m.games, m.reads, m.readSeconds, m.uncertainReads, m.uncertainDice, m.lastEventSeq,
		build, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry, for more collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Event counts one event the referee published.
func (m *Metrics) Event(e engine.Event) {
	if m == nil || e == nil {
		return
	}
	h := e.Head()
	m.events.WithLabelValues(h.Type).Inc()
	m.lastEventSeq.Set(float64(h.Seq))
	switch ev := e.(type) {
	case *engine.Revealed:
		m.reveals.Inc()
	case *engine.Rejected:
		m.rejected.WithLabelValues(string(ev.Reason)).Inc()
	case *engine.GameOver:
		m.games.Inc()
	}
}

// Events counts the events of one input. A correction's events (a
// corrected event, then the hand's result again) count in events_total,
// not as another reveal or another game: the hand was revealed once, and
// its game ended once.
func (m *Metrics) Events(evs []engine.Event) {
	if m != nil && len(evs) > 0 && evs[0].Head().Type == engine.EvCorrected {
		for _, e := range evs {
			m.events.WithLabelValues(e.Head().Type).Inc()
			m.lastEventSeq.Set(float64(e.Head().Seq))
		}
		return
	}
	for _, e := range evs {
		m.Event(e)
	}
}

// Rejected counts an input refused outside the engine (a bad command on
// MQTT the engine never saw, a busy queue), by reason.
func (m *Metrics) Rejected(reason string) {
	if m == nil {
		return
	}
	m.rejected.WithLabelValues(reason).Inc()
}

// Read records one camera read of a reveal: how long it took, its result
// (ReadOK, ReadUnconfirmed, ReadNeedsLook, ReadError) and how many dice were uncertain.
func (m *Metrics) Read(took time.Duration, result string, uncertainDice int) {
	if m == nil {
		return
	}
	m.readSeconds.Observe(took.Seconds())
	m.reads.WithLabelValues(result).Inc()
	if result == ReadNeedsLook {
		m.uncertainReads.Inc()
	}
	if uncertainDice > 0 {
		m.uncertainDice.Add(float64(uncertainDice))
	}
}

// QueueDepth reports the MQTT client's queue (messages not yet
// acknowledged by the broker) through pending, read at each scrape, e.g.
// (*mqtt.Client).Pending. A later call replaces the function (a client
// dialled again).
func (m *Metrics) QueueDepth(pending func() int) {
	if m == nil || pending == nil {
		return
	}
	m.pending.Store(&pending)
	m.pendingOnce.Do(func() {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "mqtt_queue_depth",
			Help: "MQTT messages queued and not yet acknowledged by the broker.", ConstLabels: m.labels},
			func() float64 { return float64((*m.pending.Load())()) }))
	})
}

// BrokerConnection reports the MQTT client's connection through broker,
// read at each scrape: liarsd_mqtt_connected (1 or 0),
// liarsd_mqtt_connect_failures_total, and
// liarsd_mqtt_last_connect_error{error="..."} 1 once an attempt failed. A
// later call replaces the function (a client dialled again).
func (m *Metrics) BrokerConnection(broker func() Broker) {
	if m == nil || broker == nil {
		return
	}
	m.broker.Store(&broker)
	m.brokerOnce.Do(func() { m.reg.MustRegister(brokerCollector{m}) })
}

// brokerCollector collects BrokerConnection's metrics: the last error is
// a label, so it is described and collected by hand.
type brokerCollector struct{ m *Metrics }

var (
	connectedDesc = func(l prometheus.Labels) *prometheus.Desc {
		return prometheus.NewDesc(Namespace+"_mqtt_connected", "Whether the MQTT client is connected to the broker (1) or not (0).", nil, l)
	}
	failuresDesc = func(l prometheus.Labels) *prometheus.Desc {
		return prometheus.NewDesc(Namespace+"_mqtt_connect_failures_total", "Failed attempts to connect to the broker (refused, unreachable, TLS, login).", nil, l)
	}
	lastErrorDesc = func(l prometheus.Labels) *prometheus.Desc {
		return prometheus.NewDesc(Namespace+"_mqtt_last_connect_error", "The cause of the last failed attempt to connect to the broker, as its error label (1 once an attempt failed).", []string{"error"}, l)
	}
)

func (b brokerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- connectedDesc(b.m.labels)
	ch <- failuresDesc(b.m.labels)
	ch <- lastErrorDesc(b.m.labels)
}

func (b brokerCollector) Collect(ch chan<- prometheus.Metric) {
	s := (*b.m.broker.Load())()
	connected := 0.0
	if s.Connected {
		connected = 1
	}
	ch <- prometheus.MustNewConstMetric(connectedDesc(b.m.labels), prometheus.GaugeValue, connected)
	ch <- prometheus.MustNewConstMetric(failuresDesc(b.m.labels), prometheus.CounterValue, float64(s.Failures))
	if s.LastError != "" {
		ch <- prometheus.MustNewConstMetric(lastErrorDesc(b.m.labels), prometheus.GaugeValue, 1, s.LastError)
	}
}

// Handler serves the metrics in Prometheus's exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
