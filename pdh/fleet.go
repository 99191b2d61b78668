package pdh

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// DefaultMemberTimeout bounds a fleet member's sample when its Member
// sets no timeout.
const DefaultMemberTimeout = 2 * time.Second

// Backoff after a member fails (unless Member.Retry says otherwise): it is
// not asked again before the delay, which doubles with every failure in a
// row up to maxBackoff, so that a
// host that does not answer costs its timeout once per delay, not once
// per sample.
const (
	minBackoff = time.Second
	maxBackoff = 8 * time.Second
)

// Member is one machine of a Fleet: a live source and the name counter
// paths give it.
type Member struct {
	// Machine is the name `\\NAME\...` paths use for this member (compared
	// without case). Its blocks are given that system name when they carry
	// another. The first member is also the machine of paths that name
	// none.
	Machine string
	// Source is the machine's live source (the local host, a remote
	// client). Its Sample must return when its context ends: that is how
	// a slow member is left out.
	Source Source
	// Timeout bounds each sample of the member (DefaultMemberTimeout when
	// 0): a member slower than that is left out of the sample.
	Timeout time.Duration
	// Retry is the first wait after a failure before the member is asked
	// again (minBackoff, 1 s, when 0); it doubles with each failure in a
	// row, up to 8 times Retry.
	Retry time.Duration
}

// MachineSampler is a source of several machines that can be asked for
// different objects of each: Query.Collect uses it instead of Sample when
// its source has it, so that each machine is asked only for the objects
// the query's counters read of it. want is keyed by machine name in lower
// case ("" for the source's own machine); a machine that is not a key is
// not asked; a nil list asks for everything.
type MachineSampler interface {
	SampleMachines(ctx context.Context, want map[string][]uint32) (*Sample, error)
}

// Connector is a source that connects before its first sample (a remote
// host fetching its title database). A Fleet connects its members when
// it opens, all at once, each within its timeout.
type Connector interface {
	Connect(ctx context.Context) error
}

// Fleet is several live sources read as one, keyed by machine name: the
// local host and remote hosts in one query (`\\db7\...` beside local
// paths). Each sample asks every member concurrently, each within its own
// timeout, for the objects asked of it; a member that fails or is too slow
// costs only its own objects: they are absent from the sample and a
// Problem with its Machine (and no Object) says why, which a Query turns
// into the status NoData for that machine's counters. A member that
// failed is asked again after a backoff (1 s, doubling up to 8 s) and
// comes back when it answers; its rates start over.
//
// The fleet's title database is the union of the members' (as Merge
// builds it): the first member's indexes stay, another's move where they
// name something else, and its blocks and problems are rewritten with
// the moved numbers. A member that connects late (or learns new names)
// joins the union then.
//
// A Fleet is not safe for concurrent use; its members are sampled
// concurrently, each by one goroutine at a time.
type Fleet struct {
	members []*fleetMember
	db      *titles.DB
	notes   []string
	now     func() time.Time
}

type fleetMember struct {
	Member
	key     string // folded Machine
	remap   map[uint32]uint32
	titles  int // Len of the member's titles when it last joined the union
	joined  bool
	retryAt time.Time
	backoff time.Duration
	lastErr string
}

// NewFleet opens a fleet of live members (a recorded one is an error, as
// are two members of one name) and connects those that connect (in
// parallel, each within its timeout). A member that cannot connect now
// is not an error: it is named in Notes and is tried again by every
// sample after its backoff.
func NewFleet(ctx context.Context, members ...Member) (*Fleet, error) {
	if len(members) == 0 {
		return nil, errors.New("fleet: no member")
	}
	f := &Fleet{now: time.Now}
	seen := map[string]bool{}
	for _, m := range members {
		if m.Source == nil {
			return nil, fmt.Errorf("fleet: machine %s has no source", m.Machine)
		}
		if m.Source.Recorded() != nil {
			return nil, fmt.Errorf("fleet: machine %s: a recorded source cannot join live machines", m.Machine)
		}
		k := foldMachine(m.Machine)
		if seen[k] {
			return nil, fmt.Errorf("fleet: machine %s given twice", m.Machine)
		}
		seen[k] = true
		if m.Timeout <= 0 {
			m.Timeout = DefaultMemberTimeout
		}
		f.members = append(f.members, &fleetMember{Member: m, key: k})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(f.members))
	for i, m := range f.members {
		c, ok := m.Source.(Connector)
		if !ok {
			continue
		}
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, m.Timeout)
			defer cancel()
			errs[i] = c.Connect(cctx)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			m := f.members[i]
			m.fail(f.now(), err)
			f.notes = append(f.notes, fmt.Sprintf("%s: not connected: %v; its counters have no data until it answers", m.Machine, err))
		}
	}
	if err := f.unionTitles(); err != nil {
		return nil, err
	}
	return f, nil
}

// unionTitles builds the fleet's title database from the members that
// have titles now, with Merge's rule (Merged.unionTitles).
func (f *Fleet) unionTitles() error {
	m := &Merged{}
	var in []*fleetMember
	for _, fm := range f.members {
		if fm.Source.Titles().Len() == 0 {
			continue
		}
		m.inputs = append(m.inputs, mergeInput{name: fm.Machine, src: fm.Source})
		in = append(in, fm)
	}
	if len(in) == 0 {
		f.db = titles.New()
		return nil
	}
	if err := m.unionTitles(); err != nil {
		return err
	}
	f.db = m.db
	for i, fm := range in {
		fm.remap, fm.joined, fm.titles = m.inputs[i].remap, true, fm.Source.Titles().Len()
	}
	f.notes = append(f.notes, m.notes...)
	return nil
}

// join adds a member's titles to the union in place (a query holds the
// database): the union's entries keep their indexes (the union is the
// first input of Merge's rule), the member's move where the union names
// something else there.
func (f *Fleet) join(fm *fleetMember) error {
	m := &Merged{inputs: []mergeInput{
		{name: "fleet", src: fixedSource{db: f.db}},
		{name: fm.Machine, src: fm.Source},
	}}
	if err := m.unionTitles(); err != nil {
		return err
	}
	for _, e := range m.db.Entries() {
		if e.Name != "" && f.db.Name(e.Index) == "" {
			if err := f.db.SetAt(e.Index, e.Name, e.Help); err != nil {
				return fmt.Errorf("%s: title %d %q: %w", fm.Machine, e.Index, e.Name, err)
			}
		}
	}
	fm.remap, fm.joined, fm.titles = m.inputs[1].remap, true, fm.Source.Titles().Len()
	f.notes = append(f.notes, m.notes...)
	return nil
}

// Titles is the union of the members' title databases.
func (f *Fleet) Titles() *titles.DB { return f.db }

// Recorded returns nil: a fleet is live.
func (f *Fleet) Recorded() Recorded { return nil }

// Notes says what opening the fleet and joining late members did that
// its user should know: members not connected, title indexes moved.
func (f *Fleet) Notes() []string { return f.notes }

// Machines are the members' names, in order.
func (f *Fleet) Machines() []string {
	out := make([]string, len(f.members))
	for i, m := range f.members {
		out[i] = m.Machine
	}
	return out
}

// HasMachine reports whether name is a member's (compared without case).
func (f *Fleet) HasMachine(name string) bool {
	return f.member(foldMachine(name)) != nil
}

func (f *Fleet) member(key string) *fleetMember {
	for _, m := range f.members {
		if m.key == key {
			return m
		}
	}
	return nil
}

// Sample asks every member for the objects.
func (f *Fleet) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	want := make(map[string][]uint32, len(f.members))
	for _, m := range f.members {
		want[m.key] = objects
	}
	return f.SampleMachines(ctx, want)
}

// SampleMachines asks each member for the objects want lists under its
// name ("" is the first member), all at once, each within its timeout,
// and returns their blocks in member order. A member that fails, is too
// slow or is waiting out its backoff gives a Problem{Machine, Reason}
// instead of blocks. The sample's time is the first block's (now when
// no member answered).
func (f *Fleet) SampleMachines(ctx context.Context, want map[string][]uint32) (*Sample, error) {
	type answer struct {
		smp *Sample
		err error
	}
	asked := make([]bool, len(f.members))
	objs := make([][]uint32, len(f.members))
	for k, list := range want {
		m := f.member(k)
		i := slices.Index(f.members, m)
		if k == "" {
			i, m = 0, f.members[0]
		}
		if m == nil {
			continue
		}
		if asked[i] && (objs[i] == nil || list == nil) {
			objs[i] = nil
		} else {
			objs[i] = appendNew(objs[i], list)
		}
		asked[i] = true
	}
	answers := make([]answer, len(f.members))
	now := f.now()
	var wg sync.WaitGroup
	for i, m := range f.members {
		if !asked[i] || now.Before(m.retryAt) {
			continue
		}
		o := objs[i]
		if m.remap != nil && o != nil {
			o = (&mergeInput{remap: m.remap}).want(o)
		}
		wg.Go(func() {
			mctx, cancel := context.WithTimeout(ctx, m.Timeout)
			defer cancel()
			s, err := m.Source.Sample(mctx, o)
			if err == nil && mctx.Err() != nil {
				err = mctx.Err()
			}
			if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("no answer within %v", m.Timeout)
			}
			answers[i] = answer{s, err}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &Sample{}
	now = f.now()
	for i, m := range f.members {
		if !asked[i] {
			continue
		}
		a := answers[i]
		if a.smp == nil && a.err == nil { // waiting out its backoff
			// The same reason as its failure: a tool reports it once.
			out.Problems = append(out.Problems, Problem{Machine: m.Machine, Reason: m.lastErr})
			continue
		}
		if a.err == nil {
			a.err = f.take(m, a.smp, out)
		}
		if a.err != nil {
			m.fail(now, a.err)
			out.Problems = append(out.Problems, Problem{Machine: m.Machine, Reason: m.lastErr})
			continue
		}
		m.backoff, m.retryAt, m.lastErr = 0, time.Time{}, ""
	}
	if len(out.Blocks) > 0 {
		out.Time = blockTime(out.Blocks[0].Header())
	} else {
		out.Time = now.UTC()
	}
	return out, nil
}

// take adds a member's sample to out: its titles joined to the union
// when they are new or grew, its blocks renamed to the member's machine
// and renumbered where its indexes moved, its problems given its machine.
func (f *Fleet) take(m *fleetMember, s *Sample, out *Sample) error {
	if n := m.Source.Titles().Len(); !m.joined || n != m.titles {
		if err := f.join(m); err != nil {
			return err
		}
	}
	for _, b := range s.Blocks {
		var err error
		if m.Machine != "" {
			if b, err = WithSystemName(b, m.Machine); err != nil {
				return err
			}
		}
		if m.remap != nil {
			if b, err = remapBlock(b, m.remap); err != nil {
				return err
			}
		}
		out.Blocks = append(out.Blocks, b)
	}
	for _, p := range s.Problems {
		if m.remap != nil {
			p = remapProblem(p, m.remap)
		}
		if p.Machine == "" {
			p.Machine = m.Machine
		}
		out.Problems = append(out.Problems, p)
	}
	out.Gap = out.Gap || s.Gap
	return nil
}

// fail records a member's failure and its next try.
func (m *fleetMember) fail(now time.Time, err error) {
	first := m.Retry
	if first <= 0 {
		first = minBackoff
	}
	m.backoff = min(max(2*m.backoff, first), maxBackoff/minBackoff*first)
	m.retryAt = now.Add(m.backoff)
	msg := err.Error()
	if !strings.HasPrefix(strings.ToLower(msg), strings.ToLower(m.Machine)+":") {
		msg = m.Machine + ": " + msg
	}
	m.lastErr = msg
}

// appendNew appends the indexes of add that dst lacks.
func appendNew(dst, add []uint32) []uint32 {
	for _, x := range add {
		if !slices.Contains(dst, x) {
			dst = append(dst, x)
		}
	}
	return dst
}

// WithSystemName returns blk with its header's system name set to name:
// blk itself when it already carries name (compared without case), else
// a new copy (a block handed out in a sample is never rebuilt in place).
// A remote host's blocks carry the name the user gave the host, which
// paths match.
func WithSystemName(blk perfdata.Block, name string) (perfdata.Block, error) {
	h := blk.Header()
	if foldMachine(h.SystemName) == foldMachine(name) {
		return blk, nil
	}
	raw := blk.Bytes()
	if h.HeaderLength > h.TotalByteLength || int(h.TotalByteLength) > len(raw) {
		return blk, fmt.Errorf("block header: HeaderLength %d, TotalByteLength %d of %d bytes", h.HeaderLength, h.TotalByteLength, len(raw))
	}
	h.SystemName = name
	b := perfdata.NewBuilder(make([]byte, 0, len(raw)+len(name)*2+8))
	b.Reset(h)
	if err := b.AppendObjects(raw[h.HeaderLength:h.TotalByteLength], h.NumObjectTypes); err != nil {
		return blk, fmt.Errorf("block renamed to %s: %w", name, err)
	}
	return perfdata.Parse(b.Bytes())
}

// machineSample takes the query's sample: from a MachineSampler, each
// machine asked for the objects the query's counters read of it.
func (q *Query) machineSample(ctx context.Context) (*Sample, error) {
	ms, ok := q.src.(MachineSampler)
	if !ok {
		if cs, ok := q.src.(CounterSampler); ok && q.src.Recorded() == nil && len(q.want) > 0 {
			return cs.SampleCounters(ctx, q.want, q.wantCounters())
		}
		return q.src.Sample(ctx, q.want)
	}
	want := make(map[string][]uint32)
	for _, s := range q.objs {
		k := foldMachine(s.machine)
		if !slices.Contains(want[k], s.index) {
			want[k] = append(want[k], s.index)
		}
	}
	return ms.SampleMachines(ctx, want)
}

// machineDown reports whether the current sample says machine ("" for
// the sample's own) did not answer: a problem of the machine as a whole,
// and no block of it.
func (q *Query) machineDown(machine string) bool {
	if machine == "" {
		machine = q.system
	}
	fm := foldMachine(machine)
	for _, blk := range q.blocks {
		if q.systemOf(blk).fold == fm {
			return false
		}
	}
	for i := range q.problems {
		p := &q.problems[i]
		if p.Object == 0 && p.ObjectName == "" && p.Machine != "" && foldMachine(p.Machine) == foldMachine(machine) {
			return true
		}
	}
	return false
}

// addUnanswered adds a counter of a machine that is a member of the
// query's fleet but did not answer when the path was checked (err is the
// "machine" PathError of the check): its object is resolved by name in
// the title database and the rest of the path is checked when the
// machine answers; until then its values have the status NoData.
func (q *Query) addUnanswered(p counterpath.Path, err error) (*Counter, bool) {
	var pe *PathError
	f, ok := q.src.(interface{ HasMachine(string) bool })
	if !ok || p.Machine == "" || !errors.As(err, &pe) || pe.Part != "machine" || !f.HasMachine(p.Machine) {
		return nil, false
	}
	idx, ok := numeric(p.Object)
	if !ok {
		idx, ok = q.db.Index(p.Object)
	}
	if !ok {
		return nil, false
	}
	c := q.newCounter(p, idx, titleName(q.db, idx))
	q.counters = append(q.counters, c)
	return c, true
}
