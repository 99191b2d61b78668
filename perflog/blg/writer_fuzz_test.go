package blg

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
)

// fuzzTypes are the counter types the fuzzed logs use: 32- and 64-bit
// raw counts and rates, a fraction with its base, a 100-ns timer.
var fuzzTypes = []countertype.Type{
	countertype.PERF_COUNTER_RAWCOUNT,
	countertype.PERF_COUNTER_LARGE_RAWCOUNT,
	countertype.PERF_COUNTER_COUNTER,
	countertype.PERF_COUNTER_BULK_COUNT,
	countertype.PERF_RAW_FRACTION,
	countertype.PERF_100NSEC_TIMER,
}

// byteSource hands out the fuzzer's bytes as small numbers (0 when they
// run out).
type byteSource struct{ b []byte }

func (s *byteSource) next(n int) int {
	if len(s.b) == 0 || n <= 0 {
		return 0
	}
	v := int(s.b[0]) % n
	s.b = s.b[1:]
	return v
}

func (s *byteSource) u64() uint64 {
	var v uint64
	for range 8 {
		v = v<<8 | uint64(s.next(256))
	}
	return v
}

// fuzzLog makes a counter list and samples from data: counters of one
// instance and of every instance, instances that come and go, values
// missing (gaps), 32- and 64-bit values, bases.
func fuzzLog(data []byte) ([]Counter, [][]Entry) {
	s := &byteSource{data}
	objects := []string{"Alpha", "Beta", "Gamma"}
	var list []Counter
	for k := range 1 + s.next(5) {
		c := Counter{Machine: `\\FUZZ`, Object: objects[s.next(len(objects))], Name: fmt.Sprintf("C%d", k),
			Type: fuzzTypes[s.next(len(fuzzTypes))], Scale: int32(s.next(5) - 2)}
		c.TimeBase = 1_000_000
		if c.Type&countertype.PERF_TIMER_100NS != 0 {
			c.TimeBase = 10_000_000
		}
		switch s.next(3) {
		case 1:
			c.Instance = "*"
		case 2:
			c.Instance = fmt.Sprintf("i%d", s.next(4))
		}
		list = append(list, c)
	}
	var samples [][]Entry
	clock := uint64(1_000_000)
	for range 1 + s.next(6) {
		clock += uint64(1 + s.next(250))
		entries := make([]Entry, len(list))
		for k, c := range list {
			value := func() rawlog.Value {
				v := rawlog.Value{First: int64(s.u64() >> (s.next(2) * 32)), Second: int64(clock), Multi: 1}
				if c.Type.Size() == countertype.PERF_SIZE_DWORD {
					v.First = int64(uint32(v.First))
				}
				if c.Type == countertype.PERF_RAW_FRACTION {
					v.Second = int64(1 + s.next(1000)) // the base
				}
				return v
			}
			switch {
			case c.Instance == "*":
				entries[k].Items = []Item{}
				for i := range 4 {
					if s.next(3) > 0 { // a third of the instances missing each time
						entries[k].Items = append(entries[k].Items, Item{Instance: fmt.Sprintf("i%d", i), Value: value()})
					}
				}
			case s.next(5) > 0:
				entries[k].Items = []Item{{Instance: c.Instance, Value: value()}}
			}
		}
		samples = append(samples, entries)
	}
	return list, samples
}

// fuzzSeedValues is a seed whose log has values pdh reads.
const fuzzSeedValues = "fraction and timers, instances coming and going: 0123456789abcdefghijklmnopqrstuvwxyz"

// FuzzWriter writes logs made of the fuzzer's bytes and reads them back:
// the records decode to what was written, and perfc's reader gives the
// query the raw values of every instance written, sample by sample.
func FuzzWriter(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 0, 1, 1, 1, 1, 2, 5, 2, 2, 3, 3, 3, 200, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 0, 4, 5, 6})
	f.Add([]byte(fuzzSeedValues))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, samples := fuzzLog(data)
		var m memFile
		start := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC)
		w, err := NewWriter(&m, Header{BufferSize: 4096, Start: start, End: start, LogInstanceName: "88a3f583-d12f-4e5b-9c9d-0123456789ab"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteList(start, slices.Clone(list)); err != nil {
			t.Fatal(err)
		}
		for i, e := range samples {
			if err := w.WriteSample(start.Add(time.Duration(i+1)*time.Second), e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		l, err := readMemory(m.b, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		if l.Len() != len(samples) {
			t.Fatalf("%d samples read, %d written", l.Len(), len(samples))
		}
		// The records as written.
		for i, e := range samples {
			rec := &l.records[l.samples[i]]
			b, _, err := readRecord(l.r, rec, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := decodeEntries(t, b, l.List())
			for k := range e {
				want := e[k].Items
				if list[k].Instance != "*" && len(want) == 0 {
					if len(got[k].Items) != 1 || rawlog.StatusOK(got[k].Items[0].Value.Status) {
						t.Fatalf("sample %d counter %d: a missing value read as %+v", i, k, got[k].Items)
					}
					continue
				}
				for j := range want {
					if got[k].Items[j].Value != want[j].Value || (list[k].Instance == "*" && got[k].Items[j].Instance != want[j].Instance) {
						t.Fatalf("sample %d counter %d item %d: read %+v, wrote %+v", i, k, j, got[k].Items[j], want[j])
					}
				}
			}
		}
		// Through pdh: every value written is the raw value of its item.
		// A counter whose object the first sample lacks is not added
		// (pdh reads the first sample to resolve paths).
		q := pdh.OpenQuery(l)
		var ks []int // the list entry of each counter added
		for k, p := range l.Counters() {
			if _, err := q.AddCounter(p); err == nil {
				ks = append(ks, k)
			}
		}
		checked := 0
		defer func() {
			if string(data) == fuzzSeedValues && checked == 0 {
				t.Errorf("no value checked through pdh") // the check itself works
			}
		}()
		for i, e := range samples {
			if err := q.Collect(context.Background()); err != nil {
				if err == io.EOF {
					t.Fatalf("sample %d: the log ended", i)
				}
				t.Fatalf("sample %d: %v", i, err)
			}
			for n, c := range q.Counters() {
				k := ks[n]
				got := map[string]uint64{}
				for _, r := range c.Raw() {
					got[r.Instance] = r.Raw.FirstValue
				}
				for _, it := range e[k].Items {
					name := it.Instance
					if list[k].Instance == "" {
						name = ""
					}
					want := uint64(it.Value.First)
					checked++
					if v, ok := got[name]; !ok || v != want {
						t.Fatalf("sample %d %s(%s): read %d (%v), wrote %d; all: %v", i, list[k].Path(), name, v, ok, want, got)
					}
				}
			}
		}
	})
}
