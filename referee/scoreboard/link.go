package scoreboard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// validTable is MQTT.md's table id: letters, digits, - and _.
var validTable = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// errNoAddress says that no address a phone could reach is known.
var errNoAddress = errors.New("scoreboard: no address a phone can reach: the page was opened on this machine (localhost) and the server listens on loopback only; set web.public_url in liarsd.yaml, or listen on the network")

// loopbackHost reports whether a host (a name or an address, without its
// port) is this machine only, as a phone would see it.
func loopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if host == "" || strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// baseURL is the address of the pages that a phone can open: the
// configured public URL; else the host the browser asked for, when it is
// not this machine's loopback (a TV or a laptop on the venue's network
// reached the server there, so a phone can too); else the machine's own
// address on the network (HostURL).
func (s *server) baseURL(r *http.Request) (*url.URL, error) {
	raw := s.o.PublicURL
	if raw == "" {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		switch {
		case r.Host != "" && !loopbackHost(host):
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			raw = scheme + "://" + r.Host + "/"
		case s.o.HostURL != "":
			raw = s.o.HostURL
		default:
			return nil, errNoAddress
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("scoreboard: the pages' address %q is not a URL", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// tableURL is the table page's address for a phone: the base with
// ?table=ID for a table other than this daemon's.
func (s *server) tableURL(r *http.Request) (string, error) {
	table := r.URL.Query().Get("table")
	if table == "" {
		table = s.o.Table
	}
	if table == "" {
		return "", errors.New("scoreboard: which table? (?table=ID)")
	}
	if !validTable.MatchString(table) {
		return "", fmt.Errorf("scoreboard: %q is not a table id (letters, digits, - and _)", table)
	}
	u, err := s.baseURL(r)
	if err != nil {
		return "", err
	}
	if table != s.o.Table {
		u.RawQuery = url.Values{"table": {table}}.Encode()
	}
	return u.String(), nil
}

// link answers link.json: {"url": the table page's address for a phone}
// or, when there is none, {"error": why}.
func (s *server) link(w http.ResponseWriter, r *http.Request) {
	u, err := s.tableURL(r)
	if err != nil {
		// Not a failure of the request: the page shows why.
		writeJSON(w, struct {
			Error string `json:"error"`
		}{err.Error()})
		return
	}
	writeJSON(w, struct {
		URL string `json:"url"`
	}{u})
}

// qr answers qr.svg: the table page's address for a phone as a QR code.
func (s *server) qr(w http.ResponseWriter, r *http.Request) {
	u, err := s.tableURL(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	svg, err := QRSVG(u)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(svg)
}

// QRSVG draws text as a QR code (error correction level M, with its
// quiet zone) in SVG: one path of dark modules on a white square, which
// scales to any size without blur.
func QRSVG(text string) ([]byte, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return nil, fmt.Errorf("scoreboard: QR code: %w", err)
	}
	bits := q.Bitmap() // with its 4-module quiet zone
	n := len(bits)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<title>%s</title><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, xmlText(text), n, n)
	for y, row := range bits {
		for x := 0; x < len(row); x++ {
			if !row[x] {
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x, y, run, run)
			x += run - 1
		}
	}
	b.WriteString(`"/></svg>`)
	return []byte(b.String()), nil
}

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// LANURL is the pages' address on the network for a server listening on
// addr: its own address when it listens on one that is not loopback, the
// machine's first address on an interface that is up (private addresses
// first) when it listens on every address, and "" when it listens on
// loopback only (no phone can reach it).
func LANURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	ip := net.ParseIP(host)
	switch {
	case host != "" && ip == nil:
		if loopbackHost(host) {
			return ""
		}
		return "http://" + net.JoinHostPort(host, port) + "/"
	case ip != nil && ip.IsLoopback():
		return ""
	case ip != nil && !ip.IsUnspecified():
		return "http://" + net.JoinHostPort(ip.String(), port) + "/"
	}
	if ip := machineAddress(); ip != nil {
		return "http://" + net.JoinHostPort(ip.String(), port) + "/"
	}
	return ""
}

// machineAddress is the machine's IPv4 address on the network (a private
// one first), or nil.
func machineAddress() net.IP {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var public net.IP
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok || n.IP.To4() == nil || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
				continue
			}
			if n.IP.IsPrivate() {
				return n.IP.To4()
			}
			if public == nil {
				public = n.IP.To4()
			}
		}
	}
	return public
}
