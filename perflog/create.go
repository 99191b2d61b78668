package perflog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
	"github.com/perfcounters/perfcounters/titles"
)

// Recorder records a query's samples into a log (pdh.Recorder) until it
// is closed.
type Recorder interface {
	pdh.Recorder
	// Close finishes the log (flushes, closes the log set).
	Close() error
	// Name is the file or destination being written.
	Name() string
}

// CreateOptions configure Create.
type CreateOptions struct {
	// Append continues an existing binary log (-a); a log that does not
	// exist yet is created. SQL log sets always append.
	Append bool
	// Overwrite replaces an existing file (-y); without it an existing
	// file is an error, where Windows' tools would ask.
	Overwrite bool
	// Counters are the paths the log is made of (shown when a reader is
	// asked for none); nil: whole objects.
	Counters []string
	// Location is the zone the log records for its text forms (nil:
	// time.Local).
	Location *time.Location
	// Rule is Location's POSIX TZ rule as the samples' reader stated it
	// (Input.Rule): a binary log records it as it is. "" derives it.
	Rule string
	// Titles names the indexes of the samples (the source's): a binary
	// log keeps the names and help texts it uses.
	Titles *titles.DB
	// Binary sets the binary log's mode, maximum size and rollover
	// (logman); its Host, Location, Titles, Counters and Compress are
	// taken from here. The zero value is a linear log.
	Binary binlog.Options
	// Uncompressed turns the binary log's zstd compression off.
	Uncompressed bool
	// SQL configures the resolution of SQL data source names.
	SQL sqllog.Options
}

// Create makes the recorder of a binary log (BIN), a Windows binary log
// (BLG: the counters of the query as Windows' typeperf records them;
// linear only, never appended) or an SQL log set (SQL). Text logs are
// written by the tools themselves, whose columns are fixed by their
// first samples.
func Create(ctx context.Context, name string, f Format, opts CreateOptions) (Recorder, error) {
	switch f {
	case BIN:
		return createBinary(name, opts)
	case BLG:
		return createBLG(name, opts)
	case SQL:
		if !IsSQL(name) {
			return nil, fmt.Errorf("-o %s: an SQL log is written to SQL:DSN!logset", name)
		}
		w, err := sqllog.Create(ctx, name, withZone(opts.SQL, opts.Location))
		if err != nil {
			return nil, err
		}
		return &sqlRecorder{w: w, name: name}, nil
	}
	return nil, fmt.Errorf("%s: %s logs are written as text by the tools, not recorded", name, f)
}

func withZone(o sqllog.Options, loc *time.Location) sqllog.Options {
	if o.Location == nil {
		o.Location = loc
	}
	return o
}

type sqlRecorder struct {
	w    *sqllog.Writer
	name string
}

func (r *sqlRecorder) WriteQuery(ctx context.Context, q *pdh.Query) error {
	return r.w.WriteQuery(ctx, q)
}
func (r *sqlRecorder) Close() error { return r.w.Close() }
func (r *sqlRecorder) Name() string { return r.name }

// binRecorder writes the objects a query reads, sample by sample.
type binRecorder struct {
	w *binlog.Writer
}

func createBinary(name string, opts CreateOptions) (Recorder, error) {
	bo := opts.Binary
	bo.Compress = !opts.Uncompressed
	bo.Location, bo.Rule, bo.Titles, bo.Counters = opts.Location, opts.Rule, opts.Titles, opts.Counters
	_, err := os.Lstat(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	switch {
	case opts.Append && exists:
		bo.Mode = binlog.Append
	case opts.Append:
		bo.Mode = binlog.Linear
	case exists && !opts.Overwrite && bo.Mode != binlog.Append:
		return nil, fmt.Errorf("%s exists: use -y to overwrite it, or -a to append to it (%w)", name, fs.ErrExist)
	}
	w, err := binlog.Create(name, bo)
	if err != nil {
		return nil, err
	}
	return &binRecorder{w: w}, nil
}

func (r *binRecorder) WriteQuery(_ context.Context, q *pdh.Query) error {
	s, err := q.Sample()
	if err != nil {
		return err
	}
	if s == nil {
		return errors.New("binary log: the query has collected no sample")
	}
	return r.w.WriteSample(s)
}

func (r *binRecorder) Close() error { return r.w.Close() }
func (r *binRecorder) Name() string { return r.w.Path() }
