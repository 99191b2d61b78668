// Package provider_test compares the V2 provider's update paths with
// github.com/prometheus/client_golang and a bare sync/atomic add. It is a
// separate module so that the main module does not depend on
// client_golang. Run with -cpu=1,2: the Parallel benchmarks run
// GOMAXPROCS goroutines, so -cpu=2 is the 2-goroutine contended case
// (ns/op there is wall time divided by the operations of both goroutines).
package provider_test

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/provider"
)

func instance(b *testing.B) *provider.Instance {
	b.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "perfc-bench-")
	if err != nil {
		b.Skipf("no /dev/shm: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	p, err := provider.Start("{bench}", provider.Options{Dir: dir, MaxInstances: 16, HeapSize: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	s, err := p.AddSet(&counterset.Set{
		GUID: "{bench-set}", Name: "Bench", Instancing: counterset.Multiple, DefaultCounter: -1,
		Counters: []counterset.Counter{
			{ID: 1, Name: "Count", Type: countertype.PERF_COUNTER_BULK_COUNT, BaseID: counterset.NoID},
			{ID: 2, Name: "Gauge", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, BaseID: counterset.NoID},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	in, err := s.CreateInstance("x", 1)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// Single goroutine.

func BenchmarkInc_BareAtomic(b *testing.B) {
	var v atomic.Uint64
	b.ReportAllocs()
	for b.Loop() {
		v.Add(1)
	}
}

func BenchmarkInc_PromCounter(b *testing.B) {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "c"})
	b.ReportAllocs()
	for b.Loop() {
		c.Inc()
	}
}

func BenchmarkSet_PromGauge(b *testing.B) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "g"})
	b.ReportAllocs()
	var i float64
	for b.Loop() {
		i++
		g.Set(i)
	}
}

func BenchmarkInc_ProviderAdd(b *testing.B) {
	in := instance(b)
	b.ReportAllocs()
	for b.Loop() {
		in.Add(1, 1)
	}
}

func BenchmarkInc_ProviderCounter(b *testing.B) {
	c := instance(b).MustCounter(1)
	b.ReportAllocs()
	for b.Loop() {
		c.Inc()
	}
}

func BenchmarkSet_ProviderSet(b *testing.B) {
	in := instance(b)
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		i++
		in.Set(2, i)
	}
}

func BenchmarkSet_ProviderRef(b *testing.B) {
	r := instance(b).MustRef(2)
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		i++
		r.Set(i)
	}
}

func BenchmarkInc_ProviderRef(b *testing.B) {
	r := instance(b).MustRef(1)
	b.ReportAllocs()
	for b.Loop() {
		r.Add(1)
	}
}

// GOMAXPROCS goroutines on one value (contended with -cpu=2).

func BenchmarkParallel_BareAtomic(b *testing.B) {
	var v atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.Add(1)
		}
	})
}

func BenchmarkParallel_PromCounter(b *testing.B) {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "c"})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
		}
	})
}

func BenchmarkParallel_PromGauge(b *testing.B) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "g"})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			g.Set(1)
		}
	})
}

func BenchmarkParallel_ProviderAdd(b *testing.B) {
	in := instance(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			in.Add(1, 1)
		}
	})
}

func BenchmarkParallel_ProviderCounter(b *testing.B) {
	c := instance(b).MustCounter(1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
		}
	})
}

func BenchmarkParallel_ProviderSharded(b *testing.B) {
	s := instance(b).MustSharded(1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.Inc()
		}
	})
}

func BenchmarkParallel_ProviderShardWriter(b *testing.B) {
	s := instance(b).MustSharded(1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := s.Writer()
		for pb.Next() {
			w.Inc()
		}
	})
}
