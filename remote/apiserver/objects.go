package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/titles"
)

// objectsParams are the parameters of /v1/objects.
type objectsParams struct {
	detail   uint32
	costly   bool
	object   string
	computer string // a remote computer's name; "" this one
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
			l, ok := remote.ParseDetail(x)
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
	case len(s) > remote.MaxNameLength:
		return fmt.Errorf("%d bytes, more than %d", len(s), remote.MaxNameLength)
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
// Costly when asked. An enumeration reads every object once: it does not
// make the collections after it (of the other consumers) read them all.
func (h *Handler) catalogs(ctx context.Context, costly bool) ([]*pdh.Sample, error) {
	g, err := h.sampler.Once(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := []*pdh.Sample{g}
	if costly && h.costly != nil {
		c, err := h.costly.Once(ctx, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (h *Handler) objectList(ctx context.Context, p objectsParams) (*remote.ObjectList, error) {
	smps, err := h.catalogs(ctx, p.costly)
	if err != nil {
		return nil, err
	}
	db := h.db
	list := &remote.ObjectList{Objects: []remote.ObjectEntry{}}
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
func (h *Handler) objectDetail(ctx context.Context, p objectsParams) (*remote.ObjectEntry, int, error) {
	db := h.db
	have := 0
	// The object alone when the source names its objects and it is one
	// of Global's; else Global, then the Costly collection for an object
	// Global lacks.
	var only []uint32
	if idx, ok := objectIndex(db, p.object); ok {
		if list, complete := h.sampler.Objects(false); complete && slices.Contains(list, idx) {
			only = []uint32{idx}
		}
	}
	for k, smp := range []*pdh.Sampler{h.sampler, h.costly} {
		if smp == nil || (only != nil && k == 1) {
			continue
		}
		sh, err := smp.Once(ctx, only)
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
					return nil, http.StatusNotFound, fmt.Errorf("object %q is of detail level %s, above %s", clipText(p.object), remote.DetailName(o.DetailLevel()), remote.DetailName(p.detail))
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
	return nil, http.StatusNotFound, fmt.Errorf("no object %q on this host (GET %s?costly=1 lists the %d it has)", clipText(p.object), remote.PathObjects, have)
}

// describeObject lists object idx of src's sample: its counters (up to
// detail) through pdh's enumeration, with their bases read from the
// definitions, and its instances when asked.
func describeObject(ctx context.Context, src *pairSource, db *titles.DB, idx uint32, detail uint32, instances bool) (remote.ObjectEntry, error) {
	var o perfdata.Object
	found := false
	for _, b := range src.samples[0].Blocks {
		if o, found = b.Object(idx); found {
			break
		}
	}
	if !found {
		return remote.ObjectEntry{}, fmt.Errorf("object %d left the sample", idx)
	}
	src.pos = 0
	ctrs, _, err := pdh.EnumObjectItems(ctx, src, fmt.Sprint(idx))
	if err != nil {
		return remote.ObjectEntry{}, err
	}
	e, _ := remote.ObjectEntryOf(db, o, ctrs, detail)
	if instances && e.MultiInstance {
		e.Instances = []remote.InstanceEntry{}
		if len(e.Counters) == 0 {
			return e, nil
		}
		src.pos = 0
		q := pdh.OpenQuery(src)
		c, err := q.AddCounterContext(ctx, counterpath.Path{Object: fmt.Sprint(idx), Instance: "*", Counter: fmt.Sprint(e.Counters[0].Index)}.String())
		if err != nil {
			return remote.ObjectEntry{}, err
		}
		src.pos = 0
		if err := q.Collect(ctx); err != nil {
			return remote.ObjectEntry{}, err
		}
		for _, it := range c.AppendItems(nil) {
			p := it.Path
			e.Instances = append(e.Instances, remote.InstanceEntry{Name: p.Instance, Parent: p.Parent, Index: p.Index,
				Display: it.Instance, Path: p.String()})
		}
	}
	return e, nil
}
