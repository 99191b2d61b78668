package server

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/perfcounters/perfcounters/remote"
)

// The credentials of the tests' configurations.
const (
	monitorToken = "m0nitor-token-for-the-tests"
	logToken     = "l0g-token-for-the-tests"
	alicePass    = "alice's password"
	bobPass      = "bob's password"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func bcryptOf(t *testing.T, pass string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// authYAML is a configuration with two bearer tokens and two users, one
// of each with the log role.
func authYAML(t *testing.T) string {
	return fmt.Sprintf(`basic_auth_users:
  alice: %s
  bob: %s
perfc:
  bearer_tokens:
    grafana: {sha256: %s}
    ci: {sha256: %s}
  roles:
    log: [user:bob, token:ci]
`, bcryptOf(t, alicePass), bcryptOf(t, bobPass), sha256Hex(monitorToken), sha256Hex(logToken))
}

// writeConfig writes a web configuration file, mode 0600, and returns
// its name.
func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "web-config.yml")
	writeFile(t, p, []byte(text), 0o600)
	return p
}

// stubAPI answers every request with the caller remote.Caller reports.
type callerJSON struct {
	Role string `json:"role"`
	Who  string `json:"who"`
	Path string `json:"path"`
}

// drainingAPI is stubAPI after reading the whole request body, with the
// number of requests in it at the moment.
func drainingAPI() (http.Handler, *atomic.Int32) {
	var in atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.Add(1)
		defer in.Add(-1)
		io.Copy(io.Discard, r.Body)
		stubAPI().ServeHTTP(w, r)
	}), &in
}

func stubAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		role, who := remote.Caller(r.Context())
		w.Header().Set("Content-Type", remote.MediaJSON)
		json.NewEncoder(w).Encode(callerJSON{Role: role.String(), Who: who, Path: r.URL.Path})
	})
}

// serve starts a server with opts (on a free loopback port unless
// opts.Addr says otherwise) and stops it when the test ends.
func serve(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.API == nil {
		opts.API = stubAPI()
	}
	if opts.TokenFile == "" {
		opts.TokenFile = filepath.Join(t.TempDir(), "tok", "serve.token")
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, c *http.Client, method, url string, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// checkError checks an error answer is remote's error JSON with status.
func checkError(t *testing.T, a answer, status int) remote.Error {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d; body %s", a.status, status, a.body)
	}
	var eb remote.ErrorBody
	if err := json.Unmarshal(a.body, &eb); err != nil {
		t.Fatalf("error body %q: %v", a.body, err)
	}
	if eb.Error.Status != status || eb.Error.Reason == "" {
		t.Fatalf("error body %+v, want status %d and a reason", eb.Error, status)
	}
	return eb.Error
}

func basicHeader(user, pass string) map[string]string {
	req, _ := http.NewRequest("GET", "http://x/", nil)
	req.SetBasicAuth(user, pass)
	return map[string]string{"Authorization": req.Header.Get("Authorization")}
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

func TestAuthentication(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, Options{ConfigFile: writeConfig(t, dir, authYAML(t))})
	if s.TokenFile() != "" {
		t.Errorf("token file %s written although the configuration authenticates", s.TokenFile())
	}
	c := &http.Client{}
	cases := []struct {
		name, method, path string
		hdr                map[string]string
		status             int
		role, who          string
	}{
		{"no credentials", "GET", remote.PathHost, nil, 401, "", ""},
		{"wrong token", "GET", remote.PathHost, bearer("not-the-token"), 401, "", ""},
		{"token with a trailing byte", "GET", remote.PathHost, bearer(monitorToken + "x"), 401, "", ""},
		{"malformed bearer", "GET", remote.PathHost, map[string]string{"Authorization": "Bearer a b"}, 401, "", ""},
		{"unknown scheme", "GET", remote.PathHost, map[string]string{"Authorization": "Digest x"}, 401, "", ""},
		{"monitor token", "GET", remote.PathHost, bearer(monitorToken), 200, "monitor", "token:grafana"},
		{"bearer scheme in lower case", "GET", remote.PathHost, map[string]string{"Authorization": "bearer " + monitorToken}, 200, "monitor", "token:grafana"},
		{"log token", "GET", remote.PathHost, bearer(logToken), 200, "log", "token:ci"},
		{"monitor cannot start a set", "POST", remote.PathSets + "/x/start", bearer(monitorToken), 403, "", ""},
		{"monitor cannot delete a set", "DELETE", remote.PathSets + "/x", bearer(monitorToken), 403, "", ""},
		{"monitor lists sets", "GET", remote.PathSets, bearer(monitorToken), 200, "monitor", "token:grafana"},
		{"log starts a set", "POST", remote.PathSets + "/x/start", bearer(logToken), 200, "log", "token:ci"},
		{"basic monitor", "GET", remote.PathHost, basicHeader("alice", alicePass), 200, "monitor", "user:alice"},
		{"basic monitor cannot start a set", "POST", remote.PathSets + "/x/start", basicHeader("alice", alicePass), 403, "", ""},
		{"basic log", "POST", remote.PathSets + "/x/start", basicHeader("bob", bobPass), 200, "log", "user:bob"},
		{"another site's form with bob's cached password", "POST", remote.PathSets + "/x/start",
			map[string]string{"Authorization": basicHeader("bob", bobPass)["Authorization"], "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, 403, "", ""},
		{"another origin, no Sec-Fetch-Site", "POST", remote.PathSets + "/x/start",
			map[string]string{"Authorization": "Bearer " + logToken, "Origin": "https://evil.example"}, 403, "", ""},
		{"a same-origin page", "POST", remote.PathSets + "/x/start",
			map[string]string{"Authorization": "Bearer " + logToken, "Sec-Fetch-Site": "same-origin"}, 200, "log", "token:ci"},
		{"a cross-site read is a read", "GET", remote.PathHost,
			map[string]string{"Authorization": "Bearer " + logToken, "Sec-Fetch-Site": "cross-site"}, 200, "log", "token:ci"},
		{"basic again (remembered)", "GET", remote.PathHost, basicHeader("bob", bobPass), 200, "log", "user:bob"},
		{"basic wrong password", "GET", remote.PathHost, basicHeader("alice", bobPass), 401, "", ""},
		{"basic unknown user", "GET", remote.PathHost, basicHeader("mallory", alicePass), 401, "", ""},
		{"basic bad base64", "GET", remote.PathHost, map[string]string{"Authorization": "Basic !!!"}, 401, "", ""},
		{"unknown path needs credentials too", "GET", "/nowhere", nil, 401, "", ""},
		{"unknown path", "GET", "/nowhere", bearer(monitorToken), 404, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, c, tc.method, s.URL()+tc.path, tc.hdr)
			if tc.status != 200 {
				checkError(t, a, tc.status)
				if tc.status == 401 {
					ch := strings.Join(a.header.Values("WWW-Authenticate"), ", ")
					if !strings.Contains(ch, "Bearer") || !strings.Contains(ch, "Basic") {
						t.Errorf("WWW-Authenticate %q, want Bearer and Basic challenges", ch)
					}
				}
				return
			}
			if a.status != 200 {
				t.Fatalf("status %d, want 200; body %s", a.status, a.body)
			}
			var got callerJSON
			if err := json.Unmarshal(a.body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Role != tc.role || got.Who != tc.who || got.Path != tc.path {
				t.Errorf("caller %+v, want role %s, who %s at %s", got, tc.role, tc.who, tc.path)
			}
		})
	}
}

func TestLoopbackToken(t *testing.T) {
	tf := filepath.Join(t.TempDir(), "run", "serve.token")
	s := serve(t, Options{TokenFile: tf})
	if s.TokenFile() != tf {
		t.Fatalf("token file %q, want %q", s.TokenFile(), tf)
	}
	fi, err := os.Stat(tf)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(tf)); di.Mode().Perm() != 0o700 {
		t.Errorf("token directory mode %04o, want 0700", di.Mode().Perm())
	}
	b, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) != 64 {
		t.Fatalf("token %q: want 64 hex digits", tok)
	}
	c := &http.Client{}
	checkError(t, do(t, c, "GET", s.URL()+remote.PathHost, nil), 401)
	checkError(t, do(t, c, "GET", s.URL()+remote.PathHost, bearer(tok[1:]+"0")), 401)
	a := do(t, c, "POST", s.URL()+remote.PathSets+"/x/start", bearer(tok))
	if a.status != 200 || !strings.Contains(string(a.body), `"role":"log"`) {
		t.Fatalf("with the local token: %d %s, want 200 as log", a.status, a.body)
	}
}

func TestLoopbackTokenRemovedAtShutdown(t *testing.T) {
	tf := filepath.Join(t.TempDir(), "serve.token")
	s, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), TokenFile: tf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Serve(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tf); !os.IsNotExist(err) {
		t.Errorf("token file after shutdown: %v, want it removed", err)
	}
}

func TestTokenDirectoryOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	dir := filepath.Join(t.TempDir(), "squat")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 61001, 61001); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), TokenFile: filepath.Join(dir, "serve.token")})
	if err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Fatalf("New with a token directory of uid 61001: %v, want it refused", err)
	}
}

func TestAnonymousLoopback(t *testing.T) {
	s := serve(t, Options{Anonymous: true})
	if s.TokenFile() != "" {
		t.Errorf("anonymous server wrote a token file %s", s.TokenFile())
	}
	c := &http.Client{}
	a := do(t, c, "GET", s.URL()+remote.PathHost, nil)
	if a.status != 200 || !strings.Contains(string(a.body), `"role":"monitor"`) {
		t.Fatalf("anonymous GET: %d %s, want 200 as monitor", a.status, a.body)
	}
	checkError(t, do(t, c, "POST", s.URL()+remote.PathSets+"/x/start", nil), 403)
}

func TestListenPolicy(t *testing.T) {
	p := newPKI(t)
	tlsOnly := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n", p.certFile, p.keyFile)
	full := tlsOnly + authYAML(t)
	mtls := tlsOnly + fmt.Sprintf("  client_ca_file: %s\n  client_auth_type: RequireAndVerifyClientCert\n", p.caFile)
	authOnly := authYAML(t)
	cases := []struct {
		name, addr, config string
		anonymous          bool
		want               string // "" accepted, else part of the error
	}{
		{"every address, no config", ":0", "", false, "tls_server_config"},
		{"0.0.0.0, no config", "0.0.0.0:0", "", false, "TLS (tls_server_config: cert_file and key_file) and authentication"},
		{"::, no config", "[::]:0", "", false, "not loopback"},
		{"a routable address, no config", "192.0.2.7:0", "", false, "not loopback"},
		{"a host name", "example.com:0", "", false, "not loopback"},
		{"TLS without authentication", "0.0.0.0:0", tlsOnly, false, "needs authentication (basic_auth_users"},
		{"authentication without TLS", "0.0.0.0:0", authOnly, false, "needs TLS"},
		{"anonymous off loopback", "0.0.0.0:0", full, true, "anonymous"},
		{"bad address", "nowhere", "", false, "want host:port"},
		{"bad port", "127.0.0.1:99999", "", false, "port"},
		{"TLS and authentication", "0.0.0.0:0", full, false, ""},
		{"TLS and client certificates", "0.0.0.0:0", mtls, false, ""},
		{"loopback, no config", "127.0.0.1:0", "", false, ""},
		{"IPv6 loopback", "[::1]:0", "", false, ""},
		{"localhost", "localhost:0", "", false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Addr: tc.addr, API: stubAPI(), Anonymous: tc.anonymous, TokenFile: filepath.Join(t.TempDir(), "t")}
			if tc.config != "" {
				opts.ConfigFile = writeConfig(t, t.TempDir(), tc.config)
			}
			s, err := New(opts)
			if tc.want == "" {
				if err != nil {
					if strings.Contains(err.Error(), "cannot assign requested address") {
						t.Skip(err)
					}
					t.Fatalf("New: %v", err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("New(%s) accepted, want an error with %q", tc.addr, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New(%s): %v, want %q in it", tc.addr, err, tc.want)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, Options{ConfigFile: writeConfig(t, dir, authYAML(t)),
		Limits: Limits{MaxHeaderBytes: 8 << 10, MaxURLBytes: 2 << 10, MaxBodyBytes: 1 << 10}})
	c := &http.Client{}
	t.Run("header", func(t *testing.T) {
		h := bearer(monitorToken)
		h["X-Big"] = strings.Repeat("a", 64<<10)
		a := do(t, c, "GET", s.URL()+remote.PathHost, h)
		if a.status != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("64 KiB header: status %d, want 431", a.status)
		}
	})
	t.Run("url", func(t *testing.T) {
		checkError(t, do(t, c, "GET", s.URL()+remote.PathHost+"?v="+strings.Repeat("a", 4<<10), bearer(monitorToken)), 414)
	})
	t.Run("body", func(t *testing.T) {
		req, _ := http.NewRequest("POST", s.URL()+remote.PathSets+"/x/start", strings.NewReader(strings.Repeat("a", 2<<10)))
		req.Header.Set("Authorization", "Bearer "+logToken)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		checkError(t, answer{resp.StatusCode, resp.Header, b}, 413)
	})
	t.Run("a larger body where BodyLimits allows it", func(t *testing.T) {
		// Issue 28, item 12: log uploads over 1 MiB were refused whatever
		// -maxupload said. The upload path takes its own limit; every
		// other path keeps MaxBodyBytes.
		var got int
		api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				return
			}
			got = len(b)
			w.WriteHeader(http.StatusNoContent)
		})
		s3 := serve(t, Options{API: api, Anonymous: true, Limits: Limits{MaxBodyBytes: 1 << 10},
			BodyLimits: map[string]int64{"/v1/logs": 8 << 10}})
		for _, tc := range []struct {
			path string
			size int
			want int
		}{
			{"/v1/logs", 6 << 10, http.StatusNoContent},
			{"/v1/logs", 9 << 10, http.StatusRequestEntityTooLarge},
			{"/v1/formatted", 6 << 10, http.StatusRequestEntityTooLarge},
		} {
			req, _ := http.NewRequest("POST", s3.URL()+tc.path, strings.NewReader(strings.Repeat("a", tc.size)))
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("POST %s of %d bytes: %d, want %d", tc.path, tc.size, resp.StatusCode, tc.want)
			}
		}
		if got != 6<<10 {
			t.Errorf("the upload path's handler read %d bytes, want %d", got, 6<<10)
		}
	})
	t.Run("body without length", func(t *testing.T) {
		// A chunked body is cut at the limit: the handler's read fails.
		var got error
		api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, got = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		})
		s2 := serve(t, Options{API: api, Anonymous: true, Limits: Limits{MaxBodyBytes: 1 << 10}})
		req, _ := http.NewRequest("POST", s2.URL()+remote.PathQuery, io.MultiReader(strings.NewReader(strings.Repeat("a", 4<<10))))
		req.ContentLength = -1
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if _, ok := got.(*http.MaxBytesError); !ok {
			t.Fatalf("handler read %v, want *http.MaxBytesError", got)
		}
	})
}

func TestRateLimit(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, Options{ConfigFile: writeConfig(t, dir, authYAML(t)+"rate_limit:\n  interval: 1h\n  burst: 3\n")})
	c := &http.Client{}
	// Three requests per identity pass; the fourth, from any address, is
	// refused until the bucket refills (an hour). Other identities, and
	// attempts without credentials, have buckets of their own.
	for i := range 3 {
		if a := do(t, c, "GET", s.URL()+remote.PathHost, bearer(monitorToken)); a.status != 200 {
			t.Fatalf("request %d: status %d", i+1, a.status)
		}
	}
	a := do(t, c, "GET", s.URL()+remote.PathHost, bearer(monitorToken))
	checkError(t, a, 429)
	if a.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	if a := do(t, c, "GET", s.URL()+remote.PathHost, bearer(logToken)); a.status != 200 {
		t.Fatalf("another identity: status %d", a.status)
	}
	for range 3 {
		checkError(t, do(t, c, "GET", s.URL()+remote.PathHost, nil), 401)
	}
	checkError(t, do(t, c, "GET", s.URL()+remote.PathHost, nil), 429)
}

func TestClientLimiterBounded(t *testing.T) {
	l := newClientLimiter(RateLimit{Interval: 1 << 40, Burst: 1}, 100)
	now := time.Unix(1_000_000_000, 0)
	for i := range 1000 {
		if ok, _ := l.allow(fmt.Sprint("ip:", i), now); !ok {
			t.Fatalf("client %d refused on its first request", i)
		}
	}
	if n := l.size(); n != 100 {
		t.Fatalf("%d buckets kept, want 100", n)
	}
	if ok, _ := l.allow("ip:999", now); ok {
		t.Error("a recent client's second request passed: its bucket was evicted")
	}
	if ok, _ := l.allow("ip:0", now); !ok {
		t.Error("the oldest client's bucket was kept")
	}
}

func TestConcurrencyLimit(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	s := serve(t, Options{API: api, Anonymous: true, Limits: Limits{MaxConcurrent: 1}})
	c := &http.Client{}
	first := make(chan int)
	go func() {
		resp, err := c.Get(s.URL() + remote.PathHost)
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	<-entered
	checkError(t, do(t, c, "GET", s.URL()+remote.PathHost, nil), 503)
	close(release)
	if st := <-first; st != 200 {
		t.Fatalf("first request: status %d", st)
	}
}

func TestResponseHeaders(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, Options{Anonymous: true, ConfigFile: writeConfig(t, dir, "http_server_config:\n  headers:\n    X-Frame-Options: deny\n")})
	a := do(t, &http.Client{}, "GET", s.URL()+remote.PathHost, nil)
	if got := a.header.Get("X-Frame-Options"); got != "deny" {
		t.Errorf("X-Frame-Options %q, want deny", got)
	}
}

func TestH2CLoopback(t *testing.T) {
	s := serve(t, Options{Anonymous: true})
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: &protos}}
	resp, err := c.Get(s.URL() + remote.PathHost)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("h2c: %s %d, want HTTP/2 200", resp.Proto, resp.StatusCode)
	}
}

// tlsClient returns a client trusting the test CA, presenting cert (if
// any), speaking TLS versions min..max, without keeping connections.
func tlsClient(p *pki, cert *tls.Certificate, minV, maxV uint16) *http.Client {
	cfg := &tls.Config{RootCAs: p.roots(), MinVersion: minV, MaxVersion: maxV}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true, ForceAttemptHTTP2: true}}
}

func TestExtraHandlers(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		role, who := remote.Caller(r.Context())
		fmt.Fprintf(w, "# caller %s %s\n", role, who)
	})
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), authYAML(t)), Handlers: map[string]http.Handler{remote.PathMetrics: metrics}})
	c := &http.Client{}
	checkError(t, do(t, c, "GET", s.URL()+remote.PathMetrics, nil), 401)
	checkError(t, do(t, c, "GET", s.URL()+remote.PathMetrics, bearer("wrong")), 401)
	a := do(t, c, "GET", s.URL()+remote.PathMetrics, bearer(monitorToken))
	if a.status != 200 || string(a.body) != "# caller monitor token:grafana\n" {
		t.Fatalf("/metrics with a token: %d %q", a.status, a.body)
	}
}

func TestHandlerPaths(t *testing.T) {
	for _, p := range []string{"/", "/v1/", "/v1/metrics", "/v1", "metrics"} {
		s, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), Anonymous: true, Handlers: map[string]http.Handler{p: stubAPI()}})
		if err == nil {
			s.Close()
			t.Errorf("handler at %q accepted", p)
		}
	}
}

// TestGracefulShutdown: a request in flight when the server is told to
// stop gets its answer; new connections are refused after.
func TestGracefulShutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "done")
	})
	s, err := New(Options{Addr: "127.0.0.1:0", API: api, Anonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(s.URL() + remote.PathHost)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-entered
	stop()
	close(release)
	if b := <-got; b != "done" {
		t.Fatalf("request in flight at shutdown got %q", b)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if resp, err := http.Get(s.URL() + remote.PathHost); err == nil {
		resp.Body.Close()
		t.Fatalf("after shutdown: status %d, want the connection refused", resp.StatusCode)
	}
}
