package pdh

import (
	"context"

	"github.com/perfcounters/perfcounters/counterpath"
)

// ObjectInfo describes an object a source has (PdhEnumObjects).
type ObjectInfo struct {
	Name        string
	Help        string
	Index       uint32 // object title index
	DetailLevel uint32
	Multi       bool // has instances (rather than a single counter block)
	Counters    int  // counter definitions, bases not counted
}

// EnumObjects lists the objects in a sample of src (Peek when src has
// it), in the order the source gives them, each object once.
func EnumObjects(ctx context.Context, src Source) ([]ObjectInfo, error) {
	smp, err := peek(ctx, src, nil)
	if err != nil {
		return nil, err
	}
	db := src.Titles()
	var out []ObjectInfo
	seen := map[uint32]bool{}
	for _, blk := range smp.Blocks {
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			if seen[o.NameIndex()] {
				continue
			}
			seen[o.NameIndex()] = true
			n := 0
			for k := range o.NumCounters() {
				if !o.Counter(k).Type.IsBase() {
					n++
				}
			}
			out = append(out, ObjectInfo{Name: titleName(db, o.NameIndex()), Help: db.Help(o.HelpIndex()),
				Index: o.NameIndex(), DetailLevel: o.DetailLevel(), Multi: !o.SingleInstance(), Counters: n})
		}
	}
	return out, nil
}

// EnumObjectItems lists an object's counters (bases are not counters of
// their own) and its instances now, in PDH's array form
// "parent/instance#n" (PdhEnumObjectItems). object is a name or a title
// index; an unknown one is a *PathError.
func EnumObjectItems(ctx context.Context, src Source, object string) (counters []CounterInfo, instances []string, err error) {
	db := src.Titles()
	p := counterpath.Path{Object: object, Counter: "*"}
	l, err := locate(ctx, src, db, p, `\`+object, nil, blockSystem)
	if err != nil {
		return nil, nil, err
	}
	objName := titleName(db, l.obj.NameIndex())
	for i := range l.obj.NumCounters() {
		def := l.obj.Counter(i)
		if def.Type.IsBase() {
			continue
		}
		counters = append(counters, CounterInfo{
			Path:         counterpath.Path{Object: objName, Counter: titleName(db, def.NameIndex)},
			Type:         def.Type,
			DefaultScale: def.DefaultScale,
			DetailLevel:  def.DetailLevel,
			Help:         db.Help(def.HelpIndex),
			NameIndex:    def.NameIndex,
		})
	}
	if !l.obj.SingleInstance() {
		instances = instanceNames(l, db, objName)
	}
	return counters, instances, nil
}

// ExpandWildCardPath returns the concrete paths that path stands for in a
// sample of src now (PdhExpandWildCardPath), in canonical form; a path
// without wildcards comes back as itself when it exists. Errors are those
// of AddCounter.
func ExpandWildCardPath(ctx context.Context, src Source, path string) ([]string, error) {
	smp, err := peek(ctx, src, nil)
	if err != nil {
		return nil, err
	}
	q := OpenQuery(fixedSource{smp, src.Titles()})
	c, err := q.AddCounterContext(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := q.Collect(ctx); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range c.rowPos {
		in := &c.obj.cur[p]
		for k := range c.cols {
			out = append(out, c.itemPath(in, k).String())
		}
	}
	return out, nil
}
