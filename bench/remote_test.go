package bench

import (
	"bufio"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/remote"
)

// The remote benchmarks of issue 12: a remote fetch of the system objects
// (client + server CPU) against Performance Co-Pilot's pmFetch of 171
// system values (client + pmcd and its agents), and a remote Global
// (server CPU) against a local Global collection.
//
// The server runs in this process (the handler of perfc serve over the
// real host, HTTP/2 over TLS with a bearer token, as perfc serve with a
// web configuration); the client runs in a child process (this test
// binary again), so each side's CPU is its process's own: the child's
// rusage over its loop, this process's over the same span.

// remoteClientEnv starts the test binary as the benchmark's client.
const remoteClientEnv = "PERFC_BENCH_REMOTE_CLIENT"

// systemObjects are the objects of the system values: Processor (238),
// Memory (4), PhysicalDisk (234), Network Interface (510), System (2).
const systemObjects = "238 4 234 510 2"

const benchToken = "bench-token-0123456789"

// runRemoteClient is the child's body: it opens the client to the URL it
// is given, warms up, says "start", fetches N times, and says "done" with
// its CPU over the loop and the bytes of the last answer.
func runRemoteClient() int {
	cfg := &remote.HostConfig{Name: "bench", URL: os.Getenv("PERFC_BENCH_URL"), BearerToken: benchToken,
		TLS: remote.TLSConfig{CAFile: os.Getenv("PERFC_BENCH_CA")}, Timeout: remote.Duration(time.Minute),
		BodySizeLimit: 1 << 30}
	n, _ := strconv.Atoi(os.Getenv("PERFC_BENCH_N"))
	var objs []uint32
	for _, f := range strings.Fields(os.Getenv("PERFC_BENCH_OBJECTS")) {
		x, _ := strconv.ParseUint(f, 10, 32)
		objs = append(objs, uint32(x))
	}
	c, err := remote.Open(cfg)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	ctx := context.Background()
	size := 0
	fetch := func() bool {
		s, err := c.Sample(ctx, objs)
		if err != nil {
			fmt.Println("error", err)
			return false
		}
		size = len(s.Blocks[0].Bytes())
		return true
	}
	for range 5 {
		if !fetch() {
			return 1
		}
	}
	fmt.Println("start")
	t0 := cpuNow()
	for range n {
		if !fetch() {
			return 1
		}
	}
	fmt.Println("done", cpuNow()-t0, size)
	return 0
}

// benchServer serves the real host with perfc serve's handler.
type benchServer struct {
	h   *host.Host
	srv *httptest.Server
	ca  string
}

func startBenchServer(b *testing.B) *benchServer {
	b.Helper()
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	hd := remote.NewHandler(h, remote.HandlerOptions{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+benchToken {
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "bench"))
		}
		hd.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	ca := filepath.Join(b.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close(); h.Close() })
	return &benchServer{h: h, srv: srv, ca: ca}
}

// fetchRemote runs the client child for n fetches of objects and returns
// its CPU, this process's (the server's) CPU over the same loop, and the
// size of an answer.
func (s *benchServer) fetchRemote(b *testing.B, objects string, n int) (client, server int64, size int) {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), remoteClientEnv+"=1", "PERFC_BENCH_URL="+s.srv.URL, "PERFC_BENCH_CA="+s.ca,
		"PERFC_BENCH_OBJECTS="+objects, "PERFC_BENCH_N="+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	rd := bufio.NewReader(out)
	var s0 int64
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			b.Fatalf("client: %v (last line %q)", err, line)
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "start":
			s0 = cpuNow()
		case len(f) == 3 && f[0] == "done":
			server = cpuNow() - s0
			client, _ = strconv.ParseInt(f[1], 10, 64)
			size, _ = strconv.Atoi(f[2])
			return client, server, size
		default:
			b.Fatalf("client: %s", line)
		}
	}
}

// countValues counts the values of a block: non-base counters times
// instances (one for a single-instance object).
func countValues(blk perfdata.Block) int {
	n := 0
	for it := blk.Objects(); it.Next(); {
		o := it.Object()
		ctrs := 0
		for i := range o.NumCounters() {
			if !o.Counter(i).Type.IsBase() {
				ctrs++
			}
		}
		n += ctrs * max(1, o.InstanceCount())
	}
	return n
}

func indexes(s string) []uint32 {
	var out []uint32
	for _, f := range strings.Fields(s) {
		x, _ := strconv.ParseUint(f, 10, 32)
		out = append(out, uint32(x))
	}
	return out
}

// BenchmarkRemoteFetch: one remote fetch of the system objects (system)
// or of Global, the client in a child process: client-cpu-ns/op is its
// CPU (request, TLS, HTTP/2, parsing the block into a sample),
// server-cpu-ns/op this process's (TLS, HTTP/2, the handler, the
// engine's collection), total-cpu-ns/op their sum.
func BenchmarkRemoteFetch(b *testing.B) {
	for _, tc := range []struct{ name, objects string }{{"system", systemObjects}, {"global", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			s := startBenchServer(b)
			smp, err := s.h.Source().Sample(context.Background(), indexes(tc.objects))
			if err != nil {
				b.Fatal(err)
			}
			values := countValues(smp.Blocks[0])
			b.ResetTimer()
			client, server, size := s.fetchRemote(b, tc.objects, b.N)
			b.StopTimer()
			b.ReportMetric(float64(client)/float64(b.N), "client-cpu-ns/op")
			b.ReportMetric(float64(server)/float64(b.N), "server-cpu-ns/op")
			b.ReportMetric(float64(client+server)/float64(b.N), "total-cpu-ns/op")
			b.ReportMetric(float64(values), "values/op")
			b.ReportMetric(float64(size), "block-bytes")
		})
	}
}

// BenchmarkLocalFetch: the same collections locally (LiveSource.Sample:
// the engine's query and parsing the block), the floor the server's CPU
// is compared with.
func BenchmarkLocalFetch(b *testing.B) {
	for _, tc := range []struct{ name, objects string }{{"system", systemObjects}, {"global", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			h, err := host.New(host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			src := h.Source()
			objs := indexes(tc.objects)
			ctx := context.Background()
			for range 5 {
				if _, err := src.Sample(ctx, objs); err != nil {
					b.Fatal(err)
				}
			}
			loop(b, func() {
				if _, err := src.Sample(ctx, objs); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkPCPFetch: Performance Co-Pilot's pmFetch of 171 system values
// (bench/pcp/fetch.py: Processor, Memory, PhysicalDisk, Network Interface
// and System's equivalents) through pmcd: client-cpu-ns/op is the
// client's CPU over its loop (python's binding of libpcp's pmFetch),
// server-cpu-ns/op pmcd's and its agents' (from /proc, 10 ms ticks: run
// thousands of fetches). It needs pcp and pmcd running
// (/etc/init.d/pmcd start).
func BenchmarkPCPFetch(b *testing.B) {
	if out, err := exec.Command("pminfo", "-f", "pmcd.version").CombinedOutput(); err != nil {
		b.Skipf("pmcd is not answering (/etc/init.d/pmcd start): %v: %s", err, strings.TrimSpace(string(out)))
	}
	cmd := exec.Command("/usr/bin/python3", filepath.Join("pcp", "fetch.py"), strconv.Itoa(b.N))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	rd := bufio.NewReader(out)
	var p0 int64
	values := 0
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			b.Fatalf("fetch.py: %v (last line %q)", err, line)
		}
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "values":
			values, _ = strconv.Atoi(f[1])
		case len(f) == 1 && f[0] == "start":
			b.ResetTimer()
			p0 = pmcdCPU()
		case len(f) == 2 && f[0] == "done":
			server := pmcdCPU() - p0
			b.StopTimer()
			client, _ := strconv.ParseInt(f[1], 10, 64)
			b.ReportMetric(float64(client)/float64(b.N), "client-cpu-ns/op")
			b.ReportMetric(float64(server)/float64(b.N), "server-cpu-ns/op")
			b.ReportMetric(float64(client+server)/float64(b.N), "total-cpu-ns/op")
			b.ReportMetric(float64(values), "values/op")
			return
		default:
			b.Fatalf("fetch.py: %s", line)
		}
	}
}
