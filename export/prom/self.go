package prom

import (
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/perfcounters/perfcounters/internal/version"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// buildInfo is the label text of PREFIX_exporter_build_info: the
// program's version and commit (internal/version: a release build's
// stamp, else the module and VCS information the Go toolchain recorded),
// Go's version, the OS and architecture (node_exporter's
// node_exporter_build_info labels, less branch and tags).
func buildInfo() string {
	in := version.Current()
	version, revision := in.Version, cmp.Or(in.Commit, "unknown")
	var w []byte
	for i, kv := range [][2]string{{"version", version}, {"revision", revision}, {"goversion", runtime.Version()}, {"goos", runtime.GOOS}, {"goarch", runtime.GOARCH}} {
		if i > 0 {
			w = append(w, ',')
		}
		w = append(w, kv[0]+`="`...)
		w = appendLabelValue(w, kv[1])
		w = append(w, '"')
	}
	return string(w)
}

// objectTiming is one object's part of a collection, for the
// self-metrics.
type objectTiming struct {
	name    string
	ok      bool
	seconds float64
}

// timings lists the objects a collection asked for (want; nil: those
// found) with whether the sample has them whole and how long they took:
// the sample's collection, shared by the objects collected in it, plus
// the object's own conversion (wrote).
func timings(dst []objectTiming, db *titles.DB, smp *pdh.Sample, want, seen []uint32, sampled time.Duration, wrote map[uint32]time.Duration) []objectTiming {
	dst = dst[:0]
	list := want
	if list == nil {
		list = seen
	}
	for _, idx := range list {
		ok := slices.Contains(seen, idx)
		for _, p := range smp.Problems {
			if p.Object == idx && !p.Partial {
				ok = false
			}
		}
		name := db.Name(idx)
		if name == "" {
			name = strconv.FormatUint(uint64(idx), 10)
		}
		dst = append(dst, objectTiming{name: name, ok: ok, seconds: (sampled + wrote[idx]).Seconds()})
	}
	return dst
}

// writeSelf writes the exporter's own metrics as node_exporter has them:
// PREFIX_exporter_build_info, and per object PREFIX_scrape_collector_success
// (1 when the sample has the object, 0 when it was asked for and left
// out) and PREFIX_scrape_collector_duration_seconds.
func (col *Collector) writeSelf(w []byte, f Format, objs []objectTiming) []byte {
	p := col.c.prefix
	fam := func(w []byte, name, typ, help string) []byte {
		if f == OpenMetrics {
			return append(w, "# TYPE "+name+" "+typ+"\n# HELP "+name+" "+help+"\n"...)
		}
		return append(w, "# HELP "+name+" "+help+"\n# TYPE "+name+" "+typ+"\n"...)
	}
	w = fam(w, p+"exporter_build_info", "gauge", "A metric with a constant '1' value labeled by version, revision, goversion, goos and goarch from which perfc was built.")
	w = append(w, p+"exporter_build_info{"...)
	w = append(w, col.buildLabels...)
	w = append(w, "} 1\n"...)
	if len(objs) == 0 {
		return w
	}
	success, duration := p+"scrape_collector_success", p+"scrape_collector_duration_seconds"
	if col.c.profile == ProfileWindowsExporter {
		// windows_exporter's names, labeled by its collectors' names
		success, duration = p+"exporter_collector_success", p+"exporter_collector_duration_seconds"
		objs = append(wxTimings(objs), col.st.facts...)
	}
	w = fam(w, success, "gauge", "Whether the object (collector) was collected in this scrape: 1, or 0 when it was asked for and the source left it out.")
	for _, o := range objs {
		w = append(w, success+`{collector="`...)
		w = appendLabelValue(w, o.name)
		w = append(w, `"} `...)
		if o.ok {
			w = append(w, '1')
		} else {
			w = append(w, '0')
		}
		w = append(w, '\n')
	}
	w = fam(w, duration, "gauge", "Seconds the object (collector) took in this scrape: the collection of the sample, shared by the objects collected together in it, plus the object's own conversion.")
	for _, o := range objs {
		w = append(w, duration+`{collector="`...)
		w = appendLabelValue(w, o.name)
		w = append(w, `"} `...)
		w = strconv.AppendFloat(w, o.seconds, 'g', -1, 64)
		w = append(w, '\n')
	}
	return w
}

// wxTimings names the objects' timings after windows_exporter's
// collectors (cpu, memory, ...), leaving out objects the profile does
// not map and a second object of one collector (Processor beside
// Processor Information). It writes into objs.
func wxTimings(objs []objectTiming) []objectTiming {
	out := objs[:0]
	for _, o := range objs {
		name, ok := wxCollectors[fold(o.name)]
		if !ok || slices.ContainsFunc(out, func(x objectTiming) bool { return x.name == name }) {
			continue
		}
		o.name = name
		out = append(out, o)
	}
	return out
}
