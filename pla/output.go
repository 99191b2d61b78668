package pla

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/wintz"
)

// ErrFileExists is the error of starting a set whose log file exists
// when the set neither appends (-a) nor overwrites (-ow), as Windows
// refuses it.
var ErrFileExists = errors.New("the log file exists: give the set -ow to overwrite it, -a to append to it, or -v to version its names")

// output is where a running set writes its samples.
type output interface {
	// write records the query's last collected sample.
	write(ctx context.Context, q *pdh.Query) error
	// gap marks that collection stopped and started again (binary logs).
	gap(t time.Time, reason string) error
	close() error
	// location is the file (or SQL log set) written now.
	location() string
}

// outputConfig is what opening a set's output needs besides the set.
type outputConfig struct {
	mb      int64 // bytes in -max's MB
	now     time.Time
	crashed bool // the last run ended without a clean stop: continue the log
	// reduce returns the query's last sample reduced to its objects
	// (Query.Sample), shared by the sets that read the same objects; nil:
	// Query.Sample.
	reduce func(q *pdh.Query) (*pdh.Sample, error)
	sql    sqllog.Options
	// retain applies the set's data manager to its log files before the
	// log is opened and at each new file (nil: none; retention.go).
	retain *retention
}

// openOutput opens the log of s as its format, naming and mode say.
func openOutput(ctx context.Context, s *collectorset.Set, src pdh.Source, cfg outputConfig) (output, error) {
	c := &s.Collector
	if c.LogFileFormat == collectorset.Sql {
		if s.Segment {
			return nil, fmt.Errorf("set %q: starting new log sets (-cnf) is built for binary logs only (-f bin), not sql", s.Name)
		}
		// -max counts the log set's records: the set stops when it
		// holds that many, as Windows stops a SQL log at its
		// SegmentMaxRecords when it does not start new files.
		opts := cfg.sql
		opts.MaxRecords = int64(c.SegmentMaxRecords)
		w, err := sqllog.Create(ctx, "SQL:"+c.DataSourceName+"!"+logName(s), opts)
		if err != nil {
			return nil, err
		}
		return &sqlOutput{w: w, where: s.OutputLocation(cfg.now)}, nil
	}
	if s.RootPath == "" || !filepath.IsAbs(s.RootPath) {
		return nil, fmt.Errorf("the log directory %q of Data Collector Set %q is not an absolute path (set it with -o)", s.RootPath, s.Name)
	}
	if err := state.MkdirLogDir(s.RootPath, os.Geteuid()); err != nil {
		return nil, fmt.Errorf("the log directory of Data Collector Set %q: %w", s.Name, err)
	}
	if err := state.CheckLogDir(s.RootPath, os.Geteuid()); err != nil {
		return nil, fmt.Errorf("the log directory of Data Collector Set %q: %w", s.Name, err)
	}
	if cfg.retain != nil {
		// The file written next is kept: the one the set's name says, or
		// the first of a numbered rollover series.
		keep := []string{filepath.Base(s.OutputLocation(cfg.now))}
		if s.Rolls() {
			base := filepath.Join(s.RootPath, logName(s)+c.LogFileFormat.Extension())
			keep = append(keep, filepath.Base(binlog.RolloverName(base, int(max(s.SerialNumber, 1)), time.Time{}, binlog.NumberedNames)))
		}
		if err := cfg.retain.pass(true, keep...); err != nil {
			return nil, err
		}
	}
	if c.LogFileFormat == collectorset.BLG {
		return openBLG(ctx, s, src, cfg)
	}
	if c.LogFileFormat == collectorset.Binary {
		out, err := openBinary(s, src, cfg)
		if err != nil {
			return nil, err
		}
		if cfg.retain != nil {
			// Each new file of a rollover series (and the first of a
			// series by date, named at its first sample) applies it again.
			out.onNew = func(path string) { cfg.retain.pass(false, filepath.Base(path)) }
		}
		return out, nil
	}
	return openText(s, cfg)
}

// logName is the log's base name: FileName, else the set's name.
func logName(s *collectorset.Set) string {
	if s.Collector.FileName != "" {
		return s.Collector.FileName
	}
	return s.Name
}

// exists reports whether path names an existing file.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// openBinary opens a binary log: linear, appended (-a, or continuing
// after a crash, with a gap mark), circular (bincirc within -max) or a
// rollover series (-cnf, -max with -cnf) named NAME_000001.plog or
// NAME_MMddHHmm.plog.
func openBinary(s *collectorset.Set, src pdh.Source, cfg outputConfig) (*binOutput, error) {
	c := &s.Collector
	opts := binlog.DefaultOptions()
	opts.Titles = src.Titles()
	opts.Counters = append([]string(nil), c.Counters...)
	opts.Location = time.Local
	base := filepath.Join(s.RootPath, logName(s)+c.LogFileFormat.Extension())
	path := s.OutputLocation(cfg.now)
	rolling := s.Segment && (s.SegmentMaxDuration > 0 || s.SegmentMaxSize > 0)
	switch {
	case c.LogCircular:
		opts.Mode, opts.MaxSize = binlog.Circular, int64(s.SegmentMaxSize)*cfg.mb
		if cfg.crashed && exists(path) {
			opts.Mode = binlog.Append // binlog keeps a circular file circular
		}
	case rolling:
		opts.Rollover = binlog.Rollover{
			Size:     int64(s.SegmentMaxSize) * cfg.mb,
			Interval: time.Duration(s.SegmentMaxDuration) * time.Second,
			First:    int(max(s.SerialNumber, 1)),
		}
		if c.FileNameFormat&(collectorset.FileNameMonthDayHourMinute|collectorset.FileNameMonthDayHour) != 0 {
			opts.Rollover.Names = binlog.DatedNames
		}
		path = base
		if opts.Rollover.Names == binlog.NumberedNames {
			if cfg.crashed {
				// The series goes on after the last file the dead
				// collector wrote (a gap mark starts the new file).
				opts.Rollover.First = max(opts.Rollover.First, lastSerial(base)+1)
			}
			first := binlog.RolloverName(base, opts.Rollover.First, time.Time{}, binlog.NumberedNames)
			if exists(first) && !c.LogOverwrite {
				return nil, fmt.Errorf("%s: %w", first, ErrFileExists)
			}
		}
	default:
		if s.SegmentMaxSize > 0 {
			opts.MaxSize = int64(s.SegmentMaxSize) * cfg.mb // Windows stops the set there
		}
		if c.LogAppend || (cfg.crashed && exists(path)) {
			opts.Mode = binlog.Append
		}
	}
	if opts.Mode != binlog.Append && !rolling && exists(path) && !c.LogOverwrite {
		return nil, fmt.Errorf("%s: %w", path, ErrFileExists)
	}
	w, err := binlog.Create(path, opts)
	if err != nil {
		return nil, err
	}
	reduce := cfg.reduce
	if reduce == nil {
		reduce = (*pdh.Query).Sample
	}
	return &binOutput{w: w, reduce: reduce, last: w.Path()}, nil
}

type binOutput struct {
	w      *binlog.Writer
	reduce func(q *pdh.Query) (*pdh.Sample, error)
	last   string            // the file written, as last seen
	onNew  func(path string) // called when the writer starts a new file (nil: none)
}

// rolled calls onNew when the writer has started a new file since last
// seen.
func (o *binOutput) rolled() {
	if p := o.w.Path(); p != o.last {
		o.last = p
		if o.onNew != nil && p != "" {
			o.onNew(p)
		}
	}
}

// lastSerial is the highest serial number of the files of the numbered
// series of base (NAME.ext: NAME_NNNNNN.ext) that exist; 0 when none.
func lastSerial(base string) int {
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	names, _ := filepath.Glob(stem + "_[0-9][0-9][0-9][0-9][0-9][0-9]" + ext)
	last := 0
	for _, n := range names {
		if k, ok := serialOf(n); ok && k > last {
			last = k
		}
	}
	return last
}

// serialOf reads the serial number of a file named NAME_NNNNNN.ext.
func serialOf(path string) (int, bool) {
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	i := strings.LastIndexByte(stem, '_')
	if i < 0 || len(stem)-i-1 != 6 {
		return 0, false
	}
	n := 0
	for _, c := range stem[i+1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func (o *binOutput) write(_ context.Context, q *pdh.Query) error {
	smp, err := o.reduce(q)
	if err != nil || smp == nil {
		return err
	}
	err = o.w.WriteSample(smp)
	o.rolled()
	return err
}

func (o *binOutput) gap(t time.Time, reason string) error {
	err := o.w.WriteGap(t, reason)
	o.rolled()
	return err
}

func (o *binOutput) close() error     { return o.w.Close() }
func (o *binOutput) location() string { return o.w.Path() }

// openBLG opens a Windows BLG (-f blg): linear, written anew each run
// (Windows' BLG is never appended to: after a crash the file the dead
// collector wrote is kept and the new run needs -ow or a -v name).
func openBLG(ctx context.Context, s *collectorset.Set, src pdh.Source, cfg outputConfig) (output, error) {
	c := &s.Collector
	path := s.OutputLocation(cfg.now)
	if exists(path) && !c.LogOverwrite {
		return nil, fmt.Errorf("%s: %w", path, ErrFileExists)
	}
	rec, err := perflog.Create(ctx, path, perflog.BLG, perflog.CreateOptions{Overwrite: true,
		Counters: append([]string(nil), c.Counters...), Location: time.Local, Titles: src.Titles()})
	if err != nil {
		return nil, err
	}
	return &blgOutput{rec: rec}, nil
}

// blgOutput writes a Windows BLG (perflog's BLG recorder).
type blgOutput struct{ rec perflog.Recorder }

func (o *blgOutput) write(ctx context.Context, q *pdh.Query) error { return o.rec.WriteQuery(ctx, q) }
func (o *blgOutput) gap(time.Time, string) error                   { return nil } // a BLG has no gap mark (FORMAT.md section 8)
func (o *blgOutput) close() error                                  { return o.rec.Close() }
func (o *blgOutput) location() string                              { return o.rec.Name() }

type sqlOutput struct {
	w     *sqllog.Writer
	where string
}

func (o *sqlOutput) write(ctx context.Context, q *pdh.Query) error { return o.w.WriteQuery(ctx, q) }
func (o *sqlOutput) gap(time.Time, string) error                   { return nil }
func (o *sqlOutput) close() error                                  { return o.w.Close() }
func (o *sqlOutput) location() string                              { return o.where }

// openText opens a CSV or TSV log: created (-ow: truncated; an existing
// file is an error otherwise), or appended to (-a: rows after the rows
// there; the header only when the file is empty). -max stops the set
// when the next row would pass it; rolling over to new files is built for
// binary logs only.
func openText(s *collectorset.Set, cfg outputConfig) (output, error) {
	c := &s.Collector
	if s.Segment {
		return nil, fmt.Errorf("set %q: starting new files (-cnf) is built for binary logs only (-f bin), not %s", s.Name, c.LogFileFormat)
	}
	path := s.OutputLocation(cfg.now)
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	switch {
	case c.LogAppend || cfg.crashed:
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case c.LogOverwrite:
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrFileExists)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: logs are not written through links", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	format := pdhcsv.CSV
	if c.LogFileFormat == collectorset.TabSeparated {
		format = pdhcsv.TSV
	}
	o := &textOutput{f: f, path: path, size: fi.Size(), header: fi.Size() == 0}
	if s.SegmentMaxSize > 0 {
		o.limit = int64(s.SegmentMaxSize) * cfg.mb
	}
	o.w = pdhcsv.NewWriter(o, pdhcsv.WriterOptions{Format: format, Style: pdhcsv.StyleLog, Location: time.Local, CRLF: true})
	return o, nil
}

// textOutput writes rows of formatted values, one column per concrete
// counter instance as the first sample shows them (wildcards expanded
// then, as typeperf and relog do).
type textOutput struct {
	f           *os.File
	w           *pdhcsv.Writer
	path        string
	size, limit int64
	header      bool // the header is still to be written
	cols        *pdhcsv.Columns
	vals        []pdhcsv.Value
	started     bool
	discard     bool // Write drops what it is given (the header of an appended file)
}

// ErrFull is the error of a log that reached its -max size.
var ErrFull = errors.New("the log has reached its maximum size (-max)")

// Write is the pdhcsv writer's sink: each call is one whole row, refused
// whole when it would pass the size limit.
func (o *textOutput) Write(b []byte) (int, error) {
	if o.discard {
		return len(b), nil
	}
	if o.limit > 0 && o.size+int64(len(b)) > o.limit {
		return 0, fmt.Errorf("%s: %w (%d bytes)", o.path, ErrFull, o.limit)
	}
	n, err := o.f.Write(b)
	o.size += int64(n)
	if err != nil && n > 0 && n < len(b) {
		// A torn row is cut off, so the file ends with whole rows.
		if terr := o.f.Truncate(o.size - int64(n)); terr == nil {
			o.size -= int64(n)
		}
	}
	return n, err
}

func (o *textOutput) write(_ context.Context, q *pdh.Query) error {
	if !o.started {
		o.started = true
		o.cols = pdhcsv.QueryColumns(q, strings.ToUpper(q.Machine()))
		o.vals = make([]pdhcsv.Value, o.cols.Len())
		names := o.cols.Names()
		// Appending to a file that has its header: the writer still
		// needs the columns, the file does not get them again.
		o.discard = !o.header
		err := o.w.WriteHeader(wintz.At(q.Time().In(time.Local)), names)
		o.discard = false
		if err != nil {
			return err
		}
	}
	o.cols.Fill(o.vals)
	return o.w.WriteRow(q.Time(), o.vals)
}

func (o *textOutput) gap(time.Time, string) error { return nil }
func (o *textOutput) location() string            { return o.path }
func (o *textOutput) close() error {
	err := o.f.Sync()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}
