package remote

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// plainConn is a Client's own HTTP/1.1 connection to an http:// host
// (plain HTTP is allowed only to a loopback address: perfc serve's default
// configuration, the like-for-like of pmcd's local socket). A request is
// written and its answer read by the calling goroutine, one at a time,
// where net/http's Transport hands each request to a writer goroutine and
// each answer from a reader goroutine: on a small answer those hand-offs
// (wake-ups of other threads) cost the client more CPU than the request.
// The answer is parsed by net/http (http.ReadResponse); anything but an
// answer read to its end on a connection the server keeps leaves the
// connection closed, and a redirect goes through the Transport.
type plainConn struct {
	mu   sync.Mutex // one request at a time; TryLock: a busy connection sends others to the Transport
	host string     // host:port, dialled and sent as Host
	path string     // the URL's path prefix ("" or "/prefix")
	auth string     // the Authorization header's value, "" for none
	conn net.Conn
	br   *bufio.Reader
	req  []byte // the request text, rebuilt per request
}

// newPlainConn returns the connection state for base, an http:// URL, or
// nil when the Transport must be used: another scheme, or credentials
// that could not be sent as they are in a header line.
func newPlainConn(base string, cred credentials) *plainConn {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return nil
	}
	p := &plainConn{host: u.Host, path: u.EscapedPath()}
	if !p.setAuth(cred) {
		return nil // net/http refuses such a header with its own error
	}
	return p
}

// setAuth makes cred the Authorization header of p's requests; it reports
// false, and sends none, when the header could not be written as it is
// (a control character). Called with p.mu held, or before p is shared.
func (p *plainConn) setAuth(cred credentials) bool {
	switch {
	case cred.bearer != "":
		p.auth = "Bearer " + cred.bearer
	case cred.basic:
		p.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(cred.user+":"+cred.pass))
	default:
		p.auth = ""
	}
	if strings.ContainsFunc(p.auth, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		p.auth = ""
		return false
	}
	return true
}

// close drops the connection.
func (p *plainConn) close() {
	if p.conn != nil {
		p.conn.Close()
		p.conn, p.br = nil, nil
	}
}

// errUseTransport says the answer must be asked for through the
// Transport (a redirect).
var errUseTransport = errors.New("use the transport")

// getPlain is Client.get over the plain connection. It returns
// errUseTransport when the Transport must answer instead.
func (c *Client) getPlain(ctx context.Context, p *plainConn, value, want string) ([]byte, []Problem, error) {
	u := c.base + PathQuery + "?value=" + url.QueryEscape(value)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		reused := p.conn != nil
		body, probs, answered, err := c.roundTrip(ctx, p, value, want, u)
		if err == nil || err == errUseTransport || answered {
			return body, probs, err // an answer's error names the host already
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, nil, fmt.Errorf("%s: %s: %w", c.name, u, ctx.Err())
		}
		if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
			// The connection's deadline is the context's: it may pass
			// before the context's own timer says so.
			return nil, nil, fmt.Errorf("%s: %s: no answer within %v", c.name, u, c.timeout)
		}
		if reused && attempt == 0 {
			// The server may have closed the idle connection (its idle
			// timeout) as the request left: once more on a new one.
			continue
		}
		return nil, nil, fmt.Errorf("%s: %s: %w", c.name, u, err)
	}
}

// roundTrip sends one request on p (dialling when it has no connection)
// and reads its answer; answered says an answer's head was read (its
// errors are the answer's, not the connection's). The connection is kept
// only after an answer read to its end that the server did not mark to
// close.
func (c *Client) roundTrip(ctx context.Context, p *plainConn, value, want, u string) (body []byte, probs []Problem, answered bool, err error) {
	if p.conn == nil {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", p.host)
		if err != nil {
			return nil, nil, false, err
		}
		p.conn, p.br = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	keep := false
	defer func() {
		if !keep {
			p.close()
		}
	}()
	if dl, ok := ctx.Deadline(); ok {
		p.conn.SetDeadline(dl)
	}
	conn := p.conn
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() {
			keep = false // the context ended: the deadline may fall on a later request
		}
	}()

	r := append(p.req[:0], "GET "...)
	r = append(r, p.path...)
	r = append(r, PathQuery...)
	r = append(r, "?value="...)
	r = append(r, url.QueryEscape(value)...)
	r = append(r, " HTTP/1.1\r\nHost: "...)
	r = append(r, p.host...)
	r = append(r, "\r\nUser-Agent: perfc\r\nAccept: "...)
	r = append(r, want...)
	if p.auth != "" {
		r = append(r, "\r\nAuthorization: "...)
		r = append(r, p.auth...)
	}
	r = append(r, "\r\n\r\n"...)
	p.req = r
	if _, err := p.conn.Write(r); err != nil {
		return nil, nil, false, err
	}
	resp, err := http.ReadResponse(p.br, nil)
	if err != nil {
		return nil, nil, false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return nil, nil, true, errUseTransport
	}
	body, probs, err = c.readAnswer(resp, u, want)
	keep = err == nil && !resp.Close
	return body, probs, true, err
}
