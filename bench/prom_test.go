package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// promObjects are the objects matching node_exporter's cpu, meminfo,
// diskstats and netdev collectors.
var promObjects = []string{"Processor", "Memory", "PhysicalDisk", "Network Interface"}

// BenchmarkPromScrape compares the server CPU time of one scrape of
// /metrics: perfc serve's (the product: the built binary, on loopback
// with -anonymous, its /metrics export options naming the objects
// Processor, Memory, PhysicalDisk, Network Interface) against Debian's
// prometheus-node-exporter with only its cpu, meminfo, diskstats and
// netdev collectors. bench/promserve (export/prom's Collector behind a
// bare net/http server) is scraped in the same loop, to show what perfc
// serve's own server (its gate, limits and mux) adds. Each runs as its
// own process, started here (perfc and promserve built here), and is
// measured the same way: utime+stime of /proc/PID/stat over the scrapes,
// divided by their number. Each iteration scrapes every server, one
// after the other, so that the load of a shared machine weighs on all
// alike; ratio is perfc serve's over node_exporter's, promserve-ratio
// promserve's. The client asks for OpenMetrics like Prometheus, with and
// without gzip.
func BenchmarkPromScrape(b *testing.B) {
	nodeBin, err := exec.LookPath("prometheus-node-exporter")
	if err != nil {
		b.Skip("prometheus-node-exporter not installed (Debian package prometheus-node-exporter)")
	}
	dir := b.TempDir()
	promserve := filepath.Join(dir, "promserve")
	if out, err := exec.Command("go", "build", "-o", promserve, "./promserve").CombinedOutput(); err != nil {
		b.Fatalf("building promserve: %v\n%s", err, out)
	}
	perfc := buildPerfc(b, dir)
	opts := filepath.Join(dir, "metrics.json")
	js, _ := json.Marshal(map[string][]string{"objects": promObjects})
	if err := os.WriteFile(opts, js, 0o600); err != nil {
		b.Fatal(err)
	}
	oursAddr, psAddr, nodeAddr := freeAddr(b), freeAddr(b), freeAddr(b)
	args := []string{"-listen", psAddr, "-objects", strings.Join(promObjects, ",")}
	if p := os.Getenv("PERFC_BENCH_PROM_PROFILE"); p != "" {
		args = append(args, "-cpuprofile", p) // promserve's profile
	}
	o := startServer(b, exec.Command(perfc, "serve", "-listen", oursAddr, "-anonymous", "-nowarn", "-metrics", opts), "http://"+oursAddr+"/metrics")
	psCmd := exec.Command(promserve, args...)
	if e := os.Getenv("PERFC_BENCH_PROMSERVE_ENV"); e != "" {
		// Settings of promserve's alone (GOMAXPROCS=1, GOGC=400), to see
		// what the Go runtime's share of a scrape is.
		psCmd.Env = append(os.Environ(), strings.Fields(e)...)
	}
	ps := startServer(b, psCmd, "http://"+psAddr+"/metrics")
	n := startServer(b, exec.Command(nodeBin, "--web.listen-address="+nodeAddr, "--collector.disable-defaults",
		"--collector.cpu", "--collector.meminfo", "--collector.diskstats", "--collector.netdev"), "http://"+nodeAddr+"/metrics")
	// identity: no compression asked; gzip: Accept-Encoding: gzip, as
	// Prometheus asks (node_exporter compresses then; export/prom does
	// not compress, whatever is asked).
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			o.encoding, ps.encoding, n.encoding = enc, enc, enc
			o0, p0, n0 := procCPU(b, o.pid), procCPU(b, ps.pid), procCPU(b, n.pid)
			iters := 0
			for b.Loop() {
				o.scrape(b)
				ps.scrape(b)
				n.scrape(b)
				iters++
			}
			oc := float64(procCPU(b, o.pid)-o0) / float64(iters)
			pc := float64(procCPU(b, ps.pid)-p0) / float64(iters)
			nc := float64(procCPU(b, n.pid)-n0) / float64(iters)
			b.ReportMetric(oc, "ours-ns/op")
			b.ReportMetric(pc, "promserve-ns/op")
			b.ReportMetric(nc, "node-ns/op")
			b.ReportMetric(oc/nc, "ratio")
			b.ReportMetric(pc/nc, "promserve-ratio")
			b.ReportMetric(float64(o.series), "ours-series")
			b.ReportMetric(float64(n.series), "node-series")
			b.ReportMetric(float64(n.nodeSeries), "node-collector-series")
		})
	}
}

// BenchmarkPromScrapeProfiles compares the server CPU time of one scrape
// of /metrics as each is run out of the box: perfc serve's default
// profile (no export options: every object but Process, Process V2 and
// Thread) and its windows_exporter profile against Debian's
// prometheus-node-exporter with its default collectors, on the
// workload's host (500 extra processes, 5,000 extra threads). Measured
// as BenchmarkPromScrape measures (utime+stime of each server process
// over the scrapes, every server scraped in each iteration); ratio and
// wx-ratio are perfc's over node_exporter's. PERFC_BENCH_BASE names
// another perfc binary (an earlier build) scraped in the same loop with
// the default profile (base-ns/op). After the scrapes, each perfc
// server's private memory (Pss_Anon of /proc/PID/smaps_rollup) is
// reported.
func BenchmarkPromScrapeProfiles(b *testing.B) {
	nodeBin, err := exec.LookPath("prometheus-node-exporter")
	if err != nil {
		b.Skip("prometheus-node-exporter not installed (Debian package prometheus-node-exporter)")
	}
	dir := b.TempDir()
	perfc := buildPerfc(b, dir)
	wxOpts := filepath.Join(dir, "wx.json")
	if err := os.WriteFile(wxOpts, []byte(`{"profile":"windows_exporter"}`), 0o600); err != nil {
		b.Fatal(err)
	}
	serve := func(bin string, extra ...string) *server {
		addr := freeAddr(b)
		args := append([]string{"serve", "-listen", addr, "-anonymous", "-nowarn"}, extra...)
		return startServer(b, exec.Command(bin, args...), "http://"+addr+"/metrics")
	}
	def := serve(perfc)
	wx := serve(perfc, "-metrics", wxOpts)
	var base *server
	if bin := os.Getenv("PERFC_BENCH_BASE"); bin != "" {
		base = serve(bin)
	}
	nodeAddr := freeAddr(b)
	n := startServer(b, exec.Command(nodeBin, "--web.listen-address="+nodeAddr), "http://"+nodeAddr+"/metrics")
	servers := []*server{def, wx, n}
	if base != nil {
		servers = append(servers, base)
	}
	for _, s := range servers {
		s.encoding = "gzip" // as Prometheus asks
	}
	start := make([]int64, len(servers))
	for i, s := range servers {
		start[i] = procCPU(b, s.pid)
	}
	iters := 0
	for b.Loop() {
		for _, s := range servers {
			s.scrape(b)
		}
		iters++
	}
	cpu := make([]float64, len(servers))
	for i, s := range servers {
		cpu[i] = float64(procCPU(b, s.pid)-start[i]) / float64(iters)
	}
	b.ReportMetric(cpu[0], "default-ns/op")
	b.ReportMetric(cpu[1], "wx-ns/op")
	b.ReportMetric(cpu[2], "node-ns/op")
	b.ReportMetric(cpu[0]/cpu[2], "ratio")
	b.ReportMetric(cpu[1]/cpu[2], "wx-ratio")
	b.ReportMetric(float64(def.series), "default-series")
	b.ReportMetric(float64(wx.series), "wx-series")
	b.ReportMetric(float64(n.series), "node-series")
	b.ReportMetric(pssAnon(b, def.pid), "default-PssAnon-kB")
	b.ReportMetric(pssAnon(b, wx.pid), "wx-PssAnon-kB")
	if base != nil {
		b.ReportMetric(cpu[3], "base-ns/op")
		b.ReportMetric(pssAnon(b, base.pid), "base-PssAnon-kB")
	}
}

// pssAnon is the private anonymous memory of process pid in kB: the
// Pss_Anon line of /proc/PID/smaps_rollup (what the process alone makes
// the host hold, not the binary's pages that every process shares).
func pssAnon(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		b.Fatal(err)
	}
	for l := range strings.Lines(string(raw)) {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Pss_Anon:" {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				b.Fatal(err)
			}
			return v
		}
	}
	b.Fatalf("/proc/%d/smaps_rollup has no Pss_Anon", pid)
	return 0
}

// server is a /metrics server started by a benchmark.
type server struct {
	pid                int
	url                string
	client             *http.Client
	encoding           string // Accept-Encoding sent ("identity": none)
	series, nodeSeries int
}

// scrape gets /metrics once, as Prometheus asks for it, with gzip or not
// (s.encoding).
func (s *server) scrape(b *testing.B) []byte {
	body, err := s.get()
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func (s *server) get() ([]byte, error) {
	req, _ := http.NewRequest("GET", s.url, nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
	if s.encoding == "gzip" {
		req.Header.Set("Accept-Encoding", "gzip") // read as sent, not decompressed
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("%s: %s: %s", s.url, resp.Status, body)
	}
	return body, err
}

// stopAtEnd stops the started cmd when the benchmark ends: SIGTERM, and
// SIGKILL when it has not exited 10 s later.
func stopAtEnd(b *testing.B, cmd *exec.Cmd) {
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// startServer starts cmd, stopped when the benchmark ends, waits (bounded)
// for its first answer, scrapes it a few times to warm it up and counts
// the series of an answer (sample lines; nodeSeries: those named node_*,
// the collectors' own, less node_scrape_*).
func startServer(b *testing.B, cmd *exec.Cmd, url string) *server {
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stopAtEnd(b, cmd)
	s := &server{pid: cmd.Process.Pid, url: url,
		client: &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := s.get()
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%s did not answer: %v\n%s", url, err, stderr.String())
		case <-tick.C:
		}
	}
	var body []byte
	for range 5 {
		body = s.scrape(b)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		s.series++
		if strings.HasPrefix(l, "node_") && !strings.HasPrefix(l, "node_scrape_") {
			s.nodeSeries++
		}
	}
	return s
}

func freeAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// procCPU is the CPU time (user + system) process pid has used, in ns,
// from /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s).
func procCPU(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	// The command name (field 2) is in parentheses and may hold spaces.
	rest := s[strings.LastIndexByte(s, ')')+2:]
	f := strings.Fields(rest)
	// rest starts at field 3 (state): utime is field 14, stime 15.
	ut, err1 := strconv.ParseInt(f[14-3], 10, 64)
	st, err2 := strconv.ParseInt(f[15-3], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	const tick = int64(time.Second / 100) // USER_HZ
	return (ut + st) * tick
}
