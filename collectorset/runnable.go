package collectorset

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// maxLogSetName bounds an SQL log set's name, in bytes: the
// DisplayToID.DisplayString column of relog's schema holds 1024.
const maxLogSetName = 1024

// CheckRunnable checks what Validate leaves out: combinations that a
// definition may hold (one read from Windows, or stored by an older
// perfc) but that perfc cannot run. logman checks it when a set is
// created, changed or imported, so that a set it accepts is never refused
// at start for its definition; reading a stored set does not, so that one
// stored before a check was added can still be read, changed and
// deleted. Every problem found is reported, joined.
func (s *Set) CheckRunnable() error {
	if s.Alert != nil {
		return nil // an alert set writes no log: Validate checks it whole
	}
	var errs []error
	c := &s.Collector
	if c.LogFileFormat == Sql {
		name := c.FileName
		if name == "" {
			name = s.Name
		}
		if strings.Contains(name, "!") {
			errs = append(errs, fmt.Errorf("SQL log set name %q holds '!', which ends the data source name in SQL:DSN!logset", name))
		}
		if len(name) > maxLogSetName {
			errs = append(errs, fmt.Errorf("SQL log set name of %d bytes: at most %d", len(name), maxLogSetName))
		}
	} else {
		if !filepath.IsAbs(s.RootPath) {
			errs = append(errs, fmt.Errorf("the log directory %q is not an absolute path (set it with -o)", s.RootPath))
		}
		if n := c.FileName; n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
			errs = append(errs, fmt.Errorf("log file name %q is no file name in the log directory (it holds '/' or is . or ..)", n))
		}
	}
	if s.Segment && c.LogFileFormat != Binary {
		errs = append(errs, fmt.Errorf("starting new files (-cnf) is built for binary logs only (-f bin), not %s", c.LogFileFormat))
	}
	if err := checkDataManager(&s.DataManager); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Rolls reports whether the set's log is a rollover series: a binary
// log, not circular, with -cnf and a limit (its time, or -max).
func (s *Set) Rolls() bool {
	c := &s.Collector
	return s.Segment && (s.SegmentMaxDuration > 0 || s.SegmentMaxSize > 0) && c.LogFileFormat == Binary && !c.LogCircular
}

// WritesSeries reports whether the set writes log files whose names
// change, by run (-v) or by rollover (Rolls); a set that does not writes
// one file (or an SQL log set) again and again.
func (s *Set) WritesSeries() bool {
	c := &s.Collector
	return c.LogFileFormat != Sql && (s.Rolls() || c.FileNameFormat&(FileNameSerialNumber|FileNameMonthDayHourMinute|FileNameMonthDayHour) != 0)
}
