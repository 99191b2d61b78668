package sqllog

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// churnSource is a live source of a Process object whose instances are
// names[k] at its k-th sample (the last list once past the end).
type churnSource struct {
	names [][]string
	k     int
}

func (c *churnSource) Sample(context.Context, []uint32) (*pdh.Sample, error) {
	specs := []perfdata.CounterSpec{{NameIndex: 180, HelpIndex: 181, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT}}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		return nil, err
	}
	at := time.Date(2025, 1, 1, 0, 0, c.k, 0, time.UTC)
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: at.UnixNano(), PerfFreq: 1e9, PerfTime100nSec: perfdata.FileTime(at), SystemTime: perfdata.SystemTimeOf(at), SystemName: "CHURN"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100}, l, specs); err != nil {
		return nil, err
	}
	for i, n := range c.names[min(c.k, len(c.names)-1)] {
		b.Instance(n, 0, 0, perfdata.NoUniqueID).Set(0, uint64(i+1))
	}
	if err := b.EndObject(); err != nil {
		return nil, err
	}
	c.k++
	return pdh.NewSample([][]byte{bytes.Clone(b.Bytes())})
}

func (c *churnSource) Titles() *titles.DB     { return titles.English() }
func (c *churnSource) Recorded() pdh.Recorded { return nil }

// TestWriterChurn: short-lived processes with distinct names come and go
// while a writer logs \Process(*)\Working Set. The writer's cache of
// CounterDetails rows holds the items of the latest sample only; an
// instance that returns after a pause finds its row again in the
// database, not a second one.
func TestWriterChurn(t *testing.T) {
	const live, perSample, churn = 2, 25, 20
	cases := []struct {
		name  string
		quiet int // samples after the churn with the live processes only
		back  bool
	}{
		{"after the churn", 2, false},
		{"a process returns", 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var names [][]string
			for k := range churn + tc.quiet {
				var list []string
				for i := range live {
					list = append(list, "keep"+strconv.Itoa(i))
				}
				if k < churn {
					for i := range perSample {
						list = append(list, "short"+strconv.Itoa(k*perSample+i))
					}
				}
				names = append(names, list)
			}
			if tc.back {
				names = append(names, append(slices.Clone(names[len(names)-1]), "short"+strconv.Itoa(perSample)))
			}
			q := pdh.OpenQuery(&churnSource{names: names})
			if _, err := q.AddCounter(`\Process(*)\Working Set`); err != nil {
				t.Fatal(err)
			}
			w, err := Create(ctx, "SQL:perf!churn", sqliteOpts(t))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			// AddCounter checks the path against the first sample; the
			// query collects the others.
			distinct := map[string]bool{}
			for _, list := range names[1:] {
				for _, n := range list {
					distinct[n] = true
				}
			}
			for range names[1:] {
				if err := q.Collect(ctx); err != nil {
					t.Fatal(err)
				}
				if err := w.WriteQuery(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			want := live
			if tc.back {
				want++
			}
			if len(w.ids) != want {
				t.Errorf("the writer caches %d CounterDetails rows, want the latest sample's %d", len(w.ids), want)
			}
			var rows int
			if err := w.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM CounterDetails`).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != len(distinct) {
				t.Errorf("%d CounterDetails rows, want one for each of the %d instances", rows, len(distinct))
			}
		})
	}
}
