package provider_test

import (
	"fmt"
	"log"
	"os"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/provider"
)

// A program publishes its own counters: declare a counter set (here in
// Go; a manifest and `perfc ctrpp` generate the same), start the provider,
// create instances and update values with one atomic operation each.
// Consumers on the host (typeperf, perfc query, pdh) read them from shared
// memory once the set is registered with `perfc lodctr`.
func Example() {
	// Segments live in a per-user directory under a memory-backed base:
	// /dev/shm by default; a private one here.
	base, err := os.MkdirTemp("/dev/shm", "perfc-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)

	p, err := provider.Start("{5b0d2c6e-1f9a-4c63-9d0e-7f6a1b2c3d4e}", provider.Options{Dir: base})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	set, err := p.AddSet(&counterset.Set{
		GUID: "{5b0d2c6e-1f9a-4c63-9d0e-7f6a1b2c3d4f}", Name: "HTTP Server", Instancing: counterset.Multiple,
		Counters: []counterset.Counter{
			{ID: 1, Name: "Requests/sec", Type: countertype.PERF_COUNTER_COUNTER, BaseID: counterset.NoID},
			{ID: 2, Name: "Bytes Sent", Type: countertype.PERF_COUNTER_BULK_COUNT, BaseID: counterset.NoID},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	page, err := set.CreateInstance("index.html", 1)
	if err != nil {
		log.Fatal(err)
	}
	requests := page.MustCounter(1) // a handle for the hot path
	requests.Inc()
	requests.Inc()
	if err := page.Add(2, 5120); err != nil { // by id, checked
		log.Fatal(err)
	}
	// A wrong id is an error, never a silent no-op.
	if _, err := page.Counter(3); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println("requests:", requests.Value())
	// Output:
	// error: provider: set HTTP Server: no counter id 3
	// requests: 2
}
