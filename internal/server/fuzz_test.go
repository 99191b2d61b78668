package server

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// FuzzParseConfig: any file parses or fails with an error naming it,
// never panics; a file that parses parses again the same way.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("basic_auth_users:\n  alice: " + secretHash + "\n"))
	f.Add([]byte("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: c\n"))
	f.Add([]byte("perfc:\n  bearer_tokens:\n    ci: {sha256: 2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b}\n  roles:\n    log: [token:ci]\n"))
	f.Add([]byte("rate_limit: {interval: 1s, burst: 5}\nhttp_server_config: {http2: false, headers: {X-Frame-Options: deny}}\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig("f.yml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		c2, err := ParseConfig("f.yml", b)
		if err != nil || c2.HasAuth() != c.HasAuth() || c2.HasTLS() != c.HasTLS() {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

// FuzzParseAuthorization: any header value parses or fails, never panics;
// what parses says what the header said.
func FuzzParseAuthorization(f *testing.F) {
	f.Add("Basic " + base64.StdEncoding.EncodeToString([]byte("alice:secret")))
	f.Add("Bearer abc.DEF-123_~+/==")
	f.Add("bearer x")
	f.Add("Basic Og==")
	f.Add("Digest username=x")
	f.Add("Bearer ")
	f.Fuzz(func(t *testing.T, h string) {
		c, err := ParseAuthorization(h)
		if err != nil {
			return
		}
		switch c.Scheme {
		case "Basic":
			raw := base64.StdEncoding.EncodeToString([]byte(c.User + ":" + c.Password))
			_, rest, _ := strings.Cut(h, " ")
			if strings.TrimLeft(rest, " ") != raw || c.User == "" || strings.Contains(c.User, ":") {
				t.Fatalf("%q parsed as user %q password %q", h, c.User, c.Password)
			}
		case "Bearer":
			if !strings.HasSuffix(h, " "+c.Token) || c.Token == "" || strings.ContainsAny(c.Token, " \t\r\n") {
				t.Fatalf("%q parsed as token %q", h, c.Token)
			}
		default:
			t.Fatalf("%q: scheme %q", h, c.Scheme)
		}
	})
}

// fuzzSessions are sessions with a fixed key and clock, and the one
// cookie value they accept: fuzzCookie, for identity token:x.
var (
	fuzzSum    = []byte("0123456789abcdef0123456789abcdef")
	fuzzNow    = time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC)
	fuzzCookie = (&sessions{key: []byte("fixed key of the fuzz target....")}).value("token:x", fuzzSum, fuzzNow.Add(time.Hour))
)

// FuzzSessionCookie: a session cookie's value is accepted only when it is
// exactly one the server made (its MAC, of the token, before its expiry);
// anything else is refused without a panic.
func FuzzSessionCookie(f *testing.F) {
	f.Add(fuzzCookie)
	f.Add("")
	f.Add(".")
	f.Add("AAAAAAAAAAA.AAAA")
	f.Add(strings.Replace(fuzzCookie, ".", "..", 1))
	s := &sessions{key: []byte("fixed key of the fuzz target...."), now: func() time.Time { return fuzzNow }}
	sum := func(who string) []byte {
		if who == "token:x" {
			return fuzzSum
		}
		return nil
	}
	f.Fuzz(func(t *testing.T, v string) {
		who, ok := s.check(v, sum)
		if ok != (v == fuzzCookie) || (ok && who != "token:x") {
			t.Fatalf("cookie %q: accepted %v as %q; want only %q accepted", v, ok, who, fuzzCookie)
		}
	})
}
