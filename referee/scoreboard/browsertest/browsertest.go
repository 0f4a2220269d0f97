// Package browsertest drives a real headless Chromium for tests of web
// pages, through the Chrome DevTools protocol over WebSocket (gorilla):
// open a page, evaluate JavaScript in it, wait for a condition, take a
// screenshot. Start skips the test with a clear message when no Chromium
// is installed (Debian's package is chromium; `make test` installs it).
package browsertest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Candidates are the browsers Start looks for, in order, after
// $CHROMIUM.
var Candidates = []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}

// Find returns the path of a Chromium, or "".
func Find() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, c := range Candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c
		}
	}
	return ""
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	devtool string // host:port of the DevTools endpoint
	dir     string
	stderr  *tailBuffer
}

// Start launches a headless Chromium for the test and stops it at the
// test's end. It skips the test when none is installed.
func Start(tb testing.TB) *Browser {
	tb.Helper()
	path := Find()
	if path == "" {
		tb.Skip("browsertest: no Chromium found (install Debian's chromium package: `make test` does, or set $CHROMIUM)")
	}
	b, err := Launch(path, tb.TempDir())
	if err != nil {
		tb.Fatalf("browsertest: %v", err)
	}
	tb.Cleanup(b.Close)
	return b
}

var shared struct {
	once sync.Once
	b    *Browser
	dir  string
	err  error
}

// Shared returns one browser for every test of the binary, started at its
// first use (starting Chromium costs a second or two); StopShared, from
// TestMain, stops it. It skips the test when no Chromium is installed.
func Shared(tb testing.TB) *Browser {
	tb.Helper()
	path := Find()
	if path == "" {
		tb.Skip("browsertest: no Chromium found (install Debian's chromium package: `make test` does, or set $CHROMIUM)")
	}
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "browsertest-")
		if shared.err == nil {
			shared.b, shared.err = Launch(path, shared.dir)
		}
	})
	if shared.err != nil {
		tb.Fatalf("browsertest: %v", shared.err)
	}
	return shared.b
}

// StopShared stops the shared browser, if one was started.
func StopShared() {
	if shared.b != nil {
		shared.b.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// Launch starts the Chromium at path with its profile in dir.
func Launch(path, dir string) (*Browser, error) {
	cmd := exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+dir, "--remote-debugging-port=0", "--remote-allow-origins=*",
		"--window-size=1600,1000", "about:blank")
	// Its own process group: Close stops the zygote and renderers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	b := &Browser{cmd: cmd, dir: dir, stderr: &tailBuffer{}}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			b.stderr.add(line)
			if i := strings.Index(line, "DevTools listening on ws://"); i >= 0 && !sent {
				rest := line[i+len("DevTools listening on ws://"):]
				if j := strings.IndexByte(rest, '/'); j > 0 {
					found <- rest[:j]
					sent = true
				}
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
		if !sent {
			close(found)
		}
	}()
	select {
	case hp, ok := <-found:
		if !ok {
			_ = cmd.Wait()
			return nil, fmt.Errorf("chromium exited before DevTools listened: %s", b.stderr.String())
		}
		b.devtool = hp
	case <-time.After(30 * time.Second):
		b.Close()
		return nil, fmt.Errorf("chromium did not start DevTools within 30 s: %s", b.stderr.String())
	}
	return b, nil
}

// Close stops the browser.
func (b *Browser) Close() {
	if b.cmd.Process != nil {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		_ = b.cmd.Wait()
	}
}

// Log returns the browser's last lines of standard error.
func (b *Browser) Log() string { return b.stderr.String() }

// Page is one tab.
type Page struct {
	browser *Browser
	target  string
	conn    *websocket.Conn
	mu      sync.Mutex
	id      int
	wait    map[int]chan cdpReply
	// console collects console messages and exceptions of the page.
	consoleMu sync.Mutex
	console   []string
	done      chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Open opens a new tab of width x height CSS pixels and loads url.
func (b *Browser) Open(ctx context.Context, url string, width, height int) (*Page, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, "http://"+b.devtool+"/json/new?about:blank", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("new tab: %w", err)
	}
	defer resp.Body.Close()
	var target struct {
		ID                   string `json:"id"`
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&target); err != nil || target.WebSocketDebuggerURL == "" {
		return nil, fmt.Errorf("new tab: %s: no debugger URL (%v)", resp.Status, err)
	}
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, target.WebSocketDebuggerURL, nil)
	if err != nil {
		return nil, fmt.Errorf("devtools: %w", err)
	}
	conn.SetReadLimit(64 << 20) // screenshots
	p := &Page{browser: b, target: target.ID, conn: conn, wait: map[int]chan cdpReply{}, done: make(chan struct{})}
	go p.read()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := p.Call(ctx, m, nil, nil); err != nil {
			p.Close()
			return nil, err
		}
	}
	if err := p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
	}, nil); err != nil {
		p.Close()
		return nil, err
	}
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Page) read() {
	defer close(p.done)
	for {
		var msg struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if err := p.conn.ReadJSON(&msg); err != nil {
			p.mu.Lock()
			for id, ch := range p.wait {
				close(ch)
				delete(p.wait, id)
			}
			p.mu.Unlock()
			return
		}
		if msg.ID == 0 {
			p.event(msg.Method, msg.Params)
			continue
		}
		p.mu.Lock()
		ch := p.wait[msg.ID]
		delete(p.wait, msg.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- msg.cdpReply
		}
	}
}

func (p *Page) event(method string, params json.RawMessage) {
	var line string
	switch method {
	case "Runtime.consoleAPICalled":
		var c struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		_ = json.Unmarshal(params, &c)
		parts := []string{c.Type + ":"}
		for _, a := range c.Args {
			if a.Value != nil {
				parts = append(parts, fmt.Sprint(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		line = strings.Join(parts, " ")
	case "Runtime.exceptionThrown":
		var e struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(params, &e)
		line = "exception: " + e.ExceptionDetails.Text + " " + e.ExceptionDetails.Exception.Description
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(params, &e)
		line = "log " + e.Entry.Level + " (" + e.Entry.Source + "): " + e.Entry.Text
	default:
		return
	}
	p.consoleMu.Lock()
	p.console = append(p.console, line)
	p.consoleMu.Unlock()
}

// Console returns the console messages, log entries (network errors,
// security policy violations) and exceptions so far.
func (p *Page) Console() []string {
	p.consoleMu.Lock()
	defer p.consoleMu.Unlock()
	return append([]string(nil), p.console...)
}

// Call sends one DevTools command and decodes its result into out.
func (p *Page) Call(ctx context.Context, method string, params any, out any) error {
	p.mu.Lock()
	p.id++
	id := p.id
	ch := make(chan cdpReply, 1)
	p.wait[id] = ch
	if params == nil {
		params = map[string]any{}
	}
	err := p.conn.WriteJSON(map[string]any{"id": id, "method": method, "params": params})
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("devtools %s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("devtools %s: connection closed", method)
		}
		if r.Error != nil {
			return fmt.Errorf("devtools %s: %s", method, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("devtools %s: %w", method, ctx.Err())
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value, as JSON, into out.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("javascript: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return json.Unmarshal([]byte("null"), out)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Resize sets the viewport to width x height CSS pixels; mobile emulates
// a phone's viewport (meta viewport honoured).
func (p *Page) Resize(ctx context.Context, width, height int, mobile bool) error {
	return p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
	}, nil)
}

// ErrTimeout is returned by WaitFor when its condition never held.
var ErrTimeout = errors.New("browsertest: timed out")

// WaitFor evaluates expr every 50 ms until it gives a value other than
// null, undefined or false, and decodes that value into out.
func (p *Page) WaitFor(ctx context.Context, expr string, out any) error {
	var last error
	for {
		var raw json.RawMessage
		err := p.Eval(ctx, expr, &raw)
		if err == nil {
			s := strings.TrimSpace(string(raw))
			if s != "" && s != "null" && s != "false" {
				if out == nil {
					return nil
				}
				return json.Unmarshal(raw, out)
			}
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%w waiting for %s (last error: %v)", ErrTimeout, expr, last)
			}
			return fmt.Errorf("%w waiting for %s", ErrTimeout, expr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Screenshot returns a PNG of the page's viewport.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close closes the tab.
func (p *Page) Close() {
	_ = p.conn.Close()
	<-p.done
	if p.target != "" {
		if resp, err := http.Get("http://" + p.browser.devtool + "/json/close/" + p.target); err == nil {
			resp.Body.Close()
		}
	}
}

// tailBuffer keeps the last lines of the browser's output for errors.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (t *tailBuffer) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	if len(t.lines) > 40 {
		t.lines = t.lines[len(t.lines)-40:]
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
