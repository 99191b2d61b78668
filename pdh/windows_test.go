package pdh

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/titles"
)

// zachDir holds the 88 real PERF_DATA_BLOCKs that Windows Vista wrote into a
// perfmon log (11 samples × 8 objects, one object per file): sample 1 at
// the top, samples 2 to 11 in s02-s11 (copies; PROVENANCE.md there).
const zachDir = "../perfdata/testdata/windows"

// zachFiles lists the 88 blocks; fewer is a failure, not a skip.
func zachFiles(t testing.TB, dir string) []string {
	t.Helper()
	first, _ := filepath.Glob(filepath.Join(dir, "s*.bin"))
	rest, _ := filepath.Glob(filepath.Join(dir, "s02-s11", "s*.bin"))
	paths := append(first, rest...)
	if len(paths) != 88 {
		t.Fatalf("%d real blocks in %s, want 88", len(paths), dir)
	}
	return paths
}

// openZach opens the real blocks with their own title list.
func openZach(t testing.TB) *BlockFiles {
	t.Helper()
	paths := zachFiles(t, zachDir)
	f, err := os.Open(filepath.Join(zachDir, "counter-names-009.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := titles.ParseTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := OpenBlockFiles(paths, db)
	if err != nil {
		t.Fatal(err)
	}
	return bf
}

const noCap = calc.FmtDouble | calc.FmtNoCap100

// TestWindowsWorkedExamples replays the real blocks and checks the values
// that shared/conformance/perfdata/README.md derives by hand from the raw
// numbers ("Worked examples"), each to half a unit of its last printed digit.
func TestWindowsWorkedExamples(t *testing.T) {
	bf := openZach(t)
	if bf.Len() != 11 {
		t.Fatalf("samples = %d, want 11 (88 files regrouped by header)", bf.Len())
	}
	q := OpenQuery(bf)
	type ex struct {
		path   string
		sample int // 1: from sample 1 alone; 2: between samples 1 and 2
		want   float64
		tol    float64
	}
	cases := []ex{
		{`\Processor(_Total)\% Processor Time`, 2, 82.148113, 5e-7},
		{`\Process(Idle)\% Processor Time`, 2, 17.851887, 5e-7},
		{`\Processor(_Total)\Interrupts/sec`, 2, 1228.377778, 5e-7},
		{`\System\System Up Time`, 1, 2002.161, 5e-4},
		{`\LogicalDisk(C:)\% Free Space`, 1, 75.188011, 5e-7},
		{`\LogicalDisk(C:)\% Disk Time`, 2, 31.173144, 5e-7},
		{`\LogicalDisk(C:)\Avg. Disk sec/Transfer`, 2, 0.008179256, 5e-10},
		{`\LogicalDisk(C:)\Avg. Disk Bytes/Transfer`, 2, 38505.761, 5e-4},
		{`\LogicalDisk(_Total)\Avg. Disk Queue Length`, 2, 0.311726, 5e-7},
		{`\Memory\% Committed Bytes In Use`, 1, 37.764457, 5e-7},
		// Numeric title indexes (SPEC rule 2): \238\6 is \Processor\% Processor Time.
		{`\238(_Total)\6`, 2, 82.148113, 5e-7},
		// Case does not matter.
		{`\processor(_TOTAL)\% PROCESSOR TIME`, 2, 82.148113, 5e-7},
	}
	counters := make([]*Counter, len(cases))
	for i, c := range cases {
		var err error
		if counters[i], err = q.AddCounter(c.path); err != nil {
			t.Fatalf("AddCounter(%s): %v", c.path, err)
		}
	}
	for sample := 1; sample <= 2; sample++ {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			if c.sample != sample {
				continue
			}
			t.Run(c.path, func(t *testing.T) {
				items := counters[i].FormattedArray(noCap)
				if len(items) != 1 {
					t.Fatalf("%d items, want 1: %+v", len(items), items)
				}
				v := items[0].Value
				if v.Status != calc.ValidData || math.Abs(v.Double-c.want) > c.tol {
					t.Errorf("got %v (%v), want %v ± %g", v.Double, v.Status, c.want, c.tol)
				}
				f, err := counters[i].Formatted(noCap)
				if err != nil || f != v {
					t.Errorf("Formatted = %+v, %v; FormattedArray gave %+v", f, err, v)
				}
			})
		}
	}
	// Sample 2's time comes from its own header's PerfTime100nSec,
	// 128315940986148066 (FILETIME) = 2007-08-14 19:41:38.6148066 UTC. (Its
	// SYSTEMTIME says 15:41:38.614: on this machine the two differ by 4 h.)
	if got, want := q.Time(), time.Date(2007, 8, 14, 19, 41, 38, 614_806_600, time.UTC); !got.Equal(want) {
		t.Errorf("Time = %v, want %v", got, want)
	}
	if q.Machine() != "ZACH-PC" {
		t.Errorf("Machine = %q", q.Machine())
	}
	// The rest of the samples replay, then the source ends.
	n := 2
	for {
		err := q.Collect(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		// Idle and _Total add up to 100 % in every interval.
		a, _ := counters[0].Formatted(noCap)
		b, _ := counters[1].Formatted(noCap)
		if a.Status != calc.ValidData || b.Status != calc.ValidData || math.Abs(a.Double+b.Double-100) > 1e-6 {
			t.Errorf("sample %d: Processor %v + Idle %v != 100", n, a, b)
		}
	}
	if n != 11 {
		t.Errorf("collected %d samples, want 11", n)
	}
	// Statistics over the 11 samples of a single-sample counter: the
	// README's sample-1 value is among them.
	st := counters[4].Statistics(noCap)
	if st.Status != calc.ValidData || st.Count != 11 || st.Min > 75.188011 || st.Max < 75.188011 {
		t.Errorf("Statistics(%% Free Space) = %+v", st)
	}
}

// TestWindowsBasesAreNotCounters: base definitions repeat their parent's
// title index in real data; they must not show up as counters of their own.
func TestWindowsBasesAreNotCounters(t *testing.T) {
	bf := openZach(t)
	q := OpenQuery(bf)
	c := mustAdd(t, q, `\LogicalDisk(C:)\*`)
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	items := c.FormattedArray(noCap)
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Path.Counter] {
			t.Errorf("counter %q listed twice (a base taken for a counter?)", it.Path.Counter)
		}
		seen[it.Path.Counter] = true
		if it.Instance != "C:" {
			t.Errorf("instance %q", it.Instance)
		}
	}
	// README: LogicalDisk has 34 definitions; % Free Space, % Disk Time and
	// friends each bring one base. Every Windows LogicalDisk counter name
	// below must be present exactly once.
	for _, n := range []string{"% Free Space", "Free Megabytes", "% Disk Time", "Avg. Disk sec/Transfer", "Avg. Disk Bytes/Transfer", "Avg. Disk Queue Length"} {
		if !seen[n] {
			t.Errorf("counter %q missing", n)
		}
	}
	counters, instances, err := EnumObjectItems(context.Background(), bf, "LogicalDisk")
	if err != nil {
		t.Fatal(err)
	}
	if len(counters) != len(items) {
		t.Errorf("EnumObjectItems: %d counters, FormattedArray %d", len(counters), len(items))
	}
	if want := []string{"HarddiskVolume1", "C:", "_Total"}; !equalStrings(instances, want) {
		t.Errorf("instances = %q, want %q", instances, want)
	}
}

// TestWindowsDuplicateNames: 13 svchost processes on ZACH-PC are
// svchost, svchost#1 ... svchost#12.
func TestWindowsDuplicateNames(t *testing.T) {
	bf := openZach(t)
	paths, err := ExpandWildCardPath(context.Background(), bf, `\Process(svchost*)\ID Process`)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 13 || paths[0] != `\Process(svchost)\ID Process` || paths[12] != `\Process(svchost#12)\ID Process` {
		t.Errorf("paths = %q", paths)
	}
	q := OpenQuery(bf)
	c := mustAdd(t, q, `\Process(svchost#12)\ID Process`)
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Formatted(calc.FmtLarge | calc.FmtNoScale); v.Status != calc.ValidData || v.Large == 0 {
		t.Errorf("svchost#12 pid = %+v", v)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
