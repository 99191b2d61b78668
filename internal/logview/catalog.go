package logview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/titles"
)

// catalog is what a log holds, read in one pass over every sample when
// the log is opened: each object with its counters (from the first
// sample that has it) and every instance any sample has (perfmon showed
// only _Total of a log; instances that start after the log began are
// listed too), in the order they first appear.
type catalog struct {
	objects   []*catObject
	byIndex   map[uint32]*catObject
	computers []string
	notes     []string
}

type catObject struct {
	entry  remote.ObjectEntry
	first  int // the first sample holding the object
	level  uint32
	levels []uint32 // each counter's detail level, as entry.Counters
	seen   map[string]bool
}

// oneSample is a pdh source of one sample, for pdh's enumeration.
type oneSample struct {
	smp *pdh.Sample
	db  *titles.DB
}

func (o *oneSample) Sample(context.Context, []uint32) (*pdh.Sample, error) { return o.smp, nil }
func (o *oneSample) Titles() *titles.DB                                    { return o.db }
func (o *oneSample) Recorded() pdh.Recorded                                { return nil }

// readCatalog reads src's catalog: at most maxInstances instance names in
// all; its position is left at 0.
func readCatalog(ctx context.Context, src pdh.Source, maxInstances int) (*catalog, error) {
	rec := src.Recorded()
	db := src.Titles()
	c := &catalog{byIndex: map[uint32]*catObject{}}
	if err := rec.Seek(0); err != nil {
		return nil, err
	}
	defer rec.Seek(0)
	instances, cut := 0, false
	for i := range rec.Len() {
		smp, err := src.Sample(ctx, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("sample %d of %d (%s): %w", i+1, rec.Len(), rec.Time(i).UTC().Format("2006-01-02 15:04:05.000"), err)
		}
		one := &oneSample{smp: smp, db: db}
		for _, b := range smp.Blocks {
			if m := b.Header().SystemName; m != "" && !slices.ContainsFunc(c.computers, func(x string) bool { return strings.EqualFold(x, m) }) {
				c.computers = append(c.computers, m)
			}
			for it := b.Objects(); it.Next(); {
				o := it.Object()
				co := c.byIndex[o.NameIndex()]
				if co == nil {
					co, err = describe(ctx, one, db, o, i)
					if err != nil {
						return nil, err
					}
					c.byIndex[o.NameIndex()] = co
					c.objects = append(c.objects, co)
				}
				if !co.entry.MultiInstance || cut {
					continue
				}
				_, names, err := pdh.EnumObjectItems(ctx, one, strconv.FormatUint(uint64(o.NameIndex()), 10))
				if err != nil {
					return nil, err
				}
				for _, n := range names {
					if co.seen[n] {
						continue
					}
					if instances == maxInstances {
						cut = true
						c.notes = append(c.notes, fmt.Sprintf("the log names more than %d instances; those past them (from sample %d on) are not listed, but paths with wildcards still find them", maxInstances, i+1))
						break
					}
					instances++
					co.seen[n] = true
					co.entry.Instances = append(co.entry.Instances, instanceEntry(co.entry.Name, n, co.entry.Counters))
				}
			}
		}
	}
	return c, nil
}

// describe lists object o of a sample: its counters through pdh's
// enumeration, each with its base read from the definitions.
func describe(ctx context.Context, one *oneSample, db *titles.DB, o perfdata.Object, first int) (*catObject, error) {
	ctrs, _, err := pdh.EnumObjectItems(ctx, one, strconv.FormatUint(uint64(o.NameIndex()), 10))
	if err != nil {
		return nil, err
	}
	e, levels := remote.ObjectEntryOf(db, o, ctrs, math.MaxUint32)
	co := &catObject{first: first, level: o.DetailLevel(), seen: map[string]bool{}, levels: levels}
	if e.MultiInstance {
		e.Instances = []remote.InstanceEntry{}
	}
	co.entry = e
	return co, nil
}

// instanceEntry is instance display ("parent/name#n") of object, with
// the path of its first counter.
func instanceEntry(object, display string, counters []remote.CounterEntry) remote.InstanceEntry {
	ctr := "*"
	if len(counters) > 0 {
		ctr = counters[0].Name
	}
	e := remote.InstanceEntry{Name: display, Display: display}
	s := `\` + object + "(" + display + `)\` + ctr
	if p, err := counterpath.Parse(s); err == nil {
		e.Name, e.Parent, e.Index = p.Instance, p.Parent, p.Index
		s = p.String()
	}
	e.Path = s
	return e
}

// find returns the catalog's object named name (any case) or numbered
// so.
func (c *catalog) find(name string) *catObject {
	for _, o := range c.objects {
		if strings.EqualFold(o.entry.Name, name) || strconv.FormatUint(uint64(o.entry.Index), 10) == name {
			return o
		}
	}
	return nil
}

// serveObjects answers GET /v1/logs/{id}/objects[/{name}] in the JSON of
// remote's /v1/objects: ?detail= filters counters (novice .. wizard);
// ?costly= is accepted and changes nothing (a log holds what was
// recorded). The list leaves instances out; one object lists them all.
func (l *openLog) serveObjects(w http.ResponseWriter, r *http.Request, object string) {
	detail := uint32(400)
	for k, vs := range r.URL.Query() {
		v := vs[len(vs)-1]
		switch k {
		case "detail":
			l, ok := remote.ParseDetail(v)
			if !ok {
				serveError(w, http.StatusBadRequest, "bad_parameter", fmt.Sprintf("parameter detail=%q: want novice, advanced, expert or wizard", clip(v)))
				return
			}
			detail = l
		case "costly":
		default:
			serveError(w, http.StatusBadRequest, "bad_parameter", fmt.Sprintf("parameter %s=%q: unknown parameter (want detail or costly)", clip(k), clip(v)))
			return
		}
	}
	filter := func(o *catObject, instances bool) remote.ObjectEntry {
		e := o.entry
		e.Counters = make([]remote.CounterEntry, 0, len(o.entry.Counters))
		for i, c := range o.entry.Counters {
			if o.levels[i] <= detail {
				e.Counters = append(e.Counters, c)
			}
		}
		if !instances {
			e.Instances = nil
		}
		return e
	}
	if object != "" {
		o := l.cat.find(object)
		if o == nil {
			serveError(w, http.StatusNotFound, "no_object", fmt.Sprintf("%s: no object %q in the log (GET %s/%s/objects lists the %d it has)", strings.Join(l.info.Names, ", "), clip(object), Path, l.info.ID, len(l.cat.objects)))
			return
		}
		if o.level > detail {
			serveError(w, http.StatusNotFound, "no_object", fmt.Sprintf("object %q is of detail level %s, above %s", clip(object), remote.DetailName(o.level), remote.DetailName(detail)))
			return
		}
		serveJSON(w, http.StatusOK, filter(o, true))
		return
	}
	list := remote.ObjectList{Objects: []remote.ObjectEntry{}}
	if len(l.cat.computers) > 0 {
		list.Host = l.cat.computers[0]
	}
	for _, o := range l.cat.objects {
		if o.level <= detail {
			list.Objects = append(list.Objects, filter(o, false))
		}
	}
	serveJSON(w, http.StatusOK, list)
}
