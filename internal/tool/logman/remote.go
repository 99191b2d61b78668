package logman

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"

	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/state"
)

// RemoteSets are the collector sets `perfc serve` lets callers of the log
// role list, start and stop: the serving user's sets and the system sets,
// as that user's `logman query`, `logman start` and `logman stop` see
// them. A remote caller acts as the serving user over them (as Windows'
// Performance Log Users act through the PLA service), and creates,
// changes and deletes them as that user's logman create, update and
// delete do (remote.SetEditor), with the same checks: a system set is
// changed only when root serves. Reports (remote.SetReporter) are the log
// files a set's naming scheme made in its log directory.
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
			e := remote.SetEntry{Name: s.Name, Running: running, Detail: detail, Output: s.OutputLocation(o.now()), Type: s.Type(),
				System: i > 0, Definition: definitionOf(s)}
			if rec, err := pla.ReadRecord(d, s.Name); err == nil && rec != nil {
				e.LastStart = rec.Started
				if !running {
					e.LastStop = rec.Stopped
				}
			}
			if w, ok := pla.NextWindow(s, o.now()); ok && w.Start.After(o.now()) {
				e.NextStart = w.Start
			}
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

// remoteErr marks logman's errors with remote's, so that the API
// answers each with its status: an unknown set ErrNoSet (404), a name
// taken ErrSetExists, a definition refused ErrSetInvalid, a set the
// serving user may not change ErrSetDenied, a running set ErrSetInUse.
func remoteErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, state.ErrCollectorSetNotFound) {
		return fmt.Errorf("%w: %w", remote.ErrNoSet, err)
	}
	var le *Error
	if errors.As(err, &le) {
		var mark error
		switch le.Code {
		case CodeNotFound:
			mark = remote.ErrNoSet
		case CodeExists:
			mark = remote.ErrSetExists
		case CodeInvalid:
			mark = remote.ErrSetInvalid
		case CodeAccessDenied:
			mark = remote.ErrSetDenied
		case CodeInUse:
			mark = remote.ErrSetInUse
		}
		if mark != nil {
			msg := le.Message
			if le.Detail != "" {
				msg += " " + le.Detail
			}
			return fmt.Errorf("%w: %s", mark, msg)
		}
	}
	return err
}

// Create creates a set as `logman create counter|alert NAME` with the
// options def gives.
func (r RemoteSets) Create(ctx context.Context, name string, def remote.SetDefinition) error {
	o := r.Options
	o.Stdout = io.Discard
	spec, err := SpecOf(name, def, true)
	if err != nil {
		return remoteErr(err)
	}
	return remoteErr(Create(o, spec))
}

// Update changes a set as `logman update NAME` with the options def
// gives.
func (r RemoteSets) Update(ctx context.Context, name string, def remote.SetDefinition) error {
	o := r.Options
	o.Stdout = io.Discard
	f, err := o.find(name)
	if err != nil {
		return remoteErr(err)
	}
	if def.Type != "" && !strings.EqualFold(def.Type, f.set.Type()) {
		return remoteErr(invalid("%s is a %s set, not a %s set", f.set.Name, f.set.Type(), def.Type))
	}
	def.Type = f.set.Type()
	spec, err := SpecOf(f.set.Name, def, false)
	if err != nil {
		return remoteErr(err)
	}
	return remoteErr(Update(o, spec))
}

// Delete deletes a set as `logman delete NAME` does.
func (r RemoteSets) Delete(ctx context.Context, name string) error {
	o := r.Options
	o.Stdout = io.Discard
	return remoteErr(Delete(o, name))
}

// SpecOf reads a set's definition as the API gives it (each value in the
// syntax of its logman option) into the Spec that logman create (create)
// or update would make of those options; an empty string is the option's
// doubled-dash form. The API carries no option that runs a command (-tn,
// -rc), starts another set (-rdcs) or reads another computer (-s), and
// SpecOf refuses an SQL log (-f sql, -o SQL:...): its data source names a
// database server and holds its credentials, which a remote caller does
// not choose.
func SpecOf(name string, def remote.SetDefinition, create bool) (Spec, error) {
	sp := Spec{Name: name}
	switch strings.ToLower(def.Type) {
	case "", "counter":
	case "alert":
		sp.Alert = true
	default:
		return sp, invalid("type %q: want Counter or Alert", def.Type)
	}
	var first error
	seconds := func(opt string, v *string, clear func()) *uint32 {
		if v == nil || first != nil {
			return nil
		}
		if *v == "" {
			clear()
			return nil
		}
		n, err := collectorset.ParseSeconds(*v)
		if err != nil {
			first = invalid("%s: %v", opt, err)
			return nil
		}
		return &n
	}
	number := func(opt string, v *string) *uint32 {
		if v == nil || first != nil {
			return nil
		}
		if *v == "" {
			return new(uint32)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(*v), 10, 32)
		if err != nil {
			first = invalid("%s %q: want a whole number from 0 to 4294967295", opt, *v)
			return nil
		}
		u := uint32(n)
		return &u
	}
	when := func(opt string, v *string, clear func()) *time.Time {
		if v == nil || first != nil {
			return nil
		}
		if *v == "" {
			clear()
			return nil
		}
		t, err := collectorset.ParseTime(*v, time.Local)
		if err != nil {
			first = invalid("%s: %v", opt, err)
			return nil
		}
		return &t
	}
	if def.Counters != nil {
		sp.Counters, sp.HasCounters = nonEmpty(*def.Counters), true
	}
	if def.Thresholds != nil {
		sp.Thresholds, sp.HasThresholds = nonEmpty(*def.Thresholds), true
		for _, t := range sp.Thresholds {
			if _, err := collectorset.ParseThreshold(t); err != nil && first == nil {
				first = invalid("-th %s: %v", t, err)
			}
		}
	}
	sp.SampleInterval = seconds("-si", def.Interval, func() { first = invalid("-si: give a sample interval") })
	if def.Format != nil && *def.Format != "" {
		sp.Format = def.Format
		if strings.EqualFold(*def.Format, "sql") {
			first = invalid("-f sql: an SQL log set's data source is set on the server (perfc logman), not over the API: a data source names a database server and holds its credentials")
		}
	}
	if def.Output != nil && *def.Output != "" {
		sp.Output = def.Output
		if _, ok := cutPrefixFold(*def.Output, "SQL:"); ok && first == nil {
			first = invalid("-o SQL:...: an SQL log set's data source is set on the server (perfc logman), not over the API")
		}
	}
	if v := def.Version; v != nil && first == nil {
		if *v == "" {
			sp.Version = new(collectorset.FileNameFormat)
		} else if f, err := collectorset.ParseVersion(*v); err != nil {
			first = invalid("-v: %v", err)
		} else {
			sp.Version = &f
		}
	}
	sp.Max = number("-max", def.Max)
	sp.Cnf = seconds("-cnf", def.NewFile, func() { sp.NoCnf = true })
	sp.Begin = when("-b", def.Begin, func() { sp.ManualStart = true })
	sp.End = when("-e", def.End, func() {})
	sp.Repeat = def.Repeat
	sp.RunFor = seconds("-rf", def.RunFor, func() { sp.ManualStop = true })
	sp.Samples = number("-sc", def.Samples)
	if first != nil {
		return sp, first
	}
	if create && !sp.Alert && !sp.HasCounters {
		return sp, invalid("a counter set needs counters (-c)")
	}
	if create && sp.Alert && !sp.HasThresholds {
		return sp, invalid("an alert set needs thresholds (-th)")
	}
	return sp, nil
}

// nonEmpty is list without its blank entries, each trimmed.
func nonEmpty(list []string) []string {
	out := []string{}
	for _, v := range list {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// definitionOf is a set's properties in the API's form (the values
// logman query NAME shows, in its options' syntax).
func definitionOf(s *collectorset.Set) *remote.SetDefinition {
	str := func(v string) *string { return &v }
	d := &remote.SetDefinition{Type: s.Type(), Interval: str(strconv.FormatUint(uint64(s.Interval()), 10))}
	if a := s.Alert; a != nil {
		th := append([]string{}, a.Thresholds...)
		d.Thresholds = &th
	} else {
		c := &s.Collector
		cs := append([]string{}, c.Counters...)
		d.Counters = &cs
		d.Format = str(collectorset.FormatName(c.LogFileFormat, c.LogCircular))
		if c.LogFileFormat == collectorset.Sql {
			d.Output = str("SQL:" + collectorset.RedactDSN(c.DataSourceName) + "!" + c.FileName)
			if c.SegmentMaxRecords > 0 {
				d.Max = str(strconv.FormatUint(uint64(c.SegmentMaxRecords), 10))
			}
		} else {
			name := c.FileName
			if name == "" {
				name = s.Name
			}
			d.Output = str(strings.TrimRight(s.RootPath, "/") + "/" + name + c.LogFileFormat.Extension())
			if s.SegmentMaxSize > 0 {
				d.Max = str(strconv.FormatUint(uint64(s.SegmentMaxSize), 10))
			}
		}
		switch {
		case c.FileNameFormat&collectorset.FileNameSerialNumber != 0:
			d.Version = str("nnnnnn")
		case c.FileNameFormat&collectorset.FileNameMonthDayHourMinute != 0:
			d.Version = str("mmddhhmm")
		}
		if s.Segment {
			d.NewFile = str(strconv.FormatUint(uint64(s.SegmentMaxDuration), 10))
		}
		if c.MaxSamples > 0 {
			d.Samples = str(strconv.FormatUint(uint64(c.MaxSamples), 10))
		}
	}
	if s.Duration > 0 {
		d.RunFor = str(collectorset.FormatSeconds(s.Duration))
	}
	if len(s.Schedules) > 0 && s.SchedulesEnabled {
		sc := s.Schedules[0]
		b := sc.Start()
		d.Begin = str(b.Format(timeLayout))
		rep := sc.Days == collectorset.Everyday && !sc.EndDate.Equal(sc.StartDate)
		d.Repeat = &rep
	}
	return d
}

// Runs lists the log files of a counter set: the regular files of its
// log directory whose names its naming scheme makes (NAME.ext, or
// NAME_ followed by the digits of -v or -cnf, then .ext), oldest first;
// the one its running collector writes is Current. An alert set and an
// SQL log set have none.
func (r RemoteSets) Runs(ctx context.Context, name string) ([]remote.SetRun, error) {
	o := r.Options
	f, err := o.find(name)
	if err != nil {
		return nil, remoteErr(err)
	}
	s := f.set
	if s.Alert != nil || s.Collector.LogFileFormat == collectorset.Sql || s.RootPath == "" {
		return []remote.SetRun{}, nil
	}
	current := ""
	if running, _ := o.runner().Status(f.dir, s); running {
		if rec, err := pla.ReadRecord(f.dir, s.Name); err == nil && rec != nil {
			current = rec.Output
		}
	}
	ents, err := os.ReadDir(s.RootPath)
	if errors.Is(err, fs.ErrNotExist) {
		return []remote.SetRun{}, nil
	}
	if err != nil {
		return nil, err
	}
	own := runFileName(s)
	out := []remote.SetRun{}
	for _, e := range ents {
		if !e.Type().IsRegular() || !own(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(s.RootPath, e.Name())
		out = append(out, remote.SetRun{File: e.Name(), Size: info.Size(), Modified: info.ModTime(), Current: p == current})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Modified.Before(out[j].Modified) })
	return out, nil
}

// OpenRun opens one of the files Runs lists (by name only: no path
// reaches another file), never following a symbolic link.
func (r RemoteSets) OpenRun(ctx context.Context, name, file string) (io.ReadCloser, error) {
	runs, err := r.Runs(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		if run.File == file {
			f, _ := r.Options.find(name)
			fh, err := os.OpenFile(filepath.Join(f.set.RootPath, file), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
			if err != nil {
				return nil, err
			}
			if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
				fh.Close()
				return nil, fmt.Errorf("%s: not a regular file", file)
			}
			// A file of the set's name that is no log of its format (a
			// set whose -o named some other file) is not handed out.
			head := make([]byte, 64)
			n, _ := io.ReadFull(fh, head)
			if !textLogHead(head[:n], f.set.Collector.LogFileFormat) {
				fh.Close()
				return nil, fmt.Errorf("%w: %s is not a %s log", remote.ErrNoSet, file, collectorset.FormatName(f.set.Collector.LogFileFormat, false))
			}
			if _, err := fh.Seek(0, io.SeekStart); err != nil {
				fh.Close()
				return nil, err
			}
			return fh, nil
		}
	}
	return nil, fmt.Errorf("%w: %s has no log %q", remote.ErrNoSet, name, file)
}

// runFileName tells the names of a set's log files: its file name and
// extension, alone or with an underscore and the digits its -v or -cnf
// add (a date, a serial, or both).
func runFileName(s *collectorset.Set) func(string) bool {
	c := &s.Collector
	stem := c.FileName
	if stem == "" {
		stem = s.Name
	}
	ext := c.LogFileFormat.Extension()
	return func(n string) bool {
		if n == stem+ext {
			return true
		}
		v, ok := strings.CutPrefix(n, stem+"_")
		if !ok {
			return false
		}
		v, ok = strings.CutSuffix(v, ext)
		if !ok || v == "" {
			return false
		}
		for _, part := range strings.Split(v, "_") {
			if part == "" || strings.Trim(part, "0123456789") != "" {
				return false
			}
		}
		return true
	}
}

// textLogHead reports whether head can start a log of format f: a PDH
// text log's first cell, or an event-trace buffer's size (BLG: 4 KiB to
// 16 MiB, a multiple of 8). perfc's binary logs are taken by their name
// (.plog is theirs alone).
func textLogHead(head []byte, f collectorset.LogFileFormat) bool {
	switch f {
	case collectorset.CommaSeparated, collectorset.TabSeparated:
		h := strings.TrimPrefix(string(head), "\xef\xbb\xbf")
		h = strings.TrimPrefix(h, `"`)
		if f == collectorset.TabSeparated {
			return strings.HasPrefix(h, "(PDH-TSV 4.0)")
		}
		return strings.HasPrefix(h, "(PDH-CSV 4.0)")
	case collectorset.BLG:
		if len(head) < 4 {
			return false
		}
		bs := uint32(head[0]) | uint32(head[1])<<8 | uint32(head[2])<<16 | uint32(head[3])<<24
		return bs >= 4<<10 && bs <= 16<<20 && bs%8 == 0
	}
	return true
}
