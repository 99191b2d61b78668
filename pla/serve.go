package pla

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/state"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	Options
	// Dirs are the state directories whose sets the service runs: root's
	// (the system sets) for the system unit, the user's own for a user
	// unit.
	Dirs []string
	// Poll is how often the service reads the definitions and stop
	// requests; 0 is one second. It also wakes when a schedule's window
	// opens.
	Poll time.Duration
}

// Serve is the collector service (Windows' Performance Logs and Alerts):
// it starts the sets marked to run at boot when it starts, starts and
// stops scheduled sets on time (NextWindow), stops a set when `logman
// stop` asks (a stop request file), and runs all of them in this one
// process, sharing one collection per sample interval. A set that another
// process runs (logman start without the service) is left to it. It
// returns when ctx is done, after stopping every set.
func Serve(ctx context.Context, opts ServeOptions) error {
	opts.Shared = true
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	svc := NewService(ctx, opts.Options)
	warn := func(msg string) {
		if opts.Warn != nil {
			opts.Warn(msg)
		}
	}
	// started holds, per set, the start of the window the service last
	// started it for: a set stopped by hand within its window stays
	// stopped until the next window.
	started := map[string]time.Time{}
	boot := true
	t := time.NewTimer(opts.Poll)
	defer t.Stop()
	for {
		now := time.Now()
		wake := now.Add(opts.Poll)
		for _, dir := range opts.Dirs {
			cs, err := state.ReadCollectorSets(dir)
			if err != nil {
				warn(err.Error())
				continue
			}
			for _, p := range cs.Problems {
				if boot {
					warn(p.Error())
				}
			}
			present := map[string]bool{}
			for _, set := range cs.Sets {
				key := runKey(dir, set.Name)
				present[key] = true
				reconcile(svc, opts.Proc, dir, set, now, boot, started, warn)
				// Wake up for the next window even between polls.
				if w, ok := NextWindow(set, now); ok && w.Start.After(now) && w.Start.Before(wake) {
					wake = w.Start
				}
			}
			for _, r := range svc.runsOf(dir) {
				if !present[r] {
					svc.stopKey(r, "its definition was deleted")
				}
			}
		}
		boot = false
		t.Reset(time.Until(wake))
		select {
		case <-ctx.Done():
			svc.StopAll("the collector service was stopped")
			svc.Wait()
			return nil
		case <-t.C:
		}
	}
}

// reconcile starts or stops one set as its stop request, run-at-boot
// flag and schedule say.
func reconcile(svc *Service, proc Proc, dir string, set *collectorset.Set, now time.Time, boot bool, started map[string]time.Time, warn func(string)) {
	key := runKey(dir, set.Name)
	if svc.Running(dir, set.Name) {
		if _, err := state.ReadRunFile(dir, set.Name, state.StopRequestSuffix); err == nil {
			if err := svc.Stop(dir, set.Name, "stopped by logman stop"); err != nil {
				warn(err.Error())
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			warn(err.Error())
		}
		return
	}
	w, scheduled := NextWindow(set, now)
	open := scheduled && w.Open(now) && !started[key].Equal(w.Start)
	if !(boot && set.RunAtBoot) && !open {
		return
	}
	if rec, err := ReadRecord(dir, set.Name); err == nil && proc.Alive(rec) {
		return // another process runs it
	}
	// A stop request left from an earlier run (the service ended before
	// it read it) is not meant for this one.
	if err := state.RemoveRunFile(dir, set.Name, state.StopRequestSuffix); err != nil {
		warn(err.Error())
	}
	var stop time.Time
	if open {
		started[key] = w.Start
		stop = w.Stop
	}
	if err := svc.Start(dir, set, stop); err != nil {
		NewWarningLog(dir, set.Name, warn).Warn(fmt.Sprintf("Data Collector Set %q could not be started: %v", set.Name, err))
	}
}

// runsOf lists the keys of the sets of dir this service runs.
func (s *Service) runsOf(dir string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, r := range s.runs {
		if r.dir == dir {
			out = append(out, k)
		}
	}
	return out
}

// stopKey stops the run of key.
func (s *Service) stopKey(key, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.runs[key]; ok {
		s.end(r, reason)
	}
}
