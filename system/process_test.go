package system

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/procscan"
)

// recInstance is one instance written by a collect function, decoded.
type recInstance struct {
	name           string
	parentTitle    uint32
	parentInstance uint32
	uniqueID       int32
	vals           []uint64
}

// recWriter is a Writer over a real perfdata.Builder that decodes each
// counter block with the object's Layout once it is complete.
type recWriter struct {
	t       *testing.T
	b       *perfdata.Builder
	l       *perfdata.Layout
	objTime int64
	objFreq int64
	insts   []recInstance
	cur     perfdata.Values
	open    bool
	p       probe // the Collection that goes with this writer
}

func specsOf(set *counterset.Set) []perfdata.CounterSpec {
	specs := make([]perfdata.CounterSpec, len(set.Counters))
	for i, c := range set.Counters {
		specs[i] = perfdata.CounterSpec{NameIndex: c.NameIndex, HelpIndex: c.NameIndex + 1, DefaultScale: c.DefaultScale,
			DetailLevel: c.DetailLevel, Type: c.Type, Size: c.ValueSize()}
	}
	return specs
}

func newRecWriter(t *testing.T, set *counterset.Set) *recWriter {
	t.Helper()
	if err := set.Validate(); err != nil {
		t.Fatal(err)
	}
	specs := specsOf(set)
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{SystemName: "TEST"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: set.NameIndex, DefaultCounter: -1}, l, specs); err != nil {
		t.Fatal(err)
	}
	return &recWriter{t: t, b: b, l: l, p: newProbe()}
}

func (w *recWriter) flush() {
	if !w.open {
		return
	}
	in := &w.insts[len(w.insts)-1]
	raw := w.cur.Bytes()
	for i := 0; i < w.l.Len(); i++ {
		off, size := w.l.Offset(i), w.l.Size(i)
		var v uint64
		for k := uint32(0); k < size; k++ {
			v |= uint64(raw[off+k]) << (8 * k)
		}
		in.vals = append(in.vals, v)
	}
	w.open = false
}

func (w *recWriter) Instance(name string, pt, pi uint32, uid int32) perfdata.Values {
	w.flush()
	w.p.inst++
	w.insts = append(w.insts, recInstance{name: name, parentTitle: pt, parentInstance: pi, uniqueID: uid})
	w.cur = w.b.Instance(name, pt, pi, uid)
	w.open = true
	return w.cur
}

func (w *recWriter) Single() perfdata.Values {
	w.t.Fatal("Single called on a multi-instance object")
	return perfdata.Values{}
}

func (w *recWriter) SetObjectTime(t, f int64) { w.objTime, w.objFreq = t, f }

func (w *recWriter) done() []recInstance {
	w.flush()
	if err := w.b.EndObject(); err != nil {
		w.t.Fatal(err)
	}
	return w.insts
}

// denyFS answers fs.ErrPermission for the named files, as /proc does for
// other users' io files.
type denyFS struct {
	fs.FS
	deny map[string]bool
}

func (d denyFS) Open(name string) (fs.File, error) {
	if d.deny[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.FS.Open(name)
}

// Values computed by hand from the files of testdata/proc-pids/basic.
const (
	// The fixed clock below (Unix 1795526400) less the uptime file
	// (145360.60 s): boot at Unix 1795381039.4, as FILETIME. btime says
	// 1795381039, whole seconds rounded down.
	fixtureBootFT = 1795381039*10_000_000 + 4_000_000 + 116444736000000000
	fixtureNowFT  = 134400000000000000 // the fixed clock below
	kib           = 1024
)

func fixtureClock() time.Time {
	return time.Unix(0, (fixtureNowFT-116444736000000000)*100)
}

func basicCollector(t *testing.T) *Collector {
	t.Helper()
	fsys := denyFS{FS: os.DirFS("testdata/proc-pids/basic"), deny: map[string]bool{"104/io": true}}
	return NewCollector(fsys, nil, WithClock(fixtureClock))
}

func TestProcessFixture(t *testing.T) {
	c := basicCollector(t)
	p := NewProcessObjects(procscan.FS(c.Proc))
	defer p.Close()
	obj := p.Process()
	w := newRecWriter(t, obj.Set)
	if err := obj.Collect(c, &w.p, w); err != nil {
		t.Fatal(err)
	}
	got := w.done()
	if w.objTime != fixtureNowFT || w.objFreq != 10_000_000 {
		t.Errorf("object time = %d/%d, want %d/1e7", w.objTime, w.objFreq, int64(fixtureNowFT))
	}

	// Columns: ProcessorTime, UserTime, PrivilegedTime, VirtualBytesPeak,
	// VirtualBytes, PageFaults, WorkingSetPeak, WorkingSet, PrivateBytes,
	// ThreadCount, PriorityBase, ElapsedTime, IDProcess, CreatingProcessID,
	// HandleCount, IORead/Write/Data Ops, IORead/Write/Data Bytes, WS-Private.
	want := []struct {
		name string
		vals [numProcCounters]uint64
	}{
		{"Idle", [numProcCounters]uint64{(728393 + 150) * 100_000, 0, (728393 + 150) * 100_000, 0, 0, 0, 0, 0, 0,
			2, 0, fixtureBootFT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"process_api", [numProcCounters]uint64{(348 + 762) * 100_000, 348 * 100_000, 762 * 100_000, 59736 * kib, 48732 * kib,
			61099 + 0, 21936 * kib, 17820 * kib, (41204 + 132) * kib, 13, 13, fixtureBootFT + 17*100_000, 1, 0, 5,
			0, 0, 0, 0, 0, 0, 11396 * kib}},
		{"kworker/0:0-mm_percpu_wq", [numProcCounters]uint64{0, 0, 0, 0, 0, 0, 0, 0, 0,
			1, 8, fixtureBootFT + 17*100_000, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"(sd-pam)", [numProcCounters]uint64{10 * 100_000, 7 * 100_000, 3 * 100_000, 2000 * kib, 1500 * kib, 12, 800 * kib, 600 * kib,
			(300 + 132) * kib, 1, 8, fixtureBootFT + 5000*100_000, 100, 1, 3, 10, 20, 30, 1000, 2000, 3000, 400 * kib}},
		{"a b) c", [numProcCounters]uint64{150 * 100_000, 100 * 100_000, 50 * 100_000, 4096 * kib, 2048 * kib, 6, 100 * kib, 80 * kib,
			(1000 + 24) * kib, 2, 6, fixtureBootFT + 6000*100_000, 101, 100, 1, 1, 0, 1, 7, 0, 7, 60 * kib}},
		{"averyveryverylongname", [numProcCounters]uint64{0, 0, 0, 0, 0, 0, 0, 0, 0,
			1, 8, fixtureBootFT + 17*100_000, 102, 2, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"rtprio", [numProcCounters]uint64{2 * 100_000, 100_000, 100_000, 0, 0, 0, 0, 0, 0,
			1, 24, fixtureBootFT + 7000*100_000, 104, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
	}
	var total [numProcCounters]uint64
	for _, r := range want {
		for i, v := range r.vals {
			total[i] += v
		}
	}
	total[procElapsedTime], total[procIDProcess], total[procCreatingProcessID], total[procPriorityBase] = fixtureNowFT, 0, 0, 0
	want = append(want, struct {
		name string
		vals [numProcCounters]uint64
	}{"_Total", total})

	if len(got) != len(want) {
		names := make([]string, len(got))
		for i := range got {
			names[i] = got[i].name
		}
		t.Fatalf("got %d instances %q, want %d", len(got), names, len(want))
	}
	for i, r := range want {
		t.Run(r.name, func(t *testing.T) {
			g := got[i]
			if g.name != r.name || g.parentTitle != 0 || g.parentInstance != 0 || g.uniqueID != -1 {
				t.Errorf("instance %d = %q parent %d/%d id %d, want %q 0/0 -1", i, g.name, g.parentTitle, g.parentInstance, g.uniqueID, r.name)
			}
			for k, v := range r.vals {
				if g.vals[k] != v {
					t.Errorf("%s = %d, want %d", obj.Set.Counters[k].Name, g.vals[k], v)
				}
			}
		})
	}
	// The unreadable io files (1: missing, 104: denied) are placeholders
	// without a word, as Linux tools say nothing of other users' files.
	if joined := strings.Join(w.p.reasons, "\n"); strings.Contains(joined, "IO counters") {
		t.Errorf("reasons %q speak of io files that are denied or missing", w.p.reasons)
	}
	// Unavailable values, by instance position (Idle is 0): pid 1 has no
	// io; pids 9, 102 and 104 no fd directory; 104 no status and a denied io.
	wantMarks := []mark{
		{1, []int{procIOReadOps, procIOWriteOps, procIODataOps, procIOReadBytes, procIOWriteBytes, procIODataBytes}},
		{2, []int{procHandleCount}},
		{5, []int{procHandleCount}},
		{6, []int{procVirtualBytesPeak, procVirtualBytes, procWorkingSetPeak, procWorkingSet, procPrivateBytes, procWorkingSetPrivate}},
		{6, []int{procIOReadOps, procIOWriteOps, procIODataOps, procIOReadBytes, procIOWriteBytes, procIODataBytes}},
		{6, []int{procHandleCount}},
	}
	if fmt.Sprint(w.p.missing) != fmt.Sprint(wantMarks) {
		t.Errorf("unavailable %v, want %v", w.p.missing, wantMarks)
	}
	if p.scan.Vanished() != 1 {
		t.Errorf("vanished = %d, want 1 (pid 103 has no stat)", p.scan.Vanished())
	}
}

func TestProcessV2Fixture(t *testing.T) {
	c := basicCollector(t)
	p := NewProcessObjects(procscan.FS(c.Proc))
	defer p.Close()
	obj := p.ProcessV2()
	if obj.Set.NameIndex != 0 || obj.Set.Name != "Process V2" {
		t.Errorf("set %q index %d, want Process V2 with an assigned index", obj.Set.Name, obj.Set.NameIndex)
	}
	w := newRecWriter(t, obj.Set)
	if err := obj.Collect(c, &w.p, w); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range w.done() {
		names = append(names, in.name)
	}
	want := "Idle:0,process_api:1,kworker/0:0-mm_percpu_wq:9,(sd-pam):100,a b) c:101,averyveryverylongname:102,rtprio:104,_Total:0"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("instances\n got %s\nwant %s", got, want)
	}
}

func TestThreadFixture(t *testing.T) {
	c := basicCollector(t)
	p := NewProcessObjects(procscan.FS(c.Proc))
	defer p.Close()
	// Thread alone: it scans; its parent positions must be those of a
	// Process object collected from the same scan.
	thr := p.Thread()
	w := newRecWriter(t, thr.Set)
	if err := thr.Collect(c, &w.p, w); err != nil {
		t.Fatal(err)
	}
	got := w.done()
	proc := p.Process()
	pw := newRecWriter(t, proc.Set)
	if err := proc.Collect(c, &pw.p, pw); err != nil {
		t.Fatal(err)
	}
	procs := pw.done()
	if p.scan.Gen() != 1 {
		t.Errorf("Process after Thread rescanned (gen %d); one scan must serve both", p.scan.Gen())
	}

	// Columns: ProcessorTime, UserTime, PrivilegedTime, ContextSwitches,
	// ElapsedTime, PriorityCurrent, PriorityBase, ThreadState, IDProcess, IDThread.
	type row struct {
		name   string
		parent uint32
		vals   [numThreadCounters]uint64
	}
	pid1 := func(idx string, tid, utime, stime, prio, csw, start uint64) row {
		return row{idx, 1, [numThreadCounters]uint64{(utime + stime) * 100_000, utime * 100_000, stime * 100_000, csw,
			fixtureBootFT + start*100_000, prio, prio, 5, 1, tid}}
	}
	want := []row{
		{"0", 0, [numThreadCounters]uint64{(364397 + 29) * 100_000, 0, (364397 + 29) * 100_000, 0, fixtureBootFT, 0, 0, 2, 0, 0}},
		{"1", 0, [numThreadCounters]uint64{(363996 + 121) * 100_000, 0, (363996 + 121) * 100_000, 0, fixtureBootFT, 0, 0, 2, 0, 0}},
		pid1("0", 1, 0, 18, 13, 416, 17),
		pid1("1", 59, 4, 18, 8, 1652, 38),
		pid1("2", 60, 8, 26, 13, 436, 38),
		pid1("3", 61, 0, 0, 13, 1, 38),
		pid1("4", 62, 0, 0, 13, 2, 39),
		pid1("5", 63, 0, 0, 13, 1, 39),
		pid1("6", 64, 0, 0, 13, 3, 39),
		pid1("7", 65, 0, 0, 8, 1, 39),
		pid1("8", 68, 55, 67, 13, 4951, 39),
		pid1("9", 69, 89, 129, 13, 8509, 39),
		pid1("10", 75, 172, 475, 13, 4592, 87),
		pid1("11", 76, 0, 0, 13, 6, 88),
		pid1("12", 78, 0, 3, 8, 129, 122),
		{"0", 2, [numThreadCounters]uint64{0, 0, 0, 7, fixtureBootFT + 17*100_000, 8, 8, 5, 9, 9}},
		{"0", 3, [numThreadCounters]uint64{10 * 100_000, 7 * 100_000, 3 * 100_000, 42, fixtureBootFT + 5000*100_000, 8, 8, 5, 100, 100}},
		{"0", 4, [numThreadCounters]uint64{70 * 100_000, 40 * 100_000, 30 * 100_000, 3, fixtureBootFT + 6000*100_000, 6, 6, 2, 101, 101}},
		{"1", 4, [numThreadCounters]uint64{80 * 100_000, 60 * 100_000, 20 * 100_000, 7, fixtureBootFT + 6100*100_000, 10, 10, 5, 101, 110}},
		{"0", 5, [numThreadCounters]uint64{0, 0, 0, 0, fixtureBootFT + 17*100_000, 8, 8, 5, 102, 102}},
		{"0", 6, [numThreadCounters]uint64{2 * 100_000, 100_000, 100_000, 1, fixtureBootFT + 7000*100_000, 24, 24, 5, 104, 104}},
	}
	var total [numThreadCounters]uint64
	for _, r := range want {
		for i, v := range r.vals {
			total[i] += v
		}
	}
	total[thrElapsedTime] = fixtureNowFT
	total[thrPriorityCurrent], total[thrPriorityBase], total[thrThreadState], total[thrIDProcess], total[thrIDThread] = 0, 0, 0, 0, 0
	want = append(want, row{"_Total", 7, total})
	if len(got) != len(want) {
		t.Fatalf("got %d thread instances, want %d", len(got), len(want))
	}
	for i, r := range want {
		g := got[i]
		if g.name != r.name || g.parentTitle != 230 || g.parentInstance != r.parent {
			t.Errorf("thread %d = %q parent %d/%d, want %q 230/%d", i, g.name, g.parentTitle, g.parentInstance, r.name, r.parent)
		}
		for k, v := range r.vals {
			if g.vals[k] != v {
				t.Errorf("thread %d (%s of parent %d): %s = %d, want %d", i, r.name, r.parent, thr.Set.Counters[k].Name, g.vals[k], v)
			}
		}
		// The parent position names the process whose ID Process matches.
		if r.parent > 0 && int(r.parent) < len(procs)-1 && procs[r.parent].vals[procIDProcess] != g.vals[thrIDProcess] {
			t.Errorf("thread %d: parent %d is pid %d, thread says pid %d", i, r.parent, procs[r.parent].vals[procIDProcess], g.vals[thrIDProcess])
		}
	}
	if last := procs[len(procs)-1]; last.name != "_Total" || int(want[len(want)-1].parent) != len(procs)-1 {
		t.Errorf("thread _Total parent %d, Process _Total at %d", want[len(want)-1].parent, len(procs)-1)
	}
}

// TestProcessVanishing reads a tree where processes lack files, as when
// they exit between the directory listing and the reads.
func TestProcessVanishing(t *testing.T) {
	base := os.DirFS("testdata/proc-pids/basic")
	stat, err := fs.ReadFile(base, "stat")
	if err != nil {
		t.Fatal(err)
	}
	s100, err := fs.ReadFile(base, "100/stat")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		files     map[string]string
		wantNames []string
		threads   int // Thread instances besides the two Idle threads and _Total
	}{
		{"no stat", map[string]string{"200/status": "Name:\tx\n"}, []string{"Idle", "_Total"}, 0},
		{"stat only", map[string]string{"100/stat": string(s100)}, []string{"Idle", "(sd-pam)", "_Total"}, 0},
		{"task listed but gone", map[string]string{"100/stat": string(s100), "100/task/100/schedstat": "1 2 3\n"}, []string{"Idle", "(sd-pam)", "_Total"}, 0},
		{"malformed stat", map[string]string{"100/stat": "100 no parens\n"}, []string{"Idle", "_Total"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mapFS(tc.files)
			m["stat"] = &fstest.MapFile{Data: stat}
			c := NewCollector(m, nil, WithClock(fixtureClock))
			p := NewProcessObjects(procscan.FS(c.Proc))
			defer p.Close()
			w := newRecWriter(t, p.Process().Set)
			if err := p.Process().Collect(c, &w.p, w); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, in := range w.done() {
				names = append(names, in.name)
			}
			if strings.Join(names, ",") != strings.Join(tc.wantNames, ",") {
				t.Errorf("instances %q, want %q", names, tc.wantNames)
			}
			tw := newRecWriter(t, p.Thread().Set)
			if err := p.Thread().Collect(c, &tw.p, tw); err != nil {
				t.Fatal(err)
			}
			if n := len(tw.done()) - 2 - 1; n != tc.threads {
				t.Errorf("%d process threads, want %d", n, tc.threads)
			}
		})
	}
}

// mapFS builds an in-memory fs.FS from file contents.
func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

func TestProcessScanReuse(t *testing.T) {
	c := basicCollector(t)
	p := NewProcessObjects(procscan.FS(c.Proc))
	defer p.Close()
	proc, thr := p.Process(), p.Thread()
	collect := func(o Object) {
		w := newRecWriter(t, o.Set)
		if err := o.Collect(c, &w.p, w); err != nil {
			t.Fatal(err)
		}
		w.done()
	}
	steps := []struct {
		obj     Object
		wantGen uint64
	}{
		{proc, 1}, {thr, 1}, // one sample: one scan
		{proc, 2}, {thr, 2}, // next sample
		{thr, 3}, {thr, 4}, // Thread alone, twice: a scan each
		{proc, 4}, // Process joins the last Thread sample
	}
	for i, s := range steps {
		collect(s.obj)
		if p.scan.Gen() != s.wantGen {
			t.Fatalf("step %d (%s): gen %d, want %d", i, s.obj.Set.Name, p.scan.Gen(), s.wantGen)
		}
	}
}

// TestProcessReadsWhatIsAsked: a query of % Processor Time alone (the
// counters a one-shot `typeperf \Process(*)\% Processor Time` reads) has
// Process read each process's stat and nothing else: the fixture's
// unreadable status, io and fd files then go unnoticed (no reason, no
// mark), and the stat counters keep their values. Asking for IO counters
// too reads io (and marks the two unreadable io files, without a reason:
// one is denied, one missing) but still neither status nor fd.
func TestProcessReadsWhatIsAsked(t *testing.T) {
	cases := []struct {
		name        string
		want        []int
		wantReasons []string // substrings; none when empty
		noReasons   []string
		marked      []int // the counters that may be marked unavailable: those of the files read
	}{
		{"% Processor Time", []int{procProcessorTime}, nil, []string{"IO counters", "memory counters", "Handle Count"}, nil},
		{"and IO Read Bytes/sec", []int{procProcessorTime, procIOReadBytes}, nil, []string{"IO counters", "memory counters", "Handle Count"},
			[]int{procIOReadOps, procIOWriteOps, procIODataOps, procIOReadBytes, procIOWriteBytes, procIODataBytes}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := basicCollector(t)
			p := NewProcessObjects(procscan.FS(c.Proc))
			defer p.Close()
			obj := p.Process()
			w := newRecWriter(t, obj.Set)
			w.p.want = tc.want
			if err := obj.Collect(c, &w.p, w); err != nil {
				t.Fatal(err)
			}
			got := w.done()
			joined := strings.Join(w.p.reasons, "\n")
			for _, s := range tc.wantReasons {
				if !strings.Contains(joined, s) {
					t.Errorf("reasons %q lack %q", w.p.reasons, s)
				}
			}
			for _, s := range tc.noReasons {
				if strings.Contains(joined, s) {
					t.Errorf("reasons %q mention %q: a file nobody asked for was read", w.p.reasons, s)
				}
			}
			for _, m := range w.p.missing {
				for _, k := range m.counters {
					if !slices.Contains(tc.marked, k) {
						t.Errorf("counter %d of instance %d marked unavailable: not asked for", k, m.inst)
					}
				}
			}
			// process_api (instance 1): stat's 348 + 762 ticks.
			if len(got) < 2 || got[1].name != "process_api" || got[1].vals[procProcessorTime] != (348+762)*100_000 {
				t.Errorf("process_api = %+v", got[1])
			}
		})
	}
}

// failFS answers some files of a fixture tree with an error or with other
// content.
type failFS struct {
	fs.FS
	fail    map[string]error
	content map[string]string
}

func (f failFS) Open(name string) (fs.File, error) {
	if err, ok := f.fail[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if c, ok := f.content[name]; ok {
		return fstest.MapFS{name: {Data: []byte(c)}}.Open(name)
	}
	return f.FS.Open(name)
}

// TestProcessFailuresWorthAWord: a per-process file that is denied (another
// user's process) or missing (a process gone) leaves its cells blank with
// no reason; a read error or a malformed file names its process; the same
// file missing for every process is said once.
func TestProcessFailuresWorthAWord(t *testing.T) {
	basic := os.DirFS("testdata/proc-pids/basic")
	allIO := map[string]error{}
	for _, pid := range []string{"1", "9", "100", "101", "102", "103", "104"} {
		allIO[pid+"/io"] = fs.ErrNotExist
	}
	cases := []struct {
		name    string
		fail    map[string]error
		content map[string]string
		want    []string // the IO reasons, exactly
	}{
		{"denied and missing", map[string]error{"104/io": fs.ErrPermission}, nil, nil},
		{"one malformed", map[string]error{"104/io": fs.ErrPermission}, map[string]string{"100/io": "rchar: many\n"},
			[]string{"IO counters of process 100 ((sd-pam)) not readable: /proc/100/io malformed"}},
		{"two causes", map[string]error{"101/io": syscall.EIO}, map[string]string{"100/io": "rchar: many\n"},
			[]string{"IO counters of 2 processes not readable, the first process 100 ((sd-pam)): /proc/100/io malformed (and other causes)"}},
		{"missing for every process", allIO, nil, []string{"IO counters of every process unavailable: /proc/PID/io cannot be read for any process"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(failFS{FS: basic, fail: tc.fail, content: tc.content}, nil, WithClock(fixtureClock))
			p := NewProcessObjects(procscan.FS(c.Proc))
			defer p.Close()
			obj := p.Process()
			w := newRecWriter(t, obj.Set)
			w.p.want = []int{procProcessorTime, procIOReadBytes}
			if err := obj.Collect(c, &w.p, w); err != nil {
				t.Fatal(err)
			}
			w.done()
			var got []string
			for _, r := range w.p.reasons {
				if strings.HasPrefix(r, "IO counters") {
					got = append(got, r)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("IO reasons = %q, want %q", got, tc.want)
			}
		})
	}
}
