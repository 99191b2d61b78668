// Package host assembles the local machine's performance-data system: the
// engine with the built-in Linux objects read from /proc and /sys, and the
// title database they register. Programs wire it in at the top; libraries
// below it never import it.
package host

import (
	"errors"
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
}

// Host is the local machine: an engine serving the built-in objects.
type Host struct {
	*engine.Engine
	procs *system.ProcessObjects
}

// New returns the local host with every built-in object registered.
func New(opts Options) (*Host, error) {
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
	c := system.NewCollector(os.DirFS(opts.ProcRoot), os.DirFS(opts.SysRoot), system.WithPerfFreq(clk.Freq()))
	e := engine.New(engine.Options{Logger: opts.Logger, Clock: clk, BeginSample: func() { c.Sample++ }})
	procs := system.NewProcessObjects(opts.ProcRoot, opts.MaxKeptFiles)
	objs := append(c.Objects(), procs.Process(), procs.ProcessV2(), procs.Thread())
	h := &Host{Engine: e, procs: procs}
	for _, o := range objs {
		if err := e.Add(adapt(c, o, opts.Logger)); err != nil {
			procs.Close()
			return nil, err
		}
	}
	return h, nil
}

// Close releases the descriptors kept for process collection.
func (h *Host) Close() error {
	if h == nil || h.procs == nil {
		return errors.New("host: not open")
	}
	h.procs.Close()
	return nil
}

// adapt binds a built-in object's collect function to its collector and
// reports what the object could only partly read (unreadable files,
// vanished processes' details) through the logger; the object itself is
// still delivered, as the engine's contract for partial data says.
func adapt(c *system.Collector, o system.Object, log *slog.Logger) engine.Object {
	collect := o.Collect
	name := o.Set.Name
	return engine.Object{Set: o.Set, Collect: func(w engine.Writer) error {
		c.Warnings = c.Warnings[:0]
		err := collect(c, w)
		for _, msg := range c.Warnings {
			log.Debug("partial object", "object", name, "reason", msg)
		}
		return err
	}}
}
