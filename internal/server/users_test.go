package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/remote"
)

// TestLoopbackOtherUser: a server on loopback without configuration,
// run by one user, is reachable by every local user; another user (Bob)
// can neither read its token file nor get an answer without the token.
func TestLoopbackOtherUser(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		if _, err := os.ReadFile(os.Getenv("TOKENFILE")); err == nil {
			t.Fatalf("step %s: Bob read the server's token file", step)
		}
		// The API, and the page with its token exchange.
		for _, path := range []string{remote.PathHost, "/", "/?token=" + strings.Repeat("0", 64)} {
			resp, err := http.Get(os.Getenv("URL") + path)
			if err != nil {
				t.Fatalf("step %s: %v", step, err)
			}
			resp.Body.Close()
			if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
				t.Fatalf("step %s: Bob without the token: GET %s: status %d, cookies %v; want 401 and none", step, path, resp.StatusCode, resp.Cookies())
			}
		}
		return
	}
	r := asuser.New(t)
	// The token's directory lies in the shared (1777) directory, as a
	// runtime directory under /tmp would.
	tf := filepath.Join(r.SharedDir(), "perfc-0", "serve.token")
	s := serve(t, Options{TokenFile: tf, Page: stubAPI()})
	out, err := r.Run(asuser.Bob, "TestLoopbackOtherUser", "bob", "TOKENFILE="+tf, "URL="+s.URL())
	if err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	if !strings.Contains(out, "PASS") {
		t.Fatalf("the step did not run:\n%s", out)
	}
}
