package pdh

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/titles"
)

// FuzzCollect feeds a hostile second sample to a query whose counters were
// resolved on a good first one: Collect either fails with an error or
// every reader works; nothing panics.
func FuzzCollect(f *testing.F) {
	good := buildSample(f, t0, []proc{{"a", 1, 1, 5}, {"a", 2, 2, 7}}, []thread{{"0", 0, 9, 1, 3}, {"0", 1, 10, 1, 3}})
	f.Add(good)
	f.Add(buildSample(f, t0+second, []proc{{"b", 3, 3, 5}}, nil))
	if b, err := os.ReadFile(filepath.Join("..", "perfdata", "testdata", "windows", "s01-0230-Process.bin")); err == nil {
		f.Add(b)
	}
	db := titles.English()
	f.Fuzz(func(t *testing.T, second []byte) {
		src := &memSource{db: db, samples: [][]byte{good, second}}
		q := OpenQuery(src)
		for _, p := range []string{`\Process(*)\*`, `\Thread(*/*#*)\% Processor Time`, `\Process(a#1)\ID Process`} {
			if _, err := q.AddCounter(p); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := q.Collect(context.Background()); err != nil {
				return
			}
		}
		for _, c := range q.Counters() {
			c.FormattedArray(calc.FmtDouble)
			c.Raw()
			c.Formatted(calc.FmtLarge)
			c.Statistics(calc.FmtDouble)
			c.Info()
		}
	})
}
