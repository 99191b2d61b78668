// Package host assembles the local machine's performance-data system: the
// engine with the built-in Linux objects read from /proc and /sys, the V2
// counter sets registered with lodctr (their values read from the
// providers' shared-memory segments), and the title database, kept in the
// state directory (state.go). Programs wire it in at the top; libraries
// below it never import it.
package host

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/system"
)

// Options configure the local host.
type Options struct {
	ProcRoot string       // default "/proc"
	SysRoot  string       // default "/sys"
	Logger   *slog.Logger // default: discard
	Clock    engine.Clock // default: engine.SystemClock()
	// MaxKeptFiles bounds the /proc descriptors kept open across samples
	// for fast process collection; 0 picks a default below the fd limit.
	MaxKeptFiles int
	// StateDir is the state directory (see StateDir and state.go); empty
	// means none: English Windows' names and the built-in objects only.
	StateDir string
	// SegmentDir is where V2 providers' segments live; default
	// shm.DefaultDir (/dev/shm/perfc).
	SegmentDir string
}

// Host is the local machine: an engine serving the built-in objects.
type Host struct {
	*engine.Engine
	procs *system.ProcessObjects
	proc  system.ProcReader // /proc, shared by every built-in object
	v2    *v2Source
	v1    []string // names of the V1 procedures added from the state directory
}

// New returns the local host with every built-in object registered, and
// every counter set registered in opts.StateDir with the title indexes it
// was given there.
func New(opts Options) (*Host, error) {
	st, err := readState(opts.StateDir)
	if err != nil {
		return nil, err
	}
	v1, err := ReadV1(opts.StateDir)
	if err != nil {
		return nil, err
	}
	h, err := build(opts, st)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h.addV1(v1, log.Warn)
	return h, nil
}

func build(opts Options, st *state) (*Host, error) {
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
	proc, err := system.OpenProc(opts.ProcRoot, opts.MaxKeptFiles)
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	copts := []system.Option{system.WithPerfFreq(clk.Freq()), system.WithProcReader(proc)}
	if opts.ProcRoot == "/proc" {
		// The live host: the time since boot is the kernel's clock, not a
		// read of /proc/uptime.
		copts = append(copts, system.WithUptime(system.SinceBoot))
	}
	c := system.NewCollector(nil, os.DirFS(opts.SysRoot), copts...)
	v2 := newV2Source(opts.SegmentDir, opts.Logger)
	e := engine.New(engine.Options{Logger: opts.Logger, Clock: clk, Titles: st.titles})
	procs := system.NewProcessObjects(proc)
	objs := append(c.Objects(), procs.Process(), procs.ProcessV2(), procs.Thread())
	h := &Host{Engine: e, procs: procs, proc: proc, v2: v2}
	for _, o := range objs {
		if err := e.Add(adapt(c, o, opts.Logger)); err != nil {
			procs.Close()
			proc.Close()
			return nil, err
		}
	}
	for _, s := range loadV2Sets(v2, st) {
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
