package pdh

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/perfcounters/perfcounters/titles"
)

// TestExplicitInstancesLinear: adding and collecting N counters that each
// name one instance of an object of N instances (a CSV of explicit
// instance paths read back) costs work linear in N, not N² (issue 28,
// item 7: relog of a 291 KB CSV used 1.8 GB, a 1.4 MB one ran for over 10
// CPU-minutes). Allocations are counted, not time: doubling N must not
// much more than double them.
func TestExplicitInstancesLinear(t *testing.T) {
	allocs := func(n int) float64 {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("p%05d", i)
		}
		samples := [][]byte{
			rawCountSample(t, t0, names, func(i int, _ string) uint64 { return uint64(i) }),
			rawCountSample(t, t0+second, names, func(i int, _ string) uint64 { return uint64(2 * i) }),
		}
		return testing.AllocsPerRun(3, func() {
			src := &memSource{db: titles.English(), samples: samples}
			q := OpenQuery(src)
			for _, name := range names {
				if _, err := q.AddCounterContext(context.Background(), `\Processor(`+name+`)\Context Switches/sec`); err != nil {
					t.Fatal(err)
				}
			}
			for range samples {
				if err := q.Collect(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	small, big := allocs(400), allocs(800)
	if big > 2.6*small {
		t.Errorf("%.0f allocations for 400 explicit instance paths, %.0f for 800: more than linear", small, big)
	}
}

// TestMaxItemsCountsBeforeAllocating: a query bounded by SetMaxItems stops
// expanding its paths at the bound, before it allocates for the values
// past it (issue 28, item 6: /v1/formatted expanded every path before
// its 100,000-value limit was checked, and six requests of a monitor
// crashed the server). Bytes allocated are counted, not time.
func TestMaxItemsCountsBeforeAllocating(t *testing.T) {
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("p%05d", i)
	}
	sample := rawCountSample(t, t0, names, func(i int, _ string) uint64 { return uint64(i) })
	// collect adds paths wildcard paths to a query bounded at 1,000 values
	// and returns Collect's error and the bytes it allocated.
	collect := func(paths, limit int) (uint64, error) {
		src := &memSource{db: titles.English(), samples: [][]byte{sample, sample}}
		q := OpenQuery(src)
		q.SetMaxItems(limit)
		for range paths {
			if _, err := q.AddCounterContext(context.Background(), `\Processor(*)\Context Switches/sec`); err != nil {
				t.Fatal(err)
			}
		}
		if err := src.Seek(0); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := q.Collect(context.Background())
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	}
	one, err1 := collect(1, 1000)
	hundred, err100 := collect(100, 1000)
	var tm *TooManyError
	for _, err := range []error{err1, err100} {
		if !errors.As(err, &tm) || tm.Limit != 1000 {
			t.Fatalf("Collect: %v, want a *TooManyError of 1000", err)
		}
	}
	// Reading the sample costs what it costs; the paths past the bound
	// cost nothing more (unbounded, 100 paths × 10,000 instances would
	// add tens of MB).
	if hundred > one+one/2 {
		t.Errorf("Collect allocated %d bytes for 100 paths, %d for 1, stopping at 1,000 values", hundred, one)
	}
	if _, err := collect(1, 10000); err != nil {
		t.Errorf("a query within its bound: %v", err)
	}
}
