package scoreboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/liarsd/liarsd/engine"
	"github.com/liarsd/liarsd/engine/record"
	"github.com/liarsd/liarsd/referee"
	"github.com/liarsd/liarsd/referee/mqtt"
	"github.com/liarsd/liarsd/referee/operator"
	"github.com/liarsd/liarsd/referee/scoreboard"
	"github.com/liarsd/liarsd/vision"
)

// TestOperatorLogsIn plays an operator at a table whose web server and
// broker are open beyond loopback: the page asks for a login, refuses a
// wrong password, and with the right one shows the read (a die in doubt
// with both witnesses' opinions) and sends the reveal through the broker
// under that account, which the broker takes as a command.
func TestOperatorLogsIn(t *testing.T) {
	users := map[string]string{"op": "s3cret"}
	b, err := mqtt.StartBroker(mqtt.BrokerOptions{TCP: "0.0.0.0:0", WebSocket: "0.0.0.0:0", Table: "t9", Users: users})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	tcp := strings.Replace(b.URL(), "0.0.0.0", "127.0.0.1", 1)
	topics := mqtt.TopicsFor("", "t9")

	// The table waits for a reveal: state published as the referee.
	user, password := b.Credentials()
	ref := paho.NewClient(paho.NewClientOptions().AddBroker(tcp).SetClientID("liarsd-t9").SetUsername(user).SetPassword(password))
	if tok := ref.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { ref.Disconnect(100) })
	table := engine.NewTable()
	for _, l := range []string{`{"type":"new_game","rules":"common-hand","seats":["ann","bob"],"first":"ann","options":{"dice":1}}`,
		`{"type":"bid","seat":"ann","quantity":1,"face":3}`, `{"type":"challenge","seat":"bob"}`} {
		if _, err := record.Apply(table, []byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	state, _ := json.Marshal(table.Snapshot())
	for topic, payload := range map[string][]byte{topics.Status: []byte("online"), topics.State: state} {
		if tok := ref.Publish(topic, 1, true, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("publish %s: %v", topic, tok.Error())
		}
	}
	cmds := make(chan []byte, 4)
	watch := paho.NewClient(paho.NewClientOptions().AddBroker(tcp).SetClientID("operator-login-watch"))
	if tok := watch.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { watch.Disconnect(100) })
	if tok := watch.Subscribe(topics.Cmd, 1, func(_ paho.Client, m paho.Message) { cmds <- append([]byte{}, m.Payload()...) }); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}

	var frame bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for i := range img.Pix {
		img.Pix[i] = 0x30
	}
	img.Set(80, 100, color.White)
	if err := jpeg.Encode(&frame, img, nil); err != nil {
		t.Fatal(err)
	}
	rd := &operator.Read{ID: 1, Kind: "reveal", Game: 1, Hand: 1, Attempt: 1, Message: "1 die in doubt", Width: 320, Height: 200,
		Sides: 6, Frame: operator.JPEGFrame{Data: frame.Bytes(), Width: 320, Height: 200}, Seats: []referee.SeatCount{{Seat: "ann", Expected: 1, Seen: 1}, {Seat: "bob", Expected: 1, Seen: 1}},
		Dice: []operator.Die{
			{Die: vision.Die{Face: 4, X: 80, Y: 100, Size: 30, Confidence: 0.99, Net: &vision.Opinion{Face: 4, Probability: 0.99}, Pips: &vision.Opinion{Face: 4}}, Seat: "ann"},
			{Die: vision.Die{Face: 2, X: 240, Y: 100, Size: 30, Confidence: 0.55, Uncertain: true, Net: &vision.Opinion{Face: 2, Probability: 0.55}, Pips: &vision.Opinion{Face: 3}}, Seat: "bob", Doubt: "uncertain"},
		}}
	web := httptest.NewServer(scoreboard.Handler(scoreboard.Options{Table: "t9", WebSocket: strings.TrimPrefix(b.WebSocketURL(), "ws://"),
		Reads: fixedReads{rd}, Login: true, Users: users}))
	t.Cleanup(web.Close)

	p := open(t, web.URL+"/operator")
	waitFor(t, p, "the login form", `!document.getElementById('login').hidden && document.getElementById('op').hidden`, nil)
	login := func(pw string) {
		t.Helper()
		js := `document.getElementById('login-user').value = 'op'; document.getElementById('login-password').value = ` + jsString(pw) + `;
		  document.getElementById('login').requestSubmit(); true`
		if err := p.Eval(context.Background(), js, nil); err != nil {
			t.Fatal(err)
		}
	}
	login("guess")
	waitFor(t, p, "the refusal", `document.getElementById('login-error').textContent || null`, nil)
	login("s3cret")
	waitFor(t, p, "the read after the login", `document.getElementById('login').hidden && document.querySelector('.op-mark.doubt') && document.getElementById('conn').dataset.conn === 'live'`, nil)

	tap(t, p, `.op-mark.doubt`)
	var witness string
	waitFor(t, p, "the die's card", `!document.getElementById('picker').hidden && document.getElementById('picker-witness').textContent`, &witness)
	for _, want := range []string{"unsure", "face network: 2 (55 %)", "pip count: 3"} {
		if !strings.Contains(witness, want) {
			t.Errorf("witnesses: got %q; want %q in it", witness, want)
		}
	}
	tap(t, p, `#picker button[data-face="3"]`)
	waitFor(t, p, "Accept enabled", `!document.getElementById('accept').disabled`, nil)
	tap(t, p, `#accept`)
	select {
	case c := <-cmds:
		var got struct {
			Type string           `json:"type"`
			Dice map[string][]int `json:"dice"`
			ID   string           `json:"id"`
		}
		if err := json.Unmarshal(c, &got); err != nil {
			t.Fatal(err)
		}
		if got.Type != "reveal" || len(got.Dice["ann"]) != 1 || got.Dice["ann"][0] != 4 || len(got.Dice["bob"]) != 1 || got.Dice["bob"][0] != 3 || !strings.HasPrefix(got.ID, "operator-") {
			t.Errorf("command: got %s; want the reveal ann [4], bob [3] with an operator id", c)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no command reached the broker's cmd topic\nconsole:\n%s", strings.Join(p.Console(), "\n"))
	}
	// The login's refusals are the only errors: 401s, which the browser
	// logs for every refused fetch.
	for _, line := range p.Console() {
		if (strings.Contains(line, "exception") || strings.Contains(line, "error") || strings.Contains(line, "Content Security Policy")) &&
			!strings.Contains(line, "status of 401 (Unauthorized)") {
			t.Errorf("browser console: %s", line)
		}
	}
}
