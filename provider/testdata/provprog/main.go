// Command provprog is a provider used by the provider package's
// cross-process test: it publishes known values, says "ready" on stdout
// and waits to be killed.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/provider"
)

func main() {
	dir := flag.String("dir", "", "segment directory")
	flag.Parse()
	p, err := provider.Start("{provprog}", provider.Options{Dir: *dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := p.AddSet(&counterset.Set{
		GUID: "{provprog-set}", Name: "ProvProg", Instancing: counterset.Multiple, DefaultCounter: -1,
		Counters: []counterset.Counter{
			{ID: 1, Name: "Set", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
			{ID: 2, Name: "Added", Type: countertype.PERF_COUNTER_BULK_COUNT},
			{ID: 3, Name: "Sharded", Type: countertype.PERF_COUNTER_BULK_COUNT},
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i, name := range []string{"first", "second"} {
		in, err := s.CreateInstance(name, uint32(i))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		in.Set(1, 12345+uint64(i))
		in.Add(2, 7)
		in.Add(2, 7)
		in.MustSharded(3).Add(5)
		in.MustSharded(3).Writer().Add(6)
	}
	fmt.Println("ready", p.Path())
	// Wait to be killed. A bare select{} lets the runtime end the
	// program as deadlocked once no goroutine can run (it did, under
	// load); a pending signal keeps it waiting.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	<-stop
}
