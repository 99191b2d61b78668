// Package host assembles the local machine's performance-data system: the
// engine with the built-in Linux objects read from /proc and /sys, the V2
// counter sets registered with lodctr (their values read from the
// providers' shared-memory segments), the V1 providers registered there,
// and the title database, all read from the state directory through the
// state package. Programs wire it in at the top; libraries below it never
// import it.
package host

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/procscan"
	statedir "github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/system"
)

// Options configure the local host.
type Options struct {
	ProcRoot string       // default "/proc"
	SysRoot  string       // default "/sys"
	Logger   *slog.Logger // default: discard
	Clock    engine.Clock // default: engine.SystemClock()
	// MaxKeptFiles bounds the /proc descriptors kept open across samples
	// for fast process collection; 0 picks a default below the fd limit,
	// negative keeps none (see procscan.Options.MaxKept).
	MaxKeptFiles int
	// RaiseFileLimit lets the host raise the process's RLIMIT_NOFILE to
	// fs.nr_open once, when a process scan needs more descriptors than
	// the limit leaves (see procscan.Options.RaiseLimit). It changes a
	// process-wide limit, so it is the program's decision; the default
	// never touches it.
	RaiseFileLimit bool
	// StateDir is the state directory (see state.Path); empty means
	// none: English Windows' names and the built-in objects only.
	StateDir string
	// SegmentDir is the base directory of V2 providers' per-user segment
	// directories (perfc-<uid>, see shm/SECURITY.md); default
	// shm.DefaultDir (/dev/shm).
	SegmentDir string
}

// Host is the local machine: an engine serving the built-in objects.
type Host struct {
	*engine.Engine
	procs *system.ProcessObjects
	proc  *procscan.Reader  // /proc, shared by every built-in object
	sys   *system.Collector // the built-in objects, which keep /sys files open
	v2    *v2Source
	v1    []string // names of the V1 procedures added from the state directory
}

// New returns the local host with every built-in object registered, and
// every counter set and V1 provider registered in opts.StateDir with the
// title indexes it was given there. A state directory that fails the
// state package's trust checks is an error; a damaged registration costs
// only what it describes, and is logged.
func New(opts Options) (*Host, error) {
	st, err := statedir.Read(opts.StateDir)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, p := range st.Problems {
		log.Warn("state directory: left out", "reason", p)
	}
	h, err := build(opts, st)
	if err != nil {
		return nil, err
	}
	h.addV1(st.V1, log)
	return h, nil
}

func build(opts Options, st *statedir.State) (*Host, error) {
	if opts.ProcRoot == "" {
		opts.ProcRoot = "/proc"
	}
	if opts.SysRoot == "" {
		opts.SysRoot = "/sys"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	clk := opts.Clock
	if clk == nil {
		clk = engine.SystemClock()
	}
	// One reader of /proc serves every built-in object: the live tree
	// through raw syscalls on kept descriptors.
	proc, err := procscan.Open(opts.ProcRoot, procscan.Options{MaxKept: opts.MaxKeptFiles, RaiseLimit: opts.RaiseFileLimit})
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	copts := []system.Option{system.WithPerfFreq(clk.Freq()), system.WithProcReader(proc)}
	if opts.ProcRoot == "/proc" {
		// The live host: the time since boot is the kernel's clock, not a
		// read of /proc/uptime.
		copts = append(copts, system.WithUptime(system.SinceBoot))
	}
	// The /proc tree is given as well for what the reader does not do:
	// listing a process's descriptors (the GPU objects' fdinfo scan).
	c := system.NewCollector(os.DirFS(opts.ProcRoot), os.DirFS(opts.SysRoot), copts...)
	v2 := newV2Source(opts.SegmentDir, opts.Logger)
	procs := system.NewProcessObjects(proc)
	objs := append(append(c.Objects(), procs.Process(), procs.ProcessV2(), procs.Thread()), c.LinuxObjects()...)
	var sets []*counterset.Set
	for _, o := range objs {
		sets = append(sets, o.Set)
	}
	langs, err := builtinLanguages(st.Titles, st.Languages, sets)
	if err != nil {
		procs.Close()
		proc.Close()
		return nil, err
	}
	e := engine.New(engine.Options{Logger: opts.Logger, Clock: clk, Titles: st.Titles, Languages: langs, SystemName: ComputerName()})
	h := &Host{Engine: e, procs: procs, proc: proc, sys: c, v2: v2}
	for _, o := range objs {
		if err := e.Add(adapt(c, o, opts.Logger)); err != nil {
			procs.Close()
			proc.Close()
			return nil, err
		}
	}
	// The sets come parsed from the state directory (no manifest XML is
	// read here), each with the uids allowed to publish it.
	for _, rs := range st.Sets {
		s := newV2Set(v2, rs.Set, rs.GUID, rs.Publishers)
		if err := e.Add(s.object()); err != nil {
			opts.Logger.Warn("registered counter set left out", "set", s.set.Name, "reason", err)
		}
	}
	return h, nil
}

// Close releases the descriptors kept for process collection.
func (h *Host) Close() error {
	if h == nil || h.procs == nil {
		return errors.New("host: not open")
	}
	h.closeV1()
	h.procs.Close()
	h.proc.Close()
	h.sys.Close()
	h.v2.close()
	return nil
}

// adapt binds a built-in object's collect function to its collector and
// hands it the engine's Collection of the sample, through which the object
// reports what it could only partly read (unreadable files, malformed
// lines, values of another user's processes); the object itself is still
// delivered, as the engine's contract for partial data says. Each reason
// is also logged at debug level.
func adapt(c *system.Collector, o system.Object, log *slog.Logger) engine.Object {
	collect := o.Collect
	name := o.Set.Name
	return engine.Object{Set: o.Set, Collect: func(col *engine.Collection, w engine.Writer) error {
		return collect(c, loggedCollection{col, log, name}, w)
	}}
}

// loggedCollection logs each partial-data reason before the engine records
// it.
type loggedCollection struct {
	*engine.Collection
	log    *slog.Logger
	object string
}

func (l loggedCollection) Partial(reason string) {
	l.log.Debug("partial object", "object", l.object, "reason", reason)
	l.Collection.Partial(reason)
}
