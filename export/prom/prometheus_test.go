package prom

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/proctest"
	"github.com/perfcounters/perfcounters/pdh"
)

// freePort returns a local TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// promAPI is an answer of Prometheus' HTTP API.
type promAPI struct {
	Status string          `json:"status"`
	Error  string          `json:"error"`
	Data   json.RawMessage `json:"data"`
}

func promGet(ctx context.Context, base, path string, q url.Values) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var a promAPI
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if a.Status != "success" {
		return nil, fmt.Errorf("%s: %s", path, a.Error)
	}
	return a.Data, nil
}

// vectorResult and matrixResult are the result types of /api/v1/query.
type vectorResult struct {
	Result []struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	} `json:"result"`
}

type matrixResult struct {
	Result []struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	} `json:"result"`
}

// number reads a value (a string) or a time stamp (a number) of an answer.
func number(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	s, _ := v.(string)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// TestPrometheusScrapes starts a real Prometheus (Debian's package) that
// scrapes the export of the live local host every second, and asks it
// for a rate over the user time of processor 0: the scrape must be healthy
// (Prometheus parsed the OpenMetrics answer), the rate plausible (user
// seconds per second of one processor lie in [0, 1]) and consistent with
// the raw values Prometheus stored for the same window.
func TestPrometheusScrapes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	h := newHost(t, host.Options{})
	// Process too (real process names, duplicates) and formatted values:
	// the whole answer must pass Prometheus' OpenMetrics parser.
	col, err := NewCollector(h.Source(), Options{Objects: []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "Process"}, Formatted: true, Total: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(col)
	defer srv.Close()
	base, ctx := runPrometheus(t, map[string]string{"perfc": srv.Listener.Addr().String()}, 90*time.Second)

	// Poll the API, within the deadline of ctx, until the window of the
	// rate is covered by scrapes (five at 1 s in 5 s): before that
	// Prometheus extrapolates from a partly covered window.
	const series = `perfc_processor_time_seconds_total{cpu="0",mode="user"}`
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var vs [][2]any
	var rate float64
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("no rate from Prometheus before the deadline")
		case <-tick.C:
		}
		at := strconv.FormatFloat(float64(time.Now().UnixMilli())/1000, 'f', 3, 64)
		data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {series + "[5s]"}, "time": {at}})
		if err != nil {
			continue // not up yet
		}
		var m matrixResult
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Result) != 1 || len(m.Result[0].Values) < 5 {
			continue
		}
		vs = m.Result[0].Values
		data, err = promGet(ctx, base, "/api/v1/query", url.Values{"query": {"rate(" + series + "[5s])"}, "time": {at}})
		if err != nil {
			t.Fatal(err)
		}
		var v vectorResult
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Result) != 1 {
			t.Fatalf("rate: %s", data)
		}
		rate = number(v.Result[0].Value[1])
		break
	}
	if !(rate >= 0 && rate <= 1.05) {
		t.Errorf("rate of user seconds of processor 0 = %v, want within [0, 1]", rate)
	}
	// The raw values of the same window: their increase over their time
	// span is the rate without Prometheus' extrapolation.
	first, last := vs[0], vs[len(vs)-1]
	own := (number(last[1]) - number(first[1])) / (number(last[0]) - number(first[0]))
	if math.IsNaN(own) || math.Abs(own-rate) > 0.05+0.25*math.Abs(own) {
		t.Errorf("Prometheus' rate %v, the raw values' %v (%d values)", rate, own, len(vs))
	}
	t.Logf("rate %v, from the raw values %v over %d scrapes", rate, own, len(vs))

	// The target is healthy: Prometheus parsed every answer.
	data, err := promGet(ctx, base, "/api/v1/targets", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	var tg struct {
		ActiveTargets []struct {
			Health    string `json:"health"`
			LastError string `json:"lastError"`
		} `json:"activeTargets"`
	}
	if err := json.Unmarshal(data, &tg); err != nil {
		t.Fatal(err)
	}
	if len(tg.ActiveTargets) != 1 || tg.ActiveTargets[0].Health != "up" || tg.ActiveTargets[0].LastError != "" {
		t.Errorf("targets: %s", data)
	}
}

// runPrometheus starts Debian's Prometheus scraping each job's target
// every second, until the test ends, and returns its API's base URL and a
// context bounded by limit. Its log is shown when the test fails.
func runPrometheus(t *testing.T, targets map[string]string, limit time.Duration) (string, context.Context) {
	t.Helper()
	bin := proctest.Tool(t, "prometheus", "prometheus")
	dir := t.TempDir()
	cfg := "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
	jobs := slices.Sorted(maps.Keys(targets))
	for _, job := range jobs {
		cfg += fmt.Sprintf("  - job_name: %s\n    static_configs:\n      - targets: [%q]\n", job, targets[job])
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address=127.0.0.1:"+strconv.Itoa(port), "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Logf("prometheus log:\n%s", b)
		}
	})
	return "http://127.0.0.1:" + strconv.Itoa(port), ctx
}

// recordingSource hands out its source's samples and keeps each, so that
// a test can run typeperf over the very samples a scrape answered from.
type recordingSource struct {
	pdh.Source
	mu      sync.Mutex
	samples []*pdh.Sample
}

func (r *recordingSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	s, err := r.Source.Sample(ctx, objects)
	if err != nil {
		return nil, err
	}
	var blocks [][]byte
	for _, b := range s.Blocks {
		blocks = append(blocks, bytes.Clone(b.Bytes()))
	}
	c, err := pdh.NewSample(blocks)
	if err != nil {
		return nil, err
	}
	c.Time = s.Time
	r.mu.Lock()
	r.samples = append(r.samples, c)
	r.mu.Unlock()
	return s, nil
}

// scrapeLog serves a collector and keeps every answer with the number of
// samples its source had handed out when the answer was made (the answer
// comes from the last of them).
type scrapeLog struct {
	col    *Collector
	src    *recordingSource
	mu     sync.Mutex
	bodies []string
	sample []int
}

func (l *scrapeLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock() // one scrape at a time: its sample is the last recorded
	defer l.mu.Unlock()
	rec := httptest.NewRecorder()
	r.Header.Del("Accept-Encoding") // the kept body is the text
	l.col.ServeHTTP(rec, r)
	l.src.mu.Lock()
	n := len(l.src.samples)
	l.src.mu.Unlock()
	l.bodies = append(l.bodies, rec.Body.String())
	l.sample = append(l.sample, n-1)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// seriesValue returns the value of the line of metric whose labels hold
// label in a scrape's body.
func seriesValue(body, metric, label string) (float64, bool) {
	for l := range strings.SplitSeq(body, "\n") {
		if !strings.HasPrefix(l, metric+"{") || !strings.Contains(l, label) {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		return v, err == nil
	}
	return 0, false
}

// TestRateAgreesWithTypeperf is issue 32's "rate() of the raw series and
// the _formatted values agree with typeperf over the same interval within
// 2 %", with a real Prometheus scraping the live host every second while
// this process burns CPU. The raw series is this process's CPU time
// (perfc_process_processor_time_seconds_total{pid}): Prometheus' rate()
// over a window that holds exactly the stored points from the first to
// the last of ten seconds (the query at the last point's time: nothing to
// extrapolate) is compared with typeperf's \Process(...)\% Processor Time
// over the two samples those points were scraped from (found by their
// stored values in the answers the test kept); the last scrape's
// _formatted gauge with typeperf over that scrape's two samples.
// Prometheus stamps a point at the scrape's start and typeperf times the
// sample's collection: over ten seconds their few milliseconds apart stay
// well inside 2 %.
func TestRateAgreesWithTypeperf(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	h := newHost(t, host.Options{})
	src := &recordingSource{Source: h.Source()}
	col, err := NewCollector(src, Options{Objects: []string{"Process"}, Formatted: true})
	if err != nil {
		t.Fatal(err)
	}
	log := &scrapeLog{col: col, src: src}
	srv := httptest.NewServer(log)
	defer srv.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // this process's CPU time grows about a second a second
		for x := 0; ; x++ {
			if x%1_000_000 == 0 {
				select {
				case <-stop:
					return
				default:
				}
			}
		}
	}()
	base, ctx := runPrometheus(t, map[string]string{"perfc": srv.Listener.Addr().String()}, 120*time.Second)

	pid := os.Getpid()
	label := fmt.Sprintf(`pid="%d"`, pid)
	raw := fmt.Sprintf(`perfc_process_processor_time_seconds_total{pid="%d"}`, pid)
	const span = 10 // seconds between the first and the last point compared
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var vs [][2]any
	for len(vs) < span+1 {
		select {
		case <-ctx.Done():
			t.Fatalf("Prometheus stored %d points of %s before the deadline", len(vs), raw)
		case <-tick.C:
		}
		data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {raw + "[60s]"}})
		if err != nil {
			continue // not up yet
		}
		var m matrixResult
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Result) == 1 {
			vs = m.Result[0].Values
		}
	}
	vs = vs[len(vs)-span-1:]
	first, last := vs[0], vs[len(vs)-1]
	window := int64((number(last[0])-number(first[0]))*1000) + 1
	at := strconv.FormatFloat(number(last[0]), 'f', 3, 64)
	data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {fmt.Sprintf("rate(%s[%dms])", raw, window)}, "time": {at}})
	if err != nil {
		t.Fatal(err)
	}
	var v vectorResult
	if err := json.Unmarshal(data, &v); err != nil || len(v.Result) != 1 {
		t.Fatalf("rate: %v %s", err, data)
	}
	rate := 100 * number(v.Result[0].Value[1]) // percent of one processor

	// The samples the first and the last point were scraped from.
	log.mu.Lock()
	bodies, sampleOf := slices.Clone(log.bodies), slices.Clone(log.sample)
	log.mu.Unlock()
	find := func(p [2]any) (int, string, int) {
		want := number(p[1])
		for i, b := range bodies {
			if x, ok := seriesValue(b, "perfc_process_processor_time_seconds_total", label); ok && x == want {
				return sampleOf[i], b, i
			}
		}
		t.Fatalf("no answer kept holds %s = %v", raw, want)
		return 0, "", 0
	}
	k0, _, _ := find(first)
	k1, lastBody, lastAt := find(last)
	// The sample the last answer's _formatted gauge was computed from with
	// k1: that of the answer before it (under load two answers may share a
	// sample, and the one before may not be k1-1 when a scrape was late).
	kPrev := k1 - 1
	for j := lastAt - 1; j >= 0; j-- {
		if sampleOf[j] != k1 {
			kPrev = sampleOf[j]
			break
		}
	}
	src.mu.Lock()
	samples := slices.Clone(src.samples)
	src.mu.Unlock()
	name := "" // this process's instance name (Process 230, ID Process 784)
	for _, blk := range samples[k1].Blocks {
		o, ok := blk.Object(230)
		if !ok {
			continue
		}
		for i := range o.NumCounters() {
			if d := o.Counter(i); d.NameIndex == 784 {
				for it := o.Instances(); it.Next(); {
					if in := it.Instance(); in.Block().Value(d) == uint64(pid) {
						name = in.Name()
					}
				}
			}
		}
	}
	if name == "" {
		t.Fatalf("no Process instance of pid %d in the sample", pid)
	}
	typeperfOver := func(a, b int) float64 {
		// typeperf of one object reads its source three times: for its
		// paths, the priming sample and the row (a query of several
		// objects would prime from its paths' sample).
		fs := &fixedSource{db: h.Source().Titles(), samples: []*pdh.Sample{samples[a], samples[a], samples[b]}}
		got := typeperfValues(t, fs, []string{"Process"})
		if fs.calls != 3 {
			t.Fatalf("typeperf read the source %d times, want 3 (paths, priming sample, row)", fs.calls)
		}
		for p, x := range got {
			if strings.HasSuffix(p, `\% Processor Time`) && strings.Contains(p, "("+name+")") {
				return x
			}
		}
		t.Fatalf("typeperf printed no %% Processor Time of %q", name)
		return 0
	}
	tp := typeperfOver(k0, k1)
	if math.Abs(rate-tp) > 0.02*math.Max(math.Abs(tp), 1) {
		t.Errorf("100 × rate() over %d ms = %.3f %%, typeperf over the same samples %.3f %%", window, rate, tp)
	}
	formatted, ok := seriesValue(lastBody, "perfc_process_processor_time_formatted", label)
	if !ok {
		t.Fatalf("the last answer has no _formatted gauge of this process")
	}
	if tp1 := typeperfOver(kPrev, k1); math.Abs(formatted-tp1) > 0.02*math.Max(math.Abs(tp1), 1) {
		t.Errorf("_formatted %.3f %%, typeperf over the same two samples %.3f %%", formatted, tp1)
	}
	t.Logf("rate %.3f %% against typeperf %.3f %% (samples %d..%d); _formatted %.3f %%", rate, tp, k0, k1, formatted)
}
