package relog

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/perflog/blg"
)

// FuzzSteady: whatever bytes open as a BLG relog the same with the
// steady path as with pdh over the rebuilt blocks: the same rows,
// statistics, warnings and error. The seeds are Windows' logs of listed
// counters; mutated, their values fail, their instances change and
// their records break, which sends samples back and forth between the
// two paths.
func FuzzSteady(f *testing.F) {
	for _, name := range []string{"CounterSamples.blg", "BadCounterSamples.blg"} {
		b, err := os.ReadFile("../../../perflog/blg/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		open := func() *blg.Log {
			l, err := blg.Read(bytes.NewReader(b), int64(len(b)), "fuzz.blg")
			if err != nil {
				return nil
			}
			t.Cleanup(func() { l.Close() })
			return l
		}
		ref := open()
		if ref == nil {
			return
		}
		want := relogged(onlyBlocks{ref}, Options{})
		if got := relogged(open(), Options{}); got != want {
			g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
			i := 0
			for i < min(len(g), len(w)) && g[i] == w[i] {
				i++
			}
			line := func(l []string) string {
				if i < len(l) {
					return clip([]byte(l[i]))
				}
				return "(none)"
			}
			t.Errorf("line %d differs:\nsteady path:         %s\npdh over the blocks: %s", i+1, line(g), line(w))
		}
	})
}
