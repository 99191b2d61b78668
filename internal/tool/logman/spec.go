package logman

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
)

// Spec is what a create or update command line says about a set: only
// the options given change it (a nil pointer or false Has... leaves the
// set's value alone), and the doubled-dash forms (--v, --max, ...) clear
// what they name. Values are already parsed; the command parses them
// with collectorset's parsers.
type Spec struct {
	Name string

	Counters    []string // -c and -cf; HasCounters: given (update replaces the list)
	HasCounters bool

	SampleInterval *uint32 // -si, seconds
	Format         *string // -f bin|bincirc|csv|tsv|sql
	Output         *string // -o: a file path, or SQL:DSN!logset

	Max   *uint32 // -max: MB (SQL: records); --max sets 0
	Cnf   *uint32 // -cnf: seconds, 0 = a new file when -max is reached; nil: not given
	NoCnf bool    // --cnf

	Version   *collectorset.FileNameFormat // -v; --v sets 0
	Append    *bool                        // -a / --a
	Overwrite *bool                        // -ow / --ow
	Repeat    *bool                        // -r / --r

	Begin *time.Time // -b
	End   *time.Time // -e

	RunFor  *uint32 // -rf, seconds
	Samples *uint32 // -sc
	Server  *string // -s
	Task    *string // -rc; --rc sets ""

	RunAtBoot *bool // -boot / --boot (perfc's own)

	// Alert: the command names an alert set (create alert, update alert).
	Alert bool
	// The alert collector's options.
	Thresholds     []string // -th (and -cf for an alert); HasThresholds: given
	HasThresholds  bool
	EventLog       *bool    // -el / --el
	AlertTask      *string  // -tn; --tn sets ""
	AlertArgs      *string  // -targ; --targ sets ""
	Trigger        *string  // -rdcs; --rdcs sets ""
	Hold           *uint32  // -hold (perfc's own)
	Hysteresis     *float64 // -hyst (perfc's own)
	OnChange       *bool    // -onchange / --onchange (perfc's own)
	ActionInterval *uint32  // -arl, seconds (perfc's own)

	// Retain is -retain's limits on the set's log files, which replace
	// its data manager's (--retain: the zero Retention, which turns it
	// off); nil: not given.
	Retain *collectorset.Retention

	// ManualStart (-m start) removes the set's schedule: it starts with
	// logman start (or -boot) only. ManualStop (-m stop) removes its run
	// time (-e, -rf): it runs until logman stop.
	ManualStart, ManualStop bool

	// RunAs is -u's user (--u: ""); nil: not given. A set runs as the
	// user who owns it: the only user -u takes is the caller's own
	// (Options.User), stored as the set's UserAccount.
	RunAs *string
}

// counterOnly names the options given that a counter set has and an
// alert set has not.
func (sp *Spec) counterOnly() []string {
	var out []string
	add := func(given bool, opt string) {
		if given {
			out = append(out, opt)
		}
	}
	add(sp.HasCounters, "-c")
	add(sp.Format != nil, "-f")
	add(sp.Output != nil, "-o")
	add(sp.Max != nil, "-max")
	add(sp.Cnf != nil || sp.NoCnf, "-cnf")
	add(sp.Version != nil, "-v")
	add(sp.Append != nil, "-a")
	add(sp.Overwrite != nil, "-ow")
	add(sp.Samples != nil, "-sc")
	add(sp.Task != nil, "-rc")
	add(sp.Retain != nil, "-retain")
	return out
}

// alertOnly names the options given that an alert set has and a counter
// set has not.
func (sp *Spec) alertOnly() []string {
	var out []string
	add := func(given bool, opt string) {
		if given {
			out = append(out, opt)
		}
	}
	add(sp.HasThresholds, "-th")
	add(sp.EventLog != nil, "-el")
	add(sp.AlertTask != nil, "-tn")
	add(sp.AlertArgs != nil, "-targ")
	add(sp.Trigger != nil, "-rdcs")
	add(sp.Hold != nil, "-hold")
	add(sp.Hysteresis != nil, "-hyst")
	add(sp.OnChange != nil, "-onchange")
	add(sp.ActionInterval != nil, "-arl")
	return out
}

// applyAlert changes an alert set as the spec says.
func (sp *Spec) applyAlert(o *Options, s *collectorset.Set) error {
	if opts := sp.counterOnly(); len(opts) > 0 {
		return invalid("%s: %s of a counter set; an alert set has thresholds (-th), no log of its own", s.Name, strings.Join(opts, ", "))
	}
	if err := sp.checkCommon(o); err != nil {
		return err
	}
	a := s.Alert
	if sp.HasThresholds {
		a.Thresholds = append([]string(nil), sp.Thresholds...)
	}
	if sp.SampleInterval != nil {
		if *sp.SampleInterval < collectorset.MinSampleInterval {
			return invalid("-si %d: the sample interval must be at least %d second", *sp.SampleInterval, collectorset.MinSampleInterval)
		}
		a.SampleInterval = *sp.SampleInterval
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&a.Task, sp.AlertTask)
	set(&a.TaskArguments, sp.AlertArgs)
	set(&a.TriggerDataCollectorSet, sp.Trigger)
	if sp.EventLog != nil {
		a.EventLog = *sp.EventLog
	}
	if sp.Hold != nil {
		a.Hold = *sp.Hold
	}
	if sp.Hysteresis != nil {
		a.Hysteresis = *sp.Hysteresis
	}
	if sp.OnChange != nil {
		a.OnChange = *sp.OnChange
	}
	if sp.ActionInterval != nil {
		a.ActionInterval = *sp.ActionInterval
	}
	return sp.applyCommon(s)
}

// checkCommon checks the options every kind of set has: -m against what
// it undoes, -u against the caller.
func (sp *Spec) checkCommon(o *Options) error {
	if err := sp.manual(); err != nil {
		return err
	}
	if sp.RunAs != nil && *sp.RunAs != "" && *sp.RunAs != o.User {
		return invalid("-u %s: a set runs as the user who owns it (%s), never as another: perfc keeps no passwords. Create the set as %s instead, or give -u %s", *sp.RunAs, o.owner(), *sp.RunAs, o.owner())
	}
	return nil
}

// applyCommon applies the options every kind of set has: its schedule
// (-b, -e, -r), run time (-rf), computer (-s), start at boot, -m and -u.
func (sp *Spec) applyCommon(s *collectorset.Set) error {
	if err := sp.schedule(s); err != nil {
		return err
	}
	if sp.RunFor != nil {
		s.Duration = *sp.RunFor
	}
	if sp.Server != nil {
		s.Server = *sp.Server
	}
	if sp.RunAtBoot != nil {
		s.RunAtBoot = *sp.RunAtBoot
	}
	if sp.ManualStart {
		s.Schedules = nil
	}
	if sp.ManualStop {
		s.Duration = 0
	}
	if sp.RunAs != nil {
		s.UserAccount = *sp.RunAs
	}
	return nil
}

// apply changes s as the spec says, then lets Validate judge the whole.
func (sp *Spec) apply(o *Options, s *collectorset.Set) error {
	if s.Alert != nil {
		return sp.applyAlert(o, s)
	}
	if opts := sp.alertOnly(); len(opts) > 0 {
		return invalid("%s: %s of an alert set; %s is a counter set", s.Name, strings.Join(opts, ", "), s.Name)
	}
	c := &s.Collector
	if err := sp.checkCommon(o); err != nil {
		return err
	}
	if sp.HasCounters {
		c.Counters = append([]string(nil), sp.Counters...)
	}
	if sp.SampleInterval != nil {
		if *sp.SampleInterval < collectorset.MinSampleInterval {
			return invalid("-si %d: the sample interval must be at least %d second", *sp.SampleInterval, collectorset.MinSampleInterval)
		}
		c.SampleInterval = *sp.SampleInterval
	}
	if sp.Format != nil {
		f, circ, err := collectorset.ParseFormat(*sp.Format)
		if err != nil {
			return invalid("-f: %v", err)
		}
		if c.LogFileFormat == collectorset.Sql && f != collectorset.Sql && c.SegmentMaxRecords > 0 && sp.Max == nil {
			// -max meant records; in a file it means MB.
			s.SegmentMaxSize, c.SegmentMaxRecords = c.SegmentMaxRecords, 0
		}
		c.LogFileFormat, c.LogCircular = f, circ
	}
	if sp.Output != nil {
		if err := sp.output(o, s); err != nil {
			return err
		}
	}
	if sp.Max != nil {
		if c.LogFileFormat == collectorset.Sql {
			c.SegmentMaxRecords, s.SegmentMaxSize = *sp.Max, 0
		} else {
			s.SegmentMaxSize, c.SegmentMaxRecords = *sp.Max, 0
		}
	}
	switch {
	case sp.NoCnf:
		s.Segment, s.SegmentMaxDuration = false, 0
	case sp.Cnf != nil:
		s.Segment, s.SegmentMaxDuration = true, *sp.Cnf
	}
	if sp.Version != nil {
		c.FileNameFormat = *sp.Version
	}
	if sp.Append != nil {
		c.LogAppend = *sp.Append
	}
	if sp.Overwrite != nil {
		c.LogOverwrite = *sp.Overwrite
	}
	if err := sp.applyCommon(s); err != nil {
		return err
	}
	if sp.Samples != nil {
		c.MaxSamples = *sp.Samples
	}
	if sp.Task != nil {
		s.Task = *sp.Task
	}
	if sp.Retain != nil {
		if err := sp.retain(o, s); err != nil {
			return err
		}
	}
	return nil
}

// manual checks -m against the options it undoes in the same command.
func (sp *Spec) manual() error {
	if sp.ManualStart {
		switch {
		case sp.Begin != nil:
			return invalid("-m start and -b exclude each other: -m start removes the set's schedule (start it with perfc logman start)")
		case sp.End != nil:
			return invalid("-m start and -e exclude each other: -e ends a scheduled run, and -m start removes the set's schedule")
		case sp.Repeat != nil && *sp.Repeat:
			return invalid("-m start and -r exclude each other: -m start removes the set's schedule")
		}
	}
	if sp.ManualStop && (sp.End != nil || sp.RunFor != nil) {
		return invalid("-m stop and -e or -rf exclude each other: -m stop removes the set's run time (stop it with perfc logman stop)")
	}
	return nil
}

// retain applies -retain to the set as the other options left it: only a
// set that writes a series of log files has files to delete.
func (sp *Spec) retain(o *Options, s *collectorset.Set) error {
	r := *sp.Retain
	if !r.IsZero() {
		if s.Collector.LogFileFormat == collectorset.Sql {
			return invalid("-retain %s: an SQL log set has no files to delete; retention is for file logs (-f bin, bincirc, csv, tsv)", r)
		}
		if (r.Files > 0 || r.Age > 0 || r.Size > 0) && !s.WritesSeries() {
			return invalid("-retain %s: the set writes one log file (%s), which retention never deletes; give it -v nnnnnn or -v mmddhhmm (a file each run) or -cnf (a new file at a time or size) so that it writes a series", r, s.OutputLocation(o.now()))
		}
	}
	s.DataManager.SetRetention(r)
	return nil
}

// output applies -o: SQL:DSN!logset for an SQL log, else a file path
// whose directory becomes the root path and whose name (without a log
// extension) the file name.
func (sp *Spec) output(o *Options, s *collectorset.Set) error {
	c := &s.Collector
	v := *sp.Output
	if rest, ok := cutPrefixFold(v, "SQL:"); ok {
		// The log set follows the last '!', as sqllog reads it: a
		// SQLite path may hold one.
		i := strings.LastIndexByte(rest, '!')
		dsn, logset := rest[:max(i, 0)], rest[i+1:]
		if i < 0 || dsn == "" || logset == "" {
			return invalid("-o %s: an SQL log is written SQL:DSN!logset", v)
		}
		if c.LogFileFormat != collectorset.Sql {
			if sp.Format != nil {
				return invalid("-o %s: an SQL log needs -f sql, not -f %s", v, *sp.Format)
			}
			c.LogFileFormat, c.LogCircular = collectorset.Sql, false
		}
		c.DataSourceName, c.FileName = dsn, logset
		return nil
	}
	if c.LogFileFormat == collectorset.Sql {
		return invalid("-o %s: an SQL log is written SQL:DSN!logset", v)
	}
	if v == "" || strings.HasSuffix(v, "/") {
		return invalid("-o %q: give the log file's path", v)
	}
	if !filepath.IsAbs(v) {
		wd := o.WorkDir
		if wd == "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return invalid("-o %s: %v", v, err)
			}
			v = abs
		} else {
			v = filepath.Join(wd, v)
		}
	}
	v = filepath.Clean(v)
	base := filepath.Base(v)
	switch strings.ToLower(filepath.Ext(base)) {
	case ".blg", ".plog", ".csv", ".tsv":
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	s.RootPath, c.FileName = filepath.Dir(v), base
	return nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// schedule applies -b, -e and -r. The set gets one schedule: it starts at
// -b's date and time, every day with -r (until -e's date, when given),
// else once (its end date is its start date); -e's time of day less -b's
// is the set's Duration (with -r), or -e less -b (without), unless -rf
// gives one. -e needs a begin time: -b, or the set's schedule.
func (sp *Spec) schedule(s *collectorset.Set) error {
	if sp.Begin == nil && sp.End == nil && sp.Repeat == nil {
		return nil
	}
	var begin time.Time
	repeat := false
	if len(s.Schedules) > 0 {
		sc := s.Schedules[0]
		begin = sc.Start()
		repeat = sc.Days == collectorset.Everyday && !sc.EndDate.Equal(sc.StartDate)
	}
	if sp.Begin != nil {
		begin = *sp.Begin
	}
	if sp.Repeat != nil {
		repeat = *sp.Repeat
	}
	if begin.IsZero() {
		if sp.End != nil {
			return invalid("-e needs a begin time: give -b as well")
		}
		if !repeat {
			return nil // --r: "do not repeat" a set that has no schedule to repeat
		}
		return invalid("-r needs a begin time: give -b as well")
	}
	sc := collectorset.Schedule{
		StartDate: collectorset.DateOf(begin),
		StartTime: collectorset.TimeOfDay(begin),
		Days:      collectorset.Day(begin.Weekday()),
	}
	if repeat {
		sc.Days = collectorset.Everyday
	} else {
		sc.EndDate = sc.StartDate
	}
	if sp.End != nil {
		end := *sp.End
		if !end.After(begin) {
			return invalid("-e %s is not after -b %s", end.Format("1/2/2006 3:04:05 PM"), begin.Format("1/2/2006 3:04:05 PM"))
		}
		var d time.Duration
		if repeat {
			sc.EndDate = collectorset.DateOf(end)
			d = (collectorset.TimeOfDay(end) - collectorset.TimeOfDay(begin) + 24*time.Hour) % (24 * time.Hour)
		} else {
			d = end.Sub(begin)
		}
		if sp.RunFor == nil {
			if d/time.Second > 1<<32-1 {
				return invalid("-e: more than %d seconds after -b", uint32(1<<32-1))
			}
			s.Duration = uint32(d / time.Second)
		}
	}
	s.Schedules = []collectorset.Schedule{sc}
	s.SchedulesEnabled = true
	return nil
}
