package relog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/titles"
)

// onlyBlocks hides a source's SampleRows: relog then computes every
// sample with pdh from the blocks, the reference for the steady path.
type onlyBlocks struct{ pdh.Source }

// countRows is a rowSource that counts the samples read without blocks.
type countRows struct {
	pdh.Source
	rs   rowSource
	rows int
}

func (c *countRows) NewRows() *rawlog.Rows { return c.rs.NewRows() }
func (c *countRows) SampleRows(ctx context.Context, r *rawlog.Rows) (time.Time, bool, error) {
	t, listed, err := c.rs.SampleRows(ctx, r)
	if err == nil {
		c.rows++
	}
	return t, listed, err
}

// relogged is everything a run gives: the text, the statistics, the
// warnings, the error.
func relogged(src pdh.Source, opts Options) string {
	var out bytes.Buffer
	var warns []string
	opts.Warn = func(m string) { warns = append(warns, m) }
	opts.Format, opts.Location = pdhcsv.CSV, time.UTC
	in, written, err := Run(context.Background(), src, opts, &out)
	return fmt.Sprintf("in %+v\nwritten %+v\nerr %v\nwarnings %q\n%s", in, written, err, warns, out.String())
}

// TestSteadyRealLogs: the Windows logs of listed counters relogged with
// the steady path give what pdh gives from the rebuilt blocks, for
// every option that changes which samples are read and written, and the
// steady path does compute most of their samples.
func TestSteadyRealLogs(t *testing.T) {
	for _, tc := range []struct {
		file    string
		opts    Options
		minRows int // samples read without blocks, at least
	}{
		{"CounterSamples.blg", Options{}, 15},
		{"CounterSamples.blg", Options{Begin: time.Date(2016, 11, 26, 21, 47, 0, 0, time.UTC), End: time.Date(2016, 11, 26, 21, 47, 30, 0, time.UTC)}, 15},
		{"CounterSamples.blg", Options{Counters: []string{`\\charlieparker\network interface(*)\bytes total/sec`, `\\charlieparker\memory\cache faults/sec`}}, 15},
		// Its failed values are whole machines that did not answer:
		// every sample but the first is read without blocks.
		{"BadCounterSamples.blg", Options{}, 274},
		{"BadCounterSamples.blg", Options{End: time.Date(2007, 7, 3, 12, 0, 0, 0, time.UTC)}, 274},
		{"BadCounterSamples.blg", Options{Counters: []string{`\\s14185201\Processor(_Total)\% Processor Time`}}, 274},
		{"BadCounterSamples.blg", Options{Begin: time.Date(2007, 7, 3, 4, 0, 0, 0, time.UTC), End: time.Date(2007, 7, 4, 9, 0, 0, 0, time.UTC)}, 274},
	} {
		t.Run(fmt.Sprintf("%s %v %v %d", tc.file, tc.opts.Begin.IsZero(), tc.opts.End.IsZero(), len(tc.opts.Counters)), func(t *testing.T) {
			open := func() *blg.Log {
				l, err := blg.Open("../../../perflog/blg/testdata/" + tc.file)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				return l
			}
			want := relogged(onlyBlocks{open()}, tc.opts)
			l := open()
			c := &countRows{Source: l, rs: l}
			got := relogged(c, tc.opts)
			if got != want {
				t.Errorf("steady path:\n%s\npdh over the blocks:\n%s", got, want)
			}
			if c.rows < tc.minRows {
				t.Errorf("%d samples read without blocks, want at least %d", c.rows, tc.minRows)
			}
		})
	}
}

// TestSteadyGenerated: logs of listed counters made up at random (many
// counter types and time bases, instances that come and go, duplicate
// and child instances, failed values, process IDs) relogged with the
// steady path give what pdh gives from the rebuilt blocks. Machines and
// objects that do not answer for a few samples (every value failed) are
// computed on the steady path too, and the samples after, when pdh takes
// over, pair as pdh pairs them.
func TestSteadyGenerated(t *testing.T) {
	steadyRows, unanswered := 0, 0
	for seed := range uint64(300) {
		l := makeGenLog(t, seed)
		opts := Options{}
		switch seed % 4 {
		case 1:
			opts.Begin, opts.End = l.times[len(l.times)/4], l.times[3*len(l.times)/4]
		case 2:
			opts.Counters = append(slices.Clone(l.paths[:len(l.paths)/2]), l.wildcard)
		case 3:
			opts.End = l.times[len(l.times)/2]
		}
		want := relogged(onlyBlocks{l}, opts)
		l.pos, l.rowsRead, l.unanswered = 0, 0, 0
		got := relogged(l, opts)
		if got != want {
			t.Fatalf("seed %d: steady path:\n%s\npdh over the blocks:\n%s", seed, got, want)
		}
		steadyRows += l.rowsRead
		unanswered += l.unanswered
	}
	if unanswered < 300 {
		t.Errorf("only %d samples read without blocks left objects out", unanswered)
	}
	if steadyRows < 8000 {
		t.Errorf("only %d samples read without blocks over all the logs: the steady path was hardly taken", steadyRows)
	}
}

// genCounter is a counter a generated log may list.
type genCounter struct {
	object, name string
	typ          countertype.Type
	timeBase     int64
	single       bool
	parent       bool // instances have parents
}

var genCounters = []genCounter{
	{"Processor", "% Processor Time", countertype.PERF_100NSEC_TIMER_INV, 10_000_000, false, false},
	{"Processor", "Interrupts/sec", countertype.PERF_COUNTER_COUNTER, 2_630_633, false, false},
	{"Memory", "Cache Faults/sec", countertype.PERF_COUNTER_COUNTER, 2_630_633, true, false},
	{"Memory", "% Committed Bytes In Use", countertype.PERF_RAW_FRACTION, 0, true, false},
	{"Memory", "Available Bytes", countertype.PERF_COUNTER_LARGE_RAWCOUNT, 0, true, false},
	{"PhysicalDisk", "% Disk Time", countertype.PERF_PRECISION_100NS_TIMER, 10_000_000, false, false},
	{"PhysicalDisk", "Avg. Disk sec/Read", countertype.PERF_AVERAGE_TIMER, 2_630_633, false, false},
	{"PhysicalDisk", "Current Disk Queue Length", countertype.PERF_COUNTER_RAWCOUNT, 0, false, false},
	{"PhysicalDisk", "% Idle Time", countertype.PERF_COUNTER_TIMER, 0, false, false},
	{"Network Interface", "Bytes Total/sec", countertype.PERF_COUNTER_BULK_COUNT, 2_630_633, false, false},
	{"Process", "ID Process", countertype.PERF_COUNTER_RAWCOUNT, 0, false, false},
	{"Process", "Elapsed Time", countertype.PERF_ELAPSED_TIME, 10_000_000, false, false},
	{"Process", "% User Time", countertype.PERF_100NSEC_TIMER, 10_000_000, false, false},
	{"Thread", "Context Switches/sec", countertype.PERF_COUNTER_COUNTER, 2_630_633, false, true},
	{"Job", "Busy", countertype.PERF_100NSEC_MULTI_TIMER, 10_000_000, false, false},
	{"Job", "Idle", countertype.PERF_100NSEC_MULTI_TIMER_INV, 10_000_000, false, false},
	{"Job", "Objects", countertype.PERF_OBJ_TIME_TIMER, 1_000_000, false, false},
}

// genLog is a made-up log of listed counters: a pdh.Source whose samples
// rawlog rebuilds, and a rowSource as perflog/blg's Log is.
type genLog struct {
	list       []rawlog.Counter
	paths      []string // the list's paths
	wildcard   string   // a path with an instance wildcard
	db         *titles.DB
	plan       *rawlog.Plan
	rows       *rawlog.Rows
	samples    [][]genCell
	times      []time.Time
	pos        int
	rowsRead   int
	unanswered int // samples read without blocks that left objects out
}

type genCell struct {
	k            int
	parent, inst string
	v            rawlog.Value
}

func makeGenLog(t *testing.T, seed uint64) *genLog {
	r := rand.New(rand.NewPCG(seed, 7))
	l := &genLog{}
	machines := []string{`\\alpha`, `\\beta`}[:1+r.IntN(2)]
	picked := map[string]bool{}
	var gcs []genCounter
	for range 2 + r.IntN(6) {
		gc := genCounters[r.IntN(len(genCounters))]
		m := machines[r.IntN(len(machines))]
		inst := ""
		if !gc.single {
			inst = []string{"*", "*", "_Total", "b#1"}[r.IntN(4)]
		}
		key := m + gc.object + gc.name + inst
		if picked[key] {
			continue
		}
		picked[key] = true
		c := rawlog.Counter{Machine: m, Object: gc.object, Instance: inst, Name: gc.name, Type: gc.typ, TimeBase: gc.timeBase}
		if gc.parent && inst != "*" {
			c.Parent = "p1"
		}
		if c.Instance == "b#1" {
			c.Instance, c.Index = "b", 1
		}
		l.list = append(l.list, c)
		gcs = append(gcs, gc)
		l.paths = append(l.paths, counterpath.Path{Machine: strings.TrimLeft(m, `\`), Object: c.Object, Parent: c.Parent,
			Instance: c.Instance, Index: int(c.Index), HasIndex: c.Index > 0, Counter: c.Name}.String())
		if l.wildcard == "" && !gc.single {
			l.wildcard = counterpath.Path{Machine: strings.TrimLeft(m, `\`), Object: c.Object, Instance: "*", Counter: c.Name}.String()
		}
	}
	if l.wildcard == "" {
		l.wildcard = l.paths[0]
	}
	var err error
	if l.db, err = rawlog.Titles(l.list, nil); err != nil {
		t.Fatal(err)
	}
	if l.plan, err = rawlog.NewPlan(l.list, l.db); err != nil {
		t.Fatal(err)
	}
	l.rows = l.plan.Rows()
	// Each object's instances, changed now and then.
	names := []string{"a", "b", "b#1", "c", "_Total"}
	insts := slices.Clone(names[:3])
	values := map[string]int64{}
	tick := int64(1_000_000_000)
	ft := int64(133_000_000_000_000_000)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rare := 60 + 1000*int(seed%2) // odd seeds: failed and missing values are rarer
	n := 30 + r.IntN(50)
	// Now and then a machine, or one object of it, does not answer for
	// a few samples: every value of it failed.
	var down, downObject string
	downFor := 0
	for s := range n {
		if downFor == 0 && r.IntN(12) == 0 {
			down, downObject, downFor = machines[r.IntN(len(machines))], "", 1+r.IntN(4)
			if r.IntN(2) == 0 {
				downObject = l.list[r.IntN(len(l.list))].Object
			}
		}
		if r.IntN(rare/6) == 0 {
			insts = slices.Clone(names[:1+r.IntN(len(names))])
			r.Shuffle(len(insts), func(i, j int) { insts[i], insts[j] = insts[j], insts[i] })
		}
		tick += 2_630_633 * int64(1+r.IntN(3))
		ft += 10_000_000 * int64(1+r.IntN(3))
		var cells []genCell
		for k, c := range l.list {
			gc := gcs[k]
			var in []string
			switch c.Instance {
			case "":
				in = []string{""}
			case "*":
				in = insts
			default:
				in = []string{c.Instance}
				if c.Index > 0 {
					in = []string{fmt.Sprintf("%s#%d", c.Instance, c.Index)}
				}
			}
			for _, inst := range in {
				key := fmt.Sprint(k, inst)
				values[key] += int64(r.IntN(1000))
				if r.IntN(rare/2) == 0 {
					values[key] = 0 // a counter that started over
				}
				v := rawlog.Value{Status: rawlog.CStatusValid, First: values[key], Multi: uint32(1 + r.IntN(4))}
				switch {
				case gc.typ == countertype.PERF_RAW_FRACTION || gc.typ == countertype.PERF_AVERAGE_TIMER:
					v.Second = values[key] + int64(r.IntN(5000))
				case gc.typ == countertype.PERF_ELAPSED_TIME:
					v.First, v.Second = ft-int64(r.IntN(3))*10_000_000, ft
				case gc.typ.TimeBase() == countertype.PERF_TIMER_100NS || gc.typ == countertype.PERF_PRECISION_100NS_TIMER:
					v.Second = ft
				case gc.typ.TimeBase() == countertype.PERF_OBJECT_TIMER:
					v.Second = tick / 3
				default:
					v.Second = tick
				}
				if gc.name == "ID Process" {
					v.First = int64(100 + r.IntN(2)) // a process restarted under the same name now and then
				}
				if r.IntN(rare) == 0 || downFor > 0 && c.Machine == down && (downObject == "" || c.Object == downObject) {
					v.Status = 0x800007D0 // the machine did not answer
				}
				parent := ""
				if gc.parent && inst != "" {
					parent = "p1"
				}
				if r.IntN(rare) != 0 { // now and then a value is missing
					cells = append(cells, genCell{k, parent, inst, v})
				}
			}
		}
		if r.IntN(rare/2) == 0 {
			r.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		}
		l.samples = append(l.samples, cells)
		downFor = max(downFor-1, 0)
		l.times = append(l.times, start.Add(time.Duration(s)*time.Second))
	}
	return l
}

func (l *genLog) fill(rows *rawlog.Rows, i int) error {
	rows.Reset()
	for _, c := range l.samples[i] {
		if err := rows.SetParent(c.k, c.parent, c.inst, c.v); err != nil {
			return err
		}
	}
	return nil
}

func (l *genLog) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if l.pos >= len(l.samples) {
		return nil, io.EOF
	}
	l.pos++
	if err := l.fill(l.rows, l.pos-1); err != nil {
		return nil, err
	}
	return l.rows.Build(l.times[l.pos-1], 2_630_633)
}

func (l *genLog) NewRows() *rawlog.Rows { return l.plan.Rows() }

func (l *genLog) SampleRows(ctx context.Context, rows *rawlog.Rows) (time.Time, bool, error) {
	if l.pos >= len(l.samples) {
		return time.Time{}, false, io.EOF
	}
	l.pos++
	if err := l.fill(rows, l.pos-1); err != nil {
		return time.Time{}, false, err
	}
	t := l.times[l.pos-1]
	rows.Stamp(t, 2_630_633)
	l.rowsRead++
	if rows.Unanswered() {
		l.unanswered++
	}
	return t, true, nil
}

func (l *genLog) Titles() *titles.DB     { return l.db }
func (l *genLog) Recorded() pdh.Recorded { return l }
func (l *genLog) Len() int               { return len(l.samples) }
func (l *genLog) Pos() int               { return l.pos }
func (l *genLog) Time(i int) time.Time   { return l.times[i] }
func (l *genLog) Counters() []string     { return l.paths }
func (l *genLog) Seek(i int) error {
	if i < 0 || i > len(l.samples) {
		return fmt.Errorf("sample %d out of range", i)
	}
	l.pos = i
	return nil
}

// cancelAt is a generated log whose reader's context is cancelled when
// it reaches sample at, whichever way the sample is read.
type cancelAt struct {
	*genLog
	at     int
	cancel context.CancelFunc
}

func (c *cancelAt) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if c.pos == c.at {
		c.cancel()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.genLog.Sample(ctx, objects)
}

func (c *cancelAt) SampleRows(ctx context.Context, rows *rawlog.Rows) (time.Time, bool, error) {
	if c.pos == c.at {
		c.cancel()
	}
	if err := ctx.Err(); err != nil {
		return time.Time{}, false, err
	}
	return c.genLog.SampleRows(ctx, rows)
}

func (c *cancelAt) Recorded() pdh.Recorded { return c }

// TestSteadyCancel: a run cancelled while the steady path reads gives
// the context's error, as one cancelled while pdh reads does.
func TestSteadyCancel(t *testing.T) {
	for _, steady := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		l := &cancelAt{genLog: makeGenLog(t, 1), at: 20, cancel: cancel}
		var src pdh.Source = l
		if !steady {
			src = onlyBlocks{l}
		}
		_, _, err := Run(ctx, src, Options{Format: pdhcsv.CSV, Location: time.UTC}, io.Discard)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("steady path %v: %v, want context.Canceled", steady, err)
		}
		if steady && l.rowsRead == 0 {
			t.Error("the steady path was not taken")
		}
	}
}
