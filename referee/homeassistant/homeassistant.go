// Package homeassistant makes a table appear in Home Assistant through
// MQTT discovery (MQTT.md): retained configs under homeassistant/ describe
// a device per table with sensors for its phase, turn, current bid, each
// seat's dice (and chips and rounds won where played), and the last
// result, and an event entity for each game's result (Home Assistant
// restores it across its restarts; the events topic is not retained), all
// read from the table's own topics with templates, the device linked to
// the table's page. Nothing is published that the table's topics do not
// already say.
//
// Configs is pure: a snapshot in, messages out. Publisher keeps what was
// published so that a seat that leaves the table loses its sensor, and
// publishes everything again when Home Assistant says it is back online.
// Run is a self-contained client for a daemon: it follows the table's
// retained state on the broker and keeps the configs in step.
package homeassistant

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/liarsd/liarsd/engine"
)

// DiscoveryPrefix is Home Assistant's default discovery prefix.
const DiscoveryPrefix = "homeassistant"

// StatusTopic is where Home Assistant announces itself ("online").
const StatusTopic = DiscoveryPrefix + "/status"

// DefaultPrefix is MQTT.md's topic prefix.
const DefaultPrefix = "liarsdice"

// Message is one retained MQTT message; an empty Payload removes the
// entity its topic configures.
type Message struct {
	Topic   string
	Payload []byte
}

// Device is the device block of a discovery config.
type Device struct {
	Identifiers  []string `json:"identifiers"`
	Name         string   `json:"name"`
	Manufacturer string   `json:"manufacturer"`
	Model        string   `json:"model"`
	SWVersion    string   `json:"sw_version,omitempty"`
	// ConfigurationURL is the table's page: Home Assistant links the
	// device to it.
	ConfigurationURL string `json:"configuration_url,omitempty"`
}

// Origin says which software publishes the config.
type Origin struct {
	Name       string `json:"name"`
	SWVersion  string `json:"sw_version,omitempty"`
	SupportURL string `json:"support_url,omitempty"`
}

// Config is one entity's discovery config (the fields liarsd uses, with
// Home Assistant's full key names).
type Config struct {
	Name                string `json:"name"`
	UniqueID            string `json:"unique_id"`
	StateTopic          string `json:"state_topic"`
	ValueTemplate       string `json:"value_template,omitempty"`
	JSONAttributesTopic string `json:"json_attributes_topic,omitempty"`
	JSONAttrTemplate    string `json:"json_attributes_template,omitempty"`
	AvailabilityTopic   string `json:"availability_topic,omitempty"`
	PayloadAvailable    string `json:"payload_available,omitempty"`
	PayloadNotAvailable string `json:"payload_not_available,omitempty"`
	PayloadOn           string `json:"payload_on,omitempty"`
	PayloadOff          string `json:"payload_off,omitempty"`
	DeviceClass         string `json:"device_class,omitempty"`
	StateClass          string `json:"state_class,omitempty"`
	UnitOfMeasurement   string `json:"unit_of_measurement,omitempty"`
	EntityCategory      string `json:"entity_category,omitempty"`
	Icon                string `json:"icon,omitempty"`
	// EventTypes are an event entity's types.
	EventTypes []string `json:"event_types,omitempty"`
	Device     Device   `json:"device"`
	Origin     *Origin  `json:"origin,omitempty"`
	QoS        int      `json:"qos"`
}

// Options name the table's topics and the device.
type Options struct {
	// Prefix is the table's topic prefix (liarsdice).
	Prefix string
	// Table is the table's id.
	Table string
	// DiscoveryPrefix is Home Assistant's (homeassistant).
	DiscoveryPrefix string
	// Version is liarsd's version, shown on the device.
	Version string
	// ConfigurationURL is the table's page as Home Assistant's users open
	// it (web.public_url, or the machine's address on the network); empty
	// for no link.
	ConfigurationURL string
}

func (o *Options) fill() {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.DiscoveryPrefix == "" {
		o.DiscoveryPrefix = DiscoveryPrefix
	}
}

// ResultTemplate turns a game_over or match_over event into the game
// result entity's event: its type, and the winner, the game (the round
// in endurance), the pot and the rounds won as attributes.
const ResultTemplate = "{% if value_json.type in ['" + engine.EvGameOver + "', '" + engine.EvMatchOver + "'] %}" +
	"{{ {'event_type': value_json.type, 'winner': value_json.winner, 'game': value_json.game | default(none), " +
	"'pot': value_json.pot | default(none), 'wins': value_json.wins | default(none)} | tojson }}{% endif %}"

var idChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// slug turns a seat's name into an id Home Assistant accepts in a topic;
// a name that had to change gets a short hash so that "a b" and "a_b"
// stay apart.
func slug(name string) string {
	s := idChars.ReplaceAllString(name, "_")
	if s == name {
		return s // case kept: "Ann" and "ann" are two seats
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s_%08x", s, h.Sum32())
}

// jinjaString quotes s for a Jinja template (seat names hold letters,
// digits, spaces, _ and -, but be safe).
func jinjaString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// Configs returns the discovery configs of a table's entities, for the
// seats and pots its snapshot has, sorted by topic.
func Configs(o Options, s engine.Snapshot) []Message {
	o.fill()
	base := o.Prefix + "/" + o.Table + "/"
	state, events, status := base+"state", base+"events", base+"status"
	node := "liarsd_" + o.Table
	dev := Device{Identifiers: []string{node}, Name: "Liar's Dice table " + o.Table, Manufacturer: "liarsd",
		Model: "Liar's Dice referee", SWVersion: o.Version, ConfigurationURL: o.ConfigurationURL}
	origin := &Origin{Name: "liarsd", SWVersion: o.Version, SupportURL: "https://github.com/liarsd/liarsd"}

	var out []Message
	add := func(component, key string, c Config) {
		c.UniqueID = node + "_" + key
		c.Device, c.Origin, c.QoS = dev, origin, 1
		if c.AvailabilityTopic == "" && component != "binary_sensor" {
			c.AvailabilityTopic, c.PayloadAvailable, c.PayloadNotAvailable = status, "online", "offline"
		}
		b, _ := json.Marshal(c)
		out = append(out, Message{Topic: o.DiscoveryPrefix + "/" + component + "/" + node + "/" + key + "/config", Payload: b})
	}

	add("binary_sensor", "online", Config{Name: "Online", StateTopic: status, PayloadOn: "online", PayloadOff: "offline",
		DeviceClass: "connectivity", EntityCategory: "diagnostic"})
	add("sensor", "phase", Config{Name: "Phase", StateTopic: state, ValueTemplate: "{{ value_json.phase }}", Icon: "mdi:dice-multiple"})
	add("sensor", "rules", Config{Name: "Rules", StateTopic: state, ValueTemplate: "{{ value_json.rules or 'none' }}", Icon: "mdi:book-open-variant"})
	// The game's number in the journal, as every page shows it (the state's
	// game is RECORD.md's, 1 at each new_game).
	add("sensor", "game", Config{Name: "Game", StateTopic: state, ValueTemplate: "{{ value_json.game_number | default(value_json.game) }}", Icon: "mdi:counter"})
	add("sensor", "hand", Config{Name: "Hand", StateTopic: state, ValueTemplate: "{{ value_json.hand }}", Icon: "mdi:counter"})
	add("sensor", "turn", Config{Name: "Turn", StateTopic: state, ValueTemplate: "{{ value_json.turn or 'none' }}", Icon: "mdi:account-arrow-right"})
	add("sensor", "bid", Config{Name: "Current bid", StateTopic: state,
		ValueTemplate:       "{% if value_json.bid %}{{ value_json.bid.quantity }} x {{ 'star' if (value_json.star_die and value_json.bid.face == 1) else value_json.bid.face }}{% else %}none{% endif %}",
		JSONAttributesTopic: state, JSONAttrTemplate: "{{ (value_json.bid or {}) | tojson }}", Icon: "mdi:gavel"})
	// The referee's state carries the last resolution ("last") and its
	// status (ready, waiting for reveal, reading, needs a look, error)
	// besides the engine's snapshot.
	add("sensor", "last_result", Config{Name: "Last result", StateTopic: state,
		ValueTemplate:       "{% set r = value_json.last %}{% if r and r.call != 'fold' %}{{ r.caller }} called {{ r.bidder }}'s {{ r.bid.quantity }} x {{ 'star' if (value_json.star_die and r.bid.face == 1) else r.bid.face }}: {{ r.count }}{% elif r %}hand ended by folds{% else %}none{% endif %}",
		JSONAttributesTopic: state, JSONAttrTemplate: "{{ (value_json.last or {}) | tojson }}", Icon: "mdi:dice-6"})
	add("sensor", "status", Config{Name: "Referee status", StateTopic: state, ValueTemplate: "{{ value_json.status | default('unknown') }}",
		Icon: "mdi:traffic-light", EntityCategory: "diagnostic"})
	// A game's result is an event (the events topic is not retained,
	// MQTT.md): an event entity, which Home Assistant restores after its
	// own restart, where a sensor fed by events read unknown until the
	// next game ended. Every other event renders empty, which Home
	// Assistant ignores.
	add("event", "result", Config{Name: "Game result", StateTopic: events, EventTypes: []string{engine.EvGameOver, engine.EvMatchOver},
		ValueTemplate: ResultTemplate, Icon: "mdi:trophy"})
	if p := engine.Presets[s.Rules]; p != nil && p.Palifico {
		// Perudo: whether the hand is a palifico hand (ones not wild, the
		// face locked); the state says it in every hand.
		add("binary_sensor", "palifico", Config{Name: "Palifico hand", StateTopic: state, PayloadOn: "ON", PayloadOff: "OFF",
			ValueTemplate: "{{ 'ON' if value_json.palifico | default(false) else 'OFF' }}", Icon: "mdi:dice-1"})
	}
	if s.Pot != nil {
		add("sensor", "pot", Config{Name: "Pot", StateTopic: state, ValueTemplate: "{{ value_json.pot | default(0) }}", StateClass: "measurement", UnitOfMeasurement: "chips", Icon: "mdi:poker-chip"})
	}
	for _, seat := range s.Seats {
		key, q := slug(seat.Name), jinjaString(seat.Name)
		pick := func(attr string) string {
			return "{{ value_json.seats | selectattr('name', 'equalto', " + q + ") | map(attribute='" + attr + "') | first | default(0) }}"
		}
		add("sensor", "dice_"+key, Config{Name: seat.Name + " dice", StateTopic: state, ValueTemplate: pick("dice"),
			StateClass: "measurement", UnitOfMeasurement: "dice", Icon: "mdi:dice-multiple-outline"})
		if seat.Chips != nil {
			add("sensor", "chips_"+key, Config{Name: seat.Name + " chips", StateTopic: state, ValueTemplate: pick("chips"),
				StateClass: "measurement", UnitOfMeasurement: "chips", Icon: "mdi:poker-chip"})
		}
		if s.Wins != nil {
			add("sensor", "wins_"+key, Config{Name: seat.Name + " rounds won", StateTopic: state,
				ValueTemplate: "{{ value_json.wins[" + q + "] | default(0) }}", StateClass: "measurement", Icon: "mdi:trophy-outline"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Topic < out[j].Topic })
	return out
}

// Publisher publishes a table's configs through publish (retained, as
// the referee's MQTT client does) and keeps them in step with the table.
// It is safe for concurrent use.
type Publisher struct {
	opts    Options
	publish func(topic string, payload []byte, retained bool)

	mu   sync.Mutex
	snap *engine.Snapshot
	sent map[string][]byte // topic -> payload last published
}

// NewPublisher returns a Publisher that publishes with publish, e.g. the
// referee's (*mqtt.Client).Publish.
func NewPublisher(o Options, publish func(topic string, payload []byte, retained bool)) *Publisher {
	o.fill()
	return &Publisher{opts: o, publish: publish, sent: map[string][]byte{}}
}

// Update takes the table's latest snapshot: configs that are new or
// changed are published, and those of seats no longer at the table
// removed. A snapshot that changes no entity publishes nothing.
func (p *Publisher) Update(s engine.Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.snap = &s
	p.sync(false)
}

// HomeAssistantStatus takes a message of homeassistant/status: when Home
// Assistant comes back online every config is published again.
func (p *Publisher) HomeAssistantStatus(payload []byte) {
	if strings.TrimSpace(string(payload)) != "online" {
		return
	}
	p.Republish()
}

// Republish publishes every config again (once a snapshot is known): for
// Home Assistant coming back, and for a broker that came back without the
// retained configs.
func (p *Publisher) Republish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sync(true)
}

// Remove publishes an empty config for every entity published (and for
// those the last snapshot implies), so that Home Assistant removes the
// table's device.
func (p *Publisher) Remove() {
	p.mu.Lock()
	defer p.mu.Unlock()
	topics := map[string]bool{}
	for t := range p.sent {
		topics[t] = true
	}
	s := engine.Snapshot{}
	if p.snap != nil {
		s = *p.snap
	}
	for _, m := range Configs(p.opts, s) {
		topics[m.Topic] = true
	}
	for _, t := range sortedKeys(topics) {
		p.publish(t, nil, true)
	}
	p.sent = map[string][]byte{}
}

// Known records a config topic found retained on the broker (a restart's
// leftovers), so that the next Update removes it if the table no longer
// has that entity.
func (p *Publisher) Known(topic string, payload []byte) {
	if len(payload) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sent[topic]; !ok {
		p.sent[topic] = append([]byte(nil), payload...)
	}
}

// sync publishes what differs from what was sent (everything when all);
// p.mu is held.
func (p *Publisher) sync(all bool) {
	if p.snap == nil {
		return
	}
	want := map[string][]byte{}
	for _, m := range Configs(p.opts, *p.snap) {
		want[m.Topic] = m.Payload
	}
	for _, t := range sortedKeys(p.sent) {
		if _, ok := want[t]; !ok {
			p.publish(t, nil, true)
			delete(p.sent, t)
		}
	}
	for _, t := range sortedKeys(want) {
		if all || string(p.sent[t]) != string(want[t]) {
			p.publish(t, want[t], true)
			p.sent[t] = want[t]
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
