package bench

import (
	"bufio"
	"bytes"
	"context"
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
// /metrics: export/prom over the live host (objects Processor, Memory,
// PhysicalDisk, Network Interface) against Debian's
// prometheus-node-exporter with only its cpu, meminfo, diskstats and
// netdev collectors. Both run as their own processes, started here, and
// are measured the same way: utime+stime of /proc/PID/stat over the
// scrapes, divided by their number. The client asks for OpenMetrics like
// Prometheus, without gzip (neither server compresses then).
func BenchmarkPromScrape(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		bin := filepath.Join(b.TempDir(), "promserve")
		if out, err := exec.Command("go", "build", "-o", bin, "./promserve").CombinedOutput(); err != nil {
			b.Fatalf("building promserve: %v\n%s", err, out)
		}
		addr := freeAddr(b)
		args := []string{"-listen", addr, "-objects", strings.Join(promObjects, ",")}
		if p := os.Getenv("PERFC_BENCH_PROM_PROFILE"); p != "" {
			args = append(args, "-cpuprofile", p) // the server's profile
		}
		scrapeBench(b, exec.Command(bin, args...), "http://"+addr+"/metrics")
	})
	b.Run("node_exporter", func(b *testing.B) {
		bin, err := exec.LookPath("prometheus-node-exporter")
		if err != nil {
			b.Skip("prometheus-node-exporter not installed (Debian package prometheus-node-exporter)")
		}
		addr := freeAddr(b)
		cmd := exec.Command(bin, "--web.listen-address="+addr, "--collector.disable-defaults",
			"--collector.cpu", "--collector.meminfo", "--collector.diskstats", "--collector.netdev")
		scrapeBench(b, cmd, "http://"+addr+"/metrics")
	})
}

func freeAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// scrapeBench starts the server cmd, waits for its first answer, then
// scrapes it b.N times and reports its CPU time per scrape (server-ns/op)
// and the series of an answer (series: sample lines; series-node: those
// named node_*, the collectors' own, for node_exporter).
func scrapeBench(b *testing.B, cmd *exec.Cmd, url string) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}
	get := func() ([]byte, error) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("%s: %s: %s", url, resp.Status, body)
		}
		return body, err
	}
	// Wait (bounded) for the server to answer.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var body []byte
	for {
		var err error
		if body, err = get(); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			b.Fatalf("server did not answer: %v\n%s", err, stderr.String())
		case <-tick.C:
		}
	}
	// A few warm-up scrapes (caches, first-sample work).
	for range 5 {
		if _, err := get(); err != nil {
			b.Fatal(err)
		}
	}
	series, nodeSeries := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		series++
		if strings.HasPrefix(l, "node_") && !strings.HasPrefix(l, "node_scrape_") {
			nodeSeries++
		}
	}
	start := procCPU(b, cmd.Process.Pid)
	n := 0
	for b.Loop() {
		if _, err := get(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	used := procCPU(b, cmd.Process.Pid) - start
	b.ReportMetric(float64(used)/float64(n), "server-ns/op")
	b.ReportMetric(float64(series), "series")
	if nodeSeries > 0 {
		b.ReportMetric(float64(nodeSeries), "series-node")
	}
	b.ReportMetric(float64(len(body)), "body-bytes")
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
