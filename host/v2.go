package host

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/shm"
)

// v2Source serves the registered V2 counter sets from the providers'
// shared-memory segments. All sets of one sample share one scan of the
// segment directory: the first set collected in a sample (an engine
// Collection) scans. The engine serialises collection, so no lock is
// needed here.
type v2Source struct {
	scanner *shm.Scanner
	log     *slog.Logger
	scanned uint64 // the Collection.Seq segs belong to; 0 = none yet
	segs    []shm.SegmentSnapshot
	// Reasons logged during the previous and the current scan, so that a
	// segment that keeps failing is reported once, and again only after
	// it recovered or its reason changed.
	lastReported, reported map[string]string
	// resErr is set when the scan ran out of a resource (descriptors,
	// memory): the sets it lists may be incomplete, and the objects say so
	// rather than showing providers as absent.
	resErr error
}

func newV2Source(dir string, log *slog.Logger) *v2Source {
	if dir == "" {
		dir = shm.DefaultDir
	}
	return &v2Source{scanner: shm.NewScanner(dir), log: log, lastReported: map[string]string{}, reported: map[string]string{}}
}

func (v *v2Source) close() { v.scanner.Close() }

// scan returns the segments of the current sample, scanning once per
// sample. Segments are ordered by owner pid, so "the first provider" of a
// single-instance set is stable from sample to sample.
func (v *v2Source) scan(seq uint64) []shm.SegmentSnapshot {
	if v.scanned != 0 && v.scanned == seq {
		return v.segs
	}
	v.lastReported, v.reported = v.reported, v.lastReported
	clear(v.reported)
	segs, errs := v.scanner.Scan()
	v.resErr = nil
	slices.SortFunc(segs, func(a, b shm.SegmentSnapshot) int {
		return cmp.Or(cmp.Compare(a.PID, b.PID), strings.Compare(a.Path, b.Path))
	})
	for _, err := range errs {
		if shm.IsResourceError(err) && v.resErr == nil {
			v.resErr = err
		}
		key := err.Error()
		var se *shm.SegmentError
		if errors.As(err, &se) {
			key = se.Path
		}
		v.report(key, "provider segment left out", err)
	}
	v.segs, v.scanned = segs, seq
	return segs
}

// report logs a problem once while it persists.
func (v *v2Source) report(key, msg string, err error) {
	text := msg + ": " + err.Error()
	if v.lastReported[key] != text {
		v.log.Warn(msg, "reason", err)
	}
	v.reported[key] = text
}

// v2Set is one registered counter set as an engine object.
type v2Set struct {
	v    *v2Source
	set  *counterset.Set // as registered: fixed title indexes
	guid string          // normalised counter-set GUID
	// publishers are the uids allowed to publish the set (the
	// registration's, root when it names none).
	publishers []uint32

	// Scratch reused across samples.
	idx      []int      // registered counter i -> position in a provider's set, -1 absent
	identity bool       // idx maps every counter to the same position
	vals     []uint64   // rows of values, in registered counter order
	rows     [][]uint64 // views into vals
	names    []string   // instance name of each row
	agg      []uint64
	sub      [][]uint64

	timeAt, freqAt int // registered counters holding the object time and frequency, -1 none
}

func newV2Set(v *v2Source, set *counterset.Set, guid string, publishers []uint32) *v2Set {
	if len(publishers) == 0 {
		publishers = []uint32{0}
	}
	s := &v2Set{v: v, set: set, guid: guid, publishers: publishers, timeAt: -1, freqAt: -1}
	for _, c := range set.Counters {
		tid, fid, ok := c.ObjectTimer()
		if !ok {
			continue
		}
		for i, d := range set.Counters {
			if d.ID == tid {
				s.timeAt = i
			}
			if d.ID == fid {
				s.freqAt = i
			}
		}
		break
	}
	return s
}

func (s *v2Set) object() engine.Object {
	return engine.Object{Set: s.set, Collect: s.collect}
}

// sameGUID compares GUIDs with or without braces, in any case.
func sameGUID(a, b string) bool {
	trim := func(g string) string { return strings.TrimSuffix(strings.TrimPrefix(g, "{"), "}") }
	return strings.EqualFold(trim(a), trim(b))
}

// mapCounters matches a provider's published set to the registered one by
// counter id. A counter the provider does not publish reads 0; a counter
// published with another type would give wrong numbers, so that provider's
// data for the set is refused.
func (s *v2Set) mapCounters(path string, pub *counterset.Set) bool {
	reg := s.set.Counters
	s.idx = s.idx[:0]
	s.identity = len(pub.Counters) == len(reg)
	for i := range reg {
		j := -1
		if i < len(pub.Counters) && pub.Counters[i].ID == reg[i].ID {
			j = i
		} else {
			j = slices.IndexFunc(pub.Counters, func(c counterset.Counter) bool { return c.ID == reg[i].ID })
		}
		if j >= 0 && pub.Counters[j].Type != reg[i].Type {
			s.v.report(path+"\x00"+s.guid, "provider's counter set does not match its registration",
				fmt.Errorf("segment %s, set %s, counter id %d: published as %v, registered as %v", path, s.set.Name, reg[i].ID, pub.Counters[j].Type, reg[i].Type))
			return false
		}
		s.idx = append(s.idx, j)
		s.identity = s.identity && j == i
	}
	return true
}

// gather copies the rows of every live provider of the set, in the
// registered counter order.
func (s *v2Set) gather(seq uint64) {
	n := len(s.set.Counters)
	s.vals, s.names = s.vals[:0], s.names[:0]
	segs := s.v.scan(seq)
	for si := range segs {
		for _, ss := range segs[si].Sets {
			if !sameGUID(ss.Set.GUID, s.guid) {
				continue
			}
			// The publisher is the owner of the segment's directory and
			// file (checked on the open descriptor), never what the
			// segment says about itself.
			if uid := segs[si].UID; !slices.Contains(s.publishers, uid) {
				s.v.report(segs[si].Path+"\x00"+s.guid, "counter set data from a publisher its registration does not allow ignored",
					fmt.Errorf("segment %s (uid %d) publishes counter set %s %s, registered for uids %v only (lodctr records who may publish)", segs[si].Path, uid, s.set.Name, s.guid, s.publishers))
				continue
			}
			if !s.mapCounters(segs[si].Path, ss.Set) {
				continue
			}
			s.vals = slices.Grow(s.vals, len(ss.Instances)*n)
			for _, in := range ss.Instances {
				at := len(s.vals)
				s.vals = s.vals[:at+n]
				row := s.vals[at:]
				if s.identity && len(in.Values) >= n {
					copy(row, in.Values)
				} else {
					for i, j := range s.idx {
						row[i] = 0
						if j >= 0 && j < len(in.Values) {
							row[i] = in.Values[j]
						}
					}
				}
				s.names = append(s.names, in.Name)
			}
		}
	}
	s.rows = s.rows[:0]
	for k := range s.names {
		s.rows = append(s.rows, s.vals[k*n:(k+1)*n:(k+1)*n])
	}
}

// collect writes one sample of the set. Single-instance sets always have
// their one counter block: the first provider's (lowest pid) for a single
// set, all providers aggregated for a globalAggregate set, and when no
// provider runs a block of placeholders marked unavailable ("provider not
// running"), never a valid 0. Multi-instance sets list every live instance of every
// provider (none when no provider runs), multipleAggregate sets with a
// _Total instance, instanceAggregate sets with one row per instance name.
func (s *v2Set) collect(c *engine.Collection, w engine.Writer) error {
	s.gather(c.Seq())
	if err := s.v.resErr; err != nil {
		return fmt.Errorf("provider segments could not all be read: %w", err)
	}
	set := s.set
	var first []uint64
	switch set.Instancing {
	case counterset.Single, counterset.GlobalAggregate, counterset.GlobalAggregateHistory:
		if len(s.rows) == 0 {
			// No provider: the block has its one instance, but its
			// zeros are placeholders, not values.
			w.Single()
			c.Unavailable()
			c.Partial("provider not running: no segment publishes counter set " + set.Name)
			break
		}
		if set.Instancing == counterset.Single {
			first = s.rows[0]
		} else {
			s.agg = shm.Aggregate(s.agg, set, s.rows)
			first = s.agg
		}
		put(w.Single(), first)
	case counterset.InstanceAggregate:
		done := make(map[string]bool, len(s.names))
		for k, name := range s.names {
			key := strings.ToLower(name)
			if done[key] {
				continue
			}
			done[key] = true
			s.sub = s.sub[:0]
			for j := k; j < len(s.names); j++ {
				if strings.EqualFold(s.names[j], name) {
					s.sub = append(s.sub, s.rows[j])
				}
			}
			s.agg = shm.Aggregate(s.agg, set, s.sub)
			put(w.Instance(name, 0, 0, perfdata.NoUniqueID), s.agg)
			if first == nil {
				first = s.rows[k]
			}
		}
		s.writeTotal(w)
	default: // Multiple, MultipleAggregate
		for k, name := range s.names {
			put(w.Instance(name, 0, 0, perfdata.NoUniqueID), s.rows[k])
		}
		if len(s.rows) > 0 {
			first = s.rows[0]
		}
		if set.Instancing == counterset.MultipleAggregate {
			s.writeTotal(w)
		}
	}
	if s.timeAt >= 0 && s.freqAt >= 0 && first != nil {
		w.SetObjectTime(int64(first[s.timeAt]), int64(first[s.freqAt]))
	}
	return nil
}

func (s *v2Set) writeTotal(w engine.Writer) {
	s.agg = shm.Aggregate(s.agg, s.set, s.rows)
	put(w.Instance(shm.TotalInstanceName, 0, 0, perfdata.NoUniqueID), s.agg)
}

func put(v perfdata.Values, row []uint64) {
	for i, x := range row {
		v.Set(i, x)
	}
}
