package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needShell returns the shell's path, skipping the test where it is not
// installed (failing under CI=true: .ci/run installs zsh and fish).
func needShell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (.ci/run installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// TestCompletionFish completes command lines of ./perfc (not on PATH)
// with fish's own engine (complete -C): commands, options, counter paths,
// instances and object names come from that perfc.
func TestCompletionFish(t *testing.T) {
	fish := needShell(t, "fish")
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	bin := buildPerfc(t)
	dir := filepath.Dir(bin)
	script, _, code := runPerfc(t, "completion", "fish")
	if code != 0 {
		t.Fatal("completion fish failed")
	}
	if err := os.WriteFile(filepath.Join(dir, "perfc.fish"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, want string }{
		{`./perfc typ`, "typeperf"},
		{`./perfc typeperf -s`, "-sc"},
		{`./perfc typeperf "\Mem`, `\Memory\Available MBytes`},
		{`./perfc typeperf '\Process(perf`, `\Process(perfc)\`},
		{`./perfc explain Mem`, "Memory"},
	} {
		cmd := exec.Command(fish, "--no-config", "-c", "source perfc.fish; complete -C "+fishQuote(tc.line))
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PERFC_WARNINGS=off"} // no perfc on PATH
		out, err := cmd.CombinedOutput()
		if err != nil || !containsLine(string(out), tc.want) {
			t.Errorf("fish: complete -C %s: %v\n%s\nwant the line %q", tc.line, err, out, tc.want)
		}
	}
}

// TestCompletionZsh loads the zsh function and runs it on command lines
// of ./perfc with zsh's compadd and _files replaced by functions that
// print what they are given (zsh's completion widgets need a terminal):
// what the function offers, asked of that perfc.
func TestCompletionZsh(t *testing.T) {
	zsh := needShell(t, "zsh")
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	bin := buildPerfc(t)
	dir := filepath.Dir(bin)
	script, _, code := runPerfc(t, "completion", "zsh")
	if code != 0 {
		t.Fatal("completion zsh failed")
	}
	if err := os.WriteFile(filepath.Join(dir, "_perfc"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(zsh, "-n", filepath.Join(dir, "_perfc")).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v %s", err, out)
	}
	const drive = `compdef() { }
typeset -A compstate
compadd() { while [[ $# -gt 0 && $1 != -- ]]; do shift; done; shift; print -rl -- "$@" }
_files() { print -r -- "<files>" }
source ./_perfc
words=("${(@Q)${(z)LINE}}"); CURRENT=${#words}
compstate[quote]=$Q
PREFIX=$P
_perfc`
	for _, tc := range []struct{ line, quote, prefix, want string }{
		{`./perfc typ`, "", "typ", "typeperf"},
		{`./perfc typeperf -s`, "", "-s", "-sc"},
		{`./perfc typeperf -s`, "", "/s", "/sc"},
		{`./perfc typeperf "\Mem`, `"`, `\Mem`, `\Memory\Available MBytes`},
		{`./perfc typeperf \Mem`, "", `\Mem`, `"\Memory\Available MBytes"`},
		{`./perfc typeperf "\Process(perf`, `"`, `\Process(perf`, `\Process(perfc)\`},
		{`./perfc explain M`, "", "M", "Memory"},
		{`./perfc relog x`, "", "x", "<files>"},
	} {
		cmd := exec.Command(zsh, "-f", "-c", drive)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PERFC_WARNINGS=off", "LINE=" + tc.line, "Q=" + tc.quote, "P=" + tc.prefix}
		out, err := cmd.CombinedOutput()
		if err != nil || !containsLine(string(out), tc.want) {
			t.Errorf("zsh: %s: %v\n%s\nwant the line %q", tc.line, err, out, tc.want)
		}
	}
}

func containsLine(out, line string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
