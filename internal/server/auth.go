package server

import (
	"container/list"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/perfcounters/perfcounters/remote"
)

// maxCredentialBytes bounds the credentials of an Authorization header.
const maxCredentialBytes = 4096

// Credentials are what an Authorization header carries.
type Credentials struct {
	Scheme   string // "Basic" or "Bearer"
	User     string // Basic
	Password string // Basic
	Token    string // Bearer
}

// errors of ParseAuthorization; the message is what a caller is told.
var (
	errAuthScheme = errors.New("the Authorization scheme must be Basic or Bearer")
	errAuthSyntax = errors.New("malformed credentials in the Authorization header")
	errAuthSize   = errors.New("credentials in the Authorization header too long")
)

// ParseAuthorization reads an Authorization header value: "Basic" and
// base64 of user:password, or "Bearer" and a token (RFC 6750's token68
// characters). Scheme names are case-insensitive.
func ParseAuthorization(h string) (Credentials, error) {
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok {
		return Credentials{}, errAuthSyntax
	}
	rest = strings.TrimLeft(rest, " ")
	if len(rest) > maxCredentialBytes {
		return Credentials{}, errAuthSize
	}
	switch {
	case strings.EqualFold(scheme, "Basic"):
		// The base64 decoder skips line breaks: the credentials must be
		// token68 characters only, as the header's syntax says. Strict:
		// padding bits must be zero, so one credential has one spelling.
		raw, err := base64.StdEncoding.Strict().DecodeString(rest)
		if err != nil || !isToken68(rest) {
			return Credentials{}, errAuthSyntax
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		if !ok || user == "" {
			return Credentials{}, errAuthSyntax
		}
		return Credentials{Scheme: "Basic", User: user, Password: pass}, nil
	case strings.EqualFold(scheme, "Bearer"):
		if rest == "" || !isToken68(rest) {
			return Credentials{}, errAuthSyntax
		}
		return Credentials{Scheme: "Bearer", Token: rest}, nil
	}
	return Credentials{}, errAuthScheme
}

// isToken68 reports whether s is RFC 7235's token68: ALPHA / DIGIT /
// "-" / "." / "_" / "~" / "+" / "/", then optional "=" padding.
func isToken68(s string) bool {
	end := len(strings.TrimRight(s, "="))
	if end == 0 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}

// dummyHash returns the hash an unknown Basic user's password is checked
// against, so that the answer costs what a known user's does: a bcrypt
// hash of a random password at the cost of the configured hashes (the
// time of a check grows as 2^cost, so a dummy of another cost would tell
// known names from unknown ones). When the configured hashes differ in
// cost, the highest is taken and mixed is true: the time of an answer
// then tells a user of a lower cost from an unknown name.
func dummyHash(users map[string]string) (hash []byte, mixed bool, err error) {
	cost, first := bcrypt.DefaultCost, true
	for _, h := range users {
		c, err := bcrypt.Cost([]byte(h))
		if err != nil {
			continue // refused by validate
		}
		if !first && c != cost {
			mixed = true
		}
		if first || c > cost {
			cost = c
		}
		first = false
	}
	pass, err := newToken()
	if err != nil {
		return nil, false, err
	}
	hash, err = bcrypt.GenerateFromPassword([]byte(pass), cost)
	return hash, mixed, err
}

// localTokenName names the generated loopback token's identity.
const localTokenName = "local"

// authenticator checks a request's credentials against the configuration.
type authenticator struct {
	cfg *Config
	// local is the SHA-256 of the generated loopback token (nil: none).
	local []byte
	// anonymous: callers without credentials are monitor (loopback only).
	anonymous bool
	// headerRequired: basic users or bearer tokens are configured, so,
	// as in exporter-toolkit, a client certificate alone is not enough.
	headerRequired bool
	bcryptOK       *verifiedCache
	// dummy is the hash unknown users' passwords are checked against
	// (dummyHash).
	dummy []byte
	// compare checks a password against a bcrypt hash
	// (bcrypt.CompareHashAndPassword; tests count the calls).
	compare func(hash, pass []byte) error
	// checking holds a slot per password check in progress
	// (Limits.MaxAuthenticating): checks cost CPU before the caller is
	// known, so unauthenticated callers share this small pool.
	checking chan struct{}
	// sessions are the browser session cookies bearer tokens are
	// exchanged for (nil: the server serves no page, no cookies).
	sessions *sessions
}

// authResult is an authentication's outcome: the caller's role and
// identity, or the error status and reason.
type authResult struct {
	role   remote.Role
	who    string
	status int
	reason string
	// clearCookie: the request's session cookie is refused; the answer
	// tells the browser to forget it.
	clearCookie bool
	// key is what the caller's limits (slots, rate) are counted by: who,
	// unless set (anonymous callers of different local users).
	key string
	// busy: the credentials were not checked, every password check slot
	// being taken (503, not counted as a failure).
	busy bool
}

// limitKey is what res's caller is counted as by the per-identity limits.
func (res authResult) limitKey() string {
	if res.key != "" {
		return res.key
	}
	return res.who
}

// authenticate returns who the request's caller is.
func (a *authenticator) authenticate(r *http.Request) authResult {
	if h := r.Header.Get("Authorization"); h != "" {
		c, err := ParseAuthorization(h)
		if err != nil {
			return authResult{status: http.StatusUnauthorized, reason: err.Error()}
		}
		switch c.Scheme {
		case "Bearer":
			return a.bearer(c.Token)
		default:
			return a.basic(c.User, c.Password)
		}
	}
	if res, found := a.session(r); found {
		return res
	}
	if !a.headerRequired && r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && a.cfg.TLSServerConfig.verifying() {
		leaf := r.TLS.VerifiedChains[0][0]
		sans := certSANs(leaf)
		allowed := a.cfg.TLSServerConfig.ClientAllowedSANs
		who, role := "", remote.RoleMonitor
		for _, s := range sans {
			if len(allowed) > 0 && !containsString(allowed, s) {
				continue
			}
			if who == "" {
				who = s
			}
			role = max(role, a.cfg.roleOf("san:"+s))
		}
		if who == "" {
			who = leaf.Subject.CommonName
		}
		return authResult{role: role, who: "cert:" + who}
	}
	if a.anonymous {
		// One identity to the handlers; for limits, one per local user
		// when the connection's owner can be found (peerUser).
		res := authResult{role: remote.RoleMonitor, who: "anonymous"}
		if u := peerUser(r.Context()); u != "" {
			res.key = "anonymous:" + u
		}
		return res
	}
	return authResult{status: http.StatusUnauthorized, reason: "authentication required: send credentials (Authorization: Bearer or Basic" + a.certHint() + ")"}
}

func (a *authenticator) certHint() string {
	if a.cfg.TLSServerConfig.verifying() && !a.headerRequired {
		return ", or a client certificate"
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bearer checks a token against every stored hash in constant time: the
// time taken does not depend on which token (if any) matched.
func (a *authenticator) bearer(token string) authResult {
	sum := sha256.Sum256([]byte(token))
	match := ""
	for name, t := range a.cfg.Perfc.BearerTokens {
		if subtle.ConstantTimeCompare(sum[:], t.sum) == 1 {
			match = name
		}
	}
	if a.local != nil && subtle.ConstantTimeCompare(sum[:], a.local) == 1 {
		return authResult{role: remote.RoleLog, who: "token:" + localTokenName}
	}
	if match == "" {
		return authResult{status: http.StatusUnauthorized, reason: "bearer token not accepted"}
	}
	return authResult{role: a.cfg.roleOf("token:" + match), who: "token:" + match}
}

// basic checks a user's password with bcrypt. Whether the user exists
// or not, and whether the password is right or wrong, the same steps are
// taken: one look in the cache of passwords that passed, then one bcrypt
// comparison against a hash of the same cost (an unknown user's against
// the dummy hash), so neither the time taken nor anything else tells
// which user names exist. Passwords that passed are remembered (by a
// SHA-256 of user, password and hash) so a client sending Basic on every
// request costs one bcrypt.
func (a *authenticator) basic(user, pass string) authResult {
	hash, known := a.cfg.BasicAuthUsers[user]
	h := a.dummy
	if known {
		h = []byte(hash)
	}
	key := sha256.Sum256([]byte(user + "\x00" + pass + "\x00" + string(h)))
	if a.bcryptOK.has(key) && known {
		return authResult{role: a.cfg.roleOf("user:" + user), who: "user:" + user}
	}
	select {
	case a.checking <- struct{}{}:
		defer func() { <-a.checking }()
	default:
		return authResult{busy: true}
	}
	compare := a.compare
	if compare == nil {
		compare = bcrypt.CompareHashAndPassword
	}
	err := compare(h, []byte(pass))
	if err != nil || !known {
		return authResult{status: http.StatusUnauthorized, reason: "user name or password not accepted"}
	}
	a.bcryptOK.add(key)
	return authResult{role: a.cfg.roleOf("user:" + user), who: "user:" + user}
}

// challenge is the WWW-Authenticate value of a 401: the schemes accepted.
func (a *authenticator) challenge() []string {
	var c []string
	if len(a.cfg.Perfc.BearerTokens) > 0 || a.local != nil || len(a.cfg.BasicAuthUsers) == 0 {
		c = append(c, `Bearer realm="perfc"`)
	}
	if len(a.cfg.BasicAuthUsers) > 0 {
		c = append(c, `Basic realm="perfc", charset="UTF-8"`)
	}
	return c
}

// verifiedCache is a bounded set of keys, the oldest forgotten first.
type verifiedCache struct {
	mu    sync.Mutex
	max   int
	order *list.List
	keys  map[[32]byte]*list.Element
}

func newVerifiedCache(max int) *verifiedCache {
	return &verifiedCache{max: max, order: list.New(), keys: map[[32]byte]*list.Element{}}
}

func (c *verifiedCache) has(k [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.keys[k]
	return ok
}

func (c *verifiedCache) add(k [32]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.keys[k]; ok {
		return
	}
	c.keys[k] = c.order.PushBack(k)
	for c.order.Len() > c.max {
		old := c.order.Remove(c.order.Front()).([32]byte)
		delete(c.keys, old)
	}
}
