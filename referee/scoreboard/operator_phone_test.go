package scoreboard_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/scoreboard"
	"github.com/liarsd/liarsd/referee/scoreboard/browsertest"
	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// The phone the operator holds: issue 45 measured the page on it.
const phoneW, phoneH = 390, 844

// swappedReads serves the read a test sets.
type swappedReads struct {
	mu sync.Mutex
	rd *operator.Read
}

func (s *swappedReads) LastRead() *operator.Read {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rd
}

func (s *swappedReads) set(rd *operator.Read) {
	s.mu.Lock()
	s.rd = rd
	s.mu.Unlock()
}

// phoneTable is a table whose referee the test plays: three seats of two
// dice, ann bid three 5s and bob called. It publishes the retained state as
// the referee does and answers the commands the page sends, keeping them.
type phoneTable struct {
	t      *testing.T
	topics mqtt.Topics
	ref    paho.Client
	reads  *swappedReads
	web    *httptest.Server
	frame  operator.Frame
	cmds   chan []byte
}

var phoneLines = []string{`{"type":"new_game","rules":"common-hand","seats":["ann","bob","cy"],"first":"ann","seed":4,"options":{"dice":2}}`,
	`{"type":"bid","seat":"ann","quantity":3,"face":5}`, `{"type":"challenge","seat":"bob"}`}

func startPhoneTable(t *testing.T) *phoneTable {
	t.Helper()
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "127.0.0.1:0", WebSocket: "127.0.0.1:0", Table: "bar"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	user, password := b.Credentials()
	pt := &phoneTable{t: t, topics: mqtt.TopicsFor("", "bar"), reads: &swappedReads{}, cmds: make(chan []byte, 8), frame: phoneFrame(t)}
	pt.ref = paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("liarsd-bar").SetUsername(user).SetPassword(password))
	if tok := pt.ref.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { pt.ref.Disconnect(100) })
	tok := pt.ref.Subscribe(pt.topics.Cmd, 1, func(_ paho.Client, m paho.Message) {
		var c struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(m.Payload(), &c)
		pt.cmds <- append([]byte{}, m.Payload()...)
		pt.ref.Publish(pt.topics.Reply, 1, false, `{"id":`+string(c.ID)+`,"ok":true}`)
	})
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	pt.publish(pt.topics.Status, []byte("online"))
	pt.web = httptest.NewServer(scoreboard.Handler(scoreboard.Options{Table: "bar", WebSocket: strings.TrimPrefix(b.WebSocketURL(), "ws://"), Reads: pt.reads}))
	t.Cleanup(pt.web.Close)
	return pt
}

func (pt *phoneTable) publish(topic string, payload []byte) {
	pt.t.Helper()
	if tok := pt.ref.Publish(topic, 1, true, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		pt.t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

// state publishes the table after lines as the referee would, in status.
func (pt *phoneTable) state(status string, lines ...string) {
	pt.t.Helper()
	table := engine.NewTable()
	var last *engine.Resolved
	var unconfirmed map[string][]int
	for _, l := range lines {
		evs, err := record.Apply(table, []byte(l))
		if err != nil {
			pt.t.Fatalf("%s: %v", l, err)
		}
		for _, e := range evs {
			switch e := e.(type) {
			case *engine.Revealed:
				unconfirmed = e.Unconfirmed
			case *engine.Resolved:
				last = e
			}
		}
	}
	b, _ := json.Marshal(struct {
		engine.Snapshot
		Table           string                  `json:"table"`
		Status          string                  `json:"status"`
		GameNumber      int                     `json:"game_number"`
		Last            *engine.Resolved        `json:"last,omitempty"`
		LastUnconfirmed map[string][]int        `json:"last_unconfirmed,omitempty"`
		Correctable     *engine.CorrectableView `json:"correctable,omitempty"`
	}{table.Snapshot(), "bar", status, 3, last, unconfirmed, table.Correctable()})
	pt.publish(pt.topics.State, b)
}

// command waits for the next command the page sends.
func (pt *phoneTable) command() map[string]json.RawMessage {
	pt.t.Helper()
	select {
	case c := <-pt.cmds:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(c, &m); err != nil {
			pt.t.Fatal(err)
		}
		return m
	case <-time.After(20 * time.Second):
		pt.t.Fatal("no command from the page")
		return nil
	}
}

// The dice on the table at the call: the camera's picture (1280x800, the
// demo camera's) draws them where phoneRead says they lie.
var phoneDice = []struct {
	seat  string
	x, y  float64
	face  int
	doubt bool
}{
	{"ann", 300, 560, 3, false}, {"ann", 360, 590, 2, true},
	{"bob", 620, 230, 5, false}, {"bob", 680, 210, 5, true},
	{"cy", 960, 560, 4, false},
}

// phoneFrame renders the table's picture.
func phoneFrame(t *testing.T) operator.Frame {
	t.Helper()
	scene := synth.Scene{Width: 1280, Height: 800, DieSize: 44, Table: synth.Tables[0], Seed: 3,
		Light: synth.Lighting{Gradient: 0.15, Angle: 30, Vignette: 0.1, Shadow: 0.4}}
	for i, d := range phoneDice {
		pal := synth.Palettes[0]
		scene.Dice = append(scene.Dice, synth.Die{X: d.x, Y: d.y, Face: d.face, Colour: pal.Body, PipColour: pal.Pips, Rotation: float64(i * 17)})
	}
	// cy's second die lies under a glass: not in the picture.
	img, _, err := synth.Render(scene)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	buf, err := gocv.IMEncode(gocv.JPEGFileExt, img)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	return operator.JPEGFrame{Data: append([]byte(nil), buf.GetBytes()...), Width: 1280, Height: 800}
}

// phoneRead is the camera's read of phoneFrame, weighed by the referee:
// ann's die in doubt (a 2 or a 6) cannot change the verdict, bob's (a 5
// or a 6) can, and cy's die the camera missed cannot.
func phoneRead(id int64) *operator.Read {
	rd := &operator.Read{ID: id, Kind: "reveal", Game: 1, Hand: 1, Attempt: 1, Width: 1280, Height: 800, Sides: 6,
		Message: "2 dice in doubt (ann, bob); cy has 2 dice, 1 seen: bob's die could make three 5s true",
		Why:     "bob's die could make three 5s true", Weighed: true,
		Seats: []referee.SeatCount{{Seat: "ann", Expected: 2, Seen: 2}, {Seat: "bob", Expected: 2, Seen: 2}, {Seat: "cy", Expected: 2, Seen: 1}}}
	for _, d := range phoneDice {
		die := operator.Die{Seat: d.seat, Die: vision.Die{Face: d.face, X: d.x, Y: d.y, Size: 56, Confidence: 0.97,
			Net: &vision.Opinion{Face: d.face, Probability: 0.97}, Pips: &vision.Opinion{Face: d.face}}}
		if d.doubt {
			die.Doubt, die.Uncertain, die.Confidence = "uncertain", true, 0.55
			switch d.seat {
			case "ann":
				die.Face, die.Net = 6, &vision.Opinion{Face: 6, Probability: 0.55}
				die.Likely = []vision.Opinion{{Face: 6, Probability: 0.55}, {Face: 2, Probability: 0.41}, {Face: 2}}
			case "bob":
				die.Matters, die.Net = true, &vision.Opinion{Face: 5, Probability: 0.52}
				die.Pips = &vision.Opinion{Face: 6}
				die.Likely = []vision.Opinion{{Face: 5, Probability: 0.52}, {Face: 6, Probability: 0.44}, {Face: 6}}
			}
		}
		rd.Dice = append(rd.Dice, die)
	}
	return rd
}

// layoutJS measures what a thumb and an eye need on the operator page:
// the header's height and whether a pill broke inside, the smallest
// target of the picture and the seats' dice, whether each seat's +
// shares the line of its dice, and whether the tag of a die in the
// picture leaves it.
const layoutJS = `(() => {
  const r = e => e.getBoundingClientRect();
  const header = r(document.querySelector('header')).height;
  const pills = [...document.querySelectorAll('#meta span')].map(e => ({text: e.textContent, h: r(e).height}));
  const lineH = parseFloat(getComputedStyle(document.querySelector('#meta span')).lineHeight) || 20;
  const broken = pills.filter(p => p.h > 2 * lineH).map(p => p.text);
  const targets = [...document.querySelectorAll('.op-mark, #reveal-seats button, .op-closeup')].filter(e => e.offsetParent)
    .map(e => ({what: e.className + ' ' + (e.dataset.seat || ''), w: r(e).width, h: r(e).height}));
  const small = targets.filter(t => t.w < 44 || t.h < 44);
  const addAlone = [...document.querySelectorAll('#reveal-seats li')].filter(li => {
    const dice = li.querySelectorAll('button.die-button'), add = li.querySelector('button.add');
    return dice.length && r(add).top > r(dice[dice.length - 1]).bottom - 1;
  }).map(li => li.dataset.seat);
  const fr = r(document.getElementById('frame'));
  const inside = m => { const b = r(m), x = b.left + b.width / 2, y = b.top + b.height / 2; return x >= fr.left && x <= fr.right && y >= fr.top && y <= fr.bottom };
  const cut = [...document.querySelectorAll('.op-mark')].filter(inside).map(m => m.querySelector('.tag'))
    .filter(g => r(g).top < fr.top - 0.5 || r(g).bottom > fr.bottom + 0.5).length;
  return {header, broken, pills: pills.map(p => p.text), small, targets: targets.length, addAlone, cut};
})()`

type phoneLayout struct {
	Header   float64  `json:"header"`
	Broken   []string `json:"broken"`
	Pills    []string `json:"pills"`
	Small    []any    `json:"small"`
	Targets  int      `json:"targets"`
	AddAlone []string `json:"addAlone"`
	Cut      int      `json:"cut"`
}

func checkPhoneLayout(t *testing.T, p *browsertest.Page, when string) phoneLayout {
	t.Helper()
	var l phoneLayout
	if err := p.Eval(context.Background(), layoutJS, &l); err != nil {
		t.Fatal(err)
	}
	if l.Header > 100 || len(l.Broken) > 0 {
		t.Errorf("%s: header %.0f px high, pills %q broken inside: %q; want at most 100 px and none broken", when, l.Header, l.Pills, l.Broken)
	}
	if len(l.Small) > 0 || l.Targets == 0 {
		t.Errorf("%s: %d of %d targets under 44 px: %v", when, len(l.Small), l.Targets, l.Small)
	}
	if len(l.AddAlone) > 0 {
		t.Errorf("%s: the + of %v on a line of its own", when, l.AddAlone)
	}
	if l.Cut > 0 {
		t.Errorf("%s: %d tags cut by the picture's edge", when, l.Cut)
	}
	return l
}

// pickerJS reads the face picker: its likeliest faces (with their share)
// and the other faces, with their buttons' sizes.
const pickerJS = `(() => { if (document.getElementById('picker').hidden) return null;
  const b = s => [...document.querySelectorAll(s)].filter(e => e.offsetParent).map(e => ({face: +e.dataset.face, w: e.getBoundingClientRect().width, text: e.textContent}));
  return {likely: b('#picker-likely button'), others: b('#picker-faces button'), witness: document.getElementById('picker-witness').textContent,
    closeup: !!document.querySelector('#picker-closeup:not([hidden]) .closeup')} })()`

type pickerView struct {
	Likely []struct {
		Face int     `json:"face"`
		W    float64 `json:"w"`
		Text string  `json:"text"`
	} `json:"likely"`
	Others []struct {
		Face int     `json:"face"`
		W    float64 `json:"w"`
	} `json:"others"`
	Witness string `json:"witness"`
	Closeup bool   `json:"closeup"`
}

func (v pickerView) faces() (likely, others []int) {
	for _, b := range v.Likely {
		likely = append(likely, b.Face)
	}
	for _, b := range v.Others {
		others = append(others, b.Face)
	}
	return likely, others
}

// checkPicker checks that the picker offers a die's likeliest faces
// first, larger than the others, and every face once.
func checkPicker(t *testing.T, v pickerView, want []int) {
	t.Helper()
	likely, others := v.faces()
	if len(likely) != len(want) || len(likely)+len(others) != 6 {
		t.Fatalf("picker: likeliest %v, others %v; want %v first, then the rest", likely, others, want)
	}
	for i, f := range want {
		if likely[i] != f {
			t.Errorf("picker: likeliest %v; want %v", likely, want)
		}
	}
	for _, l := range v.Likely {
		for _, o := range v.Others {
			if l.W < 1.4*o.W {
				t.Errorf("picker: likeliest face %d is %.0f px wide, face %d %.0f px; want the likeliest much larger", l.Face, l.W, o.Face, o.W)
			}
		}
	}
	if !v.Closeup {
		t.Error("picker: no close-up of the die")
	}
}

// TestOperatorOnAPhone plays the operator on a 390x844 phone through a
// read in doubt that the referee weighed (one doubt matters, one does
// not, a die missed): the header, the targets and the + buttons fit a
// thumb, the page says who called and which doubts matter and why, Accept
// says what is left and opens it, a die in doubt offers its likeliest
// faces first, and the reveal sent is the page's dice.
func TestOperatorOnAPhone(t *testing.T) {
	pt := startPhoneTable(t)
	pt.state("needs a look", phoneLines...)
	rd := phoneRead(1)
	rd.Frame = pt.frame
	pt.reads.set(rd)
	p := open(t, pt.web.URL+"/operator")
	if err := p.Resize(context.Background(), phoneW, phoneH, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, p, "the read in doubt", `document.getElementById('conn').dataset.conn === 'live' && document.querySelectorAll('.op-closeup').length === 2 &&
	  document.querySelector('#bid .caller')`, nil)
	checkPhoneLayout(t, p, "the read in doubt")
	var text struct {
		Bid, Status, Why, Accept, Meta string
		Matters                        []string
	}
	if err := p.Eval(context.Background(), `({bid: document.getElementById('bid').textContent, status: document.getElementById('reveal-status').textContent,
	  why: document.getElementById('reveal-why').textContent, accept: document.getElementById('accept').textContent, meta: document.getElementById('meta').textContent,
	  matters: [...document.querySelectorAll('.op-closeup.matters')].map(e => e.dataset.seat)})`, &text); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, got, want string }{
		{"the bid", text.Bid, "bob calls liar"},
		{"the status", text.Status, "bob's die could make three 5s true"},
		{"the doubts", text.Why, "1 doubt could change the result (bob); 1 doubt could not (ann)"},
		{"Accept", text.Accept, "cy has 2 dice, 1 here"},
		{"the header", text.Meta, "game 3 · hand 1"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s: %q; want %q in it", c.what, c.got, c.want)
		}
	}
	if strings.Join(text.Matters, ",") != "bob" {
		t.Errorf("close-ups marked as mattering: %v; want bob's", text.Matters)
	}
	saveScreenshot(t, p, "operator-phone-doubt.png")

	// The missed die, added to cy with face 4: Accept then says the dice
	// in doubt are left, and opens them one by one.
	tap(t, p, `#reveal-seats li[data-seat="cy"] button.add`)
	waitFor(t, p, "the picker for a new die", `!document.getElementById('picker').hidden`, nil)
	tap(t, p, `#picker button[data-face="4"]`)
	var accept string
	waitFor(t, p, "Accept as a guide", `(() => { const a = document.getElementById('accept'); return document.getElementById('picker').hidden && !a.disabled && a.dataset.guide === 'true' ? a.textContent : null })()`, &accept)
	if accept != "Set the 2 dice in doubt, then accept" {
		t.Errorf("Accept: %q; want it to say the 2 dice in doubt are left", accept)
	}
	for _, step := range []struct {
		seat   string
		likely []int
		pick   int
	}{{"ann", []int{6, 2}, 2}, {"bob", []int{5, 6}, 5}} {
		tap(t, p, `#accept`)
		var v pickerView
		waitFor(t, p, step.seat+"'s die in the picker", pickerJS, &v)
		checkPicker(t, v, step.likely)
		if step.seat == "ann" {
			if !strings.Contains(v.Witness, "cannot change the result") {
				t.Errorf("ann's die: %q; want it to say it cannot change the result", v.Witness)
			}
			saveScreenshot(t, p, "operator-phone-picker.png")
		} else if !strings.Contains(v.Witness, "could change the result") {
			t.Errorf("bob's die: %q; want it to say it could change the result", v.Witness)
		}
		tap(t, p, `#picker-likely button[data-face="`+strconv.Itoa(step.pick)+`"]`)
		waitFor(t, p, "the picker closed", `document.getElementById('picker').hidden`, nil)
	}
	waitFor(t, p, "Accept", `(() => { const a = document.getElementById('accept'); return !a.disabled && a.dataset.guide === 'false' && a.textContent === 'Accept' })()`, nil)
	tap(t, p, `#accept`)
	c := pt.command()
	var dice map[string][]int
	var id string
	_ = json.Unmarshal(c["dice"], &dice)
	_ = json.Unmarshal(c["id"], &id)
	if string(c["type"]) != `"reveal"` || !strings.HasPrefix(id, referee.OperatorIDPrefix) {
		t.Errorf("command: %v; want a reveal with an operator id", c)
	}
	for seat, want := range map[string][]int{"ann": {3, 2}, "bob": {5, 5}, "cy": {4, 4}} {
		if got := dice[seat]; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("the reveal sent: %v; want ann [3 2], bob [5 5], cy [4 4]", dice)
			break
		}
	}
	waitFor(t, p, "the answer", `document.getElementById('answer').dataset.answer === 'ok'`, nil)
	noConsoleErrors(t, p)
}

// TestOperatorSetsAnUnconfirmedDieOnAPhone: the referee took the reveal
// from the camera with ann's die in doubt unconfirmed (it could not change
// the verdict). On a phone the page lists that die as not read, never as a
// face, says why the table went on, and who lost; a tap on the die offers
// its likeliest faces first; the correction sent names every face.
func TestOperatorSetsAnUnconfirmedDieOnAPhone(t *testing.T) {
	pt := startPhoneTable(t)
	reveal := `{"type":"reveal","dice":{"ann":[3,6],"bob":[5,5],"cy":[4,2]},"unconfirmed":{"ann":[1],"cy":[1]}}`
	pt.state("ready", append(phoneLines, reveal)...)
	rd := phoneRead(2)
	rd.Frame = pt.frame
	rd.Accepted = map[string][]int{"ann": {3, 6}, "bob": {5, 5}, "cy": {4, 2}}
	rd.Unconfirmed = map[string][]int{"ann": {1}, "cy": {1}}
	rd.Source = referee.SourceCamera
	// Weighed settled: no doubt matters.
	rd.Dice[3].Die = vision.Die{Face: 5, X: 680, Y: 210, Size: 56, Confidence: 0.99, Net: &vision.Opinion{Face: 5, Probability: 0.99}, Pips: &vision.Opinion{Face: 5}}
	rd.Dice[3].Doubt, rd.Dice[3].Matters, rd.Why = "", false, ""
	pt.reads.set(rd)
	p := open(t, pt.web.URL+"/operator")
	if err := p.Resize(context.Background(), phoneW, phoneH, true); err != nil {
		t.Fatal(err)
	}
	var v operatorView
	waitFor(t, p, "the accepted read", `(() => { const v = liarsdOperator.view(); return document.getElementById('conn').dataset.conn === 'live' && v.read && v.read.accepted ? v : null })()`, &v)
	if v.Unread["ann"] != 1 || v.Unread["cy"] != 1 {
		t.Errorf("dice not read: %v; want ann's and cy's", v.Unread)
	}
	var page struct {
		Status, Last, Correct string
		Faces                 map[string][]string
		Disabled              bool
	}
	if err := p.Eval(context.Background(), `({status: document.getElementById('reveal-status').textContent, last: document.getElementById('result').textContent,
	  correct: document.getElementById('correct').textContent, disabled: document.getElementById('correct').disabled,
	  faces: Object.fromEntries([...document.querySelectorAll('#reveal-seats li')].map(li => [li.dataset.seat,
	    [...li.querySelectorAll('button.die-button')].map(b => b.dataset.unread === 'true' ? '?' : b.dataset.face)]))})`, &page); err != nil {
		t.Fatal(err)
	}
	if got := page.Faces["ann"][0] + " " + page.Faces["ann"][1] + " | " + strings.Join(page.Faces["cy"], " "); got != "3 ? | 4 ?" {
		t.Errorf("the seats' dice: %v; want ann's 3 and a die not read, cy's 4 and a die not read", page.Faces)
	}
	for _, c := range []struct{ what, got, want string }{
		{"the status", page.Status, "The referee took the camera's read. 2 dice not read: they could not change the result"},
		{"the last result", page.Last, "ann loses a die"},
		{"the last result", page.Last, "2 dice not read"},
		{"Correct", page.Correct, "2 dice not read"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s: %q; want %q in it", c.what, c.got, c.want)
		}
	}
	if !page.Disabled {
		t.Error("Correct is enabled with dice not read; a correction names every face")
	}
	// No stand-in face anywhere on the page: ann's stand-in 6, cy's 2.
	var standIns int
	if err := p.Eval(context.Background(), `[...document.querySelectorAll('#reveal-seats li[data-seat="ann"] [data-face="6"], #reveal-seats li[data-seat="cy"] [data-face="2"], .op-mark[data-face="6"]')].length`, &standIns); err != nil {
		t.Fatal(err)
	}
	if standIns != 0 {
		t.Errorf("%d stand-in faces drawn as read", standIns)
	}
	checkPhoneLayout(t, p, "the accepted read")
	saveScreenshot(t, p, "operator-phone-unconfirmed.png")

	// ann's die: its likeliest faces first; cy's, which the camera did not
	// see, any face.
	tap(t, p, `#reveal-seats li[data-seat="ann"] button.die-button[data-unread="true"]`)
	var pv pickerView
	waitFor(t, p, "ann's die in the picker", pickerJS, &pv)
	checkPicker(t, pv, []int{6, 2})
	tap(t, p, `#picker-likely button[data-face="2"]`)
	waitFor(t, p, "the picker closed", `document.getElementById('picker').hidden`, nil)
	tap(t, p, `#reveal-seats li[data-seat="cy"] button.die-button[data-unread="true"]`)
	waitFor(t, p, "cy's die in the picker", pickerJS, &pv)
	if likely, others := pv.faces(); len(likely) != 0 || len(others) != 6 {
		t.Errorf("cy's unseen die: likeliest %v, others %v; want every face alike", likely, others)
	}
	tap(t, p, `#picker-faces button[data-face="1"]`)
	waitFor(t, p, "Correct enabled", `(() => { const c = document.getElementById('correct'); return !c.disabled && c.textContent === 'Correct the result' })()`, nil)
	tap(t, p, `#correct`)
	c := pt.command()
	var dice map[string][]int
	_ = json.Unmarshal(c["dice"], &dice)
	if string(c["type"]) != `"correct"` || len(dice["ann"]) != 2 || dice["ann"][1] != 2 || len(dice["cy"]) != 2 || dice["cy"][1] != 1 || dice["bob"][0] != 5 {
		t.Errorf("command: %s %v; want a correction with ann's die set to 2 and cy's to 1, every die named", c["type"], dice)
	}
	waitFor(t, p, "the answer", `document.getElementById('answer').dataset.answer === 'ok'`, nil)
	noConsoleErrors(t, p)
}
