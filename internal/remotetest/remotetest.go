// Package remotetest is test support for the remote API: a handler over
// a local host as perfc serve builds it, the bearer-token check of its
// authentication, and a TLS server of a handler with the hosts-file
// entry that reaches it. It lives under internal/, as the module's other
// test support does, so that no program outside the module can import a
// package that assembles a host; internal/deps checks that only tests
// import it.
package remotetest

import (
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// FixedClock stamps every block with the same time, so two collections
// of the static fixture tree are the same bytes.
type FixedClock struct{}

// Wall is a fixed time.
func (FixedClock) Wall() time.Time { return time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC) }

// Ticks is a fixed count.
func (FixedClock) Ticks() int64 { return 123456789 }

// Freq is 1 GHz.
func (FixedClock) Freq() int64 { return 1_000_000_000 }

// FixtureHost is the real local host over the fixture /proc and /sys of
// package system (system/testdata/host), with FixedClock; it is closed
// when the test ends.
func FixtureHost(t testing.TB) *host.Host {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("remotetest: no source location for the fixture tree")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "system", "testdata", "host")
	h, err := host.New(host.Options{ProcRoot: filepath.Join(root, "proc"), SysRoot: filepath.Join(root, "sys"),
		Clock: FixedClock{}, MaxKeptFiles: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// Token is the bearer token Authenticated accepts.
const Token = "s3cret-token-for-tests"

// NewHandler is the API over host h, as perfc serve builds it: h's
// samples, and h as the Registry unless opts names another.
func NewHandler(h *host.Host, opts apiserver.Options) *apiserver.Handler {
	if opts.Registry == nil {
		opts.Registry = h
	}
	return apiserver.NewHandler(h.Source(), opts)
}

// Authenticated sets the monitor role for requests bearing Token, as
// perfc serve's authentication does, and nothing for others (the
// handler answers them 401).
func Authenticated(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+Token {
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "tester"))
		}
		h.ServeHTTP(w, r)
	})
}

// Server is an HTTP/2 TLS server of a handler, closed when the test ends.
type Server struct {
	Srv    *httptest.Server
	CAFile string // its certificate, for a hosts-file entry
	H      http.Handler
}

// Serve starts h at addr ("" for any loopback port).
func Serve(t testing.TB, h http.Handler, addr string) *Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are what some tests want
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return &Server{Srv: srv, CAFile: ca, H: h}
}

// Config is the hosts-file entry named name that reaches the server with
// Token.
func (s *Server) Config(name string) *remote.HostConfig {
	return &remote.HostConfig{Name: name, URL: s.Srv.URL, BearerToken: Token,
		TLS: remote.TLSConfig{CAFile: s.CAFile}, Timeout: remote.Duration(5 * time.Second)}
}
