package perflog_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/blg"
)

// BenchmarkRecordQuery is the cost of recording one sample of a query
// into perfc's binary log (BIN, zstd and plain) and into a Windows BLG:
// the recorder's WriteQuery after each Collect (not timed), as typeperf
// and relog call it. The query reads every counter of the 8 objects of
// the Vista log SampleLog.blg (~1,600 values a sample, 11 samples
// replayed). bytes/value is the log's size over the values written.
func BenchmarkRecordQuery(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		f    perflog.Format
		opts perflog.CreateOptions
	}{
		{"bin-zstd", perflog.BIN, perflog.CreateOptions{}},
		{"bin-plain", perflog.BIN, perflog.CreateOptions{Uncompressed: true}},
		{"blg", perflog.BLG, perflog.CreateOptions{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l, err := blg.Open("blg/testdata/SampleLog.blg")
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			q := pdh.OpenQuery(l)
			var paths []string
			for _, c := range l.List() {
				p := `\` + c.Object + `(*)\` + c.Name
				if _, err := q.AddCounter(p); err != nil {
					p = `\` + c.Object + `\` + c.Name // a single-instance object
					if _, err := q.AddCounter(p); err != nil {
						b.Fatal(err)
					}
				}
				paths = append(paths, p)
			}
			path := filepath.Join(b.TempDir(), "x"+bc.f.Extension())
			opts := bc.opts
			opts.Counters, opts.Location, opts.Titles = paths, time.UTC, l.Titles()
			rec, err := perflog.Create(ctx, path, bc.f, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			vals := 0
			for b.Loop() {
				b.StopTimer()
				err := q.Collect(ctx)
				if errors.Is(err, io.EOF) {
					l.Seek(0)
					err = q.Collect(ctx)
				}
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range q.Counters() {
					vals += len(c.Raw())
				}
				b.StartTimer()
				if err := rec.WriteQuery(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if err := rec.Close(); err != nil {
				b.Fatal(err)
			}
			if st, err := os.Stat(rec.Name()); err == nil && vals > 0 {
				b.ReportMetric(float64(st.Size())/float64(vals), "bytes/value")
			}
		})
	}
}
