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
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// The remote benchmarks of issue 12: a remote fetch of the system objects
// (client + server CPU) against Performance Co-Pilot's pmFetch of the
// same system values (client + pmcd and its agents), and a remote Global
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
	token := benchToken
	if t := os.Getenv("PERFC_BENCH_TOKEN"); t != "" {
		token = t
	}
	cfg := &remote.HostConfig{Name: "bench", URL: os.Getenv("PERFC_BENCH_URL"), BearerToken: token,
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
	if p := os.Getenv("PERFC_BENCH_CLIENT_CPUPROFILE"); p != "" {
		// The client's own profile (the parent's -test.cpuprofile is the
		// server's).
		f, err := os.Create(p)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	fmt.Println("start")
	if n == 0 {
		// Step mode: one fetch for each line read, its CPU and size
		// answered, until stdin ends.
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			t0 := cpuNow()
			if !fetch() {
				return 1
			}
			fmt.Println("ok", cpuNow()-t0, size)
		}
		return 0
	}
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
	hd := remotetest.NewHandler(h, apiserver.Options{})
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
	return runFetchClient(b, cpuNow, "PERFC_BENCH_URL="+s.srv.URL, "PERFC_BENCH_CA="+s.ca,
		"PERFC_BENCH_OBJECTS="+objects, "PERFC_BENCH_N="+strconv.Itoa(n))
}

// reportFetch reports a fetch loop of b.N fetches: the client's and the
// server's CPU, and the size of an answer.
func reportFetch(b *testing.B, client, server int64, size int) {
	b.ReportMetric(float64(client)/float64(b.N), "client-cpu-ns/op")
	b.ReportMetric(float64(server)/float64(b.N), "server-cpu-ns/op")
	b.ReportMetric(float64(client+server)/float64(b.N), "total-cpu-ns/op")
	b.ReportMetric(float64(size), "block-bytes")
}

// runFetchClient runs the client child with env added to this process's
// environment and returns its CPU, the server's CPU (serverCPU's
// difference) over the child's loop, and the size of an answer.
func runFetchClient(b *testing.B, serverCPU func() int64, env ...string) (client, server int64, size int) {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), remoteClientEnv+"=1"), env...)
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
			s0 = serverCPU()
		case len(f) == 3 && f[0] == "done":
			server = serverCPU() - s0
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

// BenchmarkRemoteFetch: remote fetches of the system objects (system)
// and of Global, each beside a local collection of the same objects by
// the same host, one after the other, so that both see the same
// processes (the host's are not ours alone: other work comes and goes).
// The client runs in a child process, one fetch per request of this
// process: client-cpu-ns/op is its CPU (request, TLS, HTTP/2, parsing
// the block into a sample); server-cpu-ns/op is this process's while the
// fetch is answered (TLS, HTTP/2, the handler, the engine's collection);
// local-cpu-ns/op is LiveSource.Sample of the same objects (the engine's
// collection and parsing the block); server/local is the ratio of the
// two sums.
func BenchmarkRemoteFetch(b *testing.B) {
	for _, tc := range []struct{ name, objects string }{{"system", systemObjects}, {"global", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			s := startBenchServer(b)
			objs := indexes(tc.objects)
			ctx := context.Background()
			src := s.h.Source()
			smp, err := src.Sample(ctx, objs)
			if err != nil {
				b.Fatal(err)
			}
			values := countValues(smp.Blocks[0])
			self, err := os.Executable()
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), remoteClientEnv+"=1", "PERFC_BENCH_URL="+s.srv.URL, "PERFC_BENCH_CA="+s.ca,
				"PERFC_BENCH_OBJECTS="+tc.objects, "PERFC_BENCH_N=0")
			in, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer cmd.Wait()
			defer in.Close()
			rd := bufio.NewReader(out)
			line := func() []string {
				l, err := rd.ReadString('\n')
				if err != nil {
					b.Fatalf("client: %v (%q)", err, l)
				}
				return strings.Fields(l)
			}
			if f := line(); len(f) != 1 || f[0] != "start" {
				b.Fatalf("client: %q", f)
			}
			var local, server, client int64
			size := 0
			for b.Loop() {
				t := cpuNow()
				if _, err := src.Sample(ctx, objs); err != nil {
					b.Fatal(err)
				}
				local += cpuNow() - t
				t = cpuNow()
				if _, err := io.WriteString(in, "go\n"); err != nil {
					b.Fatal(err)
				}
				f := line()
				server += cpuNow() - t
				if len(f) != 3 || f[0] != "ok" {
					b.Fatalf("client: %q", f)
				}
				c, _ := strconv.ParseInt(f[1], 10, 64)
				client += c
				size, _ = strconv.Atoi(f[2])
			}
			n := float64(b.N)
			b.ReportMetric(float64(client)/n, "client-cpu-ns/op")
			b.ReportMetric(float64(server)/n, "server-cpu-ns/op")
			b.ReportMetric(float64(client+server)/n, "total-cpu-ns/op")
			b.ReportMetric(float64(local)/n, "local-cpu-ns/op")
			b.ReportMetric(float64(server)/float64(local), "server/local")
			b.ReportMetric(float64(values), "values/op")
			b.ReportMetric(float64(size), "block-bytes")
		})
	}
}

// BenchmarkRemoteFetchLoop: remote fetches of the system objects back
// to back, as BenchmarkPCPFetch fetches (the client's loop in the child,
// the server's CPU over the same span): the figures to compare with
// PCP's pmFetch.
func BenchmarkRemoteFetchLoop(b *testing.B) {
	s := startBenchServer(b)
	client, server, size := s.fetchRemote(b, systemObjects, b.N)
	reportFetch(b, client, server, size)
}

// BenchmarkLocalFetchLoop: the same objects collected locally, back to
// back (LiveSource.Sample): the engine's share of a remote fetch.
func BenchmarkLocalFetchLoop(b *testing.B) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	src, objs, ctx := h.Source(), indexes(systemObjects), context.Background()
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
}

// BenchmarkPCPFetch: Performance Co-Pilot's pmFetch of the system values
// (bench/pcp/fetch.py) through pmcd: client-cpu-ns/op is the client's CPU
// over its loop (python's binding of libpcp's pmFetch), server-cpu-ns/op
// pmcd's and its agents' (from /proc, 10 ms ticks: run thousands of
// fetches). It needs pcp and pmcd running (/etc/init.d/pmcd start).
//
// same-sources fetches the equivalents of the counters of perfc's five
// objects (Processor, Memory, PhysicalDisk, Network Interface, System),
// which pmdalinux reads from the same files perfc does: the like for like
// of BenchmarkRemoteFetchServe. first-list is the list the first
// measurements used, without the per-CPU interrupt and soft-interrupt
// counts, the paging counts of /proc/vmstat and the links' speeds.
func BenchmarkPCPFetch(b *testing.B) {
	if out, err := exec.Command("pminfo", "-f", "pmcd.version").CombinedOutput(); err != nil {
		b.Skipf("pmcd is not answering (/etc/init.d/pmcd start): %v: %s", err, strings.TrimSpace(string(out)))
	}
	b.Run("same-sources", func(b *testing.B) { pcpFetch(b) })
	b.Run("first-list", func(b *testing.B) { pcpFetch(b, "first") })
}

// pcpFetch runs bench/pcp/fetch.py for b.N fetches (args: fetch.py's
// after N) and reports its CPU and pmcd's.
func pcpFetch(b *testing.B, args ...string) {
	cmd := exec.Command("/usr/bin/python3", append([]string{filepath.Join("pcp", "fetch.py"), strconv.Itoa(b.N)}, args...)...)
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

// BenchmarkRemoteFetchServe: remote fetches of the system objects back to
// back from perfc serve itself (the built binary, a process of its own)
// in its default configuration: plain HTTP/1.1 on 127.0.0.1 with the
// loopback token it writes to its token file, the like-for-like of
// pmcd's local connection. The client (remote.Client, in a child
// process) fetches b.N times; server-cpu-ns/op is perfc serve's CPU from
// /proc/PID/stat over the client's loop (10 ms ticks: run thousands).
// BenchmarkRemoteFetch/system is the same fetch over TLS and HTTP/2.
func BenchmarkRemoteFetchServe(b *testing.B) {
	dir := b.TempDir()
	perfc := filepath.Join(dir, "perfc")
	build := exec.Command("go", "build", "-o", perfc, "./cmd/perfc")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building perfc: %v\n%s", err, out)
	}
	addr, tokenFile := freeAddr(b), filepath.Join(dir, "serve.token")
	srv := exec.Command(perfc, "serve", "-listen", addr, "-tokenfile", tokenFile, "-nowarn", "-nometrics")
	srv.Stdout, srv.Stderr = io.Discard, os.Stderr
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { srv.Process.Signal(os.Interrupt); srv.Wait() }()
	var token []byte
	for range 200 {
		if t, err := os.ReadFile(tokenFile); err == nil && len(strings.TrimSpace(string(t))) > 0 {
			token = t
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if token == nil {
		b.Fatalf("perfc serve wrote no token file %s", tokenFile)
	}
	pid := srv.Process.Pid
	client, server, size := runFetchClient(b, func() int64 { return procCPU(b, pid) }, "PERFC_BENCH_URL=http://"+addr,
		"PERFC_BENCH_TOKEN="+strings.TrimSpace(string(token)), "PERFC_BENCH_OBJECTS="+systemObjects, "PERFC_BENCH_N="+strconv.Itoa(b.N))
	reportFetch(b, client, server, size)
}
