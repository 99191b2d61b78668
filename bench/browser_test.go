package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/chromedp"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// The browser benchmarks of issue 13: perfmon's page (internal/webui)
// in Debian's chromium, headless as in CI, driven by chromedp, over a
// real `perfc perfmon -noopen` built from this repository and started as
// its own process (so that its CPU is its own, read from /proc/PID/stat).
//
// BenchmarkBrowser100 keeps one page with 100 counters updating every
// second in the line view (or the histogram, or the report) for
// PERFC_BROWSER_MINUTES (default 10) and reads Chrome's Performance
// metrics (TaskDuration, ScriptDuration, LayoutDuration,
// RecalcStyleDuration, JSHeapUsedSize after HeapProfiler.collectGarbage)
// at ten checkpoints; PERFC_BROWSER_PROFILE=FILE writes a JavaScript CPU
// profile of the span from checkpoint 1 to 2 and logs its top functions.
//
// BenchmarkBrowserPages measures the server's CPU per one-second interval
// with 0, 1 and 10 such pages open, and the CPU of one collection of the
// same objects in this process. BenchmarkBrowserPoll is one page's poll
// as the server answers it, in this process (no browser).
//
// The browser benchmarks skip themselves without a browser; each
// iteration is one whole run, so run them with -benchtime=1x, and
// without the package's workload of sleeping processes
// (PERFC_BENCH_SLEEPERS=0 PERFC_BENCH_THREAD_CHILDREN=0). See
// results-browser.md.

// chromiumPath is the browser the benchmarks drive: $PERFC_CHROMIUM or
// Debian's /usr/bin/chromium; without one the benchmark is skipped.
func chromiumPath(b *testing.B) string {
	b.Helper()
	p := os.Getenv("PERFC_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		b.Skipf("no browser (%v): apt-get install chromium, or set PERFC_CHROMIUM", err)
	}
	return p
}

// envFloat returns the positive number in the environment variable name,
// or def.
func envFloat(name string, def float64) float64 {
	if f, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil && f > 0 && !math.IsInf(f, 0) {
		return f
	}
	return def
}

// perfmonServer is a `perfc perfmon -noopen` started by a benchmark.
type perfmonServer struct {
	pid    int
	base   string // http://127.0.0.1:PORT
	token  string
	client *http.Client
}

// startPerfmon builds perfc (in the main module), starts `perfc perfmon -noopen -nowarn`,
// stopped (SIGTERM) when the benchmark ends, and reads the address it
// prints.
func startPerfmon(b *testing.B) *perfmonServer {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "perfc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/perfc")
	build.Dir = ".." // in the main module, with its go.sum
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/perfc: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "perfmon", "-noopen", "-nowarn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting perfc perfmon: %v", err)
	}
	stopAtEnd(b, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	_, addr, ok := strings.Cut(strings.TrimSpace(line), "Performance Monitor: ")
	u, perr := url.Parse(addr)
	if err != nil || !ok || perr != nil || u.Query().Get("token") == "" {
		b.Fatalf("perfc perfmon printed %q (%v), not its address; stderr: %s", line, err, stderr.String())
	}
	return &perfmonServer{pid: cmd.Process.Pid, base: u.Scheme + "://" + u.Host, token: u.Query().Get("token"),
		client: &http.Client{Timeout: 30 * time.Second}}
}

// api asks the server's /v1 API (with the key as a Bearer token) and
// decodes the JSON answer into v.
func (s *perfmonServer) api(b *testing.B, method, path string, body, v any) {
	b.Helper()
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		b.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %s: %s", method, path, resp.Status, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		b.Fatalf("%s %s: %v", method, path, err)
	}
}

// pageObjects are the objects the benchmark's counters are taken from, in
// order: the system-wide objects perfmon users watch.
var pageObjects = []string{"Processor", "Memory", "System", "PhysicalDisk", "Network Interface",
	"LogicalDisk", "TCPv4", "UDPv4", "IPv4", "Objects", "Paging File", "Processor Information"}

// pickCounters chooses n concrete counter paths of the host (no wildcard:
// one line each) that all have values: every counter of pageObjects in
// turn, of the instance _Total, else the first instance other than lo;
// a path is kept when two answers of /v1/formatted a second apart give
// it a valid value. It returns the paths and the indexes of their
// objects.
func pickCounters(b *testing.B, s *perfmonServer, n int) (paths []string, objects []uint32) {
	b.Helper()
	var list struct {
		Objects []struct {
			Index         uint32
			Name          string
			MultiInstance bool
			Counters      []struct{ Name string }
		}
	}
	s.api(b, "GET", "/v1/objects?detail=wizard", nil, &list)
	index := map[string]uint32{}
	var cands []string
	for _, want := range pageObjects {
		for _, o := range list.Objects {
			if o.Name != want {
				continue
			}
			inst := ""
			if o.MultiInstance {
				var one struct{ Instances []struct{ Display string } }
				s.api(b, "GET", "/v1/objects/"+url.PathEscape(o.Name)+"?detail=wizard", nil, &one)
				for _, i := range one.Instances {
					if i.Display == "_Total" || (inst == "" && i.Display != "lo") {
						inst = i.Display
					}
				}
				if inst == "" && len(one.Instances) > 0 {
					inst = one.Instances[0].Display
				}
				if inst == "" {
					continue
				}
				inst = "(" + inst + ")"
			}
			for _, c := range o.Counters {
				cands = append(cands, `\`+o.Name+inst+`\`+c.Name)
				index[o.Name] = o.Index
			}
		}
	}
	type answer struct {
		Counters []struct {
			Path   string
			Status string
			Items  []struct {
				Value  *float64
				Status string
			}
		}
	}
	var ans answer
	req := map[string]any{"paths": cands}
	s.api(b, "POST", "/v1/formatted", req, &ans)
	time.Sleep(1100 * time.Millisecond) // rates need two collections, at least MinInterval apart
	s.api(b, "POST", "/v1/formatted", req, &ans)
	seen := map[uint32]bool{}
	for _, c := range ans.Counters {
		if len(paths) == n {
			break
		}
		if c.Status != "PDH_CSTATUS_VALID_DATA" || len(c.Items) != 1 || c.Items[0].Value == nil || c.Items[0].Status != "PDH_CSTATUS_VALID_DATA" {
			continue
		}
		paths = append(paths, c.Path)
		obj := strings.TrimPrefix(c.Path, `\`)
		obj = obj[:strings.IndexAny(obj, `(\`)]
		if !seen[index[obj]] {
			seen[index[obj]] = true
			objects = append(objects, index[obj])
		}
	}
	if len(paths) < n {
		b.Fatalf("only %d counters of this host have values (%d asked for): %q", len(paths), n, paths)
	}
	return paths, objects
}

// views are the page's views by perfmon's DisplayType.
var views = map[string]int{"line": 1, "histogram": 2, "report": 3}

// summary names the objects (and instances) of paths with how many
// counters each: "Memory ×14, Processor(_Total) ×8".
func summary(paths []string) string {
	var order []string
	n := map[string]int{}
	for _, p := range paths {
		o := strings.TrimPrefix(p, `\`)
		o = o[:strings.LastIndexByte(o, '\\')]
		if n[o] == 0 {
			order = append(order, o)
		}
		n[o]++
	}
	var parts []string
	for _, o := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", o, n[o]))
	}
	return strings.Join(parts, ", ")
}

// settingsLink is the page's link fragment (#settings=...) for paths in
// a view (views), one update a second, 100 points: perfmon's property
// names, as the page's Copy link writes them.
func settingsLink(paths []string, view string) string {
	type counter struct{ Path string }
	set := struct {
		DisplayType, UpdateInterval, DataPointCount int
		Counters                                    []counter
	}{DisplayType: views[view], UpdateInterval: 1, DataPointCount: 100}
	for _, p := range paths {
		set.Counters = append(set.Counters, counter{p})
	}
	j, _ := json.Marshal(set)
	return "#settings=" + base64.RawURLEncoding.EncodeToString(j)
}

// newBrowser starts a headless chromium (as CI runs it) with chromedp's
// default flags, which turn off the throttling of background timers and
// renderers; it ends with the benchmark.
func newBrowser(b *testing.B) context.Context {
	b.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(b)), chromedp.WindowSize(1280, 1000))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		b.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// openPage opens the page in a new tab of the browser with the settings
// link of paths in view (the printed address with its key, which the server
// turns into a cookie; the fragment stays across its redirect) and waits
// until every path has a line with a value.
func openPage(b *testing.B, browser context.Context, s *perfmonServer, paths []string, view string) context.Context {
	b.Helper()
	tab, cancel := chromedp.NewContext(browser)
	b.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.Navigate(s.base+"/?token="+s.token+settingsLink(paths, view))); err != nil {
		b.Fatalf("opening the page: %v", err)
	}
	n := strconv.Itoa(len(paths))
	cond := `window.perfmon && perfmon.requests().length === ` + n + ` && perfmon.series().length === ` + n +
		` && perfmon.series().every(s => s.values.some(v => v !== null))`
	if _, err := chromedp.Run(tab, chromedp.Poll[any](cond, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').textContent`))
		b.Fatalf("the page did not show %s counters with values: %v; its status line: %q", n, err, st)
	}
	return tab
}

// pageTimes returns the sample times the page holds (seconds since the
// epoch, the server's sample times).
func pageTimes(b *testing.B, tab context.Context) []float64 {
	b.Helper()
	t, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](`perfmon.times()`))
	if err != nil {
		b.Fatalf("reading the page's samples: %v", err)
	}
	return t
}

// sampleSet counts distinct sample times seen (the page keeps only its
// last DataPointCount samples: read it more often than that).
type sampleSet map[float64]bool

func (s sampleSet) add(ts []float64) {
	for _, t := range ts {
		s[t] = true
	}
}

// within counts the times in (from, to].
func (s sampleSet) within(from, to time.Time) int {
	lo, hi := float64(from.UnixNano())/1e9, float64(to.UnixNano())/1e9
	n := 0
	for t := range s {
		if t > lo && t <= hi {
			n++
		}
	}
	return n
}

// metrics are Chrome's Performance metrics of a page, by name.
type metrics map[string]float64

func readMetrics(b *testing.B, tab context.Context) metrics {
	b.Helper()
	r, err := chromedp.Call(tab, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		b.Fatalf("Performance.getMetrics: %v", err)
	}
	m := metrics{}
	for _, x := range r.Metrics {
		m[x.Name] = x.Value
	}
	return m
}

// heapAfterGC collects garbage in the page and returns its metrics before
// and after (the difference of TaskDuration is the collection's own
// main-thread time, which the benchmark takes out of the page's).
func heapAfterGC(b *testing.B, tab context.Context) (before, after metrics) {
	b.Helper()
	before = readMetrics(b, tab)
	if _, err := chromedp.Call(tab, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		b.Fatalf("HeapProfiler.collectGarbage: %v", err)
	}
	return before, readMetrics(b, tab)
}

// treeCPU is the CPU time (ns) of process pid and every descendant of it,
// from /proc (10 ms ticks): the whole browser.
func treeCPU(pid int) int64 {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	cpu := map[int]int64{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 13 {
			continue
		}
		pp, _ := strconv.Atoi(f[4-3])
		ut, _ := strconv.ParseInt(f[14-3], 10, 64)
		st, _ := strconv.ParseInt(f[15-3], 10, 64)
		parent[p], cpu[p] = pp, (ut+st)*int64(time.Second/100)
	}
	var sum int64
	for p, c := range cpu {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += c
				break
			}
		}
	}
	return sum
}

// renderers are the browser's renderer processes (SystemInfo.getProcessInfo).
func renderers(b *testing.B, browser context.Context) []int {
	b.Helper()
	r, err := chromedp.CallBrowser(browser, systeminfo.GetProcessInfo, cdp.Empty{})
	if err != nil {
		b.Fatalf("SystemInfo.getProcessInfo: %v", err)
	}
	var pids []int
	for _, p := range r.ProcessInfo {
		if p.Type == "renderer" {
			pids = append(pids, int(p.ID))
		}
	}
	if len(pids) == 0 {
		b.Fatal("SystemInfo.getProcessInfo lists no renderer")
	}
	return pids
}

// threadCPU is the CPU time (ns) of the thread tid of process pid, and
// of the whole process, from /proc (10 ms ticks); 0 when it is gone. A
// renderer's main thread, where the page's JavaScript, style, layout and
// paint run, is its process's first thread (tid = pid).
func threadCPU(pid, tid int) (thread, process int64) {
	read := func(path string) int64 {
		raw, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 13 {
			return 0
		}
		ut, _ := strconv.ParseInt(f[14-3], 10, 64)
		st, _ := strconv.ParseInt(f[15-3], 10, 64)
		return (ut + st) * int64(time.Second/100)
	}
	return read(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid)), read(fmt.Sprintf("/proc/%d/stat", pid))
}

// rendererCPU sums threadCPU over the renderers' main threads and
// processes.
func rendererCPU(pids []int) (main, all int64) {
	for _, p := range pids {
		m, a := threadCPU(p, p)
		main += m
		all += a
	}
	return main, all
}

// browserPID is the pid of the browser process of a chromedp context.
func browserPID(ctx context.Context) int {
	if c := chromedp.FromContext(ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		return c.Browser.Process().Pid
	}
	return 0
}

// BenchmarkBrowser100: one page, 100 counters (pickCounters) updating
// every second, in the line view (100 points, wrapping; the issue's
// benchmark), the histogram or the report, for PERFC_BROWSER_MINUTES
// minutes (default 10). At ten checkpoints (every minute of the default
// run) it reads the page's Performance metrics, collects garbage and
// reads JSHeapUsedSize. main-thread-% is the page's TaskDuration over the
// run (less the forced collections) as a percentage of one core (goal
// < 5); renderer-main-cpu-% is the CPU time of the renderers' main
// threads from /proc, less the same, which a busy machine does not
// inflate as it does TaskDuration (wall time); heap-growth-% is
// JSHeapUsedSize after collection from checkpoint 1 to checkpoint 10
// (goal <= 10); samples counts the distinct samples the page drew (about
// one a second if headless chromium does not throttle its timers).
// Record the line view: -bench='Browser100/line' -benchtime=1x.
func BenchmarkBrowser100(b *testing.B) {
	for _, view := range []string{"line", "histogram", "report"} {
		b.Run(view, func(b *testing.B) { browser100(b, view) })
	}
}

func browser100(b *testing.B, view string) {
	chromiumPath(b)
	minutes := envFloat("PERFC_BROWSER_MINUTES", 10)
	s := startPerfmon(b)
	paths, _ := pickCounters(b, s, 100)
	b.Logf("counters: %s", summary(paths))
	browser := newBrowser(b)
	tab := openPage(b, browser, s, paths, view)
	if _, err := chromedp.Call(tab, performance.Enable, performance.EnableParams{}); err != nil {
		b.Fatalf("Performance.enable: %v", err)
	}
	bpid := browserPID(browser)
	rpids := renderers(b, browser)
	const checkpoints = 10
	step := time.Duration(minutes * float64(time.Minute) / checkpoints)
	seen := sampleSet{}
	seen.add(pageTimes(b, tab))
	_, m0 := heapAfterGC(b, tab)
	profile := os.Getenv("PERFC_BROWSER_PROFILE")
	t0, srv0, br0 := time.Now(), procCPU(b, s.pid), treeCPU(bpid)
	rm0, ra0 := rendererCPU(rpids)
	var gcTask float64 // main-thread time of the forced collections
	type row struct {
		at                     time.Duration
		samples                int
		task, script, layout   float64 // seconds of main thread in the step, less forced GC
		style, heap, heapTotal float64
	}
	rows := []row{{heap: m0["JSHeapUsedSize"], heapTotal: m0["JSHeapTotalSize"]}}
	prev := m0
	for k := 1; k <= checkpoints; k++ {
		end := t0.Add(time.Duration(k) * step)
		for time.Until(end) > 0 {
			// Read the page's samples at least every 20 s (it keeps 100).
			time.Sleep(min(20*time.Second, time.Until(end)))
			seen.add(pageTimes(b, tab))
		}
		if k == 2 && profile != "" {
			stopProfile(b, tab, profile)
		}
		before, after := heapAfterGC(b, tab)
		gc := after["TaskDuration"] - before["TaskDuration"]
		gcTask += gc
		rows = append(rows, row{
			at:        time.Since(t0).Round(time.Second),
			samples:   seen.within(t0.Add(time.Duration(k-1)*step), end),
			task:      before["TaskDuration"] - prev["TaskDuration"],
			script:    before["ScriptDuration"] - prev["ScriptDuration"],
			layout:    before["LayoutDuration"] - prev["LayoutDuration"],
			style:     before["RecalcStyleDuration"] - prev["RecalcStyleDuration"],
			heap:      after["JSHeapUsedSize"],
			heapTotal: after["JSHeapTotalSize"],
		})
		prev = after
		if k == 1 && profile != "" {
			startProfile(b, tab)
		}
	}
	wall := time.Since(t0)
	srv1, br1 := procCPU(b, s.pid), treeCPU(bpid)
	rm1, ra1 := rendererCPU(rpids)
	last := prev
	samples := seen.within(t0, t0.Add(wall))
	if n := evalLen(b, tab); n != 100 {
		b.Errorf("the page shows %d counters at the end, want 100", n)
	}

	b.Logf("%s view, %d counters, %v, checkpoints every %v; headless chromium %s", view, len(paths), wall.Round(time.Second), step, chromiumPath(b))
	b.Logf("%8s %8s %10s %10s %10s %10s %12s %12s", "at", "samples", "task-ms", "script-ms", "layout-ms", "style-ms", "heap-used", "heap-total")
	for _, r := range rows {
		b.Logf("%8v %8d %10.1f %10.1f %10.1f %10.1f %12.0f %12.0f", r.at, r.samples, r.task*1e3, r.script*1e3, r.layout*1e3, r.style*1e3, r.heap, r.heapTotal)
	}
	b.Logf("forced garbage collections: %.1f ms of main thread (left out)", gcTask*1e3)
	pct := func(d float64) float64 { return 100 * d / wall.Seconds() }
	task := last["TaskDuration"] - m0["TaskDuration"] - gcTask
	b.ReportMetric(pct(task), "main-thread-%")
	b.ReportMetric(pct(last["ScriptDuration"]-m0["ScriptDuration"]), "script-%")
	b.ReportMetric(pct(last["LayoutDuration"]-m0["LayoutDuration"]+last["RecalcStyleDuration"]-m0["RecalcStyleDuration"]), "layout+style-%")
	b.ReportMetric(100*(rows[checkpoints].heap-rows[1].heap)/rows[1].heap, "heap-growth-%")
	// From checkpoint 2 on, the page's 100 points are full (at about one
	// sample a second): what grows after is not the window filling.
	b.ReportMetric(100*(rows[checkpoints].heap-rows[2].heap)/rows[2].heap, "heap-growth-2to10-%")
	b.ReportMetric(rows[1].heap, "heap1-B")
	b.ReportMetric(rows[checkpoints].heap, "heap10-B")
	b.ReportMetric(float64(samples), "samples")
	b.ReportMetric(float64(samples)/wall.Seconds(), "samples/s")
	b.ReportMetric(100*(float64(rm1-rm0)/1e9-gcTask)/wall.Seconds(), "renderer-main-cpu-%")
	b.ReportMetric(100*float64(ra1-ra0)/float64(wall.Nanoseconds()), "renderer-cpu-%")
	b.ReportMetric(100*float64(br1-br0)/float64(wall.Nanoseconds()), "browser-cpu-%")
	b.ReportMetric(100*float64(srv1-srv0)/float64(wall.Nanoseconds()), "server-cpu-%")
}

func evalLen(b *testing.B, tab context.Context) int {
	b.Helper()
	n, err := chromedp.Run(tab, chromedp.Evaluate[int](`perfmon.series().length`))
	if err != nil {
		b.Fatalf("reading the page's counters: %v", err)
	}
	return n
}

// BenchmarkBrowserPages: the server's CPU (perfc perfmon's process, from
// /proc/PID/stat) per one-second interval with 0, 1 and 10 pages open in
// one headless chromium, each page with the same 100 counters
// (pickCounters) in the line view, each phase PERFC_BROWSER_PHASE_SECONDS
// long (default 60) after a warm-up of 5 s; the collections the server
// made in a phase are the distinct sample times its answers carried (the
// union over the pages). collection-ms is one collection of the same
// objects in this process (host's LiveSource.Sample, back to back);
// per-client-ms is (10 pages - 1 page) / 9 per interval.
func BenchmarkBrowserPages(b *testing.B) {
	chromiumPath(b)
	phase := time.Duration(envFloat("PERFC_BROWSER_PHASE_SECONDS", 60) * float64(time.Second))
	s := startPerfmon(b)
	paths, objects := pickCounters(b, s, 100)
	b.Logf("counters: %s", summary(paths))
	browser := newBrowser(b)
	bpid := browserPID(browser)
	var tabs []context.Context
	type result struct {
		pages, collections   int
		serverMS, browserPct float64 // server ms per second; browser CPU % of one core
		minSamples           int     // the fewest samples a page drew
	}
	var results []result
	for _, pages := range []int{0, 1, 10} {
		for len(tabs) < pages {
			tabs = append(tabs, openPage(b, browser, s, paths, "line"))
		}
		time.Sleep(5 * time.Second) // warm-up: the pages' loading is not measured
		seen := sampleSet{}
		per := make([]sampleSet, len(tabs))
		for i := range per {
			per[i] = sampleSet{}
		}
		t0, c0, br0 := time.Now(), procCPU(b, s.pid), treeCPU(bpid)
		end := t0.Add(phase)
		for time.Until(end) > 0 {
			time.Sleep(min(20*time.Second, time.Until(end)))
			for i, tab := range tabs {
				ts := pageTimes(b, tab)
				seen.add(ts)
				per[i].add(ts)
			}
		}
		wall := time.Since(t0)
		c1, br1 := procCPU(b, s.pid), treeCPU(bpid)
		r := result{pages: pages, collections: seen.within(t0, t0.Add(wall)),
			serverMS:   float64(c1-c0) / 1e6 / wall.Seconds(),
			browserPct: 100 * float64(br1-br0) / float64(wall.Nanoseconds())}
		r.minSamples = r.collections
		for _, p := range per {
			r.minSamples = min(r.minSamples, p.within(t0, t0.Add(wall)))
		}
		results = append(results, r)
		b.Logf("%2d pages, %v: server %.2f ms CPU per second, %d collections (distinct samples), fewest samples of a page %d, browser %.1f %% of a core",
			pages, wall.Round(time.Second), r.serverMS, r.collections, r.minSamples, r.browserPct)
	}
	// One collection of the same objects here, back to back.
	coll, least := collectionCPU(b, objects)
	b.Logf("one collection of objects %v in this process: %.2f ms CPU (median of 5 runs of 50; least %.2f ms)", objects, coll/1e6, least/1e6)

	perClient := (results[2].serverMS - results[1].serverMS) / 9
	for _, r := range results {
		b.ReportMetric(r.serverMS, fmt.Sprintf("server-ms/s-%dpages", r.pages))
		b.ReportMetric(float64(r.collections), fmt.Sprintf("collections-%dpages", r.pages))
	}
	b.ReportMetric(float64(results[2].minSamples), "min-page-samples-10pages")
	b.ReportMetric(phase.Seconds(), "phase-s")
	b.ReportMetric(coll/1e6, "collection-ms")
	b.ReportMetric(least/1e6, "collection-least-ms")
	b.ReportMetric(perClient, "per-client-ms/s")
	b.ReportMetric(results[1].serverMS-results[0].serverMS-perClient, "1page-less-client-ms/s")
}

// collectionCPU is the CPU time (ns) of one collection of objects by the
// host code in this process (LiveSource.Sample: the engine's query and
// the parse of its block, as the server's shared sampler does): the
// median and the least of 5 runs of 50 back to back.
func collectionCPU(b *testing.B, objects []uint32) (median, least float64) {
	b.Helper()
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	src, ctx := h.Source(), context.Background()
	for range 5 {
		if _, err := src.Sample(ctx, objects); err != nil {
			b.Fatal(err)
		}
	}
	var runs []float64
	for range 5 {
		c0 := cpuNow()
		for range 50 {
			if _, err := src.Sample(ctx, objects); err != nil {
				b.Fatal(err)
			}
		}
		runs = append(runs, float64(cpuNow()-c0)/50)
	}
	slices.Sort(runs)
	return runs[len(runs)/2], runs[0]
}

// startProfile starts Chrome's JavaScript sampling profiler in the page
// (PERFC_BROWSER_PROFILE: a profile of the span from checkpoint 1 to 2,
// which the profiler slows down).
func startProfile(b *testing.B, tab context.Context) {
	b.Helper()
	if _, err := chromedp.Call(tab, profiler.Enable, cdp.Empty{}); err != nil {
		b.Fatalf("Profiler.enable: %v", err)
	}
	if _, err := chromedp.Call(tab, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
		b.Fatalf("Profiler.setSamplingInterval: %v", err)
	}
	if _, err := chromedp.Call(tab, profiler.Start, cdp.Empty{}); err != nil {
		b.Fatalf("Profiler.start: %v", err)
	}
}

// stopProfile stops the profiler, writes its profile to path (a
// .cpuprofile that Chrome's DevTools open) and logs the functions with
// the most time, self and with their callees.
func stopProfile(b *testing.B, tab context.Context, path string) {
	b.Helper()
	r, err := chromedp.Call(tab, profiler.Stop, cdp.Empty{})
	if err != nil || r.Profile == nil {
		b.Fatalf("Profiler.stop: %v", err)
	}
	p := r.Profile
	if j, err := json.Marshal(p); err == nil {
		os.WriteFile(path, j, 0o644)
	}
	self := map[int64]float64{} // node -> µs
	for i, id := range p.Samples {
		if i < len(p.TimeDeltas) && i+1 < len(p.TimeDeltas) {
			self[id] += float64(p.TimeDeltas[i+1])
		}
	}
	parent := map[int64]int64{}
	byID := map[int64]*profiler.ProfileNode{}
	for _, n := range p.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	name := func(n *profiler.ProfileNode) string {
		f := n.CallFrame
		fn := f.FunctionName
		if fn == "" {
			fn = "(anonymous)"
		}
		return fmt.Sprintf("%s %s:%d", fn, f.URL[strings.LastIndexByte(f.URL, '/')+1:], f.LineNumber+1)
	}
	selfBy, totalBy := map[string]float64{}, map[string]float64{}
	for id, us := range self {
		selfBy[name(byID[id])] += us
		seen := map[string]bool{}
		for q, ok := id, true; ok; q, ok = parent[q] {
			nm := name(byID[q])
			if !seen[nm] {
				seen[nm] = true
				totalBy[nm] += us
			}
		}
	}
	top := func(what string, m map[string]float64) {
		keys := slices.Collect(maps.Keys(m))
		slices.SortFunc(keys, func(a, c string) int { return cmp.Compare(m[c], m[a]) })
		for i, k := range keys {
			if i == 25 {
				break
			}
			b.Logf("profile %s %8.1f ms  %s", what, m[k]/1e3, k)
		}
	}
	b.Logf("profile of %.1f s written to %s", (p.EndTime-p.StartTime)/1e6, path)
	top("self ", selfBy)
	top("total", totalBy)
}

// BenchmarkBrowserPoll is one page's poll as the server answers it, in
// this process: POST /v1/formatted of the 100 counters of
// BenchmarkBrowserPages to perfc perfmon's API handler (remote.Handler
// over the live host) through HTTP on loopback. shared: the handler
// shares its collections (at most one a second), so almost every request
// is answered from the latest one: cpu-ns/op is the per-client cost of a
// poll, client and server together (run with -cpuprofile for the
// server's share). collecting: the handler's MinInterval is 1 ns, so
// every request makes its own collection: the difference is what a new
// collection adds to a poll.
func BenchmarkBrowserPoll(b *testing.B) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	serve := func(min time.Duration) *perfmonServer {
		api := remotetest.NewHandler(h, apiserver.Options{ComputerName: host.ComputerName(), MinInterval: min})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "bench")))
		}))
		b.Cleanup(srv.Close)
		return &perfmonServer{base: srv.URL, token: "unused", client: srv.Client()}
	}
	// The counters are picked through a handler of their own, whose
	// shared collections keep every object tried for a minute.
	paths, _ := pickCounters(b, serve(0), 100)
	for _, bb := range []struct {
		name string
		min  time.Duration
	}{{"shared", 0}, {"collecting", time.Nanosecond}} {
		b.Run(bb.name, func(b *testing.B) {
			s := serve(bb.min)
			req := map[string]any{"paths": paths}
			var ans struct{ Counters []json.RawMessage }
			s.api(b, "POST", "/v1/formatted", req, &ans)
			loop(b, func() {
				s.api(b, "POST", "/v1/formatted", req, &ans)
				if len(ans.Counters) != len(paths) {
					b.Fatalf("%d answers for %d paths", len(ans.Counters), len(paths))
				}
			})
		})
	}
}
