package prom

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// DefaultPrefix starts every metric name unless Options.Prefix says
// otherwise.
const DefaultPrefix = "perfc_"

// DefaultExclude returns the objects left out of an export of every object
// (Options.Objects empty) unless Options.Exclude is set: one series per
// process or thread and counter is what makes exporters' scrapes large
// (windows_exporter's users' complaint). Name them in Options.Objects,
// with an instance filter, to export them.
func DefaultExclude() []string { return []string{"Process", "Process V2", "Thread"} }

// The profiles of Options.Profile.
const (
	ProfileDefault         = "perfc"
	ProfileClassic         = "classic"
	ProfileWindowsExporter = "windows_exporter"
)

// DefaultRediscover is how often an export of every object asks the
// source for all its objects (Global) to find new ones.
const DefaultRediscover = time.Minute

// Options choose what is exported and how it is named. The zero value
// exports every object but DefaultExclude's, without _Total instances and
// without formatted gauges.
type Options struct {
	// Profile chooses the shape of the export: ProfileDefault ("" or
	// "perfc"), ProfileClassic ("classic", the names and the one
	// perf_instance label of perfc before issue 32) or
	// ProfileWindowsExporter ("windows_exporter": windows_exporter's
	// metric names, labels and units; Prefix must be "" or "windows_",
	// Formatted is refused, Total is ignored, and no Objects means
	// windows_exporter's default collectors' objects). MAPPING.md
	// describes each.
	Profile string `json:"profile,omitempty"`
	// Prefix starts every metric name; "" is DefaultPrefix. It must be a
	// valid metric name start: letters, digits, '_' (not a digit first).
	Prefix string `json:"prefix,omitempty"`
	// Objects are the objects to export, by name (as the title database
	// names them, case-insensitive). Empty: every object the source has
	// (its Global collection), less Exclude.
	Objects []string `json:"objects,omitempty"`
	// Exclude are objects left out when Objects is empty; nil is
	// DefaultExclude(), an empty list leaves nothing out.
	Exclude []string `json:"exclude,omitempty"`
	// Instances filter the instances of named objects.
	Instances []InstanceFilter `json:"instances,omitempty"`
	// Total exports the _Total instances, which Prometheus can compute
	// with sum() and which are left out by default.
	Total bool `json:"total,omitempty"`
	// Formatted adds to every counter whose displayed value is computed
	// (rates, fractions, averages, timers) a gauge with the value
	// typeperf prints, computed between the last two collections (without
	// the display scale and the cap at 100 %); the first scrape has none.
	Formatted bool `json:"formatted,omitempty"`
	// DetailLevel leaves out counters of a higher detail level (100
	// novice, 200 advanced, 300 expert, 400 wizard); 0 exports all.
	DetailLevel uint32 `json:"detail_level,omitempty"`
	// Timeout bounds one collection; 0 is 10 s.
	Timeout time.Duration `json:"-"`
	// Rediscover is how often an export of every object asks for the
	// source's Global collection again; 0 is DefaultRediscover.
	Rediscover time.Duration `json:"-"`
	// NoSelfMetrics leaves out the exporter's own metrics
	// (PREFIX_exporter_build_info, PREFIX_scrape_collector_success and
	// PREFIX_scrape_collector_duration_seconds per object), which the
	// default and windows_exporter profiles write (classic never does).
	NoSelfMetrics bool `json:"no_self_metrics,omitempty"`
	// Cumulative, when set, says which raw counts (PERF_COUNTER_RAWCOUNT,
	// _LARGE_RAWCOUNT) only grow, by object and counter name: the default
	// profile exports them as counters (_total) instead of gauges. The
	// local host's objects declare theirs (host.Cumulative).
	Cumulative func(object, counter string) bool `json:"-"`
	// Alerts, when set, returns the state of the host's alert sets at
	// each scrape, exported as PREFIX_alert_firing and
	// PREFIX_alert_fired_total (MAPPING.md).
	Alerts func(ctx context.Context) []Alert `json:"-"`
	// WindowsExporterVersion chooses, in the windows_exporter profile,
	// which of windows_exporter's spellings are written where its names
	// changed: "old" (releases before 0.30: windows_cs_*,
	// windows_os_processes, windows_system_system_up_time...), "new"
	// (0.30 and later: windows_cpu_logical_processor,
	// windows_system_processes, windows_system_boot_time_timestamp...)
	// or "both" (the default, ""): dashboards of every age fill
	// (MAPPING.md lists the names of each). Refused with another profile.
	WindowsExporterVersion string `json:"windows_exporter_version,omitempty"`
	// Host, when set, returns the host's facts that are not counters
	// (names, OS release, memory size) at each scrape of the
	// windows_exporter profile: its os, cs and memory info families.
	Host func(ctx context.Context) HostFacts `json:"-"`
	// Services, when set, returns the host's services at each scrape of
	// the windows_exporter profile: the windows_service_* families. An
	// error (no service manager) leaves them out.
	Services func(ctx context.Context) ([]Service, error) `json:"-"`
}

// The values of Options.WindowsExporterVersion.
const (
	WindowsExporterOld  = "old"
	WindowsExporterNew  = "new"
	WindowsExporterBoth = "both"
)

// InstanceFilter keeps the instances of one object whose name (as PDH
// shows it: parent/name#index) matches Include and does not match
// Exclude. The expressions are Go regular expressions (RE2) matched
// against the whole name; "" is no condition.
type InstanceFilter struct {
	Object  string `json:"object"`
	Include string `json:"include,omitempty"`
	Exclude string `json:"exclude,omitempty"`
}

// compiledFilter is an InstanceFilter ready to use.
type compiledFilter struct {
	include, exclude *regexp.Regexp
}

func (f *compiledFilter) keep(name string) bool {
	if f == nil {
		return true
	}
	if f.include != nil && !f.include.MatchString(name) {
		return false
	}
	return f.exclude == nil || !f.exclude.MatchString(name)
}

// maxConfig bounds the configuration ParseOptions reads.
const maxConfig = 1 << 20

// ParseOptions reads options written as JSON (the field names of the
// json tags: profile, prefix, objects, exclude, instances [{object,
// include, exclude}], total, formatted, detail_level, no_self_metrics,
// windows_exporter_version), refusing unknown fields,
// and checks them as NewCollector does.
func ParseOptions(b []byte) (Options, error) {
	var o Options
	if len(b) > maxConfig {
		return o, fmt.Errorf("metrics export options: %d bytes, more than the %d allowed", len(b), maxConfig)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&o); err != nil {
		return Options{}, fmt.Errorf("metrics export options: %w", err)
	}
	if d.More() {
		return Options{}, fmt.Errorf("metrics export options: more than one JSON value (at offset %d)", d.InputOffset())
	}
	if _, err := o.compile(); err != nil {
		return Options{}, err
	}
	return o, nil
}

// compiled are the options checked and prepared.
type compiled struct {
	profile   string
	prefix    string
	objects   []string                   // folded names, in the order given
	exclude   map[string]bool            // folded names
	instances map[string]*compiledFilter // by folded object name
	wxVersion wxVer                      // the windows_exporter spelling
}

func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// compile checks the options: the prefix is a valid metric name start,
// the expressions compile, no object is named twice in one list.
func (o *Options) compile() (*compiled, error) {
	c := &compiled{prefix: o.Prefix, exclude: map[string]bool{}, instances: map[string]*compiledFilter{}}
	switch o.Profile {
	case "", ProfileDefault:
		c.profile = ProfileDefault
	case ProfileClassic:
		c.profile = o.Profile
	case ProfileWindowsExporter:
		c.profile = o.Profile
		if o.Prefix != "" && o.Prefix != wxPrefix {
			return nil, fmt.Errorf("metrics export options: prefix %q: the %s profile's names start with %q", o.Prefix, ProfileWindowsExporter, wxPrefix)
		}
		if o.Formatted {
			return nil, fmt.Errorf("metrics export options: formatted: the %s profile has windows_exporter's raw series only; use profile %q for formatted gauges", ProfileWindowsExporter, ProfileDefault)
		}
		c.prefix = wxPrefix
	default:
		return nil, fmt.Errorf("metrics export options: profile %q: not %q, %q or %q", o.Profile, ProfileDefault, ProfileClassic, ProfileWindowsExporter)
	}
	switch o.WindowsExporterVersion {
	case "", WindowsExporterBoth:
		c.wxVersion = wxBoth
	case WindowsExporterOld:
		c.wxVersion = wxOld
	case WindowsExporterNew:
		c.wxVersion = wxNew
	default:
		return nil, fmt.Errorf("metrics export options: windows_exporter_version %q: not %q, %q or %q", o.WindowsExporterVersion, WindowsExporterOld, WindowsExporterNew, WindowsExporterBoth)
	}
	if o.WindowsExporterVersion != "" && c.profile != ProfileWindowsExporter {
		return nil, fmt.Errorf("metrics export options: windows_exporter_version: only for the %s profile", ProfileWindowsExporter)
	}
	if c.prefix == "" {
		c.prefix = DefaultPrefix
	}
	for i, r := range c.prefix {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return nil, fmt.Errorf("metrics export options: prefix %q: character %q at %d is not allowed in a metric name", o.Prefix, r, i)
		}
	}
	seen := map[string]bool{}
	for i, name := range o.Objects {
		f := fold(name)
		if f == "" {
			return nil, fmt.Errorf("metrics export options: objects[%d] is empty", i)
		}
		if seen[f] {
			return nil, fmt.Errorf("metrics export options: objects[%d]: object %q named twice", i, name)
		}
		seen[f] = true
		c.objects = append(c.objects, f)
	}
	excl := o.Exclude
	if excl == nil {
		excl = DefaultExclude()
	}
	for _, name := range excl {
		c.exclude[fold(name)] = true
	}
	for i, f := range o.Instances {
		key := fold(f.Object)
		if key == "" {
			return nil, fmt.Errorf("metrics export options: instances[%d]: no object named", i)
		}
		if c.instances[key] != nil {
			return nil, fmt.Errorf("metrics export options: instances[%d]: object %q has a filter already", i, f.Object)
		}
		cf := &compiledFilter{}
		var err error
		if cf.include, err = anchored(f.Include); err != nil {
			return nil, fmt.Errorf("metrics export options: instances[%d] (object %q) include: %w", i, f.Object, err)
		}
		if cf.exclude, err = anchored(f.Exclude); err != nil {
			return nil, fmt.Errorf("metrics export options: instances[%d] (object %q) exclude: %w", i, f.Object, err)
		}
		c.instances[key] = cf
	}
	return c, nil
}

// anchored compiles expr to match whole names; "" is nil. expr is
// compiled alone first, so that a parenthesis in it cannot undo the
// anchors.
func anchored(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err
	}
	return regexp.Compile(`^(?:` + expr + `)$`)
}
