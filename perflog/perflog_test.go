package perflog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/utf16le"
	"github.com/perfcounters/perfcounters/wintz"
)

// TestDetect recognises each format by content, whatever the file is
// called: text goes to the text-log reader, other bytes to the BLG reader
// (or, named .plog, the binary log's), and an empty file is an error.
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	blg := make([]byte, 0x60)
	blg[1], blg[0x4B] = 0x10, 0xC0 // a 4 KiB buffer, the trace header's mark
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
		{"CorruptBlg.blg", `"(Pacific Daylight Time)(420)","\\CHANDSR-X86\Processor(0)\% Processor Time"`, CSV},
		{"hello.csv", "hello,world\n", CSV},
		{"hello.tsv", "hello,world\n", TSV},
		{"tabs", "hello\tworld\n", TSV},
		{"utf16.csv", "\xff\xfe\"\x00(\x00P\x00D\x00H\x00-\x00T\x00S\x00V\x00 \x004\x00.\x000\x00)\x00\"\x00", TSV},
		{"utf16-nomark.csv", "\"\x00(\x00P\x00D\x00H\x00-\x00C\x00S\x00V\x00 \x004\x00.\x000\x00)\x00\"\x00", CSV},
		{"cp1251.csv", "\"(PDH-CSV 4.0) (RTZ 2 (\",\"\\\\\xcf\xca\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0(_Total)\\x\"\n", CSV},
		{"short.plog", "\x89PL", BIN},
		{"binary.plog", "\x00\x01\x02\x03", BIN},
		{"binary.csv", "\x00\x01\x02\x03", BLG},
		{"truncated.blg", "\x00\x10\x00\x00\x01", BLG},
		{"windows.blg", string(blg), BLG},
		{"windows.csv", string(blg), BLG},
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
		// IsTextLog: only what starts with a PDH text log's tag.
		tag := strings.Contains(c.content, "PDH-") || strings.Contains(c.content, "P\x00D\x00H\x00-")
		if f, ok := IsTextLog(p); ok != tag || ok && f != c.want {
			t.Errorf("IsTextLog(%s) = %v, %v", c.name, f, ok)
		}
	}
	empty := filepath.Join(dir, "empty.plog")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Detect(empty); err == nil || err.Error() != empty+": an empty file (0 bytes): no log in it" {
		t.Errorf("Detect(empty.plog) = %v; want it called empty", err)
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
		{"csv", `/dev/null`, `/dev/null`}, // a device: written as it is
		{"bin", `/dev/full`, `/dev/full`},
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
	if f, err := ParseFormat("blg"); err != nil || f != BLG || OutputName("c", f) != "c.blg" {
		t.Errorf("ParseFormat(blg) = %v, %v; want BLG, written to c.blg for -o c", f, err)
	}
	if _, err := ParseFormat("etl"); err == nil || !strings.Contains(err.Error(), "CSV, TSV, BIN, BLG or SQL") {
		t.Errorf("ParseFormat(etl) = %v; want an error naming the formats", err)
	}
}

// TestOpenRefusesWhatIsNotALog: a file that is no log is an error naming
// it, in the words of the format it evidently is (parts of the message
// separated by |), and nothing is left open.
func TestOpenRefusesWhatIsNotALog(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"notes.txt", "hello\n", `notes.txt: line 1, cell 1: a text file, but not a PDH text log: it starts "hello", not "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)"`},
		{"hello.csv", "hello,world\n", `hello.csv: line 1, cell 1: a text file, but not a PDH text log: it starts "hello,world"`},
		{"CorruptBlg.blg", `"(Pacific Daylight Time)(420)","\\CHANDSR-X86\Processor(0)\% Processor Time"` + "\n",
			`CorruptBlg.blg: line 1, cell 1: a text file, but not a PDH text log: it starts "\"(Pacific Daylight Time)(420)\",|` +
				`, not "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)" (named .blg, but it holds text: not a Windows binary performance log (.blg) either)`},
		{"empty.plog", "", "empty.plog: an empty file (0 bytes): no log in it"},
		{"empty.csv", "", "empty.csv: an empty file (0 bytes): no log in it"},
		{"short.plog", "\x89PLO", "short.plog"},
		{"zeros.blg", "\x00\x00\x00\x00\x00", "zeros.blg: 5 bytes, too short for a binary log: not a Windows binary performance log (.blg)"},
		{"zeros.plog", "\x00\x00\x00\x00\x00\x00\x00\x00\x00", "not a perfcounters binary log (.plog)"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), []string{p}, OpenOptions{})
		for _, part := range strings.Split(tc.want, "|") {
			if err == nil || !strings.Contains(err.Error(), part) {
				t.Errorf("Open(%s) = %v;\nwant an error with %s", tc.name, err, part)
			}
		}
	}
	if _, err := Open(context.Background(), nil, OpenOptions{}); err == nil {
		t.Fatal("Open of no input: no error")
	}
}

// TestOpenCodePage: a text log in an ANSI code page opens with its names
// intact, guessed with a note that names the file and the code page, or
// read in the code page named without one.
func TestOpenCodePage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ru.csv")
	in := "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\\xcf\xca\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0(_Total)\\% \xe7\xe0\xe3\xf0\xf3\xe6\xe5\xed\xed\xee\xf1\xf2\xe8 \xef\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0\xe0\"\r\n" +
		"\"01/02/2024 10:00:00.000\",\"1.5\"\r\n"
	if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = `\\ПК\Процессор(_Total)\% загруженности процессора`
	for _, tc := range []struct {
		cp   utf16le.CodePage
		note string
	}{
		{utf16le.Auto, p + ": no byte-order mark and not UTF-8: read as code page 1251 (windows-1251, Cyrillic)"},
		{1251, ""},
	} {
		in, err := Open(t.Context(), []string{p}, OpenOptions{CodePage: tc.cp})
		if err != nil {
			t.Fatal(err)
		}
		if c := in.Source.Recorded().Counters(); len(c) != 1 || c[0] != want {
			t.Errorf("code page %v: counters %q, want %q", tc.cp, c, want)
		}
		switch {
		case tc.note == "" && len(in.Notes) > 0:
			t.Errorf("code page %v: notes %q", tc.cp, in.Notes)
		case tc.note != "" && (len(in.Notes) != 1 || !strings.HasPrefix(in.Notes[0], tc.note)):
			t.Errorf("code page %v: notes %q, want one starting %q", tc.cp, in.Notes, tc.note)
		}
		in.Close()
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
