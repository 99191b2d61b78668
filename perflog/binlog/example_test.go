package binlog_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/binlog"
)

// Write three samples of one counter to a log, then read them back.
func Example() {
	dir, err := os.MkdirTemp("", "binlog")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.plog")

	counters := []perfdata.CounterSpec{{NameIndex: 24, HelpIndex: 25, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT}}
	layout, err := perfdata.NewLayout(counters)
	if err != nil {
		panic(err)
	}
	opts := binlog.DefaultOptions() // zstd on, linear
	opts.Location = time.UTC
	w, err := binlog.Create(path, opts)
	if err != nil {
		panic(err)
	}
	b := perfdata.NewBuilder(nil)
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		at := t0.Add(time.Duration(i) * time.Second)
		b.Reset(perfdata.Header{PerfFreq: 1e9, PerfTime100nSec: perfdata.FileTime(at), SystemName: "HOST1"})
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 4, HelpIndex: 5, Single: true}, layout, counters); err != nil {
			panic(err)
		}
		b.Single().Set(0, uint64(1000+i))
		if err := b.EndObject(); err != nil {
			panic(err)
		}
		s, err := pdh.NewSample([][]byte{b.Bytes()})
		if err != nil {
			panic(err)
		}
		if err := w.WriteSample(s); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	l, err := binlog.Open(path)
	if err != nil {
		panic(err)
	}
	defer l.Close()
	fmt.Println(l.Host(), l.Len(), "samples")
	for range l.Len() {
		s, err := l.Sample(context.Background(), nil)
		if err != nil {
			panic(err)
		}
		o, _ := s.Blocks[0].Object(4)
		fmt.Println(s.Time.Format(time.TimeOnly), o.SingleBlock().Value(o.Counter(0)))
	}
	// Output:
	// HOST1 3 samples
	// 12:00:00 1000
	// 12:00:01 1001
	// 12:00:02 1002
}
