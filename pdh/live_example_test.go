package pdh_test

import (
	"context"
	"fmt"
	"log"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
)

// A program of one's own reading this computer's counters: host.New
// assembles the local machine (the objects of /proc and /sys, and with
// Options.StateDir the registered providers), its Source is what a
// query reads, and the counters are added by path as typeperf takes
// them. A count such as Available MBytes is valid from the first
// sample; a rate such as \Processor(_Total)\% Processor Time needs a
// second one, an interval later (Query.Every). A program prints v.Double;
// this example prints what is the same on every machine.
func Example_liveHost() {
	h, err := host.New(host.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	q := pdh.OpenQuery(h.Source())
	defer q.Close()
	mem, err := q.AddCounter(`\Memory\Available MBytes`)
	if err != nil {
		log.Fatal(err)
	}
	if err := q.Collect(context.Background()); err != nil {
		log.Fatal(err)
	}
	v, err := mem.Formatted(calc.FmtDouble)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Status.String(), v.Double > 0)
	// Output: PDH_CSTATUS_VALID_DATA true
}
