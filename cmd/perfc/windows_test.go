package main

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"golang.org/x/sys/unix"
)

// utf16File writes s as UTF-16LE with a byte-order mark and CR LF line
// ends, as Windows PowerShell's `Out-File` (and `>`) writes a text file.
func utf16File(t *testing.T, dir, name, s string) string {
	t.Helper()
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(strings.ReplaceAll(s, "\n", "\r\n"))) {
		b = append(b, byte(u), byte(u>>8))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTypeperfWindowsSyntax runs typeperf on this machine as a Windows
// administrator types it: slash options in any case, -s localhost,
// \\localhost paths, a UTF-16 counter file, a mount-point instance. Each
// run takes one sample (about one second).
func TestTypeperfWindowsSyntax(t *testing.T) {
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	me := hostUpper(t)
	dir := t.TempDir()
	cf := utf16File(t, dir, "counters.txt", "# from PowerShell\n\\\\localhost\\Memory\\Available MBytes\n\n\\LogicalDisk(/)\\% Free Space\n")
	for _, tc := range []struct {
		name string
		args []string
		sep  string
		cols []string
	}{
		{"slash options", []string{"typeperf", `\Memory\Available MBytes`, "/SC", "1", "/si", "1", "/F", "TSV"}, "\t",
			[]string{`\\` + me + `\Memory\Available MBytes`}},
		{"-s localhost, \\\\localhost path", []string{"typeperf", `\\localhost\Memory\Available MBytes`, "-S", "localhost", "-SC", "1"}, ",",
			[]string{`\\` + me + `\Memory\Available MBytes`}},
		{"own name in any case", []string{"typeperf", `\\` + strings.ToLower(me) + `\Memory\Available MBytes`, "/s", strings.ToLower(me), "/sc:1"}, ",",
			[]string{`\\` + me + `\Memory\Available MBytes`}},
		{"UTF-16 counter file, mount point", []string{"typeperf", "/cf", cf, "/sc", "1"}, ",",
			[]string{`\\` + me + `\Memory\Available MBytes`, `\\` + me + `\LogicalDisk(/)\% Free Space`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runPerfc(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			lg, err := pdhcsv.Read(strings.NewReader(out), nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !reflect.DeepEqual(lg.Columns, tc.cols) || len(lg.Rows) != 1 {
				t.Errorf("columns %q (want %q), %d rows:\n%s", lg.Columns, tc.cols, len(lg.Rows), out)
			}
			if !strings.Contains(out, `"(PDH-`+map[string]string{",": "CSV", "\t": "TSV"}[tc.sep]+` 4.0)"`+tc.sep) {
				t.Errorf("format:\n%s", out)
			}
			for i, v := range lg.Rows[0].Values {
				if !v.OK {
					t.Errorf("column %s has no value", lg.Columns[i])
				}
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"remote -s", []string{"typeperf", `\Memory\Available MBytes`, "/s", "db7"}, 3, "computer db7: not in the hosts file"},
		{"remote path", []string{"typeperf", `\\db7\Memory\Available MBytes`}, 3, "computer db7: not in the hosts file"},
		{"overflowing -si", []string{"typeperf", `\Memory\Available MBytes`, "-si", "99999999:00:00"}, 2, "longer than the longest allowed"},
		{"unknown option", []string{"typeperf", `\Memory\Available MBytes`, "-zz"}, 2, "unknown option -zz"},
		{"unknown slash option", []string{"typeperf", `\Memory\Available MBytes`, "/ZZ"}, 2, "unknown option /ZZ"},
		{"/dev/zero as -cf", []string{"typeperf", "-cf", "/dev/zero"}, 1, "/dev/zero: larger than 16 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := runPerfc(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d (want %d), stderr:\n%s\nwant %q", code, tc.code, errs, tc.msg)
			}
		})
	}
	// -qx shows the mount point as typed, other instances with their escapes.
	out, errs, code := runPerfc(t, "typeperf", "/QX", "LogicalDisk")
	if code != 0 || !strings.Contains(out, `\LogicalDisk(/)\% Free Space`+"\n") {
		t.Errorf("-qx LogicalDisk: exit %d %s\n%s", code, errs, out)
	}
}

// TestTypeperfLogToStdout: -o - writes the file layout (zone in the header,
// the first row's rate counters " ") to stdout, and keeps the closing
// console lines out of it.
func TestTypeperfLogToStdout(t *testing.T) {
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	out, errs, code := runPerfc(t, "typeperf", `\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`, "-o", "-", "-sc", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `"(PDH-CSV 4.0) (`) {
		t.Fatalf("stdout:\n%s", out)
	}
	cells := strings.Split(lines[1], ",")
	if len(cells) != 3 || cells[1] != `" "` || cells[2] == `" "` {
		t.Errorf("first row %q: want the rate counter blank and Available MBytes valued", lines[1])
	}
	if !strings.Contains(errs, "The command completed successfully.") {
		t.Errorf("stderr %q", errs)
	}
}

// TestRelogWindowsSyntax: several counters in one quoted -c argument, a
// quoted wildcard that relog expands itself, a UTF-16 -cf file, slash
// options.
func TestRelogWindowsSyntax(t *testing.T) {
	titles := filepath.Join(blockDir, "titles.tsv")
	want := []string{`\\TESTHOST\Processor(_Total)\Interrupts/sec`, `\\TESTHOST\Memory\Available MBytes`}
	pattern := filepath.Join(blockDir, "sample-*.perfdata")
	cf := utf16File(t, t.TempDir(), "c.txt", "\\Processor(_Total)\\Interrupts/sec\n\\Memory\\Available MBytes\n")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"one list", []string{"relog", pattern, "/titles", titles, "/C", `\Processor(_Total)\Interrupts/sec \Memory\Available MBytes`}},
		{"quoted list", []string{"relog", pattern, "-titles", titles, "-c", `"\Processor(_Total)\Interrupts/sec" "\Memory\Available MBytes"`}},
		{"utf-16 -cf", []string{"relog", "/CF", cf, pattern, "--titles", titles, "/f", "csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runPerfc(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			lg, err := pdhcsv.Read(strings.NewReader(out), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(lg.Columns, want) || len(lg.Rows) != 4 {
				t.Errorf("columns %q, %d rows (want %q, 4)", lg.Columns, len(lg.Rows), want)
			}
		})
	}
	if _, errs, code := runPerfc(t, "relog", filepath.Join(blockDir, "nothing-*.bin")); code != 1 || !strings.Contains(errs, "no file matches") {
		t.Errorf("empty wildcard: exit %d, %s", code, errs)
	}
}

func TestSplitCounterLists(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want []string
	}{
		{[]string{`\Processor(_Total)\% Processor Time`}, []string{`\Processor(_Total)\% Processor Time`}},
		{[]string{`\Processor(_Total)\% Processor Time \Memory\Available Bytes`}, []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available Bytes`}},
		{[]string{`"\A(x y)\b c" "\D\e"`, `\F\g`}, []string{`\A(x y)\b c`, `\D\e`, `\F\g`}},
		{[]string{`  \A\b   \C\d  `}, []string{`\A\b`, `\C\d`}},
		{[]string{`\\host\A\b \\host\C\d`}, []string{`\\host\A\b`, `\\host\C\d`}},
		{[]string{`\A\say "hi"`}, []string{`\A\say "hi"`}},
		{[]string{`\A\b "\C\d"`}, []string{`\A\b "\C\d"`}},
		{[]string{""}, nil},
	} {
		if got := splitCounterLists(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestQueryRefusesTerminal: a binary answer is not written to a terminal
// (a pseudo-terminal here), and goes to a pipe or file as before.
func TestQueryRefusesTerminal(t *testing.T) {
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptm.Close()
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skip(err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skip(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer pts.Close()
	var errs bytes.Buffer
	state := t.TempDir()
	code := run(t.Context(), []string{"query", "Counter"}, &env{stdout: pts, stderr: &errs, stdin: strings.NewReader(""),
		getenv: stateEnv(state)})
	if code != 2 || !strings.Contains(errs.String(), "binary: not writing it to a terminal") {
		t.Errorf("exit %d: %s", code, errs.String())
	}
	out, _, code := runPerfc(t, "query", "Counter", "-o", "-")
	if code != 0 || len(out) < 1000 {
		t.Errorf("query -o - to a buffer: exit %d, %d bytes", code, len(out))
	}
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// TestWarner: each cause once, the limit, silence, and messages in the
// user's words.
func TestWarner(t *testing.T) {
	var b bytes.Buffer
	w := newWarner(&b, false)
	log := slog.New(w.Handler())
	log.Warn("registered counter set left out", "set", "Widgets", "reason", "engine: object 9000 exists")
	log.Warn("registered counter set left out", "set", "Widgets", "reason", "engine: object 9000 exists")
	log.Info("not shown")
	log.With("provider", "acme").WithGroup("seg").Warn("segment refused", "file", "/dev/shm/perfc/x", "err", "shm: bad magic")
	w.Warn("pdh:io:42", "\\Process(x)\\IO Read Bytes/sec: pdh: permission denied reading /proc/42/io")
	w.Warn("pdh:io:42", "\\Process(x)\\IO Read Bytes/sec: pdh: permission denied reading /proc/42/io (again)")
	want := "perfc: warning: registered counter set left out; set: Widgets; reason: object 9000 exists\n" +
		"perfc: warning: segment refused; provider: acme; seg.file: /dev/shm/perfc/x; seg.err: bad magic\n" +
		"perfc: warning: \\Process(x)\\IO Read Bytes/sec: permission denied reading /proc/42/io\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	w = newWarner(&b, false)
	for i := range maxWarnings + 10 {
		w.Warn(itoa(i), "x"+itoa(i))
	}
	if n := strings.Count(b.String(), "\n"); n != maxWarnings+1 || !strings.Contains(b.String(), "the rest are left out") {
		t.Errorf("%d lines:\n%s", n, b.String())
	}

	b.Reset()
	w = newWarner(&b, true)
	w.Warn("a", "b")
	slog.New(w.Handler()).Warn("c")
	if b.Len() != 0 {
		t.Errorf("silenced warner printed %q", b.String())
	}
	e := &env{stderr: &b, getenv: func(k string) string {
		if k == "PERFC_WARNINGS" {
			return "OFF"
		}
		return ""
	}}
	e.warnings(false).Warn("a", "b")
	if b.Len() != 0 {
		t.Errorf("PERFC_WARNINGS=off printed %q", b.String())
	}
}

func TestVersionCompletionExplain(t *testing.T) {
	out, _, code := runPerfc(t, "version")
	if code != 0 || !strings.HasPrefix(out, "perfc ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: exit %d\n%s", code, out)
	}
	out, _, code = runPerfc(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "complete -F _perfc perfc") || !strings.Contains(out, `typeperf) opts="-? -c -cf -codepage -config -f -lang -nowarn -o -q -qx -s -sc -si -y"`) {
		t.Errorf("completion: exit %d\n%s", code, out)
	}
	// Every word of every command's list is an option: none of the help
	// notes' words (--v, --r,) get in.
	for _, m := range regexp.MustCompile(`\) opts="([^"]*)"`).FindAllStringSubmatch(out, -1) {
		for _, w := range strings.Fields(m[1]) {
			if strings.HasPrefix(w, "--") || strings.HasSuffix(w, ",") || !(strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/")) {
				t.Errorf("completion offers %q, which is no option: %s", w, m[0])
			}
		}
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		f := filepath.Join(t.TempDir(), "perfc.bash")
		os.WriteFile(f, []byte(out), 0o644)
		if msg, err := execOutput("/bin/bash", "-n", f); err != nil {
			t.Errorf("bash -n: %v %s", err, msg)
		}
	}
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, tc := range []struct{ word, want string }{
		{`\Proc`, `"\Processor(*)\`},
		{`\Mem`, `"\Memory\Available MBytes"`},
		{`"\Memory\Avail`, `"\Memory\Available MBytes"`},
		{`\processor\% Proc`, `"\processor\% Processor Time"`},
		{`"\Processor(_Total)\% Proc`, `"\Processor(_Total)\% Processor Time"`},
		{`"\Processor(`, `"\Processor(_Total)\`},
		{`"\Processor(`, `"\Processor(*)\`},
		{`\processor(_t`, `"\processor(_Total)\% Processor Time"`},
	} {
		out, errs, code := runPerfc(t, "__complete", "path", tc.word)
		if code != 0 || !strings.Contains(out, tc.want+"\n") {
			t.Errorf("__complete path %s: exit %d %s\n%s", tc.word, code, errs, out)
		}
	}
	out, _, code = runPerfc(t, "__complete", "objects")
	if code != 0 || !strings.Contains(out, "Memory\n") {
		t.Errorf("__complete objects: %s", out)
	}
	out, errs, code := runPerfc(t, "explain", `\Memory\Available MBytes`)
	if code != 0 || !strings.HasPrefix(out, `\Memory\Available MBytes`+"\n  ") {
		t.Errorf("explain: exit %d %s\n%s", code, errs, out)
	}
	if _, errs, code := runPerfc(t, "explain", `\Memory\Nope`); code != 3 || !strings.Contains(errs, `no counter "Nope"`) {
		t.Errorf("explain unknown counter: exit %d %s", code, errs)
	}
}

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// TestCompletionOfDotSlashPerfc: the bash completion of a perfc that is
// not on PATH (./perfc, as the README builds it) asks that perfc itself
// for counter paths.
func TestCompletionOfDotSlashPerfc(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	bin := buildPerfc(t)
	dir := filepath.Dir(bin)
	script, _, code := runPerfc(t, "completion", "bash")
	if code != 0 {
		t.Fatal("completion bash failed")
	}
	if err := os.WriteFile(filepath.Join(dir, "perfc.bash"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	drive := `source ./perfc.bash
COMP_LINE='./perfc typeperf \Mem'; COMP_POINT=${#COMP_LINE}
COMP_WORDS=(./perfc typeperf '\Mem'); COMP_CWORD=2
_perfc; printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("/bin/bash", "--norc", "-c", drive)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PERFC_WARNINGS=off"} // no perfc on PATH
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `\Memory\Available MBytes`) {
		t.Errorf("completing ./perfc typeperf \\Mem: %v\n%s", err, out)
	}
	// An instance name: the perfc answering is a process named perfc.
	cmd = exec.Command("/bin/bash", "--norc", "-c", strings.NewReplacer(`\Mem`, `\Process(perf`).Replace(drive))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PERFC_WARNINGS=off"}
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `\Process(perfc)\`) {
		t.Errorf("completing ./perfc typeperf \\Process(perf: %v\n%s", err, out)
	}
}
