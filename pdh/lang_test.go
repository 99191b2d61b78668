package pdh

import (
	"slices"
	"strconv"
	"testing"

	"github.com/perfcounters/perfcounters/titles"
)

// TestQueryLanguage: a query that speaks a language (SetTitles) resolves
// paths in it and in English (PdhAddCounter), or in English first
// (PdhAddEnglishCounter), and names what it finds in the language. The
// German name of object 10000 is the English name of object 10004, so the
// two calls find different objects for the same path.
func TestQueryLanguage(t *testing.T) {
	en := dbOf(t, map[uint32]string{10000: "Queue", 10002: "Jobs", 10004: "Printer", 10006: "Pages"})
	de := dbOf(t, map[uint32]string{10000: "Printer", 10002: "Aufträge"})
	src := &memSource{db: en, samples: [][]byte{block(t, "PC", t0, obj{10000, 10002, 5}, obj{10004, 10006, 9})}}
	cases := []struct {
		name    string
		path    string
		english bool
		want    []string
	}{
		{"German names", `\Printer(*)\Aufträge`, false, []string{`\Printer(a)\Aufträge=5`}},
		{"English names, not shadowed", `\Queue(*)\Jobs`, false, []string{`\Printer(a)\Aufträge=5`}},
		{"a German name first", `\Printer(*)\*`, false, []string{`\Printer(a)\Aufträge=5`}},
		{"English first", `\Printer(*)\Pages`, true, []string{`\Printer(a)\Pages=9`}},
		{"English first, other object", `\Queue(*)\Jobs`, true, []string{`\Printer(a)\Aufträge=5`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := src.Recorded().Seek(0); err != nil {
				t.Fatal(err)
			}
			q := OpenQuery(src)
			q.SetTitles(titles.Over(en, de), en)
			add := q.AddCounter
			if c.english {
				add = q.AddEnglishCounter
			}
			cn, err := add(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Collect(t.Context()); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range cn.AppendFormattedArray(nil, noCap) {
				got = append(got, it.Path.String()+"="+formatG(it.Computed))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %q, want %q", c.path, got, c.want)
			}
		})
	}
}

func formatG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
