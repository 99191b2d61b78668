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
	"go.opentelemetry.io/otel/metric"
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
// OTLP: every Options.Interval the SDK's periodic reader collects, the
// Exporter takes one sample of the source for that collection, and the
// observations go out as one OTLP request. It is safe for concurrent use.
type Exporter struct {
	src      pdh.Source
	opts     Options
	log      *slog.Logger
	provider *sdkmetric.MeterProvider
	reader   *sdkmetric.PeriodicReader
	meter    metric.Meter
	exp      *loggedExporter

	objects []uint32              // asked of the source in every Sample
	export  map[uint32]*Selection // the objects exported, with their instance patterns
	rules   map[uint32][]rule     // the semantic-convention rules by object
	covered map[uint32]map[uint32]bool
	// instAttr is the attribute that identifies an instance in the
	// semantic-convention metrics of a Linux-only object (namedRules).
	instAttr map[uint32]string

	mu      sync.Mutex // guards what follows; held through a collection
	insts   map[string]*instrument
	generic map[genericKey]*genericMetric
	owner   map[string]genericKey // generic metric names taken, by whom
	pending []spec                // instruments seen in a sample, not yet registered
	busy    bool                  // a registration goroutine is running
	closed  bool
	gen     int // the registration whose callback samples
	reg     metric.Registration
	regDone chan struct{} // closed when the last registration started by a collection ends
	prevCPU map[string]cpuPrev
	starts  *startTable // of the last collection: boot and process starts
}

// instrument is one asynchronous instrument.
type instrument struct {
	spec
	obs        metric.Observable
	registered bool // part of the current callback registration
}

// genericKey identifies a counter of the generic mapping.
type genericKey struct {
	object, counter uint32
	typ             uint32
}

// genericMetric is a counter's generic metrics: its value and its base.
type genericMetric struct {
	plan          plan
	value, second spec // the instruments; second.name "" when none
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
		export:  map[uint32]*Selection{},
		rules:   map[uint32][]rule{},
		insts:   map[string]*instrument{},
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
	exp, err := newOTLPExporter(ctx, opts)
	if err != nil {
		return nil, err
	}
	e.exp = &loggedExporter{Exporter: &shapingExporter{Exporter: exp, e: e}, log: e.log}
	e.reader = sdkmetric.NewPeriodicReader(e.exp, sdkmetric.WithInterval(opts.Interval), sdkmetric.WithTimeout(opts.Timeout))
	res, err := e.resource(first)
	if err != nil {
		return nil, err
	}
	e.provider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader), sdkmetric.WithResource(res),
		sdkmetric.WithCardinalityLimit(max(opts.CardinalityLimit, 0)))
	e.meter = e.provider.Meter(scope)

	// Instruments: the semantic-convention ones of the exported objects,
	// and the generic ones of the counters of the first sample.
	e.useRules()
	if _, ok := e.export[objProcessor]; ok && opts.CPUUtilization {
		e.want(scCPUUtilization)
	}
	if first != nil {
		e.discover(first)
	}
	if err := e.register(); err != nil {
		e.provider.Shutdown(context.WithoutCancel(ctx))
		return nil, err
	}
	return e, nil
}

// useRules takes the semantic-convention rules of the exported objects:
// the table's, and the named rules of the Linux-only objects the source's
// title database knows.
func (e *Exporter) useRules() {
	rules := append(slices.Clone(semconvRules), resolveNamed(e.src.Titles())...)
	e.covered = covered(rules)
	e.instAttr = map[uint32]string{}
	for _, r := range rules {
		if _, ok := e.export[r.object]; ok {
			e.rules[r.object] = append(e.rules[r.object], r)
			e.want(r.metric)
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
		if !containsIndex(e.objects, idx) {
			e.objects = append(e.objects, idx)
		}
	}
	return first, nil
}

func containsIndex(s []uint32, v uint32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
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

// newOTLPExporter builds the OTLP exporter of the protocol asked for, with
// cumulative temporality whatever the environment says.
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

// want notes an instrument needed; it is created and registered by the
// next register.
func (e *Exporter) want(sp spec) {
	if _, ok := e.insts[sp.name]; ok {
		return
	}
	for _, p := range e.pending {
		if p.name == sp.name {
			return
		}
	}
	e.pending = append(e.pending, sp)
}

// register creates the pending instruments and registers one callback
// observing all instruments, replacing the previous registration. It must
// not run inside a collection (the SDK holds its lock there).
func (e *Exporter) register() error {
	e.mu.Lock()
	pending := e.pending
	e.pending = nil
	e.mu.Unlock()
	created := make([]*instrument, 0, len(pending))
	var errs []error
	for _, sp := range pending {
		in, err := e.newInstrument(sp)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		created = append(created, in)
	}
	e.mu.Lock()
	for _, in := range created {
		e.insts[in.name] = in
	}
	all := make([]metric.Observable, 0, len(e.insts))
	for _, in := range e.insts {
		all = append(all, in.obs)
	}
	gen := e.gen + 1
	old := e.reg
	e.mu.Unlock()

	reg, err := e.meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		return e.collect(ctx, o, gen)
	}, all...)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("OTLP export: registering the callback: %w", err))...)
	}
	e.mu.Lock()
	e.gen, e.reg = gen, reg
	for _, in := range e.insts {
		in.registered = true
	}
	e.mu.Unlock()
	if old != nil {
		if err := old.Unregister(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// newInstrument creates an asynchronous instrument.
func (e *Exporter) newInstrument(sp spec) (*instrument, error) {
	u, d := metric.WithUnit(sp.unit), metric.WithDescription(sp.desc)
	var obs metric.Observable
	var err error
	switch sp.kind {
	case kindIntCounter:
		obs, err = e.meter.Int64ObservableCounter(sp.name, u, d)
	case kindFloatCounter:
		obs, err = e.meter.Float64ObservableCounter(sp.name, u, d)
	case kindIntUpDown:
		obs, err = e.meter.Int64ObservableUpDownCounter(sp.name, u, d)
	case kindFloatUpDown:
		obs, err = e.meter.Float64ObservableUpDownCounter(sp.name, u, d)
	case kindIntGauge:
		obs, err = e.meter.Int64ObservableGauge(sp.name, u, d)
	case kindFloatGauge:
		obs, err = e.meter.Float64ObservableGauge(sp.name, u, d)
	default:
		err = fmt.Errorf("instrument kind %d", sp.kind)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP export: metric %s: %w", sp.name, err)
	}
	return &instrument{spec: sp, obs: obs}, nil
}

// ForceFlush collects (one sample) and exports now, waiting for the
// collector's answer within ctx.
func (e *Exporter) ForceFlush(ctx context.Context) error {
	e.waitRegister() // instruments found by the previous collection are registered first
	return e.provider.ForceFlush(ctx)
}

// Shutdown exports a last time and stops the export. Later calls do
// nothing.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	closed := e.closed
	e.closed = true
	e.mu.Unlock()
	if closed {
		return nil
	}
	e.waitRegister()
	return e.provider.Shutdown(ctx)
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

// Objects returns the title indexes asked of the source in every sample.
func (e *Exporter) Objects() []uint32 { return append([]uint32(nil), e.objects...) }

// loggedExporter logs failed exports (the SDK would hand them to
// OpenTelemetry's process-wide error handler only).
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
