// Package typeperf is `perfc typeperf`: it prints counter values at an
// interval in typeperf's layouts (PDH-CSV 4.0 on the console, PDH text logs
// with -o) and lists the counters a source has (-q, -qx). It takes options
// and a pdh.Source and writes to io.Writers; the clock is the source's
// (each row's time is its sample's header time), so golden tests over block
// files are exact.
package typeperf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/wintz"
)

// Options configure a Run.
type Options struct {
	Counters []string      // counter paths, wildcards allowed
	Interval time.Duration // between samples; 0 means 1 s (typeperf's default)
	Samples  int           // rows to write; 0 means until ctx is done
	Format   pdhcsv.Format
	// Log selects the PDH text-log layout (typeperf -o): zone in the header,
	// %.17g values. Otherwise the console layout is written.
	Log bool
	// Form, when not FormPDH, writes the rows as an aligned table or as
	// JSON lines instead of PDH-CSV (Format and Log are then not used),
	// without typeperf's closing lines.
	Form Form
	// Machine is the computer name put in column names of paths that name
	// none; empty means the sample header's system name in upper case
	// (typeperf prints the local name that way).
	Machine  string
	Location *time.Location // zone of the timestamps; nil is time.Local
	CRLF     bool           // Windows line ends
	// Warn, when set, is told what the source could not deliver in each
	// sample (an object dropped because its provider failed, values that
	// could not be read), with a cause that stays the same while the
	// problem does, so that a caller can report each cause once.
	Warn func(cause, msg string)
	// Sink, when set, records every sample (the first one included)
	// instead of rows written to out: a binary log or an SQL log set
	// (typeperf -f BIN|SQL). Wildcards then stay wildcards: instances
	// that appear later are recorded too.
	Sink pdh.Recorder
	// Titles, when set, names objects and counters in a language
	// (titles.Over the source's English names) and resolves the paths in
	// it; AltTitles (the English names) are accepted beside them
	// (pdh.Query.SetTitles).
	Titles, AltTitles *titles.DB
}

// Messages typeperf prints on the console when it stops.
const (
	MsgExiting   = "Exiting, please wait..."
	MsgCompleted = "The command completed successfully."
)

// ErrNoValidCounters is returned when no path given matched anything.
var ErrNoValidCounters = errors.New("no valid counters")

// ErrNothingCollected is returned when every row written was blank: no
// counter had a value in any sample (the only remote computer never
// answered).
var ErrNothingCollected = errors.New("nothing was collected")

// Interrupted ends a run stopped (CTRL+C) before its first sample as
// typeperf does: the closing lines on the console ("Exiting, please
// wait..." and "The command completed successfully."), none for a table
// or JSON form; the run is no failure.
func Interrupted(console io.Writer, opts Options) error {
	if opts.Form != FormPDH {
		return nil
	}
	eol := "\n"
	if opts.CRLF {
		eol = "\r\n"
	}
	_, err := io.WriteString(console, MsgExiting+eol+MsgCompleted+eol)
	return err
}

// Run collects from src and writes rows to out until opts.Samples rows are
// written, the source ends, or ctx is done; the last two end cleanly. On
// the console, like typeperf, it collects once before the first row and
// waits one interval, so that rate counters have a value in every row it
// prints; a log (opts.Log) records that first sample as its first row,
// with " " for the counters that need two samples, as PDH writes every
// log. It expands
// wildcards once, at that first collection, into fixed columns. Paths that
// match nothing are reported on errw, and the run goes on with the rest.
// Console messages (the closing lines) go to console; in console layout
// console is usually out itself.
func Run(ctx context.Context, src pdh.Source, opts Options, out, console, errw io.Writer) error {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	q := pdh.OpenQuery(src)
	q.SetTitles(opts.Titles, opts.AltTitles)
	added := 0
	// One sample for every path's object, which is also the priming
	// sample below.
	_, errs := q.AddCounters(ctx, opts.Counters)
	if ctx.Err() != nil {
		// Ctrl+C while the paths were checked (a remote computer that
		// is slow to answer): end cleanly, as before the first sample.
		return Interrupted(console, opts)
	}
	for i, err := range errs {
		if err != nil {
			// pdh's message names the path, what did not match and what
			// exists instead.
			msg := strings.TrimPrefix(err.Error(), "pdh: ")
			fmt.Fprintf(errw, "Error: %s%s\n", strings.TrimPrefix(msg, "counterpath: "), lostBackslash(opts.Counters[i]))
			continue
		}
		added++
	}
	if added == 0 {
		return ErrNoValidCounters
	}
	// Priming sample: it gives rate counters their first raw value and
	// fixes the columns.
	eol := "\n"
	if opts.CRLF {
		eol = "\r\n"
	}
	collect := func() error {
		if err := q.Collect(ctx); err != nil {
			return err
		}
		ReportProblems(q.ProblemsShown(), opts.Warn)
		return nil
	}
	if err := collect(); err != nil {
		switch {
		case ctx.Err() != nil: // Ctrl+C before the first sample: end cleanly
			return Interrupted(console, opts)
		case errors.Is(err, io.EOF):
			return errors.New("the source holds no sample")
		}
		return err
	}
	reportEmpty(q, errw)
	if opts.Sink != nil {
		return record(ctx, q, opts, collect, console, eol)
	}
	machine := opts.Machine
	if machine == "" {
		machine = strings.ToUpper(q.Machine())
	}
	cols := pdhcsv.QueryColumns(q, machine)
	if cols.Len() == 0 {
		return ErrNoValidCounters
	}
	var w rowWriter
	if opts.Form != FormPDH {
		opts.Log = false // the forms print from the second sample, as the console does
		if opts.Form == FormTable {
			if _, err := io.WriteString(out, formBanner(machine, q.Time().In(opts.Location))); err != nil {
				return err
			}
		}
		w = newFormWriter(opts.Form, out, opts.Location)
	} else {
		style := pdhcsv.StyleConsole
		if opts.Log {
			style = pdhcsv.StyleLog
		}
		pw := pdhcsv.NewWriter(out, pdhcsv.WriterOptions{Format: opts.Format, Style: style, Location: opts.Location, CRLF: opts.CRLF})
		if !opts.Log {
			// typeperf starts its console output with an empty line.
			if _, err := io.WriteString(out, eol); err != nil {
				return err
			}
		}
		w = pdhRows{pw, wintz.At(q.Time().In(opts.Location))}
	}
	if err := w.WriteHeader(cols.Names()); err != nil {
		return err
	}
	vals := make([]pdhcsv.Value, cols.Len())
	// judged counts the rows in which every counter could have a value
	// (not a log's first, where two-sample counters have none yet), valued
	// whether one of them had one.
	judged, valued := 0, false
	first := 0
	if opts.Log {
		// A PDH-written log (typeperf -o, relog, perfmon, Export-Counter)
		// records its first sample as it is: two-sample counters (rates,
		// timers, averages) have no value yet and are written " ", while
		// instantaneous ones have theirs. Windows' own files show it
		// (logs/powershell/CounterSamples.csv in ../shared/conformance: the
		// first row holds " " for all 8 rate counters and values for the 2
		// instantaneous ones). The console instead primes one sample and
		// prints from the second, so every printed row has values
		// (logs/txwinrm/typeperf-console-sc1.txt).
		cols.Fill(vals)
		if err := w.WriteRow(q.Time(), vals); err != nil {
			return err
		}
		first = 1
	}
	runErr := sampleEvery(ctx, opts, first, collect, func() error {
		cols.Fill(vals)
		if err := w.WriteRow(q.Time(), vals); err != nil {
			return err
		}
		judged++
		valued = valued || slices.ContainsFunc(vals, func(v pdhcsv.Value) bool { return v.OK })
		return nil
	})
	if runErr == nil && judged > 0 && !valued {
		// A remote computer that never answered, an object that never
		// had the instances asked for: say so, and fail, rather than
		// "completed successfully" over rows of blanks.
		runErr = fmt.Errorf("%w: no counter had a value in any of the %d samples (the warnings above say why)", ErrNothingCollected, judged)
	}
	if runErr != nil || opts.Form != FormPDH {
		return runErr
	}
	_, err := io.WriteString(console, MsgExiting+eol+MsgCompleted+eol)
	return err
}

// pdhRows is the PDH-CSV/TSV writer as a rowWriter: its header carries
// the zone of the first sample.
type pdhRows struct {
	w    *pdhcsv.Writer
	zone wintz.Zone
}

func (p pdhRows) WriteHeader(names []string) error { return p.w.WriteHeader(p.zone, names) }

func (p pdhRows) WriteRow(t time.Time, v []pdhcsv.Value) error { return p.w.WriteRow(t, v) }

// lostBackslash is a hint for a path that failed and reads as a path of
// another computer once a backslash is put back in front: in double
// quotes, a shell turns "\\db7\Memory\..." into \db7\Memory\... .
func lostBackslash(path string) string {
	if !strings.HasPrefix(path, `\`) || strings.HasPrefix(path, `\\`) {
		return ""
	}
	p, err := counterpath.Parse(`\` + path)
	if err != nil || p.Machine == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s, of the computer %s? In double quotes a shell turns \\\\ into \\: quote paths with single quotes)", p, p.Machine)
}

// reportEmpty says once, after the first collection, which paths match
// nothing (a wildcard over an object without instances: \Paging
// File(*)\% Usage on a host without swap) and why: they get no column.
func reportEmpty(q *pdh.Query, errw io.Writer) {
	var items []pdh.Item
	for _, c := range q.Counters() {
		items = c.AppendItems(items[:0])
		if len(items) > 0 {
			continue
		}
		p := c.Path()
		where := "on this computer"
		if p.Machine != "" {
			where = "on " + p.Machine
		}
		fmt.Fprintf(errw, "Warning: %s matches nothing: the object %s has no instances %s now, so the path has no column.\n", p, p.Object, where)
	}
}

// record is Run into a Recorder: every sample, from the first, until
// opts.Samples are recorded, the source ends or ctx is done.
func record(ctx context.Context, q *pdh.Query, opts Options, collect func() error, console io.Writer, eol string) error {
	if err := opts.Sink.WriteQuery(ctx, q); err != nil {
		return err
	}
	if err := sampleEvery(ctx, opts, 1, collect, func() error { return opts.Sink.WriteQuery(ctx, q) }); err != nil {
		return err
	}
	_, err := io.WriteString(console, MsgExiting+eol+MsgCompleted+eol)
	return err
}

// sampleEvery collects a sample every opts.Interval and hands it to each,
// counting from sample number first, until opts.Samples are taken (no
// limit when it is 0), the source ends or ctx is done. It returns the
// error of each, or of collect unless that is the source's end or comes
// after ctx is done.
func sampleEvery(ctx context.Context, opts Options, first int, collect, each func() error) error {
	timer := time.NewTimer(opts.Interval)
	defer timer.Stop()
	for n := first; opts.Samples <= 0 || n < opts.Samples; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		timer.Reset(opts.Interval)
		if err := collect(); err != nil {
			if !errors.Is(err, io.EOF) && ctx.Err() == nil {
				return err
			}
			return nil
		}
		if err := each(); err != nil {
			return err
		}
	}
	return nil
}

// ReportProblems tells warn each problem of a sample. The cause is the
// object and the reason with its numbers left out, so "IO counters of 70
// processes" and, a sample later, "of 71 processes" are one cause.
func ReportProblems(problems []pdh.Problem, warn func(cause, msg string)) {
	if warn == nil {
		return
	}
	for _, p := range problems {
		cause := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, p.String())
		warn("sample:"+cause, p.String())
	}
}
