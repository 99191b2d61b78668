//go:generate go run ../../cmd/perfc ctrpp httpserver.man -o counters.go -p main

// Command httpserver is a small HTTP server that publishes V2 performance
// counters: the "HTTP Server" counter set of httpserver.man, one instance
// per route (index, hello, slow) and a _Total formed by consumers. The
// typed wrappers in counters.go are generated from the manifest by
// `perfc ctrpp`; see README.md for registering the manifest and watching
// the counters with `perfc typeperf`.
//
// The segment goes in this user's directory under $PERFC_SHM_DIR, else
// under /dev/shm (/dev/shm/perfc-<uid>), as for every perfc command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/provider"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free one)")
	flag.Parse()
	if err := run(*addr, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(addr string, out io.Writer) error {
	p, err := Start(provider.Options{Dir: os.Getenv("PERFC_SHM_DIR")})
	if err != nil {
		return err
	}
	defer p.Close()

	mux := http.NewServeMux()
	routes := []struct {
		pattern, instance string
		h                 http.HandlerFunc
	}{
		{"/{$}", "index", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(w, "perfcounters example: try /hello and /slow")
		}},
		{"/hello", "hello", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") }},
		{"/slow", "slow", func(w http.ResponseWriter, r *http.Request) {
			select { // 20-100 ms, or less if the client goes away
			case <-time.After(time.Duration(20+rand.IntN(80)) * time.Millisecond):
			case <-r.Context().Done():
			}
			fmt.Fprintln(w, "slow")
		}},
	}
	for _, rt := range routes {
		inst, err := p.HTTPServer.NewInstance(rt.instance, 0)
		if err != nil {
			return err
		}
		mux.Handle(rt.pattern, instrument(inst, rt.h))
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// Tests and scripts read this line to find the server.
	fmt.Fprintf(out, "listening on http://%s (provider segment %s)\n", ln.Addr(), p.Path())

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// instrument counts a route's requests. Each update is one atomic
// operation on the shared-memory segment; the latency and its base are
// added as one pair so a consumer never sees a time without its count.
// Times are in nanoseconds because the consumer's PerfFreq is 1e9 (its
// PerfTime is CLOCK_MONOTONIC in nanoseconds).
func instrument(c *HTTPServer, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.InFlight.Add(1)
		start := time.Now()
		h.ServeHTTP(w, r)
		c.Instance.AddPair(HTTPServerLatencyID, uint64(time.Since(start).Nanoseconds()), HTTPServerLatencyBaseID, 1)
		c.Requests.Inc()
		c.Total.Inc()
		c.InFlight.Add(^uint64(0)) // -1
	})
}
