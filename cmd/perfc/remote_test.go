package main

import (
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// fixtureAvailableBytes is MemAvailable of the fixture host's meminfo
// (24425904 kB), in bytes: what `\Memory\Available Bytes` reads there.
const fixtureAvailableBytes = "25012125696.000000"

// remoteEnv serves the fixture host (system/testdata/host) with perfc
// serve's handler over HTTP/2 and TLS, and returns an environment whose
// hosts file names it "served", names "down" at an address where nothing
// listens, and whose state directory is fresh.
func remoteEnv(t *testing.T) func(string) string {
	t.Helper()
	root := filepath.Join("..", "..", "system", "testdata", "host")
	h, err := host.New(host.Options{ProcRoot: filepath.Join(root, "proc"), SysRoot: filepath.Join(root, "sys"), StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	const token = "cmd-test-token"
	hd := remotetest.NewHandler(h, apiserver.Options{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+token {
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "test"))
		}
		hd.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := ln.Addr().String()
	ln.Close()
	hostsFile := filepath.Join(dir, "hosts.yml")
	text := fmt.Sprintf("hosts:\n  served: {url: %q, bearer_token: %s, tls_config: {ca_file: ca.pem}, timeout: 20s}\n  down: {url: 'https://%s', tls_config: {ca_file: ca.pem}, timeout: 1s}\n",
		srv.URL, token, downAddr)
	if err := os.WriteFile(hostsFile, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	return func(k string) string {
		switch k {
		case "PERFC_STATE_DIR":
			return state
		case remote.EnvHosts:
			return hostsFile
		}
		return ""
	}
}

// TestTypeperfRemoteHosts: typeperf reads a served computer named in a
// path or with -s beside this computer's counters; its column carries the
// name as written; a computer the hosts file does not name is an error
// saying how to add it.
func TestTypeperfRemoteHosts(t *testing.T) {
	getenv := remoteEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		cols []string
	}{
		{"path", []string{`\\served\Memory\Available Bytes`, `\Memory\Available Bytes`},
			[]string{`"\\served\Memory\Available Bytes"`, `\Memory\Available Bytes"`}},
		{"-s", []string{`\Memory\Available Bytes`, "-s", "served"}, []string{`"\\served\Memory\Available Bytes"`}},
		{"-s with a local path", []string{`\\localhost\Memory\Available Bytes`, `\Memory\Available Bytes`, "/s", `\\served`},
			[]string{`"\\` + host.ComputerName() + `\Memory\Available Bytes"`, `"\\served\Memory\Available Bytes"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runPerfcEnv(t, getenv, append([]string{"typeperf", "-sc", "1"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) < 2 {
				t.Fatalf("output %q", out)
			}
			for _, c := range tc.cols {
				if !strings.Contains(lines[0], c) {
					t.Errorf("header %s lacks %s", lines[0], c)
				}
			}
			if !strings.Contains(lines[1], `"`+fixtureAvailableBytes+`"`) {
				t.Errorf("row %s lacks the served host's %s", lines[1], fixtureAvailableBytes)
			}
		})
	}
	_, errs, code := runPerfcEnv(t, getenv, "typeperf", "-sc", "1", `\\nothere\Memory\Available Bytes`)
	if code == 0 || !strings.Contains(errs, "computer nothere: not in the hosts file") || !strings.Contains(errs, "https://nothere:9641") {
		t.Errorf("an unknown computer: exit %d, %q", code, errs)
	}
}

// TestTypeperfHostDown: a computer of the hosts file that does not answer
// costs only its column (" " in every row) and one warning naming it;
// this computer's column has its values.
func TestTypeperfHostDown(t *testing.T) {
	getenv := remoteEnv(t)
	out, errs, code := runPerfcEnv(t, getenv, "typeperf", "-sc", "2", `\\down\Memory\Available Bytes`, `\Memory\Available Bytes`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], `"\\down\Memory\Available Bytes"`) {
		t.Fatalf("output %q", out)
	}
	for _, row := range lines[1:3] {
		cells := strings.Split(row, `","`)
		if len(cells) != 3 || cells[1] != " " || strings.TrimSuffix(cells[2], `"`) == " " {
			t.Errorf("row %s: want no data for down and a value for this computer", row)
		}
	}
	if n := strings.Count(errs, "down:"); n != 1 {
		t.Errorf("stderr names the down host %d times, want once: %q", n, errs)
	}
}

// TestQueryForeign: `perfc query Foreign served 4` writes the served
// host's block of Memory (its own system name kept, as the registry's
// Foreign answer is that computer's block).
func TestQueryForeign(t *testing.T) {
	getenv := remoteEnv(t)
	out := filepath.Join(t.TempDir(), "foreign.bin")
	_, errs, code := runPerfcEnv(t, getenv, "query", "Foreign", "served", "4", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := blk.Object(4); !ok || blk.NumObjects() != 1 {
		t.Errorf("block of %d objects, want Memory (4) alone", blk.NumObjects())
	}
	_, errs, code = runPerfcEnv(t, getenv, "query", "Foreign", "nothere", "4", "-o", out)
	if code == 0 || !strings.Contains(errs, "not in the hosts file") {
		t.Errorf("Foreign of an unknown computer: exit %d, %q", code, errs)
	}
}

// TestRelogHasNoS: relog -s says what to do instead, as Windows' relog
// has no -s.
func TestRelogHasNoS(t *testing.T) {
	_, errs, code := runPerfc(t, "relog", "in.plog", "-s", "db7")
	if code != 2 || !strings.Contains(errs, "relog has no -s") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// TestTypeperfRemoteLog: typeperf -f BIN records a served computer beside
// this one, and relog reads both back, each computer's column by its
// name; relog -c \\served\... keeps the served computer's alone.
func TestTypeperfRemoteLog(t *testing.T) {
	getenv := remoteEnv(t)
	log := filepath.Join(t.TempDir(), "two.plog")
	_, errs, code := runPerfcEnv(t, getenv, "typeperf", "-sc", "2", "-f", "BIN", "-o", log,
		`\\served\Memory\Available Bytes`, `\Memory\Available Bytes`)
	if code != 0 {
		t.Fatalf("typeperf: exit %d: %s", code, errs)
	}
	for _, tc := range []struct {
		args []string
		cols []string
	}{
		{nil, []string{`\\served\Memory\Available Bytes`, `\\` + host.ComputerName() + `\Memory\Available Bytes`}},
		{[]string{"-c", `\\served\Memory\Available Bytes`}, []string{`\\served\Memory\Available Bytes`}},
	} {
		out, errs, code := runPerfcEnv(t, getenv, append([]string{"relog", log, "-f", "CSV"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("relog %q: exit %d: %s", tc.args, code, errs)
		}
		header, rest, _ := strings.Cut(out, "\n")
		if n := strings.Count(header, `","`); n != len(tc.cols) {
			t.Errorf("relog %q: header %s: %d columns, want %d", tc.args, header, n, len(tc.cols))
		}
		for _, c := range tc.cols {
			if !strings.Contains(strings.ToLower(header), strings.ToLower(c)) {
				t.Errorf("relog %q: header %s lacks %s", tc.args, header, c)
			}
		}
		if !strings.Contains(rest, fixtureAvailableBytes[:11]) {
			t.Errorf("relog %q: rows %q lack the served value", tc.args, rest)
		}
	}
}

// TestLogmanRemoteComputer: a set created with -s records the served
// computer's counters, and this computer's that it names, through the
// collector logman start runs with the hosts file of its user; query
// shows the computer; start, stop, query and delete with -s another
// computer are refused, saying what -s does instead.
func TestLogmanRemoteComputer(t *testing.T) {
	getenv := remoteEnv(t)
	// The collector logman start runs (this test binary, see TestMain)
	// reads the process's environment.
	t.Setenv("PERFC_STATE_DIR", getenv("PERFC_STATE_DIR"))
	t.Setenv(remote.EnvHosts, getenv(remote.EnvHosts))
	t.Setenv("PERFC_WARNINGS", "off")
	logman := func(args ...string) (string, string, int) {
		t.Helper()
		return runPerfcEnv(t, os.Getenv, append([]string{"logman"}, args...)...)
	}
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := logman(args...)
		if code != 0 {
			t.Fatalf("logman %s: exit %d: %s%s", strings.Join(args, " "), code, out, errs)
		}
		return out
	}
	logs := t.TempDir()
	must("create", "counter", "fleet", "-s", "served", "-c", `\Memory\Available Bytes`, `\\localhost\Memory\Available Bytes`,
		"-si", "1", "-f", "csv", "-o", filepath.Join(logs, "fleet"))
	if out := must("query", "fleet"); !regexp.MustCompile(`(?m)^Server: +served$`).MatchString(out) {
		t.Errorf("query fleet does not show the computer:\n%s", out)
	}
	must("start", "fleet")
	stopped := false
	defer func() {
		if !stopped {
			logman("stop", "fleet")
		}
	}()
	csv := filepath.Join(logs, "fleet.csv")
	waitFor(t, "two rows", time.Minute, func() bool {
		b, err := os.ReadFile(csv)
		return err == nil && strings.Count(string(b), "\n") >= 3
	})
	must("stop", "fleet")
	stopped = true
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	header, rows, _ := strings.Cut(string(b), "\n")
	for _, col := range []string{`"\\served\Memory\Available Bytes"`, `"\\` + strings.ToLower(host.ComputerName()) + `\memory\available bytes"`} {
		if !strings.Contains(strings.ToLower(header), strings.ToLower(col)) {
			t.Errorf("header %s lacks %s", header, col)
		}
	}
	if served := strings.TrimSuffix(fixtureAvailableBytes, ".000000"); !strings.Contains(rows, `"`+served+`"`) {
		t.Errorf("rows lack the served computer's %s:\n%s", served, rows)
	}
	for _, verb := range []string{"start", "stop", "query", "delete"} {
		_, errs, code := logman(verb, "fleet", "-s", "web1")
		if code == 0 || !strings.Contains(errs, "-s web1: managing sets on another computer is not built; -s on create/update names the computer to record") {
			t.Errorf("%s -s web1: exit %d, %q", verb, code, errs)
		}
	}
}
