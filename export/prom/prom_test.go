package prom

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/pdh"
)

// windowsObjects are the eight objects of the Windows samples.
var windowsObjects = []string{"System", "Memory", "Process", "PhysicalDisk", "LogicalDisk", "Processor", "Network Interface", "TCPv4"}

// scrapeTwice returns the second of two scrapes (formatted values need
// two collections).
func scrapeTwice(t *testing.T, src pdh.Source, opts Options, f Format) string {
	t.Helper()
	col, err := NewCollector(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := col.Scrape(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	b, err := col.Scrape(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGolden pins the export of a real Windows sample pair (Vista,
// 2007; see testdata/windows/PROVENANCE.md) and of a Linux host sample
// pair (testdata/linux) byte for byte, in both formats.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		src  func(testing.TB) *fixedSource
		opts Options
		f    Format
	}{
		{"windows.om", windowsSource, Options{NoSelfMetrics: true, Objects: windowsObjects, Formatted: true, Total: true}, OpenMetrics},
		{"windows.txt", windowsSource, Options{NoSelfMetrics: true, Objects: windowsObjects}, Text},
		{"linux.om", linuxSource, Options{NoSelfMetrics: true, Formatted: true, Cumulative: host.Cumulative()}, OpenMetrics},
		{"linux.txt", linuxSource, Options{NoSelfMetrics: true, Cumulative: host.Cumulative()}, Text},
		// The classic profile is perfc's export before issue 32: these
		// equal the goldens of that time but for the _formatted values.
		{"classic-windows.om", windowsSource, Options{NoSelfMetrics: true, Objects: windowsObjects, Formatted: true, Total: true, Profile: ProfileClassic}, OpenMetrics},
		{"classic-linux.txt", linuxSource, Options{NoSelfMetrics: true, Profile: ProfileClassic}, Text},
		{"linux-filtered.om", linuxSource, Options{NoSelfMetrics: true, Objects: []string{"Processor", "PhysicalDisk"}, Total: true, Prefix: "lx_",
			Instances: []InstanceFilter{{Object: "processor", Exclude: "1"}}}, OpenMetrics},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scrapeTwice(t, tc.src(t), tc.opts, tc.f)
			golden.Check(t, "testdata/"+tc.name+".golden", got)
			if tc.f == OpenMetrics {
				checkOpenMetrics(t, got)
			} else {
				promtoolCheck(t, got)
			}
		})
	}
}

// promtoolCheck runs `promtool check metrics` (Debian's prometheus
// package) on a text-format answer. Without promtool the check is
// skipped, except under CI=true, where it fails.
func promtoolCheck(t *testing.T, body string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is not installed (Debian package prometheus); CI needs it")
		}
		t.Log("promtool not installed: promtool check skipped")
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// node_exporter's own meminfo names (node_memory_HugePages_Total), which
	// the windows_exporter profile writes as node_exporter does, fail the
	// linter's camelCase rule; nothing else may.
	var problems []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !nodeCamelCase.MatchString(l) {
			problems = append(problems, l)
		}
	}
	var exit *exec.ExitError
	if len(problems) > 0 || !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// nodeCamelCase is promtool's lint line for a node_exporter meminfo name.
var nodeCamelCase = regexp.MustCompile(`^node_memory_[A-Za-z_]+ metric names should be written in 'snake_case' not 'camelCase'$`)

var (
	omName   = `[a-zA-Z_:][a-zA-Z0-9_:]*`
	omSample = regexp.MustCompile(`^(` + omName + `)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*\})? (\S+)$`)
	omType   = regexp.MustCompile(`^# TYPE (` + omName + `) (counter|gauge)$`)
	omHelp   = regexp.MustCompile(`^# HELP (` + omName + `) (?:[^\\\n"]|\\[\\"n])*$`)
)

// checkOpenMetrics checks an answer against the OpenMetrics text grammar
// as far as this export uses it: TYPE then HELP per family, each family
// once and contiguous, sample names the family's (gauges) or the family's
// with _total (counters), label values escaped, values numbers, unique
// series, and # EOF last.
func checkOpenMetrics(t *testing.T, body string) {
	t.Helper()
	if !strings.HasSuffix(body, "# EOF\n") {
		t.Fatalf("answer does not end with # EOF")
	}
	lines := strings.Split(strings.TrimSuffix(body, "# EOF\n"), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	families := map[string]bool{}
	series := map[string]bool{}
	var fam, kind string
	for i, l := range lines {
		if m := omType.FindStringSubmatch(l); m != nil {
			if families[m[1]] {
				t.Fatalf("line %d: family %s twice", i+1, m[1])
			}
			families[m[1]] = true
			fam, kind = m[1], m[2]
			continue
		}
		if m := omHelp.FindStringSubmatch(l); m != nil {
			if m[1] != fam {
				t.Fatalf("line %d: HELP of %s in family %s", i+1, m[1], fam)
			}
			continue
		}
		m := omSample.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %d: not OpenMetrics: %q", i+1, l)
		}
		want := fam
		if kind == "counter" {
			want += "_total"
		}
		if m[1] != want {
			t.Fatalf("line %d: sample %s in family %s (%s)", i+1, m[1], fam, kind)
		}
		if _, err := strconv.ParseFloat(m[3], 64); err != nil {
			t.Fatalf("line %d: value %q: %v", i+1, m[3], err)
		}
		if kind == "counter" && strings.HasPrefix(m[3], "-") {
			t.Fatalf("line %d: negative counter", i+1)
		}
		key := m[1] + m[2]
		if series[key] {
			t.Fatalf("line %d: series %s twice", i+1, key)
		}
		series[key] = true
	}
}

// TestPromtoolAllTypes runs promtool on an object with a counter of
// every kind (the golden answers are checked in TestGolden), with
// duplicate, quoted and _Total instances.
func TestPromtoolAllTypes(t *testing.T) {
	blk, db := buildBlock(t, mappingCases(), 50_000, []string{"a", `b"\`, "a", "_Total"})
	src := &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, blk)}}
	got := scrapeTwice(t, src, Options{Formatted: true, Total: true}, Text)
	promtoolCheck(t, got)
	om := scrapeTwice(t, src, Options{Formatted: true}, OpenMetrics)
	checkOpenMetrics(t, om)
	for _, want := range []string{`perf_instance="a"`, `perf_instance="a#1"`, `perf_instance="b\"\\"`} {
		if !strings.Contains(om, want) {
			t.Errorf("no %s in the labels", want)
		}
	}
	if strings.Contains(om, "_Total") {
		t.Errorf("_Total exported though not asked for")
	}
}

// mappingCases is one counter of every type with a number.
func mappingCases() []counterCase {
	return []counterCase{
		{name: "Queue Length", typ: 0x00010000, n: 7},
		{name: "Ops/sec", typ: 0x10410400, n: 1234},
		{name: "% Busy Time", typ: 0x20510500, n: 25_000_000},
		{name: "% Processor Time", typ: 0x21510500, n: 30_000_000},
		{name: "% Disk Time", typ: 0x20570500, n: 5_000_000, baseType: 0x40030500, base: 20_000_000},
		{name: "% Free Space", typ: 0x20020400, n: 30, baseType: 0x40030403, base: 120},
		{name: "Avg. Disk sec/Read", typ: 0x30020400, n: 3000, baseType: 0x40030402, base: 6},
		{name: "% Multi Idle", typ: 0x23510500, n: 10_000_000, baseType: 0x42030500, base: 2},
		{name: "Avg. Disk Queue Length", typ: 0x00550500, n: 30_000_000},
		{name: "Elapsed Time", typ: 0x30240500, n: 1000},
		{name: "Total Count", typ: 0x00010000, n: 1},
		{name: "Total Count/sec", typ: 0x10410400, n: 1},
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		accept string
		want   Format
	}{
		{"", Text},
		{"text/plain;version=0.0.4", Text},
		{"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", OpenMetrics},
		{"application/openmetrics-text", OpenMetrics},
		{"application/openmetrics-text; version=0.0.1", Text},
		{"application/openmetrics-text;q=0", Text},
		{"*/*", Text},
		// The client's ranking decides (issue 42: OpenMetrics was
		// picked whenever it was acceptable at all).
		{"text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5", Text},
		{"application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4", Text},
		{"text/plain;version=0.0.4;q=0.3,application/openmetrics-text;version=1.0.0;q=0.9", OpenMetrics},
		{"text/plain;q=0.5,application/openmetrics-text;q=0.5", OpenMetrics},
		{"application/openmetrics-text;q=0.2,*/*;q=0.1", OpenMetrics},
		{"application/openmetrics-text;q=0.1,*/*", Text},
		// Prometheus 2's protobuf-first header: the text format.
		{"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.1", Text},
		{"application/openmetrics-text;version=2.0.0", Text},
		{"application/openmetrics-text;q=bad,text/plain;q=0.1", Text},
		{`application/openmetrics-text;version="1.0.0"`, OpenMetrics},
	}
	for _, tc := range tests {
		if got := Negotiate(tc.accept); got != tc.want {
			t.Errorf("Negotiate(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}

func TestHandler(t *testing.T) {
	h, err := NewHandler(linuxSource(t), Options{NoSelfMetrics: true}) // durations differ between collections
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tc := range []struct {
		accept, ctype string
		eof           bool
	}{
		{"application/openmetrics-text;version=1.0.0", "application/openmetrics-text; version=1.0.0; charset=utf-8", true},
		{"", "text/plain; version=0.0.4; charset=utf-8", false},
	} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Header.Set("Accept", tc.accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("Accept %q: %d %q", tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if strings.HasSuffix(buf.String(), "# EOF\n") != tc.eof {
			t.Errorf("Accept %q: # EOF at the end is %v, want %v", tc.accept, !tc.eof, tc.eof)
		}
	}
	// Concurrent scrapes over HTTP share collections and reuse buffers:
	// every answer is whole and the same (the source repeats its last
	// sample).
	var wg sync.WaitGroup
	bodies := make([]string, 16)
	for i := range bodies {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", srv.URL, nil)
			req.Header.Set("Accept", "application/openmetrics-text")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			resp.Body.Close()
			bodies[i] = buf.String()
		})
	}
	wg.Wait()
	for i, b := range bodies {
		if b != bodies[0] || !strings.HasSuffix(b, "# EOF\n") {
			t.Errorf("concurrent answer %d differs or is cut", i)
		}
	}
	resp, err := http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

// TestOnlyAskedObjects checks that a collection asks the source for the
// exported objects only, and that an export of every object asks for
// Global once and then for the objects it found, less the excluded ones.
func TestOnlyAskedObjects(t *testing.T) {
	src := windowsSource(t)
	db := src.Titles()
	col, err := NewCollector(src, Options{Objects: []string{"Memory", "processor"}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := col.Scrape(context.Background(), Text)
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := db.Index("Memory")
	proc, _ := db.Index("Processor")
	if len(src.asked) != 1 || len(src.asked[0]) != 2 || src.asked[0][0] != mem || src.asked[0][1] != proc {
		t.Errorf("asked %v, want [[%d %d]]", src.asked, mem, proc)
	}
	if strings.Contains(string(body), "perfc_system_") || !strings.Contains(string(body), "perfc_memory_") {
		t.Errorf("exported objects other than those asked for")
	}

	src = windowsSource(t)
	col, err = NewCollector(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if body, err = col.Scrape(context.Background(), Text); err != nil {
			t.Fatal(err)
		}
	}
	if src.asked[0] != nil || len(src.asked[1]) != 7 {
		t.Errorf("asked %v: want Global, then the 7 objects but Process", src.asked)
	}
	if strings.Contains(string(body), "perfc_process_") {
		t.Errorf("Process exported by default")
	}

	if _, err := NewCollector(src, Options{Objects: []string{"No Such Object"}}); err == nil {
		t.Errorf("an unknown object was accepted")
	}
}

// TestSharedCollection checks that scrapes arriving while a collection
// runs share it: 8 concurrent scrapes, one collection.
func TestSharedCollection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := linuxSource(t)
		src.block = make(chan struct{})
		col, err := NewCollector(src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		bodies := make([][]byte, 8)
		for i := range bodies {
			wg.Go(func() {
				b, err := col.Scrape(context.Background(), OpenMetrics)
				if err != nil {
					t.Error(err)
				}
				bodies[i] = b
			})
		}
		synctest.Wait() // all 8 wait: one in Sample, seven on its flight
		close(src.block)
		wg.Wait()
		if src.calls != 1 {
			t.Errorf("%d collections for 8 concurrent scrapes, want 1", src.calls)
		}
		for i := range bodies {
			if !bytes.Equal(bodies[i], bodies[0]) {
				t.Errorf("scrape %d differs", i)
			}
		}
		// Later scrapes collect again.
		if _, err := col.Scrape(context.Background(), OpenMetrics); err != nil {
			t.Fatal(err)
		}
		if src.calls != 2 {
			t.Errorf("%d collections after a later scrape, want 2", src.calls)
		}
	})
}

func TestParseOptions(t *testing.T) {
	good := `{"prefix":"win_","objects":["Processor","Memory"],"instances":[{"object":"Processor","include":"[0-9]+","exclude":"0"}],"total":true,"formatted":true,"detail_level":200}`
	o, err := ParseOptions([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if o.Prefix != "win_" || len(o.Objects) != 2 || !o.Total || !o.Formatted || o.DetailLevel != 200 || o.Instances[0].Include != "[0-9]+" {
		t.Errorf("parsed %+v", o)
	}
	c, _ := o.compile()
	f := c.instances["processor"]
	for name, want := range map[string]bool{"1": true, "0": false, "12": true, "x1": false, "_Total": false} {
		if f.keep(name) != want {
			t.Errorf("filter keeps %q: %v, want %v", name, !want, want)
		}
	}
	for _, bad := range []string{
		`{"prefix":"9x"}`,
		`{"prefix":"a-b"}`,
		`{"objects":["A","a"]}`,
		`{"objects":[""]}`,
		`{"instances":[{"object":"P","include":"("}]}`,
		`{"instances":[{"object":"P","include":"a)|(b"}]}`,
		`{"instances":[{"object":""}]}`,
		`{"instances":[{"object":"P"},{"object":"p"}]}`,
		`{"unknown":1}`,
		`{"profile":"nope"}`,
		`{"profile":"windows_exporter","formatted":true}`,
		`{"profile":"windows_exporter","prefix":"perfc_"}`,
		`{} {}`,
		`[`,
	} {
		if _, err := ParseOptions([]byte(bad)); err == nil {
			t.Errorf("ParseOptions(%s) accepted", bad)
		}
	}
}

func FuzzParseOptions(f *testing.F) {
	f.Add([]byte(`{"prefix":"win_","objects":["Processor"],"instances":[{"object":"Processor","include":"[0-9]+"}],"total":true}`))
	f.Add([]byte(`{"exclude":[],"formatted":true,"detail_level":400}`))
	f.Add([]byte(`{"profile":"windows_exporter","objects":["Process"],"instances":[{"object":"Process","exclude":"Idle"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := ParseOptions(b)
		if err != nil {
			return
		}
		// What parses compiles, and builds a collector over any source.
		if _, err := o.compile(); err != nil {
			t.Fatalf("parsed options do not compile: %v", err)
		}
	})
}
