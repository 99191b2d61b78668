package pdhcsv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// logsDir holds copies of logs written by Windows (testdata/windows/
// PROVENANCE.md says where from); a missing file is a failure.
const logsDir = "testdata/windows"

func readShared(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(logsDir, rel))
	if err != nil {
		t.Fatalf("Windows log copy missing: %v", err)
	}
	return b
}

// TestWindowsCopies: the copies are the files PROVENANCE.md names.
func TestWindowsCopies(t *testing.T) {
	sums := string(readShared(t, "SHA256SUMS"))
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(sums), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: bad line %q", line)
		}
		got := sha256.Sum256(readShared(t, name))
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, want %s", name, got, sum)
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d files in SHA256SUMS, want 5", n)
	}
}

// TestRoundTripReal reads the real PDH-written logs and writes them back:
// the bytes must be identical, which pins the header's zone cell, the
// timestamp layout, " " for missing values and the %.17g value format.
func TestRoundTripReal(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format Format
	}{
		{"powershell/CounterSamples.csv", CSV},
		{"powershell/CounterSamples.tsv", TSV},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in := readShared(t, tc.file)
			lg, err := Read(bytes.NewReader(in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if lg.Format != tc.format || lg.Style != StyleLog {
				t.Fatalf("format %v style %v", lg.Format, lg.Style)
			}
			if lg.Zone != (Zone{Name: "Pacific Standard Time", Bias: 480}) {
				t.Errorf("zone %+v", lg.Zone)
			}
			if len(lg.Columns) != 10 || len(lg.Rows) != 25 {
				t.Fatalf("%d columns, %d rows; want 10, 25", len(lg.Columns), len(lg.Rows))
			}
			// README: first row has values only for the 2 instantaneous counters.
			var ok int
			for _, v := range lg.Rows[0].Values {
				if v.OK {
					ok++
				}
			}
			if ok != 2 || lg.Rows[0].Values[6].Number != 86.93735103284412 {
				t.Errorf("first row: %d values, col 7 = %v", ok, lg.Rows[0].Values[6])
			}
			// Asserted upstream: oldest record 2016-11-26 13:46:30.874 PST.
			want := time.Date(2016, 11, 26, 21, 46, 30, 874e6, time.UTC)
			if !lg.Rows[0].Time.Equal(want) {
				t.Errorf("first time %v, want %v", lg.Rows[0].Time, want)
			}
			var out bytes.Buffer
			w := NewWriter(&out, WriterOptions{Format: tc.format, Location: lg.Zone.Location()})
			if err := w.WriteHeader(lg.Zone, lg.Columns); err != nil {
				t.Fatal(err)
			}
			for _, r := range lg.Rows {
				if err := w.WriteRow(r.Time, r.Values); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(out.Bytes(), in) {
				t.Errorf("rewritten log differs from the original:\n%s", firstDiff(out.String(), string(in)))
			}
		})
	}
}

// TestConsoleCapture reads real typeperf console output and writes it back
// in Console style: header and rows must be byte-identical.
func TestConsoleCapture(t *testing.T) {
	for _, f := range []string{"txwinrm/typeperf-console-sc1.txt", "txwinrm/typeperf-console-si1.txt"} {
		t.Run(f, func(t *testing.T) {
			in := readShared(t, f)
			lg, err := Read(bytes.NewReader(in), time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if lg.Style != StyleConsole || len(lg.Columns) != 3 {
				t.Fatalf("style %v, %d columns", lg.Style, len(lg.Columns))
			}
			var out bytes.Buffer
			w := NewWriter(&out, WriterOptions{Style: StyleConsole, Location: time.UTC})
			w.WriteHeader(Zone{}, lg.Columns)
			for _, r := range lg.Rows {
				w.WriteRow(r.Time, r.Values)
			}
			// The capture has the closing lines after the rows; compare the
			// part the writer produces.
			if !strings.HasPrefix(string(in), out.String()) {
				t.Errorf("console rows differ:\n%s", firstDiff(out.String(), string(in)))
			}
		})
	}
}

func TestG17(t *testing.T) {
	// Expected strings are C's printf("%.17g") output (glibc), not computed
	// by the code under test.
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{100, "100"},
		{1e16, "10000000000000000"},
		{1e17, "1e+17"},
		{1.5e17, "1.5e+17"},
		{123456, "123456"},
		{0.1, "0.10000000000000001"},
		{1e-5, "1.0000000000000001e-05"},
		{0.0001, "0.0001"},
		{-2.5, "-2.5"},
		{1.0 / 3, "0.33333333333333331"},
		{86.93735103284412, "86.93735103284412"},
		{5e-324, "4.9406564584124654e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-123456, "-123456"},
		{-1e16, "-10000000000000000"},
		{9.999999999999998e16, "99999999999999984"},
		{-9.999999999999998e16, "-99999999999999984"},
		{9007199254740993, "9007199254740992"},
		{4503599627370495.5, "4503599627370495.5"},
		{-0.5, "-0.5"},
	} {
		if got := string(appendG17(nil, tc.x)); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.x, got, tc.want)
		}
	}
}

// TestG17Whole checks appendG17's shortcut for whole numbers against
// strconv's general %.17g formatting, around the limits of the shortcut.
func TestG17Whole(t *testing.T) {
	var xs []float64
	for e := 0; e <= 18; e++ {
		p := math.Pow10(e)
		for _, d := range []float64{-2, -1, 0, 1, 2} {
			xs = append(xs, p+d, -(p + d), math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)))
		}
	}
	for i := range 64 {
		x := float64(uint64(1) << i)
		xs = append(xs, x, x-1, x+1, -x)
	}
	for _, x := range xs {
		if got, want := string(appendG17(nil, x)), strconv.FormatFloat(x, 'g', 17, 64); got != want {
			t.Errorf("%v: %s, want %s", x, got, want)
		}
	}
}

// TestAppendTime checks AppendTime against the time package's own
// formatting of TimeLayout: the ends of each field, leap days, zones with
// odd offsets, milliseconds that round down, and years that AppendTime
// leaves to AppendFormat.
func TestAppendTime(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+30*60)
	chatham := time.FixedZone("CHAST", 12*3600+45*60)
	west := time.FixedZone("W", -(9*3600 + 30*60))
	var ts []time.Time
	for _, y := range []int{-1, 0, 1, 9, 10, 99, 100, 999, 1000, 1601, 1970, 2000, 2016, 2024, 9999, 10000, 30827} {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {2, 29}, {9, 30}, {10, 1}, {12, 31}} {
			for _, c := range [][4]int{{0, 0, 0, 0}, {9, 9, 9, 9_999_999}, {10, 10, 10, 10_000_000}, {23, 59, 59, 999_999_999}, {12, 34, 56, 789_500_000}} {
				for _, loc := range []*time.Location{time.UTC, kolkata, chatham, west} {
					ts = append(ts, time.Date(y, time.Month(md[0]), md[1], c[0], c[1], c[2], c[3], loc))
				}
			}
		}
	}
	step := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 20000 {
		ts = append(ts, step, step.In(chatham))
		step = step.Add(3*time.Hour + 17*time.Minute + 1234567891*time.Nanosecond)
	}
	for _, x := range ts {
		if got, want := string(AppendTime([]byte("x"), x)), "x"+x.Format(TimeLayout); got != want {
			t.Errorf("%v: %s, want %s", x, got, want)
		}
	}
}

func TestWriterStyles(t *testing.T) {
	tm := time.Date(2024, 3, 5, 7, 8, 9, 123456789, time.UTC)
	zone := Zone{Name: "Test Standard Time", Bias: -60}
	loc := zone.Location()
	cols := []string{`\\H\A\x`, `\\H\B(i)\y`}
	vals := []Value{{Number: 2.5, OK: true}, {}}
	for _, tc := range []struct {
		name string
		opts WriterOptions
		want string
	}{
		{"log csv", WriterOptions{Format: CSV, Location: loc},
			"\"(PDH-CSV 4.0) (Test Standard Time)(-60)\",\"\\\\H\\A\\x\",\"\\\\H\\B(i)\\y\"\n\"03/05/2024 08:08:09.123\",\"2.5\",\" \"\n"},
		{"log tsv crlf", WriterOptions{Format: TSV, Location: loc, CRLF: true},
			"\"(PDH-TSV 4.0) (Test Standard Time)(-60)\"\t\"\\\\H\\A\\x\"\t\"\\\\H\\B(i)\\y\"\r\n\"03/05/2024 08:08:09.123\"\t\"2.5\"\t\" \"\r\n"},
		{"console", WriterOptions{Style: StyleConsole, Location: loc},
			"\"(PDH-CSV 4.0)\",\"\\\\H\\A\\x\",\"\\\\H\\B(i)\\y\"\n\"03/05/2024 08:08:09.123\",\"2.500000\",\" \"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b, tc.opts)
			if err := w.WriteHeader(zone, cols); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRow(tm, vals); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
			if err := w.WriteRow(tm, vals[:1]); err == nil {
				t.Error("short row accepted")
			}
			// A row kept with one value and padded to the header's two
			// columns is the row written with the second value missing.
			b.Reset()
			if err := w.WritePadded(w.AppendRow(nil, tm, vals[:1]), 1); err != nil {
				t.Fatal(err)
			}
			if want := tc.want[strings.IndexByte(tc.want, '\n')+1:]; b.String() != want {
				t.Errorf("padded row\n%q\nwant\n%q", b.String(), want)
			}
			if err := w.WritePadded(nil, 3); err == nil {
				t.Error("a row longer than the header accepted")
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
	}{
		{"empty", "", 1},
		{"blank lines only", "\n\n", 3},
		{"unterminated in the header", "\"(PDH-CSV 4.0) (P)(0)\",\"\\\\H\\A\\x\n", 1},
		{"a value past the header's", "\"(PDH-CSV 4.0) (P)(0)\",\"\\\\H\\A\\x\"\n\"01/02/2006 15:04:05.000\",\"1\",\"2\"\n", 2},
		{"no tag (CorruptBlg.blg style)", "\"(Pacific Daylight Time)(420)\",\"\\\\H\\A\\x\"\n", 1},
		{"bad time", "\"(PDH-CSV 4.0) (P)(0)\",\"x\"\n\"2006-01-02\",\"1\"\n", 2},
		{"bad number", "\"(PDH-CSV 4.0) (P)(0)\",\"x\"\n\"01/02/2006 15:04:05.000\",\"one\"\n", 2},
		{"unterminated", "\"(PDH-CSV 4.0) (P)(0)\",\"x\"\n\"01/02/2006 15:04:05.000\",\"1\n", 2},
		{"junk line in a log", "\"(PDH-CSV 4.0) (P)(0)\",\"x\"\nExiting\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), time.UTC)
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want *ReadError", err)
			}
			if re.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", re.Line, tc.line, err)
			}
		})
	}
	if _, err := Read(bytes.NewReader(readShared(t, "powershell/CorruptBlg.blg")), nil); err == nil {
		t.Error("CorruptBlg.blg accepted; PDH rejects it")
	}
}

func FuzzRead(f *testing.F) {
	for _, rel := range []string{"powershell/CounterSamples.csv", "powershell/CounterSamples.tsv", "txwinrm/typeperf-console-si1.txt"} {
		if b, err := os.ReadFile(filepath.Join(logsDir, rel)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\"(PDH-CSV 4.0) (P)(0)\",\"x\"\n\"01/02/2006 15:04:05.000\",\" \"\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		lg, err := Read(bytes.NewReader(in), time.UTC)
		if err != nil {
			return
		}
		// Whatever was read writes and reads back to the same content.
		var out bytes.Buffer
		loc := time.UTC
		if lg.Style == StyleLog {
			loc = lg.Zone.Location()
		}
		w := NewWriter(&out, WriterOptions{Format: lg.Format, Style: StyleLog, Location: loc})
		if lg.Style == StyleConsole {
			lg.Zone = Zone{Name: "UTC"}
		}
		cols := lg.Columns
		if lg.Description != "" {
			cols = append(cols[:len(cols):len(cols)], lg.Description)
		}
		if err := w.WriteHeader(lg.Zone, cols); err != nil {
			t.Fatal(err)
		}
		for _, r := range lg.Rows {
			if err := w.WritePadded(w.AppendRow(nil, r.Time, r.Values), len(r.Values)); err != nil {
				t.Fatal(err)
			}
		}
		back, err := Read(&out, nil)
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, out.String())
		}
		if len(back.Rows) != len(lg.Rows) || len(back.Columns) != len(lg.Columns) || back.Description != lg.Description {
			t.Fatalf("shape changed")
		}
		for i, r := range lg.Rows {
			for j, v := range r.Values {
				b := back.Rows[i].Values[j]
				if v.OK != b.OK || (v.OK && v.Number != b.Number && !(math.IsNaN(v.Number) && math.IsNaN(b.Number))) {
					if math.IsInf(v.Number, 0) || math.IsNaN(v.Number) {
						continue // written as " "
					}
					t.Fatalf("row %d col %d: %v -> %v", i, j, v, b)
				}
			}
		}
	})
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + la[i] + "\nwant: " + lb[i]
		}
	}
	return "lengths differ"
}

// TestAppendRowCells: a value that is missing, NaN or infinite is the
// blank cell " " in both styles (PDH never writes them), and every finite
// value is written, negative zero included.
func TestAppendRowCells(t *testing.T) {
	values := []Value{
		{Number: 1.5, OK: true},
		{Number: 7},
		{Number: math.NaN(), OK: true},
		{Number: math.Inf(1), OK: true},
		{Number: math.Inf(-1), OK: true},
		{Number: math.Copysign(0, -1), OK: true},
		{Number: -2.5e6, OK: true},
		{Number: 42, OK: true},
	}
	at := time.Date(2026, 11, 29, 13, 4, 5, 6e6, time.UTC)
	for _, tc := range []struct {
		style Style
		want  string
	}{
		{StyleLog, `"11/29/2026 13:04:05.006","1.5"," "," "," "," ","-0","-2500000","42"`},
		{StyleConsole, `"11/29/2026 13:04:05.006","1.500000"," "," "," "," ","-0.000000","-2500000.000000","42.000000"`},
	} {
		w := NewWriter(io.Discard, WriterOptions{Style: tc.style, Location: time.UTC})
		if got := string(w.AppendRow(nil, at, values)); got != tc.want {
			t.Errorf("style %v:\n got %s\nwant %s", tc.style, got, tc.want)
		}
	}
}
