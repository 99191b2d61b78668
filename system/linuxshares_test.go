package system

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// vmCollector reads testdata/vm: a 2-CPU virtual machine whose /proc/stat
// shares are all non-zero (testdata/vm/README).
func vmCollector() *Collector {
	return NewCollector(os.DirFS("testdata/vm/proc"), os.DirFS("testdata/host/sys"),
		WithClock(func() time.Time { return time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC) }),
		WithUptime(func() time.Duration { return 3429430 * time.Millisecond }))
}

// TestProcessorLinuxShares checks every Processor counter against the
// fields of testdata/vm/proc/stat, for Processor and Processor
// Information: the Windows counters keep their folding (user+nice,
// system+irq+softirq, idle+iowait) and the Linux ones show one field each.
func TestProcessorLinuxShares(t *testing.T) {
	const tick = 100000 // 100 ns units per USER_HZ tick
	// user nice system idle iowait irq softirq steal guest guest_nice
	cpu0 := cpuTimes{1000, 100, 500, 25000, 300, 20, 30, 50, 100, 0, false}
	all := cpuTimes{2000, 300, 1000, 50000, 400, 60, 70, 80, 150, 30, false}
	type want struct {
		counter string
		cpu0    uint64 // instance of CPU 0
		total   uint64 // _Total: the average of the two CPUs
	}
	f := func(n string, g func(t cpuTimes) uint64) want { return want{n, g(cpu0) * tick, g(all) * tick / 2} }
	tests := []want{
		f("% Processor Time", func(t cpuTimes) uint64 { return t.Idle + t.IOWait }),
		f("% Idle Time", func(t cpuTimes) uint64 { return t.Idle + t.IOWait }),
		f("% User Time", func(t cpuTimes) uint64 { return t.User + t.Nice }),
		f("% Privileged Time", func(t cpuTimes) uint64 { return t.System + t.IRQ + t.SoftIRQ }),
		f("% Interrupt Time", func(t cpuTimes) uint64 { return t.IRQ }),
		f("% DPC Time", func(t cpuTimes) uint64 { return t.SoftIRQ }),
		f("% Nice Time", func(t cpuTimes) uint64 { return t.Nice }),
		f("% IO Wait Time", func(t cpuTimes) uint64 { return t.IOWait }),
		f("% Steal Time", func(t cpuTimes) uint64 { return t.Steal }),
		f("% Guest Time", func(t cpuTimes) uint64 { return t.Guest + t.GuestNice }),
		f("% Soft Interrupt Time", func(t cpuTimes) uint64 { return t.SoftIRQ }),
	}
	for _, obj := range []struct{ name, cpu0 string }{{"Processor", "0"}, {"Processor Information", "0,0"}} {
		c := vmCollector()
		s := collectObject(t, c, objectByName(t, c, obj.name))
		for _, reason := range s.reasons {
			if strings.Contains(reason, "/proc/stat") {
				t.Errorf("%s: %s", obj.name, reason)
			}
		}
		for _, tt := range tests {
			t.Run(obj.name+"/"+tt.counter, func(t *testing.T) {
				if got := s.get(t, obj.cpu0, tt.counter); got != tt.cpu0 {
					t.Errorf("CPU 0: %d, want %d", got, tt.cpu0)
				}
				if got := s.get(t, "_Total", tt.counter); got != tt.total {
					t.Errorf("_Total: %d, want %d", got, tt.total)
				}
			})
		}
		// The shares a Linux user adds up to 100 %: user, nice, system,
		// idle, iowait, irq, softirq and steal (guest is inside user and
		// nice) are all the ticks, and so are Windows' user, privileged and
		// idle time with steal.
		for _, inst := range []string{obj.cpu0, "_Total"} {
			linux, windows := uint64(0), uint64(0)
			for _, n := range []string{"% User Time", "% Privileged Time", "% Idle Time", "% Steal Time"} {
				windows += s.get(t, inst, n)
			}
			for _, n := range []string{"% Nice Time", "% IO Wait Time", "% Interrupt Time", "% Soft Interrupt Time", "% Steal Time"} {
				linux += s.get(t, inst, n)
			}
			tm := cpu0
			div := uint64(1)
			if inst == "_Total" {
				tm, div = all, 2
			}
			// user and system are no counters of their own: add them.
			linux += (tm.User*tick + tm.System*tick + tm.Idle*tick) / div
			sum := (tm.User + tm.Nice + tm.System + tm.Idle + tm.IOWait + tm.IRQ + tm.SoftIRQ + tm.Steal) * tick / div
			if windows != sum || linux != sum {
				t.Errorf("%s %s: Windows' shares sum to %d, Linux's to %d, want the %d of all ticks", obj.name, inst, windows, linux, sum)
			}
		}
	}
}

// TestLiveProcessorLinuxShares brackets each Linux share of cpu0 and of
// _Total between two direct readings of /proc/stat (split with
// bytes.Fields): the times only grow, so before <= collected <= after,
// except iowait, which the kernel may move back a little (its NO_HZ
// accounting of idle CPUs estimates it), allowed 2 ticks.
func TestLiveProcessorLinuxShares(t *testing.T) {
	c := liveCollector(t)
	// /proc/stat field positions after the name: user 1, nice 2, system 3,
	// idle 4, iowait 5, irq 6, softirq 7, steal 8, guest 9, guest_nice 10.
	tests := []struct {
		counter string
		fields  []int
		slack   uint64 // ticks
	}{
		{"% Nice Time", []int{2}, 0},
		{"% IO Wait Time", []int{5}, 2},
		{"% Steal Time", []int{8}, 0},
		{"% Guest Time", []int{9, 10}, 0},
		{"% Soft Interrupt Time", []int{7}, 0},
		{"% User Time", []int{1, 2}, 0},
		{"% Privileged Time", []int{3, 6, 7}, 0},
	}
	read := func(line string) [11]uint64 {
		var v [11]uint64
		f := procLine(t, "stat", line)
		for i := 1; i < len(f) && i < len(v); i++ {
			v[i] = num(t, f[i])
		}
		return v
	}
	ncpu := uint64(0)
	for _, l := range strings.Split(string(must(os.ReadFile("/proc/stat"))), "\n") {
		if strings.HasPrefix(l, "cpu") && !strings.HasPrefix(l, "cpu ") {
			ncpu++
		}
	}
	b0, bt := read("cpu0"), read("cpu")
	s := collectObject(t, c, objectByName(t, c, "Processor"))
	a0, at := read("cpu0"), read("cpu")
	if n := uint64(len(c.cpu.stat.IDs)); n != ncpu {
		t.Skipf("CPUs went on or off line: %d, then %d", ncpu, n)
	}
	sum := func(v [11]uint64, fs []int) uint64 {
		var s uint64
		for _, i := range fs {
			s += v[i]
		}
		return s
	}
	for _, tt := range tests {
		t.Run(tt.counter, func(t *testing.T) {
			for _, r := range []struct {
				inst          string
				before, after [11]uint64
				div           uint64
			}{{"0", b0, a0, 1}, {"_Total", bt, at, ncpu}} {
				lo := sum(r.before, tt.fields) * 100000 / r.div
				hi := sum(r.after, tt.fields) * 100000 / r.div
				slack := tt.slack * 100000
				if got := s.get(t, r.inst, tt.counter); got+slack < lo || got > hi+slack {
					t.Errorf("%s: %d not within [%d, %d] (/proc/stat read before and after, %d CPUs)", r.inst, got, lo, hi, r.div)
				}
			}
		})
	}
}

// loadAverages are the load average counters of System, in
// /proc/loadavg's order.
var loadAverages = [...]string{"Load Average (1 minute)", "Load Average (5 minutes)", "Load Average (15 minutes)"}

// formatFraction is what a consumer shows of a PERF_RAW_FRACTION: 100 ×
// value / base, to two decimals.
func formatFraction(t *testing.T, s *sample, counter string) string {
	t.Helper()
	i := s.object.Set.CounterByName(counter)
	v, base := s.at(t, "", i), s.at(t, "", i+1)
	if base == 0 {
		t.Fatalf("%s: base 0", counter)
	}
	return fmt.Sprintf("%.2f", 100*float64(v)/float64(base))
}

// TestSystemLinuxCounters checks System's Linux counters on the host and
// vm fixtures: the load averages show /proc/loadavg's numbers, the task
// counts and forks /proc/stat's.
func TestSystemLinuxCounters(t *testing.T) {
	tests := []struct {
		fixture string
		c       *Collector
		load    [3]string
		running uint64
		blocked uint64
		forks   uint64
	}{
		{"host", hostCollector(), [3]string{"0.81", "0.48", "0.19"}, 1, 0, 6744},
		{"vm", vmCollector(), [3]string{"12.34", "5.67", "0.05"}, 5, 2, 6744},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			s := collectObject(t, tt.c, objectByName(t, tt.c, "System"))
			if len(s.missing) != 0 || len(s.reasons) != 0 {
				t.Errorf("unavailable %v, reasons %q", s.missing, s.reasons)
			}
			for k, n := range loadAverages {
				if got := formatFraction(t, s, n); got != tt.load[k] {
					t.Errorf("%s shows %s, /proc/loadavg %s", n, got, tt.load[k])
				}
			}
			for _, c := range []struct {
				name string
				want uint64
			}{{"Running Tasks", tt.running}, {"Blocked Tasks", tt.blocked}, {"Forks/sec", tt.forks}} {
				if got := s.get(t, "", c.name); got != c.want {
					t.Errorf("%s = %d, want %d", c.name, got, c.want)
				}
			}
		})
	}
}

// TestSystemLinuxCountersMissing: a /proc/loadavg or /proc/stat line that
// is missing or malformed makes its counters unavailable, never 0.
func TestSystemLinuxCountersMissing(t *testing.T) {
	o := func(i ...int) []int { return i }
	tests := []struct {
		name, file, data string
		marks            []int // of the single instance
	}{
		{"no loadavg", "", "", o(sysLoad1, sysLoad1Base, sysLoad5, sysLoad5Base, sysLoad15, sysLoad15Base)},
		{"bad 5 minute load", "loadavg", "0.81 x 0.19 1/92 6748\n", o(sysLoad5, sysLoad5Base)},
		{"no procs_blocked or processes", "stat", "cpu  1 0 1 8 0 0 0 0\ncpu0 1 0 1 8 0 0 0 0\nctxt 1\nprocs_running 1\n", o(sysBlockedTasks, sysForks)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fstest.MapFS{
				"stat":    {Data: must(os.ReadFile("testdata/vm/proc/stat"))},
				"uptime":  {Data: []byte("100.00 50.00\n")},
				"loadavg": {Data: must(os.ReadFile("testdata/vm/proc/loadavg"))},
			}
			if tt.file == "" {
				delete(m, "loadavg")
			} else {
				m[tt.file] = &fstest.MapFile{Data: []byte(tt.data)}
			}
			c := NewCollector(m, fstest.MapFS{})
			s := collectObject(t, c, objectByName(t, c, "System"))
			var got []int
			for _, m := range s.missing {
				got = append(got, m.counters...)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.marks) {
				t.Errorf("unavailable %v, want %v (reasons %q)", s.missing, tt.marks, s.reasons)
			}
		})
	}
}

// TestLiveSystemLinuxCounters compares the load averages with
// /proc/loadavg read right before and right after the collection (the
// kernel updates them every 5 seconds: the value shown is one of the
// two, to two decimals), and brackets Forks/sec between two readings of
// processes in /proc/stat.
func TestLiveSystemLinuxCounters(t *testing.T) {
	c := liveCollector(t)
	loads := func() [3]string {
		f := bytes.Fields(must(os.ReadFile("/proc/loadavg")))
		if len(f) < 3 {
			t.Fatalf("/proc/loadavg: %q", f)
		}
		return [3]string{string(f[0]), string(f[1]), string(f[2])}
	}
	forks := func() uint64 { return num(t, procLine(t, "stat", "processes")[1]) }
	l0, f0 := loads(), forks()
	s := collectObject(t, c, objectByName(t, c, "System"))
	l1, f1 := loads(), forks()
	for k, n := range loadAverages {
		if got := formatFraction(t, s, n); got != l0[k] && got != l1[k] {
			t.Errorf("%s shows %s, /proc/loadavg says %s then %s", n, got, l0[k], l1[k])
		}
	}
	// Forks/sec is a DWORD: compare modulo 2^32.
	if got := s.get(t, "", "Forks/sec"); uint32(got-f0) > uint32(f1-f0) {
		t.Errorf("Forks/sec %d not within [%d, %d]", got, f0, f1)
	}
	if got := s.get(t, "", "Running Tasks"); got < 1 {
		t.Errorf("Running Tasks %d: the collecting thread itself runs", got)
	}
}

// memoryLinux are Memory's Linux counters with their /proc/meminfo
// field and the factor from its unit (kB, or a count of pages).
var memoryLinux = []struct {
	counter, field string
	factor         uint64
}{
	{"Buffer Bytes", "Buffers", 1024},
	{"Cached Bytes", "Cached", 1024},
	{"Active Bytes", "Active", 1024},
	{"Inactive Bytes", "Inactive", 1024},
	{"Dirty Bytes", "Dirty", 1024},
	{"Writeback Bytes", "Writeback", 1024},
	{"Slab Reclaimable Bytes", "SReclaimable", 1024},
	{"Slab Unreclaimable Bytes", "SUnreclaim", 1024},
	{"Shared Memory Bytes", "Shmem", 1024},
	{"Huge Pages Total", "HugePages_Total", 1},
	{"Huge Pages Free", "HugePages_Free", 1},
	{"Huge Pages Reserved", "HugePages_Rsvd", 1},
	{"Huge Page Size Bytes", "Hugepagesize", 1024},
}

// TestMemoryLinuxCounters checks Memory's Linux counters against the
// fixtures' /proc/meminfo, by hand, and that Windows' counters built from
// the same lines keep their values.
func TestMemoryLinuxCounters(t *testing.T) {
	tests := []struct {
		fixture string
		c       *Collector
		want    map[string]uint64
	}{
		{"host", hostCollector(), map[string]uint64{
			"Buffer Bytes": 2556 * 1024, "Cached Bytes": 72632 * 1024, "Active Bytes": 32280 * 1024, "Inactive Bytes": 44864 * 1024,
			"Dirty Bytes": 324 * 1024, "Writeback Bytes": 0, "Slab Reclaimable Bytes": 20396 * 1024, "Slab Unreclaimable Bytes": 20856 * 1024,
			"Shared Memory Bytes": 8884 * 1024, "Huge Pages Total": 0, "Huge Pages Free": 0, "Huge Pages Reserved": 0, "Huge Page Size Bytes": 2048 * 1024,
			"Cache Bytes": (72632 + 2556) * 1024, "Modified Page List Bytes": 324 * 1024,
		}},
		{"vm", vmCollector(), map[string]uint64{
			"Buffer Bytes": 12556 * 1024, "Writeback Bytes": 16 * 1024, "Huge Pages Total": 512, "Huge Pages Free": 500, "Huge Pages Reserved": 7,
			"Huge Page Size Bytes": 2 << 20, "Cache Bytes": (72632 + 12556) * 1024, "Modified Page List Bytes": (324 + 16) * 1024,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			s := collectObject(t, tt.c, objectByName(t, tt.c, "Memory"))
			for _, r := range s.reasons {
				if strings.Contains(r, "meminfo") {
					t.Errorf("reason %q", r)
				}
			}
			for name, want := range tt.want {
				if got := s.get(t, "", name); got != want {
					t.Errorf("%s = %d, want %d", name, got, want)
				}
			}
		})
	}
}

// TestMemoryLinuxCountersMissing: without hugetlbfs /proc/meminfo has no
// HugePages lines; their counters are unavailable, without a reason (a
// configuration, not a fault). A missing Shmem line is a fault: reason and
// unavailable.
func TestMemoryLinuxCountersMissing(t *testing.T) {
	mi := string(must(os.ReadFile("testdata/host/proc/meminfo")))
	var kept []string
	for line := range strings.Lines(mi) {
		if !strings.HasPrefix(line, "HugePages_") && !strings.HasPrefix(line, "Hugepagesize:") && !strings.HasPrefix(line, "Shmem:") {
			kept = append(kept, line)
		}
	}
	proc := overlay{m: fstest.MapFS{"meminfo": {Data: []byte(strings.Join(kept, ""))}}, base: os.DirFS("testdata/host/proc")}
	c := NewCollector(proc, os.DirFS("testdata/host/sys"))
	s := collectObject(t, c, objectByName(t, c, "Memory"))
	var got []int
	for _, m := range s.missing {
		got = append(got, m.counters...)
	}
	want := []int{memSharedBytes, memHugePagesTotal, memHugePagesFree, memHugePagesReserved, memHugePageSize}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("unavailable %v, want %v", got, want)
	}
	if fmt.Sprint(s.reasons) != `[/proc/meminfo: no Shmem line]` {
		t.Errorf("reasons %q, want only the Shmem line's", s.reasons)
	}
}

// TestLiveMemoryLinuxCounters compares each Linux Memory counter with its
// /proc/meminfo line read right before and right after the collection.
// Memory moves: a value may lie up to 64 MiB outside the two readings
// (other programs on a shared machine allocate and free between them; a
// unit error, KiB for bytes, is 1024 times off). Lines the kernel does not
// write (no hugetlbfs) must be unavailable.
func TestLiveMemoryLinuxCounters(t *testing.T) {
	c := liveCollector(t)
	read := func() map[string]uint64 {
		m := map[string]uint64{}
		for _, line := range bytes.Split(must(os.ReadFile("/proc/meminfo")), []byte("\n")) {
			if f := bytes.Fields(line); len(f) >= 2 {
				m[strings.TrimSuffix(string(f[0]), ":")] = num(t, f[1])
			}
		}
		return m
	}
	a := read()
	s := collectObject(t, c, objectByName(t, c, "Memory"))
	b := read()
	missing := map[int]bool{}
	for _, m := range s.missing {
		for _, i := range m.counters {
			missing[i] = true
		}
	}
	for _, tt := range memoryLinux {
		t.Run(tt.counter, func(t *testing.T) {
			i := s.object.Set.CounterByName(tt.counter)
			va, ok := a[tt.field]
			if !ok {
				if !missing[i] {
					t.Errorf("no %s line in /proc/meminfo, yet the counter is available", tt.field)
				}
				return
			}
			if missing[i] {
				t.Fatalf("unavailable, /proc/meminfo has %s", tt.field)
			}
			lo, hi := min(va, b[tt.field])*tt.factor, max(va, b[tt.field])*tt.factor
			slack := uint64(64 << 20)
			if tt.factor == 1 {
				slack = 0 // huge page counts change only when an administrator resizes the pool
			}
			if got := s.at(t, "", i); got+slack < lo || got > hi+slack {
				t.Errorf("%d, /proc/meminfo %s says %d then %d (×%d)", got, tt.field, va, b[tt.field], tt.factor)
			}
		})
	}
}
