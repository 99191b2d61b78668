package prom

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	Templating    struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title   string `json:"title"`
		Type    string `json:"type"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// variable is a template variable of a dashboard: its query is a string
// or an object with a query field (Grafana's two encodings).
type variable struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Query json.RawMessage `json:"query"`
}

// query is the variable's query text.
func (v *variable) query() string {
	var s string
	if json.Unmarshal(v.Query, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	json.Unmarshal(v.Query, &o)
	return o.Query
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
var dashboardFiles = map[string]string{"perfc.json": "perfc", "windows_exporter.json": "winexp",
	"windows_exporter_before_0.30.json": "winexp", "windows_exporter_0.31.json": "winexp"}

// labelValues matches Grafana's label_values(LABEL) and
// label_values(SELECTOR, LABEL).
var labelValues = regexp.MustCompile(`^\s*label_values\(\s*(?:(.+?)\s*,\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$`)

// resolveVariable runs a template variable's query as Grafana does
// against Prometheus (label_values through /api/v1/label/.../values,
// query_result through /api/v1/query) and returns its values.
func resolveVariable(ctx context.Context, base, q, now string) ([]string, error) {
	if m := labelValues.FindStringSubmatch(q); m != nil {
		// the last minute, as Grafana asks for the dashboard's range
		end, _ := strconv.ParseFloat(now, 64)
		v := url.Values{"start": {strconv.FormatFloat(end-60, 'f', 3, 64)}, "end": {now}}
		if m[1] != "" {
			v["match[]"] = []string{m[1]}
		}
		data, err := promGet(ctx, base, "/api/v1/label/"+m[2]+"/values", v)
		if err != nil {
			return nil, err
		}
		var out []string
		err = json.Unmarshal(data, &out)
		return out, err
	}
	if inner, ok := strings.CutPrefix(strings.TrimSpace(q), "query_result("); ok {
		data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {strings.TrimSuffix(inner, ")")}, "time": {now}})
		if err != nil {
			return nil, err
		}
		var v vectorResult
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		var out []string
		for _, r := range v.Result {
			out = append(out, fmt.Sprint(r.Metric))
		}
		return out, nil
	}
	return nil, fmt.Errorf("variable query %q: not label_values or query_result", q)
}

// substitute replaces the dashboard's variables in s by their values
// (Grafana's $name, ${name} and [[name]] forms), the longest names
// first, and Grafana's own intervals by fixed ones.
func substitute(s string, vals map[string]string) string {
	names := slices.Collect(maps.Keys(vals))
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	for _, n := range names {
		s = strings.NewReplacer("${"+n+"}", vals[n], "[["+n+"]]", vals[n], "$"+n, vals[n]).Replace(s)
	}
	return strings.NewReplacer("$__rate_interval", "10s", "$__interval", "5s", "$__range", "1m").Replace(s)
}

// liveHostFacts and liveServices give the windows_exporter job what perfc
// serve gives it (cmd/perfc's withWindowsExporterFacts): this host's
// facts, and its systemd services where systemd is process 1, else the
// fake services of winexp_facts_test.go (the dashboards' service panels
// need some).
func liveHostFacts(context.Context) HostFacts {
	f := host.ReadFacts()
	return HostFacts{Hostname: f.Hostname, Domain: f.Domain, FQDN: f.FQDN, Product: f.Product,
		Version: f.Version, Major: f.Major, Minor: f.Minor, Build: f.Build, Revision: f.Revision, MemoryTotal: f.MemoryTotal, Timezone: f.Timezone}
}

func liveServices(ctx context.Context) ([]Service, error) {
	units, err := host.Services(ctx)
	if err != nil {
		return fakeServices(ctx)
	}
	out := make([]Service, 0, len(units))
	for _, u := range units {
		s := Service{Name: strings.TrimSuffix(u.Name, ".service"), DisplayName: u.Description, RunAs: cmp.Or(u.User, "root"), PathName: u.ExecPath,
			State: u.WindowsState(), StartMode: u.StartMode(), Failed: u.Failed(), ProcessID: u.MainPID}
		if !u.Started.IsZero() && u.MainPID != 0 {
			s.Started = u.Started.Unix()
		}
		out = append(out, s)
	}
	return out, nil
}

// hasSwap reports whether this host has a swap area (/proc/swaps lists
// one): the per-file paging series exist only then, on Windows too.
func hasSwap() bool {
	b, _ := os.ReadFile("/proc/swaps")
	return strings.Count(string(b), "\n") > 1
}

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
	h := newHost(t, host.Options{})
	h2 := newHost(t, host.Options{})
	perfcOpts := Options{Objects: []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "Process"}, Formatted: true, Cumulative: host.Cumulative()}
	wxOpts := Options{Profile: ProfileWindowsExporter, Objects: []string{"Processor Information", "Memory", "LogicalDisk", "PhysicalDisk", "Network Interface", "System", "Process", "Paging File"},
		Host: liveHostFacts, Services: liveServices}
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

	// Every template variable of each dashboard has values, and every
	// panel query returns series, the variables set to their first
	// values (as Grafana opens a dashboard whose variables have no
	// saved choice), one variable after the other (a variable's query
	// may use the ones before it).
	swap := hasSwap()
	for _, name := range slices.Sorted(maps.Keys(dashboardFiles)) {
		d := readDashboard(t, name)
		vals := map[string]string{}
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			q := substitute(v.query(), vals)
			got, err := resolveVariable(ctx, base, q, now)
			if err != nil || len(got) == 0 {
				t.Errorf("%s: variable $%s (%s): no values (%v)", name, v.Name, q, err)
				vals[v.Name] = ".*"
				continue
			}
			t.Logf("%s: $%s = %q (%d values)", name, v.Name, got[0], len(got))
			vals[v.Name] = got[0] // as Grafana sets a single value: raw (a dot in it matches itself too)
		}
		for _, p := range d.Panels {
			for _, q := range p.Targets {
				expr := substitute(q.Expr, vals)
				if strings.Contains(expr, "$") {
					expr = regexp.MustCompile(`\$\{?[a-zA-Z_]+\}?`).ReplaceAllString(expr, ".*")
				}
				data, err := promGet(ctx, base, "/api/v1/query", url.Values{"query": {expr}, "time": {now}})
				if err != nil {
					t.Errorf("%s panel %q: %v", name, p.Title, err)
					continue
				}
				var v vectorResult
				if err := json.Unmarshal(data, &v); err != nil {
					t.Errorf("%s panel %q query %s: %v", name, p.Title, expr, err)
					continue
				}
				t.Logf("%s panel %q: %d series: %s", name, p.Title, len(v.Result), expr)
				if len(v.Result) == 0 && !(strings.Contains(expr, "windows_pagefile_") && !swap) {
					t.Errorf("%s panel %q query %s: no series (%s)", name, p.Title, expr, data)
				}
			}
		}
	}
}
