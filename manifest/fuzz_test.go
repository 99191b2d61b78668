package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, that every failure is an
// *Error, and that whatever it accepts satisfies counterset's rules.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.man")
	for _, dir := range []string{"*", "*/*"} {
		more, _ := filepath.Glob(filepath.Join(conformanceDir, dir, "*.man"))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(wrap(set(setAttrs, ctr("1", "perf_average_timer", `baseID="2"`), ctr("2", "perf_average_base", ""), ctr("3", "perf_average_bulk", `baseID="2"`)))))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse("f.man", strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		for _, p := range m.Providers {
			if len(p.Sets) != len(p.CounterSets) {
				t.Fatalf("%d set infos for %d sets", len(p.Sets), len(p.CounterSets))
			}
			for i, s := range p.CounterSets {
				if err := s.Validate(); err != nil {
					t.Fatalf("accepted set fails Validate: %v", err)
				}
				if len(p.Sets[i].Counters) != len(s.Counters) {
					t.Fatalf("%d counter infos for %d counters", len(p.Sets[i].Counters), len(s.Counters))
				}
			}
		}
	})
}
