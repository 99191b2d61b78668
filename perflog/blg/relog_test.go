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
