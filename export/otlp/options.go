package otlp

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Protocol is the OTLP transport.
type Protocol string

// The OTLP transports, with the names of OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	GRPC         Protocol = "grpc"          // OTLP/gRPC, port 4317 by default
	HTTPProtobuf Protocol = "http/protobuf" // OTLP/HTTP with protobuf bodies, port 4318 by default
)

// ParseProtocol reads a protocol name: "grpc", or "http/protobuf" (also
// "http"). The empty string is GRPC.
func ParseProtocol(s string) (Protocol, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "grpc":
		return GRPC, nil
	case "http", "http/protobuf":
		return HTTPProtobuf, nil
	}
	return "", fmt.Errorf("OTLP protocol %q: want grpc or http/protobuf", s)
}

// Defaults of Options.
const (
	DefaultInterval = 60 * time.Second // the OpenTelemetry SDK's default export interval
	DefaultTimeout  = 30 * time.Second // the SDK's default export timeout
	DefaultService  = "perfc"          // service.name of the resource
)

// Options configure an Exporter. The zero value pushes the Global objects
// of the source (all but the costly ones, such as Process) over OTLP/gRPC
// to localhost:4317 with TLS every minute.
type Options struct {
	// Protocol is GRPC (default) or HTTPProtobuf.
	Protocol Protocol
	// Endpoint is where the collector listens: "host:port", or a URL
	// ("https://collector:4318/v1/metrics"; http:// implies Insecure).
	// For HTTP a URL without a path posts to /v1/metrics. Empty means
	// localhost:4317 (gRPC) or localhost:4318 (HTTP).
	Endpoint string
	// Insecure sends without TLS (plain HTTP, or gRPC without transport
	// security). It is never the default.
	Insecure bool
	// TLS is the client TLS configuration (a CA pool, a client
	// certificate for mTLS); nil means the system roots. Ignored when
	// Insecure.
	TLS *tls.Config
	// Headers are sent with every export (an API key, a bearer token);
	// ParseHeaders reads OTEL_EXPORTER_OTLP_HEADERS' format.
	Headers map[string]string
	// Interval is the time between exports (DefaultInterval when 0).
	// Each export takes one sample of the source.
	Interval time.Duration
	// Timeout bounds one collection and export (DefaultTimeout when 0).
	Timeout time.Duration

	// Objects selects the objects exported and, for each, the instances
	// (ParseSelection reads "PhysicalDisk(sd*|nvme*)"). Empty means the
	// source's Global objects, as present in the first sample.
	Objects []Selection
	// Processes adds the Process object: process.cpu.time and
	// process.memory.usage per process, and the generic metrics of its
	// other counters. Per-process series are many, so it is off by
	// default; naming Process in Objects has the same effect.
	Processes bool
	// Totals exports the _Total instances of multi-instance objects,
	// which the semantic conventions and most backends compute from the
	// parts themselves. Off by default.
	Totals bool
	// CPUUtilization adds system.cpu.utilization, a gauge computed from
	// two consecutive samples (none on the first export).
	CPUUtilization bool
	// CardinalityLimit is the most points one metric may have in one
	// export; beyond it the rest are folded into one point with the
	// attribute otel.metric.overflow=true (sums added, a gauge's last
	// value), as the OpenTelemetry SDK folds them. 0 means no limit (the
	// SDK's default of 2000 would fold the processes of a busy host): the
	// selection of objects and instances is what bounds the series.
	CardinalityLimit int
	// GenericAll also exports the generic perfc.* metric of counters that
	// a semantic-convention metric already carries (by default each
	// counter is exported once).
	GenericAll bool

	// ServiceName is the resource's service.name (DefaultService when
	// empty); HostName its host.name (the source's system name from the
	// first sample when empty). Resource adds further resource
	// attributes.
	ServiceName string
	HostName    string
	Resource    map[string]string
	// ServiceVersion is the resource's service.version; empty is the
	// module version the Go toolchain stamped ("(devel)" without one).
	ServiceVersion string
	// Getenv reads OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, which
	// add to and override the resource's attributes (Options.Resource
	// overrides them in turn); nil is os.Getenv.
	Getenv func(string) string

	// ProcessResources puts each process's metrics under a resource of
	// its own (the host's attributes with process.pid,
	// process.executable.name, process.creation.time where the sample
	// gives the start and, where CommandLine reads it,
	// process.command_line), as the semantic conventions model
	// processes; by default they are points of the host's resource with
	// process.pid and process.executable.name as attributes. Each
	// process's resource is one more export request per interval (the
	// SDK's OTLP exporters send one resource a request; at most 8 go at
	// once).
	ProcessResources bool
	// CommandLine reads a process's command line for process.command_line
	// (ProcCommandLine reads this host's /proc); nil, or ok false, leaves
	// the attribute out. It is asked once per process (pid and start).
	CommandLine func(pid int64) (cmd string, ok bool)

	// Logger receives failed exports and samples; nil discards them.
	Logger *slog.Logger
	// Exporter, when not nil, receives the metrics instead of an OTLP
	// endpoint (Protocol, Endpoint, TLS and Headers are then unused): the
	// OpenTelemetry SDK's stdout exporter, or a test's in-memory one. Its
	// Export gets one ResourceMetrics per resource and collection, never
	// reused, and its Temporality and Aggregation are not asked.
	Exporter sdkmetric.Exporter
}

// Selection names an object to export and, optionally, which of its
// instances.
type Selection struct {
	// Object is the object's name as the source's title database names
	// it ("PhysicalDisk"), or its title index in decimal ("234").
	Object string
	// Instances are patterns matched against instance names as PDH
	// matches them (counterpath.Glob): '*' matches any run of
	// characters, nothing else is special, case is ignored. None means every instance. _Total instances are exported
	// only with Options.Totals.
	Instances []string
}

// String returns the selection in ParseSelection's syntax.
func (s Selection) String() string {
	if len(s.Instances) == 0 {
		return s.Object
	}
	return s.Object + "(" + strings.Join(s.Instances, "|") + ")"
}

// maxSelection bounds a selection's text: object names are short, and a
// list of patterns longer than this is a mistake, not a configuration.
const maxSelection = 4096

// ParseSelection reads one object selection: an object name, or an object
// name followed by instance patterns in parentheses, separated by '|':
//
//	Memory
//	PhysicalDisk(sd*|nvme*)
//	Network Interface(eth?)
//
// The object name ends at the first '(' and the selection must end with
// the matching ')'; patterns cannot hold '|' or ')'.
func ParseSelection(s string) (Selection, error) {
	if len(s) > maxSelection {
		return Selection{}, fmt.Errorf("object selection of %d bytes: at most %d", len(s), maxSelection)
	}
	if !utf8.ValidString(s) {
		return Selection{}, fmt.Errorf("object selection %q: not UTF-8", s)
	}
	obj, rest, paren := strings.Cut(s, "(")
	obj = strings.TrimSpace(obj)
	if obj == "" {
		return Selection{}, fmt.Errorf("object selection %q: no object name", s)
	}
	if strings.ContainsAny(obj, ")|") {
		return Selection{}, fmt.Errorf("object selection %q: object name %q holds ')' or '|'", s, obj)
	}
	sel := Selection{Object: obj}
	if !paren {
		return sel, nil
	}
	body, ok := strings.CutSuffix(strings.TrimRightFunc(rest, isSpace), ")")
	if !ok {
		return Selection{}, fmt.Errorf("object selection %q: no ')' at the end of the instance patterns", s)
	}
	if strings.ContainsAny(body, "()") {
		return Selection{}, fmt.Errorf("object selection %q: instance patterns hold '(' or ')'", s)
	}
	for i, p := range strings.Split(body, "|") {
		if p == "" {
			return Selection{}, fmt.Errorf("object selection %q: instance pattern %d is empty", s, i+1)
		}
		sel.Instances = append(sel.Instances, p)
	}
	return sel, nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' }

// matchAny reports whether name matches one of the patterns (none matches
// everything).
func matchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if counterpath.Glob(p, name) {
			return true
		}
	}
	return false
}

// maxHeaders bounds the header text ParseHeaders accepts.
const maxHeaders = 64 << 10

// ParseHeaders reads headers in the format of OTEL_EXPORTER_OTLP_HEADERS:
// comma-separated key=value pairs, with values (and keys) URL-encoded
// ("api-key=abc%20def,tenant=a"). Blanks around pairs are ignored; an
// empty string is no headers.
func ParseHeaders(s string) (map[string]string, error) {
	if len(s) > maxHeaders {
		return nil, fmt.Errorf("OTLP headers of %d bytes: at most %d", len(s), maxHeaders)
	}
	h := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return h, nil
	}
	for i, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("OTLP header %d (%q): want key=value", i+1, strings.TrimSpace(pair))
		}
		key, err := url.PathUnescape(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("OTLP header %d: key %q: %v", i+1, strings.TrimSpace(k), err)
		}
		if !validHeaderName(key) {
			return nil, fmt.Errorf("OTLP header %d: %q is not a header name", i+1, key)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("OTLP header %s: value: %v", key, err)
		}
		if strings.ContainsAny(val, "\r\n\x00") {
			return nil, fmt.Errorf("OTLP header %s: value holds a line break or NUL", key)
		}
		h[key] = val
	}
	return h, nil
}

// validHeaderName reports an HTTP token (RFC 9110 section 5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
