package prom

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/perfdata"
)

// typeperfValues runs typeperf over src's two samples (the first primes
// the rates, the second is the row it prints) with every counter of the
// objects, and returns each value by path without the machine
// (`\Object(instance)\Counter`).
func typeperfValues(t *testing.T, src *fixedSource, objects []string) map[string]float64 {
	t.Helper()
	var paths []string
	single := map[string]bool{}
	for _, blk := range src.samples[0].Blocks {
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			single[src.db.Name(o.NameIndex())] = o.NumInstances() == perfdata.NoInstances
		}
	}
	for _, o := range objects {
		if single[o] {
			paths = append(paths, `\`+o+`\*`)
		} else {
			paths = append(paths, `\`+o+`(*)\*`)
		}
	}
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		opts := typeperf.Options{Counters: paths, Samples: 1, Location: time.UTC}
		if err := typeperf.Run(t.Context(), src, opts, &out, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	r := csv.NewReader(strings.NewReader(strings.TrimLeft(out.String(), "\n")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 || len(recs[1]) != len(recs[0]) {
		t.Fatalf("typeperf printed no row:\n%s", out.String())
	}
	machine := regexp.MustCompile(`^\\\\[^\\]*`)
	got := map[string]float64{}
	for i, h := range recs[0][1:] {
		cell := strings.TrimSpace(recs[1][i+1])
		if cell == "" {
			continue // no value (typeperf writes " ")
		}
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			t.Fatalf("column %s: %q: %v", h, cell, err)
		}
		got[machine.ReplaceAllString(h, "")] = v
	}
	return got
}

// formattedValues scrapes src twice with the formatted gauges (classic
// profile: one perf_instance label with PDH's instance name) and returns
// every _formatted value by the typeperf path of its counter and
// instance, found from the collector's own table of families (what is
// checked is the value, not the name).
func formattedValues(t *testing.T, src *fixedSource, objects []string) map[string]float64 {
	t.Helper()
	col, err := NewCollector(src, Options{Objects: objects, Formatted: true, Total: true, Profile: ProfileClassic})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := col.Scrape(ctx, Text); err != nil {
		t.Fatal(err)
	}
	body, err := col.Scrape(ctx, Text)
	if err != nil {
		t.Fatal(err)
	}
	path := map[string]string{} // metric name -> \Object(%s)\Counter
	for idx, lay := range col.st.layouts {
		for _, f := range lay.families {
			if !f.formatted {
				continue
			}
			obj, ctr := src.db.Name(idx), src.db.Name(f.def.NameIndex)
			path[string(f.sample)] = `\` + obj + `%s\` + ctr
		}
	}
	line := regexp.MustCompile(`^([a-z0-9_]+)(?:\{perf_instance="((?:[^"\\]|\\.)*)"(?:,perf_parent="((?:[^"\\]|\\.)*)")?\})? (\S+)$`)
	got := map[string]float64{}
	for l := range strings.SplitSeq(string(body), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil || path[m[1]] == "" {
			continue
		}
		inst := ""
		if m[2] != "" {
			inst = "(" + m[2] + ")"
			if m[3] != "" {
				inst = "(" + m[3] + "/" + m[2] + ")"
			}
		}
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		got[strings.Replace(path[m[1]], "%s", inst, 1)] = v
	}
	return got
}

// TestFormattedEqualsTypeperf: every _formatted gauge is the value
// typeperf prints for the same counter and instance over the same two
// samples (typeperf prints six decimals). Before issue 32 the gauges carried the display scale:
// Avg. Disk sec/Read 1000 times typeperf's.
func TestFormattedEqualsTypeperf(t *testing.T) {
	tests := []struct {
		name    string
		src     func(testing.TB) *fixedSource
		objects []string
	}{
		{"windows", windowsSource, windowsObjects},
		{"linux", linuxSource, linuxObjects},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := typeperfValues(t, tc.src(t), tc.objects)
			got := formattedValues(t, tc.src(t), tc.objects)
			if len(got) < 50 {
				t.Fatalf("only %d formatted values", len(got))
			}
			compared := 0
			for p, g := range got {
				w, ok := want[p]
				if !ok {
					t.Errorf("%s: a formatted gauge (%g) for a value typeperf does not print", p, g)
					continue
				}
				compared++
				if math.Abs(g-w) > 5e-7+1e-9*math.Abs(w) {
					t.Errorf("%s: formatted %.9g, typeperf %.9g", p, g, w)
				}
			}
			if compared < len(got) {
				t.Errorf("%d of %d gauges compared", compared, len(got))
			}
			t.Logf("%d values equal typeperf's", compared)
		})
	}
}
