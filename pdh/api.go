package pdh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sort"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
)

// ErrClosed is what a closed query answers (PdhCloseQuery's handle, no
// longer valid).
var ErrClosed = errors.New("pdh: the query is closed")

// Close ends the query (PdhCloseQuery): its counters are removed and
// their memory released, and every later Collect or AddCounter answers
// ErrClosed (Every ends). The source is the caller's: Close does not
// close it. Closing twice is not an error.
func (q *Query) Close() error {
	q.closed = true
	q.counters, q.objs, q.want = nil, nil, nil
	q.catalog, q.prime, q.wantCtrs = nil, nil, nil
	clear(q.found)
	return nil
}

// RemoveCounter takes c out of the query (PdhRemoveCounter): later
// samples no longer read its values, and an object no other counter of
// the query reads is no longer asked of the source. c's values must not
// be used afterwards. A counter of another query, or one removed already,
// is an error.
func (q *Query) RemoveCounter(c *Counter) error {
	if q.closed {
		return ErrClosed
	}
	i := slices.Index(q.counters, c)
	if i < 0 || c.q != q {
		return errors.New("pdh: RemoveCounter: not a counter of this query")
	}
	q.counters = slices.Delete(q.counters, i, i+1)
	q.wantCtrs = nil
	c.q = nil
	if !slices.ContainsFunc(q.counters, func(o *Counter) bool { return o.obj == c.obj }) {
		q.objs = slices.DeleteFunc(q.objs, func(s *objState) bool { return s == c.obj })
		if !slices.ContainsFunc(q.objs, func(s *objState) bool { return s.index == c.obj.index }) {
			q.want = slices.DeleteFunc(q.want, func(x uint32) bool { return x == c.obj.index })
		}
	}
	return nil
}

// Every collects a sample every interval until ctx is done, as
// PdhCollectQueryDataEx signals each new sample: the loop's body runs
// after each Collect, with its error (nil when the sample was taken),
// and ends the loop by returning. A live source is collected at once and
// then every interval; a recorded one sample after sample without
// waiting, until its end (io.EOF ends the loop quietly). A failed Collect
// of a live source is yielded and the loop goes on at the next tick.
//
//	for err := range q.Every(ctx, time.Second) {
//		if err != nil { log.Print(err); continue }
//		v, _ := c.Formatted(calc.FmtDouble)
//	}
func (q *Query) Every(ctx context.Context, interval time.Duration) iter.Seq[error] {
	return func(yield func(error) bool) {
		if interval <= 0 {
			interval = time.Second
		}
		live := q.src.Recorded() == nil
		var tick *time.Ticker
		if live {
			tick = time.NewTicker(interval)
			defer tick.Stop()
		}
		for {
			if err := ctx.Err(); err != nil {
				return
			}
			err := q.Collect(ctx)
			if errors.Is(err, io.EOF) || errors.Is(err, ErrClosed) || (err != nil && ctx.Err() != nil) {
				return
			}
			if !yield(err) {
				return
			}
			if !live {
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}
}

// SetTimeRange limits a recorded source to the samples from begin to end,
// both included (PdhSetQueryTimeRange): the source is moved to the first
// sample at or after begin, and Collect (and Every) answer io.EOF after
// the last sample at or before end. A zero begin or end leaves that
// side open. A live source has no range to set: an error.
func (q *Query) SetTimeRange(begin, end time.Time) error {
	rec := q.src.Recorded()
	if rec == nil {
		return errors.New("pdh: SetTimeRange: the source is live, not a recording")
	}
	if !begin.IsZero() && !end.IsZero() && end.Before(begin) {
		return fmt.Errorf("pdh: SetTimeRange: end %s before begin %s", end.Format(time.RFC3339), begin.Format(time.RFC3339))
	}
	i := 0
	if !begin.IsZero() {
		// Recordings are in time order (Merge and BlockFiles sort theirs).
		i = sort.Search(rec.Len(), func(k int) bool { return !rec.Time(k).Before(begin) })
	}
	q.rangeEnd = end
	q.catalog = nil
	return rec.Seek(i)
}

// ValidatePath checks a counter path's syntax and that it exists in a
// sample of src (PdhValidatePath): nil, or a *counterpath error for the
// syntax, or a *PathError whose Status is PDH's (NoMachine, NoObject,
// NoCounter, NoInstance) and whose message says what exists instead. A
// wildcard path is valid when its object and counter exist.
func ValidatePath(ctx context.Context, src Source, path string) error {
	if _, err := counterpath.Parse(path); err != nil {
		return fmt.Errorf("pdh: %w", err)
	}
	q := OpenQuery(src)
	defer q.Close()
	_, err := q.AddCounterContext(ctx, path)
	return err
}

// DefaultObject returns the name of the source's default object
// (PdhGetDefaultPerfObject): the object a block's header names as its
// default (Processor on Windows), else the first object of the sample.
func DefaultObject(ctx context.Context, src Source) (string, error) {
	smp, err := peek(ctx, src, nil)
	if err != nil {
		return "", err
	}
	db := src.Titles()
	var first uint32
	for _, blk := range smp.Blocks {
		if d := blk.Header().DefaultObject; d > 0 {
			for it := blk.Objects(); it.Next(); {
				if it.Object().NameIndex() == uint32(d) {
					return titleName(db, uint32(d)), nil
				}
			}
		}
		if first == 0 {
			if it := blk.Objects(); it.Next() {
				first = it.Object().NameIndex()
			}
		}
	}
	if first == 0 {
		return "", errors.New("pdh: DefaultObject: the source has no object")
	}
	return titleName(db, first), nil
}

// DefaultCounter returns the name of object's default counter
// (PdhGetDefaultPerfCounter): the definition its PERF_OBJECT_TYPE names
// (DefaultCounter), else its first counter. An object the source does not
// have is a *PathError (NoObject).
func DefaultCounter(ctx context.Context, src Source, object string) (string, error) {
	p := counterpath.Path{Object: object, Counter: "*"}
	path := p.String()
	db := src.Titles()
	var catalog *Sample
	l, err := locate(ctx, src, db, p, path, &catalog, blockSystem)
	if err != nil {
		return "", err
	}
	n := l.obj.NumCounters()
	if d := int(l.obj.DefaultCounter()); d >= 0 && d < n && !l.obj.Counter(d).Type.IsBase() {
		return titleName(db, l.obj.Counter(d).NameIndex), nil
	}
	for i := range n {
		if def := l.obj.Counter(i); !def.Type.IsBase() {
			return titleName(db, def.NameIndex), nil
		}
	}
	return "", &PathError{Path: path, Part: "counter", Object: titleName(db, l.obj.NameIndex()), Status: calc.NoCounter,
		Msg: fmt.Sprintf("object %q has no counters", titleName(db, l.obj.NameIndex()))}
}
