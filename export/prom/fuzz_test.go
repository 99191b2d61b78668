package prom

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// FuzzScrape writes any block that parses (a remote host's or a
// provider's, hostile or damaged) twice, with formatted values: it must
// not panic, and the answer must be valid OpenMetrics.
func FuzzScrape(f *testing.F) {
	paths, _ := filepath.Glob("testdata/windows/s01-*.bin")
	paths = append(paths, filepath.Join(linuxFixture, "sample-0.perfdata"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	db := windowsSource(f).db
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := perfdata.Parse(b); err != nil {
			return
		}
		smp, err := pdh.NewSample([][]byte{b})
		if err != nil {
			return
		}
		col, err := NewCollector(&fixedSource{db: db, samples: []*pdh.Sample{smp}}, Options{Formatted: true, Total: true, Exclude: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			body, err := col.Scrape(context.Background(), OpenMetrics)
			if err != nil {
				t.Fatal(err)
			}
			checkOpenMetrics(t, string(body))
		}
	})
}
