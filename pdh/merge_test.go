package pdh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// values collects the formatted values of paths over every sample of src:
// one line per sample, "path=value" per item, blanks left out.
func values(t *testing.T, src Source, paths []string) []string {
	t.Helper()
	if err := src.Recorded().Seek(0); err != nil {
		t.Fatal(err)
	}
	q := OpenQuery(src)
	var cs []*Counter
	for _, p := range paths {
		c, err := q.AddCounter(p)
		if err != nil {
			t.Fatalf("AddCounter(%s): %v", p, err)
		}
		cs = append(cs, c)
	}
	var out []string
	for {
		err := q.Collect(t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var line []string
		for _, c := range cs {
			for _, it := range c.AppendFormattedArray(nil, noCap) {
				if it.Status == calc.ValidData {
					line = append(line, fmt.Sprintf("%s=%.17g", it.Path.String(), it.Computed))
				}
			}
		}
		out = append(out, q.Time().Format(time.RFC3339Nano)+" "+strings.Join(line, " "))
	}
}

// TestMergeWindowsBlocks: Windows' 88 blocks split into two inputs by
// object merge back into the 11 samples of all of them, with the same
// values; an input given twice is an overlap, reported, not doubled.
func TestMergeWindowsBlocks(t *testing.T) {
	paths := zachFiles(t, zachDir)
	var procs, rest []string
	for _, p := range paths {
		if strings.Contains(filepath.Base(p), "-Process") || strings.Contains(filepath.Base(p), "-Processor") {
			procs = append(procs, p)
		} else {
			rest = append(rest, p)
		}
	}
	db := openZach(t).Titles()
	open := func(files []string) *BlockFiles {
		bf, err := OpenBlockFiles(files, db)
		if err != nil {
			t.Fatal(err)
		}
		return bf
	}
	watch := []string{`\Processor(*)\% Processor Time`, `\Process(Idle)\% Processor Time`, `\LogicalDisk(C:)\% Disk Time`, `\Memory\% Committed Bytes In Use`, `\System\System Up Time`}
	want := values(t, openZach(t), watch)
	if len(want) != 11 {
		t.Fatalf("%d samples in the whole capture, want 11", len(want))
	}

	m, err := Merge(Input{"processes", open(procs)}, Input{"others", open(rest)})
	if err != nil {
		t.Fatal(err)
	}
	// Inputs of whole objects: every object of each, with its computer,
	// in input order (the processes' file first).
	wantCounters := []string{`\\ZACH-PC\Process(*)\*`, `\\ZACH-PC\Processor(*)\*`, `\\ZACH-PC\System\*`, `\\ZACH-PC\Memory\*`,
		`\\ZACH-PC\PhysicalDisk(*)\*`, `\\ZACH-PC\LogicalDisk(*)\*`, `\\ZACH-PC\Network Interface(*)\*`, `\\ZACH-PC\TCPv4\*`}
	if m.Len() != 11 || len(m.Notes()) != 0 || !slices.Equal(m.Counters(), wantCounters) {
		t.Fatalf("merged: %d samples, notes %q, counters %q; want 11, none, %q", m.Len(), m.Notes(), m.Counters(), wantCounters)
	}
	if got := values(t, m, watch); !slices.Equal(got, want) {
		t.Errorf("merged values differ:\n got %q\nwant %q", got, want)
	}
	if err := m.Seek(0); err != nil {
		t.Fatal(err)
	}
	s, err := m.Sample(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Blocks) != 8 || len(s.Problems) != 0 {
		t.Errorf("first merged sample: %d blocks, problems %v; want 8, none", len(s.Blocks), s.Problems)
	}

	twice, err := Merge(Input{"a.blg", open(paths)}, Input{"a.blg", open(paths)})
	if err != nil {
		t.Fatal(err)
	}
	if twice.Len() != 11 {
		t.Fatalf("the same input twice: %d samples, want 11", twice.Len())
	}
	s, err = twice.Sample(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Problems) != 1 || !strings.HasPrefix(s.Problems[0].Reason, "inputs overlap: the same file given twice (objects ") {
		t.Errorf("problems %q, want one overlap", s.Problems)
	}
	if got := values(t, twice, watch); !slices.Equal(got, want) {
		t.Errorf("values of the input given twice differ:\n got %q\nwant %q", got, want)
	}
}

// obj is one object of a test block: a multi-instance object whose one
// counter (a raw count) has value v for instance "a".
type obj struct {
	index, counter uint32
	v              uint64
}

// block builds a block of machine at ft holding objs.
func block(t *testing.T, machine string, ft int64, objs ...obj) []byte {
	t.Helper()
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{DefaultObject: int32(objs[0].index), PerfTime: ft, PerfFreq: 1e7, PerfTime100nSec: ft, SystemName: machine})
	for _, o := range objs {
		specs := []perfdata.CounterSpec{{NameIndex: o.counter, HelpIndex: o.counter + 1, Type: ct.PERF_COUNTER_LARGE_RAWCOUNT, DetailLevel: 100}}
		l, err := perfdata.NewLayout(specs)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: o.index, HelpIndex: o.index + 1, DetailLevel: 100}, l, specs); err != nil {
			t.Fatal(err)
		}
		b.Instance("a", 0, 0, perfdata.NoUniqueID).Set(0, o.v)
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
	}
	return slices.Clone(b.Bytes())
}

func dbOf(t *testing.T, names map[uint32]string) *titles.DB {
	t.Helper()
	db := titles.New()
	for i, n := range names {
		if err := db.SetAt(i, n, n+" help"); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestMergeKeepsSpelling is issue 29's "merging a BLG with another log
// keeps every input's paths exactly as stored": one input names index
// 10000 "Processor", the other "processor" (as PowerShell's
// CounterSamples.blg stores it); each input's object keeps its spelling.
func TestMergeKeepsSpelling(t *testing.T) {
	a := &memSource{
		db:      dbOf(t, map[uint32]string{10000: "Processor", 10002: "% Processor Time"}),
		samples: [][]byte{block(t, "HOSTA", t0, obj{10000, 10002, 1})},
	}
	b := &memSource{
		db:      dbOf(t, map[uint32]string{10000: "processor", 10002: "% processor time", 10004: "network interface"}),
		samples: [][]byte{block(t, "HOSTB", t0, obj{10000, 10002, 7})},
	}
	m, err := Merge(Input{"a", a}, Input{"b", b})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := m.Sample(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{"HOSTA": {"Processor", "% Processor Time"}, "HOSTB": {"processor", "% processor time"}}
	for _, blk := range smp.Blocks {
		host := blk.Header().SystemName
		it := blk.Objects()
		if !it.Next() {
			t.Fatalf("%s: no object", host)
		}
		o := it.Object()
		got := [2]string{m.Titles().Name(o.NameIndex()), m.Titles().Name(o.Counter(0).NameIndex)}
		if got != want[host] {
			t.Errorf("%s: object and counter named %q, want %q", host, got, want[host])
		}
	}
	if len(m.Notes()) != 0 {
		t.Errorf("notes %q, want none", m.Notes())
	}
	// Paths in either spelling still find each machine's object.
	got := values(t, m, []string{`\\HOSTA\processor(*)\% PROCESSOR TIME`, `\\HOSTB\Processor(*)\% Processor Time`})
	if len(got) != 1 || !strings.Contains(got[0], `\\HOSTA\Processor(a)\% Processor Time=1`) || !strings.Contains(got[0], `\\HOSTB\processor(a)\% processor time=7`) {
		t.Errorf("values %q", got)
	}
}

// TestMergeConflictingTitles: inputs whose title tables give one index
// different names (a BLG's own table, a text log's synthetic indexes)
// show each input's objects and counters by their own names, values
// intact; the moved indexes are noted and the problems follow them.
func TestMergeConflictingTitles(t *testing.T) {
	a := &memSource{
		db: dbOf(t, map[uint32]string{10000: "Alpha", 10002: "Count", 10004: "Shared"}),
		samples: [][]byte{
			block(t, "HOSTA", t0, obj{10000, 10002, 1}),
			block(t, "HOSTA", t0+2*second, obj{10000, 10002, 3}),
		},
	}
	b := &memSource{
		// 10000 and 10002 name other things here; "Alpha" is 20000.
		db: dbOf(t, map[uint32]string{10000: "Beta", 10002: "Items", 10006: "Own", 20000: "Alpha", 20002: "Count"}),
		samples: [][]byte{
			block(t, "HOSTB", t0, obj{10000, 10002, 100}, obj{20000, 20002, 10}),
			block(t, "HOSTB", t0+1*second, obj{10000, 10002, 200}, obj{20000, 20002, 20}),
			block(t, "HOSTB", t0+2*second, obj{10000, 10002, 300}, obj{20000, 20002, 30}),
		},
		problems: map[int][]Problem{1: {{Object: 10000, ObjectName: "Beta", Partial: true, Reason: "test", Missing: []MissingValues{{Instance: 0, Counters: []uint32{10002}}}}}},
	}
	m, err := Merge(Input{"a", a}, Input{"b", b})
	if err != nil {
		t.Fatal(err)
	}
	db := m.Titles()
	for i, want := range map[uint32]string{10000: "Alpha", 10002: "Count", 10004: "Shared", 10006: "Own", 20000: "", 20002: ""} {
		if got := db.Name(i); got != want {
			t.Errorf("merged title %d = %q, want %q", i, got, want)
		}
	}
	beta, ok := db.Index("Beta")
	items, ok2 := db.Index("Items")
	if !ok || !ok2 || beta <= 20002 || items <= 20002 || beta == items || db.Help(beta+1) != "Beta help" {
		t.Fatalf("Beta at %d (%v), Items at %d (%v), help %q: want new indexes after 20002", beta, ok, items, ok2, db.Help(beta+1))
	}
	if len(m.Notes()) != 0 {
		t.Errorf("notes %q, want none: moved title indexes are nothing a reader can act on", m.Notes())
	}
	if m.Len() != 3 {
		t.Fatalf("%d samples, want 3 (t0 and t0+2s merged)", m.Len())
	}
	got := values(t, m, []string{`\\HOSTA\Alpha(*)\Count`, `\\HOSTB\Beta(*)\Items`, `\\HOSTB\Alpha(*)\Count`})
	at := func(ft int64) string { return perfdata.FileTimeToTime(ft).Format(time.RFC3339Nano) }
	want := []string{
		at(t0) + ` \\HOSTA\Alpha(a)\Count=1 \\HOSTB\Beta(a)\Items=100 \\HOSTB\Alpha(a)\Count=10`,
		at(t0+second) + ` \\HOSTB\Alpha(a)\Count=20`, // HOSTA has no sample; Items marked missing
		at(t0+2*second) + ` \\HOSTA\Alpha(a)\Count=3 \\HOSTB\Beta(a)\Items=300 \\HOSTB\Alpha(a)\Count=30`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("values\n got %q\nwant %q", got, want)
	}
	if err := m.Seek(1); err != nil {
		t.Fatal(err)
	}
	s, err := m.Sample(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Problems) != 1 || s.Problems[0].Object != beta || !slices.Equal(s.Problems[0].Missing[0].Counters, []uint32{items}) {
		t.Errorf("problems %+v: want object %d missing counter %d", s.Problems, beta, items)
	}
	if _, err := m.Sample(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Sample(t.Context(), nil); !errors.Is(err, io.EOF) {
		t.Errorf("after the last sample: %v, want io.EOF", err)
	}
}

type liveSource struct{ memSource }

func (liveSource) Recorded() Recorded { return nil }

func TestMergeRefusesLive(t *testing.T) {
	if _, err := Merge(Input{"live", &liveSource{}}); err == nil || !strings.Contains(err.Error(), "live") {
		t.Errorf("error %v, want a live source refused", err)
	}
	if _, err := Merge(); err == nil {
		t.Error("no input accepted")
	}
}

// TestMergeOrder: inputs given out of time order, and an input whose own
// samples are out of order, are read in time order.
func TestMergeOrder(t *testing.T) {
	db := dbOf(t, map[uint32]string{10000: "Alpha", 10002: "Count"})
	late := &memSource{db: db, samples: [][]byte{block(t, "B", t0+3*second, obj{10000, 10002, 4}), block(t, "B", t0+1*second, obj{10000, 10002, 2})}}
	early := &memSource{db: db, samples: [][]byte{block(t, "A", t0, obj{10000, 10002, 1}), block(t, "A", t0+2*second, obj{10000, 10002, 3})}}
	m, err := Merge(Input{"late", late}, Input{"early", early})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Notes()) != 1 || !strings.Contains(m.Notes()[0], "late") {
		t.Errorf("notes %q, want one about input late", m.Notes())
	}
	var got []string
	for i := range m.Len() {
		if i > 0 && !m.Time(i).After(m.Time(i-1)) {
			t.Errorf("time %d not after %d", i, i-1)
		}
		s, err := m.Sample(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Blocks[0].Header().SystemName)
	}
	if want := []string{"A", "B", "A", "B"}; !slices.Equal(got, want) {
		t.Errorf("machines in order %q, want %q", got, want)
	}
}

// TestMissingByMachine: a problem naming a machine marks values of that
// machine's object only, in a sample of several machines.
func TestMissingByMachine(t *testing.T) {
	db := dbOf(t, map[uint32]string{10000: "Alpha", 10002: "Count"})
	miss := []MissingValues{{Instance: 0, Counters: []uint32{10002}}}
	for _, tc := range []struct {
		machine string
		want    string
	}{
		{"hosta", ` \\HOSTB\Alpha(a)\Count=2`},
		{"", ` `}, // every machine's
		{`\\HOSTB`, ` \\HOSTA\Alpha(a)\Count=1`},
	} {
		a := &memSource{db: db, samples: [][]byte{block(t, "HOSTA", t0, obj{10000, 10002, 1})},
			problems: map[int][]Problem{0: {{Object: 10000, Machine: tc.machine, Partial: true, Reason: "test", Missing: miss}}}}
		b := &memSource{db: db, samples: [][]byte{block(t, "HOSTB", t0, obj{10000, 10002, 2})}}
		m, err := Merge(Input{"a", a}, Input{"b", b})
		if err != nil {
			t.Fatal(err)
		}
		got := values(t, m, []string{`\\HOSTA\Alpha(*)\Count`, `\\HOSTB\Alpha(*)\Count`})
		if want := perfdata.FileTimeToTime(t0).Format(time.RFC3339Nano) + tc.want; len(got) != 1 || got[0] != want {
			t.Errorf("machine %q: %q, want %q", tc.machine, got, want)
		}
	}
}
