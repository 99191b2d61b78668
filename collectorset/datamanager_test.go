package collectorset

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRetention(t *testing.T) {
	day := 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want Retention
		err  string // part of the error; "" when it reads
	}{
		{in: "3", want: Retention{Files: 3, Policy: DeleteOldest}},
		{in: "3 files", want: Retention{Files: 3, Policy: DeleteOldest}},
		{in: "1file", want: Retention{Files: 1, Policy: DeleteOldest}},
		{in: "7d", want: Retention{Age: 7 * day, Policy: DeleteOldest}},
		{in: "7 Days", want: Retention{Age: 7 * day, Policy: DeleteOldest}},
		{in: "12h", want: Retention{Age: 12 * time.Hour, Policy: DeleteOldest}},
		{in: "90MIN", want: Retention{Age: 90 * time.Minute, Policy: DeleteOldest}},
		{in: "500MB", want: Retention{Size: 500, Policy: DeleteOldest}},
		{in: "2 gb", want: Retention{Size: 2048, Policy: DeleteOldest}},
		{in: "1TB", want: Retention{Size: 1 << 20, Policy: DeleteOldest}},
		{in: "free=1GB", want: Retention{Free: 1024, Policy: DeleteOldest}},
		{in: "FREE:300mb", want: Retention{Free: 300, Policy: DeleteOldest}},
		{in: "free 300 MB", want: Retention{Free: 300, Policy: DeleteOldest}},
		{in: "7d,3,500MB", want: Retention{Files: 3, Age: 7 * day, Size: 500, Policy: DeleteOldest}},
		{in: "7d, 3 files, 500MB, free=1GB, largest, check", want: Retention{Files: 3, Age: 7 * day, Size: 500, Free: 1024, Policy: DeleteLargest, Check: true}},
		{in: "oldest 10", want: Retention{Files: 10, Policy: DeleteOldest}},
		{in: "4294967295", want: Retention{Files: 4294967295, Policy: DeleteOldest}},
		{in: "", err: "give a limit"},
		{in: " , ", err: "give a limit"},
		{in: "largest", err: "give a limit"},
		{in: "check", err: "give a limit"},
		{in: "0", err: "at least 1"},
		{in: "0d", err: "at least 1"},
		{in: "3,4", err: "file count given twice"},
		{in: "7d,12h", err: "age given twice"},
		{in: "1GB,500MB", err: "size given twice"},
		{in: "oldest,largest", err: "policy"},
		{in: "free=1GB,free=2GB", err: "free given twice"},
		{in: "3x", err: `unit "x"`},
		{in: "1.5GB", err: "unit"},
		{in: "5m", err: `unit "m"`}, // minutes or MB: neither is guessed
		{in: "forever", err: "no limit"},
		{in: "free", err: "free needs a size"},
		{in: "free=3", err: `unit ""`},
		{in: "free=2d", err: `unit "d"`},
		{in: "4294967296", err: "too large"},
		{in: "4294967295GB", err: "more than"},
		{in: "200000d", err: "too long"},
	} {
		got, err := ParseRetention(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseRetention(%q): %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseRetention(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("ParseRetention(%q) = %+v; want %+v", tc.in, got, tc.want)
		case tc.err == "":
			// What String writes reads back the same.
			again, err := ParseRetention(got.String())
			if err != nil || again != got {
				t.Errorf("%q: String %q reads back as %+v, %v", tc.in, got.String(), again, err)
			}
		}
	}
}

// TestRetentionOnDataManager: -retain lands in MS-PLA's elements (an age
// of whole days in a FolderAction, another in perfc's MaxAge), reads back
// from them, and --retain clears them, keeping Windows' CAB actions.
func TestRetentionOnDataManager(t *testing.T) {
	day := 24 * time.Hour
	cab := FolderAction{Age: 1, Actions: CreateCab | DeleteData}
	for _, tc := range []struct {
		name string
		r    Retention
		want DataManager
	}{
		{"files", Retention{Files: 3, Policy: DeleteOldest}, DataManager{Enabled: true, MaxFolderCount: 3, ResourcePolicy: DeleteOldest}},
		{"days", Retention{Age: 7 * day, Policy: DeleteOldest}, DataManager{Enabled: true, ResourcePolicy: DeleteOldest,
			FolderActions: []FolderAction{cab, {Age: 7, Actions: DeleteData}}}},
		{"hours", Retention{Age: 36 * time.Hour, Policy: DeleteOldest}, DataManager{Enabled: true, ResourcePolicy: DeleteOldest, MaxAge: 36 * 3600}},
		{"all", Retention{Files: 5, Size: 100, Free: 50, Policy: DeleteLargest, Check: true}, DataManager{Enabled: true, CheckBeforeRunning: true,
			MaxFolderCount: 5, MaxSize: 100, MinFreeDisk: 50, ResourcePolicy: DeleteLargest}},
		{"clear", Retention{}, DataManager{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A data manager with Windows' CAB action and an older -retain.
			m := DataManager{ReportFileName: "r.html", FolderActions: []FolderAction{cab, {Age: 2, Actions: DeleteData}}, MaxAge: 60}
			m.SetRetention(Retention{Files: 9, Size: 9, Free: 9, Check: true})
			m.SetRetention(tc.r)
			tc.want.ReportFileName = "r.html"
			if tc.want.FolderActions == nil {
				tc.want.FolderActions = []FolderAction{cab}
			}
			if !reflect.DeepEqual(m, tc.want) {
				t.Errorf("data manager\n%+v\nwant\n%+v", m, tc.want)
			}
			if got := m.Retention(); got != tc.r {
				t.Errorf("reads back as %+v, want %+v", got, tc.r)
			}
		})
	}
	// A Windows data manager: the shortest age of the actions that only
	// delete, whatever MaxAge says.
	m := DataManager{Enabled: true, MaxAge: 10 * 86400, FolderActions: []FolderAction{cab, {Age: 3, Actions: DeleteData | DeleteReport}, {Age: 1, Size: 5, Actions: DeleteData}}}
	if got := m.Retention(); got.Age != 3*day {
		t.Errorf("age %v, want 3 days", got.Age)
	}
	if (&DataManager{MaxFolderCount: 3}).Retention() != (Retention{}) {
		t.Error("a data manager that is not enabled retains")
	}
}

// TestFolderActionForms: a FolderAction directly under DataManager (MS-PLA's
// documentation) and inside FolderActions (testdata) read the same.
func TestFolderActionForms(t *testing.T) {
	const coll = "<PerformanceCounterDataCollector><Name>x</Name></PerformanceCounterDataCollector>"
	want := []FolderAction{{Age: 7, Size: 2, Actions: DeleteData, SendCabTo: `\\srv\x`}, {Age: 1}}
	for name, dm := range map[string]string{
		"direct": "<DataManager><FolderAction><Age>7</Age><Size>2</Size><Actions>2</Actions><SendCabTo>\\\\srv\\x</SendCabTo></FolderAction>" +
			"<FolderAction><Age>1</Age><Unknown>5</Unknown></FolderAction></DataManager>",
		"list": "<DataManager><FolderActions><FolderAction><Actions>2</Actions><Age>7</Age><Size>2</Size><SendCabTo>\\\\srv\\x</SendCabTo></FolderAction>" +
			"<FolderAction><Age>1</Age></FolderAction></FolderActions></DataManager>",
	} {
		s, err := ParseXML([]byte("<DataCollectorSet>"+coll+dm+"</DataCollectorSet>"), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(s.DataManager.FolderActions, want) {
			t.Errorf("%s: %+v, want %+v", name, s.DataManager.FolderActions, want)
		}
	}
	_, err := ParseXML([]byte("<DataCollectorSet>"+coll+"<DataManager><FolderAction><Age>x</Age></FolderAction></DataManager></DataCollectorSet>"), "bad")
	if err == nil || !strings.Contains(err.Error(), "DataCollectorSet/DataManager/FolderAction/Age") {
		t.Errorf("bad age: %v", err)
	}
	many := strings.Repeat("<FolderAction/>", maxFolderActions+1)
	if _, err := ParseXML([]byte("<DataCollectorSet>"+coll+"<DataManager>"+many+"</DataManager></DataCollectorSet>"), "many"); err == nil {
		t.Error("more than maxFolderActions folder actions read")
	}
}

// TestCheckRunnable: what a set may hold but perfc cannot run.
func TestCheckRunnable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *Set)
		err    string // "" when the set runs
	}{
		{"defaults", func(s *Set) {}, ""},
		{"bin -cnf", func(s *Set) { s.Segment, s.SegmentMaxDuration = true, 60 }, ""},
		{"csv -cnf", func(s *Set) { s.Collector.LogFileFormat, s.Segment = CommaSeparated, true }, "binary logs only"},
		{"tsv -cnf", func(s *Set) { s.Collector.LogFileFormat, s.Segment = TabSeparated, true }, "not Tab Separated"},
		{"sql -cnf", func(s *Set) {
			s.Collector.LogFileFormat, s.Collector.DataSourceName, s.Segment = Sql, "db", true
		}, "not SQL"},
		{"relative root", func(s *Set) { s.RootPath = "logs" }, "not an absolute path"},
		{"windows root", func(s *Set) { s.RootPath = `%systemdrive%\PerfLogs` }, "not an absolute path"},
		{"sql without root", func(s *Set) { s.Collector.LogFileFormat, s.Collector.DataSourceName, s.RootPath = Sql, "db", "" }, ""},
		{"file name with /", func(s *Set) { s.Collector.FileName = "../../etc/x" }, "no file name"},
		{"file name ..", func(s *Set) { s.Collector.FileName = ".." }, "no file name"},
		{"sql log set with !", func(s *Set) {
			s.Collector.LogFileFormat, s.Collector.DataSourceName, s.Collector.FileName = Sql, "db", "a!b"
		}, "holds '!'"},
		{"sql log set too long", func(s *Set) {
			s.Collector.LogFileFormat, s.Collector.DataSourceName, s.Collector.FileName = Sql, "db", strings.Repeat("x", 1025)
		}, "at most 1024"},
		{"resource policy", func(s *Set) { s.DataManager.ResourcePolicy = 2 }, "resource policy 2"},
		{"folder action bits", func(s *Set) { s.DataManager.FolderActions = []FolderAction{{Actions: 0x40}} }, "unknown bits"},
		{"folder action 49710 days", func(s *Set) {
			s.DataManager.FolderActions = []FolderAction{{Age: 49710, Actions: DeleteData}}
		}, ""},
		{"folder action 49711 days", func(s *Set) {
			s.DataManager.FolderActions = []FolderAction{{Age: 49711, Actions: DeleteData}}
		}, "49711 days is more than perfc keeps a log (49710 days)"},
		{"folder action 4294967295 days", func(s *Set) {
			s.DataManager.FolderActions = []FolderAction{{Age: 4294967295, Actions: DeleteData}}
		}, "4294967295 days"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New("s", "/var/log/perfc/s")
			tc.change(s)
			err := s.CheckRunnable()
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CheckRunnable: %v; want %q", err, tc.err)
			}
		})
	}
}

func TestWritesSeries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *Set)
		rolls  bool
		series bool
	}{
		{"one file", func(s *Set) {}, false, false},
		{"-v nnnnnn", func(s *Set) { s.Collector.FileNameFormat = FileNameSerialNumber }, false, true},
		{"-v mmddhhmm csv", func(s *Set) {
			s.Collector.FileNameFormat, s.Collector.LogFileFormat = FileNameMonthDayHourMinute, CommaSeparated
		}, false, true},
		{"-cnf 60", func(s *Set) { s.Segment, s.SegmentMaxDuration = true, 60 }, true, true},
		{"-cnf -max", func(s *Set) { s.Segment, s.SegmentMaxSize = true, 5 }, true, true},
		{"-cnf alone", func(s *Set) { s.Segment = true }, false, false},
		{"bincirc", func(s *Set) { s.Collector.LogCircular, s.SegmentMaxSize = true, 5 }, false, false},
		{"sql -v", func(s *Set) { s.Collector.LogFileFormat, s.Collector.FileNameFormat = Sql, FileNameSerialNumber }, false, false},
	} {
		s := New("s", "/tmp/s")
		tc.change(s)
		if s.Rolls() != tc.rolls || s.WritesSeries() != tc.series {
			t.Errorf("%s: Rolls %v, WritesSeries %v; want %v, %v", tc.name, s.Rolls(), s.WritesSeries(), tc.rolls, tc.series)
		}
	}
}

// TestFolderActionAge: an age in days becomes a duration that never wraps
// (106,751 days is the most a time.Duration holds).
func TestFolderActionAge(t *testing.T) {
	const day = int64(86400e9)
	for _, tc := range []struct {
		days uint32
		want time.Duration
	}{
		{0, 0},
		{1, time.Duration(day)},
		{49710, time.Duration(49710 * day)},
		{106751, time.Duration(106751 * day)},
		{106752, math.MaxInt64},
		{4294967295, math.MaxInt64},
	} {
		if got := (FolderAction{Age: tc.days}).AgeDuration(); got != tc.want || got < 0 {
			t.Errorf("%d days: %v, want %v", tc.days, got, tc.want)
		}
	}
	if MaxFolderActionDays != 49710 {
		t.Errorf("MaxFolderActionDays %d, want 49710 (2^32-1 seconds in whole days)", MaxFolderActionDays)
	}
}
