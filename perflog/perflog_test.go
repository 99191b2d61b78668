package perflog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/wintz"
)

// TestDetect recognises each format by content, whatever the file is
// called, and leaves names that are none of them to the BLG reader.
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content string
		want          Format
	}{
		{"a.blg", "\x89PLOG\r\n\x1a\x01\x00", BIN},        // our binary log named .blg
		{"b.csv", "\x89PLOG\r\n\x1a\x01\x00", BIN},        // ... or .csv
		{"c.bin", "P\x00E\x00R\x00F\x00\x01\x00", Blocks}, // a PERF_DATA_BLOCK
		{"d.txt", `"(PDH-CSV 4.0) (UTC)(0)","\\h\o\c"`, CSV},
		{"e", "\xef\xbb\xbf\"(PDH-CSV 4.0)\",\"x\"", CSV}, // with a BOM
		{"f.log", "\"(PDH-TSV 4.0) (UTC)(0)\"\t\"\\\\h\\o\\c\"", TSV},
		{"CorruptBlg.blg", `"(Pacific Daylight Time)(420)","\\CHANDSR-X86\Processor(0)\% Processor Time"`, BLG},
		{"empty", "", BLG},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Detect(p)
		if err != nil || got != c.want {
			t.Errorf("Detect(%s) = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	if got, err := Detect("sql:perf!run"); err != nil || got != SQL {
		t.Errorf("Detect(sql:perf!run) = %v, %v; want SQL", got, err)
	}
	if _, err := Detect(filepath.Join(dir, "missing")); err == nil {
		t.Error("Detect of a missing file: no error")
	}
}

func TestOutputNameAndFormats(t *testing.T) {
	cases := []struct {
		flag, name, want string
	}{
		{"csv", `logs/c`, `logs/c.csv`},
		{"TSV", `c`, `c.tsv`},
		{"bin", `c`, `c.plog`},
		{"Bin", `c.blg`, `c.blg`},
		{"csv", `c.txt`, `c.txt`},
		{"csv", `-`, `-`},
		{"sql", `SQL:perf!run`, `SQL:perf!run`},
	}
	for _, c := range cases {
		f, err := ParseFormat(c.flag)
		if err != nil {
			t.Fatalf("ParseFormat(%q): %v", c.flag, err)
		}
		if got := OutputName(c.name, f); got != c.want {
			t.Errorf("OutputName(%q, %v) = %q, want %q", c.name, f, got, c.want)
		}
	}
	if _, err := ParseFormat("blg"); err == nil || !strings.Contains(err.Error(), "CSV, TSV, BIN or SQL") {
		t.Errorf("ParseFormat(blg) = %v; want an error naming the formats", err)
	}
}

// TestOpenRefusesWhatIsNotALog: a file that is no log is an error naming
// it, and nothing is left open.
func TestOpenRefusesWhatIsNotALog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), []string{p}, OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Open(notes.txt) = %v; want an error naming the file", err)
	}
	if _, err := Open(context.Background(), nil, OpenOptions{}); err == nil {
		t.Fatal("Open of no input: no error")
	}
}

// TestCommonZone: inputs merged keep their zone when they agree on it over
// the time they cover, though one knows it by its rules (a BLG) and the
// other by a name and a bias (the CSV Windows wrote from the same
// samples); inputs of different zones are shown in the machine's.
func TestCommonZone(t *testing.T) {
	dir := filepath.Join("blg", "testdata")
	for _, tc := range []struct {
		files []string
		want  string // the zone's name at the first sample, as a text log's header gives it
		local bool
	}{
		{[]string{"CounterSamples.blg", "CounterSamples.csv"}, "Pacific Standard Time", false},
		{[]string{"CounterSamples.csv", "CounterSamples.blg"}, "Pacific Standard Time", false},
		{[]string{"SampleLog.blg", "SampleLog.blg"}, "Eastern Daylight Time", false},
		{[]string{"SampleLog.blg", "CounterSamples.csv"}, "", true},
		{[]string{"BadCounterSamples.blg", "CounterSamples.blg"}, "", true},
	} {
		var names []string
		for _, f := range tc.files {
			names = append(names, filepath.Join(dir, f))
		}
		in, err := Open(t.Context(), names, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		first := in.Source.Recorded().Time(0)
		got := wintz.At(first.In(in.Location)).Name
		switch {
		case tc.local && in.Location != time.Local:
			t.Errorf("%v: zone %s (%s), want the machine's", tc.files, in.Location, got)
		case !tc.local && got != tc.want:
			t.Errorf("%v: zone %s (%s), want %s", tc.files, in.Location, got, tc.want)
		}
		in.Close()
	}
	// Over July, a zone with daylight time and the fixed zone of its
	// standard time disagree.
	pst := pdhcsv.Zone{Name: "Pacific Standard Time", Bias: 480}.Location()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	nov := []time.Time{time.Date(2016, 11, 26, 21, 0, 0, 0, time.UTC)}
	jul := []time.Time{time.Date(2016, 7, 1, 0, 0, 0, 0, time.UTC)}
	if !sameZone(la, pst, nov) || sameZone(la, pst, jul) || sameZone(la, pst, nil) {
		t.Error("sameZone: want Los Angeles and PST alike in November only")
	}
}
