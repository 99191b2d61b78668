package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failWriter fails every write with err: a disk that is full.
type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestExitCodes runs real command lines, several commands per class,
// and checks that each exits with its class's status (the numbers are
// written out here, as scripts and the man pages use them, not taken
// from exitcode.go's constants).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	// A state directory others may write to is not trusted: access denied,
	// for root too (the check is perfc's, not the kernel's).
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	// A computer of the hosts file whose server is not listening: a port
	// that was just free.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	hosts := filepath.Join(dir, "hosts.yml")
	if err := os.WriteFile(hosts, []byte(fmt.Sprintf("hosts:\n  lab: {url: 'http://%s'}\n", closed)), 0o600); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "exists.csv")
	if err := os.WriteFile(existing, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(stateDir string) func(string) string {
		return func(k string) string {
			switch k {
			case "PERFC_STATE_DIR":
				return stateDir
			case "PERFC_HOSTS":
				return hosts
			case "PERFC_WARNINGS":
				return "off"
			}
			return ""
		}
	}
	// One set exists for the "already exists" cases.
	if _, errs, code := runPerfcEnv(t, getenv(state), "logman", "create", "counter", "there", "-c", `\Memory\Available Bytes`); code != 0 {
		t.Fatalf("logman create: exit %d: %s", code, errs)
	}
	tests := []struct {
		class string
		want  int
		state string // PERFC_STATE_DIR; default: state
		full  bool   // standard output fails with ENOSPC
		args  []string
	}{
		{"usage", 2, "", false, []string{"nosuchcommand"}},
		{"usage", 2, "", false, []string{"typeperf", "-sc", "x"}},
		{"usage", 2, "", false, []string{"relog", "-nosuchoption"}},
		{"usage", 2, "", false, []string{"dump"}},
		{"usage", 2, "", false, []string{"version", "extra"}},
		{"usage", 2, "", false, []string{"logman", "service", "extra"}},
		{"usage", 2, "", false, []string{"lodctr", "/nosuch"}},
		{"usage", 2, "", false, []string{"logman", "create", "counter", "bad/name", "-c", `\Memory\Available Bytes`}},
		{"not found", 3, "", false, []string{"dump", filepath.Join(dir, "missing.bin")}},
		{"not found", 3, "", false, []string{"relog", filepath.Join(dir, "missing.csv"), "-q"}},
		{"not found", 3, "", false, []string{"logman", "query", "missing"}},
		{"not found", 3, "", false, []string{"logman", "stop", "missing"}},
		{"not found", 3, "", false, []string{"explain", "NoSuchObject"}},
		{"not found", 3, "", false, []string{"explain", `\Memory\No Such Counter`}},
		{"not found", 3, "", false, []string{"typeperf", `\NoSuchObject\x`, "-sc", "1"}},
		{"not found", 3, "", false, []string{"typeperf", "-s", "db9", `\Memory\Available Bytes`, "-sc", "1"}},
		{"not found", 3, "", false, []string{"unlodctr", "NoSuchProvider"}},
		{"not found", 3, "", false, []string{"unlodctr", "/v1:NoSuchProvider"}},
		{"access denied", 4, open, false, []string{"logman", "query"}},
		{"access denied", 4, open, false, []string{"lodctr", "/q"}},
		{"access denied", 4, open, false, []string{"logman", "create", "counter", "x", "-c", `\Memory\Available Bytes`}},
		{"already exists", 5, "", false, []string{"logman", "create", "counter", "there", "-c", `\Memory\Available Bytes`}},
		{"already exists", 5, "", false, []string{"logman", "import", "there", "-xml", "../../collectorset/testdata/windows-perf_log.xml"}},
		{"already exists", 5, "", false, []string{"typeperf", `\Memory\Available Bytes`, "-sc", "1", "-o", existing}},
		{"already exists", 5, "", false, []string{"typeperf", `\Memory\Available Bytes`, "-sc", "1", "-f", "bin", "-o", existing}},
		{"source unavailable", 6, "", false, []string{"typeperf", "-q", "-s", "lab"}},
		{"source unavailable", 6, "", false, []string{"typeperf", "-qx", "Memory", "-s", "lab"}},
		{"I/O", 7, "", true, []string{"typeperf", `\Memory\Available Bytes`, "-sc", "1"}},
		{"I/O", 7, "", true, []string{"query", "Counter"}},
		{"I/O", 7, "", true, []string{"explain", `\Memory\Available Bytes`}},
		{"I/O", 7, "", false, []string{"query", "Counter", "-o", "/dev/full"}},
	}
	for _, tt := range tests {
		t.Run(tt.class+"/"+strings.Join(tt.args, " "), func(t *testing.T) {
			if tt.args[len(tt.args)-1] == "/dev/full" {
				if _, err := os.Stat("/dev/full"); err != nil {
					t.Skip("no /dev/full")
				}
			}
			st := tt.state
			if st == "" {
				st = state
			}
			var o, e bytes.Buffer
			ev := &env{stdout: &o, stderr: &e, stdin: strings.NewReader(""), getenv: getenv(st)}
			if tt.full {
				ev.stdout = failWriter{syscall.ENOSPC}
			}
			code := run(context.Background(), tt.args, ev)
			if code != tt.want {
				t.Errorf("exit %d, want %d (%s)\nstderr: %s", code, tt.want, tt.class, e.String())
			}
		})
	}
}

// TestVersionSpellings: perfc version, --version, -version, -v and /v
// print the same, on standard output, exit 0.
func TestVersionSpellings(t *testing.T) {
	want, errs, code := runPerfc(t, "version")
	if code != 0 || errs != "" || !strings.HasPrefix(want, "perfc ") {
		t.Fatalf("perfc version: exit %d, %q, stderr %q", code, want, errs)
	}
	for _, s := range []string{"--version", "-version", "-v", "/v", "-V", "--VERSION"} {
		out, errs, code := runPerfc(t, s)
		if code != 0 || errs != "" || out != want {
			t.Errorf("perfc %s: exit %d, stderr %q, output %q, want %q", s, code, errs, out, want)
		}
	}
}
