package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/remote"
)

// DefaultSessionLifetime is how long a browser's session cookie (a
// bearer token exchanged for a cookie) is accepted unless
// Options.SessionLifetime says otherwise.
const DefaultSessionLifetime = 12 * time.Hour

// TokenParam is the query parameter of the page's address that carries a
// bearer token once: GET /?token=TOKEN answers with a session cookie and
// a redirect to the address without it.
const TokenParam = "token"

// SessionHeader carries a page session's proof: the page keeps it in
// sessionStorage (its origin's alone: scheme, host and port) and sends it
// with every API request. Browsers send cookies to every port of a host,
// so another user's listener on another port of 127.0.0.1 can receive a
// page's cookie and replay it; it never receives the proof, and without
// the proof a cookie opens only the page's own files (GET of paths outside
// the API and /metrics), which hold no data. See SECURITY.md.
const SessionHeader = "X-Perfc-Session"

// SessionParam names the proof in the address the token exchange
// redirects to (/?session=PROOF): the page takes it from there into
// sessionStorage and removes it from the address at once. (A fragment
// would replace the fragment of the address the user opened, which may
// hold the page's settings.)
const SessionParam = "session"

// maxCookieBytes bounds a session cookie's value: larger ones are refused
// unread.
const maxCookieBytes = 1024

// sessions turns bearer tokens into browser session cookies and checks
// them. A cookie's value is
//
//	base64url(expiry as 8 bytes big-endian unix seconds ‖ identity) "."
//	base64url(HMAC-SHA256(key, payload ‖ SHA-256 of the token))
//
// where identity is the token's ("token:grafana", "token:local") and key
// is random per server process. The MAC covers the token's hash, so a
// cookie is worth no more than the token it was made from: its role is
// the token's role, looked up again on every request, and it dies with
// the token (a new loopback token at each start; a token removed from
// the configuration). A cookie is checked in constant time (hmac.Equal).
type sessions struct {
	name     string // the cookie's name, perfc-PORT (cookies do not tell ports apart)
	key      []byte
	lifetime time.Duration
	secure   bool
	now      func() time.Time
}

func newSessions(port int, lifetime time.Duration, secure bool) (*sessions, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if lifetime <= 0 {
		lifetime = DefaultSessionLifetime
	}
	return &sessions{name: "perfc-" + strconv.Itoa(port), key: key, lifetime: lifetime, secure: secure, now: time.Now}, nil
}

// proof is the SessionHeader value that goes with a session cookie's
// value: a MAC of it under the server's key, so that it is checked with
// no state kept.
func (s *sessions) proof(cookie string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("perfc page session proof\x00"))
	m.Write([]byte(cookie))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// needsProof reports whether a request made with a session cookie must
// carry SessionHeader: everything but the page's own files (a GET or
// HEAD outside the API and /metrics).
func needsProof(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return true
	}
	p := r.URL.Path
	return p == remote.APIVersion || strings.HasPrefix(p, remote.APIVersion+"/") || p == remote.PathMetrics
}

// mac is the cookie's MAC of payload for the token whose SHA-256 is sum.
func (s *sessions) mac(payload, sum []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	m.Write(sum)
	return m.Sum(nil)
}

// value is a cookie's value for identity who (whose token hashes to sum),
// valid until exp.
func (s *sessions) value(who string, sum []byte, exp time.Time) string {
	payload := binary.BigEndian.AppendUint64(nil, uint64(exp.Unix()))
	payload = append(payload, who...)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(payload, sum))
}

// cookie is the session cookie for identity who, or one that clears it
// (who empty).
func (s *sessions) cookie(who string, sum []byte) *http.Cookie {
	c := &http.Cookie{Name: s.name, Path: "/", HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode}
	if who == "" {
		c.MaxAge = -1
		return c
	}
	exp := s.now().Add(s.lifetime)
	c.Value = s.value(who, sum, exp)
	c.MaxAge = int(s.lifetime / time.Second)
	return c
}

// check reads a cookie's value: the identity it was made for, when its
// MAC matches the identity's current token and it has not expired.
// tokenSum finds the SHA-256 of an identity's token (nil: no such token).
func (s *sessions) check(v string, tokenSum func(who string) []byte) (string, bool) {
	if len(v) > maxCookieBytes {
		return "", false
	}
	// Only the characters value writes: Go's base64 decoders skip CR and
	// LF, so a value with them would read as the one without.
	if strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return "", false
	}
	p64, m64, ok := strings.Cut(v, ".")
	if !ok {
		return "", false
	}
	enc := base64.RawURLEncoding.Strict()
	payload, err1 := enc.DecodeString(p64)
	mac, err2 := enc.DecodeString(m64)
	if err1 != nil || err2 != nil || len(payload) <= 8 {
		return "", false
	}
	who := string(payload[8:])
	sum := tokenSum(who)
	known := sum != nil
	if !known {
		// No such token: compare against a MAC anyway, so the time taken
		// does not tell identities apart.
		sum = make([]byte, sha256.Size)
	}
	good := hmac.Equal(mac, s.mac(payload, sum))
	exp := time.Unix(int64(binary.BigEndian.Uint64(payload[:8])), 0)
	if !good || !known || !s.now().Before(exp) {
		return "", false
	}
	return who, true
}

// tokenSum is the SHA-256 of the token of identity who ("token:NAME" or
// the loopback token's), nil when there is none.
func (a *authenticator) tokenSum(who string) []byte {
	name, ok := strings.CutPrefix(who, "token:")
	if !ok {
		return nil
	}
	if name == localTokenName && a.local != nil {
		return a.local
	}
	if t, ok := a.cfg.Perfc.BearerTokens[name]; ok {
		return t.sum
	}
	return nil
}

// session authenticates a request by its session cookie; found is false
// when the request carries none.
func (a *authenticator) session(r *http.Request) (res authResult, found bool) {
	if a.sessions == nil {
		return authResult{}, false
	}
	c, err := r.Cookie(a.sessions.name)
	if err != nil {
		return authResult{}, false
	}
	who, ok := a.sessions.check(c.Value, a.tokenSum)
	if !ok {
		return authResult{status: http.StatusUnauthorized, clearCookie: true,
			reason: "the page's session has expired or is not valid: open the page's address with its key (?token=) again"}, true
	}
	if needsProof(r) && !hmac.Equal([]byte(r.Header.Get(SessionHeader)), []byte(a.sessions.proof(c.Value))) {
		return authResult{status: http.StatusUnauthorized,
			reason: "a page session's requests carry the page's proof (" + SessionHeader + "), which this request lacks: open the page's address with its key (?token=) again"}, true
	}
	if who == "token:"+localTokenName && a.local != nil {
		return authResult{role: remote.RoleLog, who: who}, true // as bearer gives it
	}
	return authResult{role: a.cfg.roleOf(who), who: who}, true
}

// exchange answers GET /?token=TOKEN: a token accepted as a bearer token
// becomes a session cookie, and the answer redirects to the address
// without the token, so it leaves the address bar and the history, with
// the session's proof (?session=PROOF), which the page keeps and sends in
// SessionHeader. A token not accepted is 401. It
// reports whether it answered.
func (g *gate) exchange(w http.ResponseWriter, r *http.Request, failed func()) bool {
	if g.auth.sessions == nil || r.URL.Path != "/" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	q := r.URL.Query()
	if !q.Has(TokenParam) {
		return false
	}
	tok := q.Get(TokenParam)
	res := authResult{status: http.StatusUnauthorized, reason: "the page's key (?token=) is not accepted"}
	if tok != "" && len(tok) <= maxCredentialBytes && isToken68(tok) {
		if res = g.auth.bearer(tok); res.status != 0 {
			res.reason = "the page's key (?token=) is not accepted"
		}
	}
	if res.status != 0 {
		failed()
		g.refuse(w, r, res)
		return true
	}
	if ok, wait := g.perID.allow("id:"+res.who, time.Now()); !ok {
		tooMany(w, wait)
		return true
	}
	sum := sha256.Sum256([]byte(tok))
	c := g.auth.sessions.cookie(res.who, sum[:])
	http.SetCookie(w, c)
	q.Del(TokenParam)
	q.Set(SessionParam, g.auth.sessions.proof(c.Value))
	u := url.URL{Path: "/", RawQuery: q.Encode()}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
	return true
}

// loopbackHostHeader reports whether a request's Host header names a
// loopback address (127.0.0.0/8, ::1 or localhost), whatever its port: a
// loopback server answers only those, so that a page of another site
// whose name an attacker rebinds to 127.0.0.1 gets nothing (and a
// tunnel's local port still works).
func loopbackHostHeader(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else {
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
