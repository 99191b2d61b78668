package collectorset

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/internal/golden"
)

// windowsSet is testdata/windows-perf_log.xml as a person reads it from the
// file (PROVENANCE.md), written out independently of the reader.
func windowsSet() *Set {
	return &Set{
		Name:               "perf_log",
		Duration:           3600,
		SchedulesEnabled:   true,
		Keywords:           []string{"web"},
		RootPath:           `%systemdrive%\PerfLogs\Admin`,
		Segment:            true,
		SegmentMaxDuration: 3600,
		SegmentMaxSize:     100,
		SerialNumber:       1,
		SubdirectoryFormat: 1,
		Schedules: []Schedule{{
			StartDate: time.Date(2026, 11, 23, 0, 0, 0, 0, time.Local),
			StartTime: 8 * time.Hour,
			Days:      Everyday,
		}},
		UserAccount: "SYSTEM",
		Security:    "O:BAG:S-1-5-21-1004336348-1177238915-682003330-512D:AI(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;LU)(A;;0x1301ff;;;S-1-5-80-2661322625-712705077-2999183737-3043590567-590698655)",
		Collector: Counters{
			Name:           "perf_log",
			FileName:       "perf_log",
			FileNameFormat: 0x200,
			SampleInterval: 15,
			LogFileFormat:  3,
			Counters:       []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`, `\PhysicalDisk(*)\Avg. Disk Queue Length`},
		},
		DataManager: DataManager{ReportFileName: "report.html", RuleTargetFileName: "report.xml",
			FolderActions: []FolderAction{{Age: 1, Actions: CreateCab | DeleteData}}},
	}
}

func TestImportWindowsExport(t *testing.T) {
	b, err := os.ReadFile("testdata/windows-perf_log.xml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseXML(b, "windows-perf_log.xml")
	if err != nil {
		t.Fatal(err)
	}
	if want := windowsSet(); !reflect.DeepEqual(got, want) {
		t.Errorf("read\n%+v\nwant\n%+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Windows' set does not validate: %v", err)
	}
}

// elementsWindowsReads is the element list of the conformance file
// (sql-logman-perfmon.md section 3), parent/child.
var elementsWindowsReads = []string{
	"Status", "Duration", "Description", "DisplayName", "SchedulesEnabled", "LatestOutputLocation", "Name",
	"OutputLocation", "RootPath", "Segment", "SegmentMaxDuration", "SegmentMaxSize", "SerialNumber", "Server",
	"Subdirectory", "SubdirectoryFormat", "SubdirectoryFormatPattern", "Task", "TaskRunAsSelf", "TaskArguments",
	"UserAccount", "Security", "StopOnCompletion", "Keyword",
	"Schedule/StartDate", "Schedule/EndDate", "Schedule/StartTime", "Schedule/Days",
	"PerformanceCounterDataCollector/DataCollectorType", "PerformanceCounterDataCollector/Name",
	"PerformanceCounterDataCollector/FileName", "PerformanceCounterDataCollector/FileNameFormat",
	"PerformanceCounterDataCollector/FileNameFormatPattern", "PerformanceCounterDataCollector/LogAppend",
	"PerformanceCounterDataCollector/LogCircular", "PerformanceCounterDataCollector/LogOverwrite",
	"PerformanceCounterDataCollector/LatestOutputLocation", "PerformanceCounterDataCollector/DataSourceName",
	"PerformanceCounterDataCollector/SampleInterval", "PerformanceCounterDataCollector/SegmentMaxRecords",
	"PerformanceCounterDataCollector/LogFileFormat", "PerformanceCounterDataCollector/Counter",
	"PerformanceCounterDataCollector/CounterDisplayName",
	"DataManager/Enabled", "DataManager/CheckBeforeRunning", "DataManager/MinFreeDisk", "DataManager/MaxSize",
	"DataManager/MaxFolderCount", "DataManager/ResourcePolicy",
}

// elementPaths lists the element paths below the root of an XML document,
// read with encoding/xml directly.
func elementPaths(t *testing.T, b []byte) map[string]bool {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var stack []string
	seen := map[string]bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, e.Name.Local)
			if len(stack) > 1 {
				seen[strings.Join(stack[1:], "/")] = true
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return seen
}

func TestExportHoldsEveryElementWindowsReads(t *testing.T) {
	s := windowsSet()
	s.RootPath = "/var/log/perfc/perf_log"
	b := s.XML()
	golden.Check(t, "testdata/export-perf_log.xml.golden", string(b))
	seen := elementPaths(t, b)
	for _, e := range elementsWindowsReads {
		if !seen[e] {
			t.Errorf("our export lacks %s", e)
		}
	}
	if !bytes.HasPrefix(b, []byte("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DataCollectorSet>\n<Status>0</Status>\n")) {
		t.Errorf("export starts %q", b[:80])
	}
	for _, want := range []string{"<Segment>-1</Segment>", "<LogCircular>0</LogCircular>", "<FileNameFormat>512</FileNameFormat>",
		"<LogFileFormat>3</LogFileFormat>", "<StartDate>11/23/2026</StartDate>", "<StartTime>8:00:00 AM</StartTime>",
		"<Days>127</Days>", `<Counter>\Memory\Available MBytes</Counter>`, "<OutputLocation>/var/log/perfc/perf_log/perf_log_000001.plog</OutputLocation>"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("export lacks %s", want)
		}
	}
}

// roundTripSets are sets of every shape the options make.
func roundTripSets() map[string]*Set {
	loc := time.Local
	sets := map[string]*Set{
		"defaults": New("perf_log", "/var/log/perfc/perf_log"),
		"windows":  windowsSet(),
	}
	s := New("circular & <odd> \"name\"", "/home/alice/.local/share/perfc/logs/c")
	s.Collector.LogCircular, s.SegmentMaxSize = true, 250
	s.Collector.Counters = []string{`\Process(perfc#2)\% Processor Time`, `\LogicalDisk(/home)\% Free Space`}
	s.Description, s.DisplayName = "a set with blanks inside", "Circular"
	sets["bincirc"] = s
	s = New("csv-versioned", "/tmp/x")
	s.Collector.LogFileFormat, s.Collector.FileNameFormat = CommaSeparated, FileNameMonthDayHourMinute
	s.Collector.LogAppend, s.Collector.SampleInterval, s.Collector.MaxSamples = true, 1, 100
	s.RunAtBoot, s.Server, s.Task, s.TaskArguments = true, "db1", "/usr/local/bin/ship", "{logfile}"
	s.Keywords = []string{"a", "b"}
	sets["csv"] = s
	s = New("sql", "/tmp/y")
	s.Collector.LogFileFormat, s.Collector.DataSourceName, s.Collector.FileName = Sql, "perfdb", "logset1"
	s.Collector.SegmentMaxRecords, s.Collector.LogOverwrite = 5000, true
	s.Schedules = []Schedule{
		{StartDate: time.Date(2027, 1, 2, 0, 0, 0, 0, loc), EndDate: time.Date(2027, 1, 2, 0, 0, 0, 0, loc), StartTime: 13*time.Hour + 30*time.Minute + 15*time.Second, Days: Day(time.Saturday)},
		{StartDate: time.Date(999, 12, 31, 0, 0, 0, 0, loc), StartTime: 0, Days: Everyday},
	}
	s.Duration, s.SchedulesEnabled = 86399, false
	s.DataManager = DataManager{Enabled: true, CheckBeforeRunning: true, MinFreeDisk: 200, MaxSize: 1024, MaxFolderCount: 10, ResourcePolicy: 1, EventsFileName: "e.xml"}
	sets["sql"] = s
	s = NewAlert("alert <&> one")
	s.Alert.Thresholds = []string{`\Processor(_Total)\% Processor Time>90`, `\LogicalDisk(*)\% Free Space<10.5`}
	s.Alert.EventLog, s.Alert.SampleInterval, s.Alert.Task, s.Alert.TaskArguments = true, 2, "/usr/bin/logger", "-t perfc {counter} {value}"
	s.Alert.TaskUserTextArguments, s.Alert.TaskRunAsSelf, s.Alert.TriggerDataCollectorSet = "{name} at {date}", true, "cpu_log"
	s.Alert.Hold, s.Alert.Hysteresis, s.Alert.OnChange, s.Alert.ActionInterval = 3, 2.5, true, 600
	s.Keywords = []string{"ops"}
	sets["alert"] = s
	sets["alert-defaults"] = NewAlert("a2")
	s = New("retained", "/var/log/perfc/retained")
	s.Collector.FileNameFormat, s.Segment, s.SegmentMaxDuration = FileNameSerialNumber, true, 60
	s.DataManager.SetRetention(Retention{Files: 3, Age: 12 * time.Hour, Size: 500, Free: 2048, Policy: DeleteLargest, Check: true})
	s.DataManager.FolderActions = append(s.DataManager.FolderActions,
		FolderAction{Age: 7, Actions: DeleteData}, FolderAction{Age: 30, Size: 10, Actions: CreateCab | SendCab, SendCabTo: `\\srv\cabs`})
	sets["retention"] = s
	return sets
}

func TestRoundTrip(t *testing.T) {
	for name, s := range roundTripSets() {
		t.Run(name, func(t *testing.T) {
			for enc, b := range map[string][]byte{"utf-8": s.XML(), "utf-16": EncodeUTF16(s.XML())} {
				got, err := ParseXML(b, name+".xml")
				if err != nil {
					t.Fatalf("%s: %v", enc, err)
				}
				if !reflect.DeepEqual(got, s) {
					t.Errorf("%s: read back\n%+v\nwant\n%+v", enc, got, s)
				}
			}
		})
	}
}

func TestDecodeText(t *testing.T) {
	const text = "<a>é€𝄞</a>"
	u := utf16.Encode([]rune(text))
	le, be := []byte{}, []byte{}
	for _, c := range u {
		le = append(le, byte(c), byte(c>>8))
		be = append(be, byte(c>>8), byte(c))
	}
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"utf-8", []byte(text)},
		{"utf-8 bom", append([]byte{0xEF, 0xBB, 0xBF}, text...)},
		{"utf-16le bom", append([]byte{0xFF, 0xFE}, le...)},
		{"utf-16be bom", append([]byte{0xFE, 0xFF}, be...)},
		{"utf-16le no bom", le},
	} {
		got, err := DecodeText(tc.in)
		if err != nil || string(got) != text {
			t.Errorf("%s: %q, %v", tc.name, got, err)
		}
	}
	if _, err := DecodeText([]byte{0xFF, 0xFE, '<'}); err == nil {
		t.Error("odd-length UTF-16 accepted")
	}
}

func TestBadXML(t *testing.T) {
	const head = "<?xml version=\"1.0\"?>\n<DataCollectorSet>\n"
	const coll = "<PerformanceCounterDataCollector><Name>x</Name></PerformanceCounterDataCollector>\n"
	for _, tc := range []struct {
		name, in   string
		line       int
		element    string
		reasonPart string
	}{
		{"not a number", head + "<Duration>\n</Duration>\n<SegmentMaxSize>ten</SegmentMaxSize>\n" + coll + "</DataCollectorSet>", 5, "DataCollectorSet/SegmentMaxSize", `"ten" is not a number`},
		{"bad boolean", head + coll + "<Segment>yes</Segment></DataCollectorSet>", 4, "DataCollectorSet/Segment", "not a boolean"},
		{"interval too big", head + "<PerformanceCounterDataCollector>\n<SampleInterval>4294967296</SampleInterval></PerformanceCounterDataCollector></DataCollectorSet>", 4, "DataCollectorSet/PerformanceCounterDataCollector/SampleInterval", "not a number"},
		{"bad format", head + "<PerformanceCounterDataCollector>\n<LogFileFormat>7</LogFileFormat></PerformanceCounterDataCollector></DataCollectorSet>", 4, "DataCollectorSet/PerformanceCounterDataCollector/LogFileFormat", "log file format 7"},
		{"trace collector", head + coll + "<TraceDataCollector>\n</TraceDataCollector></DataCollectorSet>", 4, "DataCollectorSet/TraceDataCollector", "trace collector"},
		{"two collectors", head + coll + coll + "</DataCollectorSet>", 4, "DataCollectorSet/PerformanceCounterDataCollector", "a second"},
		{"other root", "<DataCollectorSets>\n</DataCollectorSets>", 1, "DataCollectorSets", "not a DataCollectorSet"},
		{"mismatched tag", head + "<Name>x</Nam>\n</DataCollectorSet>", 3, "DataCollectorSet/Name", "element <Name> closed by </Nam>"},
		{"cut short", head + coll + "<Name>x</Name>\n<RootPath>", 5, "DataCollectorSet/RootPath", "ends"},
		{"no collector", head + "</DataCollectorSet>", 0, "DataCollectorSet", "no PerformanceCounterDataCollector"},
		{"bad date", head + "<Schedule>\n<StartDate>31/31/2026</StartDate></Schedule>" + coll + "</DataCollectorSet>", 4, "DataCollectorSet/Schedule/StartDate", "date"},
		{"bad encoding", "<?xml version=\"1.0\" encoding=\"KOI8-R\"?>\n<DataCollectorSet/>", 1, "", "KOI8-R"},
		{"too deep", head + strings.Repeat("<a>", 40) + strings.Repeat("</a>", 40) + "</DataCollectorSet>", 3, "DataCollectorSet/a/a", "deeper than 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseXML([]byte(tc.in), "bad.xml")
			var xe *XMLError
			if !errors.As(err, &xe) {
				t.Fatalf("error %v; want an *XMLError", err)
			}
			if xe.File != "bad.xml" || xe.Line != tc.line || !strings.HasPrefix(xe.Element, tc.element) || !strings.Contains(err.Error(), tc.reasonPart) {
				t.Errorf("error %q (line %d, element %q); want line %d, element %s, reason with %q", err, xe.Line, xe.Element, tc.line, tc.element, tc.reasonPart)
			}
		})
	}
	big := make([]byte, MaxXMLSize+1)
	if _, err := ParseXML(big, "big.xml"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}
	if _, err := ReadXML(bytes.NewReader(big), "big.xml"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized reader: %v", err)
	}
}

// FuzzParseXML: no input panics or costs more than linear work, and what
// is read writes out and reads back the same.
func FuzzParseXML(f *testing.F) {
	for _, name := range []string{"testdata/windows-perf_log.xml", "testdata/windows-cpu_alert.xml"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range roundTripSets() {
		f.Add(s.XML())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseXML(b, "fuzz.xml")
		if err != nil {
			return
		}
		again, err := ParseXML(s.XML(), "again.xml")
		if err != nil {
			t.Fatalf("our export of a set read does not read: %v\n%s", err, s.XML())
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("read back\n%+v\nwant\n%+v", again, s)
		}
		s.Validate()
		s.OutputLocation(time.Time{})
	})
}
