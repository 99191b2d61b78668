package sqllog

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// BenchmarkWrite logs the 11 real Windows samples (every counter of 8
// objects, about 1,700 values a sample) and reports values written a
// second; BenchmarkRead reads them back through a query.
func BenchmarkWrite(b *testing.B) {
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			ctx := context.Background()
			opts := be.opts(b)
			values := 0
			for i := 0; b.Loop(); i++ {
				w, err := Create(ctx, "SQL:perf!bench", opts)
				if err != nil {
					b.Fatal(err)
				}
				q := benchQuery(b)
				for {
					if err := q.Collect(ctx); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					if err := w.WriteQuery(ctx, q); err != nil {
						b.Fatal(err)
					}
					for _, c := range q.Counters() {
						values += len(c.Raw())
					}
				}
				w.Close()
			}
			b.ReportMetric(float64(values)/b.Elapsed().Seconds(), "values/s")
		})
	}
}

func benchQuery(b *testing.B) *pdh.Query {
	q := pdh.OpenQuery(openWindows(b))
	for _, p := range winPaths {
		if _, err := q.AddCounter(p); err != nil {
			b.Fatal(err)
		}
	}
	return q
}
