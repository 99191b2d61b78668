package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/internal/server"
)

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"127.0.0.1:8080", true},
		{"127.1.2.3:8080", true},
		{"[::1]:0", true},
		{"localhost:9000", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"[::]:8080", false},
		{"192.168.1.1:80", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if err := checkLoopback(tt.addr); (err == nil) != tt.ok {
			t.Errorf("checkLoopback(%q) = %v, want ok=%v", tt.addr, err, tt.ok)
		}
	}
}

// startPerfmon runs perfc perfmon in-process and returns the page's
// base address, its key, and a function that stops it and returns its
// exit status.
func startPerfmon(t *testing.T) (base, key string, stop func() int) {
	t.Helper()
	state, rundir := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "PERFC_STATE_DIR":
			return state
		case "XDG_RUNTIME_DIR": // no perfc serve of the test's user here
			return rundir
		}
		return ""
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"perfmon", "-noopen", "-nowarn"}, &env{stdout: pw, stderr: &errb, stdin: strings.NewReader(""), getenv: getenv})
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err != nil {
		cancel()
		t.Fatalf("perfc perfmon printed %q: %v (stderr %s)", first, err, errb.String())
	}
	m := regexp.MustCompile(`^Performance Monitor: (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{64})\n$`).FindStringSubmatch(first)
	if m == nil {
		cancel()
		t.Fatalf("first line %q: want the page's address with its key", first)
	}
	var once bool
	var code int
	stop = func() int {
		if !once {
			once = true
			cancel()
			code = <-done
			if code != 0 {
				t.Errorf("perfc perfmon: exit %d: %s", code, errb.String())
			}
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return m[1], m[2], stop
}

// TestPerfmonOtherUser: another local user (Bob) reaches the loopback
// server of the user who started it (the test's user) but reads nothing
// without the key printed to that user; with the key he would (the control: the refusals are the
// key's doing, not an unreachable port).
func TestPerfmonOtherUser(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		perfmonUserStep(t, step)
		return
	}
	r := asuser.New(t)
	base, key, _ := startPerfmon(t)
	if out, err := r.Run(asuser.Bob, "TestPerfmonOtherUser", "bob", "PERFMON_BASE="+base, "PERFMON_KEY="+key); err != nil {
		t.Fatalf("bob: %s", asuser.Failed(out, err))
	}
}

// perfmonUserStep is Bob's part of TestPerfmonOtherUser.
func perfmonUserStep(t *testing.T, step string) {
	if step != "bob" || os.Getuid() != int(asuser.Bob.UID) {
		t.Fatalf("step %q as uid %d", step, os.Getuid())
	}
	base, key := os.Getenv("PERFMON_BASE"), os.Getenv("PERFMON_KEY")
	get := func(path, bearer string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatalf("bob: GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct{ path, bearer string }{
		{"/", ""}, {"/v1/host", ""}, {"/v1/objects", ""}, {"/app.js", ""},
		{"/?token=" + strings.Repeat("A", 43), ""},
		{"/v1/host", strings.Repeat("A", 43)},
		{"/v1/host", key[:63]},
	} {
		if got := get(c.path, c.bearer); got != http.StatusUnauthorized {
			t.Errorf("bob: GET %s (bearer %q): %d, want 401", c.path, c.bearer, got)
		}
	}
	if got := get("/v1/host", key); got != http.StatusOK {
		t.Errorf("bob with the key: GET /v1/host: %d, want 200 (the control)", got)
	}
}

// TestPerfmonCommand runs perfc perfmon over the live host: the printed
// address opens the page in a client with cookies, which then reads the
// API; a client without the key reads nothing; cancelling ends it with
// exit status 0.
func TestPerfmonCommand(t *testing.T) {
	base, key, stop := startPerfmon(t)
	c, proof := openPage(t, base, base+"/?token="+key)
	resp, err := withSession(c, proof, "GET", base+"/v1/host", nil)
	if err != nil {
		t.Fatal(err)
	}
	var hostAns struct{ Name, Role, Who string }
	json.NewDecoder(resp.Body).Decode(&hostAns)
	resp.Body.Close()
	if resp.StatusCode != 200 || hostAns.Name != host.ComputerName() || hostAns.Who != "token:local" {
		t.Errorf("/v1/host with the cookie: %d %+v, want 200 from %s as token:local", resp.StatusCode, hostAns, host.ComputerName())
	}
	resp, err = withSession(c, proof, "POST", base+"/v1/formatted", strings.NewReader(`{"paths":["\\Memory\\Available Bytes"]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"PDH_CSTATUS_VALID_DATA"`)) {
		t.Errorf("/v1/formatted with the cookie: %d %.200s", resp.StatusCode, body)
	}
	for _, path := range []string{"/", "/v1/host", "/app.js"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("%s without the key: %d, want 401", path, resp.StatusCode)
		}
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after cancel", code)
	}
}

// TestBrowserGetsNoKey: the browser launcher's command line, which every
// local user reads with ps, holds no key: it names a file of mode 0600 in
// a directory of mode 0700 that forwards to the page (issue 28, item 3).
func TestBrowserGetsNoKey(t *testing.T) {
	bin := t.TempDir()
	args := filepath.Join(bin, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + args + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	page := "http://127.0.0.1:9641/?token=" + key
	e := &env{getenv: func(k string) string {
		if k == "DISPLAY" {
			return ":0"
		}
		return ""
	}}
	cmd, dir, err := launchBrowser(e, page)
	if err != nil || cmd == nil {
		t.Fatalf("launchBrowser: %v, %v", cmd, err)
	}
	defer os.RemoveAll(dir)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(cmd.Args, " "), key) {
		t.Fatalf("the launcher's command line holds the key: %q", cmd.Args)
	}
	got, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	file := strings.TrimSpace(string(got))
	if strings.Contains(file, key) {
		t.Fatalf("xdg-open was given %q", file)
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %04o, want 0600", file, st.Mode().Perm())
	}
	if d, err := os.Stat(filepath.Dir(file)); err != nil || d.Mode().Perm() != 0o700 {
		t.Errorf("its directory: %v, %v; want mode 0700", d, err)
	}
	html, _ := os.ReadFile(file)
	if !strings.Contains(string(html), strconv.Quote(page)) {
		t.Errorf("the file does not forward to the page:\n%s", html)
	}
}

// openPage opens the page at url (its address with the token) as a
// browser does and returns the client, holding the session's cookie, and
// the session's proof; it checks that the page answered and that the
// cookie alone opens no data of the server at base.
func openPage(t *testing.T, base, url string) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	proof := resp.Request.URL.Query().Get(server.SessionParam)
	if resp.StatusCode != 200 || resp.Request.URL.Query().Get("token") != "" || proof == "" || !bytes.HasPrefix(page, []byte("<!doctype html>")) {
		t.Fatalf("opening %s: %d at %s: %.80q", url, resp.StatusCode, resp.Request.URL, page)
	}
	// The cookie alone opens no data (another port's listener may get
	// it): the page sends its proof with each request.
	if r, err := c.Get(base + "/v1/host"); err != nil || r.StatusCode != 401 {
		t.Errorf("/v1/host with the cookie and no proof: %v %v, want 401", r.StatusCode, err)
	} else {
		r.Body.Close()
	}
	return c, proof
}

// withSession sends a request as the page does after the token exchange:
// with its cookies (c's jar) and its proof of the session.
func withSession(c *http.Client, proof, method, url string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set(server.SessionHeader, proof)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.Do(req)
}
