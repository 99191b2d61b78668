package bench

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkSaturatedScrape measures how long a scrape and an API request
// take while the host is saturated: two busy loops hold both cores and
// processes are created without pause (bench/churnchild, about five
// threads each, alive 200 ms, up to PERFC_BENCH_CHURN_PAR, default 300,
// at a time), on the workload's host. Each iteration scrapes /metrics of
// perfc serve out of the box (default profile), of perfc serve with the
// windows_exporter profile and of node_exporter's default collectors, and
// asks perfc serve's /v1/formatted for every processor's % Processor
// Time, timing each answer (wall clock, request to last byte); a round
// starts every 1.5 s. Run it with -benchtime=100x (about 3 minutes): the worst of the 100 (worst-ms) is the budget's
// figure, to compare with Prometheus' default scrape timeout of 10 s;
// the median and the processes created per second are reported beside.
func BenchmarkSaturatedScrape(b *testing.B) {
	dir := b.TempDir()
	perfc := buildPerfc(b, dir)
	child := dir + "/churnchild"
	if out, err := exec.Command("go", "build", "-o", child, "./churnchild").CombinedOutput(); err != nil {
		b.Fatalf("building churnchild: %v\n%s", err, out)
	}
	wxOpts := dir + "/wx.json"
	if err := writeFile(wxOpts, `{"profile":"windows_exporter"}`); err != nil {
		b.Fatal(err)
	}
	serve := func(extra ...string) *server {
		addr := freeAddr(b)
		return startServer(b, exec.Command(perfc, append([]string{"serve", "-listen", addr, "-anonymous", "-nowarn"}, extra...)...), "http://"+addr+"/metrics")
	}
	named := map[string]*server{"default": serve(), "wx": serve("-metrics", wxOpts)}
	if nodeBin, err := exec.LookPath("prometheus-node-exporter"); err == nil {
		addr := freeAddr(b)
		named["node"] = startServer(b, exec.Command(nodeBin, "--web.listen-address="+addr), "http://"+addr+"/metrics")
	}
	api := &server{url: strings.TrimSuffix(named["default"].url, "/metrics") + "/v1/formatted?" +
		url.Values{"path": {`\Processor(*)\% Processor Time`}}.Encode(), client: named["default"].client}
	named["api"] = api
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range named {
			if !yield(k) {
				return
			}
		}
	})

	// The load: two busy loops, and processes created without pause.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		spin := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			b.Fatal(err)
		}
		wg.Go(func() { spin.Wait() })
	}
	created := 0
	var cmu sync.Mutex
	wg.Go(func() {
		sem := make(chan struct{}, max(envInt("PERFC_BENCH_CHURN_PAR", 300), 1))
		for ctx.Err() == nil {
			sem <- struct{}{}
			c := exec.Command(child)
			c.Env = []string{"PERFC_CHURN_THREADS=1", "PERFC_CHURN_LIFE=200ms"}
			if c.Start() != nil {
				<-sem
				continue
			}
			cmu.Lock()
			created++
			cmu.Unlock()
			go func() { c.Wait(); <-sem }()
		}
		for range cap(sem) {
			sem <- struct{}{}
		}
	})
	defer func() { cancel(); wg.Wait() }()
	time.Sleep(5 * time.Second) // the load up to speed

	took := map[string][]time.Duration{}
	start := time.Now()
	// One round every 1.5 s: perfc serve collects at most once a second
	// (pdh.SamplerOptions.MaxAge), so that back-to-back rounds would time
	// that wait, not the answer (Prometheus scrapes every 15 s).
	pace := time.NewTicker(1500 * time.Millisecond)
	defer pace.Stop()
	for b.Loop() {
		<-pace.C
		for _, name := range names {
			t0 := time.Now()
			if _, err := named[name].get(); err != nil {
				b.Errorf("%s: %v", name, err)
			}
			took[name] = append(took[name], time.Since(t0))
		}
	}
	elapsed := time.Since(start)
	cmu.Lock()
	b.ReportMetric(float64(created)/(elapsed+5*time.Second).Seconds(), "created-procs/s")
	cmu.Unlock()
	for _, name := range names {
		d := slices.Sorted(slices.Values(took[name]))
		worst, median := d[len(d)-1], d[len(d)/2]
		b.ReportMetric(float64(worst)/1e6, name+"-worst-ms")
		b.ReportMetric(float64(median)/1e6, name+"-median-ms")
	}
}

// writeFile writes s to path, readable by its owner only.
func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }
