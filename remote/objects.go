package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// ObjectList is the JSON of GET /v1/objects.
type ObjectList struct {
	Host    string        `json:"host"`
	Objects []ObjectEntry `json:"objects"`
}

// ObjectEntry describes a performance object as an Add Counters dialog
// shows it (PdhEnumObjects and PdhEnumObjectItems).
type ObjectEntry struct {
	Index       uint32 `json:"index"`
	Name        string `json:"name"`
	Help        string `json:"help"`
	DetailLevel string `json:"detailLevel"` // novice, advanced, expert or wizard
	// Costly objects are collected only when asked for by index (not in
	// Global).
	Costly bool `json:"costly"`
	// MultiInstance objects have instances; single-instance objects one
	// counter block.
	MultiInstance bool `json:"multiInstance"`
	// DefaultCounter is the name of the counter a dialog selects first.
	DefaultCounter string         `json:"defaultCounter,omitempty"`
	Counters       []CounterEntry `json:"counters"`
	// Instances, in the sample's order, are listed by
	// GET /v1/objects/{name} only (null in the list).
	Instances []InstanceEntry `json:"instances,omitempty"`
}

// CounterEntry describes a counter of an object. Base counters are not
// counters of their own: they appear as the Base of the counter they
// serve.
type CounterEntry struct {
	Index        uint32     `json:"index"`
	Name         string     `json:"name"`
	Help         string     `json:"help"`
	Type         string     `json:"type"`      // winperf name, PERF_COUNTER_COUNTER
	TypeValue    uint32     `json:"typeValue"` // the CounterType DWORD
	DetailLevel  string     `json:"detailLevel"`
	DefaultScale int32      `json:"defaultScale"`
	TwoSamples   bool       `json:"twoSamples"` // a rate: the first sample has no value
	Base         *BaseEntry `json:"base,omitempty"`
}

// BaseEntry is the base counter (denominator) a counter is computed with.
type BaseEntry struct {
	Index uint32 `json:"index"`
	Type  string `json:"type"`
}

// InstanceEntry is an instance as PDH names it: Display is the array name
// "parent/name#n"; Index is the #n that tells apart equal names (0 for the
// first, shown without #).
type InstanceEntry struct {
	Name    string `json:"name"`
	Parent  string `json:"parent,omitempty"`
	Index   int    `json:"index,omitempty"`
	Display string `json:"display"`
	// Path is the instance's path of the object's first counter, ready
	// for /v1/formatted.
	Path string `json:"path"`
}

// objectsParams are the parameters of /v1/objects.
type objectsParams struct {
	detail   uint32
	costly   bool
	object   string
	computer string // a remote computer's name; "" this one
}

// detailNames are the names of PERF_DETAIL_* levels in the API.
var detailNames = [...]struct {
	name  string
	level uint32
}{
	{"novice", 100}, // PERF_DETAIL_NOVICE
	{"advanced", 200},
	{"expert", 300},
	{"wizard", 400},
}

// DetailName is the API's name of a detail level (the next level up for
// a value between two, "wizard" above).
func DetailName(l uint32) string {
	for _, d := range detailNames {
		if l <= d.level {
			return d.name
		}
	}
	return "wizard"
}

// ParseDetail reads a detail level's API name (any case): novice,
// advanced, expert or wizard.
func ParseDetail(name string) (uint32, bool) {
	for _, d := range detailNames {
		if strings.EqualFold(name, d.name) {
			return d.level, true
		}
	}
	return 0, false
}

// parseObjectsParams reads the parameters of /v1/objects: detail (default
// wizard: everything), costly (boolean) and object (the object, as the
// path's last segment says it).
func parseObjectsParams(v url.Values) (objectsParams, error) {
	p := objectsParams{detail: 400}
	for k, vs := range v {
		if len(vs) != 1 {
			return p, paramError(k, vs[len(vs)-1], "given more than once")
		}
		x := vs[0]
		switch k {
		case "detail":
			l, ok := ParseDetail(x)
			if !ok {
				return p, paramError(k, x, "want novice, advanced, expert or wizard")
			}
			p.detail = l
		case "costly":
			b, err := parseBool(x)
			if err != nil {
				return p, paramError(k, x, err.Error())
			}
			p.costly = b
		case "object":
			if err := checkName(x); err != nil {
				return p, paramError(k, x, err.Error())
			}
			p.object = x
		case "computer":
			if err := checkName(x); err != nil {
				return p, paramError(k, x, err.Error())
			}
			p.computer = x
		default:
			return p, paramError(k, x, "unknown parameter (want detail, costly, object or computer)")
		}
	}
	return p, nil
}

// checkName validates an object or set name taken from a request.
func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty name")
	case len(s) > MaxNameLength:
		return fmt.Errorf("%d bytes, more than %d", len(s), MaxNameLength)
	case !utf8.ValidString(s):
		return fmt.Errorf("not UTF-8")
	case strings.ContainsRune(s, 0):
		return fmt.Errorf("holds a NUL character")
	}
	return nil
}

func (h *Handler) serveObjects(w http.ResponseWriter, r *http.Request, fromPath string) {
	p, err := parseObjectsParams(r.URL.Query())
	if err != nil {
		serveRequestError(w, err)
		return
	}
	if fromPath != "" {
		if err := checkName(fromPath); err != nil {
			badParam(w, "object", fromPath, err.Error())
			return
		}
		if p.object != "" && p.object != fromPath {
			badParam(w, "object", p.object, "the path names object "+fmt.Sprintf("%q", clipText(fromPath)))
			return
		}
		p.object = fromPath
	}
	ctx := r.Context()
	m, err := h.remoteComputer(p.computer)
	if err != nil {
		serveRequestError(w, err)
		return
	}
	if m != nil {
		v, err := h.remoteObjects(ctx, m, p)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			serveRequestError(w, err)
			return
		}
		serveJSON(w, http.StatusOK, v)
		return
	}
	if p.object != "" {
		e, status, err := h.objectDetail(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			code := "collection_failed"
			if status == http.StatusNotFound {
				code = "no_object"
			}
			serveError(w, status, code, err.Error())
			return
		}
		serveJSON(w, http.StatusOK, e)
		return
	}
	list, err := h.objectList(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		serveError(w, http.StatusServiceUnavailable, "collection_failed", fmt.Sprintf("the host's objects could not be collected: %v", err))
		return
	}
	serveJSON(w, http.StatusOK, list)
}

// catalogs are the shared samples the enumeration reads: Global, and
// Costly when asked.
func (h *Handler) catalogs(ctx context.Context, costly bool) ([]*pdh.Sample, error) {
	g, err := h.sampler.Sample(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := []*pdh.Sample{g}
	if costly && h.costly != nil {
		c, err := h.costly.Sample(ctx, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (h *Handler) objectList(ctx context.Context, p objectsParams) (*ObjectList, error) {
	smps, err := h.catalogs(ctx, p.costly)
	if err != nil {
		return nil, err
	}
	db := h.b.Titles()
	list := &ObjectList{Objects: []ObjectEntry{}}
	if len(smps[0].Blocks) > 0 {
		list.Host = smps[0].Blocks[0].Header().SystemName
	}
	seen := map[uint32]bool{}
	for k, smp := range smps {
		src := &pairSource{db: db, samples: []*pdh.Sample{smp}}
		objs, err := pdh.EnumObjects(ctx, src)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if seen[o.Index] || o.DetailLevel > p.detail {
				continue
			}
			seen[o.Index] = true
			e, err := describeObject(ctx, src, db, o.Index, p.detail, false)
			if err != nil {
				return nil, err
			}
			e.Costly = k == 1
			list.Objects = append(list.Objects, e)
		}
	}
	return list, nil
}

// objectDetail describes one object with its instances; the status is
// 404 for an object the host does not have.
func (h *Handler) objectDetail(ctx context.Context, p objectsParams) (*ObjectEntry, int, error) {
	db := h.b.Titles()
	have := 0
	// Global first; the Costly collection only for an object Global lacks.
	for k, smp := range []*pdh.Sampler{h.sampler, h.costly} {
		if smp == nil {
			continue
		}
		sh, err := smp.Sample(ctx, nil)
		if err != nil {
			return nil, http.StatusServiceUnavailable, fmt.Errorf("the host's objects could not be collected: %v", err)
		}
		for _, b := range sh.Blocks {
			for it := b.Objects(); it.Next(); {
				o := it.Object()
				name := db.Name(o.NameIndex())
				if !(strings.EqualFold(name, p.object) || fmt.Sprint(o.NameIndex()) == p.object) {
					have++
					continue
				}
				if o.DetailLevel() > p.detail {
					return nil, http.StatusNotFound, fmt.Errorf("object %q is of detail level %s, above %s", clipText(p.object), DetailName(o.DetailLevel()), DetailName(p.detail))
				}
				src := &pairSource{db: db, samples: []*pdh.Sample{sh}}
				e, err := describeObject(ctx, src, db, o.NameIndex(), p.detail, true)
				if err != nil {
					return nil, http.StatusInternalServerError, err
				}
				e.Costly = k == 1
				return &e, http.StatusOK, nil
			}
		}
	}
	return nil, http.StatusNotFound, fmt.Errorf("no object %q on this host (GET %s?costly=1 lists the %d it has)", clipText(p.object), PathObjects, have)
}

// describeObject lists object idx of src's sample: its counters (up to
// detail) through pdh's enumeration, with their bases read from the
// definitions, and its instances when asked.
func describeObject(ctx context.Context, src *pairSource, db *titles.DB, idx uint32, detail uint32, instances bool) (ObjectEntry, error) {
	var o perfdata.Object
	found := false
	for _, b := range src.samples[0].Blocks {
		if o, found = b.Object(idx); found {
			break
		}
	}
	if !found {
		return ObjectEntry{}, fmt.Errorf("object %d left the sample", idx)
	}
	src.pos = 0
	ctrs, _, err := pdh.EnumObjectItems(ctx, src, fmt.Sprint(idx))
	if err != nil {
		return ObjectEntry{}, err
	}
	e, _ := ObjectEntryOf(db, o, ctrs, detail)
	if instances && e.MultiInstance {
		e.Instances = []InstanceEntry{}
		if len(e.Counters) == 0 {
			return e, nil
		}
		src.pos = 0
		q := pdh.OpenQuery(src)
		c, err := q.AddCounterContext(ctx, counterpath.Path{Object: fmt.Sprint(idx), Instance: "*", Counter: fmt.Sprint(e.Counters[0].Index)}.String())
		if err != nil {
			return ObjectEntry{}, err
		}
		src.pos = 0
		if err := q.Collect(ctx); err != nil {
			return ObjectEntry{}, err
		}
		for _, it := range c.AppendItems(nil) {
			p := it.Path
			e.Instances = append(e.Instances, InstanceEntry{Name: p.Instance, Parent: p.Parent, Index: p.Index,
				Display: it.Instance, Path: p.String()})
		}
	}
	return e, nil
}

// ObjectEntryOf describes object o of a sample, without its instances:
// its names, help and detail level from db and the definitions, and the
// counters of detail level up to detail among ctrs (pdh's enumeration of
// o: definition order, bases left out), each paired with its definition
// to find its base. levels are the counters' detail levels, as
// e.Counters.
func ObjectEntryOf(db *titles.DB, o perfdata.Object, ctrs []pdh.CounterInfo, detail uint32) (e ObjectEntry, levels []uint32) {
	idx := o.NameIndex()
	e = ObjectEntry{Index: idx, Name: titleOf(db, idx), Help: db.Help(o.HelpIndex()), DetailLevel: DetailName(o.DetailLevel()),
		MultiInstance: !o.SingleInstance(), Counters: []CounterEntry{}}
	if dc := int(o.DefaultCounter()); dc >= 0 && dc < o.NumCounters() {
		e.DefaultCounter = titleOf(db, o.Counter(dc).NameIndex)
	}
	k := 0
	for i := range o.NumCounters() {
		def := o.Counter(i)
		if def.Type.IsBase() {
			continue
		}
		if k >= len(ctrs) {
			break
		}
		c := ctrs[k]
		k++
		if c.DetailLevel > detail {
			continue
		}
		ce := CounterEntry{Index: c.NameIndex, Name: c.Path.Counter, Help: c.Help, Type: c.Type.String(),
			TypeValue: uint32(c.Type), DetailLevel: DetailName(c.DetailLevel), DefaultScale: c.DefaultScale,
			TwoSamples: c.Type.NeedsTwoSamples()}
		if c.Type.NeedsBase() && i+1 < o.NumCounters() && o.Counter(i+1).Type.IsBase() {
			b := o.Counter(i + 1)
			ce.Base = &BaseEntry{Index: b.NameIndex, Type: b.Type.String()}
		}
		e.Counters = append(e.Counters, ce)
		levels = append(levels, c.DetailLevel)
	}
	return e, levels
}

// titleOf is the title database's name of idx, or the number.
func titleOf(db *titles.DB, idx uint32) string {
	if n := db.Name(idx); n != "" {
		return n
	}
	return fmt.Sprint(idx)
}
