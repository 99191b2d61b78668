package otlp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net"
	"net/http/httptest"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// want is an expected metric: its unit, kind, monotonicity and points.
type want struct {
	unit      string
	kind      string
	monotonic bool
	points    map[string]float64
}

func sum(unit string, points map[string]float64) want { return want{unit, "sum", true, points} }
func updown(unit string, points map[string]float64) want {
	return want{unit, "sum", false, points}
}
func gauge(unit string, points map[string]float64) want { return want{unit, "gauge", false, points} }

// expectFixture is what sample k of the fixture must export with
// Processes and CPUUtilization on, computed by hand from the constants of
// fixture (100 ns timers divided by 10^7, the AVERAGE_TIMER by the block's
// PerfFreq of 10^7).
func expectFixture(k float64) map[string]want {
	cpu := func(n, mode string) string { return "cpu.logical_number=" + n + ",cpu.mode=" + mode }
	disk := func(dir string) string { return "disk.io.direction=" + dir + ",system.device=sda" }
	nic := func(name, dir string) string {
		return "network.interface.name=" + name + ",network.io.direction=" + dir
	}
	proc := func(pid, mode string) string {
		s := "process.executable.name=bash,process.pid=" + pid
		if mode != "" {
			s = "cpu.mode=" + mode + "," + s
		}
		return s
	}
	inst := func(name string) string { return "perf.instance=" + name }
	wi := func(parent string) string { return "perf.instance=north,perf.parent=" + parent }
	errs := map[string]float64{nic("eth0", "transmit"): 4, nic("lo", "receive"): 0, nic("lo", "transmit"): 0}
	if k == 0 {
		errs[nic("eth0", "receive")] = 2 // a placeholder in sample 1
	}
	m := map[string]want{
		"system.cpu.time": sum("s", map[string]float64{
			cpu("0", "user"): 500 + 2*k, cpu("0", "system"): 270 + 2*k, cpu("0", "interrupt"): 30, cpu("0", "idle"): 900 + 6*k,
			cpu("1", "user"): 100, cpu("1", "system"): 50, cpu("1", "interrupt"): 0, cpu("1", "idle"): 800 + 10*k}),
		"system.memory.usage":           updown("By", map[string]float64{"system.memory.state=free": 2 << 30, "system.memory.state=cached": 1 << 30}),
		"system.memory.linux.available": updown("By", map[string]float64{"": 4 << 30}),
		"system.paging.faults":          sum("{fault}", map[string]float64{"system.paging.fault.type=major": 300, "system.paging.fault.type=minor": 4700 + 10*k}),
		"system.paging.operations":      sum("{operation}", map[string]float64{"system.paging.direction=in": 7, "system.paging.direction=out": 9}),
		"system.paging.usage": updown("By", map[string]float64{
			"system.device=/swap.img,system.paging.state=used": 1024 * (1000 + k), "system.device=/swap.img,system.paging.state=free": 1024 * (3000 - k)}),
		"perfc.paging_file.usage_peak":      gauge("", map[string]float64{inst("/swap.img"): 1500}),
		"perfc.paging_file.usage_peak.base": gauge("", map[string]float64{inst("/swap.img"): 4000}),
		"system.disk.io":                    sum("By", map[string]float64{disk("read"): 4096000, disk("write"): 8192000}),
		"system.disk.operations":            sum("{operation}", map[string]float64{disk("read"): 1000, disk("write"): 2000}),
		"system.disk.io_time":               sum("s", map[string]float64{"system.device=sda": 300}),
		"system.disk.operation_time":        sum("s", map[string]float64{disk("read"): 250, disk("write"): 100}),
		"system.disk.pending_operations":    updown("{operation}", map[string]float64{"system.device=sda": 3}),
		"system.network.io": sum("By", map[string]float64{nic("eth0", "receive"): 1e6 + 1000*k, nic("eth0", "transmit"): 2e6,
			nic("lo", "receive"): 5, nic("lo", "transmit"): 6}),
		"system.network.packet.count": sum("{packet}", map[string]float64{nic("eth0", "receive"): 1000, nic("eth0", "transmit"): 2000,
			nic("lo", "receive"): 7, nic("lo", "transmit"): 8}),
		"system.network.errors": sum("{error}", errs),
		"system.network.packet.dropped": sum("{packet}", map[string]float64{nic("eth0", "receive"): 1, nic("eth0", "transmit"): 3,
			nic("lo", "receive"): 0, nic("lo", "transmit"): 0}),
		"system.uptime":          gauge("s", map[string]float64{"": 3600 + 10*k}),
		"process.cpu.time":       sum("s", map[string]float64{proc("100", "user"): 1, proc("100", "system"): 2, proc("200", "user"): 4, proc("200", "system"): 0}),
		"process.memory.usage":   updown("By", map[string]float64{proc("100", ""): 1 << 20, proc("200", ""): 2 << 20}),
		"process.memory.virtual": updown("By", map[string]float64{proc("100", ""): 1 << 24, proc("200", ""): 2 << 24}),
		"process.thread.count":   updown("{thread}", map[string]float64{proc("100", ""): 1, proc("200", ""): 3}),

		// The generic mapping of the counters the table does not carry.
		"perfc.processor.interrupts":                sum("", map[string]float64{inst("0"): 1000 + 100*k, inst("1"): 10}),
		"perfc.memory.committed_bytes_in_use":       gauge("", map[string]float64{"": 1000}),
		"perfc.memory.committed_bytes_in_use.base":  gauge("", map[string]float64{"": 4000}),
		"perfc.memory.committed_bytes":              gauge("By", map[string]float64{"": 123456}),
		"perfc.physical_disk.avg_disk_queue_length": sum("", map[string]float64{inst("0 sda"): 5}),
		"perfc.network_interface.current_bandwidth": gauge("", map[string]float64{inst("eth0"): 1e9, inst("lo"): 0}),
		"perfc.system.processes":                    gauge("", map[string]float64{"": 42}),
		"perfc.system.context_switches":             sum("", map[string]float64{"": 777}),
		"perfc.process.processor_time":              sum("s", map[string]float64{inst("Idle"): 500, inst("bash"): 3, inst("bash#1"): 4}),
		"perfc.process.elapsed_time.start_time": gauge("s", map[string]float64{
			inst("Idle"): t0s - 3600, inst("bash"): t0s - 600, inst("bash#1"): t0s - 60}),
		"perfc.widget_factory.widgets_made":         sum("", map[string]float64{wi("1"): 100 + k, wi("0"): 200}),
		"perfc.widget_factory.widgets_made_2":       gauge("", map[string]float64{wi("1"): 5, wi("0"): 6}),
		"perfc.widget_factory.widget_mix":           sum("", map[string]float64{wi("1"): 30, wi("0"): 1}),
		"perfc.widget_factory.widget_mix.base":      sum("", map[string]float64{wi("1"): 60, wi("0"): 2}),
		"perfc.widget_factory.avg_widget_size":      sum("", map[string]float64{wi("1"): 900, wi("0"): 10}),
		"perfc.widget_factory.avg_widget_size.base": sum("", map[string]float64{wi("1"): 3, wi("0"): 1}),
		"perfc.widget_factory.busy":                 sum("s", map[string]float64{wi("1"): 2.5, wi("0"): 0}),
	}
	if k == 1 {
		m["system.cpu.utilization"] = gauge("1", map[string]float64{
			cpu("0", "user"): 0.2, cpu("0", "system"): 0.2, cpu("0", "interrupt"): 0, cpu("0", "idle"): 0.6,
			cpu("1", "user"): 0, cpu("1", "system"): 0, cpu("1", "interrupt"): 0, cpu("1", "idle"): 1})
	}
	return m
}

// compare checks the metrics of a request against the expectation: the
// same names, units, kinds, cumulative temporality for sums, and points.
func compare(t *testing.T, got map[string]*gotMetric, exp map[string]want) {
	t.Helper()
	for name, g := range got {
		if len(g.points) == 0 {
			continue // an instrument observed nothing this time
		}
		if _, ok := exp[name]; !ok {
			t.Errorf("unexpected metric %s %v", name, g.points)
		}
	}
	for _, name := range sortedKeys(exp) {
		w := exp[name]
		g, ok := got[name]
		if !ok {
			t.Errorf("metric %s missing", name)
			continue
		}
		if g.unit != w.unit || g.kind != w.kind || g.monotonic != w.monotonic {
			t.Errorf("metric %s: unit %q kind %s monotonic %v, want %q %s %v", name, g.unit, g.kind, g.monotonic, w.unit, w.kind, w.monotonic)
		}
		if g.kind == "sum" && g.temporality != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
			t.Errorf("metric %s: temporality %v, want cumulative", name, g.temporality)
		}
		if g.desc == "" {
			t.Errorf("metric %s: no description", name)
		}
		for _, k := range sortedKeys(w.points) {
			v, ok := g.points[k]
			if !ok {
				t.Errorf("metric %s: no point {%s}; got %v", name, k, g.points)
				continue
			}
			if !near(v, w.points[k]) {
				t.Errorf("metric %s {%s} = %v, want %v", name, k, v, w.points[k])
			}
		}
		for k, v := range g.points {
			if _, ok := w.points[k]; !ok {
				t.Errorf("metric %s: unexpected point {%s} = %v", name, k, v)
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// flush forces one collection and export, bounded by a deadline.
func flush(t *testing.T, e *Exporter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := e.ForceFlush(ctx); err != nil {
		t.Fatalf("ForceFlush: %v", err)
	}
}

func shutdown(t *testing.T, e *Exporter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestGRPCFixture exports the two samples of the fixture to a real OTLP
// gRPC MetricsService and checks every metric, unit, attribute and value
// against the hand-computed expectation, one sample per export.
func TestGRPCFixture(t *testing.T) {
	rcv, addr := startGRPC(t)
	src, w := fixture(t)
	e, err := New(context.Background(), src, Options{Endpoint: addr, Insecure: true, Interval: time.Hour,
		Processes: true, CPUUtilization: true, Headers: map[string]string{"x-tenant": "perfc-test"}})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, e)
	if n := src.samplesTaken(); n != 1 || src.Pos() != 0 {
		t.Fatalf("after New: %d samples taken, position %d; want the first sample peeked (1, 0)", n, src.Pos())
	}
	for k := range 2 {
		flush(t, e)
		n, req, hdr := rcv.last()
		if n != k+1 {
			t.Fatalf("export %d: the receiver has %d requests", k+1, n)
		}
		if hdr["x-tenant"] != "perfc-test" {
			t.Errorf("export %d: header x-tenant = %q", k+1, hdr["x-tenant"])
		}
		res, got := flatten(t, req)
		if res != "host.arch="+runtime.GOARCH+",host.name=TESTBOX,os.type="+runtime.GOOS+",service.name=perfc,service.version=(devel)" {
			t.Errorf("resource %s", res)
		}
		t.Run(fmt.Sprintf("sample%d", k), func(t *testing.T) { compare(t, got, expectFixture(float64(k))) })
	}
	if n := src.samplesTaken(); n != 3 {
		t.Errorf("%d samples taken for 2 exports (and New's peek), want 3: one per collection", n)
	}
	// New's peek asked for the Global objects (none named); every
	// collection then asked for the exported objects only, the same ones.
	if len(src.asked[0]) != 0 {
		t.Errorf("New's first sample asked for %v, want the Global objects (nil)", src.asked[0])
	}
	wantObjs := slices.Sorted(slices.Values([]uint32{objProcessor, objMemory, objPagingFile, objPhysical, objNetwork, objSystem, objProcess, w.object}))
	for i, a := range src.asked[1:] {
		if got := slices.Sorted(slices.Values(a)); !slices.Equal(got, wantObjs) {
			t.Errorf("Sample %d asked for %v, want %v", i, got, wantObjs)
		}
	}
}

// TestHTTPSelection exports over OTLP/HTTP with a selection: only Memory
// and the instances of PhysicalDisk matching "0 s*", with the _Total
// instances; nothing else may arrive, and the samples ask for those two
// objects only.
func TestHTTPSelection(t *testing.T) {
	rcv, base := startHTTP(t)
	src, _ := fixture(t)
	var sels []Selection
	for _, s := range []string{"Memory", "PhysicalDisk(0 s*)", "Network Interface(wlan*)", "PhysicalDisk(_Total)"} {
		sel, err := ParseSelection(s)
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, sel)
	}
	e, err := New(context.Background(), src, Options{Protocol: HTTPProtobuf, Endpoint: base + "/v1/metrics", Interval: time.Hour,
		Objects: sels, Totals: true, Headers: map[string]string{"Authorization": "Bearer s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, e)
	flush(t, e)
	n, req, hdr := rcv.last()
	if n != 1 {
		t.Fatalf("the receiver has %d requests, want 1", n)
	}
	if hdr["authorization"] != "Bearer s3cret" {
		t.Errorf("Authorization header %q", hdr["authorization"])
	}
	_, got := flatten(t, req)
	var names []string
	for name, g := range got {
		if len(g.points) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	wantNames := []string{"perfc.memory.committed_bytes", "perfc.memory.committed_bytes_in_use", "perfc.memory.committed_bytes_in_use.base",
		"perfc.physical_disk.avg_disk_queue_length", "system.disk.io", "system.disk.io_time", "system.disk.operation_time",
		"system.disk.operations", "system.disk.pending_operations", "system.memory.linux.available", "system.memory.usage",
		"system.paging.faults", "system.paging.operations"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("metrics\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(wantNames, "\n"))
	}
	// _Total is exported by the generic mapping only (Totals), never as a
	// semantic-convention device.
	q := got["perfc.physical_disk.avg_disk_queue_length"]
	if q == nil || len(q.points) != 2 || q.points["perf.instance=_Total"] != 5 {
		t.Errorf("avg_disk_queue_length points %v, want 0 sda and _Total at 5", q)
	}
	if io := got["system.disk.io_time"]; io == nil || len(io.points) != 1 {
		t.Errorf("system.disk.io_time %v: want the one disk, no _Total", io)
	}
	for i, a := range src.asked {
		if got := slices.Sorted(slices.Values(a)); !slices.Equal(got, []uint32{objMemory, objPhysical, objNetwork}) {
			t.Errorf("Sample %d asked for %v", i, got)
		}
	}
}

// TestLateObject: an object that appears after New (a provider started
// later) is exported once a sample holds it; each collection still takes
// exactly one sample.
func TestLateObject(t *testing.T) {
	rcv, addr := startGRPC(t)
	src, _ := fixtureOf(t, 3, 1)
	e, err := New(context.Background(), src, Options{Endpoint: addr, Insecure: true, Interval: time.Hour,
		Objects: []Selection{{Object: "Memory"}, {Object: "Widget Factory"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, e)
	widgets := func() *gotMetric {
		_, req, _ := rcv.last()
		_, got := flatten(t, req)
		if got["system.memory.usage"] == nil {
			t.Error("Memory missing")
		}
		return got["perfc.widget_factory.widgets_made"]
	}
	flush(t, e) // sample 0: no Widget Factory
	if m := widgets(); m != nil && len(m.points) > 0 {
		t.Errorf("sample 0 has no Widget Factory, got %v", m.points)
	}
	flush(t, e) // sample 1: there
	flush(t, e) // sample 2
	m := widgets()
	if m == nil || m.points["perf.instance=north,perf.parent=1"] != 102 {
		t.Errorf("sample 2: widgets_made %v, want north/1 at 102", m)
	}
	if n := src.samplesTaken(); n != 4 {
		t.Errorf("%d samples for New and 3 exports, want 4", n)
	}
}

// TestRecordingEnds: after the last sample of a recording the export goes
// on without values (no error, no repeated sample), and Shutdown is
// idempotent.
func TestRecordingEnds(t *testing.T) {
	rcv, addr := startGRPC(t)
	src, _ := fixture(t)
	e, err := New(context.Background(), src, Options{Endpoint: "http://" + addr, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		flush(t, e)
	}
	shutdown(t, e)
	shutdown(t, e)
	n, req, _ := rcv.last()
	if n < 2 {
		t.Fatalf("%d requests, want at least the two samples'", n)
	}
	_, got := flatten(t, req)
	for name, g := range got {
		if len(g.points) > 0 {
			t.Errorf("after the recording ended, %s still has points %v", name, g.points)
		}
	}
}

// TestNewErrors: what New refuses, with messages that name the thing.
func TestNewErrors(t *testing.T) {
	src, _ := fixture(t)
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown object", Options{Objects: []Selection{{Object: "No Such Object"}}}, `object "No Such Object"`},
		{"unknown index", Options{Objects: []Selection{{Object: "4294967295"}}}, "object 4294967295"},
		{"bad endpoint", Options{Endpoint: "nohostport"}, `OTLP endpoint "nohostport"`},
		{"bad scheme", Options{Endpoint: "ftp://x:1"}, `scheme "ftp"`},
		{"grpc path", Options{Endpoint: "http://x:1/v1/metrics"}, "gRPC endpoint has no path"},
		{"credentials in URL", Options{Protocol: HTTPProtobuf, Endpoint: "https://u:p@x:1"}, "user, query or fragment"},
		{"bad protocol", Options{Protocol: "carrier-pigeon", Endpoint: "x:1"}, `protocol "carrier-pigeon"`},
		{"negative interval", Options{Interval: -time.Second}, "negative interval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(context.Background(), src, tc.opts)
			if err == nil {
				shutdown(t, e)
				t.Fatalf("New succeeded, want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestRun: Run exports until its context ends, then shuts down with a
// last export.
func TestRun(t *testing.T) {
	rcv, addr := startGRPC(t)
	src, _ := fixture(t)
	e, err := New(context.Background(), src, Options{Endpoint: addr, Insecure: true, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("Run did not return after its context ended")
	}
	n, req, _ := rcv.last()
	if n != 1 {
		t.Fatalf("%d requests after Run, want the last export", n)
	}
	if _, got := flatten(t, req); len(got["system.cpu.time"].points) != 8 {
		t.Errorf("last export: system.cpu.time %v", got["system.cpu.time"])
	}
	if err := e.ForceFlush(context.Background()); err == nil {
		t.Error("ForceFlush after Run's shutdown succeeded")
	}
}

// TestCollectorDown: an export to a collector that is not there fails
// within the timeout, says so to the caller and in the log, and the next
// export works once the collector is there.
func TestCollectorDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var logged strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logged, mu: &mu}, nil))
	src, _ := fixture(t)
	e, err := New(context.Background(), src, Options{Protocol: HTTPProtobuf, Endpoint: "http://" + addr, Interval: time.Hour,
		Timeout: 2 * time.Second, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := e.Shutdown(ctx); err == nil {
			t.Error("Shutdown's last export to nowhere succeeded")
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := e.ForceFlush(ctx); err == nil {
		t.Fatal("ForceFlush to nowhere succeeded")
	}
	mu.Lock()
	log := logged.String()
	mu.Unlock()
	if !strings.Contains(log, "OTLP export failed") {
		t.Errorf("log %q does not report the failed export", log)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestTLS exports over TLS to both receivers, trusting the receiver's
// certificate through Options.TLS; without it the export is refused.
func TestTLS(t *testing.T) {
	hrcv := &httpReceiver{}
	hsrv := httptest.NewUnstartedServer(hrcv)
	hsrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the test
	hsrv.StartTLS()
	defer hsrv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(hsrv.Certificate())
	clientTLS := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}

	// The gRPC receiver serves the same certificate (127.0.0.1).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gsrv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: hsrv.TLS.Certificates, MinVersion: tls.VersionTLS12})))
	grcv := &grpcReceiver{}
	colmetricpb.RegisterMetricsServiceServer(gsrv, grcv)
	served := make(chan struct{})
	go func() { defer close(served); gsrv.Serve(ln) }()
	defer func() { gsrv.Stop(); <-served }()

	cases := []struct {
		name  string
		opts  Options
		count func() int
	}{
		{"http", Options{Protocol: HTTPProtobuf, Endpoint: hsrv.URL}, func() int { n, _, _ := hrcv.last(); return n }},
		{"grpc", Options{Endpoint: "https://" + ln.Addr().String()}, func() int { n, _, _ := grcv.last(); return n }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, trusted := range []bool{false, true} {
				src, _ := fixture(t)
				o := tc.opts
				o.Interval, o.Timeout = time.Hour, time.Second // the refusal is retried until the timeout
				if trusted {
					o.TLS, o.Timeout = clientTLS, time.Minute
				}
				e, err := New(context.Background(), src, o)
				if err != nil {
					t.Fatal(err)
				}
				before := tc.count()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				err = e.ForceFlush(ctx)
				cancel()
				if trusted && (err != nil || tc.count() != before+1) {
					t.Errorf("trusted: ForceFlush %v, %d requests (was %d)", err, tc.count(), before)
				}
				if !trusted && (err == nil || tc.count() != before) {
					t.Errorf("untrusted certificate: ForceFlush %v, %d requests (was %d); want refused", err, tc.count(), before)
				}
				sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
				e.Shutdown(sctx)
				scancel()
			}
		})
	}
}

// TestCardinality: every instance of a large object is exported (the
// SDK's default limit of 2000 points would fold the rest), unless
// Options.CardinalityLimit says otherwise.
func TestCardinality(t *testing.T) {
	db := titles.English()
	obj, _ := db.Register("Many", "")
	ctr, _ := db.Register("Level", "")
	var insts []instDef
	for i := range 2500 {
		insts = append(insts, instDef{name: "i" + strconv.Itoa(i), vals: []uint64{uint64(i)}})
	}
	blk := buildBlock(t, perfdata.Header{PerfTime: t0, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: "T"}, []objDef{{
		spec: perfdata.ObjectSpec{NameIndex: obj}, counters: []perfdata.CounterSpec{c(ctr, ct.PERF_COUNTER_RAWCOUNT)}, instances: insts}})
	for _, tc := range []struct {
		limit, want int
	}{{0, 2500}, {100, 100}} {
		rcv, addr := startGRPC(t)
		src := &memSource{db: db, samples: [][]byte{blk}}
		e, err := New(context.Background(), src, Options{Endpoint: addr, Insecure: true, Interval: time.Hour, CardinalityLimit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		flush(t, e)
		_, req, _ := rcv.last()
		shutdown(t, e)
		_, got := flatten(t, req)
		m := got["perfc.many.level"]
		if m == nil {
			t.Fatalf("limit %d: no metric", tc.limit)
		}
		if len(m.points) != tc.want {
			t.Errorf("limit %d: %d points, want %d", tc.limit, len(m.points), tc.want)
		}
	}
}

// TestPeriodic: the export runs every Options.Interval, one sample each,
// and Shutdown stops it after a last export.
func TestPeriodic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, _ := fixtureOf(t, 5, 0)
		k := &keepExporter{}
		e, err := New(context.Background(), src, Options{Exporter: k, Interval: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2*time.Minute + time.Second)
		synctest.Wait()
		k.mu.Lock()
		n := len(k.rms)
		k.mu.Unlock()
		if n != 2 || src.samplesTaken() != 3 {
			t.Errorf("after 2 intervals: %d exports, %d samples; want 2 and 3 (New's and one per export)", n, src.samplesTaken())
		}
		shutdown(t, e)
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		k.mu.Lock()
		n = len(k.rms)
		k.mu.Unlock()
		if n != 3 {
			t.Errorf("%d exports after Shutdown and 5 more intervals, want 3 (its last one)", n)
		}
	})
}
