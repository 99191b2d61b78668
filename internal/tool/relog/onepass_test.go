package relog

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/blg"
)

// events records, in one sequence, what a run writes to its output (one
// entry per Write: a header or a row) and the warnings it tells.
type events struct{ seq []string }

func (e *events) Write(p []byte) (int, error) {
	e.seq = append(e.seq, "out: "+string(p))
	return len(p), nil
}

func (e *events) warn(msg string) { e.seq = append(e.seq, "warn: "+msg) }

// TestOnePass: a text log written in one pass (no console report) equals
// the one written in two passes (a console report asks for the input's
// range first): the same header and rows, rows of samples before a column
// first appears padded with blanks, the same statistics, and the
// warnings told at the same places between the rows.
func TestOnePass(t *testing.T) {
	openBLG := func(t *testing.T, name string) *blg.Log {
		l, err := blg.Open("../../../perflog/blg/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	blocks := func(t *testing.T) pdh.Source { bf, _ := fixtures(t); return bf }
	mixed := func(t *testing.T) pdh.Source {
		bf, _ := fixtures(t)
		return merge(t, pdh.Input{Name: "blocks", Source: bf}, pdh.Input{Name: "CounterSamples.blg", Source: openBLG(t, "CounterSamples.blg")})
	}
	twice := func(t *testing.T) pdh.Source {
		return merge(t, pdh.Input{Name: "a.blg", Source: openBLG(t, "SampleLog.blg")}, pdh.Input{Name: "b.blg", Source: openBLG(t, "SampleLog.blg")})
	}
	sampleLog := openBLG(t, "SampleLog.blg")
	badLog := openBLG(t, "BadCounterSamples.blg") // 26 warnings, from samples here and there
	bad := func(t *testing.T) pdh.Source { return openBLG(t, "BadCounterSamples.blg") }
	at := func(sec int) time.Time { return time.Date(2024, 3, 5, 12, 0, sec, 0, time.UTC) }
	for _, tc := range []struct {
		name string
		src  func(*testing.T) pdh.Source
		opts Options
	}{
		{"blocks", blocks, Options{}},
		{"blocks -b -e", blocks, Options{Begin: at(1), End: at(2)}},
		{"blocks -e before", blocks, Options{End: at(0).Add(-time.Hour)}},
		{"blocks -b after -e", blocks, Options{Begin: at(3), End: at(1)}},
		{"blocks -c -t 2", blocks, Options{Counters: []string{`\Processor(*)\*`, `\Process(*)\ID Process`}, Every: 2}},
		{"blocks and a later machine", mixed, Options{}},
		{"blocks and a later machine -e", mixed, Options{End: at(2)}},
		{"overlapping BLGs", twice, Options{Counters: []string{`\Processor(*)\% Processor Time`, `\Memory\*`}}},
		{"overlapping BLGs -b after -e", twice, Options{Begin: sampleLog.Time(6), End: sampleLog.Time(3)}},
		{"overlapping BLGs -b -e", twice, Options{Begin: sampleLog.Time(3), End: sampleLog.Time(6)}},
		{"BadCounterSamples", bad, Options{}},
		{"BadCounterSamples -b -e", bad, Options{Begin: badLog.Time(50), End: badLog.Time(150)}},
		{"BadCounterSamples -b after -e", bad, Options{Begin: badLog.Time(200), End: badLog.Time(20)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, want events
			var gotErr, wantErr error
			var gotIn, gotOut, wantIn, wantOut Stats
			opts := tc.opts
			opts.Location = time.UTC
			opts.Warn = got.warn
			gotIn, gotOut, gotErr = Run(t.Context(), tc.src(t), opts, &got)
			opts.Warn = want.warn
			opts.Console = io.Discard // two passes
			wantIn, wantOut, wantErr = Run(t.Context(), tc.src(t), opts, &want)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("error %v, want %v", gotErr, wantErr)
			}
			if gotIn != wantIn || gotOut != wantOut {
				t.Errorf("stats %+v %+v, want %+v %+v", gotIn, gotOut, wantIn, wantOut)
			}
			if !slices.Equal(got.seq, want.seq) {
				t.Errorf("one pass:\n%s\ntwo passes:\n%s", clipEvents(got.seq), clipEvents(want.seq))
			}
		})
	}
}

func clipEvents(seq []string) string {
	var b strings.Builder
	for _, s := range seq {
		if len(s) > 120 {
			s = s[:120] + "..."
		}
		b.WriteString(strings.TrimRight(s, "\n") + "\n")
	}
	return b.String()
}

// TestRowStore: rows kept in memory, and past the limit in a temporary
// file, come back in order with their cell counts; the rows that fit stay
// in memory, and only the others are written to the file.
func TestRowStore(t *testing.T) {
	rows := []string{"a", "", "bcd", strings.Repeat("x", 10<<10), "e", strings.Repeat("y", 5000), "f"}
	for _, spill := range []int{0, 3, 6000, 1 << 20} {
		t.Run(fmt.Sprint(spill), func(t *testing.T) {
			s := newRowStore()
			s.spill = spill
			defer s.close()
			for i, r := range rows {
				if err := s.add([]byte(r), i); err != nil {
					t.Fatal(err)
				}
			}
			n := 0
			err := s.each(func(row []byte, cells int) error {
				if n >= len(rows) || string(row) != rows[n] || cells != n {
					t.Errorf("row %d: %q (%d cells)", n, clip(row), cells)
				}
				n++
				return nil
			})
			if err != nil || n != len(rows) {
				t.Errorf("%d rows, %v; want %d", n, err, len(rows))
			}
			if spilled := s.f != nil; spilled != (spill < 15000) {
				t.Errorf("in a file: %v, want %v", spilled, spill < 15000)
			}
			// The leading rows that fit stay in memory; only the rest
			// goes to the file.
			inMem, size := 0, 0
			for _, r := range rows {
				if size += len(r); size > spill {
					break
				}
				inMem++
			}
			if s.inMem != inMem {
				t.Errorf("%d rows in memory, want %d", s.inMem, inMem)
			}
			if s.f != nil {
				fi, err := s.f.Stat()
				if err != nil {
					t.Fatal(err)
				}
				if want := int64(len(strings.Join(rows[inMem:], ""))); fi.Size() != want {
					t.Errorf("file holds %d bytes, want %d", fi.Size(), want)
				}
			}
		})
	}
}

// TestRowChunks: a rowStore's chunks are 16 KiB, 32 KiB, then 64 KiB each
// (a row larger than that gets one of its own), whatever their number.
func TestRowChunks(t *testing.T) {
	s := newRowStore()
	defer s.close()
	row := []byte(strings.Repeat("r", 1000))
	for range 5000 { // 5 MB: 80 chunks of 64 KiB
		if err := s.add(row, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.add(make([]byte, 100<<10), 1); err != nil {
		t.Fatal(err)
	}
	var caps []int
	for _, c := range s.chunks {
		caps = append(caps, cap(c))
	}
	want := []int{16 << 10, 32 << 10}
	for len(want) < len(caps)-1 {
		want = append(want, 64<<10)
	}
	want = append(want, 100<<10)
	if !slices.Equal(caps, want) {
		t.Errorf("chunks of %v, want %v", caps, want)
	}
}
