package provider

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/shm/shmtest"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/shm"
)

func benchInstance(b *testing.B) *Instance {
	b.Helper()
	p, err := Start("{bench}", opts(shmtest.Dir(b)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	s, err := p.AddSet(webSet(counterset.Multiple))
	if err != nil {
		b.Fatal(err)
	}
	in, err := s.CreateInstance("x", 1)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkBareAtomicAdd is the yardstick: sync/atomic on a Go variable.
func BenchmarkBareAtomicAdd(b *testing.B) {
	var v atomic.Uint64
	b.ReportAllocs()
	for b.Loop() {
		v.Add(1)
	}
}

func BenchmarkAdd(b *testing.B) {
	in := benchInstance(b)
	b.ReportAllocs()
	for b.Loop() {
		in.Add(0, 1)
	}
}

func BenchmarkCounterAdd(b *testing.B) {
	c := benchInstance(b).MustCounter(0)
	b.ReportAllocs()
	for b.Loop() {
		c.Add(1)
	}
}

func BenchmarkRefSet(b *testing.B) {
	r := benchInstance(b).MustRef(3)
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		i++
		r.Set(i)
	}
}

// BenchmarkShardedAdd runs 2 goroutines per GOMAXPROCS
// (b.SetParallelism(2)) adding to one sharded counter.
func BenchmarkShardedAdd(b *testing.B) {
	sc := benchInstance(b).MustSharded(10)
	b.SetParallelism(2)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sc.Add(1)
		}
	})
}

func BenchmarkShardWriterAdd(b *testing.B) {
	sc := benchInstance(b).MustSharded(10)
	b.SetParallelism(2)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := sc.Writer()
		for pb.Next() {
			w.Add(1)
		}
	})
}

func BenchmarkCounterAddContended(b *testing.B) {
	c := benchInstance(b).MustCounter(0)
	b.SetParallelism(2)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(1)
		}
	})
}

// BenchmarkBareAtomicAddContended is the yardstick of the contended
// benchmarks: 2 goroutines per GOMAXPROCS adding to one Go atomic.
func BenchmarkBareAtomicAddContended(b *testing.B) {
	var v atomic.Uint64
	b.SetParallelism(2)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.Add(1)
		}
	})
}

// BenchmarkAddContended is Instance.Add by id from 2 goroutines per
// GOMAXPROCS on one counter.
func BenchmarkAddContended(b *testing.B) {
	in := benchInstance(b)
	b.SetParallelism(2)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			in.Add(0, 1)
		}
	})
}

// BenchmarkCollect1000x20 scans one segment of 1,000 instances of a
// 20-counter set and reports the scanner's CPU time (user+system, from
// getrusage) per scan as cpu-ns/op.
func BenchmarkCollect1000x20(b *testing.B) {
	dir := shmtest.Dir(b)
	p, err := Start("{collect}", Options{Dir: dir, MaxInstances: 2048})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	def := &counterset.Set{GUID: "{collect-set}", Name: "Collect", Instancing: counterset.Multiple, DefaultCounter: -1}
	for i := range 20 {
		def.Counters = append(def.Counters, counterset.Counter{ID: uint32(i), Name: "c", Type: countertype.PERF_COUNTER_BULK_COUNT, BaseID: counterset.NoID})
	}
	s, err := p.AddSet(def)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		in, err := s.CreateInstance("instance "+string(rune('a'+i%26))+itoa(i), uint32(i))
		if err != nil {
			b.Fatal(err)
		}
		for c := range 20 {
			in.Set(uint32(c), uint64(i*c))
		}
	}
	sc := shm.NewScanner(dir)
	defer sc.Close()
	if snaps, errs := sc.Scan(); len(errs) != 0 || len(snaps[0].Sets[0].Instances) != 1000 {
		b.Fatalf("errors %v", errs)
	}
	b.SetBytes(1000 * 20 * 8)
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		sc.Scan()
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}
