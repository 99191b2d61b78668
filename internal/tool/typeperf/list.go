package typeperf

import (
	"context"
	"io"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// ListOptions configure List (typeperf -q / -qx).
type ListOptions struct {
	Object    string // only this object; empty lists every object
	Instances bool   // -qx: one line per instance; -q: "(*)" for multi-instance objects
	CRLF      bool
	// Titles, when set, names the objects and counters listed (and the
	// object asked for) in a language (-lang), as Run's Options.Titles.
	Titles *titles.DB
}

// titled is a source whose names are another database's.
type titled struct {
	pdh.Source
	db *titles.DB
}

func (t titled) Titles() *titles.DB { return t.db }

// List writes the counter paths src offers, one per line, in the order the
// source gives objects and counters: `\Object\Counter` for single-instance
// objects, `\Object(*)\Counter` (-q) or every `\Object(instance)\Counter`
// (-qx) for the others. An unknown object is an error naming it and what
// exists.
func List(ctx context.Context, src pdh.Source, opts ListOptions, w io.Writer) error {
	eol := "\n"
	if opts.CRLF {
		eol = "\r\n"
	}
	if opts.Titles != nil {
		src = titled{src, opts.Titles}
	}
	var names []string
	if opts.Object != "" {
		names = []string{opts.Object}
	} else {
		objs, err := pdh.EnumObjects(ctx, src)
		if err != nil {
			return err
		}
		for _, o := range objs {
			names = append(names, o.Name)
		}
	}
	var b strings.Builder
	for _, name := range names {
		counters, instances, err := pdh.EnumObjectItems(ctx, src, name)
		if err != nil {
			return err
		}
		multi := instances != nil
		if opts.Instances && multi {
			p := counterpath.Path{Object: counters0(counters, name), Instance: "*", Counter: "*"}
			paths, err := pdh.ExpandWildCardPath(ctx, src, p.String())
			if err != nil {
				return err
			}
			for _, s := range paths {
				b.WriteString(s + eol)
			}
			continue
		}
		for _, c := range counters {
			p := c.Path
			if multi {
				p.Instance = "*"
			}
			b.WriteString(p.String() + eol)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// counters0 is the object's name as the title database spells it.
func counters0(cs []pdh.CounterInfo, fallback string) string {
	if len(cs) > 0 {
		return cs[0].Path.Object
	}
	return fallback
}
