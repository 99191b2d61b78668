package binlog

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
)

// values counts the values of a sample: counters times instances (1 for a
// single-instance object), base counters included.
func values(s *pdh.Sample) int {
	n := 0
	for _, b := range s.Blocks {
		for it := b.Objects(); it.Next(); {
			o := it.Object()
			n += o.NumCounters() * max(o.InstanceCount(), 1)
		}
	}
	return n
}

// benchWorkloads are the samples the benchmarks log: the 11 Windows
// samples of ZACH-PC (8 objects, ~1,600 values each, 60 s apart), and a
// generated Linux-like sample of 500 processes changing a little each
// second (~2,000 values).
func benchWorkloads(b *testing.B) map[string][]*pdh.Sample {
	win, _ := windowsSamples(b)
	return map[string][]*pdh.Sample{
		"windows":  win,
		"procs500": liveSamplesN(b, 60, 1, 500),
	}
}

// eachWorkload runs f as a sub-benchmark for each of benchWorkloads,
// compressed ("windows/zstd") and plain ("windows/plain").
func eachWorkload(b *testing.B, f func(b *testing.B, samples []*pdh.Sample, compress bool)) {
	for _, wl := range []string{"windows", "procs500"} {
		samples := benchWorkloads(b)[wl]
		for _, compress := range []bool{true, false} {
			name := wl + "/plain"
			if compress {
				name = wl + "/zstd"
			}
			b.Run(name, func(b *testing.B) { f(b, samples, compress) })
		}
	}
}

func BenchmarkWriteSample(b *testing.B) {
	eachWorkload(b, func(b *testing.B, samples []*pdh.Sample, compress bool) {
		w, err := Create(filepath.Join(b.TempDir(), "x.plog"), Options{Compress: compress, Location: time.UTC})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		n, vals := 0, 0
		for b.Loop() {
			s := at(samples[n%len(samples)], n)
			if err := w.WriteSample(s); err != nil {
				b.Fatal(err)
			}
			vals += values(s)
			n++
		}
		b.ReportMetric(float64(w.pos-headerLen)/float64(vals), "bytes/value")
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkReadSample(b *testing.B) {
	eachWorkload(b, func(b *testing.B, samples []*pdh.Sample, compress bool) {
		path := filepath.Join(b.TempDir(), "x.plog")
		var all []*pdh.Sample
		for i := range 5 * len(samples) {
			all = append(all, at(samples[i%len(samples)], i))
		}
		writeLog(b, path, Options{Compress: compress, Location: time.UTC}, all)
		l, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		b.ReportAllocs()
		vals := 0
		start := time.Now()
		for b.Loop() {
			s, err := l.Sample(b.Context(), nil)
			if errors.Is(err, io.EOF) {
				if err := l.Seek(0); err != nil {
					b.Fatal(err)
				}
				s, err = l.Sample(b.Context(), nil)
			}
			if err != nil {
				b.Fatal(err)
			}
			vals += values(s)
		}
		b.ReportMetric(float64(vals)/time.Since(start).Seconds(), "values/s")
	})
}

// BenchmarkWriters is the cost of a sample written to n logs at once, as
// the collector service's sets over the same objects write it: "same"
// gives every log the same sample (sets started together), "staggered"
// gives each log another sample of the workload (sets started at other
// times: their records differ). Each log is coded and compressed by its
// own writer. What a log costs beyond the first is
// (time at n=10 - time at n=1) / 9.
func BenchmarkWriters(b *testing.B) {
	for _, wl := range []string{"windows", "procs500"} {
		samples := benchWorkloads(b)[wl]
		for _, n := range []int{1, 10} {
			for _, feed := range []string{"same", "staggered"} {
				if n == 1 && feed == "staggered" {
					continue
				}
				{
					name := fmt.Sprintf("%s/logs=%d/%s", wl, n, feed)
					b.Run(name, func(b *testing.B) {
						ws := make([]*Writer, n)
						for k := range ws {
							w, err := Create(filepath.Join(b.TempDir(), fmt.Sprintf("x%d.plog", k)), Options{Compress: true, Location: time.UTC})
							if err != nil {
								b.Fatal(err)
							}
							ws[k] = w
						}
						b.ReportAllocs()
						i := 0
						for b.Loop() {
							same := at(samples[i%len(samples)], i)
							for k, w := range ws {
								s := same
								if feed == "staggered" {
									s = at(samples[(i+k)%len(samples)], i)
								}
								if err := w.WriteSample(s); err != nil {
									b.Fatal(err)
								}
							}
							i++
						}
						b.StopTimer()
						for _, w := range ws {
							if err := w.Close(); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}
