package perflog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
)

// blgRecorder writes what a query collects as a Windows BLG: one counter
// list entry per counter path of the query (a path whose counter is a
// wildcard, one per counter its object has at the first sample), and per
// sample each entry's raw values (PDH_RAW_COUNTER), as Windows' typeperf
// and relog record listed counters.
type blgRecorder struct {
	f      *os.File
	name   string
	opts   CreateOptions
	w      *blg.Writer
	cols   []blgColumn // by list entry
	ents   []blg.Entry
	got    []bool    // by query counter: read (AppendRaw) this sample
	read   []rawRead // by query counter, where its values of the sample are
	idGot  []bool    // the same for the identifying values (AppendIdentityRaw)
	idRead []rawRead
	vals   []calc.Raw
	names  []string
	items  []blg.Item
}

// blgColumn is one entry of the list: a counter of the query and, for a
// path whose counter is a wildcard, the counter's name.
type blgColumn struct {
	c     *pdh.Counter
	k     int    // the counter's place in the query
	name  string // the counter ("" the path's own)
	multi bool   // the entry has every instance
	timed bool   // SecondValue is the time stamp (secondIsTime of the entry's type)
	// identity: the entry holds an identifying counter of c's object
	// (Counter.IdentityRaw), not one of c's.
	identity bool
}

func createBLG(name string, opts CreateOptions) (Recorder, error) {
	switch {
	case opts.Append:
		return nil, fmt.Errorf("%s: a Windows BLG cannot be appended to (-a): write a new one, or append to a binary log (-f BIN)", name)
	case opts.Binary.Mode != binlog.Linear || opts.Binary.Rollover.Enabled():
		return nil, fmt.Errorf("%s: a Windows BLG is written linear only (not %s, nor in a rollover series): use -f bin for circular, appended and rolled-over logs", name, opts.Binary.Mode)
	}
	// As binary logs: never through a symbolic link, one writer at a
	// time (a lock), truncated only once locked.
	flag := os.O_RDWR | os.O_CREATE | syscall.O_NOFOLLOW
	if !opts.Overwrite {
		flag |= os.O_EXCL
	}
	f, err := os.OpenFile(name, flag, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil, fmt.Errorf("%s exists: use -y to overwrite it (%w)", name, fs.ErrExist)
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s is a symbolic link: logs are not written through links", name)
	case err != nil:
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: another writer has the log open (%v)", name, err)
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &blgRecorder{f: f, name: name, opts: opts}, nil
}

func (r *blgRecorder) Name() string { return r.name }

// start makes the counter list from the query's first sample and writes
// the log's header and list.
func (r *blgRecorder) start(q *pdh.Query) error {
	loc := r.opts.Location
	if loc == nil {
		loc = time.Local
	}
	h := blg.Header{Zone: blg.ZoneOf(loc, r.opts.Rule, q.Time()), Start: time.Now(), OriginalPath: r.name}
	if s, err := q.Sample(); err == nil && s != nil && len(s.Blocks) > 0 {
		_, h.PerfFreq, _ = s.Blocks[0].Clocks()
	}
	var list []blg.Counter
	identified := map[string]bool{}
	for k, c := range q.Counters() {
		p := c.Path()
		m := p.Machine
		if m == "" {
			m = q.Machine()
		}
		e := blg.Counter{Machine: `\\` + strings.TrimPrefix(m, `\\`), Object: p.Object, Parent: p.Parent, Instance: p.Instance, Name: p.Counter}
		if p.HasIndex && p.Index > 0 {
			e.Index = uint32(p.Index)
		}
		multi := strings.ContainsAny(p.Instance, "*?")
		if multi {
			e.Instance, e.Parent, e.Index = "*", "", 0
		}
		if multi && strings.ContainsAny(p.Parent, "*?") {
			e.Parent = "*"
		}
		raws := c.Raw()
		if multi {
			for _, r := range raws {
				if r.Path.Parent != "" {
					e.Parent = "*" // Thread(*/*): the items name their parents
					break
				}
			}
		}
		info := c.Info()
		typed := func(name string) blg.Counter {
			e := e
			e.Name = name
			e.Type, e.Scale = info.Type, info.DefaultScale
			e.TimeBase = timeBase(e.Type, h.PerfFreq)
			for _, r := range raws {
				if r.Path.Counter == name || name == p.Counter {
					e.Type, e.Scale = r.Type, r.Scale
					if r.Raw.Freq != 0 {
						e.TimeBase = int64(r.Raw.Freq)
					}
					break
				}
			}
			return e
		}
		if !strings.ContainsAny(p.Counter, "*?") {
			list = append(list, typed(p.Counter))
			r.cols = append(r.cols, blgColumn{c: c, k: k, multi: multi})
		} else {
			seen := map[string]bool{}
			for _, raw := range raws {
				if n := raw.Path.Counter; !seen[n] {
					seen[n] = true
					list = append(list, typed(n))
					r.cols = append(r.cols, blgColumn{c: c, k: k, name: n, multi: multi})
				}
			}
		}
		// The counters that identify the object's instances between
		// samples go with it, once per machine and object (Identity).
		if !multi || identified[e.Machine+`\`+e.Object] {
			continue
		}
		seen := map[string]bool{}
		for _, raw := range c.IdentityRaw() {
			n := raw.Path.Counter
			if seen[n] {
				continue
			}
			seen[n] = true
			identified[e.Machine+`\`+e.Object] = true
			id := e
			id.Name, id.Type, id.Scale, id.TimeBase, id.Identity = n, raw.Type, raw.Scale, int64(raw.Raw.Freq), true
			list = append(list, id)
			r.cols = append(r.cols, blgColumn{c: c, k: k, name: n, multi: true, identity: true})
		}
	}
	if len(list) == 0 {
		return errors.New("the query has no counter a BLG can list (a counter path whose counters are not known at the first sample)")
	}
	w, err := blg.NewWriter(r.f, h)
	if err != nil {
		return err
	}
	if err := w.WriteList(q.Time(), list); err != nil {
		return err
	}
	r.w = w
	r.ents = make([]blg.Entry, len(list))
	n := len(q.Counters())
	r.got, r.read = make([]bool, n), make([]rawRead, n)
	r.idGot, r.idRead = make([]bool, n), make([]rawRead, n)
	for i := range r.cols {
		r.cols[i].timed = secondIsTime(list[i].Type)
	}
	return nil
}

// rawRead is where a query counter's values of a sample lie in
// blgRecorder.vals and names (Counter.AppendRaw), and its columns.
type rawRead struct {
	vals, nvals, names, nnames int
	cols                       []string
}

// timeBase is the frequency of the time stamps of a counter type: 10 MHz
// for the 100-ns types, the tick frequency for the others.
func timeBase(t countertype.Type, perfFreq int64) int64 {
	if t&countertype.PERF_TIMER_100NS != 0 && t&countertype.PERF_OBJECT_TIMER == 0 {
		return 10_000_000
	}
	return perfFreq
}

// WriteQuery writes the sample q last collected.
func (r *blgRecorder) WriteQuery(_ context.Context, q *pdh.Query) error {
	if r.w == nil {
		if err := r.start(q); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
	}
	counters := q.Counters()
	clear(r.got)
	clear(r.idGot)
	vals, names := r.vals[:0], r.names[:0]
	for _, col := range r.cols {
		if col.k >= len(counters) {
			continue
		}
		read, got := &r.read[col.k], &r.got[col.k]
		if col.identity {
			read, got = &r.idRead[col.k], &r.idGot[col.k]
		}
		if *got {
			continue
		}
		*got = true
		read.vals, read.names = len(vals), len(names)
		if col.identity {
			vals, names, read.cols = counters[col.k].AppendIdentityRaw(vals, names)
		} else {
			vals, names, read.cols = counters[col.k].AppendRaw(vals, names)
		}
		read.nvals, read.nnames = len(vals)-read.vals, len(names)-read.names
	}
	r.vals, r.names = vals, names
	items := r.items[:0]
	for k, col := range r.cols {
		start := len(items)
		g := &r.read[col.k]
		if col.identity {
			g = &r.idRead[col.k]
		}
		if g.nnames > 0 && len(g.cols) > 0 {
			ci := 0
			if col.name != "" {
				ci = slices.Index(g.cols, col.name)
			}
			n := len(g.cols)
			for row := 0; ci >= 0 && row < g.nnames; row++ {
				v := &vals[g.vals+row*n+ci]
				if !v.Status.OK() && col.multi {
					continue // a list has one status: only values go in it
				}
				items = append(items, blg.Item{Instance: names[g.names+row], Value: rawValueOf(col.timed, *v)})
				if !col.multi {
					break
				}
			}
		}
		r.ents[k] = blg.Entry{}
		if len(items) > start {
			r.ents[k].Items = items[start:len(items):len(items)]
		}
	}
	r.items = items
	if err := r.w.WriteSample(q.Time(), r.ents); err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	return nil
}

// rawValue is a raw item as a PDH_RAW_COUNTER: SecondValue the base of a
// type with one (the time of PERF_COUNTER_MULTI_BASE types, whose base is
// the multi count), else the time stamp of the type's time base, what
// the BLG reader rebuilds the clocks from (FORMAT.md §2).
// secondIsTime reports the types whose SecondValue is the time stamp
// (rawValue).
func secondIsTime(t countertype.Type) bool {
	switch bt, ok := t.Base(); {
	case ok:
		return bt == countertype.PERF_COUNTER_MULTI_BASE
	default:
		return t.NeedsTwoSamples() || t == countertype.PERF_ELAPSED_TIME
	}
}

// rawValueOf is rawValue with secondIsTime decided.
func rawValueOf(timed bool, r calc.Raw) rawlog.Value {
	v := rawlog.Value{Status: cstatus(r.Status), First: int64(r.FirstValue), Second: int64(r.SecondValue), Multi: uint32(r.MultiCount)}
	if timed {
		v.Second = int64(r.Time)
	}
	return v
}

// cstatus is a calc status as a PDH CStatus (calc's statuses are PDH's
// codes).
func cstatus(s calc.Status) uint32 { return uint32(s) }

func (r *blgRecorder) Close() error {
	var err error
	if r.w != nil {
		err = r.w.Close()
	} else {
		// No sample: a log with its header only.
		w, werr := blg.NewWriter(r.f, blg.Header{Zone: blg.ZoneOf(r.opts.Location, r.opts.Rule, time.Now()), OriginalPath: r.name})
		if werr == nil {
			werr = w.Close()
		}
		err = werr
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}
