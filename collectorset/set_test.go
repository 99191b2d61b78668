package collectorset

import (
	"strings"
	"testing"
	"time"
)

func TestParseSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"15", 15, true}, {"1:30", 90, true}, {"01:00:00", 3600, true}, {"0", 0, true}, {"2:3:4", 2*3600 + 3*60 + 4, true},
		{"90:00", 5400, true}, {"1193046:28:15", 4294967295, true}, {"1193046:28:16", 0, false},
		{"", 0, false}, {"1:2:3:4", 0, false}, {"a", 0, false}, {"1:", 0, false}, {":5", 0, false}, {"-1", 0, false}, {"99999999999", 0, false},
	} {
		got, err := ParseSeconds(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSeconds(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, s := range []uint32{0, 59, 3600, 86399, 360000} {
		if got, err := ParseSeconds(FormatSeconds(s)); err != nil || got != s {
			t.Errorf("FormatSeconds(%d) = %q reads back as %d, %v", s, FormatSeconds(s), got, err)
		}
	}
}

func TestParseFormatAndVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		f    LogFileFormat
		circ bool
		ok   bool
	}{
		{"bin", 3, false, true}, {"BINCIRC", 3, true, true}, {"csv", 0, false, true}, {"Tsv", 1, false, true}, {"sql", 2, false, true},
		{"blg", 4, false, true}, {"BLGCIRC", 0, false, false}, {"", 0, false, false},
	} {
		f, circ, err := ParseFormat(tc.in)
		if (err == nil) != tc.ok || f != tc.f || circ != tc.circ {
			t.Errorf("ParseFormat(%q) = %d, %v, %v", tc.in, f, circ, err)
		}
		if tc.ok && !strings.EqualFold(FormatName(f, circ), tc.in) {
			t.Errorf("FormatName(%d, %v) = %q; want %q", f, circ, FormatName(f, circ), tc.in)
		}
	}
	for in, want := range map[string]FileNameFormat{"nnnnnn": 0x200, "MMDDHHMM": 0x4000} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %#x, %v", in, got, err)
		}
	}
	if _, err := ParseVersion("yyyymmdd"); err == nil {
		t.Error("ParseVersion accepted yyyymmdd")
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 11, 23, 17, 30, 5, 0, time.UTC)
	for _, in := range []string{"11/23/2026 5:30:05PM", "11/23/2026 5:30:05 pm", "11/23/2026 17:30:05"} {
		if got, err := ParseTime(in, time.UTC); err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"2026-11-23 17:30", "11/23/2026 25:00:00", "tomorrow"} {
		if _, err := ParseTime(in, time.UTC); err == nil {
			t.Errorf("ParseTime(%q) accepted", in)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"perf_log": true, "System Performance": true, "Überwachung": true, strings.Repeat("x", MaxNameLen): true,
		"": false, strings.Repeat("x", MaxNameLen+1): false, "a/b": false, `a\b`: false, "a:b": false, "a*": false, ".hidden": false,
		" lead": false, "trail ": false, "tab\there": false, "\xff": false, "..": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v; want ok %v", name, err, ok)
		}
	}
	if !SameName("Perf_Log", "PERF_LOG") || SameName("a", "b") {
		t.Error("SameName")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *Set)
		want string // "" = valid
	}{
		{"defaults", func(s *Set) {}, ""},
		{"interval 0", func(s *Set) { s.Collector.SampleInterval = 0 }, "sample interval 0"},
		{"sql without dsn", func(s *Set) { s.Collector.LogFileFormat = Sql }, "SQL:DSN!logset"},
		{"circular csv", func(s *Set) {
			s.Collector.LogFileFormat, s.Collector.LogCircular, s.SegmentMaxSize = CommaSeparated, true, 5
		}, "must be binary"},
		{"circular without max", func(s *Set) { s.Collector.LogCircular = true }, "maximum size"},
		{"circular with cnf", func(s *Set) { s.Collector.LogCircular, s.SegmentMaxSize, s.Segment = true, 5, true }, "cannot also start new files"},
		{"append and overwrite", func(s *Set) { s.Collector.LogAppend, s.Collector.LogOverwrite = true, true }, "exclude each other"},
		{"bad counter", func(s *Set) { s.Collector.Counters = []string{"Processor"} }, `counter "Processor"`},
		{"unknown format", func(s *Set) { s.Collector.LogFileFormat = 9 }, "none of"},
		{"unknown name bits", func(s *Set) { s.Collector.FileNameFormat = 0x8 }, "unknown bits"},
		{"bad days", func(s *Set) { s.Schedules = []Schedule{{Days: 128}} }, "name no weekday"},
		{"end before start", func(s *Set) {
			s.Schedules = []Schedule{{StartDate: time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC), EndDate: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Days: 1}}
		}, "ends (2/1/2026) before it starts (2/2/2026)"},
		{"bad name", func(s *Set) { s.Name = "a|b" }, "may not hold"},
	} {
		s := New("perf_log", "/var/log/perfc/perf_log")
		tc.edit(s)
		err := s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

func TestOutputLocation(t *testing.T) {
	at := time.Date(2026, 5, 12, 6, 33, 0, 0, time.UTC)
	for _, tc := range []struct {
		edit func(s *Set)
		want string
	}{
		{func(s *Set) {}, "/logs/dc2.plog"},
		{func(s *Set) { s.Collector.FileNameFormat, s.SerialNumber = FileNameSerialNumber, 1 }, "/logs/dc2_000001.plog"},
		{func(s *Set) {
			s.Collector.FileNameFormat, s.Collector.LogFileFormat = FileNameMonthDayHourMinute, CommaSeparated
		}, "/logs/dc2_05120633.csv"},
		{func(s *Set) {
			s.Collector.FileNameFormat, s.Collector.LogFileFormat = FileNameMonthDayHour, TabSeparated
		}, "/logs/dc2_051206.tsv"},
		{func(s *Set) {
			s.Collector.LogFileFormat, s.Collector.DataSourceName, s.Collector.FileName = Sql, "db", "set1"
		}, "SQL:db!set1"},
	} {
		s := New("dc2", "/logs/")
		tc.edit(s)
		if got := s.OutputLocation(at); got != tc.want {
			t.Errorf("OutputLocation = %q; want %q", got, tc.want)
		}
	}
}
