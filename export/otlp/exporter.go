package otlp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/grpc/credentials"

	"github.com/perfcounters/perfcounters/internal/version"
	"github.com/perfcounters/perfcounters/pdh"
)

// scope is the instrumentation scope of every metric.
const scope = "github.com/perfcounters/perfcounters/export/otlp"

// Exporter pushes a source's counters to an OpenTelemetry collector over
// OTLP: every Options.Interval it takes one sample of the source, builds
// the metric data of that sample and hands it to the OTLP exporter. It is
// safe for concurrent use.
type Exporter struct {
	src     pdh.Source
	opts    Options
	log     *slog.Logger
	exp     *loggedExporter
	res     *resource.Resource // the host's
	created time.Time          // the start of gauges, and of sums whose sample gives none

	objects []uint32              // asked of the source in every Sample
	export  map[uint32]*Selection // the objects exported, with their instance patterns
	rules   map[uint32][]rule     // the semantic-convention rules by object
	covered map[uint32]map[uint32]bool
	// instAttr is the attribute that identifies an instance in the
	// semantic-convention metrics of a Linux-only object (namedRules).
	instAttr map[uint32]string

	stop context.CancelFunc // ends the periodic export
	done chan struct{}      // closed when it has ended

	mu      sync.Mutex // guards what follows; held through a collection and its export
	closed  bool
	generic map[genericKey]*genericMetric
	owner   map[string]genericKey // generic metric names taken, by whom
	prevCPU map[string]cpuPrev
	cmds    map[procKey]cmdLine // command lines read, by process
}

// genericKey identifies a counter of the generic mapping.
type genericKey struct {
	object, counter uint32
	typ             uint32
}

// genericMetric is a counter's generic metrics: its value and its base.
type genericMetric struct {
	plan          plan
	value, second spec // the metrics; second.name "" when none
}

// cpuPrev is a CPU mode's time at the previous sample, for utilization.
type cpuPrev struct {
	seconds, clock float64
}

// New builds an Exporter of src's counters and starts its periodic
// export. It takes a first sample to learn which objects and counters
// the source has (a recorded source is put back where it was) and
// resolves Options.Objects in the source's title database; an unknown
// object, a bad endpoint or an exporter that cannot be built is an error.
// The export goes on until Shutdown (or Run's context ends).
func New(ctx context.Context, src pdh.Source, opts Options) (*Exporter, error) {
	if src == nil {
		return nil, errors.New("OTLP export: no data source")
	}
	if opts.Interval < 0 || opts.Timeout < 0 {
		return nil, fmt.Errorf("OTLP export: negative interval %v or timeout %v", opts.Interval, opts.Timeout)
	}
	if opts.Interval == 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.ServiceName == "" {
		opts.ServiceName = DefaultService
	}
	e := &Exporter{
		src:     src,
		opts:    opts,
		log:     opts.Logger,
		created: time.Now(),
		export:  map[uint32]*Selection{},
		rules:   map[uint32][]rule{},
		generic: map[genericKey]*genericMetric{},
		owner:   map[string]genericKey{},
		prevCPU: map[string]cpuPrev{},
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	first, err := e.selectObjects(ctx)
	if err != nil {
		return nil, err
	}
	if e.res, err = e.resource(first); err != nil {
		return nil, err
	}
	exp, err := newOTLPExporter(ctx, opts)
	if err != nil {
		return nil, err
	}
	e.exp = &loggedExporter{Exporter: exp, log: e.log}
	e.useRules()
	if first != nil {
		// The generic metrics are named in the order of the first sample.
		e.walk(first, nil)
	}
	loop, stop := context.WithCancel(context.Background())
	e.stop, e.done = stop, make(chan struct{})
	go e.run(loop)
	return e, nil
}

// run exports every Options.Interval until loop ends.
func (e *Exporter) run(loop context.Context) {
	defer close(e.done)
	t := time.NewTicker(e.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			e.mu.Lock()
			if !e.closed {
				e.collectAndExport(loop) // failures are logged
			}
			e.mu.Unlock()
		case <-loop.Done():
			return
		}
	}
}

// useRules takes the semantic-convention rules of the exported objects:
// the table's, and the named rules of the Linux-only objects the source's
// title database knows.
func (e *Exporter) useRules() {
	rules := append(tableRules(e.src.Titles()), resolveNamed(e.src.Titles())...)
	e.covered = covered(rules)
	e.instAttr = map[uint32]string{}
	for _, r := range rules {
		if _, ok := e.export[r.object]; ok {
			e.rules[r.object] = append(e.rules[r.object], r)
			if r.instAttr != "" {
				e.instAttr[r.object] = r.instAttr
			}
		}
	}
}

// selectObjects resolves the selection into title indexes and takes the
// first sample (with the objects asked for).
func (e *Exporter) selectObjects(ctx context.Context) (*pdh.Sample, error) {
	db := e.src.Titles()
	for _, sel := range e.opts.Objects {
		idx, err := objectIndex(db, sel.Object)
		if err != nil {
			return nil, err
		}
		if prev, ok := e.export[idx]; ok {
			// Named twice: the instances of both (none is every one).
			if len(prev.Instances) > 0 && len(sel.Instances) > 0 {
				prev.Instances = append(prev.Instances, sel.Instances...)
			} else {
				prev.Instances = nil
			}
			continue
		}
		s := sel
		e.export[idx] = &s
		e.objects = append(e.objects, idx)
	}
	global := len(e.objects) == 0
	if e.opts.Processes {
		if _, ok := e.export[objProcess]; !ok {
			e.export[objProcess] = &Selection{Object: "Process"}
			if !global {
				e.objects = append(e.objects, objProcess)
			}
		}
	}
	// Per-process and per-thread objects are exported only as Process,
	// and only when asked for (Options.Processes).
	perProcess := map[uint32]bool{objProcess: true, objThread: true}
	if i, ok := db.Index("Process V2"); ok {
		perProcess[i] = true
	}
	exportGlobal := func(idx uint32) {
		if _, ok := e.export[idx]; !ok && !perProcess[idx] {
			e.export[idx] = &Selection{Object: db.Name(idx)}
		}
	}
	if l, ok := e.src.(pdh.ObjectLister); ok && global && e.src.Recorded() == nil {
		// A live source that names its objects: the first sample reads
		// only those exported, never every process and thread.
		if list, complete := l.Objects(false); complete {
			for _, idx := range list {
				exportGlobal(idx)
			}
			global = false
			e.objects = e.objects[:0]
			for idx := range e.export {
				e.objects = append(e.objects, idx)
			}
			slices.Sort(e.objects)
		}
	}
	first, err := peek(ctx, e.src, e.objects)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("OTLP export: first sample: %w", err)
	}
	if global && first != nil {
		// The Global objects of the first sample are the ones exported.
		for _, blk := range first.Blocks {
			for it := blk.Objects(); it.Next(); {
				exportGlobal(it.Object().NameIndex())
			}
		}
	}
	for idx := range e.export {
		if !slices.Contains(e.objects, idx) {
			e.objects = append(e.objects, idx)
		}
	}
	return first, nil
}

// objectIndex resolves an object's name (or decimal title index).
func objectIndex(db interface {
	Index(string) (uint32, bool)
	Name(uint32) string
}, name string) (uint32, error) {
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		if db.Name(uint32(n)) == "" {
			return 0, fmt.Errorf("OTLP export: object %s: no such title index in the source's titles", name)
		}
		return uint32(n), nil
	}
	idx, ok := db.Index(name)
	if !ok {
		return 0, fmt.Errorf("OTLP export: object %q: not a name in the source's titles", name)
	}
	return idx, nil
}

// peek takes a sample without using one up: a recorded source is put back
// where it was (at its end, its last sample is shown).
func peek(ctx context.Context, src pdh.Source, objects []uint32) (*pdh.Sample, error) {
	r := src.Recorded()
	if r == nil {
		return src.Sample(ctx, objects)
	}
	if r.Len() == 0 {
		return nil, io.EOF
	}
	pos := r.Pos()
	if pos >= r.Len() {
		if err := r.Seek(r.Len() - 1); err != nil {
			return nil, err
		}
	}
	s, err := src.Sample(ctx, objects)
	if serr := r.Seek(pos); err == nil && serr != nil {
		err = serr
	}
	return s, err
}

// resource describes the exporting host, under the schema URL of the
// semantic conventions the metrics follow (1.43): service.name,
// service.version (the program's, internal/version: a release build's
// stamp, else the module's version as the Go toolchain recorded it;
// unless Options.ServiceVersion), host.name, os.type and host.arch (of
// this program's host), then OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME (Options.Getenv), then Options.Resource: a later
// source overrides an earlier one's attribute.
func (e *Exporter) resource(first *pdh.Sample) (*resource.Resource, error) {
	host := e.opts.HostName
	if host == "" && first != nil && len(first.Blocks) > 0 {
		host = first.Blocks[0].Header().SystemName
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", e.opts.ServiceName),
		attribute.String("service.version", cmp.Or(e.opts.ServiceVersion, version.Current().Version)),
		attribute.String("os.type", osType(runtime.GOOS)),
		attribute.String("host.arch", hostArch(runtime.GOARCH))}
	if host != "" {
		attrs = append(attrs, attribute.String("host.name", host))
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, attrs...)
	getenv := e.opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	env, err := parseResourceAttributes(getenv("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return nil, fmt.Errorf("OTLP export: OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	if n := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); n != "" {
		env = append(env, attribute.String("service.name", n))
	}
	for k, v := range e.opts.Resource {
		env = append(env, attribute.String(k, v))
	}
	return resource.Merge(res, resource.NewWithAttributes(semconv.SchemaURL, env...))
}

// parseResourceAttributes reads OTEL_RESOURCE_ATTRIBUTES: key=value pairs
// separated by commas, values percent-encoded (the OpenTelemetry
// specification's format, as the SDK reads it).
func parseResourceAttributes(s string) ([]attribute.KeyValue, error) {
	var out []attribute.KeyValue
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for i, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("item %d (%q): not key=value", i+1, pair)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("item %d (key %q): %v", i+1, k, err)
		}
		out = append(out, attribute.String(k, val))
	}
	return out, nil
}

// osType is os.type's value for a GOOS (the semantic conventions' list
// spells these as Go does, but for z/OS).
func osType(goos string) string {
	if goos == "zos" {
		return "z_os"
	}
	return goos
}

// hostArch is host.arch's value for a GOARCH.
func hostArch(goarch string) string {
	switch goarch {
	case "386":
		return "x86"
	case "arm":
		return "arm32"
	}
	return goarch
}

// newOTLPExporter builds the OTLP exporter of the protocol asked for. The
// data handed to it is cumulative whatever the environment says; the
// temporality selector says so too.
func newOTLPExporter(ctx context.Context, o Options) (sdkmetric.Exporter, error) {
	if o.Exporter != nil {
		return o.Exporter, nil
	}
	proto := o.Protocol
	if proto == "" {
		proto = GRPC
	}
	host, path, insecure, err := parseEndpoint(o.Endpoint, proto)
	if err != nil {
		return nil, err
	}
	insecure = insecure || o.Insecure
	cumulative := func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.CumulativeTemporality }
	switch proto {
	case GRPC:
		gopts := []otlpmetricgrpc.Option{
			otlpmetricgrpc.WithEndpoint(host),
			otlpmetricgrpc.WithTimeout(o.Timeout),
			otlpmetricgrpc.WithTemporalitySelector(cumulative),
		}
		if insecure {
			gopts = append(gopts, otlpmetricgrpc.WithInsecure())
		} else if o.TLS != nil {
			gopts = append(gopts, otlpmetricgrpc.WithTLSCredentials(credentials.NewTLS(o.TLS.Clone())))
		}
		if len(o.Headers) > 0 {
			gopts = append(gopts, otlpmetricgrpc.WithHeaders(o.Headers))
		}
		exp, err := otlpmetricgrpc.New(ctx, gopts...)
		if err != nil {
			return nil, fmt.Errorf("OTLP/gRPC exporter to %s: %w", host, err)
		}
		return exp, nil
	case HTTPProtobuf:
		hopts := []otlpmetrichttp.Option{
			otlpmetrichttp.WithEndpoint(host),
			otlpmetrichttp.WithURLPath(path),
			otlpmetrichttp.WithTimeout(o.Timeout),
			otlpmetrichttp.WithTemporalitySelector(cumulative),
		}
		if insecure {
			hopts = append(hopts, otlpmetrichttp.WithInsecure())
		} else if o.TLS != nil {
			hopts = append(hopts, otlpmetrichttp.WithTLSClientConfig(o.TLS.Clone()))
		}
		if len(o.Headers) > 0 {
			hopts = append(hopts, otlpmetrichttp.WithHeaders(o.Headers))
		}
		exp, err := otlpmetrichttp.New(ctx, hopts...)
		if err != nil {
			return nil, fmt.Errorf("OTLP/HTTP exporter to %s%s: %w", host, path, err)
		}
		return exp, nil
	}
	return nil, fmt.Errorf("OTLP protocol %q: want grpc or http/protobuf", proto)
}

// parseEndpoint splits Options.Endpoint into host:port, the URL path (for
// HTTP) and whether the scheme asks for plain text.
func parseEndpoint(ep string, proto Protocol) (host, path string, insecure bool, err error) {
	path = "/v1/metrics"
	if ep == "" {
		if proto == HTTPProtobuf {
			return "localhost:4318", path, false, nil
		}
		return "localhost:4317", path, false, nil
	}
	if strings.Contains(ep, "://") {
		u, err := url.Parse(ep)
		if err != nil {
			return "", "", false, fmt.Errorf("OTLP endpoint %q: %v", ep, err)
		}
		switch u.Scheme {
		case "http":
			insecure = true
		case "https":
		default:
			return "", "", false, fmt.Errorf("OTLP endpoint %q: scheme %q, want http or https", ep, u.Scheme)
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return "", "", false, fmt.Errorf("OTLP endpoint %q: user, query or fragment not allowed (headers carry credentials)", ep)
		}
		if u.Path != "" && u.Path != "/" {
			if proto == GRPC {
				return "", "", false, fmt.Errorf("OTLP endpoint %q: a gRPC endpoint has no path", ep)
			}
			path = u.Path
		}
		ep = u.Host
		if u.Port() == "" {
			port := "4317"
			if proto == HTTPProtobuf {
				port = "4318"
			}
			ep = net.JoinHostPort(u.Hostname(), port)
		}
	}
	if _, _, err := net.SplitHostPort(ep); err != nil {
		return "", "", false, fmt.Errorf("OTLP endpoint %q: want host:port or a URL: %v", ep, err)
	}
	return ep, path, insecure, nil
}

// errShutdown is ForceFlush's error after Shutdown.
var errShutdown = errors.New("OTLP export: shut down")

// ForceFlush collects (one sample) and exports now, waiting for the
// collector's answer within ctx (within Options.Timeout where ctx has no
// deadline).
func (e *Exporter) ForceFlush(ctx context.Context) error {
	ctx, cancel := e.bounded(ctx)
	defer cancel()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errShutdown
	}
	err := e.collectAndExport(ctx)
	e.mu.Unlock()
	if err != nil {
		return err
	}
	return e.exp.ForceFlush(ctx)
}

// Shutdown stops the periodic export, exports a last time and shuts the
// OTLP exporter down. Later calls do nothing.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	closed := e.closed
	e.closed = true
	e.mu.Unlock()
	if closed {
		return nil
	}
	ctx, cancel := e.bounded(ctx)
	defer cancel()
	e.stop()
	<-e.done
	e.mu.Lock()
	err := e.collectAndExport(ctx)
	e.mu.Unlock()
	return cmp.Or(err, e.exp.Shutdown(ctx))
}

// bounded is ctx within Options.Timeout where it has no deadline.
func (e *Exporter) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, e.opts.Timeout)
}

// ShutdownTimeout bounds Run's last export: a person who stops the program
// (CTRL+C, systemctl stop) waits at most this long for a collector that
// does not answer, not a whole export timeout with its retries.
const ShutdownTimeout = 5 * time.Second

// Run exports until ctx ends, then shuts down (with Options.Timeout, at
// most ShutdownTimeout, for the last export) and returns Shutdown's error.
func (e *Exporter) Run(ctx context.Context) error {
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(e.opts.Timeout, ShutdownTimeout))
	defer cancel()
	return e.Shutdown(sctx)
}

// loggedExporter logs failed exports.
type loggedExporter struct {
	sdkmetric.Exporter
	log *slog.Logger
}

// Export sends rm and logs a failure.
func (x *loggedExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := x.Exporter.Export(ctx, rm)
	if err != nil {
		x.log.Warn("OTLP export failed", "err", err)
	}
	return err
}
