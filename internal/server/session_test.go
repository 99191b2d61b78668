package server

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/remote"
)

// noRedirect is a client that shows redirects instead of following them.
func noRedirect() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// sessionCookie exchanges tok for the page's session cookie at s, checks
// the exchange's answer, and returns the cookie.
func sessionCookie(t *testing.T, s *Server, c *http.Client, tok string) *http.Cookie {
	t.Helper()
	a := do(t, c, "GET", s.URL()+"/?view=report&"+TokenParam+"="+url.QueryEscape(tok), nil)
	if a.status != http.StatusSeeOther {
		t.Fatalf("GET /?token=: status %d, want 303; body %s", a.status, a.body)
	}
	loc, err := url.Parse(a.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	q := loc.Query()
	proof := q.Get(SessionParam)
	q.Del(SessionParam)
	if loc.Path != "/" || q.Encode() != "view=report" || proof == "" {
		t.Errorf("redirected to %q, want / with view=report (the token left out, the rest kept) and the session's proof", loc)
	}
	resp := http.Response{Header: a.header}
	var got *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "perfc-"+port(s) {
			got = ck
		}
	}
	if got == nil {
		t.Fatalf("no cookie perfc-%s in %q", port(s), a.header.Values("Set-Cookie"))
	}
	if !got.HttpOnly || got.SameSite != http.SameSiteStrictMode || got.Path != "/" || got.Secure != strings.HasPrefix(s.URL(), "https:") {
		t.Errorf("cookie %s: want HttpOnly, SameSite=Strict, Path=/, Secure exactly over TLS", got)
	}
	if got.MaxAge <= 0 || got.MaxAge > int(DefaultSessionLifetime/time.Second) {
		t.Errorf("cookie Max-Age %d, want 1..%d", got.MaxAge, int(DefaultSessionLifetime/time.Second))
	}
	if strings.Contains(got.Value, tok) {
		t.Errorf("cookie %q holds the token itself", got.Value)
	}
	if want := s.auth.sessions.proof(got.Value); proof != want {
		t.Errorf("redirect's proof %q, want %q (the cookie's)", proof, want)
	}
	return got
}

func port(s *Server) string { return strconv.Itoa(s.Addr().(*net.TCPAddr).Port) }

// withProof is withCookie with the page's proof of the session (what
// the page sends in SessionHeader), as server s computes it.
func withProof(s *Server, ck *http.Cookie, hdr map[string]string) map[string]string {
	out := withCookie(ck, hdr)
	out[SessionHeader] = s.auth.sessions.proof(ck.Value)
	return out
}

func withCookie(ck *http.Cookie, hdr map[string]string) map[string]string {
	out := map[string]string{"Cookie": ck.Name + "=" + ck.Value}
	for k, v := range hdr {
		out[k] = v
	}
	return out
}

// tamper changes one byte of a cookie's value: the MAC (mac) or the
// payload's identity.
func tamper(t *testing.T, v string, mac bool) string {
	p, m, _ := strings.Cut(v, ".")
	enc := base64.RawURLEncoding
	if mac {
		b, err := enc.DecodeString(m)
		if err != nil {
			t.Fatal(err)
		}
		b[0] ^= 1
		return p + "." + enc.EncodeToString(b)
	}
	b, err := enc.DecodeString(p)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b[:8], "token:ci"...) // grafana's cookie claiming ci's (log) role
	return enc.EncodeToString(b) + "." + m
}

func callerOf(t *testing.T, a answer) callerJSON {
	t.Helper()
	if a.status != 200 {
		t.Fatalf("status %d, want 200; body %s", a.status, a.body)
	}
	var got callerJSON
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatalf("%s: %v", a.body, err)
	}
	return got
}

// TestPageCredentials: the page at / is behind the same authentication as
// the API, reachable with each kind of credential a browser can hold; a
// token becomes a session cookie of its role; cookies forged, of another
// server or expired are refused (and cleared).
func TestPageCredentials(t *testing.T) {
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), authYAML(t)), Page: stubAPI()})
	other := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), authYAML(t)), Page: stubAPI()})
	c := noRedirect()
	mon := sessionCookie(t, s, c, monitorToken)
	lg := sessionCookie(t, s, c, logToken)
	foreign := sessionCookie(t, other, c, monitorToken)
	foreign.Name = mon.Name

	// Refused without credentials, with a challenge a browser answers by
	// asking for a password.
	a := do(t, c, "GET", s.URL()+"/", nil)
	checkError(t, a, 401)
	if ch := strings.Join(a.header.Values("WWW-Authenticate"), ", "); !strings.Contains(ch, "Basic") {
		t.Errorf("401 of the page: WWW-Authenticate %q, want a Basic challenge", ch)
	}
	checkError(t, do(t, c, "GET", s.URL()+"/?token=not-the-token", nil), 401)
	checkError(t, do(t, c, "GET", s.URL()+"/?token=", nil), 401)
	checkError(t, do(t, c, "GET", s.URL()+"/?token=a%20b", nil), 401)

	cases := []struct {
		name, method, path string
		hdr                map[string]string
		status             int
		role, who          string
		cleared            bool // the answer clears the cookie
	}{
		{"page with the monitor cookie", "GET", "/", withCookie(mon, nil), 200, "monitor", "token:grafana", false},
		{"page file with the cookie", "GET", "/app.js", withCookie(mon, nil), 200, "monitor", "token:grafana", false},
		{"API with the monitor cookie", "GET", remote.PathHost, withProof(s, mon, nil), 200, "monitor", "token:grafana", false},
		{"API with the log cookie", "POST", remote.PathSets + "/x/start", withProof(s, lg, map[string]string{"Sec-Fetch-Site": "same-origin"}), 200, "log", "token:ci", false},
		{"monitor cookie cannot start a set", "POST", remote.PathSets + "/x/start", withProof(s, mon, nil), 403, "", "", false},
		{"cookie sent by another site's form", "POST", remote.PathFormatted, withProof(s, lg, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}), 403, "", "", false},
		// Issue 28, item 4: the browser sends the cookie to every port of
		// 127.0.0.1, so another user's listener gets it and can replay it;
		// without the page's proof, which stays in the page's origin, it
		// opens no data.
		{"replayed cookie, API", "GET", remote.PathHost, withCookie(mon, nil), 401, "", "", false},
		{"replayed cookie, metrics", "GET", remote.PathMetrics, withCookie(mon, nil), 401, "", "", false},
		{"replayed cookie, POST", "POST", remote.PathSets + "/x/start", withCookie(lg, map[string]string{"Sec-Fetch-Site": "same-origin"}), 401, "", "", false},
		{"cookie with another cookie's proof", "GET", remote.PathHost, withCookie(mon, map[string]string{SessionHeader: s.auth.sessions.proof(lg.Value)}), 401, "", "", false},
		{"page with Basic", "GET", "/", basicHeader("alice", alicePass), 200, "monitor", "user:alice", false},
		{"a header wins over the cookie", "GET", "/", withCookie(mon, basicHeader("bob", bobPass)), 200, "log", "user:bob", false},
		{"cookie with a forged MAC", "GET", "/", withCookie(&http.Cookie{Name: mon.Name, Value: tamper(t, mon.Value, true)}, nil), 401, "", "", true},
		{"cookie claiming another token", "GET", "/", withCookie(&http.Cookie{Name: mon.Name, Value: tamper(t, mon.Value, false)}, nil), 401, "", "", true},
		{"cookie of another server", "GET", remote.PathHost, withCookie(foreign, nil), 401, "", "", true},
		{"cookie that is the token itself", "GET", "/", withCookie(&http.Cookie{Name: mon.Name, Value: monitorToken}, nil), 401, "", "", true},
		{"cookie too long", "GET", "/", withCookie(&http.Cookie{Name: mon.Name, Value: strings.Repeat("A", 2000) + ".AA"}, nil), 401, "", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, c, tc.method, s.URL()+tc.path, tc.hdr)
			if tc.status != 200 {
				checkError(t, a, tc.status)
				cleared := false
				for _, ck := range (&http.Response{Header: a.header}).Cookies() {
					cleared = cleared || (ck.Name == mon.Name && ck.MaxAge < 0)
				}
				if cleared != tc.cleared {
					t.Errorf("cookie cleared: %v, want %v (Set-Cookie %q)", cleared, tc.cleared, a.header.Values("Set-Cookie"))
				}
				return
			}
			got := callerOf(t, a)
			if got.Role != tc.role || got.Who != tc.who || got.Path != tc.path {
				t.Errorf("caller %+v, want role %s, who %s at %s", got, tc.role, tc.who, tc.path)
			}
		})
	}

	// Expired: the same cookie a moment after its lifetime.
	s.auth.sessions.now = func() time.Time { return time.Now().Add(DefaultSessionLifetime + time.Minute) }
	checkError(t, do(t, c, "GET", s.URL()+"/", withCookie(mon, nil)), 401)
	s.auth.sessions.now = func() time.Time { return time.Now().Add(DefaultSessionLifetime - time.Minute) }
	if got := callerOf(t, do(t, c, "GET", s.URL()+"/", withCookie(mon, nil))); got.Who != "token:grafana" {
		t.Errorf("cookie within its lifetime: caller %+v", got)
	}
}

// TestPageLoopbackToken: perfc perfmon's scheme: the generated loopback
// token, kept in memory (no file), exchanged for a cookie of its role.
func TestPageLoopbackToken(t *testing.T) {
	s := serve(t, Options{Page: stubAPI(), NoTokenFile: true})
	if s.TokenFile() != "" || s.Token() == "" {
		t.Fatalf("NoTokenFile: file %q, token %q; want no file and a token", s.TokenFile(), s.Token())
	}
	c := noRedirect()
	checkError(t, do(t, c, "GET", s.URL()+"/", nil), 401)
	ck := sessionCookie(t, s, c, s.Token())
	if got := callerOf(t, do(t, c, "GET", s.URL()+remote.PathHost, withProof(s, ck, nil))); got.Role != "log" || got.Who != "token:local" {
		t.Errorf("local cookie: caller %+v, want log as token:local", got)
	}
	// The loopback server answers loopback names only (another site's
	// name rebound to 127.0.0.1 gets nothing), with any port (a tunnel).
	for host, want := range map[string]int{"evil.example:" + port(s): 403, "localhost:8080": 200, "127.0.0.2": 200, "[::1]:1": 200} {
		req, _ := http.NewRequest("GET", s.URL()+remote.PathHost, nil)
		req.Host = host
		req.Header.Set("Cookie", ck.Name+"="+ck.Value)
		req.Header.Set(SessionHeader, s.auth.sessions.proof(ck.Value))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: status %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestNoPage: without a page, / is 404 and ?token= is no exchange.
func TestNoPage(t *testing.T) {
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), authYAML(t))})
	a := do(t, noRedirect(), "GET", s.URL()+"/?token="+monitorToken, nil)
	checkError(t, a, 401)
	if len(a.header.Values("Set-Cookie")) != 0 {
		t.Errorf("a server without a page set a cookie: %q", a.header.Values("Set-Cookie"))
	}
	checkError(t, do(t, noRedirect(), "GET", s.URL()+"/", bearer(monitorToken)), 404)
}

// TestPageTLS: over TLS the cookie is Secure; a client certificate opens
// the page as it opens the API.
func TestPageTLS(t *testing.T) {
	p := newPKI(t)
	cfg := mtlsYAML(p)
	s := serve(t, Options{Addr: "0.0.0.0:0", ConfigFile: writeConfig(t, t.TempDir(), cfg), Page: stubAPI()})
	good := p.good.tls(t)
	c := tlsClient(p, &good, tls.VersionTLS12, 0)
	url := "https://127.0.0.1:" + port(s)
	if got := callerOf(t, do(t, c, "GET", url+"/", nil)); got.Who != "cert:grafana.example.com" {
		t.Errorf("page with a client certificate: caller %+v", got)
	}
	if _, err := c.Get(url + "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := tlsClient(p, nil, tls.VersionTLS12, 0).Get(url + "/"); err == nil {
		t.Errorf("page without a client certificate: answered, want the handshake refused")
	}

	// Tokens over TLS: the cookie is Secure.
	tokCfg := "tls_server_config:\n  cert_file: " + p.certFile + "\n  key_file: " + p.keyFile + "\n" +
		"perfc:\n  bearer_tokens:\n    grafana: {sha256: " + sha256Hex(monitorToken) + "}\n"
	ts := serve(t, Options{Addr: "0.0.0.0:0", ConfigFile: writeConfig(t, t.TempDir(), tokCfg), Page: stubAPI()})
	tc := tlsClient(p, nil, tls.VersionTLS12, 0)
	tc.CheckRedirect = noRedirect().CheckRedirect
	a := do(t, tc, "GET", "https://127.0.0.1:"+port(ts)+"/?token="+monitorToken, nil)
	if a.status != http.StatusSeeOther {
		t.Fatalf("exchange over TLS: %d %s", a.status, a.body)
	}
	ck := (&http.Response{Header: a.header}).Cookies()
	if len(ck) != 1 || !ck[0].Secure || !ck[0].HttpOnly {
		t.Fatalf("cookie over TLS %v, want one Secure HttpOnly cookie", a.header.Values("Set-Cookie"))
	}
	got := callerOf(t, do(t, tc, "GET", "https://127.0.0.1:"+port(ts)+"/", withCookie(ck[0], nil)))
	if got.Who != "token:grafana" {
		t.Errorf("cookie over TLS: caller %+v", got)
	}
}
