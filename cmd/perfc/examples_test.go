package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/pgtest"
)

// An example is one command of the documentation as a person pastes it
// into a shell: a line of a ```sh block of README.md or docs/*.md (or of
// another document beside the code), its continuation lines joined, or a
// command of a help screen's Examples.
type example struct {
	where string // file:line, or help-NAME
	text  string
}

// docBlocks returns the shell blocks of a Markdown file that run perfc:
// each block's commands, in order (comments and blank lines dropped,
// lines ending in '\' joined with the next). A synopsis (`perfc serve
// [-listen <host:port>] ...`) is not an example and is left out.
func docBlocks(t *testing.T, path string) [][]example {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]example
	var cur []example
	in, pending, start := false, "", 0
	for i, line := range strings.Split(string(data), "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") {
			if in && len(cur) > 0 && runsPerfc(cur) {
				blocks = append(blocks, cur)
			}
			in, cur, pending = !in, nil, ""
			continue
		}
		if !in || (pending == "" && (trim == "" || strings.HasPrefix(trim, "#"))) {
			continue
		}
		if pending == "" {
			start = i + 1
		}
		if strings.HasSuffix(trim, `\`) {
			pending += strings.TrimSuffix(trim, `\`) + " "
			continue
		}
		text := pending + trim
		pending = ""
		if strings.Contains(text, " [-") && strings.Contains(text, "<") {
			continue // a synopsis
		}
		if !looksLikeCommand(text) {
			continue
		}
		cur = append(cur, example{where: fmt.Sprintf("%s:%d", path, start), text: text})
	}
	return blocks
}

var commandStart = regexp.MustCompile(`^((\./)?(perfc|go|curl|for|export|source|jq|cd|mkdir|cp) |[A-Za-z_][A-Za-z0-9_]*=)`)

func looksLikeCommand(s string) bool { return commandStart.MatchString(s) }

func runsPerfc(b []example) bool {
	for _, e := range b {
		if strings.Contains(e.text, "perfc") {
			return true
		}
	}
	return false
}

// helpExamples returns the commands of a help screen's Examples section,
// as its golden file holds the screen.
func helpExamples(t *testing.T, name string) []example {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "help-"+name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	_, ex, ok := strings.Cut(string(data), "\nExamples:\n")
	if !ok {
		return nil
	}
	for _, line := range strings.Split(ex, "\n") {
		if s := strings.TrimSpace(line); s != "" && strings.HasPrefix(line, "    ") {
			out = append(out, example{where: "help-" + name, text: s})
		}
	}
	return out
}

// sandbox is the world examples run in: a working directory that looks
// like a clone (go.mod and every top-level directory of the repository,
// linked), a home, state and runtime directories of its own, perfc on
// PATH, and `go run|build|install ./cmd/perfc` answered with the binary
// the test built from this tree (BASH_ENV defines a go function that
// hands every other go command to the real one).
type sandbox struct {
	t       *testing.T
	dir     string
	env     []string
	servers []running // still running: perfc serve, perfmon, jobs started with &
	// ports maps the fixed ports the documents name (perfc serve's
	// default 9641, perfmon's -serve 9700, the example HTTP server's
	// 8080) to free ports of this
	// sandbox, so that two runs of the test, or another program on the
	// machine, never contend for them (see localize).
	ports map[string]string
}

// freePort returns a port of 127.0.0.1 that nothing listens on now (the
// kernel's choice for port 0).
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// localize is an example as the sandbox runs it: the fixed ports the
// documents name replaced by the sandbox's own, and the commands that
// listen on a default port (perfc serve without -listen, the example
// HTTP server without -addr) told the sandbox's port for it. Nothing
// else of the example changes.
func (s *sandbox) localize(text string) string {
	for from, to := range s.ports {
		text = strings.ReplaceAll(text, from, to)
	}
	lower := strings.ToLower(text)
	switch {
	case startsServe(text) && !strings.Contains(lower, "listen"):
		text = strings.Replace(text, " serve", " serve -listen 127.0.0.1:"+s.ports["9641"], 1)
	case strings.Contains(text, "go run ./examples/httpserver") && !strings.Contains(text, "-addr"):
		text = strings.Replace(text, "go run ./examples/httpserver", "go run ./examples/httpserver -addr 127.0.0.1:"+s.ports["8080"], 1)
	}
	return text
}

// running is a command of an example that is still running.
type running struct {
	cmd  *exec.Cmd
	done chan error
	out  *syncBuffer
	ex   example
}

// syncBuffer is a command's output, read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newSandbox(t *testing.T, bin string) *sandbox {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// A directory with a name a Go package may have (ctrpp derives its
	// package from it).
	dir := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !e.IsDir() && n != "go.mod" && n != "go.sum" {
			continue
		}
		if e.IsDir() {
			if err := os.Symlink(filepath.Join(root, n), filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		copyFile(t, filepath.Join(root, n), filepath.Join(dir, n), 0o644)
	}
	home := filepath.Join(dir, ".home")
	binDir := filepath.Join(dir, ".bin")
	run := filepath.Join(dir, ".run")
	for _, d := range []string{home, binDir, run, filepath.Join(home, ".config", "perfc")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, bin, filepath.Join(binDir, "perfc"), 0o755)
	copyFile(t, bin, filepath.Join(dir, "perfc"), 0o755) // README's build step, done
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	goEnv := func(k string) string {
		out, err := exec.Command(goBin, "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	prelude := filepath.Join(dir, ".prelude.sh")
	script := `go() {
	case "$1 $2 $3 $4" in
	"run ./cmd/perfc "*) shift 2; perfc "$@" ;;
	"build -o perfc ./cmd/perfc") cp "$PERFC_BUILT" perfc ;;
	"install ./cmd/perfc "*|"install ./cmd/perfc") mkdir -p "$GOPATH/bin" && cp "$PERFC_BUILT" "$GOPATH/bin/perfc" ;;
	*) command go "$@" ;;
	esac
}
`
	if err := os.WriteFile(prelude, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &sandbox{t: t, dir: dir, ports: map[string]string{"9641": freePort(t), "9700": freePort(t), "8080": freePort(t)}}
	s.env = []string{
		"PATH=" + binDir + ":" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"XDG_RUNTIME_DIR=" + run,
		"PERFC_STATE_DIR=" + filepath.Join(dir, ".state"),
		"PERFC_SYSTEM_STATE_DIR=" + filepath.Join(dir, ".system-state"),
		"PERFC_LOG_DIR=" + filepath.Join(dir, ".logs"),
		"PERFC_SHM_DIR=" + shmDir(t),
		"PERFC_BUILT=" + bin,
		"BASH_ENV=" + prelude,
		"GOPATH=" + filepath.Join(home, "go"),
		"GOCACHE=" + goEnv("GOCACHE"),
		"GOMODCACHE=" + goEnv("GOMODCACHE"),
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
		"TZ=UTC",
		"LANG=C.UTF-8",
		"DISPLAY=", // perfmon opens no browser
	}
	t.Cleanup(s.stopAll)
	return s
}

// shmDir is a directory of the test's own for provider segments (a tmpfs
// where there is one), so that an example's provider is seen only by the
// examples.
func shmDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "perfc-examples-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// setenv sets a variable for the following examples.
func (s *sandbox) setenv(k, v string) {
	for i, kv := range s.env {
		if strings.HasPrefix(kv, k+"=") {
			s.env[i] = k + "=" + v
			return
		}
	}
	s.env = append(s.env, k+"="+v)
}

// settle is how long a command may run before it counts as one that
// runs until it is stopped (typeperf without -sc, a server); it is
// stopped with CTRL+C (SIGINT) and must then end successfully. A command
// whose output shows it at work (shown) is taken as such sooner.
const settle = 4 * time.Second

// shown reports whether a command still running has shown what a person
// waits for before pressing CTRL+C or going on: a typeperf its header and
// a first sample (two lines), a server or perfmon its first line (where
// it listens, its URL), whether run as perfc, ./perfc or go run
// ./cmd/perfc. Anything else, and a command that prints nothing
// (typeperf -o FILE), runs for settle.
func shown(text, out string) bool {
	var sub string
	f := strings.Fields(text)
	for i := 0; i+1 < len(f); i++ {
		if filepath.Base(f[i]) == "perfc" {
			sub = f[i+1]
			break
		}
	}
	lines := strings.Count(out, "\n")
	switch sub {
	case "typeperf":
		return lines >= 2
	case "serve", "perfmon":
		// perfmon /report ends by itself, after its -duration
		return lines >= 1 && !strings.Contains(strings.ToLower(text), "report")
	}
	return false
}

// keepsRunning reports whether a command that is still running after
// settle serves others until stopped (perfc serve, perfc perfmon, a
// program started with &): it keeps running, as in another terminal,
// while the next commands of its block run, until the block ends.
func keepsRunning(text string) bool {
	f := strings.Fields(text)
	if strings.HasSuffix(text, "&") {
		return true
	}
	return len(f) > 1 && (f[1] == "serve" || f[1] == "perfmon")
}

// startsServe reports whether a command is a perfc serve, which needs the
// port of the one before it.
func startsServe(text string) bool {
	f := strings.Fields(text)
	return len(f) > 1 && f[1] == "serve"
}

var perfmonServe = regexp.MustCompile(`perfmon .*-serve (\d+)`)

// serveFor starts the perfc serve an example's `perfmon -serve PORT`
// presupposes, unless one of the sandbox's own runs there (its token
// file exists).
func (s *sandbox) serveFor(e example) {
	m := perfmonServe.FindStringSubmatch(e.text)
	if m == nil {
		return
	}
	tok := filepath.Join(s.dir, ".run", "perfc", "serve-"+m[1]+".token")
	if _, err := os.Stat(tok); err == nil {
		return
	}
	s.run(example{where: e.where + " (the server it names)", text: "perfc serve -listen 127.0.0.1:" + m[1]})
	waitFor(s.t, "the token file of perfc serve at "+m[1], 30*time.Second, func() bool { _, err := os.Stat(tok); return err == nil })
}

// isScript reports whether a block keeps shell state from one line to the
// next (cd, a variable): a person pastes it into one shell, and so it runs
// as one bash script that stops at the first failing command.
func isScript(b []example) bool {
	for _, e := range b {
		if strings.HasPrefix(e.text, "cd ") || shellAssign.MatchString(e.text) {
			return true
		}
	}
	return false
}

var shellAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// runScript runs a block as one bash script (set -e).
func (s *sandbox) runScript(b []example) {
	s.t.Helper()
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, e := range b {
		if hb := historyBang(e.text); hb != "" {
			s.t.Errorf("%s: %s: an interactive bash expands %q as history (quote it with single quotes)", e.where, e.text, hb)
		}
		script.WriteString(s.localize(e.text) + "\n")
	}
	cmd := exec.Command("bash", "--norc", "-c", script.String())
	cmd.Dir, cmd.Env = s.dir, s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Errorf("%s: the block from here, as one script: %v\n%s\n%s", b[0].where, err, script.String(), out)
	}
}

// historyBang returns the part of a command that an interactive bash
// would take for a history expansion (a '!' outside single quotes, not
// followed by a blank, '=' or '('), or "" when there is none: pasted into
// a terminal such a command fails ("event not found") or runs another.
func historyBang(cmd string) string {
	single, double := false, false
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == '\\' && !single && i+1 < len(cmd):
			i++
		case c == '\'' && !double:
			single = !single
		case c == '"' && !single:
			double = !double
		case c == '!' && !single && i+1 < len(cmd) && !strings.ContainsRune(" \t=(\"", rune(cmd[i+1])):
			return cmd[max(0, i-10):min(len(cmd), i+10)]
		}
	}
	return ""
}

// run runs one example with bash as a person would type it.
func (s *sandbox) run(e example) {
	s.t.Helper()
	if b := historyBang(e.text); b != "" {
		s.t.Errorf("%s: %s: an interactive bash expands %q as history (quote it with single quotes)", e.where, e.text, b)
	}
	e.text = s.localize(e.text)
	if startsServe(e.text) {
		s.stopServers(e)
	}
	s.serveFor(e)
	text := strings.TrimSuffix(strings.TrimSpace(e.text), "&")
	if strings.HasPrefix(text, "export ") {
		// An export holds for the commands after it, as in one shell.
		kv := strings.TrimPrefix(text, "export ")
		k, v, _ := strings.Cut(kv, "=")
		out, err := exec.Command("bash", "--norc", "-c", "printf %s "+v).Output()
		if err != nil {
			s.t.Fatalf("%s: %s: %v", e.where, text, err)
		}
		s.setenv(k, string(out))
		return
	}
	cmd := exec.Command("bash", "--norc", "-c", text)
	cmd.Dir = s.dir
	cmd.Env = s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	r := running{cmd: cmd, done: done, out: out, ex: e}
	if strings.HasSuffix(strings.TrimSpace(e.text), "&") {
		// A job started with & is used by the next commands once it is
		// up, which a person sees by its first line ("listening on ..."):
		// go run may first compile it.
		deadline := time.Now().Add(2 * time.Minute)
		for out.String() == "" && time.Now().Before(deadline) && len(done) == 0 {
			time.Sleep(20 * time.Millisecond) // polling for its first line
		}
		select {
		case err := <-done:
			s.t.Errorf("%s: %s: ended at once: %v\n%s", e.where, e.text, err, out.String())
		default:
			s.servers = append(s.servers, r)
		}
		return
	}
	deadline := time.After(settle)
	poll := time.NewTicker(20 * time.Millisecond) // for its output to show it at work
	defer poll.Stop()
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				s.t.Errorf("%s: %s\n%v\n%s", e.where, e.text, err, out.String())
			}
			return
		case <-deadline:
			break wait
		case <-poll.C:
			if shown(text, out.String()) {
				break wait
			}
		}
	}
	if keepsRunning(e.text) {
		s.servers = append(s.servers, r)
		return
	}
	s.interrupt(r)
}

// interrupt stops a command with SIGINT (CTRL+C) and checks that it ends
// successfully within a bound.
func (s *sandbox) interrupt(r running) {
	s.t.Helper()
	e := r.ex
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT)
	select {
	case err := <-r.done:
		// A job started with & is not stopped by CTRL+C in a shell (the
		// person kills it): its end is not the example's.
		if err != nil && !strings.HasSuffix(strings.TrimSpace(e.text), "&") {
			s.t.Errorf("%s: %s: stopped with CTRL+C: %v\n%s", e.where, e.text, err, r.out.String())
		}
	case <-time.After(30 * time.Second):
		syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
		s.t.Errorf("%s: %s: still running 30 s after CTRL+C\n%s", e.where, e.text, r.out.String())
	}
}

// stopServers stops the servers still running (before e, or at the end).
func (s *sandbox) stopServers(example) {
	for _, r := range s.servers {
		s.interrupt(r)
	}
	s.servers = nil
}

// stopAll stops servers and every collector set the examples started.
func (s *sandbox) stopAll() {
	s.stopServers(example{})
	for _, state := range []string{".state", ".system-state"} {
		sets, _ := filepath.Glob(filepath.Join(s.dir, state, "sets", "*"))
		for _, f := range sets {
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			cmd := exec.Command(filepath.Join(s.dir, ".bin", "perfc"), "logman", "stop", name)
			cmd.Env, cmd.Dir = s.env, s.dir
			cmd.Run()
		}
	}
}

// serveDB7 starts a perfc serve of its own on a loopback port and names
// it db7 and web1 in the sandbox's hosts file, as the remote examples
// presuppose computers of those names.
func (s *sandbox) serveDB7(bin string) {
	t := s.t
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tok := filepath.Join(s.dir, ".db7.token")
	cmd := exec.Command(bin, "serve", "-listen", addr, "-tokenfile", tok, "-nowarn", "-noui")
	cmd.Env = append(os.Environ(), "PERFC_STATE_DIR="+filepath.Join(s.dir, ".db7-state"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	waitFor(t, "db7's token file", 30*time.Second, func() bool { _, err := os.Stat(tok); return err == nil })
	hosts := fmt.Sprintf("hosts:\n  db7: {url: 'http://%s', bearer_token_file: %s}\n  web1: {url: 'http://%s', bearer_token_file: %s}\n", addr, tok, addr, tok)
	if err := os.WriteFile(filepath.Join(s.dir, ".home", ".config", "perfc", "hosts.yml"), []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
}

// webConfig writes web-config.yml: a self-signed certificate and a user,
// for `perfc serve -listen :9641 -config web-config.yml`.
func (s *sandbox) webConfig() {
	t := s.t
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.dir, "web.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(filepath.Join(s.dir, "web.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	const token = "a-token-for-the-examples-0123456789abcdef"
	sum := sha256.Sum256([]byte(token))
	cfg := "tls_server_config:\n  cert_file: web.crt\n  key_file: web.key\nperfc:\n  bearer_tokens:\n    ops: {sha256: " + hex.EncodeToString(sum[:]) + "}\n"
	if err := os.WriteFile(filepath.Join(s.dir, "web-config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDocExamples is issue 33's "every command example in README, docs
// and help screens is run by a test from the text itself": each block of
// each document, and each help screen's examples, run in a sandbox in
// order, each command by bash as written but for the fixed ports it names,
// which are the sandbox's own free ones (sandbox.localize), so that two
// runs at once never contend; and each must succeed (exit 0;
// one that runs until stopped must stop cleanly on CTRL+C). What the
// examples' words presuppose is provided: the computers db7 and web1 of a
// hosts file, web-config.yml, PostgreSQL's connection (libpq's PG*
// variables) where the test database runs, input files the help screens
// name (counters.txt, x.bin, logfile.bin, ru.csv, SampleLog.blg,
// counters.man).
func TestDocExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	bin := buildPerfc(t)
	docs := []string{"../../README.md"}
	more, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, more...)
	for _, pattern := range []string{"../../*/*.md", "../../*/*/*.md"} {
		m, _ := filepath.Glob(pattern)
		for _, f := range m {
			if !strings.Contains(f, "/docs/") && !strings.Contains(f, "/bench/") && !strings.Contains(f, "/testdata/") {
				docs = append(docs, f)
			}
		}
	}
	for _, doc := range docs {
		blocks := docBlocks(t, doc)
		if len(blocks) == 0 {
			continue
		}
		// One sandbox per document: a person follows it from the top.
		t.Run(strings.TrimPrefix(doc, "../../"), func(t *testing.T) {
			s := newSandbox(t, bin)
			all := slices.Concat(blocks...)
			if blockUses(all, "db7", "web1") {
				s.serveDB7(bin)
			}
			if blockUses(all, "web-config.yml") {
				s.webConfig()
			}
			if blockUses(all, "otlp-headers") {
				os.WriteFile(filepath.Join(s.dir, ".home", ".config", "perfc", "otlp-headers"), []byte("authorization=Bearer%20x\n"), 0o600)
			}
			if blockUses(all, "postgres:") {
				if !pgtest.Available(t) {
					return
				}
				s.postgres(t)
			}
			for _, block := range blocks {
				if isScript(block) {
					s.runScript(block)
					continue
				}
				for _, e := range block {
					s.run(e)
				}
				s.stopServers(example{})
			}
			s.stopAll()
		})
	}
	for _, name := range []string{"typeperf", "relog", "logman", "query", "dump", "ctrpp", "explain", "perfmon", "version", "completion", "serve"} {
		ex := helpExamples(t, name)
		if len(ex) == 0 {
			continue
		}
		t.Run("help-"+name, func(t *testing.T) {
			s := newSandbox(t, bin)
			s.helpInputs()
			if blockUses(ex, "db7", "web1") {
				s.serveDB7(bin)
			}
			if blockUses(ex, "web-config.yml") {
				s.webConfig()
			}
			for _, e := range ex {
				s.run(e)
			}
			s.stopAll()
		})
	}
}

func blockUses(b []example, words ...string) bool {
	for _, e := range b {
		for _, w := range words {
			if strings.Contains(e.text, w) {
				return true
			}
		}
	}
	return false
}

// postgres gives libpq's variables the test database's server and user,
// for the example's postgres:///perf (.ci/run makes the database perf).
func (s *sandbox) postgres(t *testing.T) {
	u, err := url.Parse(os.Getenv(pgtest.EnvVar))
	if err != nil {
		t.Fatal(err)
	}
	s.setenv("PGHOST", u.Hostname())
	if p := u.Port(); p != "" {
		s.setenv("PGPORT", p)
	}
	s.setenv("PGUSER", u.User.Username())
	if pw, ok := u.User.Password(); ok {
		s.setenv("PGPASSWORD", pw)
	}
	if h := u.Query().Get("host"); h != "" {
		s.setenv("PGHOST", h)
	}
}

// helpInputs writes the files the help screens' examples read.
func (s *sandbox) helpInputs() {
	t := s.t
	root := "../.."
	win, _ := filepath.Glob(filepath.Join(root, "perfdata/testdata/windows/s*.bin"))
	for _, f := range win {
		copyFile(t, f, filepath.Join(s.dir, filepath.Base(f)), 0o644)
	}
	copyFile(t, filepath.Join(root, "perfdata/testdata/windows/s01-0238-Processor.bin"), filepath.Join(s.dir, "x.bin"), 0o644)
	copyFile(t, filepath.Join(root, "perflog/blg/testdata/CounterSamples.blg"), filepath.Join(s.dir, "SampleLog.blg"), 0o644)
	copyFile(t, filepath.Join(root, "examples/httpserver/httpserver.man"), filepath.Join(s.dir, "counters.man"), 0o644)
	// logfile.bin, a binary log of a few samples, and the query help's
	// now.perfdata and counter.bin that dump's help reads.
	for _, args := range [][]string{
		{"typeperf", `\Memory\Available MBytes`, `\Processor(_Total)\% Processor Time`, "-si", "1", "-sc", "3", "-f", "BIN", "-o", "logfile.bin"},
		{"query", "Global", "-o", "now.perfdata"},
		{"query", "Counter", "-o", "counter.bin"},
	} {
		cmd := exec.CommandContext(context.Background(), filepath.Join(s.dir, ".bin", "perfc"), args...)
		cmd.Dir, cmd.Env = s.dir, s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("perfc %s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	ru, _ := filepath.Glob(filepath.Join(root, "perflog/pdhcsv/testdata/codepage/ru-cp1251.csv"))
	if len(ru) == 0 {
		t.Fatal("no code page 1251 CSV fixture for ru.csv")
	}
	copyFile(t, ru[0], filepath.Join(s.dir, "ru.csv"), 0o644)
}
