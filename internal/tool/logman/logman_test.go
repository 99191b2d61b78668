package logman

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/state"
)

// fakeRunner says which sets run, by name.
// fakeRunner is a collector service that runs the sets of running and
// fails to start any set with startErr.
type fakeRunner struct {
	running  map[string]string
	startErr error
}

func (f fakeRunner) Status(dir string, s *collectorset.Set) (bool, string) {
	d, ok := f.running[s.Name]
	return ok, d
}
func (f fakeRunner) Start(context.Context, string, *collectorset.Set) error { return f.startErr }
func (fakeRunner) Stop(context.Context, string, *collectorset.Set) error    { return nil }

var errCannotStart = errors.New("the collector service cannot start sets here")

type env struct {
	o     Options
	out   *bytes.Buffer
	warns []string
}

func newEnv(t *testing.T, user, system string) *env {
	e := &env{out: &bytes.Buffer{}}
	e.o = Options{
		UserDir: user, SystemDir: system, User: "alice",
		DefaultRoot: func(name string) string { return "/home/alice/.local/share/perfc/logs/" + name },
		WorkDir:     "/home/alice/work",
		Stdout:      e.out,
		Runner:      fakeRunner{startErr: errCannotStart},
		Now:         func() time.Time { return time.Date(2026, 5, 12, 6, 33, 0, 0, time.UTC) },
	}
	e.o.Warn = func(m string) { e.warns = append(e.warns, m) }
	return e
}

func ptr[T any](v T) *T { return &v }

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestQueryLayouts(t *testing.T) {
	base := t.TempDir()
	sys := newEnv(t, filepath.Join(base, "system"), filepath.Join(base, "system"))
	mustOK(t, Create(sys.o, Spec{Name: "System Performance", Counters: []string{`\Processor(*)\*`}, HasCounters: true}))
	e := newEnv(t, filepath.Join(base, "alice"), filepath.Join(base, "system"))
	e.o.Runner = fakeRunner{running: map[string]string{"FabricCounters": "collector pid 4242"}}
	long := "A Data Collector Set whose name is longer than forty characters"
	forty := strings.Repeat("x", 40)
	for _, sp := range []Spec{
		{Name: "FabricCounters", Counters: []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`}, HasCounters: true},
		{Name: long},
		{Name: forty},
		{Name: "perf_log", Counters: []string{`\Processor(_Total)\% Processor Time`}, HasCounters: true,
			SampleInterval: ptr[uint32](10), Format: ptr("csv"), Version: ptr(collectorset.FileNameMonthDayHourMinute),
			Max: ptr[uint32](10), RunFor: ptr[uint32](3600), Output: ptr("logs/perf.csv")},
		{Name: "daily", Format: ptr("bincirc"), Max: ptr[uint32](250), Begin: ptr(time.Date(2026, 11, 23, 8, 0, 0, 0, time.Local)),
			End: ptr(time.Date(2026, 11, 30, 17, 30, 0, 0, time.Local)), Repeat: ptr(true), RunAtBoot: ptr(true), Samples: ptr[uint32](1000),
			Server: ptr("db1"), Append: ptr(true)},
		{Name: "rollover", Cnf: ptr[uint32](3600), Max: ptr[uint32](100), Version: ptr(collectorset.FileNameSerialNumber), Overwrite: ptr(true)},
		{Name: "sqlset", Format: ptr("sql"), Output: ptr("SQL:perfdb!week1"), Max: ptr[uint32](5000)},
		{Name: "retained", Cnf: ptr[uint32](3600), Version: ptr(collectorset.FileNameSerialNumber), RunAs: ptr("alice"),
			Retain: &collectorset.Retention{Files: 48, Age: 7 * 24 * time.Hour, Size: 2048, Free: 1024, Policy: collectorset.DeleteOldest, Check: true}},
	} {
		mustOK(t, Create(e.o, sp))
	}
	e.out.Reset()
	mustOK(t, Query(e.o))
	list := e.out.String()
	golden.Check(t, "testdata/query-list.golden", list)
	// The layout rules, checked on their own.
	lines := strings.Split(list, "\n")
	if lines[0] != "" || lines[1] != "Data Collector Set"+strings.Repeat(" ", 22)+"Type"+strings.Repeat(" ", 26)+"Status" || lines[2] != strings.Repeat("-", 79) {
		t.Errorf("header %q", lines[:3])
	}
	if !strings.HasSuffix(list, "\n\nThe command completed successfully.\n") {
		t.Errorf("list ends %q", list[len(list)-60:])
	}
	want := map[string]string{
		"FabricCounters": "FabricCounters" + strings.Repeat(" ", 26) + "Counter" + strings.Repeat(" ", 23) + "Running",
		long:             long + " Counter" + strings.Repeat(" ", 23) + "Stopped",
		forty:            forty + " Counter" + strings.Repeat(" ", 23) + "Stopped",
		"System":         "System Performance" + strings.Repeat(" ", 22) + "Counter" + strings.Repeat(" ", 23) + "Stopped",
	}
	for k, w := range want {
		found := false
		for _, l := range lines {
			found = found || l == w
		}
		if !found {
			t.Errorf("%s: no line %q", k, w)
		}
	}
	for _, name := range []string{"FabricCounters", "perf_log", "daily", "rollover", "sqlset", "retained", "System Performance"} {
		e.out.Reset()
		mustOK(t, QuerySet(e.o, strings.ToUpper(name)))
		golden.Check(t, "testdata/query-"+strings.ReplaceAll(name, " ", "_")+".golden", e.out.String())
		for _, l := range strings.Split(e.out.String(), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, " ") && v != "" && k != "Counters" {
				if len(k)+1+len(v)-len(strings.TrimLeft(v, " ")) != keyWidth && len(k) < keyWidth-1 {
					t.Errorf("%s: value of %q not in column %d: %q", name, k, keyWidth, l)
				}
			}
		}
	}
	if len(e.warns) != 0 {
		t.Errorf("warnings: %v", e.warns)
	}
}

// TestSpecToDefinition: each option lands in the element the conformance
// file names, with values worked out by hand.
func TestSpecToDefinition(t *testing.T) {
	b := time.Date(2026, 11, 23, 8, 0, 0, 0, time.Local) // a Monday
	tests := []struct {
		name string
		spec Spec
		want func(s *collectorset.Set)
	}{
		{"defaults", Spec{}, func(s *collectorset.Set) {}},
		{"-si 1:30", Spec{SampleInterval: ptr[uint32](90)}, func(s *collectorset.Set) { s.Collector.SampleInterval = 90 }},
		{"-f bincirc -max 50", Spec{Format: ptr("BinCirc"), Max: ptr[uint32](50)}, func(s *collectorset.Set) {
			s.Collector.LogCircular, s.SegmentMaxSize = true, 50
		}},
		{"-f tsv", Spec{Format: ptr("tsv")}, func(s *collectorset.Set) { s.Collector.LogFileFormat = collectorset.TabSeparated }},
		{"-cnf 01:00:00 -retain 3,7d", Spec{Cnf: ptr[uint32](3600), Retain: &collectorset.Retention{Files: 3, Age: 7 * 24 * time.Hour, Policy: collectorset.DeleteOldest}},
			func(s *collectorset.Set) {
				s.Segment, s.SegmentMaxDuration = true, 3600
				s.DataManager = collectorset.DataManager{Enabled: true, MaxFolderCount: 3, ResourcePolicy: collectorset.DeleteOldest,
					FolderActions: []collectorset.FolderAction{{Age: 7, Actions: collectorset.DeleteData}}}
			}},
		{"-v nnnnnn -retain 12h,500MB,free=1GB,largest,check", Spec{Version: ptr(collectorset.FileNameSerialNumber),
			Retain: &collectorset.Retention{Age: 12 * time.Hour, Size: 500, Free: 1024, Policy: collectorset.DeleteLargest, Check: true}},
			func(s *collectorset.Set) {
				s.Collector.FileNameFormat = collectorset.FileNameSerialNumber
				s.DataManager = collectorset.DataManager{Enabled: true, CheckBeforeRunning: true, MaxSize: 500, MinFreeDisk: 1024, MaxAge: 12 * 3600}
			}},
		{"-retain free=1GB,check (one file)", Spec{Retain: &collectorset.Retention{Free: 1024, Check: true, Policy: collectorset.DeleteOldest}},
			func(s *collectorset.Set) {
				s.DataManager = collectorset.DataManager{Enabled: true, CheckBeforeRunning: true, MinFreeDisk: 1024, ResourcePolicy: collectorset.DeleteOldest}
			}},
		{"-u alice", Spec{RunAs: ptr("alice")}, func(s *collectorset.Set) { s.UserAccount = "alice" }},
		{"-m start stop", Spec{ManualStart: true, ManualStop: true}, func(s *collectorset.Set) {}},
		{"-cnf (no time) -max 10", Spec{Cnf: ptr[uint32](0), Max: ptr[uint32](10)}, func(s *collectorset.Set) {
			s.Segment, s.SegmentMaxSize = true, 10
		}},
		{"-f sql -o SQL:dsn!set -max 100", Spec{Format: ptr("sql"), Output: ptr("sql:dsn!set"), Max: ptr[uint32](100)}, func(s *collectorset.Set) {
			s.Collector.LogFileFormat, s.Collector.DataSourceName, s.Collector.FileName, s.Collector.SegmentMaxRecords = collectorset.Sql, "dsn", "set", 100
		}},
		{"-o /data/x.blg -v nnnnnn -a", Spec{Output: ptr("/data/x.blg"), Version: ptr(collectorset.FileNameSerialNumber), Append: ptr(true)}, func(s *collectorset.Set) {
			s.RootPath, s.Collector.FileName, s.Collector.FileNameFormat, s.Collector.LogAppend = "/data", "x", 0x200, true
		}},
		{"-o rel/y -ow", Spec{Output: ptr("rel/y"), Overwrite: ptr(true)}, func(s *collectorset.Set) {
			s.RootPath, s.Collector.FileName, s.Collector.LogOverwrite = "/home/alice/work/rel", "y", true
		}},
		{"-b once", Spec{Begin: &b}, func(s *collectorset.Set) {
			s.Schedules = []collectorset.Schedule{{StartDate: collectorset.DateOf(b), EndDate: collectorset.DateOf(b), StartTime: 8 * time.Hour, Days: 2}}
		}},
		{"-b -e", Spec{Begin: &b, End: ptr(b.Add(26 * time.Hour))}, func(s *collectorset.Set) {
			s.Schedules = []collectorset.Schedule{{StartDate: collectorset.DateOf(b), EndDate: collectorset.DateOf(b), StartTime: 8 * time.Hour, Days: 2}}
			s.Duration = 26 * 3600
		}},
		{"-b -e -r", Spec{Begin: &b, End: ptr(time.Date(2026, 12, 1, 17, 30, 0, 0, time.Local)), Repeat: ptr(true)}, func(s *collectorset.Set) {
			s.Schedules = []collectorset.Schedule{{StartDate: collectorset.DateOf(b), EndDate: time.Date(2026, 12, 1, 0, 0, 0, 0, time.Local), StartTime: 8 * time.Hour, Days: 127}}
			s.Duration = 9*3600 + 1800
		}},
		{"-b -r -rf 10:00", Spec{Begin: &b, Repeat: ptr(true), RunFor: ptr[uint32](600)}, func(s *collectorset.Set) {
			s.Schedules = []collectorset.Schedule{{StartDate: collectorset.DateOf(b), StartTime: 8 * time.Hour, Days: 127}}
			s.Duration = 600
		}},
		{"-sc -s -rc -boot", Spec{Samples: ptr[uint32](5), Server: ptr("db1"), Task: ptr("/bin/true"), RunAtBoot: ptr(true)}, func(s *collectorset.Set) {
			s.Collector.MaxSamples, s.Server, s.Task, s.RunAtBoot = 5, "db1", "/bin/true", true
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, t.TempDir(), "")
			tc.spec.Name = "s"
			mustOK(t, Create(e.o, tc.spec))
			got, err := state.ReadCollectorSet(e.o.UserDir, "s")
			mustOK(t, err)
			want := &collectorset.Set{Name: "s", RootPath: "/home/alice/.local/share/perfc/logs/s", SerialNumber: 1, SchedulesEnabled: true,
				Collector: collectorset.Counters{Name: "s", FileName: "s", SampleInterval: 15, LogFileFormat: collectorset.Binary}}
			tc.want(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stored\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestUpdateAndNegation(t *testing.T) {
	e := newEnv(t, t.TempDir(), "")
	mustOK(t, Create(e.o, Spec{Name: "u", Version: ptr(collectorset.FileNameSerialNumber), Cnf: ptr[uint32](60), Max: ptr[uint32](5),
		Append: ptr(true), Task: ptr("/bin/true"), RunAtBoot: ptr(true), Counters: []string{`\Memory\Available MBytes`}, HasCounters: true}))
	// --v --cnf --max --a --rc --boot, and a new interval.
	mustOK(t, Update(e.o, Spec{Name: "U", Version: ptr(collectorset.FileNameNone), NoCnf: true, Max: ptr[uint32](0), Append: ptr(false),
		Task: ptr(""), RunAtBoot: ptr(false), SampleInterval: ptr[uint32](2)}))
	got, err := state.ReadCollectorSet(e.o.UserDir, "u")
	mustOK(t, err)
	want := collectorset.New("u", "/home/alice/.local/share/perfc/logs/u")
	want.Collector.SampleInterval = 2
	want.Collector.Counters = []string{`\Memory\Available MBytes`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after update\n%+v\nwant\n%+v", got, want)
	}
	// An update that makes the set invalid is refused and changes nothing.
	err = Update(e.o, Spec{Name: "u", Format: ptr("csv"), Output: ptr("SQL:x!y")})
	var le *Error
	if !errors.As(err, &le) || le.Code != CodeInvalid {
		t.Errorf("invalid update: %v", err)
	}
	if again, _ := state.ReadCollectorSet(e.o.UserDir, "u"); !reflect.DeepEqual(again, want) {
		t.Errorf("a refused update changed the set: %+v", again)
	}
}

func TestMessages(t *testing.T) {
	base := t.TempDir()
	e := newEnv(t, filepath.Join(base, "u"), filepath.Join(base, "sys"))
	for _, tc := range []struct {
		name string
		run  func() error
		code uint32
		msg  string
	}{
		{"query missing", func() error { return QuerySet(e.o, "nosuch") }, CodeNotFound, "Data Collector Set was not found.\nThe command failed, code: 0x80300002"},
		{"delete missing", func() error { return Delete(e.o, "nosuch") }, CodeNotFound, "Data Collector Set was not found."},
		{"update missing", func() error { return Update(e.o, Spec{Name: "nosuch"}) }, CodeNotFound, "Data Collector Set was not found."},
		{"export missing", func() error { return Export(e.o, "nosuch", "-") }, CodeNotFound, "Data Collector Set was not found."},
		{"create twice", func() error {
			mustOK(t, Create(e.o, Spec{Name: "twice"}))
			return Create(e.o, Spec{Name: "TWICE", Overwrite: ptr(true)})
		}, CodeExists, "Data Collector Set already exists.\nThe command failed, code: 0x803000B7"},
		{"bad name", func() error { return Create(e.o, Spec{Name: "a/b"}) }, CodeInvalid, "The parameter is incorrect."},
		{"start", func() error { mustOK(t, Create(e.o, Spec{Name: "st"})); return Start(context.Background(), e.o, "st") }, CodeFailed, errCannotStart.Error()},
		{"stop stopped", func() error { return Stop(context.Background(), e.o, "st") }, CodeNotRunning, "Data Collector Set is not running.\nThe command failed, code: 0x80300104"},
		{"start running", func() error {
			o := e.o
			o.Runner = fakeRunner{running: map[string]string{"st": "pid 1"}}
			return Start(context.Background(), o, "st")
		}, CodeInUse, "already in use"},
		{"delete running", func() error {
			o := e.o
			o.Runner = fakeRunner{running: map[string]string{"st": ""}}
			return Delete(o, "st")
		}, 0x803000AA, "Stop it first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var le *Error
			if !errors.As(err, &le) || le.Code != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v; want code 0x%08X with %q", err, tc.code, tc.msg)
			}
		})
	}
	if !errors.Is(Start(context.Background(), e.o, "st"), errCannotStart) {
		t.Error("Start's error does not wrap the service's")
	}
	e.out.Reset()
	mustOK(t, Delete(e.o, "st"))
	if e.out.String() != "The command completed successfully.\n" {
		t.Errorf("delete printed %q", e.out.String())
	}
}

func TestDamagedDefinitionInQuery(t *testing.T) {
	e := newEnv(t, t.TempDir(), "")
	mustOK(t, Create(e.o, Spec{Name: "good"}))
	mustOK(t, Create(e.o, Spec{Name: "bad"}))
	file := filepath.Join(e.o.UserDir, "sets", "bad.xml")
	mustOK(t, os.WriteFile(file, []byte("<DataCollectorSet><Name>bad"), 0o644))
	e.out.Reset()
	mustOK(t, Query(e.o))
	if !strings.Contains(e.out.String(), "\ngood ") || strings.Contains(e.out.String(), "\nbad ") {
		t.Errorf("list:\n%s", e.out.String())
	}
	if len(e.warns) != 1 || !strings.Contains(e.warns[0], file) {
		t.Errorf("warnings %v; want one naming %s", e.warns, file)
	}
	if err := QuerySet(e.o, "bad"); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("query bad: %v", err)
	}
	if err := Create(e.o, Spec{Name: "bad"}); err == nil {
		t.Error("create over a damaged definition succeeded")
	}
	mustOK(t, Delete(e.o, "bad"))
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("damaged definition not deleted: %v", err)
	}
}

func TestExportImport(t *testing.T) {
	e := newEnv(t, t.TempDir(), "")
	dir := t.TempDir()
	mustOK(t, Create(e.o, Spec{Name: "orig", Counters: []string{`\Memory\Available MBytes`}, HasCounters: true, Format: ptr("bin"),
		Cnf: ptr[uint32](600), Max: ptr[uint32](20), RunAtBoot: ptr(true), Samples: ptr[uint32](100), RunAs: ptr("alice"),
		Retain: &collectorset.Retention{Files: 10, Age: 90 * time.Minute, Size: 300, Free: 2048, Policy: collectorset.DeleteLargest, Check: true}}))
	xmlFile := filepath.Join(dir, "orig.xml")
	mustOK(t, Export(e.o, "orig", xmlFile))
	mustOK(t, Import(e.o, "copy", xmlFile))
	a, _ := state.ReadCollectorSet(e.o.UserDir, "orig")
	b, err := state.ReadCollectorSet(e.o.UserDir, "copy")
	mustOK(t, err)
	a.Name, a.Collector.Name = "copy", "copy"
	if !reflect.DeepEqual(a, b) {
		t.Errorf("imported\n%+v\nwant\n%+v", b, a)
	}
	if r := b.DataManager.Retention(); r.String() != "10,90min,300MB,free=2GB,largest,check" || b.UserAccount != "alice" {
		t.Errorf("imported retention %q, user account %q", r, b.UserAccount)
	}
	if err := Import(e.o, "copy", xmlFile); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second import: %v", err)
	}
	// A running set exports with Status 1.
	o := e.o
	o.Runner = fakeRunner{running: map[string]string{"orig": ""}}
	e.out.Reset()
	mustOK(t, Export(o, "orig", "-"))
	if !strings.Contains(e.out.String(), "<Status>1</Status>") {
		t.Errorf("export of a running set:\n%s", e.out.String())
	}
	// Windows' export (UTF-16) imports; its Windows root path is replaced.
	mustOK(t, Import(e.o, "from-windows", "testdata/windows-perf_log.xml"))
	w, err := state.ReadCollectorSet(e.o.UserDir, "from-windows")
	mustOK(t, err)
	if w.RootPath != "/home/alice/.local/share/perfc/logs/from-windows" || w.Collector.FileName != "perf_log" || len(w.Collector.Counters) != 3 ||
		!w.Segment || w.SegmentMaxSize != 100 || w.Collector.FileNameFormat != collectorset.FileNameSerialNumber {
		t.Errorf("imported Windows set: %+v", w)
	}
	if len(e.warns) != 1 || !strings.Contains(e.warns[0], `%systemdrive%\PerfLogs\Admin`) {
		t.Errorf("warnings %v", e.warns)
	}
	// Bad XML: the line and element are named.
	bad := filepath.Join(dir, "bad.xml")
	mustOK(t, os.WriteFile(bad, []byte("<DataCollectorSet>\n<PerformanceCounterDataCollector>\n<SampleInterval>x</SampleInterval>\n</PerformanceCounterDataCollector>\n</DataCollectorSet>"), 0o644))
	if err := Import(e.o, "bad", bad); err == nil || !strings.Contains(err.Error(), "line 3, element DataCollectorSet/PerformanceCounterDataCollector/SampleInterval") {
		t.Errorf("bad import: %v", err)
	}
}

// TestUsersAndSystemSets runs logman as Alice and Bob against root's
// system sets: both see them, neither changes or deletes them (Access is
// denied.), Alice's sets are hers alone, and Bob never sees them.
func TestUsersAndSystemSets(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		usersStep(t, step)
		return
	}
	r := asuser.New(t)
	sys := filepath.Join(r.SharedDir(), "system")
	root := newEnv(t, sys, sys)
	mustOK(t, Create(root.o, Spec{Name: "sysset"}))
	env := []string{"SYS=" + sys, "ALICE_DIR=" + filepath.Join(r.SharedDir(), "alice"), "BOB_DIR=" + filepath.Join(r.SharedDir(), "bob")}
	for _, s := range []struct {
		u    asuser.User
		step string
	}{{asuser.Alice, "alice"}, {asuser.Bob, "bob"}} {
		if out, err := r.Run(s.u, "TestUsersAndSystemSets", s.step, env...); err != nil {
			t.Fatalf("%s: %s", s.u.Name, asuser.Failed(out, err))
		}
	}
	if _, err := state.ReadCollectorSet(sys, "sysset"); err != nil {
		t.Errorf("the system set after the users: %v", err)
	}
}

func usersStep(t *testing.T, step string) {
	sys := os.Getenv("SYS")
	var e *env
	switch step {
	case "alice":
		e = newEnv(t, os.Getenv("ALICE_DIR"), sys)
		mustOK(t, Create(e.o, Spec{Name: "mine"}))
	case "bob":
		e = newEnv(t, os.Getenv("BOB_DIR"), sys)
	default:
		t.Fatalf("unknown step %q", step)
	}
	e.out.Reset()
	mustOK(t, Query(e.o))
	if !strings.Contains(e.out.String(), "\nsysset ") {
		t.Errorf("%s does not see the system set:\n%s", step, e.out.String())
	}
	if (step == "bob") == strings.Contains(e.out.String(), "\nmine ") {
		t.Errorf("%s: Alice's set visible to the wrong user:\n%s", step, e.out.String())
	}
	mustOK(t, QuerySet(e.o, "sysset"))
	if !strings.Contains(e.out.String(), "Run As:               root\n") {
		t.Errorf("the system set does not run as root:\n%s", e.out.String())
	}
	for what, err := range map[string]error{
		"delete": Delete(e.o, "sysset"),
		"update": Update(e.o, Spec{Name: "sysset", SampleInterval: ptr[uint32](1)}),
	} {
		var le *Error
		if !errors.As(err, &le) || le.Code != CodeAccessDenied || !strings.Contains(err.Error(), "Access is denied.") {
			t.Errorf("%s %s of the system set: %v; want Access is denied.", step, what, err)
		}
	}
	if step == "bob" {
		if err := Delete(e.o, "mine"); err == nil || !strings.Contains(err.Error(), "was not found") {
			t.Errorf("bob deletes Alice's set: %v", err)
		}
		// Pointed at Alice's directory, Bob's logman refuses it.
		o := e.o
		o.UserDir = os.Getenv("ALICE_DIR")
		if err := Delete(o, "mine"); err == nil || !strings.Contains(err.Error(), "owned by uid 61001") {
			t.Errorf("bob deletes in Alice's directory: %v", err)
		}
	}
}

// TestUntrustedSystemSets: a system state directory that fails the trust
// checks costs only the system sets in the list, with a warning.
func TestUntrustedSystemSets(t *testing.T) {
	base := t.TempDir()
	sys := filepath.Join(base, "sys")
	mustOK(t, os.Mkdir(sys, 0o755))
	mustOK(t, os.Chmod(sys, 0o777))
	e := newEnv(t, filepath.Join(base, "u"), sys)
	mustOK(t, Create(e.o, Spec{Name: "mine"}))
	e.out.Reset()
	mustOK(t, Query(e.o))
	if !strings.Contains(e.out.String(), "\nmine ") {
		t.Errorf("list:\n%s", e.out.String())
	}
	if len(e.warns) != 1 || !strings.Contains(e.warns[0], "system Data Collector Sets are left out") || !strings.Contains(e.warns[0], sys) {
		t.Errorf("warnings %v", e.warns)
	}
}

// TestRefusedAtCreate: what a set could not run, and options that undo
// each other, are refused by create and update with Windows' "The
// parameter is incorrect." (never accepted there and refused at start),
// and a refused update leaves the set as it was.
func TestRefusedAtCreate(t *testing.T) {
	b := time.Date(2026, 11, 23, 8, 0, 0, 0, time.Local)
	sql := func(sp Spec) Spec {
		sp.Format, sp.Output = ptr("sql"), ptr("SQL:perfdb!week")
		return sp
	}
	for _, tc := range []struct {
		name string
		spec Spec
		msg  string
	}{
		{"-f csv -cnf 60", Spec{Format: ptr("csv"), Cnf: ptr[uint32](60)}, "binary logs only (-f bin), not Comma Separated"},
		{"-f tsv -cnf -max 5", Spec{Format: ptr("tsv"), Cnf: ptr[uint32](0), Max: ptr[uint32](5)}, "binary logs only (-f bin), not Tab Separated"},
		{"-f sql -cnf 60", sql(Spec{Cnf: ptr[uint32](60)}), "binary logs only (-f bin), not SQL"},
		{"-f bincirc -max 5 -cnf 60", Spec{Format: ptr("bincirc"), Max: ptr[uint32](5), Cnf: ptr[uint32](60)}, "circular log cannot also start new files"},
		{"-f sql long log set", Spec{Format: ptr("sql"), Output: ptr("SQL:perfdb!" + strings.Repeat("x", 1025))}, "at most 1024"},
		{"-retain 3, one file", Spec{Retain: &collectorset.Retention{Files: 3, Policy: collectorset.DeleteOldest}}, "writes one log file"},
		{"-retain 7d -f bincirc", Spec{Format: ptr("bincirc"), Max: ptr[uint32](5), Retain: &collectorset.Retention{Age: 7 * 24 * time.Hour}}, "writes one log file"},
		{"-retain 500MB -f sql", sql(Spec{Retain: &collectorset.Retention{Size: 500}}), "SQL log set has no files"},
		{"-retain free=1GB -f sql", sql(Spec{Retain: &collectorset.Retention{Free: 1024}}), "SQL log set has no files"},
		{"-m start -b", Spec{ManualStart: true, Begin: &b}, "-m start and -b exclude each other"},
		{"-m start -e", Spec{ManualStart: true, End: &b}, "-m start and -e exclude each other"},
		{"-m start -r", Spec{ManualStart: true, Repeat: ptr(true)}, "-m start and -r exclude each other"},
		{"-m stop -e", Spec{ManualStop: true, End: &b}, "-m stop and -e or -rf exclude each other"},
		{"-m stop -rf", Spec{ManualStop: true, RunFor: ptr[uint32](60)}, "-m stop and -e or -rf exclude each other"},
		{"-u bob", Spec{RunAs: ptr("bob")}, "a set runs as the user who owns it (alice)"},
		{"-u DOMAIN\\alice", Spec{RunAs: ptr(`DOMAIN\alice`)}, "never as another"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, t.TempDir(), "")
			for _, verb := range []string{"create", "update"} {
				sp := tc.spec
				sp.Name = "s"
				var err error
				var before *collectorset.Set
				if verb == "create" {
					err = Create(e.o, sp)
				} else {
					mustOK(t, Create(e.o, Spec{Name: "s"}))
					before, _ = state.ReadCollectorSet(e.o.UserDir, "s")
					err = Update(e.o, sp)
				}
				var le *Error
				if !errors.As(err, &le) || le.Code != CodeInvalid || le.Message != "The parameter is incorrect." || !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("%s: %v; want The parameter is incorrect. with %q", verb, err, tc.msg)
				}
				after, rerr := state.ReadCollectorSet(e.o.UserDir, "s")
				switch {
				case verb == "create" && rerr == nil:
					t.Errorf("a refused create stored the set")
				case verb == "update" && !reflect.DeepEqual(after, before):
					t.Errorf("a refused update changed the set:\n%+v\nwas\n%+v", after, before)
				}
			}
		})
	}
	// Import refuses what create would: a CSV that starts new files, a
	// file name that leaves the log directory.
	e := newEnv(t, t.TempDir(), "")
	for name, change := range map[string]func(s *collectorset.Set){
		"csv -cnf":      func(s *collectorset.Set) { s.Collector.LogFileFormat, s.Segment = collectorset.CommaSeparated, true },
		"file name ../": func(s *collectorset.Set) { s.Collector.FileName = "../../etc/cron.d/x" },
	} {
		s := collectorset.New("x", "/var/log/perfc/x")
		change(s)
		file := filepath.Join(t.TempDir(), "x.xml")
		mustOK(t, os.WriteFile(file, s.XML(), 0o644))
		var le *Error
		if err := Import(e.o, "x", file); !errors.As(err, &le) || le.Code != CodeInvalid {
			t.Errorf("import %s: %v; want The parameter is incorrect.", name, err)
		}
	}
}

// TestManualAndRunAs: -m start removes the schedule, -m stop the run
// time; -u takes the caller's own name and --u clears it.
func TestManualAndRunAs(t *testing.T) {
	e := newEnv(t, t.TempDir(), "")
	b := time.Date(2026, 11, 23, 8, 0, 0, 0, time.Local)
	mustOK(t, Create(e.o, Spec{Name: "m", Begin: &b, End: ptr(b.Add(time.Hour)), Repeat: ptr(true), RunAs: ptr("alice")}))
	read := func() *collectorset.Set {
		s, err := state.ReadCollectorSet(e.o.UserDir, "m")
		mustOK(t, err)
		return s
	}
	if s := read(); len(s.Schedules) != 1 || s.Duration != 3600 || s.UserAccount != "alice" {
		t.Fatalf("created %+v", s)
	}
	mustOK(t, Update(e.o, Spec{Name: "m", ManualStop: true}))
	if s := read(); len(s.Schedules) != 1 || s.Duration != 0 {
		t.Errorf("after -m stop: schedules %v, duration %d; want the schedule and no run time", s.Schedules, s.Duration)
	}
	mustOK(t, Update(e.o, Spec{Name: "m", ManualStart: true, RunFor: ptr[uint32](600), RunAs: ptr("")}))
	if s := read(); len(s.Schedules) != 0 || s.Duration != 600 || s.UserAccount != "" {
		t.Errorf("after -m start -rf 10:00 --u: schedules %v, duration %d, user %q", s.Schedules, s.Duration, s.UserAccount)
	}
}

// TestQueryDataManager: an imported Windows data manager shows its
// limits, its CAB action (not done) and its run-as account (kept as read).
func TestQueryDataManager(t *testing.T) {
	e := newEnv(t, t.TempDir(), "")
	mustOK(t, Create(e.o, Spec{Name: "w", Version: ptr(collectorset.FileNameSerialNumber)}))
	s, err := state.ReadCollectorSet(e.o.UserDir, "w")
	mustOK(t, err)
	s.UserAccount = "SYSTEM"
	s.DataManager = collectorset.DataManager{Enabled: true, MaxFolderCount: 10, ResourcePolicy: collectorset.DeleteLargest,
		FolderActions: []collectorset.FolderAction{{Age: 1, Actions: collectorset.CreateCab | collectorset.DeleteData}, {Age: 3, Actions: collectorset.DeleteData},
			{Age: 5, Size: 10, Actions: collectorset.DeleteData}}}
	mustOK(t, state.UpdateCollectorSet(e.o.UserDir, s))
	e.out.Reset()
	mustOK(t, QuerySet(e.o, "w"))
	for _, want := range []string{
		"User Account:         SYSTEM (Windows' run-as account, kept as read: the set runs as alice)\n",
		"Data Manager:         On\n", "Max Log Files:        10\n", "Max Log Age:          3 days\n", "Resource Policy:      Delete largest\n",
		"Check Before Running: Off\n",
		"Folder Action:        at 1 day: create CAB, delete data (not done: perfc makes no CAB or report files)\n",
		"Folder Action:        at 5 days and 10 MB: delete data\n",
	} {
		if !strings.Contains(e.out.String(), want) {
			t.Errorf("query lacks %q:\n%s", want, e.out.String())
		}
	}
	if strings.Contains(e.out.String(), "at 3 days") {
		t.Errorf("the age the folder action of 3 days says is shown twice:\n%s", e.out.String())
	}
}

// TestUpdateRunningSet: updating a running set says that the change
// applies at its next start (issue 44: it said nothing, and the running
// collection went on unchanged); --r without -b is accepted ("do not
// repeat" a set without a schedule).
func TestUpdateRunningSet(t *testing.T) {
	base := t.TempDir()
	e := newEnv(t, filepath.Join(base, "alice"), filepath.Join(base, "system"))
	mustOK(t, Create(e.o, Spec{Name: "run", Counters: []string{`\Memory\Available MBytes`}, HasCounters: true}))
	e.o.Runner = fakeRunner{running: map[string]string{"run": "collector pid 4242"}}
	e.out.Reset()
	mustOK(t, Update(e.o, Spec{Name: "run", SampleInterval: ptr[uint32](5)}))
	if want := "The Data Collector Set run is running: the change applies when it next starts (perfc logman stop run, then perfc logman start run).\n" + completed; e.out.String() != want {
		t.Errorf("update of a running set said\n%q\nwant\n%q", e.out.String(), want)
	}
	e.o.Runner = fakeRunner{}
	e.out.Reset()
	mustOK(t, Update(e.o, Spec{Name: "run", Repeat: ptr(false)}))
	if e.out.String() != completed {
		t.Errorf("update --r said %q", e.out.String())
	}
	if err := Update(e.o, Spec{Name: "run", Repeat: ptr(true)}); err == nil || !strings.Contains(err.Error(), "-r needs a begin time") {
		t.Errorf("update -r without -b: %v", err)
	}
}
