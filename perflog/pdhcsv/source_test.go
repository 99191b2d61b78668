package pdhcsv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/wintz"
)

const hdr = `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`

// TestOpenWindows: Windows' CSV and TSV as sources: 25 samples at the
// rows' times, the header's paths as Counters, every value a
// PERF_DOUBLE_RAW counter holding the cell's number, blanks NoValue
// problems.
func TestOpenWindows(t *testing.T) {
	for _, f := range []string{"CounterSamples.csv", "CounterSamples.tsv"} {
		t.Run(f, func(t *testing.T) {
			path := filepath.Join(logsDir, "powershell", f)
			l, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Len() != 25 || len(l.Notes()) != 0 {
				t.Fatalf("%d samples, notes %q; want 25, none", l.Len(), l.Notes())
			}
			if want := time.Date(2016, 11, 26, 21, 46, 30, 874e6, time.UTC); !l.Time(0).Equal(want) {
				t.Errorf("time 0 = %v, want %v", l.Time(0), want)
			}
			if z := wintz.At(l.Time(3).In(l.Location())); z != (Zone{Name: "Pacific Standard Time", Bias: 480}) {
				t.Errorf("zone of the location %+v", z)
			}
			if c := l.Counters(); len(c) != 10 || c[0] != `\\charlieparker\network interface(intel[r] ethernet connection i218-lm)\bytes total/sec` {
				t.Errorf("counters %q", c)
			}
			if l.Titles().Name(238) != "processor" {
				t.Errorf("title 238 = %q, want the log's spelling %q", l.Titles().Name(238), "processor")
			}
			s, err := l.Sample(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Blocks) != 1 || s.Blocks[0].Header().SystemName != "charlieparker" || s.Blocks[0].NumObjects() != 4 {
				t.Fatalf("sample 0: %d blocks", len(s.Blocks))
			}
			mem, ok := s.Blocks[0].Object(4)
			if !ok {
				t.Fatal("no memory object (4)")
			}
			d := mem.Counter(0) // % committed bytes in use
			if d.Type != countertype.PERF_DOUBLE_RAW || math.Float64frombits(mem.SingleBlock().Value(d)) != 86.93735103284412 {
				t.Errorf("memory counter 0: type %v value %v", d.Type, math.Float64frombits(mem.SingleBlock().Value(d)))
			}
			// 8 of the 10 cells of the first row are blank, in 4 objects.
			n := 0
			for _, p := range s.Problems {
				if !p.Partial || !strings.HasSuffix(p.Reason, NoValue) {
					t.Errorf("problem %v", p)
				}
				for _, m := range p.Missing {
					n += len(m.Counters)
				}
			}
			if n != 8 {
				t.Errorf("%d blank values in row 1, want 8", n)
			}
			if err := l.Seek(25); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Sample(t.Context(), nil); !errors.Is(err, io.EOF) {
				t.Errorf("after the last: %v", err)
			}
			if err := l.Seek(26); err == nil {
				t.Error("seek past the end accepted")
			}
		})
	}
}

func TestReadLogErrors(t *testing.T) {
	row := "\n" + `"01/02/2024 03:04:05.000","1"` + "\n"
	for _, tc := range []struct {
		name, in string
		line     int
		cell     int
		msg      string
	}{
		{"console output", `"(PDH-CSV 4.0)","\\H\Memory\Available MBytes"` + row, 1, 1, "console output"},
		{"wildcard column", hdr + `,"\\H\Process(*)\ID Process"` + row, 1, 2, "wildcard"},
		{"not a path", hdr + `,"Memory","\\H\Memory\A"` + "\n" + `"01/02/2024 03:04:05.000","1","2"` + "\n", 1, 2, "column"},
		{"instances and none", hdr + `,"\\H\Memory\A","\\H\Memory(x)\B"` + "\n" + `"01/02/2024 03:04:05.000","1","2"` + "\n", 1, 3, "with and without instances"},
		{"huge index", hdr + `,"\\H\Process(a#99999)\ID Process"` + row, 1, 2, "instance index"},
		{"bad number", hdr + `,"\\H\Memory\A"` + "\n" + `"01/02/2024 03:04:05.000","x"` + "\n", 2, 2, `value "x" of \\H\Memory\A is not a number`},
		{"ragged row", hdr + `,"\\H\Memory\A"` + "\n" + `"01/02/2024 03:04:05.000","1","2"` + "\n" + `"01/02/2024 03:04:06.000","1"` + "\n", 2, 3, "more than 2 cells"},
		{"torn row inside", hdr + `,"\\H\Memory\A"` + "\n" + `"01/02/2024 03:04:05.000","1` + "\n" + `"01/02/2024 03:04:06.000","1"` + "\n", 2, 2, "unterminated"},
		{"too many columns", `"(PDH-CSV 4.0) (X)(0)"` + strings.Repeat(`,"\\H\M\C"`, MaxColumns+1) + "\n", 1, MaxColumns + 2, "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLog(strings.NewReader(tc.in), "f.csv", -1)
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a *ReadError", err)
			}
			if re.File != "f.csv" || re.Line != tc.line || re.Cell != tc.cell || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "f.csv: line ") {
				t.Errorf("%v: want line %d cell %d, %q", err, tc.line, tc.cell, tc.msg)
			}
		})
	}
	if _, err := ReadLog(bytes.NewReader(bytes.Repeat([]byte("x"), 100)), "big.csv", 10); err == nil || err.Error() != "big.csv: larger than 10 bytes, the limit on a text log" {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Open(filepath.Join(logsDir, "powershell", "CorruptBlg.blg")); err == nil {
		t.Error("CorruptBlg.blg accepted")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestTornTail: a last line the file ends inside (a writer stopped
// mid-row) is left out with a note; the rows before it are read.
func TestTornTail(t *testing.T) {
	full := hdr + `,"\\H\Memory\A","\\H\Memory\B"` + "\n" + `"01/02/2024 03:04:05.000","1","2"` + "\n" + `"01/02/2024 03:04:06.000","3","4"`
	for cut := len(full) - 1; cut > strings.LastIndexByte(full, '\n')+1; cut-- {
		l, err := ReadLog(strings.NewReader(full[:cut]), "torn.csv", -1)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if l.Len() != 1 || len(l.Notes()) != 1 || !strings.Contains(l.Notes()[0], "line 3, the last, is incomplete") {
			t.Errorf("cut at %d: %d samples, notes %q", cut, l.Len(), l.Notes())
		}
	}
	l, err := ReadLog(strings.NewReader(full), "whole.csv", -1)
	if err != nil || l.Len() != 2 || len(l.Notes()) != 0 {
		t.Errorf("whole file without a last line end: %v, %d samples, notes %q", err, l.Len(), l.Notes())
	}
}

// TestRepeatedColumn: a column given twice is one counter, noted.
func TestRepeatedColumn(t *testing.T) {
	in := hdr + `,"\\H\Memory\A","\\H\memory\a"` + "\n" + `"01/02/2024 03:04:05.000","1","2"` + "\n"
	l, err := ReadLog(strings.NewReader(in), "rep.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Notes()) != 1 || !strings.Contains(l.Notes()[0], "column 3 repeats column 2") {
		t.Errorf("notes %q", l.Notes())
	}
	s, err := l.Sample(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := s.Blocks[0].Object(4)
	if o.NumCounters() != 1 || math.Float64frombits(o.SingleBlock().Value(o.Counter(0))) != 2 {
		t.Errorf("%d counters", o.NumCounters())
	}
}

// TestReadSource: a Log from Read is a source too.
func TestReadSource(t *testing.T) {
	l, err := Read(strings.NewReader(hdr+`,"\\H\Memory\A"`+"\n"+`"01/02/2024 03:04:05.000","1"`+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var src pdh.Source = l
	q := pdh.OpenQuery(src)
	c, err := q.AddCounter(`\\H\Memory\A`)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Collect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Formatted(calc.FmtDouble); err != nil || v.Double != 1 {
		t.Errorf("value %v, %v", v, err)
	}
}

// FuzzReadLog: any bytes read as a log either fail with an error or give
// a source whose every sample builds, with one block per machine and
// blank values only where the row has blanks.
func FuzzReadLog(f *testing.F) {
	for _, rel := range []string{"powershell/CounterSamples.csv", "powershell/CounterSamples.tsv", "powershell/CorruptBlg.blg"} {
		b, err := os.ReadFile(filepath.Join(logsDir, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := ReadLog(bytes.NewReader(in), "fuzz.csv", 1<<20)
		if err != nil {
			return
		}
		machines := map[string]bool{}
		for _, c := range l.Counters() {
			m, _, _ := strings.Cut(strings.TrimPrefix(c, `\\`), `\`)
			if !strings.HasPrefix(c, `\\`) {
				m = ""
			}
			machines[strings.ToLower(m)] = true
		}
		for i := range l.Len() {
			s, err := l.Sample(t.Context(), nil)
			if err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
			if len(s.Blocks) != len(machines) || !s.Time.Equal(l.Time(i)) {
				t.Fatalf("row %d: %d blocks for %d machines, time %v vs %v", i, len(s.Blocks), len(machines), s.Time, l.Time(i))
			}
			blanks := 0
			for _, v := range l.Rows[i].Values {
				if !v.OK {
					blanks++
				}
			}
			if blanks == 0 {
				for _, p := range s.Problems {
					for _, m := range p.Missing {
						if len(m.Counters) > 0 {
							t.Fatalf("row %d: no blank cell, but missing %v", i, p)
						}
					}
				}
			}
		}
		if _, err := l.Sample(t.Context(), nil); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last row: %v", err)
		}
	})
}

// TestWindowsInstanceParentheses: Windows writes instance names as they
// are, parentheses included (a process named "setup(2)"); such a log is
// read, its counters are given as paths pdh reads back, and the value is
// found under them.
func TestWindowsInstanceParentheses(t *testing.T) {
	in := hdr + `,"\\H\Process(setup(2))\ID Process","\\H\Process(a)\ID Process"` + "\r\n" +
		`"01/02/2024 03:04:05.000","12","13"` + "\r\n"
	l, err := ReadLog(strings.NewReader(in), "paren.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`\\H\Process(setup%282%29)\ID Process`, `\\H\Process(a)\ID Process`}
	if got := l.Counters(); !slices.Equal(got, want) {
		t.Errorf("Counters() = %q, want %q", got, want)
	}
	q := pdh.OpenQuery(l)
	c, err := q.AddCounter(want[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Collect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Formatted(calc.FmtDouble); err != nil || v.Double != 12 {
		t.Errorf("value %v, %v; want 12", v, err)
	}
}

// TestLineLimitSaysDecoded: a line past MaxLine is refused with a message
// that says the limit counts decoded text, whatever the file's encoding.
func TestLineLimitSaysDecoded(t *testing.T) {
	long := `"(PDH-CSV 4.0)","\\H\` + strings.Repeat("x", MaxLine) + "\"\r\n"
	_, err := ReadLog(strings.NewReader(long), "long.csv", 64<<20)
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes of decoded text", MaxLine)) {
		t.Errorf("ReadLog: %v", err)
	}
}
