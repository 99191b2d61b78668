package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/server"
)

// startServe runs perfc serve in-process on a free loopback port with
// getenv, and returns its root URL; it stops when the test ends.
func startServe(t *testing.T, getenv func(string) string, args ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	var eb strings.Builder
	errs := &syncWriter{w: &eb}
	done := make(chan int, 1)
	go func() {
		code := run(ctx, append([]string{"serve", "-listen", "127.0.0.1:0", "-nowarn", "-nometrics"}, args...),
			&env{stdout: pw, stderr: errs, stdin: strings.NewReader(""), getenv: getenv})
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		cancel()
		code := <-done
		errs.mu.Lock()
		defer errs.mu.Unlock()
		t.Fatalf("perfc serve printed nothing: %s (exit %d)", eb.String(), code)
	}
	url, ok := strings.CutPrefix(sc.Text(), "perfc serve: listening on ")
	url, _, _ = strings.Cut(url, " ")
	if !ok {
		cancel()
		t.Fatalf("perfc serve's first line %q", sc.Text())
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("perfc serve: exit %d: %s", code, eb.String())
		}
	})
	return url
}

// testEnv is an environment with its own state and runtime directories.
func testEnv(t *testing.T) (getenv func(string) string, rundir string) {
	state, rundir := t.TempDir(), t.TempDir()
	return func(k string) string {
		switch k {
		case "PERFC_STATE_DIR":
			return state
		case "XDG_RUNTIME_DIR":
			return rundir
		case "PERFC_HOSTS":
			return filepath.Join(rundir, "no-hosts.yml")
		}
		return ""
	}, rundir
}

// TestPerfmonUsesServe: perfc perfmon -serve PORT prints the page of
// that running perfc serve with its key (read from its token file) and
// exits; the address opens the page and its API as the token's holder.
// A token file others could read, a server without a page and a port
// nothing serves are refused with what is wrong.
func TestPerfmonUsesServe(t *testing.T) {
	getenv, rundir := testEnv(t)
	base := startServe(t, getenv)
	port := base[strings.LastIndex(base, ":")+1:]
	tf := filepath.Join(rundir, "perfc", "serve-"+port+".token")
	tok, err := os.ReadFile(tf)
	if err != nil {
		t.Fatalf("perfc serve's token file: %v", err)
	}
	perfmon := func(args ...string) (string, string, int) {
		var out, errs bytes.Buffer
		code := run(context.Background(), append([]string{"perfmon", "-noopen", "-nowarn"}, args...), &env{stdout: &out, stderr: &errs, stdin: strings.NewReader(""), getenv: getenv})
		return out.String(), errs.String(), code
	}
	out, errs, code := perfmon("-serve", port)
	m := regexp.MustCompile(`^Performance Monitor: (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{64})\n`).FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != base || m[2] != strings.TrimSpace(string(tok)) {
		t.Fatalf("perfmon -serve %s: exit %d, %q %s; want serve's page %s with its token", port, code, out, errs, base)
	}
	c, proof := openPage(t, base, m[1]+"/?token="+m[2])
	resp, err := withSession(c, proof, "GET", base+"/v1/host", nil)
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Who string }
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if resp.StatusCode != 200 || info.Who != "token:local" {
		t.Errorf("serve's API with the page's cookie: %d %+v", resp.StatusCode, info)
	}
	if resp, err := http.Get(base + "/"); err != nil || resp.StatusCode != 401 {
		t.Errorf("serve's page without credentials: %v %v, want 401", resp.StatusCode, err)
	}

	// Refusals.
	if err := os.Chmod(tf, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := perfmon("-serve", port); code != 1 || !strings.Contains(errs, "mode 0640") {
		t.Errorf("token file 0640: exit %d, %q; want 1 naming the mode", code, errs)
	}
	if err := os.Chmod(tf, 0o600); err != nil {
		t.Fatal(err)
	}
	noui := startServe(t, getenv, "-noui")
	if _, errs, code := perfmon("-serve", noui); code != 1 || !strings.Contains(errs, "serves no page") {
		t.Errorf("perfmon -serve of a server with -noui: exit %d, %q; want 1, no page", code, errs)
	}
	if out, errs, code := perfmon("-serve", "127.0.0.1:1"); code != 0 || !strings.HasPrefix(out, "Performance Monitor: http://127.0.0.1:1/\n") || !strings.Contains(out, "no token file") {
		t.Errorf("perfmon -serve of a port with no token file: exit %d, %q %q; want its page's address without a key", code, out, errs)
	}
	if err := os.WriteFile(filepath.Join(rundir, "perfc", "serve-1.token"), []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := perfmon("-serve", "127.0.0.1:1"); code != 6 || !strings.Contains(errs, "no perfc serve answers") {
		t.Errorf("perfmon -serve of a port nothing serves, with a token file: exit %d, %q; want 1", code, errs)
	}
	if _, errs, code := perfmon("-serve", port, "-addr", "127.0.0.1:0"); code != 2 || !strings.Contains(errs, "give one") {
		t.Errorf("perfmon -serve and -addr: exit %d, %q; want a usage error", code, errs)
	}
}

// TestPerfmonStaleServeToken: a token file of the default port whose
// server is gone (or is not the one that wrote it) is not used: perfmon
// serves the page itself.
func TestPerfmonStaleServeToken(t *testing.T) {
	getenv, _ := testEnv(t)
	tf := server.DefaultTokenFile(getenv, os.Geteuid(), "9641")
	if err := os.MkdirAll(filepath.Dir(tf), 0o700); err != nil {
		t.Fatal(err)
	}
	stale := strings.Repeat("ab", 32)
	if err := os.WriteFile(tf, []byte(stale+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var errs strings.Builder
	go func() {
		done <- run(ctx, []string{"perfmon", "-noopen", "-nowarn"}, &env{stdout: pw, stderr: &syncWriter{w: &errs}, stdin: strings.NewReader(""), getenv: getenv})
		pw.Close()
	}()
	first, _ := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errs.String())
	}
	m := regexp.MustCompile(`^Performance Monitor: http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})\n$`).FindStringSubmatch(first)
	if m == nil || m[2] == stale {
		t.Fatalf("with a stale token file: %q; want perfmon's own page with a key of its own", first)
	}
}

// TestReadOwnToken: only a regular file of this user, closed to others,
// is read as a server's token.
func TestReadOwnToken(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	tok := strings.Repeat("0f", 32)
	write := func(name string, mode os.FileMode, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("good", 0o600, tok+"\n")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard")
	if err := os.Link(write("linked", 0o600, tok), hard); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	inOpen := filepath.Join(open, "t")
	if err := os.WriteFile(inOpen, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, want string // want: the token, or a part of the error
	}{
		{"own, 0600", good, tok},
		{"group-readable", write("g", 0o640, tok), "mode 0640"},
		{"world-writable", write("w", 0o602, tok), "mode 0602"},
		{"a link", link, "symbolic link"},
		{"a directory", dir, "not a regular file"},
		{"empty", write("e", 0o600, "\n"), "not a token"},
		{"binary", write("b", 0o600, "a\x00b"), "not a token"},
		{"another file of ours (a key)", write("key", 0o600, "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"), "not a token"},
		{"without its line end", write("bare", 0o600, tok), ""},
		{"a second name", hard, "hard links"},
		{"in a directory others may change", inOpen, "directory"},
		{"missing", filepath.Join(dir, "none"), "no such file"},
	}
	if os.Geteuid() == 0 {
		other := write("other", 0o600, tok)
		if err := os.Chown(other, 61001, 61001); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, want string }{"another user's", other, "owned by uid 61001"})
	}
	for _, tc := range cases {
		got, err := readOwnToken(tc.path)
		if tc.want == tok || tc.want == "" {
			if err != nil || got != tok {
				t.Errorf("%s: %q, %v; want the token", tc.name, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q, %v; want an error with %q", tc.name, got, err, tc.want)
		}
	}
}

func TestServeBase(t *testing.T) {
	for in, want := range map[string]string{
		"9641":                 "http://127.0.0.1:9641",
		"127.0.0.1:8000":       "http://127.0.0.1:8000",
		"localhost:8000":       "http://localhost:8000",
		":8000":                "http://127.0.0.1:8000",
		"db7:9641":             "https://db7:9641",
		"https://db7":          "https://db7:9641",
		"https://db7:443/":     "https://db7:443",
		"http://127.0.0.1:1/x": "",
		"https://u@db7":        "",
		"db7":                  "",
		"0":                    "",
		"127.0.0.1:99999":      "",
	} {
		got, err := serveBase(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("serveBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestServeRemoteComputers: two perfc serve processes' worth of servers
// in-process: near reads far through its hosts file (-hosts) for its
// callers: /v1/host lists far, and \\far paths of /v1/formatted have
// far's values beside near's own.
func TestServeRemoteComputers(t *testing.T) {
	getenv, rundir := testEnv(t)
	farURL := startServe(t, getenv)
	farPort := farURL[strings.LastIndex(farURL, ":")+1:]
	hostsFile := filepath.Join(rundir, "hosts.yml")
	yml := "hosts:\n  far:\n    url: " + farURL + "\n    bearer_token_file: " +
		filepath.Join(rundir, "perfc", "serve-"+farPort+".token") + "\n    timeout: 5s\n"
	if err := os.WriteFile(hostsFile, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	nearURL := startServe(t, getenv, "-hosts", hostsFile)
	nearTok, err := readOwnToken(filepath.Join(rundir, "perfc", "serve-"+nearURL[strings.LastIndex(nearURL, ":")+1:]+".token"))
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string, v any) {
		t.Helper()
		req, _ := http.NewRequest(method, nearURL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+nearTok)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || json.Unmarshal(b, v) != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
	}
	var info struct{ Computers []string }
	do("GET", "/v1/host", "", &info)
	if len(info.Computers) != 1 || info.Computers[0] != "far" {
		t.Errorf("near's /v1/host computers %q, want [far]", info.Computers)
	}
	var ans struct {
		Counters []struct {
			Path, Status string
			Items        []struct {
				Path  string
				Value *float64
			}
		}
	}
	do("POST", "/v1/formatted", `{"paths":["\\Memory\\Available Bytes","\\\\far\\Memory\\Available Bytes"]}`, &ans)
	if len(ans.Counters) != 2 {
		t.Fatalf("answer %+v", ans)
	}
	for i, want := range []string{`\Memory\Available Bytes`, `\\far\Memory\Available Bytes`} {
		c := ans.Counters[i]
		if c.Status != "PDH_CSTATUS_VALID_DATA" || len(c.Items) != 1 || c.Items[0].Path != want || c.Items[0].Value == nil || *c.Items[0].Value <= 0 {
			t.Errorf("counter %d: %+v, want a value of %s", i, c, want)
		}
	}
}
