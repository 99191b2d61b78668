package prom

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// fakeHost and fakeServices stand for what perfc serve gives
// (host.ReadFacts, host.Services): a Debian host with two services.
func fakeHost(context.Context) HostFacts {
	return HostFacts{Hostname: "web01", Domain: "example.com", FQDN: "web01.example.com",
		Product: "Debian GNU/Linux 13 (trixie)", Version: "6.12.48", Major: "6", Minor: "12", Build: "48", Revision: "1-amd64",
		MemoryTotal: 8 << 30, Timezone: "CET"}
}

func fakeServices(context.Context) ([]Service, error) {
	return []Service{
		{Name: "ssh", DisplayName: "OpenBSD Secure Shell server", RunAs: "root", PathName: "/usr/sbin/sshd -D", State: 4, StartMode: 2, ProcessID: 701, Started: 1796000000},
		{Name: "node-exporter", DisplayName: `Exporter "node"`, RunAs: "prometheus", State: 1, StartMode: 3, Failed: true},
	}, nil
}

// pagingFileSource is a Paging File object of two swap areas of 4000
// KiB, 1000 KiB used each, and _Total, as package system declares it (%
// Usage: used KiB over size KiB).
func pagingFileSource(t testing.TB) *fixedSource {
	t.Helper()
	blk, _ := buildBlock(t, []counterCase{{name: "% Usage", typ: ct.PERF_RAW_FRACTION, n: 1000, baseType: ct.PERF_RAW_BASE, base: 4000}}, testPerfFreq, []string{"/swapfile", "/dev/dm-1", "_Total"})
	db := titles.New() // the same indexes, the object named Paging File
	for i, n := range []string{"Paging File", "% Usage"} {
		if err := db.SetAt(uint32(1000+2*i), n, n+"."); err != nil {
			t.Fatal(err)
		}
	}
	return &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, blk)}}
}

// TestWindowsExporterPagingFile: per area, pagefile_limit_bytes is the
// size and pagefile_free_bytes the size less the use (KiB × 1024); the
// older os_paging_* are their sums over the areas (_Total left out).
func TestWindowsExporterPagingFile(t *testing.T) {
	got := series(t, scrapeTwice(t, pagingFileSource(t), Options{Profile: ProfileWindowsExporter, NoSelfMetrics: true, Objects: []string{"Paging File"}}, Text))
	want := map[string]float64{
		`windows_pagefile_limit_bytes{file="/swapfile"}`: 4000 * 1024,
		`windows_pagefile_limit_bytes{file="/dev/dm-1"}`: 4000 * 1024,
		`windows_pagefile_free_bytes{file="/swapfile"}`:  3000 * 1024,
		`windows_pagefile_free_bytes{file="/dev/dm-1"}`:  3000 * 1024,
		`windows_os_paging_limit_bytes`:                  2 * 4000 * 1024,
		`windows_os_paging_free_bytes`:                   2 * 3000 * 1024,
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// TestWindowsExporterFacts checks the families written from Options.Host
// and Options.Services in each spelling: the samples of the fake host,
// written out by hand as windows_exporter writes them.
func TestWindowsExporterFacts(t *testing.T) {
	common := []string{
		`windows_os_info{product="Debian GNU/Linux 13 (trixie)",version="6.12.48",major_version="6",minor_version="12",build_number="48",revision="1-amd64"} 1`,
		`windows_service_info{name="ssh",display_name="OpenBSD Secure Shell server",run_as="root",path_name="/usr/sbin/sshd -D"} 1`,
		`windows_service_info{name="node-exporter",display_name="Exporter \"node\"",run_as="prometheus",path_name=""} 1`,
		`windows_service_state{name="ssh",state="running"} 1`,
		`windows_service_state{name="ssh",state="stopped"} 0`,
		`windows_service_state{name="node-exporter",state="stopped"} 1`,
		`windows_service_state{name="node-exporter",state="running"} 0`,
		`windows_service_start_mode{name="ssh",start_mode="auto"} 1`,
		`windows_service_start_mode{name="ssh",start_mode="manual"} 0`,
		`windows_service_start_mode{name="node-exporter",start_mode="manual"} 1`,
		`windows_service_start_mode{name="node-exporter",start_mode="disabled"} 0`,
	}
	old := []string{
		`windows_cs_hostname{hostname="web01",domain="example.com",fqdn="web01.example.com"} 1`,
		`windows_cs_physical_memory_bytes 8589934592`,
		`windows_os_visible_memory_bytes 8589934592`,
		`windows_os_timezone{timezone="CET"} 1`,
		`windows_cs_logical_processors 2`,
		`windows_service_status{name="ssh",status="ok"} 1`,
		`windows_service_status{name="ssh",status="error"} 0`,
		`windows_service_status{name="node-exporter",status="error"} 1`,
		`windows_service_status{name="node-exporter",status="ok"} 0`,
	}
	newer := []string{
		`windows_os_hostname{hostname="web01",domain="example.com",fqdn="web01.example.com"} 1`,
		`windows_memory_physical_total_bytes 8589934592`,
		`windows_time_timezone{timezone="CET"} 1`,
		`windows_cpu_logical_processor 2`,
		`windows_service_process{name="ssh",process_id="701"} 1796000000`,
	}
	for _, tc := range []struct {
		version  string
		has, not []string
	}{
		{"", slices.Concat(common, old, newer), nil},
		{"both", slices.Concat(common, old, newer), nil},
		{"old", slices.Concat(common, old), newer},
		{"new", slices.Concat(common, newer), old},
	} {
		t.Run("version="+tc.version, func(t *testing.T) {
			opts := Options{Profile: ProfileWindowsExporter, NoSelfMetrics: true, WindowsExporterVersion: tc.version, Host: fakeHost, Services: fakeServices, Objects: []string{"Processor", "Memory", "System"}}
			body := scrapeTwice(t, linuxSource(t), opts, Text)
			lines := strings.Split(body, "\n")
			for _, l := range tc.has {
				if !slices.Contains(lines, l) {
					t.Errorf("no line %s", l)
				}
			}
			for _, l := range tc.not {
				if slices.Contains(lines, l) {
					t.Errorf("line %s written in spelling %q", l, tc.version)
				}
			}
			if n := strings.Count(body, "windows_service_state{name=\"ssh\""); n != 7 {
				t.Errorf("%d state series of ssh, want windows_exporter's 7", n)
			}
			if n := strings.Count(body, "windows_service_start_mode{name=\"ssh\""); n != 5 {
				t.Errorf("%d start_mode series of ssh, want 5", n)
			}
			promtoolCheck(t, body)
			checkOpenMetrics(t, scrapeTwice(t, linuxSource(t), opts, OpenMetrics))
		})
	}
}

// TestWindowsExporterFactsAbsent: without Options.Host and
// Options.Services, with unknown facts, and where the services cannot be
// listed (no systemd), none of their families is written.
func TestWindowsExporterFactsAbsent(t *testing.T) {
	for name, opts := range map[string]Options{
		"none":    {},
		"unknown": {Host: func(context.Context) HostFacts { return HostFacts{} }},
		"no systemd": {Services: func(context.Context) ([]Service, error) {
			return nil, errors.New("systemd is not running")
		}},
	} {
		opts.Profile, opts.NoSelfMetrics = ProfileWindowsExporter, true
		body := scrapeTwice(t, linuxSource(t), opts, Text)
		for _, fc := range wxFacts {
			if opts.Host != nil && (fc.name == "os_time" || fc.name == "time_current_timestamp_seconds") {
				continue // the time is always known
			}
			if strings.Contains(body, wxPrefix+fc.name) {
				t.Errorf("%s: %s written", name, wxPrefix+fc.name)
			}
		}
	}
}

func TestWindowsExporterVersionOption(t *testing.T) {
	for _, tc := range []struct {
		json, err string
	}{
		{`{"profile":"windows_exporter","windows_exporter_version":"old"}`, ""},
		{`{"profile":"windows_exporter","windows_exporter_version":"new"}`, ""},
		{`{"profile":"windows_exporter","windows_exporter_version":"both"}`, ""},
		{`{"profile":"windows_exporter"}`, ""},
		{`{"profile":"windows_exporter","windows_exporter_version":"0.31"}`, `windows_exporter_version "0.31": not "old", "new" or "both"`},
		{`{"windows_exporter_version":"new"}`, "only for the windows_exporter profile"},
	} {
		_, err := ParseOptions([]byte(tc.json))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.err)
		}
	}
}

// TestWindowsExporterSpellings: under each windows_exporter_version, a
// name of one spelling (wxOnly, wxFacts) is written exactly when that
// spelling is chosen, and the names of both spellings always; the
// sources hold every object these names come from.
func TestWindowsExporterSpellings(t *testing.T) {
	spelling := map[string]wxVer{}
	for n, v := range wxOnly {
		spelling[wxPrefix+n] = v
	}
	for _, fc := range wxFacts {
		spelling[wxPrefix+fc.name] = fc.ver
	}
	for _, tc := range []struct {
		version string
		want    map[wxVer]bool
	}{
		{"old", map[wxVer]bool{wxOld: true, wxBoth: true}},
		{"new", map[wxVer]bool{wxNew: true, wxBoth: true}},
		{"both", map[wxVer]bool{wxOld: true, wxNew: true, wxBoth: true}},
	} {
		seen := map[string]bool{}
		opts := Options{Profile: ProfileWindowsExporter, NoSelfMetrics: true, WindowsExporterVersion: tc.version, Host: fakeHost, Services: fakeServices,
			Objects: []string{"Processor", "Memory", "System"}}
		familyNames(scrapeTwice(t, linuxSource(t), opts, Text), seen)
		opts.Objects = []string{"Paging File"}
		familyNames(scrapeTwice(t, pagingFileSource(t), opts, Text), seen)
		for name, v := range spelling {
			if seen[name] != tc.want[v] {
				t.Errorf("version %q: %s written %v, want %v", tc.version, name, seen[name], tc.want[v])
			}
		}
		for _, name := range []string{"windows_cpu_time_total", "windows_memory_available_bytes", "windows_system_threads", "windows_os_info"} {
			if !seen[name] {
				t.Errorf("version %q: %s (both spellings) not written", tc.version, name)
			}
		}
	}
}

// TestWindowsExporterFactsSelf: the collectors the facts stand for have
// windows_exporter_collector_success (os, cs in the older spelling,
// service: 0 when the services could not be listed).
func TestWindowsExporterFactsSelf(t *testing.T) {
	noSystemd := func(context.Context) ([]Service, error) { return nil, errors.New("no systemd") }
	for _, tc := range []struct {
		version  string
		services func(context.Context) ([]Service, error)
		want     map[string]string // collector: success
	}{
		{"both", fakeServices, map[string]string{"cs": "1", "os": "1", "service": "1"}},
		{"new", fakeServices, map[string]string{"os": "1", "service": "1"}},
		{"old", noSystemd, map[string]string{"cs": "1", "os": "1", "service": "0"}},
	} {
		opts := Options{Profile: ProfileWindowsExporter, WindowsExporterVersion: tc.version, Host: fakeHost, Services: tc.services, Objects: []string{"Memory"}}
		body := scrapeTwice(t, linuxSource(t), opts, Text)
		got := map[string]string{}
		for l := range strings.SplitSeq(body, "\n") {
			if rest, ok := strings.CutPrefix(l, `windows_exporter_collector_success{collector="`); ok {
				name, v, _ := strings.Cut(rest, `"} `)
				got[name] = v
			}
		}
		want := map[string]string{"memory": "1"}
		for k, v := range tc.want {
			want[k] = v
		}
		if len(got) != len(want) {
			t.Errorf("version %s: collectors %v, want %v", tc.version, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("version %s: collector %s success %q, want %q", tc.version, k, got[k], v)
			}
		}
		promtoolCheck(t, body)
	}
}
