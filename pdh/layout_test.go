package pdh

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/titles"
)

// TestLayout: a counter's Layout stays the same exactly while its items
// keep their names and order, and AppendComputed and AppendItemRows agree
// with AppendFormattedArray and AppendItems in every sample.
func TestLayout(t *testing.T) {
	p := func(names ...string) []proc {
		out := make([]proc, len(names))
		for i, n := range names {
			out[i] = proc{n, uint64(i + 1), 1, uint64(i * 1000)}
		}
		return out
	}
	th := []thread{{"0", 0, 100, 1, 5}}
	// changed: the items differ from the previous sample's (by the test
	// data, not by the code): names, order, count, the object gone.
	steps := []struct {
		procs   []proc
		threads []thread
		changed bool
	}{
		{p("a", "b"), th, true},
		{p("a", "b"), th, false}, // other values only
		{p("a", "c"), th, true},
		{p("c", "a"), th, true},
		{p("c", "a"), th, false},
		{p("c", "a", "a"), th, true}, // a#1 comes
		{p("c", "a", "a"), nil, false},
		{p(), nil, true},
		{p(), nil, false},
		{p("c"), th, true},
	}
	var samples [][]byte
	for i, s := range steps {
		for j := range s.procs {
			s.procs[j].cpu += uint64(i) * 7_000
		}
		samples = append(samples, buildSample(t, t0+int64(i)*second, s.procs, s.threads))
	}
	q := OpenQuery(&memSource{db: titles.English(), samples: samples})
	procs := mustAdd(t, q, `\Process(*)\*`)
	threads := mustAdd(t, q, `\Thread(*)\*`)
	if procs.Layout() != 0 {
		t.Errorf("Layout before the first sample: %d, want 0", procs.Layout())
	}
	var prev uint64
	var prevItems []Item
	for i, s := range steps {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		l := procs.Layout()
		if (l != prev) != s.changed {
			t.Errorf("sample %d: Layout %d after %d: changed %v, want %v", i, l, prev, l != prev, s.changed)
		}
		items := procs.AppendItems(nil)
		if l == prev && !sameNames(items, prevItems) {
			t.Errorf("sample %d: same Layout, other items: %+v, then %+v", i, prevItems, items)
		}
		prev, prevItems = l, items
		for _, c := range []*Counter{procs, threads} {
			checkComputed(t, i, c)
		}
		if threads.Layout() == procs.Layout() {
			t.Errorf("sample %d: two counters share Layout %d", i, l)
		}
	}
	if err := q.Collect(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("after the last sample: %v, want io.EOF", err)
	}

	// A query of names only has the same items, and no values.
	q = OpenQuery(&memSource{db: titles.English(), samples: samples})
	q.SetNamesOnly(true)
	names := mustAdd(t, q, `\Process(*)\*`)
	single := mustAdd(t, q, `\Process(a)\ID Process`)
	prev = 0
	for i, s := range steps {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		if l := names.Layout(); (l != prev) != s.changed {
			t.Errorf("names only, sample %d: Layout changed %v, want %v", i, l != prev, s.changed)
		}
		prev = names.Layout()
		if got, want := len(names.AppendItems(nil)), 3*len(s.procs); got != want {
			t.Errorf("names only, sample %d: %d items, want %d", i, got, want)
		}
		if n := len(names.AppendComputed(nil)) + len(names.FormattedArray(calc.FmtDouble)) + len(names.Raw()); n != 0 {
			t.Errorf("names only, sample %d: %d values", i, n)
		}
		if v, _ := single.Formatted(calc.FmtDouble); i == 2 && v.Status != calc.NoData {
			t.Errorf("names only, sample %d: a value of status %v, want NoData", i, v.Status)
		}
	}
}

func sameNames(a, b []Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Instance != b[i].Instance || a[i].Path != b[i].Path {
			return false
		}
	}
	return true
}

// checkComputed compares AppendComputed and AppendItemRows with
// AppendFormattedArray.
func checkComputed(t *testing.T, sample int, c *Counter) {
	t.Helper()
	items := c.AppendFormattedArray(nil, calc.FmtDouble|calc.FmtNoScale|calc.FmtNoCap100)
	comp := c.AppendComputed(nil)
	if len(comp) != len(items) {
		t.Fatalf("sample %d, %s: %d computed values for %d items", sample, c.Path(), len(comp), len(items))
	}
	for j, it := range items {
		if comp[j].Status != it.Status || (it.Status == calc.ValidData && comp[j].Value != it.Computed) {
			t.Errorf("sample %d, %s item %d: computed %+v, item %v %v", sample, c.Path(), j, comp[j], it.Computed, it.Status)
		}
	}
	rows, ctrs := c.AppendItemRows(nil)
	if len(rows)*len(ctrs) != len(items) {
		t.Fatalf("sample %d, %s: %d rows × %d counters for %d items", sample, c.Path(), len(rows), len(ctrs), len(items))
	}
	for j, it := range items {
		p := rows[j/len(ctrs)]
		p.Counter = ctrs[j%len(ctrs)]
		if p != it.Path {
			t.Errorf("sample %d, %s item %d: row path %v, item %v", sample, c.Path(), j, p, it.Path)
		}
	}
}
