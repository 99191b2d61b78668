package system

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"testing/fstest"
	"time"
)

// fixtureCollector reads one of the trees under testdata/cgroup or
// testdata/hw, with a since-boot clock fixed at 1000 s (so the 100 ns
// timestamp of the percentage bases is 10^10).
func fixtureCollector(dir string) *Collector {
	return NewCollector(os.DirFS(dir+"/proc"), os.DirFS(dir+"/sys"),
		WithUptime(func() time.Duration { return 1000 * time.Second }),
		WithClock(func() time.Time { return time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC) }))
}

const fixtureTS = 10_000_000_000 // 1000 s in 100 ns

// unavailable reports whether counter i of the instance at position inst
// was marked unavailable.
func (s *sample) unavailable(inst string, i int) bool {
	pos := slices.Index(s.names, inst)
	for _, m := range s.missing {
		if m.inst == pos && (len(m.counters) == 0 || slices.Contains(m.counters, i)) {
			return true
		}
	}
	return false
}

// TestCgroupFixtures checks the Control Group object on the v2, v1 and
// hybrid trees; every expected value is worked out by hand from the files
// named beside it (testdata/cgroup/PROVENANCE.md says where they come
// from). Online CPUs are 0-1 in all three, so host bases are 2 x 10^10.
func TestCgroupFixtures(t *testing.T) {
	const docker = "3f2c1b0a9e8d"
	type val struct {
		counter int
		want    uint64
	}
	tests := []struct {
		tree  string
		names []string
		inst  string
		vals  []val
		none  []int // counters unavailable for inst
	}{
		{
			tree:  "v2",
			names: []string{"/", "/system.slice", "/system.slice/docker-" + docker + ".scope"},
			inst:  "/system.slice/docker-" + docker + ".scope",
			vals: []val{
				{cgProcessorTime, 8992210 * 10}, // cpu.stat usage_usec
				{cgProcessorTimeBase, 2 * fixtureTS},
				{cgUserTime, 6139150 * 10},
				{cgKernelTime, 2853059 * 10},
				{cgThrottledPeriods, 0}, {cgThrottledPeriodsBase, 0}, {cgThrottledTime, 0},
				{cgMemory, 139350016},                 // memory.current
				{cgWorkingSet, 139350016 - 51507200},  // less inactive_file
				{cgSwap, 0},                           // memory.swap.current
				{cgPageFaults, 132306},                // pgfault
				{cgMajorFaults, 524},                  // pgmajfault
				{cgOOMKills, 0},                       // memory.events oom_kill
				{cgReadBytes, 1459200 + 90430464},     // io.stat rbytes of 8:16 and 8:0
				{cgWriteBytes, 314773504 + 299008000}, // wbytes
				{cgReadOps, 192 + 8950},               // rios
				{cgWriteOps, 353 + 1252},              // wios
				{cgProcesses, 1}, {cgThreads, 1},      // cgroup.procs, cgroup.threads
				{cgCPUSome, 640230 * 10}, // cpu.pressure some total
				{cgCPUFull, 640215 * 10}, // full total
				{cgMemorySome, 0}, {cgIOFull, 0},
			},
			none: []int{cgQuotaTime, cgMemoryLimit}, // cpu.max and memory.max are "max"
		},
		{
			tree:  "v1",
			names: []string{"/", "/docker", "/docker/" + docker, "/perfc-capture", "/perfc-capture/worker"},
			inst:  "/docker/" + docker,
			vals: []val{
				{cgProcessorTime, 7265342042 / 100}, // cpuacct.usage, ns
				{cgProcessorTimeBase, 2 * fixtureTS},
				{cgUserTime, 616 * 100_000},  // cpuacct.stat user, USER_HZ ticks
				{cgKernelTime, 98 * 100_000}, // system
				{cgThrottledPeriods, 0}, {cgThrottledPeriodsBase, 0}, {cgThrottledTime, 0},
				{cgMemory, 103391232},                        // memory.usage_in_bytes
				{cgWorkingSet, 103391232 - 101662720},        // less total_inactive_file
				{cgSwap, 103460864 - 103391232},              // memsw.usage less usage
				{cgPageFaults, 170611}, {cgMajorFaults, 961}, // total_pgfault, total_pgmajfault
			},
			// cfs_quota_us -1; limit_in_bytes 9223372036854771712; no
			// oom_kill line; no blkio files for this group; no pressure in v1.
			none: []int{cgQuotaTime, cgMemoryLimit, cgOOMKills, cgReadBytes, cgCPUSome, cgMemoryFull},
		},
		{
			tree:  "v1",
			names: []string{"/", "/docker", "/docker/" + docker, "/perfc-capture", "/perfc-capture/worker"},
			inst:  "/perfc-capture/worker",
			vals: []val{
				{cgProcessorTime, 701258150 / 100},
				{cgQuotaTime, 701258150 / 100},
				{cgQuotaTimeBase, fixtureTS * 50000 / 100000}, // cfs_quota_us / cfs_period_us
				{cgUserTime, 65 * 100_000}, {cgKernelTime, 4 * 100_000},
				{cgThrottledPeriods, 11}, {cgThrottledPeriodsBase, 17}, // nr_throttled, nr_periods
				{cgThrottledTime, 180613354 / 100},             // throttled_time, ns
				{cgMemory, 30486528}, {cgWorkingSet, 30486528}, // total_inactive_file 0
				{cgMemoryLimit, 268435456}, {cgSwap, 0},
				{cgPageFaults, 360}, {cgMajorFaults, 0},
				{cgReadBytes, 0}, {cgWriteOps, 0}, // blkio.throttle.*_recursive
				{cgProcesses, 1}, {cgThreads, 1}, // cgroup.procs, tasks of the cpu hierarchy
			},
			none: []int{cgCPUSome, cgIOFull},
		},
		{
			tree:  "hybrid",
			names: []string{"/", "/perfc-capture", "/perfc-capture/worker"},
			inst:  "/perfc-capture/worker",
			vals: []val{
				{cgProcessorTime, 701258150 / 100}, // v1 cpuacct, not v2 cpu.stat
				{cgThrottledPeriods, 11},
				{cgMemory, 30486528},
				{cgCPUSome, 640230 * 10}, {cgCPUFull, 640215 * 10}, // v2 pressure
				{cgMemorySome, 0},
				{cgProcesses, 1}, // v2 cgroup.procs
			},
		},
		{
			tree:  "hybrid",
			names: []string{"/", "/perfc-capture", "/perfc-capture/worker"},
			inst:  "/",
			vals: []val{
				{cgProcessorTime, 31738192274650 / 100}, // cpuacct.usage of the v1 root
			},
			none: []int{cgQuotaTime},
		},
	}
	for _, tt := range tests {
		t.Run(tt.tree+tt.inst, func(t *testing.T) {
			c := fixtureCollector("testdata/cgroup/" + tt.tree)
			s := collectObject(t, c, c.cgroupObject())
			if !slices.Equal(s.names, tt.names) {
				t.Fatalf("instances %q, want %q", s.names, tt.names)
			}
			for _, v := range tt.vals {
				if s.unavailable(tt.inst, v.counter) {
					t.Errorf("%s: unavailable", cgroupCounters()[v.counter].Name)
					continue
				}
				if got := s.at(t, tt.inst, v.counter); got != v.want {
					t.Errorf("%s (%d): got %d, want %d", cgroupCounters()[v.counter].Name, v.counter, got, v.want)
				}
			}
			for _, i := range tt.none {
				if !s.unavailable(tt.inst, i) {
					t.Errorf("%s: not marked unavailable (value %d)", cgroupCounters()[i].Name, s.at(t, tt.inst, i))
				}
			}
		})
	}
}

// TestCgroupNoHierarchy: a host without control groups has no instances
// and reports nothing missing.
func TestCgroupNoHierarchy(t *testing.T) {
	proc := fstest.MapFS{"self/mounts": {Data: []byte("proc /proc proc rw,relatime 0 0\nsysfs /sys sysfs rw,relatime 0 0\n")}}
	sys := fstest.MapFS{"devices/system/cpu/online": {Data: []byte("0-3\n")}}
	c := NewCollector(proc, sys, WithUptime(func() time.Duration { return time.Second }))
	s := collectObject(t, c, c.cgroupObject())
	if len(s.names) != 0 || len(s.reasons) != 0 {
		t.Fatalf("instances %q, reasons %q", s.names, s.reasons)
	}
	p := collectObject(t, c, c.pressureObject())
	if len(p.names) != 0 || len(p.reasons) != 0 {
		t.Fatalf("pressure: instances %q, reasons %q", p.names, p.reasons)
	}
}

// TestPressureFixture checks the Pressure object against
// testdata/cgroup/hybrid/proc/pressure, values by hand.
func TestPressureFixture(t *testing.T) {
	c := fixtureCollector("testdata/cgroup/hybrid")
	s := collectObject(t, c, c.pressureObject())
	if !slices.Equal(s.names, []string{"cpu", "memory", "io"}) {
		t.Fatalf("instances %q", s.names)
	}
	tests := []struct {
		inst    string
		counter int
		want    uint64
	}{
		// cpu: some avg10=41.04 avg60=25.05 avg300=21.94 total=7702294825
		{"cpu", psSome10, 4104}, {"cpu", psSome10Base, 10000},
		{"cpu", psSome60, 2505}, {"cpu", psSome300, 2194},
		{"cpu", psSomeTime, 7702294825 * 10},
		{"cpu", psFull10, 0}, {"cpu", psFullTime, 0},
		// io: full avg10=0.00 avg60=0.93 avg300=3.79 total=284250574; some avg300=4.51
		{"io", psFull60, 93}, {"io", psFull300, 379}, {"io", psFull300Base, 10000},
		{"io", psFullTime, 284250574 * 10}, {"memory", psSomeTime, 0},
		{"io", psSome300, 451},
	}
	for _, tt := range tests {
		if got := s.at(t, tt.inst, tt.counter); got != tt.want {
			t.Errorf("%s %s: got %d, want %d", tt.inst, c.pressureObject().Set.Counters[tt.counter].Name, got, tt.want)
		}
	}
}

// TestPressureFromRootGroup: without /proc/pressure the root group's
// files of the v2 hierarchy are read.
func TestPressureFromRootGroup(t *testing.T) {
	proc := fstest.MapFS{"self/mounts": {Data: []byte("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")}}
	sys := fstest.MapFS{
		"fs/cgroup/cpu.pressure":    {Data: []byte("some avg10=1.50 avg60=0.25 avg300=0.05 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")},
		"fs/cgroup/memory.pressure": {Data: []byte("some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n")},
	}
	c := NewCollector(proc, sys)
	s := collectObject(t, c, c.pressureObject())
	if !slices.Equal(s.names, []string{"cpu", "memory"}) {
		t.Fatalf("instances %q (reasons %q)", s.names, s.reasons)
	}
	if got := s.at(t, "cpu", psSome10); got != 150 {
		t.Errorf("cpu avg10 %d", got)
	}
	if got := s.at(t, "cpu", psSomeTime); got != 1234560 {
		t.Errorf("cpu total %d", got)
	}
	if !s.unavailable("memory", psFullTime) || s.unavailable("memory", psSomeTime) {
		t.Errorf("memory: full should be unavailable, some not: %v", s.missing)
	}
}

// TestCgroupShareAtMost100 checks that a group's processor times never grow
// faster than the host's capacity between two samples, and that what is
// held back is written later: the fixture's docker group on a host of two
// online processors, whose cpu.stat runs ahead of the clock in the second
// sample (2.5 s of usage in 1 s) and catches up in the third (1.5 s).
func TestCgroupShareAtMost100(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/cgroup/v2")); err != nil {
		t.Fatal(err)
	}
	const group = "/system.slice/docker-3f2c1b0a9e8d.scope"
	stat := dir + "/sys/fs/cgroup/system.slice/docker-3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b.scope/cpu.stat"
	up := 1000 * time.Second
	c := NewCollector(os.DirFS(dir+"/proc"), os.DirFS(dir+"/sys"),
		WithUptime(func() time.Duration { return up }),
		WithClock(func() time.Time { return time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC) }))
	const u0, user0, sys0 = 8992210, 6139150, 2853059 // µs, the fixture's
	tests := []struct {
		up                   time.Duration
		usage, user, sys     uint64 // cpu.stat, µs
		wantUsage, wantUser  uint64 // written, 100 ns
		wantSys, wantBaseSec uint64
	}{
		{1000 * time.Second, u0, user0, sys0, u0 * 10, user0 * 10, sys0 * 10, 2 * 1000},
		// 2.5 s of usage (2 s user, 0.5 s system) in 1 s of two processors:
		// usage is held to 2 s; user to 2 s exactly; system under it.
		{1001 * time.Second, u0 + 2_500_000, user0 + 2_000_000, sys0 + 500_000,
			(u0 + 2_000_000) * 10, (user0 + 2_000_000) * 10, (sys0 + 500_000) * 10, 2 * 1001},
		// 1.5 s more in the next second: 4 s in 2 s, all of it written.
		{1002 * time.Second, u0 + 4_000_000, user0 + 3_000_000, sys0 + 1_000_000,
			(u0 + 4_000_000) * 10, (user0 + 3_000_000) * 10, (sys0 + 1_000_000) * 10, 2 * 1002},
		// The group's counters reset (recreated with the same inode): taken as read.
		{1003 * time.Second, 1000, 600, 400, 1000 * 10, 600 * 10, 400 * 10, 2 * 1003},
	}
	for i, tt := range tests {
		up = tt.up
		body := fmt.Sprintf("usage_usec %d\nuser_usec %d\nsystem_usec %d\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n", tt.usage, tt.user, tt.sys)
		if err := os.WriteFile(stat, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s := collectObjectSeq(t, c, c.cgroupObject(), uint64(i+1))
		for _, v := range []struct {
			counter int
			want    uint64
		}{
			{cgProcessorTime, tt.wantUsage}, {cgUserTime, tt.wantUser}, {cgKernelTime, tt.wantSys},
			{cgProcessorTimeBase, tt.wantBaseSec * 10_000_000},
		} {
			if got := s.at(t, group, v.counter); got != v.want {
				t.Errorf("sample %d: %s = %d, want %d", i+1, cgroupCounters()[v.counter].Name, got, v.want)
			}
		}
	}
}
