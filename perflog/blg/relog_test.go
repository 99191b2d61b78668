package blg_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// TestRelogCounterSamples: CounterSamples.blg relogged to CSV and TSV gives
// the files Windows wrote from the same log, cell by cell.
func TestRelogCounterSamples(t *testing.T) {
	for _, tc := range []struct {
		format pdhcsv.Format
		want   string
		sep    string
	}{
		{pdhcsv.CSV, "CounterSamples.csv", ","},
		{pdhcsv.TSV, "CounterSamples.tsv", "\t"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			l, err := blg.Open(filepath.Join("testdata", "CounterSamples.blg"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var out bytes.Buffer
			if _, _, err := relog.Run(t.Context(), l, relog.Options{Format: tc.format, Location: l.Location()}, &out); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", tc.want))
			if err != nil {
				t.Fatal(err)
			}
			gotRows := strings.Split(strings.TrimRight(out.String(), "\r\n"), "\n")
			wantRows := strings.Split(strings.TrimRight(string(want), "\r\n"), "\n")
			if len(gotRows) != len(wantRows) {
				t.Errorf("%d rows, want %d", len(gotRows), len(wantRows))
			}
			for r := range min(len(gotRows), len(wantRows)) {
				g := strings.Split(strings.TrimRight(gotRows[r], "\r"), tc.sep)
				w := strings.Split(wantRows[r], tc.sep)
				if len(g) != len(w) {
					t.Errorf("row %d: %d cells, want %d:\n got %s\nwant %s", r, len(g), len(w), gotRows[r], wantRows[r])
					continue
				}
				for c := range w {
					if g[c] != w[c] {
						t.Errorf("row %d cell %d: got %s, want %s", r, c, g[c], w[c])
					}
				}
			}
		})
	}
}

// TestRelogListedNamesWithSpecials: a log of listed counters whose
// instance names hold the characters that end a path's parts ("(", ")")
// is relogged from its counter list: the list is given as paths pdh
// reads back (the names escaped), not as Windows spells them.
func TestRelogListedNamesWithSpecials(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "CounterSamples.blg"))
	if err != nil {
		t.Fatal(err)
	}
	utf16 := func(s string) []byte {
		var out []byte
		for _, c := range s {
			out = append(out, byte(c), 0)
		}
		return out
	}
	// "_total" (processor and physicaldisk) becomes "_t(ta)" in the
	// counter list, the only place listed instances are named.
	patched := bytes.ReplaceAll(b, utf16("_total"), utf16("_t(ta)"))
	if bytes.Equal(patched, b) {
		t.Fatal("no _total in the log")
	}
	l, err := blg.Read(bytes.NewReader(patched), int64(len(patched)), "patched.blg")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, _, err := relog.Run(t.Context(), l, relog.Options{Format: pdhcsv.CSV, Location: l.Location()}, &out); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(rows) != 26 {
		t.Fatalf("%d rows, want the header and 25 samples", len(rows))
	}
	if cells := strings.Count(rows[0], `","`) + 1; cells != 11 {
		t.Errorf("header of %d cells, want the time and 10 counters: %s", cells, rows[0])
	}
	for _, want := range []string{`processor(_t%28ta%29)\% processor time`, `physicaldisk(_t%28ta%29)\% disk time`} {
		if !strings.Contains(rows[0], want) {
			t.Errorf("header %s\nhas no %s", rows[0], want)
		}
	}
}
