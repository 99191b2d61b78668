package pdhcsv

import (
	"strings"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
)

// ValueOptions are the options of the values a PDH text log holds
// (typeperf's console and logs, logman's text logs): unscaled and
// uncapped, as a real capture shows "\Process(_total)\% Processor Time"
// as 803.998032 and Working Set, DefaultScale -5, in bytes. Item.Computed
// holds them.
const ValueOptions = calc.FmtDouble | calc.FmtNoScale | calc.FmtNoCap100

// Columns are the fixed columns of a text log written from a query, as
// its first sample shows them (a text log's columns are fixed by its
// header): a counter without wildcards keeps the spelling it was given; a
// wildcard counter gets one column per concrete path (real names,
// #index). Later samples fill the columns by their items' paths.
type Columns struct {
	cols  []column
	items []pdh.Item
}

type column struct {
	c    *pdh.Counter
	key  string // the item's concrete path, the key to find it again
	name string // header cell
}

// QueryColumns takes the columns of q's current sample; machine names
// the computer in paths that name none.
func QueryColumns(q *pdh.Query, machine string) *Columns {
	cs := &Columns{}
	seen := map[string]bool{}
	for _, c := range q.Counters() {
		arr := c.FormattedArray(ValueOptions)
		p := c.Path()
		if !p.HasWildcard() {
			if len(arr) == 0 {
				// A computer that did not answer (NoData) keeps its column,
				// empty until it answers; a counter that is gone has none.
				if v, _ := c.Formatted(ValueOptions); v.Status == calc.NoData {
					cs.cols = append(cs.cols, column{c: c, key: p.String(), name: columnName(p, machine)})
				}
				continue
			}
			cs.cols = append(cs.cols, column{c: c, key: arr[0].Path.String(), name: columnName(p, machine)})
			continue
		}
		for _, it := range arr {
			k := it.Path.String()
			if seen[strings.ToLower(k)] {
				continue
			}
			seen[strings.ToLower(k)] = true
			cs.cols = append(cs.cols, column{c: c, key: k, name: columnName(it.Path, machine)})
		}
	}
	return cs
}

func columnName(p counterpath.Path, machine string) string {
	if p.Machine == "" {
		p.Machine = machine
	}
	return p.String()
}

// Len is the number of columns.
func (cs *Columns) Len() int { return len(cs.cols) }

// Names are the header cells.
func (cs *Columns) Names() []string {
	names := make([]string, len(cs.cols))
	for i, c := range cs.cols {
		names[i] = c.name
	}
	return names
}

// Fill sets vals (Len of them) from the query's current sample: each
// column's item by its key, no value ("" on output: " ") when it is gone
// or has no valid value.
func (cs *Columns) Fill(vals []Value) {
	var last *pdh.Counter
	var byKey map[string]int
	buf := cs.items
	for i, col := range cs.cols {
		if col.c != last {
			last = col.c
			buf = col.c.AppendFormattedArray(buf[:0], ValueOptions)
			byKey = make(map[string]int, len(buf))
			for j, it := range buf {
				byKey[it.Path.String()] = j
			}
		}
		vals[i] = Value{}
		j, ok := byKey[col.key]
		if !ok && !col.c.Path().HasWildcard() && len(buf) == 1 {
			j, ok = 0, true
		}
		if ok && buf[j].Status == calc.ValidData {
			vals[i] = Value{Number: buf[j].Computed, OK: true}
		}
	}
	cs.items = buf
}
