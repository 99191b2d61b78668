// Command churnchild is one short-lived process of BenchmarkChurn: it
// holds PERFC_CHURN_THREADS OS threads (default 4, counting the one main
// runs on) for PERFC_CHURN_LIFE (a Go duration, default 1s) and exits.
// The benchmark starts it through symbolic links of distinct long names,
// so that every process has a name of its own (comm, completed from
// argv[0]).
package main

import (
	"os"
	"runtime"
	"strconv"
	"time"
)

func main() {
	threads, err := strconv.Atoi(os.Getenv("PERFC_CHURN_THREADS"))
	if err != nil || threads < 1 {
		threads = 4
	}
	life, err := time.ParseDuration(os.Getenv("PERFC_CHURN_LIFE"))
	if err != nil {
		life = time.Second
	}
	runtime.LockOSThread()
	ready := make(chan struct{})
	for range threads - 1 {
		go func() {
			runtime.LockOSThread()
			ready <- struct{}{}
			select {}
		}()
	}
	for range threads - 1 {
		<-ready
	}
	time.Sleep(life)
}
