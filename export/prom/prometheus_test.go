package prom

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
)

// needTool returns the path of a program of Debian's prometheus
// packages, skipping the test without it, except under CI=true, where
// its absence fails the test.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (Debian package %s); CI needs it", name, pkg)
		}
		t.Skipf("%s not installed (Debian package %s)", name, pkg)
	}
	return p
}

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
	bin := needTool(t, "prometheus", "prometheus")
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// Process too (real process names, duplicates) and formatted values:
	// the whole answer must pass Prometheus' OpenMetrics parser.
	col, err := NewCollector(h.Source(), Options{Objects: []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "Process"}, Formatted: true, Total: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(col)
	defer srv.Close()

	dir := t.TempDir()
	target := srv.Listener.Addr().String()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: perfc\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(port),
		"--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Logf("prometheus log:\n%s", b)
		}
	}()
	base := "http://127.0.0.1:" + strconv.Itoa(port)

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
