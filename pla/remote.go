package pla

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// Computer is another computer's live source, as Options.OpenComputer
// opens it for the sets that record that computer.
type Computer struct {
	// Source is the computer's live source (a remote.Client of its perfc
	// serve). Its Sample must return when its context ends. A source that
	// connects first (pdh.Connector: a client fetching the computer's
	// title database) is connected when a set that records it starts.
	Source pdh.Source
	// Timeout bounds the computer's share of a sample: a computer slower
	// than this has no data in that sample (pdh.DefaultMemberTimeout when
	// 0).
	Timeout time.Duration
	// Close releases the source when the last set that records the
	// computer stops (nil: nothing to release).
	Close func() error
}

// computer is another computer that running sets record: opened once
// (Options.OpenComputer) for every set of the service that names it,
// closed with the last of them. A sampler in front of it lets the sets
// of one tick share one request.
type computer struct {
	name    string // as the set that opened it first wrote it
	src     pdh.Source
	timeout time.Duration
	close   func() error
	sampler *pdh.Sampler
	refs    int // sets that record it
}

// foldComputer is a computer name as the service keys computers:
// without leading backslashes, in lower case (Windows compares computer
// names without case).
func foldComputer(name string) string { return strings.ToLower(strings.TrimLeft(name, `\`)) }

// isLocal reports whether a computer name of a set is this computer: no
// name, ".", "localhost", or a name Options.IsLocal says is this
// computer's.
func (s *Service) isLocal(name string) bool {
	name = strings.TrimLeft(name, `\`)
	if name == "" || name == "." || strings.EqualFold(name, "localhost") {
		return true
	}
	return s.opts.IsLocal != nil && s.opts.IsLocal(name)
}

// route gives each counter path of the set its computer, as typeperf
// does with -s: a path that names none is read from the set's Server
// (-s) when that is another computer, a path that names this computer
// loses the name (its counters are this computer's, named as its samples
// name it), a path that names another computer keeps it. It returns the
// paths so routed and the other computers, in the order first named
// (spelt as first written). A path that does not parse is left for
// AddCounter to report.
func (s *Service) route(set *collectorset.Set, raw []string) (paths, computers []string) {
	server := strings.TrimLeft(set.Server, `\`)
	if s.isLocal(server) {
		server = ""
	}
	paths = make([]string, 0, len(raw))
	for _, path := range raw {
		p, err := counterpath.Parse(path)
		if err != nil {
			paths = append(paths, path)
			continue
		}
		switch {
		case p.Machine == "" && server == "":
			paths = append(paths, path)
			continue
		case p.Machine == "":
			p.Machine = server
		case s.isLocal(p.Machine):
			p.Machine = ""
			paths = append(paths, p.String())
			continue
		}
		if !slices.ContainsFunc(computers, func(c string) bool { return strings.EqualFold(c, p.Machine) }) {
			computers = append(computers, p.Machine)
		}
		paths = append(paths, p.String())
	}
	return paths, computers
}

// acquire returns the service's computer name, opening it
// (Options.OpenComputer, which is set) when no running set records it
// yet, and counts one more use of it (s.mu held).
func (s *Service) acquire(name string) (*computer, error) {
	k := foldComputer(name)
	if c, ok := s.computers[k]; ok {
		c.refs++
		return c, nil
	}
	oc, err := s.opts.OpenComputer(name)
	if err != nil {
		return nil, err
	}
	if oc == nil || oc.Source == nil {
		return nil, fmt.Errorf("computer %s: no source", name)
	}
	if oc.Source.Recorded() != nil {
		if oc.Close != nil {
			oc.Close()
		}
		return nil, fmt.Errorf("computer %s: a recorded source is not a computer to record", name)
	}
	timeout := oc.Timeout
	if timeout <= 0 {
		timeout = pdh.DefaultMemberTimeout
	}
	c := &computer{name: name, src: oc.Source, timeout: timeout, close: oc.Close, refs: 1,
		// A collection of the computer is shared within a tick as this
		// computer's are (sampleAge), and ends within its timeout.
		sampler: pdh.NewSampler(oc.Source, pdh.SamplerOptions{MaxAge: sampleAge, Timeout: timeout})}
	s.computers[k] = c
	return c, nil
}

// release drops r's use of its computers, closing those no running set
// records any more (s.mu held).
func (s *Service) release(r *run) {
	if r.fleet == nil {
		return
	}
	for _, m := range r.fleet.members {
		c := m.c
		if c.refs--; c.refs > 0 {
			continue
		}
		delete(s.computers, foldComputer(c.name))
		if c.close != nil {
			if err := c.close(); err != nil {
				r.wl.Warn(fmt.Sprintf("Data Collector Set %q: closing computer %s: %v", r.set.Name, c.name, err))
			}
		}
	}
	r.fleet.members = nil
}

// fleetRun is how a set that records other computers reads them: a
// pdh.Fleet whose first member is the set's view of this computer and
// whose other members are the set's views of the shared computers.
type fleetRun struct {
	fleet   *pdh.Fleet
	local   *localMember
	members []*member
	// pending are the paths of computers that did not answer when the set
	// started and whose object this computer does not know, by computer
	// (folded name): added when their computer answers.
	pending map[string][]string
	// retrying is the computer (folded name) whose pending paths are
	// being added, "" none: the other members, this computer's too,
	// answer with nothing, so that adding them asks no other computer
	// (and leaves what the set's collections ask of this one alone).
	retrying string
}

// localMember is the set's view of this computer as its fleet's first
// member.
type localMember struct {
	fr *fleetRun
	v  *view
	// answered says that the last sample of the fleet had this
	// computer's blocks.
	answered bool
}

func (l *localMember) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if l.fr.retrying != "" {
		return &pdh.Sample{}, nil
	}
	smp, err := l.v.Sample(ctx, objects)
	l.answered = err == nil && len(smp.Blocks) > 0
	return smp, err
}

func (l *localMember) Titles() *titles.DB     { return l.v.Titles() }
func (l *localMember) Recorded() pdh.Recorded { return nil }

// member is the set's view of one shared computer: the computer's
// collections through a view of its own (never the same collection
// twice), and what the computer last answered the set.
type member struct {
	fr   *fleetRun
	c    *computer
	view pdh.Source
	key  string // folded name
	// asked says that the computer was asked since the set last looked
	// (watch), err what it answered (nil: a sample).
	asked bool
	err   error
	// down is the reason it did not answer as last warned ("": it
	// answers, or has not been asked yet).
	down string
	// answeredOnce says that the computer answered a sample of the set.
	answeredOnce bool
}

func (m *member) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if m.fr.retrying != "" && m.fr.retrying != m.key {
		return &pdh.Sample{}, nil
	}
	smp, err := m.view.Sample(ctx, objects)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	m.asked, m.err = true, err
	m.answeredOnce = m.answeredOnce || err == nil
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		m.err = fmt.Errorf("no answer within %v", m.c.timeout)
	}
	return smp, err
}

// neverAnswered names the set's computers that answered none of its
// samples: their counters have no value in its log.
func (fr *fleetRun) neverAnswered() []string {
	var names []string
	for _, m := range fr.members {
		if !m.answeredOnce {
			names = append(names, m.c.name)
		}
	}
	return names
}

// Connect connects the shared source (once; a client already connected
// does nothing).
func (m *member) Connect(ctx context.Context) error {
	conn, ok := m.c.src.(pdh.Connector)
	if !ok {
		return nil
	}
	err := conn.Connect(ctx)
	m.asked, m.err = true, err
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		m.err = fmt.Errorf("no answer within %v", m.c.timeout)
	}
	return err
}

func (m *member) Titles() *titles.DB     { return m.c.src.Titles() }
func (m *member) Recorded() pdh.Recorded { return nil }

// fleetSource is the set's fleet as its query's source: the fleet's
// samples, stamped with this computer's time when this computer has no
// block in them (a set of other computers' counters only), so that a
// log's times come from one clock, this computer's, whichever computer
// answered.
type fleetSource struct {
	*pdh.Fleet
	fr *fleetRun
}

// SampleMachines is the fleet's.
func (f fleetSource) SampleMachines(ctx context.Context, want map[string][]uint32) (*pdh.Sample, error) {
	f.fr.local.answered = false
	smp, err := f.Fleet.SampleMachines(ctx, want)
	if err == nil && !f.fr.local.answered {
		smp.Time = time.Now().UTC()
	}
	return smp, err
}

// Sample is the fleet's.
func (f fleetSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	f.fr.local.answered = false
	smp, err := f.Fleet.Sample(ctx, objects)
	if err == nil && !f.fr.local.answered {
		smp.Time = time.Now().UTC()
	}
	return smp, err
}

// openFleet opens the fleet of r (whose query reads this computer
// through r.v) and the computers named, each shared with the other sets
// that record it. A computer that cannot be opened (not in the hosts
// file, its credentials unreadable) costs its counters: they are left
// out with a warning, and returned in dropped with the reason. A
// computer that does not answer now joins the fleet: its counters are
// resolved by name and have no data until it answers.
func (s *Service) openFleet(ctx context.Context, r *run, computers []string) (fr *fleetRun, dropped map[string]error, err error) {
	fr = &fleetRun{pending: map[string][]string{}}
	fr.local = &localMember{fr: fr, v: r.v}
	// This computer's collection is the tick's, never "too slow" to
	// wait for, and never left out of the next sample for a failure.
	members := []pdh.Member{{Source: fr.local, Timeout: time.Hour, Retry: time.Nanosecond}}
	for _, name := range computers {
		c, err := s.acquire(name)
		if err != nil {
			if dropped == nil {
				dropped = map[string]error{}
			}
			dropped[foldComputer(name)] = err
			r.wl.Warn(fmt.Sprintf("Data Collector Set %q: %v; its counters are not recorded (fix the hosts file, then start the set again)", r.set.Name, err))
			continue
		}
		m := &member{fr: fr, c: c, view: c.sampler.View(), key: foldComputer(name)}
		fr.members = append(fr.members, m)
		members = append(members, pdh.Member{Machine: name, Source: m, Timeout: c.timeout})
	}
	r.fleet = fr // s.release drops the computers if the start fails from here on
	if len(fr.members) == 0 {
		return fr, dropped, nil
	}
	if fr.fleet, err = pdh.NewFleet(ctx, members...); err != nil {
		return fr, dropped, fmt.Errorf("set %q: %w", r.set.Name, err)
	}
	return fr, dropped, nil
}

// source is the fleet as the set's query reads it.
func (fr *fleetRun) source() pdh.Source { return fleetSource{Fleet: fr.fleet, fr: fr} }

// memberOf returns the member of the computer named (nil: none).
func (fr *fleetRun) memberOf(name string) *member {
	k := foldComputer(name)
	for _, m := range fr.members {
		if m.key == k {
			return m
		}
	}
	return nil
}

// add adds the set's routed paths to its query: one sample of every
// computer for all of them (Query.AddCounters). A path of a computer
// that did not answer, whose object this computer does not know either,
// is pending: it is added when the computer answers (retry). It returns
// the number added and the first error of a path neither added nor
// pending, or of a pending path when none was added.
func (fr *fleetRun) add(ctx context.Context, r *run, paths []string) (added int, first error) {
	_, errs := r.q.AddCounters(ctx, paths)
	var firstPending error
	for i, err := range errs {
		if err == nil {
			added++
			continue
		}
		if m := fr.pendingOf(paths[i], err); m != nil {
			fr.pending[m.key] = append(fr.pending[m.key], paths[i])
			why := ""
			if m.err != nil {
				why = " (" + trimComputer(m.err.Error(), m.c.name) + ")"
			}
			e := fmt.Errorf("%s: computer %s does not answer%s and this computer does not know the object", paths[i], m.c.name, why)
			r.wl.Warn(fmt.Sprintf("Data Collector Set %q: %v: the counter is added when %s answers", r.set.Name, e, m.c.name))
			if firstPending == nil {
				firstPending = e
			}
			continue
		}
		r.wl.Warn(fmt.Sprintf("Data Collector Set %q: %v", r.set.Name, strings.TrimPrefix(err.Error(), "pdh: ")))
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = firstPending
	}
	return added, first
}

// pendingOf returns the member whose path could not be checked because
// the computer did not answer (a "machine" PathError of a computer of the
// fleet), nil for any other error.
func (fr *fleetRun) pendingOf(path string, err error) *member {
	var pe *pdh.PathError
	if !errors.As(err, &pe) || pe.Part != "machine" {
		return nil
	}
	m, ok := pathComputer(path)
	if !ok {
		return nil
	}
	return fr.memberOf(m)
}

// pathComputer is the computer a path names ("", false: none, or a
// path that does not parse).
func pathComputer(path string) (string, bool) {
	p, err := counterpath.Parse(path)
	if err != nil || p.Machine == "" {
		return "", false
	}
	return p.Machine, true
}

// trimComputer drops a "NAME: " prefix (the fleet's, a client's) from a
// reason that already says which computer.
func trimComputer(reason, name string) string {
	if len(reason) > len(name)+1 && strings.EqualFold(reason[:len(name)], name) && reason[len(name)] == ':' {
		return strings.TrimSpace(reason[len(name)+1:])
	}
	return reason
}

// retry adds the pending paths of the computers that have any, at every
// sample of the set: adding one asks its computer alone (for the object
// when the fleet's titles name it, else for everything, whose titles the
// fleet learns), and only when the fleet's backoff for it has passed (1
// s after a failure, doubling up to 8 s). A path whose computer answers
// is added (its values start with the next sample) or, when the computer
// lacks it, dropped with a warning.
func (fr *fleetRun) retry(ctx context.Context, r *run) {
	defer func() { fr.retrying = "" }()
	for _, m := range fr.members {
		paths := fr.pending[m.key]
		if len(paths) == 0 {
			continue
		}
		fr.retrying = m.key
		var keep []string
		for _, p := range paths {
			_, err := r.q.AddCounterContext(ctx, p)
			switch {
			case err == nil:
				r.wl.Warn(fmt.Sprintf("Data Collector Set %q: computer %s answers: counter %s added", r.set.Name, m.c.name, p))
			case fr.pendingOf(p, err) != nil:
				keep = append(keep, p)
			default:
				r.wl.Warn(fmt.Sprintf("Data Collector Set %q: %v", r.set.Name, strings.TrimPrefix(err.Error(), "pdh: ")))
			}
		}
		if len(keep) == 0 {
			delete(fr.pending, m.key)
		} else {
			fr.pending[m.key] = keep
		}
	}
}

// watch warns when a computer of the set stops answering (or answers
// with another reason) and when it answers again, from what each
// computer answered since the last watch: a computer waiting out its
// backoff was not asked and keeps its state.
func (fr *fleetRun) watch(r *run) {
	for _, m := range fr.members {
		if !m.asked {
			continue
		}
		m.asked = false
		if m.err != nil {
			reason := trimComputer(m.err.Error(), m.c.name)
			if reason != m.down {
				m.down = reason
				r.wl.Warn(fmt.Sprintf("Data Collector Set %q: computer %s does not answer (%s): its counters have no data until it answers; it is asked again after %v, then twice as long each time up to %v",
					r.set.Name, m.c.name, reason, time.Second, 8*time.Second))
			}
			continue
		}
		if m.down != "" {
			m.down = ""
			r.wl.Warn(fmt.Sprintf("Data Collector Set %q: computer %s answers again; its counters have values again", r.set.Name, m.c.name))
		}
	}
}
