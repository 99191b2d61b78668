package system

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/procscan"
)

func TestProcscanMappings(t *testing.T) {
	for _, tc := range []struct {
		prio, nice int64
		want       uint32
	}{{-2, 0, 24}, {-100, 0, 24}, {39, 19, 4}, {30, 10, 4}, {29, 9, 6}, {21, 1, 6}, {20, 0, 8}, {19, -1, 10}, {11, -9, 10}, {10, -10, 13}, {0, -20, 13}} {
		if got := basePriority(tc.prio, tc.nice); got != tc.want {
			t.Errorf("basePriority(%d, %d) = %d, want %d", tc.prio, tc.nice, got, tc.want)
		}
	}
	for c, want := range map[byte]uint32{'R': 2, 'S': 5, 'D': 5, 'I': 5, 'T': 5, 't': 5, 'Z': 4, 'X': 4, 'W': 1, '?': 7} {
		if got := threadState(c); got != want {
			t.Errorf("threadState(%c) = %d, want %d", c, got, want)
		}
	}
}

// TestProcscanKeptFixture reads the fixture tree through the kept-descriptor
// path (real files, pread, getdents) and compares it with the fs.FS path.
func TestProcscanKeptFixture(t *testing.T) {
	root := "testdata/proc-pids/basic"
	for _, objName := range []string{"Process", "Thread"} {
		t.Run(objName, func(t *testing.T) {
			collect := func(p *ProcessObjects) []recInstance {
				c := NewCollector(os.DirFS(root), nil, WithClock(fixtureClock))
				o := p.Process()
				if objName == "Thread" {
					o = p.Thread()
				}
				w := newRecWriter(t, o.Set)
				if err := o.Collect(c, &w.p, w); err != nil {
					t.Fatal(err)
				}
				return w.done()
			}
			r, err := procscan.Open(root, procscan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			kept := NewProcessObjects(r)
			defer kept.Close()
			plain := NewProcessObjects(procscan.FS(os.DirFS(root)))
			defer plain.Close()
			a, b := collect(kept), collect(plain)
			a2 := collect(kept) // second sample through the kept descriptors
			if len(a) != len(b) || len(a2) != len(b) {
				t.Fatalf("%d / %d instances via descriptors, %d via fs.FS", len(a), len(a2), len(b))
			}
			for i := range b {
				for _, g := range []recInstance{a[i], a2[i]} {
					if g.name != b[i].name || g.parentInstance != b[i].parentInstance || strconv.Quote(string(rune(len(g.vals)))) != strconv.Quote(string(rune(len(b[i].vals)))) {
						t.Fatalf("instance %d: %q/%d vs %q/%d", i, g.name, g.parentInstance, b[i].name, b[i].parentInstance)
					}
					for k := range g.vals {
						if g.vals[k] != b[i].vals[k] {
							t.Errorf("instance %d %q counter %d: %d via descriptors, %d via fs.FS", i, g.name, k, g.vals[k], b[i].vals[k])
						}
					}
				}
			}
			if r.Kept() == 0 {
				t.Error("no descriptor kept")
			}
		})
	}
}

// discardWriter is a Writer over a reused Builder, as the engine has.
type discardWriter struct{ b *perfdata.Builder }

func (d discardWriter) Instance(name string, pt, pi uint32, uid int32) perfdata.Values {
	return d.b.Instance(name, pt, pi, uid)
}
func (d discardWriter) Single() perfdata.Values    { return d.b.Single() }
func (d discardWriter) SetObjectTime(int64, int64) {}

// checkSampleAllocs fails t unless a sample of objs into a reused Builder
// allocates nothing once two samples have made the names and buffers.
func checkSampleAllocs(t *testing.T, c *Collector, objs []Object) {
	t.Helper()
	layouts := make([]*perfdata.Layout, len(objs))
	specs := make([][]perfdata.CounterSpec, len(objs))
	for i, o := range objs {
		specs[i] = specsOf(o.Set)
		l, err := perfdata.NewLayout(specs[i])
		if err != nil {
			t.Fatal(err)
		}
		layouts[i] = l
	}
	b := perfdata.NewBuilder(nil)
	sample := func() {
		b.Reset(perfdata.Header{SystemName: "TEST"})
		for i, o := range objs {
			spec := perfdata.ObjectSpec{NameIndex: o.Set.NameIndex, DefaultCounter: -1, Single: !o.Set.Instancing.Multi()}
			if err := b.BeginObject(spec, layouts[i], specs[i]); err != nil {
				t.Fatal(err)
			}
			if err := o.Collect(c, nopCol{}, discardWriter{b}); err != nil {
				t.Fatal(err)
			}
			if err := b.EndObject(); err != nil {
				t.Fatal(err)
			}
		}
		b.Bytes()
	}
	sample()
	sample()
	if n := testing.AllocsPerRun(20, sample); n != 0 {
		t.Errorf("%v allocations per sample, want 0", n)
	}
}

// TestProcscanSteadyStateAllocs checks that a sample of an unchanged tree
// allocates nothing once descriptors, names and buffers exist.
func TestProcscanSteadyStateAllocs(t *testing.T) {
	// A copy of the fixture where everything is readable: unreadable files
	// cost a warning (formatted) per sample, and a vanished pid an open.
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/proc-pids/basic")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root + "/103"); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []string{"1", "104"} {
		if err := os.WriteFile(root+"/"+pid+"/io", []byte("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(root+"/104/status", []byte("Name:\trtprio\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []string{"9", "102", "104"} {
		if err := os.Mkdir(root+"/"+pid+"/fd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := procscan.Open(root, procscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := NewCollector(nil, nil, WithProcReader(r), WithClock(fixtureClock), WithUptime(SinceBoot))
	p := NewProcessObjects(r)
	defer p.Close()
	checkSampleAllocs(t, c, []Object{p.Process(), p.Thread()})
}

// liveProcessObjects opens this machine's /proc and returns the reader, a
// Collector and the process objects over it, closed when the test ends.
func liveProcessObjects(t *testing.T) (*procscan.Reader, *Collector, *ProcessObjects) {
	t.Helper()
	r, err := procscan.Open("/proc", procscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	p := NewProcessObjects(r)
	t.Cleanup(func() { p.Close() })
	return r, NewCollector(nil, nil, WithProcReader(r)), p
}

// liveProcess finds the Process instance of pid.
func liveProcess(insts []recInstance, pid int) (recInstance, bool) {
	for _, in := range insts[1 : len(insts)-1] {
		if in.vals[procIDProcess] == uint64(pid) {
			return in, true
		}
	}
	return recInstance{}, false
}

// statField reads field n (1-based, after the comm) of /proc/PID/stat directly.
func statField(t *testing.T, pid, n int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	v, err := strconv.Atoi(f[n-3])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestProcessLive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	childPid := child.Process.Pid
	defer func() { child.Process.Kill(); child.Wait() }()

	r, c, p := liveProcessObjects(t)
	collect := func(o Object) []recInstance {
		w := newRecWriter(t, o.Set)
		if err := o.Collect(c, &w.p, w); err != nil {
			t.Fatal(err)
		}
		return w.done()
	}
	before, _ := os.ReadDir("/proc")
	threadsBefore := statField(t, os.Getpid(), 20)
	procs := collect(p.Process())
	threads := collect(p.Thread())
	threadsAfter := statField(t, os.Getpid(), 20)
	after, _ := os.ReadDir("/proc")

	// Every pid listed both before and after is an instance.
	inAfter := map[string]bool{}
	for _, d := range after {
		inAfter[d.Name()] = true
	}
	for _, d := range before {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || !inAfter[d.Name()] {
			continue
		}
		if _, ok := liveProcess(procs, pid); !ok {
			t.Errorf("pid %d listed in /proc before and after but not an instance", pid)
		}
	}
	self, ok := liveProcess(procs, os.Getpid())
	if !ok {
		t.Fatal("own process missing")
	}
	if n := int(self.vals[procThreadCount]); n < min(threadsBefore, threadsAfter) || n > max(threadsBefore, threadsAfter) {
		t.Errorf("own Thread Count %d, /proc says %d then %d", n, threadsBefore, threadsAfter)
	}
	if got, want := int(self.vals[procCreatingProcessID]), os.Getppid(); got != want {
		t.Errorf("own Creating Process ID %d, want %d", got, want)
	}
	wantStart := uint64(statField(t, os.Getpid(), 22))*100_000 + liveBootFileTime(t)
	if d := int64(self.vals[procElapsedTime] - wantStart); d < -bootTolerance || d > bootTolerance {
		t.Errorf("own Elapsed Time raw %d, want %d (now less /proc/uptime, plus starttime) within %d", self.vals[procElapsedTime], wantStart, bootTolerance)
	}
	// Own threads in the Thread object: same parent position, each with
	// a tid listed in /proc/self/task.
	selfPos := -1
	for i, in := range procs {
		if in.vals[procIDProcess] == uint64(os.Getpid()) {
			selfPos = i
		}
	}
	tids := map[uint64]bool{}
	for _, in := range threads {
		if int(in.parentInstance) == selfPos {
			tids[in.vals[thrIDThread]] = true
			if in.vals[thrIDProcess] != uint64(os.Getpid()) {
				t.Errorf("thread %s of own process has ID Process %d", in.name, in.vals[thrIDProcess])
			}
		}
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	if len(tids) < min(len(tasks), threadsBefore) || len(tids) > max(len(tasks), threadsAfter) {
		t.Errorf("%d own threads in Thread, /proc/self/task has %d", len(tids), len(tasks))
	}
	if !tids[uint64(os.Getpid())] {
		t.Error("main thread missing from Thread")
	}

	// The child is there; after it exits it is skipped and its
	// descriptors are closed.
	ch, ok := liveProcess(procs, childPid)
	if !ok || ch.name != "sleep" {
		t.Fatalf("child %d: %q %v", childPid, ch.name, ok)
	}
	keptWith := r.Kept()
	child.Process.Kill()
	child.Wait()
	procs = collect(p.Process())
	collect(p.Thread())
	if _, ok := liveProcess(procs, childPid); ok {
		t.Error("exited child still an instance")
	}
	for _, e := range p.scan.Processes() {
		if e.PID == int32(childPid) {
			t.Error("exited child still scanned")
		}
	}
	// The descriptor bookkeeping (the child's closed, the count right) is
	// procscan's TestKeptAccounting: here other processes of the host
	// come and go.
	t.Logf("kept descriptors: %d with the child, %d after", keptWith, r.Kept())
}

// TestProcscanOutOfDescriptors lowers RLIMIT_NOFILE so that the kept
// descriptors of the fixture's processes fit and its threads' do not: a
// sample that loses threads to EMFILE must say so, and the next sample,
// after the reader shed its thread descriptors, must be complete.
func TestProcscanOutOfDescriptors(t *testing.T) {
	root := "testdata/proc-pids/basic"
	want := func() int {
		c := NewCollector(os.DirFS(root), nil, WithClock(fixtureClock))
		p := NewProcessObjects(procscan.FS(c.Proc))
		w := newRecWriter(t, p.Thread().Set)
		if err := p.Thread().Collect(c, &w.p, w); err != nil {
			t.Fatal(err)
		}
		return len(w.done())
	}()
	r, err := procscan.Open(root, procscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := NewCollector(nil, nil, WithProcReader(r), WithClock(fixtureClock))
	p := NewProcessObjects(r)
	defer p.Close()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// About 30 process-level files (stat, status, io, fd, task of 6
	// processes) fit; the 20 thread files do not all fit.
	low := syscall.Rlimit{Cur: uint64(len(fds) + 40), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip("cannot lower RLIMIT_NOFILE:", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	for sample := 1; sample <= 3; sample++ {
		for _, o := range []Object{p.Process(), p.Thread()} {
			w := newRecWriter(t, o.Set)
			if err := o.Collect(c, &w.p, w); err != nil {
				t.Fatal(err)
			}
			got := w.done()
			if o.Set.Name != "Thread" {
				continue
			}
			leftOut := slices.ContainsFunc(w.p.reasons, func(r string) bool { return strings.Contains(r, "threads left out") })
			switch {
			case len(got) < want && !leftOut:
				t.Errorf("sample %d: %d Thread instances of %d, and no reason says why (%q)", sample, len(got), want, w.p.reasons)
			case sample > 1 && len(got) != want:
				t.Errorf("sample %d: %d Thread instances, want %d after shedding descriptors (%q)", sample, len(got), want, w.p.reasons)
			}
		}
	}
}
