package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/state"
)

// TestLogmanCommand drives perfc logman through its command line in
// Windows syntax and checks what it stored and printed.
func TestLogmanCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	getenv := func(k string) string {
		switch k {
		case "PERFC_STATE_DIR":
			return dir
		case "HOME":
			return "/home/u"
		}
		return ""
	}
	logman := func(args ...string) (string, string, int) {
		t.Helper()
		return runPerfcEnv(t, getenv, append([]string{"logman"}, args...)...)
	}
	const ok = "The command completed successfully.\n"
	read := func(name string) *collectorset.Set {
		t.Helper()
		s, err := state.ReadCollectorSet(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// -c with several paths, /options, upper case, -cnf without a time
	// before another option.
	out, errs, code := logman("create", "COUNTER", "perf_log", "-c", `\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`,
		"/SI", "00:05", "-F", "bin", "-max", "50", "-v", "NNNNNN", "-o", "/data/logs/perf.blg", "-cnf", "-boot", "-sc", "10", "/rf", "1:00:00")
	if code != 0 || out != ok || errs != "" {
		t.Fatalf("create: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	want := collectorset.New("perf_log", "/data/logs")
	want.Collector.FileName = "perf"
	want.Collector.Counters = []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`}
	want.Collector.SampleInterval, want.SegmentMaxSize, want.Duration = 5, 50, 3600
	want.Collector.FileNameFormat, want.Segment, want.RunAtBoot, want.Collector.MaxSamples = 0x200, true, true, 10
	if got := read("perf_log"); !reflect.DeepEqual(got, want) {
		t.Errorf("stored\n%+v\nwant\n%+v", got, want)
	}
	// Negations, -n, -cnf with a time, a quoted counter list replacing the old.
	out, errs, code = logman("update", "counter", "-n", "PERF_LOG", "--v", "--boot", "--max", "-cnf", "30:00", "-c", `\Memory\Available MBytes \LogicalDisk(/home)\% Free Space`)
	if code != 0 || out != ok {
		t.Fatalf("update: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	want.Collector.FileNameFormat, want.RunAtBoot, want.SegmentMaxSize, want.SegmentMaxDuration = 0, false, 0, 1800
	want.Collector.Counters = []string{`\Memory\Available MBytes`, `\LogicalDisk(/home)\% Free Space`}
	if got := read("perf_log"); !reflect.DeepEqual(got, want) {
		t.Errorf("after update\n%+v\nwant\n%+v", got, want)
	}
	// A second set with the default log directory; the list.
	if _, errs, code = logman("create", "counter", "b", "-f", "csv"); code != 0 {
		t.Fatalf("create b: %s", errs)
	}
	if read("b").RootPath != "/var/log/perfc/b" && read("b").RootPath != "/home/u/.local/share/perfc/logs/b" {
		t.Errorf("default root %s", read("b").RootPath)
	}
	out, _, code = logman("query")
	if code != 0 || !strings.Contains(out, "\nb"+strings.Repeat(" ", 39)+"Counter"+strings.Repeat(" ", 23)+"Stopped\n") || !strings.HasSuffix(out, "\n\n"+ok) {
		t.Errorf("query: exit %d\n%s", code, out)
	}
	out, _, code = logman("query", "perf_log")
	if code != 0 || !strings.Contains(out, "Name:                 perf_log\\perf_log\n") || !strings.Contains(out, "Segment Max Duration: 00:30:00\n") {
		t.Errorf("query perf_log: exit %d\n%s", code, out)
	}
	// Export, delete, import.
	xml := filepath.Join(t.TempDir(), "perf_log.xml")
	if _, errs, code = logman("export", "perf_log", "-xml", xml); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	if _, errs, code = logman("delete", "perf_log"); code != 0 {
		t.Fatalf("delete: %s", errs)
	}
	if _, errs, code = logman("import", "-n", "perf_log", "-xml", xml); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	if got := read("perf_log"); !reflect.DeepEqual(got, want) {
		t.Errorf("after export, delete, import\n%+v\nwant\n%+v", got, want)
	}
	// Windows' messages, exit status 1.
	for _, args := range [][]string{{"query", "nosuch"}, {"delete", "nosuch"}, {"start", "nosuch"}} {
		out, errs, code = logman(args...)
		if code != 1 || out != "" || errs != "perfc logman: Data Collector Set was not found.\nThe command failed, code: 0x80300002\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if _, errs, code = logman("create", "counter", "b"); code != 1 || !strings.Contains(errs, "Data Collector Set already exists.") {
		t.Errorf("create existing: exit %d, %q", code, errs)
	}
	if _, errs, code = logman("start", "b"); code != 1 || !strings.Contains(errs, "not built yet") {
		t.Errorf("start: exit %d, %q", code, errs)
	}
	// Usage errors, exit status 2.
	for _, args := range [][]string{
		{}, {"frobnicate", "x"}, {"create", "trace", "x"}, {"create", "counter"}, {"create", "counter", "x", "-si", "abc"},
		{"create", "counter", "x", "-v", "yyyy"}, {"create", "counter", "x", "-b", "tomorrow"}, {"export", "b"}, {"create", "counter", "x", "y"},
	} {
		if _, errs, code := logman(args...); code != 2 {
			t.Errorf("%v: exit %d, stderr %q; want 2", args, code, errs)
		}
	}
	if _, errs, code = logman("create", "counter", "x", "-si", "0"); code != 1 || !strings.Contains(errs, "at least 1") {
		t.Errorf("-si 0: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "sets", "x.xml")); err == nil {
		t.Error("a refused create stored its set")
	}
}

func TestLogmanArgs(t *testing.T) {
	for _, tc := range []struct {
		in, rest []string
		neg      []string
	}{
		{[]string{"create", "--v", "--MAX", "-cnf", "-si", "5"}, []string{"create", "-cnf=", "-si", "5"}, []string{"v", "max"}},
		{[]string{"-cnf", "01:00:00", "x"}, []string{"-cnf", "01:00:00", "x"}, nil},
		{[]string{"x", "/cnf"}, []string{"x", "-cnf="}, nil},
		{[]string{"--si", "5", "--", "--v"}, []string{"--si", "5", "--", "--v"}, nil},
	} {
		rest, neg := logmanArgs(tc.in)
		var names []string
		for _, n := range tc.neg {
			names = append(names, n)
			if !neg[n] {
				t.Errorf("%v: %s not negated", tc.in, n)
			}
		}
		if !reflect.DeepEqual(rest, tc.rest) || len(neg) != len(names) {
			t.Errorf("%v: rest %q, negated %v; want %q, %v", tc.in, rest, neg, tc.rest, names)
		}
	}
}

// TestLogmanConfig: a settings file's options apply, and the command
// line's win over them.
func TestLogmanConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	cfg := filepath.Join(t.TempDir(), "set.cfg")
	if err := os.WriteFile(cfg, []byte("[si]\n5\n[c]\n\\Memory\\Available MBytes\n\\Memory\\Cache Bytes\n[max]\n20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PERFC_STATE_DIR" {
			return dir
		}
		return ""
	}
	if _, errs, code := runPerfcEnv(t, getenv, "logman", "create", "counter", "cfg", "-config", cfg, "-si", "7"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	s, err := state.ReadCollectorSet(dir, "cfg")
	if err != nil {
		t.Fatal(err)
	}
	if s.Collector.SampleInterval != 7 || s.SegmentMaxSize != 20 || !reflect.DeepEqual(s.Collector.Counters, []string{`\Memory\Available MBytes`, `\Memory\Cache Bytes`}) {
		t.Errorf("stored %+v", s)
	}
}
