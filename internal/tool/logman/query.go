package logman

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/state"
)

// Query lists the caller's sets and the system sets in `logman query`'s
// layout: a blank line, the columns Data Collector Set (40 characters),
// Type (30) and Status, a rule of 79 dashes, one line per set (a name
// longer than its column is not cut: one blank, then the type), a blank
// line and "The command completed successfully.". A set whose definition
// cannot be read is left out with a warning naming its file; a state
// directory that cannot be trusted is an error.
func Query(o Options) error {
	var b strings.Builder
	b.WriteString("\n")
	row(&b, "Data Collector Set", "Type", "Status")
	b.WriteString(strings.Repeat("-", 79) + "\n")
	for i, d := range o.dirs() {
		cs, err := state.ReadCollectorSets(d)
		if err != nil && i > 0 {
			// The system sets cannot be read: the caller's own are still
			// listed.
			o.warn(fmt.Sprintf("the system Data Collector Sets are left out: %v", err))
			continue
		}
		if err != nil {
			return &Error{Code: CodeFailed, Message: "The Data Collector Sets could not be read.", Detail: err.Error(), Err: err}
		}
		for _, p := range cs.Problems {
			o.warn(p.Error())
		}
		for _, s := range cs.Sets {
			st := collectorset.Stopped
			if running, _ := o.runner().Status(d, s); running {
				st = collectorset.Running
			}
			row(&b, s.Name, s.Type(), st.String())
		}
	}
	b.WriteString("\n" + completed)
	_, err := io.WriteString(o.Stdout, b.String())
	return err
}

// row writes one line of the list.
func row(b *strings.Builder, name, typ, status string) {
	b.WriteString(name)
	if len(name) < 40 {
		b.WriteString(strings.Repeat(" ", 40-len(name)))
	} else {
		b.WriteString(" ")
	}
	b.WriteString(typ + strings.Repeat(" ", max(1, 30-len(typ))) + status + "\n")
}

// keyWidth is the column of the values of `logman query NAME`.
const keyWidth = 22

func onOff(v bool) string {
	if v {
		return "On"
	}
	return "Off"
}

// QuerySet prints one set in `logman query NAME`'s detail form: "Key:"
// lines with their values in one column, first the set's, then its
// collector's (named SET\COLLECTOR), then its counters.
func QuerySet(o Options, name string) error {
	f, err := o.find(name)
	if err != nil {
		return err
	}
	s := f.set
	running, detail := o.runner().Status(f.dir, s)
	var b strings.Builder
	key := func(k, v string) {
		b.WriteString(k + ":" + strings.Repeat(" ", max(1, keyWidth-len(k)-1)) + v + "\n")
	}
	status := collectorset.Stopped
	if running {
		status = collectorset.Running
	}
	b.WriteString("\n")
	key("Name", s.Name)
	key("Status", status.String())
	if detail != "" {
		key("Status Detail", detail)
	}
	if s.Alert == nil {
		key("Root Path", s.RootPath)
		key("Segment", onOff(s.Segment))
	}
	key("Schedules", onOff(s.SchedulesEnabled && len(s.Schedules) > 0))
	for _, sc := range s.Schedules {
		key("Schedule", schedule(sc))
	}
	if s.Duration > 0 {
		key("Duration", collectorset.FormatSeconds(s.Duration))
	}
	if s.SegmentMaxDuration > 0 {
		key("Segment Max Duration", collectorset.FormatSeconds(s.SegmentMaxDuration))
	}
	if s.SegmentMaxSize > 0 {
		key("Segment Max Size", fmt.Sprintf("%d MB", s.SegmentMaxSize))
	}
	runAs := o.User
	if f.dir != o.UserDir {
		runAs = "root"
	}
	key("Run As", runAs)
	if s.UserAccount != "" && s.UserAccount != runAs {
		key("User Account", s.UserAccount+" (Windows' run-as account, kept as read: the set runs as "+runAs+")")
	}
	if s.RunAtBoot {
		key("Run At Boot", "On")
	}
	if s.Server != "" {
		key("Server", s.Server)
	}
	if s.Task != "" {
		key("Task", s.Task)
	}
	act, aerr := pla.ReadActivity(f.dir, s.Name)
	if a := s.Alert; a != nil {
		writeAlert(&b, key, s, a)
		writeAlertState(&b, act, aerr)
		writeActions(&b, act)
		writeWarnings(&b, f.dir, s.Name)
		b.WriteString("\n" + completed)
		_, err = io.WriteString(o.Stdout, b.String())
		return err
	}
	writeDataManager(key, &s.DataManager)
	c := &s.Collector
	b.WriteString("\n")
	key("Name", s.Name+`\`+c.Name)
	key("Type", "Counter")
	key("Append", onOff(c.LogAppend))
	key("Circular", onOff(c.LogCircular))
	key("Overwrite", onOff(c.LogOverwrite))
	key("Sample Interval", fmt.Sprint(c.SampleInterval))
	if c.MaxSamples > 0 {
		key("Max Samples", fmt.Sprint(c.MaxSamples))
	}
	if c.SegmentMaxRecords > 0 {
		key("Segment Max Records", fmt.Sprint(c.SegmentMaxRecords))
	}
	key("Output Location", s.OutputLocation(o.now()))
	key("File Format", c.LogFileFormat.String())
	key("Log Mode", logMode(c))
	b.WriteString("\nCounters:\n")
	for _, p := range c.Counters {
		b.WriteString("    " + p + "\n")
	}
	if aerr != nil {
		b.WriteString("\nActions: " + aerr.Error() + "\n")
	}
	writeActions(&b, act)
	writeWarnings(&b, f.dir, s.Name)
	b.WriteString("\n" + completed)
	_, err = io.WriteString(o.Stdout, b.String())
	return err
}

// writeDataManager adds the retention settings of an enabled data
// manager: its limits, its policy, and the folder actions its age limit
// does not already say (Windows' CAB actions, which perfc does not do,
// among them).
func writeDataManager(key func(k, v string), dm *collectorset.DataManager) {
	if !dm.Enabled {
		return
	}
	r := dm.Retention()
	key("Data Manager", "On")
	if r.Files > 0 {
		key("Max Log Files", fmt.Sprint(r.Files))
	}
	if r.Age > 0 {
		key("Max Log Age", ageWords(r.Age))
	}
	if r.Size > 0 {
		key("Max Total Size", fmt.Sprintf("%d MB", r.Size))
	}
	if r.Free > 0 {
		key("Min Free Disk", fmt.Sprintf("%d MB", r.Free))
	}
	key("Resource Policy", r.Policy.String())
	key("Check Before Running", onOff(r.Check))
	for _, a := range dm.FolderActions {
		if a.Deletes() && a.Size == 0 {
			continue // in Max Log Age
		}
		key("Folder Action", folderAction(a))
	}
}

// folderAction words a folder action: when it acts and what it does.
func folderAction(a collectorset.FolderAction) string {
	when := "at " + plural(int64(a.Age), "day")
	if a.Size > 0 {
		when += fmt.Sprintf(" and %d MB", a.Size)
	}
	var do []string
	for _, st := range []struct {
		bit  collectorset.FolderActionSteps
		name string
	}{{collectorset.CreateCab, "create CAB"}, {collectorset.DeleteData, "delete data"}, {collectorset.SendCab, "send CAB"},
		{collectorset.DeleteCab, "delete CAB"}, {collectorset.DeleteReport, "delete report"}} {
		if a.Actions&st.bit != 0 {
			do = append(do, st.name)
		}
	}
	if len(do) == 0 {
		do = []string{"nothing"}
	}
	v := when + ": " + strings.Join(do, ", ")
	if !a.Deletes() && a.Actions != 0 {
		v += " (not done: perfc makes no CAB or report files)"
	}
	return v
}

// ageWords words an age as -retain takes it: in days, hours or minutes.
func ageWords(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return plural(int64(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int64(d/time.Minute), "minute")
	}
	return d.String()
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// logMode names how a log file is opened: Circular, Append, Overwrite or
// Normal (a new file).
func logMode(c *collectorset.Counters) string {
	switch {
	case c.LogCircular:
		return "Circular"
	case c.LogAppend:
		return "Append"
	case c.LogOverwrite:
		return "Overwrite"
	}
	return "Normal"
}

// schedule words one schedule: its start, its days and its end date.
func schedule(sc collectorset.Schedule) string {
	start := sc.Start().Format("1/2/2006 3:04:05 PM")
	var days string
	switch {
	case sc.Days == collectorset.Everyday:
		days = "every day"
	case !sc.EndDate.IsZero() && sc.EndDate.Equal(sc.StartDate):
		days = "once"
	default:
		var names []string
		for d := range 7 {
			if sc.Days&(1<<d) != 0 {
				names = append(names, [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}[d])
			}
		}
		days = strings.Join(names, ",")
	}
	s := start + ", " + days
	if !sc.EndDate.IsZero() && !sc.EndDate.Equal(sc.StartDate) {
		s += ", until " + fmt.Sprintf("%d/%d/%04d", int(sc.EndDate.Month()), sc.EndDate.Day(), sc.EndDate.Year())
	}
	return s
}

// shownWarnings is how many of the newest lines of a set's warning log
// logman query NAME shows.
const shownWarnings = 10

// writeWarnings adds the newest lines of the set's warning log (the
// warnings of its background collector: counters that match nothing,
// failed samples, crashes and restarts), when it has one.
func writeWarnings(b *strings.Builder, dir, name string) {
	path := state.RunFilePath(dir, name, state.WarningLogSuffix)
	data, err := state.ReadRunFile(dir, name, state.WarningLogSuffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		b.WriteString("\nWarnings: " + err.Error() + "\n")
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return
	}
	if len(lines) > shownWarnings {
		fmt.Fprintf(b, "\nWarnings (the newest %d; all in %s):\n", shownWarnings, path)
		lines = lines[len(lines)-shownWarnings:]
	} else {
		fmt.Fprintf(b, "\nWarnings (in %s):\n", path)
	}
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
}
