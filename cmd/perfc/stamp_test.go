package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseStamp: a binary stamped as dist/build.sh stamps a release
// reports that version and commit everywhere: perfc version, perfc
// serve's /v1/host, and the build_info metric of the default and the
// windows_exporter profiles (issue 42: they said "(devel)" and "unknown"
// while perfc version printed the stamp). The one test that links a
// binary of its own: the stamp is set at link time.
func TestReleaseStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const ver, commit = "9.8.7-test", "0123456789abcdef0123456789abcdef01234567"
	dir := t.TempDir()
	bin := filepath.Join(dir, "perfc")
	v := "github.com/perfcounters/perfcounters/internal/version"
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X "+v+".version="+ver+" -X "+v+".commit="+commit+" -X "+v+".date=2026-12-07T00:00:00Z", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "perfc " + ver + " "; !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), "commit "+commit+" (2026-12-07T00:00:00Z)\n") {
		t.Errorf("perfc version:\n%s\nwant %q... and commit %s", out, want, commit)
	}
	wx := filepath.Join(dir, "wx.json")
	if err := os.WriteFile(wx, []byte(`{"profile":"windows_exporter"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		metric string
	}{
		{"default profile", nil, "perfc_exporter_build_info{"},
		{"windows_exporter profile", []string{"-metrics", wx}, "windows_exporter_build_info{"},
	} {
		url := serveBinary(t, bin, dir, tc.args...)
		body := httpGet(t, url+"/metrics")
		line := ""
		for l := range strings.Lines(body) {
			if strings.HasPrefix(l, tc.metric) {
				line = l
			}
		}
		if !strings.Contains(line, `version="`+ver+`"`) || !strings.Contains(line, `revision="`+commit+`"`) {
			t.Errorf("%s: build_info %q, want version %q and revision %q", tc.name, line, ver, commit)
		}
		var host struct{ Version string }
		if err := json.Unmarshal([]byte(httpGet(t, url+"/v1/host")), &host); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(host.Version, ver) {
			t.Errorf("%s: /v1/host version %q, want %q", tc.name, host.Version, ver)
		}
	}
}

// serveBinary runs bin serve on a free loopback port, anonymous, with
// state in dir, and returns its root URL; it stops when the test ends.
func serveBinary(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "-listen", "127.0.0.1:0", "-anonymous", "-nowarn"}, args...)...)
	cmd.Env = append(os.Environ(), "PERFC_STATE_DIR="+filepath.Join(dir, "state"), "XDG_RUNTIME_DIR="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatal("perfc serve printed nothing")
	}
	url, ok := strings.CutPrefix(sc.Text(), "perfc serve: listening on ")
	url, _, _ = strings.Cut(url, " ")
	if !ok {
		t.Fatalf("perfc serve's first line %q", sc.Text())
	}
	go io.Copy(io.Discard, stdout)
	return url
}

// httpGet is the body of a GET of url that must answer 200.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, b)
	}
	return string(b)
}
