package prom

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
)

// dashboard is what the tests read of a Grafana dashboard.
type dashboard struct {
	UID           string `json:"uid"`
	Title         string `json:"title"`
	SchemaVersion int    `json:"schemaVersion"`
	Panels        []struct {
		Title   string `json:"title"`
		Type    string `json:"type"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

func readDashboard(t *testing.T, name string) dashboard {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("dashboards", name))
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if d.UID == "" || d.Title == "" || d.SchemaVersion == 0 || len(d.Panels) == 0 {
		t.Fatalf("%s: not a dashboard (uid %q, title %q, schemaVersion %d, %d panels)", name, d.UID, d.Title, d.SchemaVersion, len(d.Panels))
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Fatalf("%s: panel %q has no query", name, p.Title)
		}
		for _, q := range p.Targets {
			if q.Expr == "" || q.RefID == "" {
				t.Fatalf("%s: panel %q has a target without expr or refId", name, p.Title)
			}
		}
	}
	return d
}

// dashboardFiles are the shipped dashboards and the job whose profile
// they are for.
var dashboardFiles = map[string]string{"perfc.json": "perfc", "windows_exporter.json": "winexp"}

func TestDashboardsValid(t *testing.T) {
	for name := range dashboardFiles {
		readDashboard(t, name)
	}
}

// TestDashboardsPrometheus starts a real Prometheus (Debian's package)
// scraping this host's export every second in both profiles, and checks
// that every query of each shipped dashboard returns at least one
// series (after eight stored scrapes of each job, so that the rates'
// windows hold samples).
func TestDashboardsPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	// one host per job: each collects on its own
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h2, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	perfcOpts := Options{Objects: []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "Process"}, Formatted: true, Cumulative: host.Cumulative()}
	wxOpts := Options{Profile: ProfileWindowsExporter, Objects: []string{"Processor Information", "Memory", "LogicalDisk", "PhysicalDisk", "Network Interface", "System", "Process"}}
	srcs := map[string]pdh.Source{"perfc": h.Source(), "winexp": h2.Source()}
	targets := map[string]string{}
	for job, opts := range map[string]Options{"perfc": perfcOpts, "winexp": wxOpts} {
		col, err := NewCollector(srcs[job], opts)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(col)
		defer srv.Close()
		targets[job] = srv.Listener.Addr().String()
	}
	base, ctx := runPrometheus(t, targets, 120*time.Second)

	// The raw series compared with typeperf, per job.
	checks := []struct{ job, series string }{
		{"perfc", `perfc_processor_time_seconds_total{cpu="0",mode="idle"}`},
		{"winexp", `windows_cpu_time_total{core="0,0",mode="idle"}`},
	}
	// Poll, within the deadline, until each raw series has 8 stored
	// scrapes.
	stored := map[string][][2]any{}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for len(stored) < len(checks) {
		select {
		case <-ctx.Done():
			t.Fatalf("Prometheus stored too few scrapes before the deadline")
		case <-tick.C:
		}
		for _, c := range checks {
			data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {c.series + "[1m]"}})
			if err != nil {
				continue
			}
			var m matrixResult
			if json.Unmarshal(data, &m) == nil && len(m.Result) == 1 && len(m.Result[0].Values) >= 8 {
				stored[c.job] = m.Result[0].Values
			}
		}
	}
	now := strconv.FormatFloat(float64(time.Now().UnixMilli())/1000, 'f', 3, 64)

	// Every dashboard query returns data.
	for name, job := range dashboardFiles {
		d := readDashboard(t, name)
		for _, p := range d.Panels {
			for _, q := range p.Targets {
				expr := strings.NewReplacer("$__rate_interval", "10s", "$instance", ".*").Replace(q.Expr)
				data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {expr}, "time": {now}})
				if err != nil {
					t.Errorf("%s (%s) panel %q: %v", name, job, p.Title, err)
					continue
				}
				var v vectorResult
				if err := json.Unmarshal(data, &v); err != nil || len(v.Result) == 0 {
					t.Errorf("%s panel %q query %s: no series (%s)", name, p.Title, expr, data)
				}
			}
		}
	}
}
