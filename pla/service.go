package pla

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// Options configure a Service.
type Options struct {
	// NewSource opens the live source of this computer (the local host);
	// the service opens it when a set starts and none runs, collects
	// through one pdh.Sampler in front of it for every set, and closes
	// it when the last set stops.
	NewSource func() (pdh.Source, io.Closer, error)
	// OpenComputer opens the live source of another computer that a set
	// records, by the name the set gives it (-s, or \\NAME\ in a counter
	// path): the program reads it through that computer's perfc serve,
	// with the credentials of the hosts file of the user the collector
	// runs as. The service opens each computer once for every set that
	// records it and closes it when the last of them stops. nil: every
	// counter is looked for in this computer's samples (a path naming
	// another computer is not found there).
	OpenComputer func(name string) (*Computer, error)
	// IsLocal reports whether a computer name of a set is this computer
	// (its name, its full host name): its counters are read from
	// NewSource's source. "", "." and "localhost" are this computer
	// whatever it says; nil: only those.
	IsLocal func(name string) bool
	// MB is the number of bytes of -max's megabyte; 0 is 1 MiB (tests
	// make it smaller).
	MB int64
	// SQL configures SQL logs (data source names).
	SQL sqllog.Options
	// Warn receives messages about samples and sets (nil: none).
	Warn func(msg string)
	// Proc reads process identities; the zero Proc reads /proc.
	Proc Proc
	// Shared marks the records of the sets as run by a shared service
	// process (stopped by a request file, not a signal).
	Shared bool
	// Supervisor is the pid of the process that restarts this collector
	// when it crashes (Supervise); 0: none.
	Supervisor int
	// EventLog receives the events of alert sets with -el (nil: they are
	// kept in the sets' status files only).
	EventLog EventLogger
	// StartSet starts the set name of the state directory dir: an alert's
	// triggered set (-rdcs), always one of the alert's owner (nil: -rdcs
	// fails, said in the alert's status).
	StartSet func(dir, name string) error
	// ActionTimeout is how long a set's command (-tn, -rc) may run
	// before it is killed; 0 is DefaultActionTimeout.
	ActionTimeout time.Duration
	// Triggered: the sets this service starts were started by an alert
	// (-rdcs; the collector process gets TriggeredEnv). A set that writes
	// one log file, neither overwriting nor appending to it, then gets a
	// new file each run, numbered as -v nnnnnn numbers them, as Windows'
	// collector sets make a new run folder each time; otherwise its second
	// firing would fail with ErrFileExists.
	Triggered bool
}

// TriggeredEnv is the environment variable that tells a collector
// process (perfc logman service -run or -supervise) that an alert started
// its set: "1" sets Options.Triggered.
const TriggeredEnv = "PERFC_TRIGGERED_RUN"

// triggeredRun is def as a run started by an alert makes it: a new file
// each run when it would otherwise write one file it cannot overwrite or
// append to.
func triggeredRun(def *collectorset.Set) *collectorset.Set {
	c := &def.Collector
	if def.Alert != nil || c.LogFileFormat == collectorset.Sql || c.LogAppend || c.LogOverwrite || def.WritesSeries() {
		return def
	}
	run := def.Clone()
	run.Collector.FileNameFormat |= collectorset.FileNameSerialNumber
	return run
}

// Service runs collector sets in this process. Every set collects
// through one pdh.Sampler in front of the source: sets of the same
// sample interval share one collection per tick (a sample holding every
// object any of them reads, which each set's query reads from there),
// and groups of other intervals, or sets that start, within sampleAge of
// a collection share it too.
type Service struct {
	opts    Options
	ctx     context.Context
	mu      sync.Mutex
	groups  map[time.Duration]*group
	runs    map[string]*run
	wg      sync.WaitGroup
	sampler *pdh.Sampler // nil while no set runs
	closer  io.Closer    // the sampler's source's
	// computers are the other computers running sets record, by folded
	// name (foldComputer), each shared by the sets that name it.
	computers map[string]*computer
	// sampleAge is the sampler's MaxAge (the const sampleAge; a benchmark
	// that ticks back to back makes it tiny, so that no tick waits for
	// the next slot).
	sampleAge time.Duration
}

// sampleAge is how old a collection of the service's sampler may be and
// still serve a set that starts or another interval's tick: a tenth of
// the shortest sample interval, so that a set started just before a tick
// (which skips that tick, see tick) never gets one collection twice.
const sampleAge = time.Duration(collectorset.MinSampleInterval) * time.Second / 10

// run is one running set.
type run struct {
	key     string
	dir     string
	set     *collectorset.Set
	g       *group
	v       *view
	q       *pdh.Query
	fleet   *fleetRun // the other computers the set records; nil: this one only
	out     output
	stop    time.Time // zero: none
	samples uint32
	last    time.Time // when the last sample was written
	rec     *Record
	lock    *state.RunLock // held while the set runs here
	wl      *WarningLog
	act     *activity // the set's status file
	acts    *actions  // its commands
	done    chan struct{}
	reason  string
}

// group is the sets of one sample interval and their view of the
// service's sampler.
type group struct {
	interval time.Duration
	shared   *pdh.Sampler // the service's
	src      pdh.Source   // a view of shared: a tick never gets the previous tick's sample
	runs     []*run
	quit     chan struct{}
	// cur is the sample of the tick in progress, taken for want (nil:
	// every object); nil between ticks.
	cur  *pdh.Sample
	want []uint32
	all  bool
	// reduced holds, in a tick, the tick's sample reduced to the objects
	// of a set (Query.Sample), by the objects its query asks for: sets
	// reading the same objects write the same reduced sample.
	reduced map[string]*pdh.Sample
}

// reduce is Query.Sample for the set of view v, shared within a tick by
// the sets whose queries ask for the same objects.
func (g *group) reduce(v *view, q *pdh.Query) (*pdh.Sample, error) {
	if g.cur == nil {
		return q.Sample()
	}
	if smp, ok := g.reduced[v.key]; ok {
		return smp, nil
	}
	smp, err := q.Sample()
	if err == nil {
		g.reduced[v.key] = smp
	}
	return smp, err
}

// haveReduced reports whether the tick in progress has the reduced sample of
// the objects v reads already: a set that writes that sample (a binary
// log) need not collect its own query.
func (g *group) haveReduced(v *view) bool {
	if g.cur == nil || !v.asked {
		return false
	}
	_, ok := g.reduced[v.key]
	return ok
}

// view is one set's window on its group's source: between ticks it
// samples the source itself (resolving counters, the first sample); in a
// tick it hands out the tick's shared sample.
type view struct {
	g     *group
	want  []uint32
	all   bool
	asked bool
	key   string // the objects asked for, sorted: the key of group.reduced
}

// Sample is the tick's shared sample when it holds the objects asked
// for, else a sample of the source itself.
func (v *view) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if !v.asked || v.all != (len(objects) == 0) || !slices.Equal(v.want, objects) {
		v.want, v.all, v.asked = append(v.want[:0], objects...), len(objects) == 0, true
		sorted := slices.Clone(v.want)
		slices.Sort(sorted)
		v.key = fmt.Sprint(v.all, sorted)
	}
	if g := v.g; g.cur != nil && (g.all || (len(objects) > 0 && covers(g.want, objects))) {
		return g.cur, nil
	}
	// Between ticks (a set starting, resolving its counters): the
	// service's latest collection when it is young enough, so that sets
	// started together start from the same sample.
	return v.g.shared.Sample(ctx, objects)
}

// Titles are the shared source's.
func (v *view) Titles() *titles.DB { return v.g.src.Titles() }

// Recorded is nil: the source is live.
func (v *view) Recorded() pdh.Recorded { return nil }

func covers(have, want []uint32) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// NewService returns a service whose sets run until ctx is done (or they
// stop).
func NewService(ctx context.Context, opts Options) *Service {
	if opts.MB <= 0 {
		opts.MB = 1 << 20
	}
	return &Service{opts: opts, ctx: ctx, groups: map[time.Duration]*group{}, runs: map[string]*run{}, computers: map[string]*computer{},
		sampleAge: sampleAge}
}

func (s *Service) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

func runKey(dir, name string) string { return dir + "\x00" + strings.ToLower(name) }

// ErrRunning is the error of starting a set that runs, or that another
// process is starting: its collector holds the set's run lock
// (state.LockRun). It is state.ErrCollectorSetRunning.
var ErrRunning = state.ErrCollectorSetRunning

// ErrNotRunning is the error of stopping a set that does not run.
var ErrNotRunning = errors.New("the Data Collector Set is not running")

// Running reports whether this service runs the set name of dir.
func (s *Service) Running(dir, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.runs[runKey(dir, name)]
	return ok
}

// Start starts the set def of the state directory dir in this service,
// until stop (zero: until stopped, or the set's Duration after now when
// it has one). It records the run in dir (which the caller must be
// allowed to write), opens the log, takes and writes the first sample.
// A set whose last run ended without a clean stop continues its log
// (binary: appended, after a gap mark).
func (s *Service) Start(dir string, def *collectorset.Set, stop time.Time) error {
	ctx := s.ctx
	if s.opts.Triggered {
		def = triggeredRun(def)
	}
	now := time.Now()
	key := runKey(dir, def.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.runs[key]; ok {
		return ErrRunning
	}
	// The run lock, held until the run ends, makes the check of the
	// record below and the start one step: of two collectors of one set
	// started at once, one gets it and the other ErrRunning.
	lock, err := state.LockRun(dir, def.Name)
	if err != nil {
		return err
	}
	started := false
	defer func() {
		if !started {
			lock.Close()
		}
	}()
	old, err := ReadRecord(dir, def.Name)
	if err != nil {
		return err
	}
	pid, ticks, boot, err := s.opts.Proc.Self()
	if err != nil {
		return fmt.Errorf("the collector's own process identity: %w", err)
	}
	if s.opts.Proc.Alive(old) && old.PID != pid {
		return fmt.Errorf("%w (process %d)", ErrRunning, old.PID)
	}
	if s.opts.Proc.SupervisorAlive(old) && old.SupervisorPID != s.opts.Supervisor {
		// Its collector crashed and its supervisor starts it again.
		return fmt.Errorf("%w (its supervisor, process %d, restarts its collector)", ErrRunning, old.SupervisorPID)
	}
	crashed := s.opts.Proc.Crashed(old)
	def = def.Clone()
	if def.Collector.FileNameFormat&collectorset.FileNameSerialNumber != 0 && old != nil {
		switch {
		case crashed && old.Serial > 0:
			def.SerialNumber = old.Serial // continue its file
		case old.NextSerial > def.SerialNumber:
			def.SerialNumber = old.NextSerial
		}
	}
	if stop.IsZero() && def.Duration > 0 {
		stop = now.Add(time.Duration(def.Duration) * time.Second)
	}
	rec := &Record{Set: def.Name, PID: pid, StartTicks: ticks, BootID: boot, Shared: s.opts.Shared, Started: now, Output: def.OutputLocation(now),
		Serial: def.SerialNumber}
	if sp := s.opts.Supervisor; sp > 0 {
		if _, st, err := s.opts.Proc.Stat(sp); err == nil {
			rec.SupervisorPID, rec.SupervisorTicks = sp, st
		}
	}
	if err := WriteRecord(dir, rec); err != nil {
		return err
	}
	r := &run{key: key, dir: dir, set: def, stop: stop, rec: rec, lock: lock, done: make(chan struct{}),
		wl: NewWarningLog(dir, def.Name, s.opts.Warn)}
	if err := s.open(ctx, r, crashed, old); err != nil {
		rec.Reason = "could not start: " + err.Error()
		if !crashed {
			rec.Stopped = time.Now()
		} // else the record still says the last run crashed, so that a retry continues its log
		if werr := WriteRecord(dir, rec); werr != nil {
			r.wl.Warn(werr.Error())
		}
		return err
	}
	rec.Output = r.out.location()
	if err := WriteRecord(dir, rec); err != nil {
		r.wl.Warn(err.Error())
	}
	started = true
	s.runs[key] = r
	r.g.runs = append(r.g.runs, r)
	if m := def.Collector.MaxSamples; m > 0 && r.samples >= m {
		s.end(r, r.collected(m))
	}
	return nil
}

// open joins r to its interval's group (opening the source when the group
// is new), adds its counters, opens its log and writes the first sample.
func (s *Service) open(ctx context.Context, r *run, crashed bool, old *Record) error {
	iv := time.Duration(max(r.set.Interval(), collectorset.MinSampleInterval)) * time.Second
	g := s.groups[iv]
	fresh := g == nil
	if fresh {
		if s.sampler == nil {
			if s.opts.NewSource == nil {
				return errors.New("the collector service has no data source")
			}
			src, closer, err := s.opts.NewSource()
			if err != nil {
				return err
			}
			s.sampler, s.closer = pdh.NewSampler(src, pdh.SamplerOptions{MaxAge: s.sampleAge}), closer
		}
		g = &group{interval: iv, shared: s.sampler, src: s.sampler.View(), quit: make(chan struct{})}
	}
	fail := func(err error) error {
		s.release(r)
		if fresh {
			s.closeSource()
		}
		return err
	}
	r.g, r.v = g, &view{g: g}
	// Each counter goes to its computer: the log names them so.
	raw := r.set.Collector.Counters
	if r.set.Alert != nil {
		raw = alertPaths(r.set)
	}
	paths, computers := s.route(r.set, raw)
	routed := slices.Clone(paths)
	if r.set.Alert == nil {
		r.set.Collector.Counters = paths
	}
	var src pdh.Source = r.v
	var dropped map[string]error
	if len(computers) > 0 && s.opts.OpenComputer != nil {
		fr, d, err := s.openFleet(ctx, r, computers)
		if err != nil {
			return fail(err)
		}
		dropped = d
		if fr.fleet != nil {
			src = fr.source()
		} else {
			r.fleet = nil // no other computer could be opened
		}
	}
	var first error
	if len(dropped) > 0 {
		// The counters of computers that could not be opened are not
		// added (openFleet warned).
		kept := paths[:0:0]
		for _, p := range paths {
			if m, ok := pathComputer(p); ok && dropped[foldComputer(m)] != nil {
				if first == nil {
					first = fmt.Errorf("%s: %w", p, dropped[foldComputer(m)])
				}
				continue
			}
			kept = append(kept, p)
		}
		paths = kept
	}
	r.q = pdh.OpenQuery(src)
	added := 0
	if r.fleet != nil {
		n, err := r.fleet.add(ctx, r, paths)
		added = n
		if first == nil {
			first = err
		}
	} else {
		// One collection of every object the set names, before its
		// counters are resolved one by one: each is then found in it,
		// and the sampler never waits out its interval for an object
		// the one before lacked.
		if objs := objectsOf(g.shared.Titles(), paths); len(objs) > 0 {
			g.shared.Sample(ctx, objs) // a failure is AddCounter's to report
		}
		for _, p := range paths {
			if _, err := r.q.AddCounterContext(ctx, p); err != nil {
				r.wl.Warn(fmt.Sprintf("Data Collector Set %q: %v", r.set.Name, strings.TrimPrefix(err.Error(), "pdh: ")))
				if first == nil {
					first = err
				}
				continue
			}
			added++
		}
	}
	if added == 0 {
		err := fmt.Errorf("set %q: none of its %d counters exists on this computer", r.set.Name, len(raw))
		if r.fleet != nil || len(dropped) > 0 {
			err = fmt.Errorf("set %q: none of its %d counters could be added", r.set.Name, len(r.set.Collector.Counters))
		}
		if first != nil {
			err = fmt.Errorf("%w (%v)", err, strings.TrimPrefix(first.Error(), "pdh: "))
		}
		return fail(err)
	}
	v, q := r.v, r.q
	reduce := func(*pdh.Query) (*pdh.Sample, error) { return g.reduce(v, q) }
	if r.fleet != nil {
		// The set's own sample: other sets reading the same objects of
		// this computer read other computers, or none.
		reduce = (*pdh.Query).Sample
		// What adding the counters asked of this computer is not what
		// the set's collections ask (its counters of this computer
		// only, or none).
		v.want, v.all, v.asked, v.key = v.want[:0], false, false, ""
	}
	r.act = newActivity(r.dir, r.set.Name, r.wl.Warn)
	interval := time.Duration(0)
	if r.set.Alert != nil {
		interval = time.Duration(r.set.Alert.ActionInterval) * time.Second
	}
	r.acts = newActions(ctx, r.dir, s.opts.ActionTimeout, interval, r.act, &s.wg)
	var out output
	var err error
	if r.set.Alert != nil {
		dir := r.dir
		var start func(string) error
		if s.opts.StartSet != nil {
			start = func(name string) error { return s.opts.StartSet(dir, name) }
		}
		out, err = newAlertOutput(r.set, r.act, r.acts, s.opts.EventLog, start, r.wl.Warn, raw, routed)
	} else {
		out, err = openOutput(ctx, r.set, src, outputConfig{mb: s.opts.MB, now: time.Now(), crashed: crashed, sql: s.opts.SQL,
			reduce: reduce, retain: newRetention(r.dir, r.set, s.opts.MB, r.wl.Warn)})
		if err == nil && r.set.Task != "" {
			out = &closeCommand{output: out, set: r.set, run: r.acts, last: out.location()}
		}
	}
	if err != nil {
		return fail(err)
	}
	r.out = out
	if crashed {
		why := fmt.Sprintf("the collector (process %d) ended without a clean stop (killed, crashed, or the computer restarted); collection started again", old.PID)
		if err := out.gap(time.Now(), why); err != nil {
			out.close()
			return fail(err)
		}
	}
	if err := r.q.Collect(ctx); err != nil {
		out.close()
		return fail(err)
	}
	if r.fleet != nil {
		r.fleet.watch(r)
	}
	if err := out.write(ctx, r.q); err != nil {
		out.close()
		return fail(err)
	}
	r.samples, r.last = 1, time.Now()
	if fresh {
		s.groups[iv] = g
		s.wg.Add(1)
		go s.loop(g)
	}
	return nil
}

// loop ticks a group every interval until it has no set left.
func (s *Service) loop(g *group) {
	defer s.wg.Done()
	t := time.NewTicker(g.interval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			s.mu.Lock()
			for _, r := range slices.Clone(g.runs) {
				s.end(r, "stopped by logman stop (or the collector service was stopped)")
			}
			s.mu.Unlock()
			return
		case <-g.quit:
			return
		case <-t.C:
		}
		s.tick(g)
	}
}

// tick takes the group's sample and feeds every set of the group.
func (s *Service) tick(g *group) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for _, r := range slices.Clone(g.runs) {
		if !r.stop.IsZero() && !now.Before(r.stop) {
			s.end(r, "its run time ended")
		}
	}
	if len(g.runs) == 0 {
		return
	}
	g.want, g.all = g.want[:0], false
	local := false // a set reads this computer
	for _, r := range g.runs {
		local = local || r.v.asked
		if r.v.all {
			g.all = true
		}
		for _, o := range r.v.want {
			if !slices.Contains(g.want, o) {
				g.want = append(g.want, o)
			}
		}
	}
	ask := g.want
	if g.all {
		ask = nil
	}
	// Sets that record other computers only need no collection of this
	// one.
	smp, err := &pdh.Sample{Time: now.UTC()}, error(nil)
	if local {
		smp, err = g.src.Sample(s.ctx, ask)
	}
	if err != nil {
		if s.ctx.Err() == nil {
			msg := fmt.Sprintf("sample of the %v interval: %v", g.interval, err)
			for _, r := range g.runs {
				r.wl.Warn(msg)
			}
			if len(g.runs) == 0 {
				s.warn(msg)
			}
		}
		return
	}
	g.cur, g.reduced = smp, map[string]*pdh.Sample{}
	defer func() { g.cur, g.reduced = nil, nil }()
	for _, r := range slices.Clone(g.runs) {
		if now.Sub(r.last) < g.interval/2 {
			continue // started in this very tick: it has this sample
		}
		// A binary log writes the tick's sample reduced to its objects:
		// when a set reading the same objects made it already, this
		// set's query need not collect.
		base := r.out
		if cc, ok := base.(*closeCommand); ok {
			base = cc.output
		}
		// A set that records other computers collects its own.
		if _, bin := base.(*binOutput); !bin || r.fleet != nil || !g.haveReduced(r.v) {
			if err := r.q.Collect(s.ctx); err != nil {
				r.wl.Warn(fmt.Sprintf("Data Collector Set %q: %v", r.set.Name, err))
				continue
			}
		}
		if r.fleet != nil {
			r.fleet.watch(r)
		}
		if err := r.out.write(s.ctx, r.q); err != nil {
			s.end(r, "writing the log failed: "+err.Error())
			continue
		}
		if r.fleet != nil {
			// Counters of a computer that was down at the start are
			// added once it answers; they have values from the next
			// sample on.
			r.fleet.retry(s.ctx, r)
			r.fleet.watch(r)
		}
		r.samples++
		r.last = now
		if m := r.set.Collector.MaxSamples; m > 0 && r.samples >= m {
			s.end(r, r.collected(m))
		}
	}
}

// collected is the reason a set that took its n samples (-sc) ends with:
// it names the computers that answered none of them, whose counters have
// no value in the log (a set against an unreachable computer once said
// "it collected its 2 samples" with nothing in them).
func (r *run) collected(n uint32) string {
	reason := fmt.Sprintf("it collected its %d samples (-sc)", n)
	if r.fleet == nil {
		return reason
	}
	if silent := r.fleet.neverAnswered(); len(silent) > 0 {
		reason += fmt.Sprintf(", with no value of %s, which never answered", strings.Join(silent, ", "))
	}
	return reason
}

// end stops r with a reason: its log is closed, its record says so, and
// its group closes its source when r was its last set. s.mu is held.
func (s *Service) end(r *run, reason string) {
	if _, ok := s.runs[r.key]; !ok {
		return
	}
	delete(s.runs, r.key)
	g := r.g
	g.runs = slices.DeleteFunc(g.runs, func(x *run) bool { return x == r })
	if err := r.out.close(); err != nil {
		reason += "; closing the log: " + err.Error()
	}
	r.reason = reason
	r.rec.Stopped, r.rec.Reason = time.Now(), reason
	if r.set.Collector.FileNameFormat&collectorset.FileNameSerialNumber != 0 {
		last := int(max(r.set.SerialNumber, 1))
		if k, ok := serialOf(r.out.location()); ok {
			last = max(last, k)
		}
		r.rec.NextSerial = uint32(last + 1)
	}
	if err := WriteRecord(r.dir, r.rec); err != nil {
		r.wl.Warn(err.Error())
	}
	if err := state.RemoveRunFile(r.dir, r.set.Name, state.StopRequestSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.wl.Warn(err.Error())
	}
	s.release(r)
	r.wl.Flush()
	if err := r.lock.Close(); err != nil {
		r.wl.Warn(err.Error())
	}
	if len(g.runs) == 0 {
		delete(s.groups, g.interval)
		close(g.quit)
		s.closeSource()
	}
	close(r.done)
}

// objectsOf are the title indexes of the objects that counter paths of
// this computer name (unknown names and other computers left out).
func objectsOf(db *titles.DB, paths []string) []uint32 {
	var out []uint32
	for _, s := range paths {
		p, err := counterpath.Parse(s)
		if err != nil || p.Machine != "" {
			continue
		}
		if idx, ok := db.Index(p.Object); ok && !slices.Contains(out, idx) {
			out = append(out, idx)
		}
	}
	return out
}

// closeSource closes the source when no group uses it (s.mu held).
func (s *Service) closeSource() {
	if len(s.groups) > 0 || s.sampler == nil {
		return
	}
	s.closer.Close()
	s.sampler, s.closer = nil, nil
}

// Stop stops the set name of dir that this service runs.
func (s *Service) Stop(dir, name, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[runKey(dir, name)]
	if !ok {
		return ErrNotRunning
	}
	s.end(r, reason)
	return nil
}

// StopAll stops every set of the service.
func (s *Service) StopAll(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		s.end(r, reason)
	}
}

// Done returns a channel closed when the set name of dir stops, and the
// reason it stopped then; nil when the set does not run here.
func (s *Service) Done(dir, name string) (<-chan struct{}, func() string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[runKey(dir, name)]
	if !ok {
		return nil, nil
	}
	return r.done, func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return r.reason
	}
}

// Wait waits until the group loops have ended (after the context is
// done and every set stopped).
func (s *Service) Wait() { s.wg.Wait() }
