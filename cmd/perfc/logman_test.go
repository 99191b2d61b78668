package main

import (
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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
	// Windows' messages, exit status 3 (not found).
	for _, args := range [][]string{{"query", "nosuch"}, {"delete", "nosuch"}, {"start", "nosuch"}} {
		out, errs, code = logman(args...)
		if code != 3 || out != "" || errs != "perfc logman: Data Collector Set was not found.\nThe command failed, code: 0x80300002\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if _, errs, code = logman("create", "counter", "b"); code != 5 || !strings.Contains(errs, "Data Collector Set already exists.") {
		t.Errorf("create existing: exit %d, %q", code, errs)
	}
	// b has no counters: its collector reports why it cannot run.
	if _, errs, code = logman("start", "b"); code != 1 || !strings.Contains(errs, "could not be started.") || !strings.Contains(errs, "none of its 0 counters") {
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
	if _, errs, code = logman("create", "counter", "x", "-si", "0"); code != 2 || !strings.Contains(errs, "at least 1") {
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
		{[]string{"update", "x", "-m", "START", "stop", "-si", "5"}, []string{"update", "x", "-m=START stop", "-si", "5"}, nil},
		{[]string{"update", "x", "/m", "stop", "start"}, []string{"update", "x", "-m=stop start"}, nil},
		{[]string{"-m", "x"}, []string{"-m", "x"}, nil},
		{[]string{"--retain", "--U", "x"}, []string{"x"}, []string{"retain", "u"}},
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
	getenv := stateEnv(dir)
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

// TestLogmanRetainManualUser: -retain, -m and -u through the command line,
// their negations, their refusals, and the words for the set types perfc
// does not have.
func TestLogmanRetainManualUser(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	getenv := stateEnv(dir)
	logman := func(args ...string) (string, string, int) {
		t.Helper()
		return runPerfcEnv(t, getenv, append([]string{"logman"}, args...)...)
	}
	read := func() *collectorset.Set {
		t.Helper()
		s, err := state.ReadCollectorSet(dir, "r")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	me := strconv.Itoa(os.Geteuid())
	if u, err := user.LookupId(me); err == nil {
		me = u.Username
	}
	if _, errs, code := logman("create", "counter", "r", "-o", "/data/r.plog", "-cnf", "01:00:00", "-v", "nnnnnn", "-retain", "7 days, 3 files, 500MB, free=1GB, CHECK",
		"-b", "11/23/2026 8:00:00AM", "-e", "11/23/2026 5:00:00PM", "-r", "-u", me); code != 0 {
		t.Fatalf("create: exit %d: %s", code, errs)
	}
	s := read()
	if got := s.DataManager.Retention(); got != (collectorset.Retention{Files: 3, Age: 7 * 24 * time.Hour, Size: 500, Free: 1024, Policy: collectorset.DeleteOldest, Check: true}) {
		t.Errorf("retention %+v", got)
	}
	if s.UserAccount != me || len(s.Schedules) != 1 || s.Duration != 9*3600 {
		t.Errorf("user %q, schedules %v, duration %d", s.UserAccount, s.Schedules, s.Duration)
	}
	out, _, code := logman("query", "r")
	for _, want := range []string{"Max Log Files:        3\n", "Max Log Age:          7 days\n", "Check Before Running: On\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("query r lacks %q:\n%s", want, out)
		}
	}
	// -m start stop as two words; --u; -retain replaced, then cleared.
	if _, errs, code := logman("update", "counter", "r", "-m", "start", "stop", "--u", "-retain", "12h,largest"); code != 0 {
		t.Fatalf("update: exit %d: %s", code, errs)
	}
	s = read()
	if len(s.Schedules) != 0 || s.Duration != 0 || s.UserAccount != "" || s.DataManager.Retention().String() != "12h,largest" {
		t.Errorf("after -m start stop --u -retain 12h,largest: schedules %v, duration %d, user %q, retention %q", s.Schedules, s.Duration, s.UserAccount, s.DataManager.Retention())
	}
	if _, errs, code := logman("update", "counter", "r", "--retain"); code != 0 {
		t.Fatalf("--retain: exit %d: %s", code, errs)
	}
	if s = read(); s.DataManager.Enabled || s.DataManager.Retention() != (collectorset.Retention{}) {
		t.Errorf("after --retain: %+v", s.DataManager)
	}
	// Refusals: a usage error (exit 2) for what does not parse, Windows'
	// "The parameter is incorrect." (exit 1) for what the set cannot do.
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"update", "counter", "r", "-retain", "5m"}, 2, `unit "m"`},
		{[]string{"update", "counter", "r", "-m", "now"}, 2, "want start, stop"},
		{[]string{"update", "counter", "r", "-u", me, "*"}, 2, "asks for no password"},
		{[]string{"update", "counter", "r", "-u", me, "s3cret"}, 2, "takes a user name and no password"},
		{[]string{"update", "counter", "r", "-u", "nosuchuser-" + me}, 2, "a set runs as the user who owns it"},
		{[]string{"update", "counter", "r", "-f", "csv"}, 2, "binary logs only"},
		{[]string{"update", "counter", "r", "--v", "--cnf", "-retain", "3"}, 2, "writes one log file"},
		{[]string{"update", "counter", "r", "-m", "start", "-b", "11/23/2026 8:00:00AM"}, 2, "exclude each other"},
		{[]string{"create", "trace", "t"}, 2, "perf trace, bpftrace or LTTng"},
		{[]string{"create", "cfg", "t"}, 2, "sos report"},
		{[]string{"update", "api", "t"}, 2, "ltrace, strace or uprobes"},
		{[]string{"query", "providers"}, 1, "perf list"},
	} {
		_, errs, code := logman(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, %q; want exit %d with %q", tc.args, code, errs, tc.code, tc.msg)
		}
		if strings.Contains(errs, "s3cret") {
			t.Errorf("%v: the password is echoed: %q", tc.args, errs)
		}
	}
}
