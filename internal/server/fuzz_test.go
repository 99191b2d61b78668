package server

import (
	"encoding/base64"
	"strings"
	"testing"
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
