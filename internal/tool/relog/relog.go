// Package relog is `perfc relog` over a recorded pdh.Source (raw block
// files, BLG and text logs, several of them merged by pdh.Merge): it
// filters counters (-c/-cf), resamples (-t), cuts by time (-b/-e) and
// writes PDH text logs (CSV/TSV) the way PDH writes them, or summarises the
// input (-q). Values are what PDH writes into text logs: unscaled,
// uncapped (calc.Compute), %.17g, " " where there is none. -t recomputes
// counters of raw values over the kept samples and averages formatted
// values (text logs), saying so once through Options.Warn.
package relog

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/internal/termtext"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/wintz"
)

// Options configure Run and Summary.
type Options struct {
	// Counters are the paths to keep (wildcards allowed); nil keeps every
	// counter of every object in the input.
	Counters []string
	Format   pdhcsv.Format
	Begin    time.Time // zero: from the first sample
	End      time.Time // zero: to the last sample; inclusive
	Every    int       // -t: keep every Nth sample (0 or 1: all)
	Location *time.Location
	CRLF     bool
	// Console, when set, receives relog's console report as Windows'
	// relog prints it while it converts: the Input section, the progress
	// in percent (updated in place with carriage returns, at most once a
	// percent), and the Output section (Files and OutFile name them).
	Console io.Writer
	Files   []string
	OutFile string
	// InputKind names the input files' format in the console report, as
	// Windows' relog does ("Binary" for a BLG); empty means
	// "PERF_DATA_BLOCK".
	InputKind string
	// Kinds, when set, names each input file's format (parallel to
	// Files: "Binary", "CSV", ...); InputKind applies where it is empty.
	Kinds []string
	// Warn, when set, is told each distinct problem the input reports
	// (an object missing from a sample, inputs that overlap), once.
	Warn func(msg string)
	// Sink, when set, receives the selected samples instead of a text
	// log written to Run's io.Writer: a binary log or SQL, which store
	// the raw values of every sample (Format is then not used).
	Sink pdh.Recorder
	// Titles, when set, names the output's objects and counters (relog
	// -lang: titles.Over the log's names, a language's); the log's own
	// names are accepted in -c beside them. When nil the log's names are
	// written, and a -c path may also name objects and counters in
	// English (titles.English, Windows' indexes), so that a log written
	// on a German machine takes English paths.
	Titles *titles.DB
}

// Stats describe the samples a run read or wrote.
type Stats struct {
	Begin, End time.Time
	Samples    int
}

// add counts a sample taken at t.
func (s *Stats) add(t time.Time) {
	if s.Samples == 0 {
		s.Begin = t
	}
	s.End = t
	s.Samples++
}

// timeLayouts are the -b/-e forms relog accepts: M/d/yyyy H:mm:ss, with
// AM/PM (h:mm:ss[AM|PM]) or 24-hour, seconds optional.
var timeLayouts = []string{
	"1/2/2006 3:04:05PM", "1/2/2006 3:04:05 PM", "1/2/2006 3:04PM", "1/2/2006 3:04 PM",
	"1/2/2006 15:04:05", "1/2/2006 15:04", "1/2/2006",
}

// ParseTime reads a -b/-e time in loc.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, strings.ToUpper(s), loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want M/d/yyyy h:mm:ss[AM|PM] or M/d/yyyy H:mm:ss", s)
}

// column is one output column.
type column struct {
	name string // the concrete path with its machine
	next int32  // the next column whose name has the same fold hash, -1 for none
}

// Run writes the selected samples as a PDH text log to out and returns
// what it read and wrote. Columns are every concrete counter instance that
// any sample holds, in order of first appearance; base counters never are
// columns (pdh does not expose them as counters).
//
// A text log without a console report is converted in one pass over the
// input: rows are kept (in memory, in a temporary file past rowSpill) until
// the last sample has told every column, then written after the header,
// each padded with blank cells for the columns found after it; a console
// report's Input section, which comes first, is the recording's own
// account of its samples. With a Sink (BIN, SQL), a first pass learns the
// columns and the input's range.
func Run(ctx context.Context, src pdh.Source, opts Options, out io.Writer) (in, written Stats, err error) {
	src, opts, err = prepare(src, opts)
	if err != nil {
		return Stats{}, Stats{}, err
	}
	paths, err := counterPaths(src, opts)
	if err != nil {
		return Stats{}, Stats{}, err
	}
	if opts.Sink == nil {
		return runOnce(ctx, src, opts, paths, out)
	}
	p, err := scan(ctx, src, opts, paths)
	if err != nil {
		return Stats{}, Stats{}, err
	}
	if len(p.cols.cols) == 0 {
		return p.in, Stats{}, cmp.Or(p.stop, errors.New("no counter in the input matches"))
	}
	if err := src.Recorded().Seek(0); err != nil {
		return p.in, Stats{}, err
	}
	q, err := query(src, paths, opts.Titles, nil)
	if err != nil {
		return p.in, Stats{}, err
	}
	// A sink (a binary or SQL log) takes every sample's query; the text
	// formats went through runOnce above.
	wrote := false
	eol := "\n"
	if opts.CRLF {
		eol = "\r\n"
	}
	prog := newProgress(opts.Console, src.Recorded(), eol)
	if opts.Console != nil {
		var b strings.Builder
		b.WriteString(eol)
		writeStats(&b, "Input", labelFiles(opts.Files, opts), "", inputStats(src, p.in), opts.Location, eol)
		if _, err := io.WriteString(opts.Console, b.String()); err != nil {
			return p.in, written, err
		}
	}
	var tally problemTally
	var stop error // the sample the input could not give
	for read := 0; ; read++ {
		if err := q.Collect(ctx); err != nil {
			if ended(ctx, err, read, &stop) {
				break
			}
			return p.in, written, err
		}
		prog.update()
		tally.add(q.ProblemsShown())
		t := q.Time()
		if !opts.Begin.IsZero() && t.Before(opts.Begin) {
			continue // still primes rate counters, as relog's -b does
		}
		if !opts.End.IsZero() && t.After(opts.End) {
			break
		}
		if err := opts.Sink.WriteQuery(ctx, q); err != nil {
			return p.in, written, err
		}
		wrote = true
		written.add(t)
	}
	tally.report(opts.Warn)
	stop = cmp.Or(stop, p.stop) // past -e, only the first pass read it
	if !wrote {
		return p.in, written, cmp.Or(stop, errors.New("no sample in the time range"))
	}
	if err := report(opts, prog, written, stop, eol); err != nil {
		return p.in, written, err
	}
	return p.in, written, stop
}

// report writes the console report's end: the progress done and the
// Output section, then the success line unless the input stopped at a
// sample it could not give (stop).
func report(opts Options, prog *progress, written Stats, stop error, eol string) error {
	if opts.Console == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString(prog.done())
	writeStats(&b, "Output", nil, opts.OutFile, written, opts.Location, eol)
	if stop == nil {
		b.WriteString("The command completed successfully." + eol)
	}
	_, err := io.WriteString(opts.Console, b.String())
	return err
}

// ReadError is a sample the input could not give: a damaged or refused
// record of a binary log, a BLG record that does not decode, a text log's
// row that does not read. Relog ends the input there as at its end,
// writes every sample before it, and then returns a ReadError: what a
// damaged log still holds is converted, and the damage is told.
type ReadError struct {
	Read int   // samples read before it
	Err  error // the input's error, which names the file and where
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("the input's sample %d could not be read (the output holds the %d before it): %v", e.Read+1, e.Read, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ended reports whether err, from reading the next sample after read
// samples, ends the input: io.EOF, or a sample the input cannot give,
// which it keeps in *stop (the first one). The context's errors stop the
// run instead.
func ended(ctx context.Context, err error, read int, stop *error) bool {
	if errors.Is(err, io.EOF) {
		return true
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if *stop == nil {
		*stop = &ReadError{Read: read, Err: err}
	}
	return true
}

// rowMaker fills one sample's row of values.
type rowMaker struct {
	vals []pdhcsv.Value
	comp []pdh.Computed
}

// values returns the current sample's value for each column known (after
// adding the sample's new columns when add is set).
func (r *rowMaker) values(q *pdh.Query, cols *columns, add bool) []pdhcsv.Value {
	for ci, c := range q.Counters() {
		cols.place(q, ci, c, add) // every column first: vals is sized once
	}
	r.vals = slices.Grow(r.vals[:0], len(cols.cols))[:len(cols.cols)]
	clear(r.vals)
	for ci, c := range q.Counters() {
		at := cols.place(q, ci, c, add)
		if len(at) == 0 {
			continue
		}
		r.comp = c.AppendComputed(r.comp[:0])
		for j, v := range r.comp[:min(len(r.comp), len(at))] {
			if i := at[j]; i >= 0 && v.Status == calc.ValidData {
				r.vals[i] = pdhcsv.Value{Number: v.Value, OK: true}
			}
		}
	}
	return r.vals
}

// readOncer is a source that can be told it is read once, in order:
// perflog/blg's Log then keeps no decoded samples for a second pass (up
// to 64 MiB it would hold for nothing). The samples themselves are values
// either way.
type readOncer interface{ ReadOnce() }

// runOnce is Run in one pass (no sink). The input's problems are told
// after the rows, each with the number of samples it touched; none when
// the input fails. The console report's Input
// section, which comes first, is the recording's own account of its
// samples (Recorded's Len and Time: the times its samples have).
func runOnce(ctx context.Context, src pdh.Source, opts Options, paths []string, out io.Writer) (in, written Stats, err error) {
	if r, ok := src.(readOncer); ok {
		r.ReadOnce()
	}
	q, err := query(src, paths, opts.Titles, opts.Warn)
	if err != nil {
		return Stats{}, Stats{}, err
	}
	eol := "\n"
	if opts.CRLF {
		eol = "\r\n"
	}
	rec := src.Recorded()
	prog := newProgress(opts.Console, rec, eol)
	if opts.Console != nil {
		announced := recordedStats(rec)
		if announced.Samples == 0 {
			return Stats{}, Stats{}, errors.New("the input holds no sample")
		}
		var b strings.Builder
		b.WriteString(eol)
		writeStats(&b, "Input", labelFiles(opts.Files, opts), "", inputStats(src, announced), opts.Location, eol)
		if _, err := io.WriteString(opts.Console, b.String()); err != nil {
			return announced, written, err
		}
	}
	w := pdhcsv.NewWriter(out, pdhcsv.WriterOptions{Format: opts.Format, Location: opts.Location, CRLF: opts.CRLF})
	cols := newColumns()
	rows := newRowStore()
	defer rows.close()
	var r rowMaker
	var zone pdhcsv.Zone
	var tally problemTally
	past := false // a sample after End was read: no more rows nor warnings
	var row []byte
	var stop error // the sample the input could not give
	for {
		if err := q.Collect(ctx); err != nil {
			if ended(ctx, err, in.Samples, &stop) {
				break
			}
			return Stats{}, Stats{}, err
		}
		prog.update()
		t := q.Time()
		in.add(t)
		if past {
			cols.learn(q)
			continue
		}
		tally.add(q.ProblemsShown())
		if !opts.Begin.IsZero() && t.Before(opts.Begin) {
			cols.learn(q)
			continue // still primes rate counters, as relog's -b does
		}
		if !opts.End.IsZero() && t.After(opts.End) {
			past = true
			cols.learn(q)
			continue
		}
		vals := r.values(q, cols, true)
		if written.Samples == 0 {
			zone = wintz.At(t.In(opts.Location))
		}
		row = w.AppendRow(row[:0], t, vals)
		if err := rows.add(row, len(vals)); err != nil {
			return Stats{}, Stats{}, err
		}
		written.add(t)
	}
	if in.Samples == 0 {
		return Stats{}, Stats{}, cmp.Or(stop, errors.New("the input holds no sample"))
	}
	if len(cols.cols) == 0 {
		return in, Stats{}, cmp.Or(stop, errors.New("no counter in the input matches"))
	}
	if written.Samples > 0 {
		if err := w.WriteHeader(zone, cols.names()); err != nil {
			return in, Stats{}, err
		}
	}
	n := 0
	err = rows.each(func(row []byte, cells int) error {
		n++
		return w.WritePadded(row, cells)
	})
	if err != nil {
		return in, written, err
	}
	tally.report(opts.Warn)
	if written.Samples == 0 {
		return in, written, cmp.Or(stop, errors.New("no sample in the time range"))
	}
	if err := report(opts, prog, written, stop, eol); err != nil {
		return in, written, err
	}
	return in, written, stop
}

// recordedStats is a recording's range and count as it tells them
// without reading its samples.
// inputStats is what the console report's Input section says of src:
// read, what was read of it, except under -t, where the Input section
// speaks of the whole input (every sample, as Windows' relog reports it)
// and the Output section of the samples kept.
func inputStats(src pdh.Source, read Stats) Stats {
	if e, ok := src.(*everyNth); ok {
		return recordedStats(e.rec)
	}
	return read
}

func recordedStats(rec pdh.Recorded) Stats {
	n := rec.Len()
	if n == 0 {
		return Stats{}
	}
	return Stats{Begin: rec.Time(0), End: rec.Time(n - 1), Samples: n}
}

// problemTally counts the samples each problem touched, so that relog
// says once, after the rows, how many it touched ("\\s14185201 did not
// answer in 4 of 275 samples") instead of naming it at its first sample
// only.
type problemTally struct {
	counts  map[string]int
	order   []string
	samples int
}

// add counts one sample's problems (each distinct message once).
func (t *problemTally) add(problems []pdh.Problem) {
	t.samples++
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	var seen map[string]bool
	for _, p := range problems {
		if p.Partial && strings.HasSuffix(p.Reason, pdhcsv.NoValue) {
			continue // blank cells of a text log: values it does not hold, reported as blanks
		}
		msg := problemText(p)
		if seen[msg] {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[msg] = true
		if _, ok := t.counts[msg]; !ok {
			t.order = append(t.order, msg)
		}
		t.counts[msg]++
	}
}

// report tells warn each problem with the samples it touched.
func (t *problemTally) report(warn func(string)) {
	if warn == nil {
		return
	}
	for _, msg := range t.order {
		warn(fmt.Sprintf("%s in %d of %d samples", msg, t.counts[msg], t.samples))
	}
}

// problemText says a sample's problem as the person reading the log sees
// it: a machine that did not answer (PDH_CSTATUS_NO_MACHINE, a BLG's
// remote counter) by its name, anything else as the source says it.
func problemText(p pdh.Problem) string {
	if strings.Contains(p.Reason, "PDH_CSTATUS_NO_MACHINE") {
		m := p.Machine
		if m == "" {
			m, _, _ = strings.Cut(p.Reason, ": ")
		}
		if m != "" {
			if !strings.HasPrefix(m, `\\`) {
				m = `\\` + m
			}
			return m + " did not answer"
		}
	}
	return p.String()
}

// progress prints relog's percentage while it writes: "\r12.00%" each
// time another whole percent of the input's samples is done, on one line
// that a terminal shows updated in place, and "100.00%" at the end. A
// console that is no terminal (a file, a pipe) gets the end alone: the
// updates would be one line of every percentage, with no line ends.
type progress struct {
	w    io.Writer
	rec  pdh.Recorded
	eol  string
	live bool // w is a terminal
	last int  // whole percent last printed
}

func newProgress(w io.Writer, rec pdh.Recorded, eol string) *progress {
	return &progress{w: w, rec: rec, eol: eol, live: termtext.IsTerminal(w), last: -1}
}

func (p *progress) update() {
	if p.w == nil || !p.live || p.rec.Len() == 0 {
		return
	}
	pct := 100 * p.rec.Pos() / p.rec.Len()
	if pct > p.last && pct < 100 {
		p.last = pct
		fmt.Fprintf(p.w, "\r%d.00%%", pct)
	}
}

// done is the last progress line and the empty line after it.
func (p *progress) done() string {
	if p.last >= 0 {
		return "\r100.00%" + p.eol + p.eol
	}
	return "100.00%" + p.eol + p.eol
}

// prepare checks that src is a recording (relog may read it twice: once
// to learn the columns, once to write), applies -t and rewinds.
func prepare(src pdh.Source, opts Options) (pdh.Source, Options, error) {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	rec := src.Recorded()
	if rec == nil {
		return nil, opts, errors.New("relog reads recorded samples (logs, captured blocks), not a live source")
	}
	if opts.Every > 1 {
		src = &everyNth{src: src, rec: rec, n: opts.Every, warn: opts.Warn}
	}
	return src, opts, src.Recorded().Seek(0)
}

// counterPaths are the counters of opts, or every object of the input
// when opts names none; the source is rewound.
func counterPaths(src pdh.Source, opts Options) ([]string, error) {
	if len(opts.Counters) > 0 {
		return opts.Counters, nil
	}
	paths, err := allCounters(src)
	if err != nil {
		return nil, err
	}
	return paths, src.Recorded().Seek(0)
}

// query opens a query with the counter paths (counterPaths).
//
// A path that matches nothing in any sample is told to warn (when the
// others match: when none does, the error lists them all), so that a -c
// list never loses a path silently: a name the log does not have, in its
// language or in English.
func query(src pdh.Source, paths []string, names *titles.DB, warn func(string)) (*pdh.Query, error) {
	q := pdh.OpenQuery(src)
	if names != nil {
		q.SetTitles(names, src.Titles())
	} else {
		q.SetTitles(nil, titles.English())
	}
	q.SetHistory(2) // relog asks for no statistics: no ring of past values to keep
	var bad []string
	// A path whose machine, object, counter or instance is missing from
	// the first sample may name one of a later sample (inputs merged,
	// machines that answer later): it is checked against each sample in
	// turn until it is found.
	later := map[string]error{}
	var order []string
	for _, p := range paths {
		if _, err := q.AddCounter(p); err != nil {
			if notYet(err) {
				if _, dup := later[p]; !dup {
					order = append(order, p)
				}
				later[p] = err
				continue
			}
			bad = append(bad, fmt.Sprintf("%s: %v", p, err))
		}
	}
	if len(order) > 0 {
		rec := src.Recorded()
		// Only a sample that brings something the samples before it did
		// not have (a computer, an object, a counter, an instance) can
		// satisfy a path they did not: the others are passed over
		// without trying every path against them, so that a long list of
		// absent paths costs a look at each sample, not paths x samples.
		var seen contents
		if err := seen.add(src, 0); err != nil {
			return nil, err
		}
		for i := 1; i < rec.Len() && len(later) > 0; i++ {
			if err := seen.add(src, i); err != nil {
				return nil, err
			}
			if !seen.fresh {
				continue
			}
			if err := rec.Seek(i); err != nil {
				return nil, err
			}
			for _, p := range order {
				if _, ok := later[p]; !ok {
					continue
				}
				if _, err := q.AddCounter(p); err == nil {
					delete(later, p)
				}
			}
		}
		if err := rec.Seek(0); err != nil {
			return nil, err
		}
		for _, p := range order {
			if err, ok := later[p]; ok {
				bad = append(bad, fmt.Sprintf("%s: %v", p, err))
			}
		}
	}
	if len(q.Counters()) == 0 {
		return nil, fmt.Errorf("no valid counter:\n%s", strings.Join(bad, "\n"))
	}
	if warn != nil {
		for _, b := range bad {
			warn("left out: " + b)
		}
	}
	return q, nil
}

// contents is what the samples of a recorded source read so far hold:
// a hash of each computer, object, counter and instance.
type contents struct {
	keys  map[uint64]struct{}
	seed  maphash.Seed
	fresh bool // the last sample added held one the ones before did not
}

// add reads sample i of src and notes what it holds.
func (c *contents) add(src pdh.Source, i int) error {
	if c.keys == nil {
		c.keys, c.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	if err := src.Recorded().Seek(i); err != nil {
		return err
	}
	smp, err := src.Sample(context.Background(), nil)
	if err != nil {
		return err
	}
	c.fresh = false
	note := func(h *maphash.Hash) {
		k := h.Sum64()
		if _, ok := c.keys[k]; !ok {
			c.keys[k] = struct{}{}
			c.fresh = true
		}
	}
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, b := range smp.Blocks {
		machine := b.SystemNameBytes()
		for objs := b.Objects(); objs.Next(); {
			o := objs.Object()
			h.Reset()
			h.Write(machine)
			put32(&h, o.NameIndex())
			for k := range o.NumCounters() {
				put32(&h, o.Counter(k).NameIndex)
			}
			note(&h)
			for is := o.Instances(); is.Next(); {
				h.Reset()
				h.Write(machine)
				put32(&h, o.NameIndex())
				in := is.Instance()
				put32(&h, in.ParentObjectTitleIndex())
				put32(&h, in.ParentObjectInstance())
				h.Write(in.NameBytes())
				note(&h)
			}
		}
	}
	return nil
}

func put32(h *maphash.Hash, v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	h.Write(b[:])
}

// notYet reports an error for a path that a later sample may satisfy.
func notYet(err error) bool {
	var pe *pdh.PathError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Status {
	case calc.NoMachine, calc.NoObject, calc.NoCounter, calc.NoInstance:
		return true
	}
	return false
}

// allCounters returns `\\machine\Object(*)\*` (or `\\machine\Object\*`
// for single-instance objects) for every object of every machine in the
// input, in order of first appearance; the recording's own counter list
// when it has one.
func allCounters(src pdh.Source) ([]string, error) {
	if list := src.Recorded().Counters(); len(list) > 0 {
		return list, nil
	}
	ctx := context.Background()
	db := src.Titles()
	type key struct {
		machine string
		index   uint32
	}
	seen := map[key]bool{}
	var paths []string
	var stop error
	for read := 0; ; read++ {
		smp, err := src.Sample(ctx, nil)
		if err != nil {
			if !ended(ctx, err, read, &stop) {
				return nil, err
			}
			if len(paths) == 0 && stop != nil {
				return nil, stop
			}
			// The samples before one the input cannot give name the
			// counters; the pass that writes them meets it again and
			// tells it.
			return paths, nil
		}
		for _, blk := range smp.Blocks {
			machine := blk.Header().SystemName
			for it := blk.Objects(); it.Next(); {
				o := it.Object()
				k := key{strings.ToLower(machine), o.NameIndex()}
				if seen[k] {
					continue
				}
				seen[k] = true
				name := db.Name(o.NameIndex())
				if name == "" {
					name = fmt.Sprint(o.NameIndex()) // pdh accepts title indexes for names
				}
				p := counterpath.Path{Machine: machine, Object: name, Counter: "*"}
				if o.NumInstances() != perfdata.NoInstances {
					p.Instance = "*"
				}
				paths = append(paths, p.String())
			}
		}
	}
}

// plan is what the first pass learns.
type plan struct {
	cols *columns
	in   Stats // every sample read
	stop error // the sample the input could not give (ReadError), nil at its end
}

// scan is the first pass: it learns the columns and the input's range.
func scan(ctx context.Context, src pdh.Source, opts Options, paths []string) (*plan, error) {
	q, err := query(src, paths, opts.Titles, opts.Warn)
	if err != nil {
		return nil, err
	}
	q.SetNamesOnly(true) // the columns and times; the values are the next pass's
	p := &plan{cols: newColumns()}
	for {
		if err := q.Collect(ctx); err != nil {
			if ended(ctx, err, p.in.Samples, &p.stop) {
				break
			}
			return nil, err
		}
		p.in.add(q.Time())
		p.cols.learn(q)
	}
	if p.in.Samples == 0 {
		return nil, cmp.Or(p.stop, errors.New("the input holds no sample"))
	}
	return p, nil
}

// columns are the output's columns and where each counter's items go.
// Items are placed again only when a counter's Layout changes, and then
// an instance's items mostly by comparing its names with the instance at
// the same place in the previous layout (shifted by the instances that
// came or went): pdh gives the same strings sample after sample, which
// compare at once. An item that is not there is looked up by its names,
// and only an item never seen before has its path written out: converting
// a log touches every value of every sample, and the text of a path costs
// more than the value.
type columns struct {
	cols   []column
	byFold map[uint64]int32 // titles.FoldHash of the path with its machine → its first column
	items  map[itemID]int   // items looked up (not new) → column
	per    []counterPlaces  // by counter position in the query
	last   []colPlace       // by column: where a row's first item last went to it
}

// itemID is an item of a counter of the query, by its names.
type itemID struct {
	counter int
	path    counterpath.Path // with the machine
}

// counterPlaces are the columns of a counter's items in one Layout.
type counterPlaces struct {
	layout  uint64
	machine string
	at      []int32            // by item
	rows    []counterpath.Path // by row of items (pdh.Counter.AppendItemRows)
	ctrs    []string           // the counter of each item of a row
	// the slices of the layout before, reused for the next one
	spareAt   []int32
	spareRows []counterpath.Path
}

// maxFoldHint bounds the room columns makes for its hash of names
// before it has seen them.
const maxFoldHint = 1 << 16

// colPlace is the counter, layout and row a column was last placed from.
type colPlace struct {
	counter int
	layout  uint64
	row     int
}

func newColumns() *columns {
	return &columns{byFold: map[uint64]int32{}, items: map[itemID]int{}}
}

// names are the columns' header cells.
func (cs *columns) names() []string {
	out := make([]string, len(cs.cols))
	for i, c := range cs.cols {
		out[i] = c.name
	}
	return out
}

// learn adds the columns of the current sample's items.
func (cs *columns) learn(q *pdh.Query) {
	for ci, c := range q.Counters() {
		cs.place(q, ci, c, true)
	}
}

// place returns the column of each item of counter c (position ci of q)
// in the current sample, -1 for an item without one; add gives new
// items a column.
func (cs *columns) place(q *pdh.Query, ci int, c *pdh.Counter, add bool) []int32 {
	for len(cs.per) <= ci {
		cs.per = append(cs.per, counterPlaces{})
	}
	cp := &cs.per[ci]
	m := q.Machine()
	l := c.Layout()
	if l != 0 && l == cp.layout && m == cp.machine {
		return cp.at
	}
	rows, ctrs := c.AppendItemRows(cp.spareRows[:0])
	k := len(ctrs)
	prevAt, prevRows, prevLayout := cp.at, cp.rows, cp.layout
	if m != cp.machine || !slices.Equal(ctrs, cp.ctrs) {
		prevLayout = 0 // nothing to compare with
	}
	if len(cs.byFold) == 0 {
		// Room for as many columns as every counter had this one's
		// items (a guess, 64 to maxFoldHint): not grown as the first
		// sample's columns come, nor 40 KiB for a few.
		cs.byFold = make(map[uint64]int32, min(max(len(rows)*k*len(q.Counters()), 64), maxFoldHint))
	}
	at := slices.Grow(cp.spareAt[:0], len(rows)*k)[:len(rows)*k]
	delta := 0 // row in the previous layout minus row in this one
	for r := range rows {
		row := at[r*k : r*k+k]
		if g := r + delta; prevLayout != 0 && g >= 0 && g < len(prevRows) && prevRows[g] == rows[r] {
			copy(row, prevAt[g*k:g*k+k])
			continue
		}
		pre := rowPrefix{path: rows[r]}
		if pre.path.Machine == "" {
			pre.path.Machine = m
		}
		for j := range row {
			row[j] = int32(cs.column(ci, &pre, ctrs[j], add))
		}
		if k > 0 && row[0] >= 0 && prevLayout != 0 {
			if p := cs.last[row[0]]; p.counter == ci && p.layout == prevLayout {
				delta = p.row - r // the rows after it likely follow it
			}
		}
	}
	for r := range rows {
		if k > 0 && at[r*k] >= 0 {
			cs.last[at[r*k]] = colPlace{ci, l, r}
		}
	}
	cp.layout, cp.machine, cp.at, cp.rows, cp.ctrs = l, m, at, rows, ctrs
	cp.spareAt, cp.spareRows = prevAt, prevRows
	return at
}

// rowPrefix is a row's path without its counter, and the text of it
// (what every column of the row starts with) once a column needs it.
type rowPrefix struct {
	path counterpath.Path // with the machine
	text string
	hash uint64 // titles.FoldHash(text)
	made bool
}

// column finds (or adds) the column of counter ci's item of the row's
// path and counter ctr.
func (cs *columns) column(ci int, pre *rowPrefix, ctr string, add bool) int {
	p := pre.path
	p.Counter = ctr
	id := itemID{ci, p}
	if len(cs.items) > 0 {
		if i, ok := cs.items[id]; ok {
			return i
		}
	}
	if !pre.made {
		// A path's text is its text without the counter, then the
		// counter as it is (counterpath.Path.String).
		pre.text, pre.made = pre.path.String(), true
		pre.hash = titles.FoldHash(pre.text)
	}
	name := pre.text + ctr
	h := titles.FoldHashAdd(pre.hash, ctr)
	first, ok := cs.byFold[h]
	if ok {
		for i := first; i >= 0; i = cs.cols[i].next {
			if strings.EqualFold(cs.cols[i].name, name) {
				cs.items[id] = int(i) // an item seen before: found by its names next time
				return int(i)
			}
		}
	}
	if !add {
		return -1
	}
	i := len(cs.cols)
	next := int32(-1)
	if ok {
		next = first
	}
	cs.byFold[h] = int32(i)
	cs.cols = append(cs.cols, column{name: name, next: next})
	cs.last = append(cs.last, colPlace{counter: -1})
	return i
}

// Summary writes what relog -q prints: the input files, the time range and
// sample count, and the counters (concrete paths) the input holds. With
// list non-nil the counter paths go there instead (relog -q -o FILE).
func Summary(ctx context.Context, src pdh.Source, files []string, opts Options, w, list io.Writer) (err error) {
	src, opts, err = prepare(src, opts)
	if err != nil {
		return err
	}
	paths, err := counterPaths(src, opts)
	if err != nil {
		return err
	}
	p, err := scan(ctx, src, opts, paths)
	if err != nil {
		return err
	}
	eol := "\n"
	if opts.CRLF {
		eol = "\r\n"
	}
	var b strings.Builder
	b.WriteString(eol)
	writeStats(&b, "Input", labelFiles(files, opts), "", p.in, opts.Location, eol)
	names := p.cols.names()
	var lb strings.Builder
	for _, n := range names {
		lb.WriteString(n + eol)
	}
	if list != nil {
		if _, err := io.WriteString(list, lb.String()); err != nil {
			return err
		}
	} else {
		b.WriteString(lb.String())
		b.WriteString(eol)
	}
	if p.stop != nil {
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		return p.stop
	}
	b.WriteString("The command completed successfully." + eol)
	_, err = io.WriteString(w, b.String())
	return err
}

// SummaryTime is the layout of times in relog's summaries.
const SummaryTime = "1/2/2006 15:04:05"

// labelFiles writes each input file as relog lists it: "name (Kind)".
func labelFiles(files []string, opts Options) []string {
	out := make([]string, len(files))
	for i, f := range files {
		kind := opts.InputKind
		if i < len(opts.Kinds) && opts.Kinds[i] != "" {
			kind = opts.Kinds[i]
		}
		if kind == "" {
			kind = "PERF_DATA_BLOCK"
		}
		out[i] = f + " (" + kind + ")"
	}
	return out
}

func writeStats(b *strings.Builder, title string, files []string, file string, s Stats, loc *time.Location, eol string) {
	b.WriteString(title + eol + "----------------" + eol)
	if len(files) > 0 {
		b.WriteString("File(s):" + eol)
		for _, f := range files {
			b.WriteString("     " + f + eol)
		}
		b.WriteString(eol)
	}
	if file != "" {
		b.WriteString("File:     " + file + eol + eol)
	}
	if s.Samples > 0 {
		b.WriteString("Begin:    " + s.Begin.In(loc).Format(SummaryTime) + eol)
		b.WriteString("End:      " + s.End.In(loc).Format(SummaryTime) + eol)
	}
	fmt.Fprintf(b, "Samples:  %d%s%s", s.Samples, eol, eol)
}
