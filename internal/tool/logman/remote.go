package logman

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/state"
)

// RemoteSets are the collector sets `perfc serve` lets callers of the log
// role list, start and stop: the serving user's sets and the system sets,
// as that user's `logman query`, `logman start` and `logman stop` see
// them. A remote caller acts as the serving user over them (as Windows'
// Performance Log Users act through the PLA service); it cannot create or
// delete sets.
type RemoteSets struct {
	// Options are the serving user's logman options; Stdout is ignored.
	Options Options
}

// List returns every set with whether a collector runs it.
func (r RemoteSets) List(ctx context.Context) ([]remote.SetEntry, error) {
	o := r.Options
	var out []remote.SetEntry
	for i, d := range o.dirs() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cs, err := state.ReadCollectorSets(d)
		if err != nil {
			if i > 0 {
				o.warn(fmt.Sprintf("the system Data Collector Sets are left out: %v", err))
				continue
			}
			return nil, err
		}
		for _, s := range cs.Sets {
			running, detail := o.runner().Status(d, s)
			e := remote.SetEntry{Name: s.Name, Running: running, Detail: detail, Output: s.OutputLocation(o.now()), Type: s.Type()}
			if s.Alert != nil {
				act, err := pla.ReadActivity(d, s.Name)
				if err != nil {
					o.warn(err.Error())
				}
				if act != nil {
					for _, a := range act.Alerts {
						e.Alerts = append(e.Alerts, remote.AlertEntry{Threshold: a.Threshold, Counter: a.Counter, Firing: a.Firing && running,
							Value: a.Value, Fired: a.Fired, LastFired: a.LastFired, Sampled: a.Sampled})
					}
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// Start starts the named set as `logman start NAME` does.
func (r RemoteSets) Start(ctx context.Context, name string) error {
	o := r.Options
	o.Stdout = io.Discard
	return remoteErr(Start(ctx, o, name))
}

// Stop stops the named set as `logman stop NAME` does.
func (r RemoteSets) Stop(ctx context.Context, name string) error {
	o := r.Options
	o.Stdout = io.Discard
	return remoteErr(Stop(ctx, o, name))
}

// remoteErr marks an unknown set as remote.ErrNoSet, so the API answers
// 404.
func remoteErr(err error) error {
	if err != nil && errors.Is(err, state.ErrCollectorSetNotFound) {
		return fmt.Errorf("%w: %w", remote.ErrNoSet, err)
	}
	return err
}
