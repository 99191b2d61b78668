package server

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestTokenDirectorySquatted: Bob makes the predictable token directory
// of Alice (perfc-61001 in the shared TMPDIR) first, open to all, with a
// token file of his in it; Alice's server still starts, writes its token
// in a directory of her own (never Bob's), and a client of Alice's finds
// that token (FindTokenFile) and not Bob's.
func TestTokenDirectorySquatted(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		tmp := os.Getenv("SHARED")
		squat := filepath.Join(tmp, fmt.Sprintf("perfc-%d", asuser.Alice.UID))
		switch step {
		case "squat":
			if err := os.Mkdir(squat, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(squat, 0o777); err != nil {
				t.Fatal(err)
			}
			// A directory named as Alice's fallback ones, Bob's.
			if err := os.Mkdir(squat+"-bob", 0o700); err != nil {
				t.Fatal(err)
			}
		case "serve":
			getenv := func(k string) string {
				if k == "TMPDIR" {
					return tmp
				}
				return ""
			}
			var tokens []string
			for i := range 2 { // the second start reuses the first's directory
				s, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), Getenv: getenv})
				if err != nil {
					t.Fatalf("start %d: Alice's server with Bob's %s in the way: %v", i+1, squat, err)
				}
				tf := s.TokenFile()
				port := strconv.Itoa(s.Addr().(*net.TCPAddr).Port)
				// A token file for the port in Bob's directory (anyone
				// may write there), where a client looking only at the
				// predictable name would find it.
				os.WriteFile(filepath.Join(squat, tokenFileName(port)), []byte(strings.Repeat("b", 64)), 0o644)
				dir := filepath.Dir(tf)
				if dir == squat || !strings.HasPrefix(filepath.Base(dir), fmt.Sprintf("perfc-%d-", asuser.Alice.UID)) || filepath.Dir(dir) != tmp {
					t.Fatalf("start %d: token file %s, want one in a perfc-%d-RANDOM directory of %s", i+1, tf, asuser.Alice.UID, tmp)
				}
				if err := ownDir(dir, int(asuser.Alice.UID)); err != nil {
					t.Fatalf("start %d: %v", i+1, err)
				}
				if got := FindTokenFile(getenv, int(asuser.Alice.UID), port); got != tf {
					t.Fatalf("start %d: the client finds %s, want the server's %s", i+1, got, tf)
				}
				b, err := os.ReadFile(tf)
				if err != nil || strings.TrimSpace(string(b)) != s.Token() {
					t.Fatalf("start %d: token file %s: %q, %v", i+1, tf, b, err)
				}
				tokens = append(tokens, dir)
				s.Close()
			}
			if tokens[0] != tokens[1] {
				t.Errorf("second start used %s, not the first's %s", tokens[1], tokens[0])
			}
		}
		return
	}
	r := asuser.New(t)
	for _, st := range []struct {
		u    asuser.User
		step string
	}{{asuser.Bob, "squat"}, {asuser.Alice, "serve"}} {
		out, err := r.Run(st.u, "TestTokenDirectorySquatted", st.step, "SHARED="+r.SharedDir())
		if err != nil {
			t.Fatalf("%s: %s", st.step, asuser.Failed(out, err))
		}
		if !strings.Contains(out, "PASS") {
			t.Fatalf("the step %s did not run:\n%s", st.step, out)
		}
	}
}

// TestAnonymousPerLocalUser: on a server with -anonymous, Bob (a local
// user) opens as many slow-body requests as the server has slots; Alice,
// another local user, still gets an answer: anonymous callers are
// counted per local user, not as one identity.
func TestAnonymousPerLocalUser(t *testing.T) {
	const total = 8
	if step, ok := asuser.Step(); ok {
		switch step {
		case "hog":
			addr := os.Getenv("ADDR")
			for i := range total {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", remote.PathHost, addr); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			time.Sleep(2 * time.Minute) // until the parent kills it
		case "get":
			resp, err := http.Get(os.Getenv("URL") + remote.PathHost)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("Alice while Bob holds the slots: status %d: %s", resp.StatusCode, b)
			}
		}
		return
	}
	r := asuser.New(t)
	api, inHandler := drainingAPI()
	s := serve(t, Options{API: api, Anonymous: true, Limits: Limits{MaxConcurrent: total}})
	hog := r.Command(asuser.Bob, "TestAnonymousPerLocalUser", "hog", "ADDR="+s.Addr().String())
	var hogOut strings.Builder
	hog.Stdout, hog.Stderr = &hogOut, &hogOut
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hog.Process.Kill(); hog.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for inHandler.Load() < int32(s.limits.MaxPerIdentity) {
		if time.Now().After(deadline) {
			t.Fatalf("Bob's requests in the handler: %d, want %d\n%s", inHandler.Load(), s.limits.MaxPerIdentity, hogOut.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	out, err := r.Run(asuser.Alice, "TestAnonymousPerLocalUser", "get", "URL="+s.URL())
	if err != nil {
		t.Fatalf("Bob holds %d slots: %s", inHandler.Load(), asuser.Failed(out, err))
	}
	if !strings.Contains(out, "PASS") {
		t.Fatalf("the step did not run:\n%s", out)
	}
}

// TestRateLimitPerLocalUser: with rate_limit, failed attempts on loopback
// spend the bucket of the local user who made them (the uid the kernel
// gives the client's socket), not every local caller's: Bob guesses
// Alice's password until he is answered 429, and Alice, right after, gets
// in with hers. Before, loopback was one bucket and Bob locked her out.
func TestRateLimitPerLocalUser(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		url := os.Getenv("URL")
		switch step {
		case "guess":
			for i, want := range []int{401, 401, 429, 429} {
				a := do(t, http.DefaultClient, "GET", url+remote.PathHost, basicHeader("alice", fmt.Sprintf("guess %d", i)))
				checkError(t, a, want)
			}
		case "login":
			a := do(t, http.DefaultClient, "GET", url+remote.PathHost, basicHeader("alice", alicePass))
			if a.status != 200 {
				t.Fatalf("Alice after Bob's guesses: status %d: %s", a.status, a.body)
			}
		}
		return
	}
	r := asuser.New(t)
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), authYAML(t)+"rate_limit:\n  interval: 1h\n  burst: 2\n")})
	for _, st := range []struct {
		user asuser.User
		step string
	}{{asuser.Bob, "guess"}, {asuser.Alice, "login"}} {
		out, err := r.Run(st.user, "TestRateLimitPerLocalUser", st.step, "URL="+s.URL())
		if err != nil {
			t.Fatalf("%s: %s", st.step, asuser.Failed(out, err))
		}
		if !strings.Contains(out, "PASS") {
			t.Fatalf("%s: the step did not run:\n%s", st.step, out)
		}
	}
}
