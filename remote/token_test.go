package remote_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// tokenServer accepts one bearer token at a time, as a perfc serve that
// writes a new loopback token at every start.
type tokenServer struct {
	mu    sync.Mutex
	token string
	h     http.Handler
}

func (s *tokenServer) set(tok string) {
	s.mu.Lock()
	s.token = tok
	s.mu.Unlock()
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ok := r.Header.Get("Authorization") == "Bearer "+s.token
	s.mu.Unlock()
	if ok {
		r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "tester"))
	}
	s.h.ServeHTTP(w, r)
}

// TestTokenFileReadAgain is issue 33's "a remote computer read through the
// loopback token never comes back after its server restarts": the server
// takes a new token (and writes it to the file), and the client, refused,
// reads the file again and goes on — for samples over its own HTTP/1.1
// connection and for the JSON API alike. A refusal with the file unchanged
// stays a refusal that says to check the credentials, and a token written
// in the hosts file itself is not re-read.
func TestTokenFileReadAgain(t *testing.T) {
	h := remotetest.FixtureHost(t)
	ts := &tokenServer{token: "first-token", h: remotetest.NewHandler(h, apiserver.Options{})}
	srv := httptest.NewServer(ts) // plain http on 127.0.0.1, as perfc serve's default
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "serve-9641.token")
	write := func(tok string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("first-token")
	cfg := &remote.HostConfig{Name: "loop", URL: srv.URL, BearerTokenFile: file, Timeout: remote.Duration(10 * time.Second)}
	ctx := context.Background()
	c, err := remote.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sample := func() error {
		_, err := c.Sample(ctx, []uint32{238})
		return err
	}
	if err := sample(); err != nil {
		t.Fatalf("first sample: %v", err)
	}

	// The server restarts with a new token, written to the file.
	ts.set("second-token")
	write("second-token")
	if err := sample(); err != nil {
		t.Errorf("sample after the token changed: %v", err)
	}
	ts.set("third-token")
	write("third-token")
	if _, err := c.Objects(ctx, "wizard", false); err != nil {
		t.Errorf("objects after the token changed: %v", err)
	}

	// A server whose token is not in the file: refused, and said so.
	ts.set("fourth-token")
	if err := sample(); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("sample with a stale file: %v, want a refusal", err)
	}
	ts.set("third-token")
	if err := sample(); err != nil {
		t.Errorf("sample once the server takes the file's token again: %v", err)
	}

	// A token written in the hosts file is the user's to change.
	inline := &remote.HostConfig{Name: "inline", URL: srv.URL, BearerToken: "third-token", Timeout: remote.Duration(10 * time.Second)}
	ci, err := remote.Dial(ctx, inline)
	if err != nil {
		t.Fatal(err)
	}
	defer ci.Close()
	ts.set("fifth-token")
	write("fifth-token")
	if _, err := ci.Sample(ctx, []uint32{238}); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("inline token after the server changed it: %v, want a refusal", err)
	}
}
