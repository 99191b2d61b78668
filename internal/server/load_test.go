package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// The loopback load test: loadClients clients, each sending requests one
// after another for loadDuration (loadShortDuration with -short).
const (
	loadClients       = 200
	loadDuration      = 30 * time.Second
	loadShortDuration = 3 * time.Second
	// loadHeapGrowth bounds the heap in use after the run (and a GC)
	// over before it; loadHeapPeak bounds it during the run.
	loadHeapGrowth = 16 << 20
	loadHeapPeak   = 256 << 20
)

func TestLoad(t *testing.T) {
	d := loadDuration
	if testing.Short() {
		d = loadShortDuration
	}
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// Warm the host (first collection opens its files).
	if _, err := h.QueryValue(context.Background(), "Global"); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()

	s, err := New(Options{Addr: "127.0.0.1:0", API: remotetest.NewHandler(h, apiserver.Options{}), TokenFile: filepath.Join(t.TempDir(), "serve.token")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	stopped := false
	shutdown := func() error {
		if stopped {
			return nil
		}
		stopped = true
		stop()
		return <-served
	}
	defer shutdown() // on failure too, before the host closes

	tr := &http.Transport{MaxIdleConnsPerHost: loadClients}
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	auth := "Bearer " + s.Token()
	// Each client asks, in turn, for Memory and Processor as a block,
	// for the host and for a formatted value as JSON, and once in eight
	// for the whole Global block (tens of milliseconds of collection:
	// more often, the test would measure the engine, not the server).
	type request struct {
		path string
		objs []uint32 // objects the block must hold
	}
	small, memory := request{remote.PathQuery + "?value=4+238", []uint32{4, 238}}, request{remote.PathQuery + "?value=4", []uint32{4}}
	hostJS, formatted := request{path: remote.PathHost}, request{path: remote.PathFormatted + "?path=" + url.QueryEscape(`\Memory\Available Bytes`)}
	requests := []request{small, memory, hostJS, formatted, small, memory, hostJS,
		{remote.PathQuery + "?value=Global", []uint32{2, 4, 230, 238}}}
	if raceEnabled {
		// The race detector makes a Global collection of every process
		// ten times slower: the clients would wait on the engine.
		requests[len(requests)-1] = small
	}
	check := func(i int) error {
		rq := requests[i%len(requests)]
		req, _ := http.NewRequest("GET", s.URL()+rq.path, nil)
		req.Header.Set("Authorization", auth)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s: status %d: %s", rq.path, resp.StatusCode, b)
		}
		switch rq.path {
		case hostJS.path:
			var c callerJSON
			if err := json.Unmarshal(b, &c); err != nil || c.Role != "log" || c.Who != "token:local" {
				return fmt.Errorf("%s: %q: %v", rq.path, b, err)
			}
			return nil
		case formatted.path:
			var f remote.FormattedAnswer
			if err := json.Unmarshal(b, &f); err != nil || len(f.Counters) != 1 || len(f.Counters[0].Items) != 1 {
				return fmt.Errorf("%s: %q: %v", rq.path, b, err)
			}
			return nil
		}
		blk, err := perfdata.Parse(b)
		if err != nil {
			return fmt.Errorf("%s: %v", rq.path, err)
		}
		for _, o := range rq.objs {
			if _, ok := blk.Object(o); !ok {
				return fmt.Errorf("%s: object %d missing from the block", rq.path, o)
			}
		}
		return nil
	}

	var (
		count    atomic.Int64
		firstErr atomic.Pointer[error]
		wg       sync.WaitGroup
		lat      = make([][]time.Duration, loadClients)
	)
	deadline := time.Now().Add(d)
	start := time.Now()
	defer wg.Wait() // on failure too: no client outlives the test
	for c := range loadClients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline) && firstErr.Load() == nil; i++ {
				t0 := time.Now()
				if err := check(i); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
				count.Add(1)
			}
		})
	}
	// Watch the heap while the clients run.
	var peak uint64
	tick := time.NewTicker(250 * time.Millisecond)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
watch:
	for {
		select {
		case <-done:
			break watch
		case <-tick.C:
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}
	tick.Stop()
	elapsed := time.Since(start)
	if p := firstErr.Load(); p != nil {
		t.Fatalf("after %d good answers: %v", count.Load(), *p)
	}
	if err := shutdown(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	tr.CloseIdleConnections()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	n := len(all)
	t.Logf("%d clients, %v: %d answers, all correct, %.0f/s; latency p50 %v p99 %v max %v; heap in use %d MiB before, peak %d MiB",
		loadClients, elapsed.Round(time.Millisecond), n, float64(n)/elapsed.Seconds(),
		all[n/2], all[n*99/100], all[n-1], before.HeapInuse>>20, peak>>20)
	if n < loadClients {
		t.Fatalf("only %d answers for %d clients", n, loadClients)
	}

	// No goroutine left behind: the server's and the clients' end within
	// a bounded wait once the connections are closed.
	var now int
	for range 500 {
		if now = runtime.NumGoroutine(); now <= goroutines {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if now > goroutines {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after shutdown, %d before:\n%s", now, goroutines, buf[:runtime.Stack(buf, true)])
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("heap in use after shutdown and GC: %d MiB (before %d MiB)", after.HeapInuse>>20, before.HeapInuse>>20)
	if after.HeapInuse > before.HeapInuse+loadHeapGrowth {
		t.Errorf("heap in use grew from %d to %d bytes, more than %d", before.HeapInuse, after.HeapInuse, loadHeapGrowth)
	}
	if peak > before.HeapInuse+loadHeapPeak {
		t.Errorf("heap in use peaked at %d bytes, %d before: more than %d above", peak, before.HeapInuse, loadHeapPeak)
	}
}
