package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

const blockDir = "../../internal/tool/typeperf/testdata/blocks"

// runPerfc runs perfc in-process with an empty state directory of its own,
// so no test depends on what the machine has registered.
func runPerfc(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	state := t.TempDir()
	return runPerfcEnv(t, stateEnv(state), args...)
}

// runPerfcEnv runs perfc in-process with the given environment.
func runPerfcEnv(t *testing.T, getenv func(string) string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), args, &env{stdout: &o, stderr: &e, stdin: strings.NewReader(""), getenv: getenv})
	return o.String(), e.String(), code
}

func TestRelogCommand(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(blockDir, "sample-*.perfdata"))
	if len(files) != 4 {
		t.Fatalf("fixtures: %v", files)
	}
	titles := filepath.Join(blockDir, "titles.tsv")
	// Flags after the files, -c followed by a second path, TSV.
	args := append([]string{"relog"}, files...)
	args = append(args, "--titles", titles, "-f", "tsv", "-c", `\Processor(_Total)\Interrupts/sec`, `\Memory\Available MBytes`, "-t", "2")
	out, errs, code := runPerfc(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lg, err := pdhcsv.Read(strings.NewReader(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	if lg.Format != pdhcsv.TSV || len(lg.Rows) != 2 {
		t.Fatalf("format %v, %d rows:\n%s", lg.Format, len(lg.Rows), out)
	}
	want := []string{`\\TESTHOST\Processor(_Total)\Interrupts/sec`, `\\TESTHOST\Memory\Available MBytes`}
	if !reflect.DeepEqual(lg.Columns, want) {
		t.Errorf("columns %q, want %q", lg.Columns, want)
	}
	// Every 2nd sample: (5600-5000)/2 s = 300/s; Available MBytes 2048+2.
	if v := lg.Rows[1].Values; !v[0].OK || v[0].Number != 300 || v[1].Number != 2050 {
		t.Errorf("second row %+v", v)
	}

	// -o writes the file and prints the report; a second run without -y
	// refuses to overwrite.
	dst := filepath.Join(t.TempDir(), "out.csv")
	args = append([]string{"relog"}, files...)
	args = append(args, "--titles", titles, "-o", dst, "-b", "3/5/2024 12:00:02 PM")
	prevTZ := time.Local
	time.Local = time.UTC // -b is local time; the fixtures are UTC
	defer func() { time.Local = prevTZ }()
	out, errs, code = runPerfc(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Output\n----------------\nFile:     "+dst) || !strings.Contains(out, "Samples:  2\n") {
		t.Errorf("report:\n%s", out)
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if lg, err := pdhcsv.Read(bytes.NewReader(data), nil); err != nil || len(lg.Rows) != 2 {
		t.Errorf("output file: %v", err)
	}
	if _, errs, code = runPerfc(t, args...); code != 5 || !strings.Contains(errs, "-y") {
		t.Errorf("overwrite without -y: exit %d, %s", code, errs)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"relog"}, 2, "no input file"},
		{[]string{"relog", files[0], "-f", "bin"}, 2, "name it with -o"},
		{[]string{"relog", files[0], "-f", "sql", "-o", "x.sql"}, 1, "SQL:DSN!logset"},
		{[]string{"relog", files[0], "-f", "xml"}, 2, "unknown"},
		{[]string{"relog", files[0], "-t", "0"}, 2, "-t"},
		{[]string{"relog", files[0], "-b", "yesterday"}, 2, "-b"},
		{[]string{"relog", files[0], "--titles", titles, "-c", `\Nope\x`}, 1, "Nope"},
	} {
		if _, errs, code := runPerfc(t, tc.args...); code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%q: exit %d, %s; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}

func TestParseConfigFile(t *testing.T) {
	enc := func(s string) []byte { // UTF-16LE with a mark, by the standard library
		b := []byte{0xff, 0xfe}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want []string
	}{
		{"counters and options", []byte("[c]\n\\Processor(_Total)\\% Processor Time\n\\Memory\\Available MBytes\n\n[si]\n5\n[sc]\n10\n[y]\n"),
			[]string{"-c", `\Processor(_Total)\% Processor Time`, "-c", `\Memory\Available MBytes`, "-si", "5", "-sc", "10", "-y"}},
		{"utf-16 with BOM", enc("[si]\r\n5\r\n"), []string{"-si", "5"}},
		// A character beyond the BMP is a surrogate pair in UTF-16: one
		// character, not two U+FFFD.
		{"utf-16 surrogate pair", enc("[c]\r\n\\App(😀)\\Count\r\n"), []string{"-c", `\App(😀)\Count`}},
	} {
		got, err := parseConfigFile(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := parseConfigFile([]byte("5\n[si]\n")); err == nil {
		t.Error("value before option accepted")
	}
}

// TestRelogBLG: `perfc relog CounterSamples.blg -f CSV -o x.csv` writes
// the file Windows wrote from the same samples, byte for byte (line ends
// aside), and a file that is not a BLG is refused with exit status 1.
func TestRelogBLG(t *testing.T) {
	const dir = "../../perflog/blg/testdata"
	for _, tc := range []struct{ format, want string }{
		{"CSV", "CounterSamples.csv"},
		{"tsv", "CounterSamples.tsv"},
	} {
		out := filepath.Join(t.TempDir(), "x."+strings.ToLower(tc.format))
		stdout, stderr, code := runPerfc(t, "relog", filepath.Join(dir, "CounterSamples.blg"), "/f", tc.format, "-o", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "CounterSamples.blg (Binary)") || !strings.Contains(stdout, "Samples:  25") {
			t.Errorf("console report:\n%s", stdout)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, tc.want))
		if err != nil {
			t.Fatal(err)
		}
		crlf := func(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }
		if crlf(got) != crlf(want) {
			t.Errorf("%s differs from Windows' %s:\n%s", out, tc.want, crlf(got))
		}
	}
	_, stderr, code := runPerfc(t, "relog", filepath.Join(dir, "CorruptBlg.blg"), "-f", "csv", "-o", filepath.Join(t.TempDir(), "y.csv"))
	if code != 1 || !strings.Contains(stderr, "not a Windows binary performance log") {
		t.Errorf("CorruptBlg.blg: exit %d, %s", code, stderr)
	}
}

// TestRelogToBLG: relog -f blg writes a Windows BLG of a log (Windows'
// CounterSamples.blg here) from which relog makes the CSV Windows wrote
// from the original, byte for byte; -f blg refuses -a, and -o NAME
// without an extension writes NAME.blg.
func TestRelogToBLG(t *testing.T) {
	const dir = "../../perflog/blg/testdata"
	tmp := t.TempDir()
	stdout, stderr, code := runPerfc(t, "relog", filepath.Join(dir, "CounterSamples.blg"), "-f", "BLG", "-o", filepath.Join(tmp, "copy"))
	if code != 0 {
		t.Fatalf("relog -f BLG: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "copy.blg") {
		t.Errorf("console report names no copy.blg:\n%s", stdout)
	}
	out := filepath.Join(tmp, "x.csv")
	if _, stderr, code := runPerfc(t, "relog", filepath.Join(tmp, "copy.blg"), "-f", "CSV", "-o", out); code != 0 {
		t.Fatalf("relog of the copy: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "CounterSamples.csv"))
	if err != nil {
		t.Fatal(err)
	}
	crlf := func(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }
	if crlf(got) != crlf(want) {
		t.Errorf("CSV of the BLG relog wrote differs from Windows' CounterSamples.csv:\n%s", crlf(got))
	}
	_, stderr, code = runPerfc(t, "relog", filepath.Join(dir, "CounterSamples.blg"), "-f", "blg", "-a", "-o", filepath.Join(tmp, "more.blg"))
	if code == 0 || !strings.Contains(stderr, "-a") {
		t.Errorf("relog -f blg -a: exit %d, %s", code, stderr)
	}
}

// TestTypeperfBLG: typeperf -f BLG -o NAME records NAME.blg, a Windows
// BLG with a sample per -sc that perfc's BLG reader opens; a .blg name
// with -f BIN still warns that the file is perfc's own format.
func TestTypeperfBLG(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("live counters")
	}
	tmp := t.TempDir()
	_, stderr, code := runPerfc(t, "typeperf", `\Memory\Available Bytes`, `\Processor(*)\% Processor Time`, "-si", "1", "-sc", "2", "-f", "BLG", "-o", filepath.Join(tmp, "run"))
	if code != 0 {
		t.Fatalf("typeperf -f BLG: exit %d: %s", code, stderr)
	}
	l, err := blg.Open(filepath.Join(tmp, "run.blg"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Len() != 2 || len(l.Counters()) != 2 {
		t.Errorf("run.blg: %d samples of %q, want 2 of the 2 counters", l.Len(), l.Counters())
	}
	_, stderr, code = runPerfc(t, "typeperf", `\Memory\Available Bytes`, "-sc", "1", "-f", "BIN", "-o", filepath.Join(tmp, "own.blg"))
	if code != 0 || !strings.Contains(stderr, "-f BLG writes Windows' format") {
		t.Errorf("typeperf -f BIN -o own.blg: exit %d, want the warning: %s", code, stderr)
	}
}
