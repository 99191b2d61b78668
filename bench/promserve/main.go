// Command promserve serves export/prom's /metrics of the live local host
// for BenchmarkPromScrape, which measures its CPU time from outside
// (/proc/PID/stat) exactly as node_exporter's. It stands in for perfc
// serve's /metrics until that exists.
//
//	promserve -listen 127.0.0.1:9999 [-objects "Processor,Memory"] [-cpuprofile file]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/perfcounters/perfcounters/export/prom"
	"github.com/perfcounters/perfcounters/host"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9999", "address to serve /metrics on")
	objects := flag.String("objects", "Processor,Memory,PhysicalDisk,Network Interface", "objects to export, comma-separated")
	profile := flag.String("cpuprofile", "", "write a CPU profile here until SIGTERM")
	flag.Parse()
	if err := run(*listen, strings.Split(*objects, ","), *profile); err != nil {
		fmt.Fprintln(os.Stderr, "promserve:", err)
		os.Exit(1)
	}
}

func run(listen string, objects []string, profile string) error {
	h, err := host.New(host.Options{})
	if err != nil {
		return err
	}
	defer h.Close()
	col, err := prom.NewCollector(h.Source(), prom.Options{Objects: objects})
	if err != nil {
		return err
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", col)
	srv := &http.Server{Addr: listen, Handler: mux}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
