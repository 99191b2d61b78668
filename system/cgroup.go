package system

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/proctext"
)

// Control Group counter indexes (positions in the set).
const (
	cgProcessorTime = iota
	cgProcessorTimeBase
	cgUserTime
	cgUserTimeBase
	cgKernelTime
	cgKernelTimeBase
	cgQuotaTime
	cgQuotaTimeBase
	cgThrottledPeriods
	cgThrottledPeriodsBase
	cgThrottledTime
	cgMemory
	cgWorkingSet
	cgMemoryLimit
	cgSwap
	cgPageFaults
	cgMajorFaults
	cgOOMKills
	cgReadBytes
	cgWriteBytes
	cgReadOps
	cgWriteOps
	cgProcesses
	cgThreads
	cgCPUSome
	cgCPUFull
	cgMemorySome
	cgMemoryFull
	cgIOSome
	cgIOFull
	cgNumCounters
)

// The control-group files read, by position in cgKept.missing and in the
// failure counts. v1 files are read from the hierarchy of their
// controller.
const (
	cfCPUStat = iota // v2 cpu.stat
	cfCPUMax
	cfMemCurrent
	cfMemMax
	cfMemSwap
	cfMemStat
	cfMemEvents
	cfIOStat
	cfProcs
	cfThreads
	cfCPUPressure
	cfMemPressure
	cfIOPressure
	cfV1CPUAcctUsage
	cfV1CPUAcctStat
	cfV1CPUStat
	cfV1Quota
	cfV1Period
	cfV1MemUsage
	cfV1MemLimit
	cfV1MemSwUsage
	cfV1MemStat
	cfV1OOMControl
	cfV1IOBytes
	cfV1IOOps
	cfV1Procs
	cfV1Tasks
	cfNum
)

var cgFileNames = [cfNum]string{
	"cpu.stat", "cpu.max", "memory.current", "memory.max", "memory.swap.current", "memory.stat",
	"memory.events", "io.stat", "cgroup.procs", "cgroup.threads", "cpu.pressure", "memory.pressure",
	"io.pressure",
	"cpuacct.usage", "cpuacct.stat", "cpu.stat", "cpu.cfs_quota_us", "cpu.cfs_period_us",
	"memory.usage_in_bytes", "memory.limit_in_bytes", "memory.memsw.usage_in_bytes", "memory.stat",
	"memory.oom_control", "blkio.throttle.io_service_bytes_recursive", "blkio.throttle.io_serviced_recursive",
	"cgroup.procs", "tasks",
}

// cgroupCounters declares the Control Group counters.
func cgroupCounters() []counterset.Counter {
	const hostBase = "Base: a 100 ns timestamp of the host's monotonic clock since boot multiplied by the number of online processors (/sys/devices/system/cpu/online), so that the percentage is of the whole host."
	pct := func(name string, t countertype.Type, help string) counterset.Counter {
		return ctr(name, t, 0, detNovice, help)
	}
	big := func(name string, scale int32, help string) counterset.Counter {
		return ctr(name, tLargeRaw, scale, detNovice, help)
	}
	bulk := func(name, help string) counterset.Counter {
		return ctr(name, tBulk, 0, detAdvanced, help)
	}
	stall := func(name, res, which string) counterset.Counter {
		return ctr(name, tTimer, 0, detAdvanced, name+" is the percentage of elapsed time in which "+which+" of the group's tasks were stalled waiting for "+res+" (total= of the \""+strings.Fields(which)[0]+"\" line of the group's "+strings.ToLower(strings.Fields(res)[0])+".pressure, in microseconds; cgroup v2 only: unavailable for a group that exists only in v1 hierarchies, and for \"full\" on cpu before Linux 5.13).")
	}
	return []counterset.Counter{
		pct("Current % Processor Time", tPrecision, "Current % Processor Time is the share of the host's processor capacity the group's tasks (its descendants included) used during the interval: usage_usec of cpu.stat (cgroup v2), or cpuacct.usage (v1, nanoseconds), over elapsed time times the number of online processors. 100% is every processor busy for this group. Windows' Job Object counter of the same name measures a job the same way."),
		pct("Current % Processor Time", tLargeBase, hostBase),
		pct("Current % User Mode Time", tPrecision, "Current % User Mode Time is the share of the host's processor capacity the group's tasks spent in user mode: user_usec of cpu.stat (v2), or user of cpuacct.stat (v1, USER_HZ ticks)."),
		pct("Current % User Mode Time", tLargeBase, hostBase),
		pct("Current % Kernel Mode Time", tPrecision, "Current % Kernel Mode Time is the share of the host's processor capacity the group's tasks spent in kernel mode: system_usec of cpu.stat (v2), or system of cpuacct.stat (v1, USER_HZ ticks)."),
		pct("Current % Kernel Mode Time", tLargeBase, hostBase),
		pct("% Quota Processor Time", tPrecision, "% Quota Processor Time is the processor time the group used as a percentage of its CPU bandwidth quota: usage as for Current % Processor Time over elapsed time times quota/period (cpu.max of v2; cpu.cfs_quota_us and cpu.cfs_period_us of v1). Unavailable when the group has no quota (\"max\", or -1 in v1). An interval in which the quota changed shows a wrong value once."),
		pct("% Quota Processor Time", tLargeBase, "Base for % Quota Processor Time: a 100 ns timestamp of the host's monotonic clock since boot times quota/period."),
		ctr("% Throttled Periods", countertype.PERF_SAMPLE_FRACTION, 0, detAdvanced, "% Throttled Periods is the percentage of the CPU bandwidth enforcement periods of the interval in which the group was throttled for having used its quota: nr_throttled over nr_periods of cpu.stat (v2 with the cpu controller, or v1's cpu.stat). Unavailable where the file has no such fields."),
		ctr("% Throttled Periods", countertype.PERF_SAMPLE_BASE, 0, detAdvanced, "Base for % Throttled Periods: nr_periods of cpu.stat, the enforcement periods in which the group had runnable tasks."),
		ctr("% Throttled Time", tTimer, 0, detAdvanced, "% Throttled Time is the time the group's tasks were held back by CPU bandwidth throttling as a percentage of elapsed time: throttled_usec of cpu.stat (v2), or throttled_time of v1's cpu.stat (nanoseconds). The kernel sums the time over the processors' run queues, so it can exceed 100%."),
		big("Memory Usage Bytes", -6, "Memory Usage Bytes is the memory charged to the group and its descendants, page cache included: memory.current (v2) or memory.usage_in_bytes (v1)."),
		big("Memory Working Set Bytes", -6, "Memory Working Set Bytes is the memory usage less the inactive file cache the kernel reclaims first: memory.current less inactive_file of memory.stat (v2), or memory.usage_in_bytes less total_inactive_file of memory.stat (v1). It is what kubelet and cAdvisor call the working set, and what an OOM decision looks at."),
		big("Memory Limit Bytes", -6, "Memory Limit Bytes is the group's hard memory limit: memory.max (v2) or memory.limit_in_bytes (v1). Unavailable when the group has none (\"max\", or v1's value of 2^62 bytes or more)."),
		big("Swap Bytes", -6, "Swap Bytes is the swap space used by the group: memory.swap.current (v2), or memory.memsw.usage_in_bytes less memory.usage_in_bytes (v1, where swap accounting is on). Unavailable where the file does not exist."),
		bulk("Memory Page Faults/sec", "Memory Page Faults/sec is the rate of page faults, minor and major, of the group's tasks: pgfault of memory.stat (v2), or total_pgfault (v1)."),
		bulk("Memory Major Page Faults/sec", "Memory Major Page Faults/sec is the rate of page faults that needed I/O: pgmajfault of memory.stat (v2), or total_pgmajfault (v1)."),
		ctr("OOM Kills", countertype.PERF_COUNTER_LARGE_DELTA, 0, detNovice, "OOM Kills is the number of the group's tasks the kernel's out-of-memory killer ended during the interval: the change of oom_kill in memory.events (v2) or memory.oom_control (v1)."),
		bulk("Block Read Bytes/sec", "Block Read Bytes/sec is the rate at which the group's tasks read bytes from block devices, all devices together: rbytes of io.stat (v2), or the Read lines of blkio.throttle.io_service_bytes_recursive (v1)."),
		bulk("Block Write Bytes/sec", "Block Write Bytes/sec is the rate at which the group's tasks wrote bytes to block devices, all devices together: wbytes of io.stat (v2), or the Write lines of blkio.throttle.io_service_bytes_recursive (v1)."),
		bulk("Block Read Operations/sec", "Block Read Operations/sec is the rate of the group's read requests to block devices: rios of io.stat (v2), or the Read lines of blkio.throttle.io_serviced_recursive (v1)."),
		bulk("Block Write Operations/sec", "Block Write Operations/sec is the rate of the group's write requests to block devices: wios of io.stat (v2), or the Write lines of blkio.throttle.io_serviced_recursive (v1)."),
		ctr("Process Count - Active", tRaw, 0, detNovice, "Process Count - Active is the number of processes that are members of this group itself, not of its descendants: the lines of cgroup.procs (of the v2 group, else of the first v1 hierarchy that has the group)."),
		ctr("Thread Count - Active", tRaw, 0, detNovice, "Thread Count - Active is the number of threads that are members of this group itself: the lines of cgroup.threads (v2), or of tasks (v1)."),
		stall("% CPU Some Stall Time", "CPU time", "some"),
		stall("% CPU Full Stall Time", "CPU time", "full (all non-idle)"),
		stall("% Memory Some Stall Time", "memory", "some"),
		stall("% Memory Full Stall Time", "memory", "full (all non-idle)"),
		stall("% IO Some Stall Time", "IO", "some"),
		stall("% IO Full Stall Time", "IO", "full (all non-idle)"),
	}
}

// cgroupObject declares the Control Group object.
func (c *Collector) cgroupObject() Object {
	set := newSet("Control Group", 0, counterset.Multiple, detNovice, cgProcessorTime,
		"The Control Group object measures each Linux control group (cgroup): every container, systemd service, scope and slice is one. It is Linux's counterpart of Windows' Job Object (a set of processes accounted and limited together, on which Windows containers are built), under the name Linux gives it. Instances are named by the group's path from the root of the hierarchy, as /proc/PID/cgroup writes it (/ is the root group, /system.slice/nginx.service a service); a 64-digit container id of docker, podman, containerd or CRI-O is cut to the 12 digits their tools show (/system.slice/docker-0123456789ab.scope). Both cgroup v2 (the unified hierarchy) and v1 controllers (cpu, cpuacct, memory, blkio, pids) are read from their mounts in /proc/self/mounts; on a host that mounts both, a group is the union of the directories of the same path, each counter taken from the v1 hierarchy of its controller where one is mounted, else from v2. A host with neither has no instances. A group removed and created again under the same name is a new instance (its unique id is the inode of its directory), never paired with the old one.",
		cgroupCounters())
	return Object{Set: set, Collect: (*Collector).collectCgroups}
}

// cgroup hierarchies by role. hierV2 is the unified hierarchy; the others
// are v1 controllers' hierarchies (one mount may serve several).
const (
	hierV2 = iota
	hierCPU
	hierCPUAcct
	hierMemory
	hierBlkio
	hierPids
	numHier
)

// maxCgroups bounds the groups one sample walks (a hostile or runaway
// tree costs time linear in this bound, not in its size).
const maxCgroups = 20000

// maxCgroupDepth bounds the nesting walked (the kernel's default
// cgroup.max.depth is unlimited; real trees are a few levels deep).
const maxCgroupDepth = 32

// maxKeptCgroupFiles bounds the control-group files kept open across
// samples (each group has a dozen); past it files are opened per read.
const maxKeptCgroupFiles = 16384

// cgRetryEvery is how often (in samples) a file found missing in a group
// is looked for again (a controller enabled later).
const cgRetryEvery = 16

// cgroupState is kept between samples by the Control Group object.
type cgroupState struct {
	mountsRaw []byte
	roots     [numHier]string // hierarchy roots relative to the /sys tree, "" when not mounted
	outside   []string        // hierarchies mounted outside /sys, reported once per change
	groups    map[string]*cgGroup
	order     []*cgGroup
	sample    uint64
	kept      keptSysFiles
	bad       badFields
	vals      [cgNumCounters]uint64
	have      [cgNumCounters]bool
	missing   []int
	fails     [cfNum]cgFail
	cpus      []int
	kv        [8]uint64
	found     [8]bool
	stack     []string
	// incomplete is set when a hierarchy's root could not be read this
	// sample: the groups not seen may still exist, so their descriptors
	// are kept (and their instances missing from this sample).
	incomplete bool
}

// cgGroup is one group as last seen.
type cgGroup struct {
	path    string          // "/", "/system.slice/nginx.service"
	name    string          // the instance name (container ids shortened)
	in      uint8           // bit h set: the group exists in hierarchy h this sample
	seen    uint64          // the sample it was last seen in
	ino     uint64          // inode of its directory in its first hierarchy (0 unknown)
	missing uint32          // files found missing (bit per cf*), retried every cgRetryEvery samples
	dirs    [numHier]string // groupDir of each hierarchy, made once
	roots   [numHier]string // the hierarchy roots dirs were made for
	// cpu keeps the processor, user and kernel times last written, each
	// at most its base's growth (shareClamp).
	cpu [3]shareClamp
}

// shareClamp keeps a cumulative processor time from growing faster than
// its base, the host's processor capacity: the kernel adds a running
// task's time at ticks and context switches, so a group's usage can run a
// tick per processor ahead of the clock read beside it, and a busy host's
// root group showed 100.11 % of the host. The time written grows by at
// most the base's growth since the last sample; what is held back is
// written in a later sample, so nothing is lost and any two samples show
// at most 100 %.
type shareClamp struct {
	written, base uint64
	ok            bool
}

// clamp returns the value to write for the time v over the base base. A
// time or base that went back (a counter reset, processors taken offline)
// starts over from v.
func (s *shareClamp) clamp(v, base uint64) uint64 {
	if s.ok && v >= s.written && base >= s.base && v-s.written > base-s.base {
		v = s.written + (base - s.base)
	}
	*s = shareClamp{written: v, base: base, ok: true}
	return v
}

// cgFail counts one file's read failures of a sample.
type cgFail struct {
	n     int
	first string
}

// cgroupMounts reads /proc/self/mounts and sets the hierarchy roots.
func (c *Collector) cgroupMounts(col Collection) {
	s := &c.cg
	b, err := c.readProc("self/mounts")
	if err != nil {
		partialf(col, "control groups: %v", err)
		return
	}
	if s.mountsRaw != nil && string(b) == string(s.mountsRaw) {
		for _, o := range s.outside {
			partialf(col, "control groups: hierarchy mounted at %s, outside /sys, is not read", o)
		}
		return
	}
	s.mountsRaw = append(s.mountsRaw[:0], b...)
	s.roots = [numHier]string{}
	s.outside = s.outside[:0]
	for _, m := range parseCgroupMounts(b) {
		rel, ok := strings.CutPrefix(m.dir, "/sys/")
		if !ok || !fs.ValidPath(rel) {
			s.outside = append(s.outside, m.dir)
			continue
		}
		if m.v2 {
			s.roots[hierV2] = rel
			continue
		}
		for _, ctl := range m.controllers {
			h := map[string]int{"cpu": hierCPU, "cpuacct": hierCPUAcct, "memory": hierMemory, "blkio": hierBlkio, "pids": hierPids}[ctl]
			s.roots[h] = rel
		}
	}
	for _, o := range s.outside {
		partialf(col, "control groups: hierarchy mounted at %s, outside /sys, is not read", o)
	}
}

// walk lists the groups of every mounted hierarchy: the root, then each
// directory below it, to maxCgroupDepth and maxCgroups.
func (c *Collector) walkCgroups(col Collection) {
	s := &c.cg
	if s.groups == nil {
		s.groups = make(map[string]*cgGroup)
	}
	total := 0
	truncated := false
	walked := map[string]bool{} // a root shared by several controllers is walked once
	for h := range numHier {
		root := s.roots[h]
		if root == "" {
			continue
		}
		if walked[root] {
			// the same mount serves another controller: mark its groups
			for _, g := range s.order {
				if g.seen == s.sample && g.in&(1<<hierOf(s, root)) != 0 {
					g.in |= 1 << h
				}
			}
			continue
		}
		walked[root] = true
		s.stack = append(s.stack[:0], "")
		for len(s.stack) > 0 {
			rel := s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			if total >= maxCgroups {
				truncated = true
				break
			}
			total++
			path := "/" + rel
			g := s.groups[path]
			if g == nil {
				g = &cgGroup{path: path, name: proctext.CutName(shortenContainerIDs(path), proctext.MaxInstanceName)}
				s.groups[path] = g
			}
			if g.seen != s.sample {
				g.seen, g.in, g.ino = s.sample, 0, 0
				s.order = append(s.order, g)
			}
			g.in |= 1 << h
			dir := root
			if rel != "" {
				dir = root + "/" + rel
			}
			// kernfs counts a directory's subdirectories in its link
			// count (2 + subdirectories): a leaf group, most of them,
			// costs one stat instead of a listing of its thirty files.
			// The stat also gives the identity (inode) in the group's
			// first hierarchy.
			leaf := false
			if fi, err := fs.Stat(c.Sys, dir); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					if g.in == 1<<h {
						g.ino = st.Ino
					}
					leaf = st.Nlink <= 2
				}
			} else if rel != "" {
				continue // removed while walking
			} else {
				partialf(col, "control groups: %v", err)
				s.incomplete = true
				continue
			}
			if leaf {
				continue
			}
			ents, err := fs.ReadDir(c.Sys, dir)
			if err != nil {
				if rel == "" {
					partialf(col, "control groups: %v", err)
					s.incomplete = true
				}
				continue // a group removed while walking
			}
			if strings.Count(rel, "/") >= maxCgroupDepth-1 {
				continue
			}
			for i := len(ents) - 1; i >= 0; i-- {
				if e := ents[i]; e.IsDir() {
					child := e.Name()
					if rel != "" {
						child = rel + "/" + child
					}
					s.stack = append(s.stack, child)
				}
			}
		}
	}
	if truncated {
		partialf(col, "control groups: more than %d groups; the rest are left out", maxCgroups)
	}
}

// hierOf returns the first hierarchy whose root is root.
func hierOf(s *cgroupState, root string) int {
	for h, r := range s.roots {
		if r == root {
			return h
		}
	}
	return 0
}

// groupDir is the directory of g in hierarchy h, relative to /sys, with
// a trailing slash; made once per group and hierarchy root.
func (s *cgroupState) groupDir(h int, g *cgGroup) string {
	if g.dirs[h] != "" && g.roots[h] == s.roots[h] {
		return g.dirs[h]
	}
	d := s.roots[h] + "/"
	if g.path != "/" {
		d = s.roots[h] + g.path + "/"
	}
	g.dirs[h], g.roots[h] = d, s.roots[h]
	return d
}

// read reads file f of g in hierarchy h; ok is false (and the failure
// counted) when it cannot be read. A file that does not exist is
// remembered as missing and looked for again every cgRetryEvery samples.
func (c *Collector) cgRead(g *cgGroup, h, f int) ([]byte, bool) {
	s := &c.cg
	if g.in&(1<<h) == 0 || g.missing&(1<<f) != 0 {
		return nil, false
	}
	b, err := c.readKeptAt(&s.kept, maxKeptCgroupFiles, s.groupDir(h, g), "", cgFileNames[f])
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			g.missing |= 1 << f
			return nil, false
		}
		if errors.Is(err, syscall.ENODEV) {
			return nil, false // the group was removed while it was read
		}
		if fl := &s.fails[f]; fl.n == 0 {
			fl.first = err.Error()
		}
		s.fails[f].n++
		return nil, false
	}
	return b, true
}

// cgBad reports a malformed file of a group.
func (c *Collector) cgBad(f int, g *cgGroup, err error) {
	s := &c.cg
	if fl := &s.fails[f]; fl.n == 0 {
		fl.first = g.path + "/" + cgFileNames[f] + " " + err.Error()
	}
	s.fails[f].n++
}

func (c *Collector) collectCgroups(col Collection, w Writer) error {
	s := &c.cg
	s.sample++
	if s.sample%cgRetryEvery == 0 {
		for _, g := range s.order {
			g.missing = 0
		}
	}
	s.fails = [cfNum]cgFail{}
	round := s.kept.begin()
	c.cgroupMounts(col)
	s.order = s.order[:0]
	s.incomplete = false
	c.walkCgroups(col)
	for path, g := range s.groups {
		if g.seen != s.sample {
			delete(s.groups, path)
		}
	}
	slices.SortFunc(s.order, func(a, b *cgGroup) int { return strings.Compare(a.path, b.path) })

	ts := uint64(c.uptime(col) / 100)
	ncpu := uint64(c.onlineCPUs(col))
	var want [cgNumCounters]bool
	for i := range want {
		want[i] = col.Wants(i)
	}
	for _, b := range [...]int{cgProcessorTimeBase, cgUserTimeBase, cgKernelTimeBase, cgQuotaTimeBase, cgThrottledPeriodsBase} {
		want[b] = want[b] || want[b-1]
	}
	for _, g := range s.order {
		c.cgroupValues(g, ts, ncpu, &want)
		uid := int32(-1)
		if g.ino != 0 {
			uid = cgUniqueID(g)
		}
		v := w.Instance(g.name, 0, 0, uid)
		s.missing = s.missing[:0]
		for i, x := range s.vals {
			if s.have[i] {
				v.Set(i, x)
			} else if want[i] {
				s.missing = append(s.missing, i)
			}
		}
		if len(s.missing) > 0 {
			// A value a group does not have (no CPU quota or memory
			// limit set, a controller not enabled or not mounted for it,
			// no pressure files in v1) is no data, with nothing to say:
			// it is the group's configuration, not a failure.
			col.Unavailable(s.missing...)
		}
	}
	if !s.incomplete {
		s.kept.sweep("", round)
	}
	for f, fl := range s.fails {
		if fl.n > 0 {
			partialf(col, "control groups: %s of %d groups not readable: %s", cgFileNames[f], fl.n, fl.first)
		}
	}
	return nil
}

// cgUniqueID is the instance's unique id: the low bits of its directory's
// inode (kernfs allocates them cyclically, so a group created again gets a
// new one) with the hierarchy it was taken from, so that ids of different
// hierarchies (each numbers its own) do not meet. Non-negative, never -1.
func cgUniqueID(g *cgGroup) int32 {
	h := 0
	for g.in&(1<<h) == 0 && h < numHier {
		h++
	}
	return int32((g.ino&(1<<28-1))<<3 | uint64(h))
}

// onlineCPUs counts the online processors (/sys/devices/system/cpu/online);
// 1 when unknown.
func (c *Collector) onlineCPUs(col Collection) int {
	b, err := c.readSys("devices/system/cpu/online")
	if err != nil {
		partialf(col, "control groups: %v", err)
		return 1
	}
	var ok bool
	c.cg.cpus, ok = parseCPUList(b, c.cg.cpus[:0])
	if !ok || len(c.cg.cpus) == 0 {
		partialf(col, "/sys/devices/system/cpu/online: %.40q is not a CPU list", b)
		return 1
	}
	return len(c.cg.cpus)
}

// kvs parses "key value" lines of b for keys into s.kv/s.found.
func (s *cgroupState) kvs(b []byte, keys ...string) bool {
	parseKeyValues(b, keys, s.kv[:len(keys)], s.found[:len(keys)], &s.bad)
	return len(s.bad.list) == 0
}

// cgroupValues reads one group's files into c.cg.vals/have.
func (c *Collector) cgroupValues(g *cgGroup, ts, ncpu uint64, want *[cgNumCounters]bool) {
	s := &c.cg
	s.vals = [cgNumCounters]uint64{}
	s.have = [cgNumCounters]bool{}
	set := func(i int, v uint64) { s.vals[i], s.have[i] = v, true }
	any := func(is ...int) bool {
		for _, i := range is {
			if want[i] {
				return true
			}
		}
		return false
	}
	// A quantity comes from the v1 hierarchy of its controller where one
	// is mounted and has the group, else from the v2 group.
	v1 := func(h int) bool { return s.roots[h] != "" && s.roots[h] != s.roots[hierV2] && g.in&(1<<h) != 0 }

	// CPU.
	if any(cgProcessorTime, cgUserTime, cgKernelTime, cgQuotaTime, cgThrottledPeriods, cgThrottledTime) {
		var usage, user, sys uint64
		var haveUsage, haveModes bool
		if v1(hierCPUAcct) {
			if b, ok := c.cgRead(g, hierCPUAcct, cfV1CPUAcctUsage); ok {
				if x, err := parseSingle(b); err == nil {
					usage, haveUsage = x/100, true
				} else {
					c.cgBad(cfV1CPUAcctUsage, g, err)
				}
			}
			if any(cgUserTime, cgKernelTime) {
				if b, ok := c.cgRead(g, hierCPUAcct, cfV1CPUAcctStat); ok {
					if s.kvs(b, "user", "system") && s.found[0] && s.found[1] {
						user, sys, haveModes = userHZTo100ns(s.kv[0], c.UserHZ), userHZTo100ns(s.kv[1], c.UserHZ), true
					} else {
						c.cgBad(cfV1CPUAcctStat, g, errors.New("no user and system lines"))
					}
				}
			}
		} else if b, ok := c.cgRead(g, hierV2, cfCPUStat); ok {
			if s.kvs(b, "usage_usec", "user_usec", "system_usec", "nr_periods", "nr_throttled", "throttled_usec") {
				if s.found[0] {
					usage, haveUsage = s.kv[0]*10, true
				}
				if s.found[1] && s.found[2] {
					user, sys, haveModes = s.kv[1]*10, s.kv[2]*10, true
				}
				if s.found[3] && s.found[4] && !v1(hierCPU) {
					set(cgThrottledPeriods, s.kv[4])
					set(cgThrottledPeriodsBase, s.kv[3])
				}
				if s.found[5] && !v1(hierCPU) {
					set(cgThrottledTime, s.kv[5]*10)
				}
			} else {
				c.cgBad(cfCPUStat, g, errors.New("malformed value"))
			}
		}
		hostBase := ts * ncpu
		if haveUsage {
			set(cgProcessorTime, g.cpu[0].clamp(usage, hostBase))
			set(cgProcessorTimeBase, hostBase)
		}
		if haveModes {
			set(cgUserTime, g.cpu[1].clamp(user, hostBase))
			set(cgUserTimeBase, hostBase)
			set(cgKernelTime, g.cpu[2].clamp(sys, hostBase))
			set(cgKernelTimeBase, hostBase)
		}
		// Quota and throttling.
		var quota, period uint64
		var limited bool
		if v1(hierCPU) {
			if any(cgQuotaTime) {
				qb, ok1 := c.cgRead(g, hierCPU, cfV1Quota)
				var q int64
				var qok bool
				if ok1 {
					q, qok = parseSigned(qb)
				}
				if pb, ok2 := c.cgRead(g, hierCPU, cfV1Period); ok2 && qok {
					if p, err := parseSingle(pb); err == nil && p > 0 {
						if q > 0 {
							quota, period, limited = uint64(q), p, true
						}
					}
				}
			}
			if any(cgThrottledPeriods, cgThrottledTime) {
				if b, ok := c.cgRead(g, hierCPU, cfV1CPUStat); ok {
					if s.kvs(b, "nr_periods", "nr_throttled", "throttled_time") && s.found[0] && s.found[1] && s.found[2] {
						set(cgThrottledPeriods, s.kv[1])
						set(cgThrottledPeriodsBase, s.kv[0])
						set(cgThrottledTime, s.kv[2]/100)
					} else {
						c.cgBad(cfV1CPUStat, g, errors.New("no nr_periods, nr_throttled and throttled_time"))
					}
				}
			}
		} else if any(cgQuotaTime) && g.path != "/" {
			if b, ok := c.cgRead(g, hierV2, cfCPUMax); ok {
				var err error
				if quota, period, limited, err = parseCPUMax(b); err != nil {
					c.cgBad(cfCPUMax, g, err)
					limited = false
				}
			}
		}
		if limited && haveUsage {
			set(cgQuotaTime, usage)
			set(cgQuotaTimeBase, mulDiv(ts, quota, period))
		}
	}

	// Memory.
	if any(cgMemory, cgWorkingSet, cgMemoryLimit, cgSwap, cgPageFaults, cgMajorFaults, cgOOMKills) {
		if v1(hierMemory) {
			c.cgroupMemoryV1(g, set, any)
		} else if g.in&(1<<hierV2) != 0 {
			c.cgroupMemoryV2(g, set, any)
		}
	}

	// Block I/O.
	if any(cgReadBytes, cgWriteBytes, cgReadOps, cgWriteOps) {
		if v1(hierBlkio) {
			if b, ok := c.cgRead(g, hierBlkio, cfV1IOBytes); ok {
				if r, wr, err := parseBlkioStat(b); err == nil {
					set(cgReadBytes, r)
					set(cgWriteBytes, wr)
				} else {
					c.cgBad(cfV1IOBytes, g, err)
				}
			}
			if b, ok := c.cgRead(g, hierBlkio, cfV1IOOps); ok {
				if r, wr, err := parseBlkioStat(b); err == nil {
					set(cgReadOps, r)
					set(cgWriteOps, wr)
				} else {
					c.cgBad(cfV1IOOps, g, err)
				}
			}
		} else if b, ok := c.cgRead(g, hierV2, cfIOStat); ok {
			if t, err := parseIOStat(b); err == nil {
				set(cgReadBytes, t.ReadBytes)
				set(cgWriteBytes, t.WriteBytes)
				set(cgReadOps, t.ReadOps)
				set(cgWriteOps, t.WriteOps)
			} else {
				c.cgBad(cfIOStat, g, err)
			}
		}
	}

	// Members: of the v2 group, else of the first v1 hierarchy with it.
	if any(cgProcesses, cgThreads) {
		if g.in&(1<<hierV2) != 0 {
			if b, ok := c.cgRead(g, hierV2, cfProcs); ok {
				set(cgProcesses, countLines(b))
			}
			if want[cgThreads] {
				if b, ok := c.cgRead(g, hierV2, cfThreads); ok {
					set(cgThreads, countLines(b))
				}
			}
		} else {
			for h := hierCPU; h < numHier; h++ {
				if g.in&(1<<h) == 0 {
					continue
				}
				if b, ok := c.cgRead(g, h, cfV1Procs); ok {
					set(cgProcesses, countLines(b))
				}
				if want[cgThreads] {
					if b, ok := c.cgRead(g, h, cfV1Tasks); ok {
						set(cgThreads, countLines(b))
					}
				}
				break
			}
		}
	}

	// Pressure (v2 only).
	if g.in&(1<<hierV2) != 0 {
		for _, p := range [...]struct{ f, some, full int }{
			{cfCPUPressure, cgCPUSome, cgCPUFull},
			{cfMemPressure, cgMemorySome, cgMemoryFull},
			{cfIOPressure, cgIOSome, cgIOFull},
		} {
			if !any(p.some, p.full) {
				continue
			}
			b, ok := c.cgRead(g, hierV2, p.f)
			if !ok {
				continue
			}
			ps, err := parsePressure(b)
			if err != nil {
				c.cgBad(p.f, g, err)
				continue
			}
			if ps.HasSome {
				set(p.some, ps.Some.Total*10)
			}
			if ps.HasFull {
				set(p.full, ps.Full.Total*10)
			}
		}
	}
}

func (c *Collector) cgroupMemoryV2(g *cgGroup, set func(int, uint64), any func(...int) bool) {
	s := &c.cg
	if g.path == "/" {
		// The root group has no memory.current or memory.max; its
		// memory.stat is the host's.
		g.missing |= 1<<cfMemCurrent | 1<<cfMemMax | 1<<cfMemSwap | 1<<cfMemEvents
	}
	c.cgroupMemoryUse(g, hierV2, cfMemCurrent, cfMemStat, [3]string{"inactive_file", "pgfault", "pgmajfault"},
		any(cgMemory, cgWorkingSet), set, any)
	if any(cgMemoryLimit) {
		if b, ok := c.cgRead(g, hierV2, cfMemMax); ok {
			if x, limited, err := parseLimit(b); err != nil {
				c.cgBad(cfMemMax, g, err)
			} else if limited {
				set(cgMemoryLimit, x)
			}
		}
	}
	if any(cgSwap) {
		if b, ok := c.cgRead(g, hierV2, cfMemSwap); ok {
			if x, err := parseSingle(b); err == nil {
				set(cgSwap, x)
			} else {
				c.cgBad(cfMemSwap, g, err)
			}
		}
	}
	if any(cgOOMKills) {
		if b, ok := c.cgRead(g, hierV2, cfMemEvents); ok {
			if s.kvs(b, "oom_kill") && s.found[0] {
				set(cgOOMKills, s.kv[0])
			}
		}
	}
}

// cgroupMemoryUse reads what v1 and v2 both say of a group's memory: its
// use (file use, read when readUse is set) and its stat file, whose keys
// are the inactive file pages, the page faults and the major page faults.
// It sets Memory, Working Set (use less inactive file pages) and the
// fault counts, and returns the use.
func (c *Collector) cgroupMemoryUse(g *cgGroup, hier, use, stat int, keys [3]string, readUse bool,
	set func(int, uint64), any func(...int) bool) (uint64, bool) {
	s := &c.cg
	var usage, inactive uint64
	var haveUsage, haveInactive bool
	if readUse {
		if b, ok := c.cgRead(g, hier, use); ok {
			if x, err := parseSingle(b); err == nil {
				usage, haveUsage = x, true
				set(cgMemory, x)
			} else {
				c.cgBad(use, g, err)
			}
		}
	}
	if any(cgWorkingSet, cgPageFaults, cgMajorFaults) {
		if b, ok := c.cgRead(g, hier, stat); ok {
			if s.kvs(b, keys[0], keys[1], keys[2]) {
				if s.found[0] {
					inactive, haveInactive = s.kv[0], true
				}
				if s.found[1] {
					set(cgPageFaults, s.kv[1])
				}
				if s.found[2] {
					set(cgMajorFaults, s.kv[2])
				}
			} else {
				c.cgBad(stat, g, errors.New("malformed value"))
			}
		}
	}
	if haveUsage && haveInactive {
		set(cgWorkingSet, usage-min(inactive, usage))
	}
	return usage, haveUsage
}

func (c *Collector) cgroupMemoryV1(g *cgGroup, set func(int, uint64), any func(...int) bool) {
	s := &c.cg
	// memory.memsw.usage_in_bytes counts memory and swap: swap is the
	// difference, so the usage is read for Swap too.
	usage, haveUsage := c.cgroupMemoryUse(g, hierMemory, cfV1MemUsage, cfV1MemStat,
		[3]string{"total_inactive_file", "total_pgfault", "total_pgmajfault"}, any(cgMemory, cgWorkingSet, cgSwap), set, any)
	if any(cgMemoryLimit) {
		if b, ok := c.cgRead(g, hierMemory, cfV1MemLimit); ok {
			if x, err := parseSingle(b); err != nil {
				c.cgBad(cfV1MemLimit, g, err)
			} else if x < v1Unlimited {
				set(cgMemoryLimit, x)
			}
		}
	}
	if any(cgSwap) && haveUsage {
		if b, ok := c.cgRead(g, hierMemory, cfV1MemSwUsage); ok {
			if x, err := parseSingle(b); err == nil {
				set(cgSwap, x-min(x, usage))
			}
		}
	}
	if any(cgOOMKills) {
		if b, ok := c.cgRead(g, hierMemory, cfV1OOMControl); ok {
			if s.kvs(b, "oom_kill") && s.found[0] {
				set(cgOOMKills, s.kv[0])
			}
		}
	}
}

// parseSigned parses a signed decimal (cpu.cfs_quota_us is -1 for none).
func parseSigned(b []byte) (int64, bool) {
	b = trimField(b)
	if len(b) > 0 && b[0] == '-' {
		var n int64
		if len(b) == 1 || len(b) > 20 {
			return 0, false
		}
		for _, ch := range b[1:] {
			if ch < '0' || ch > '9' {
				return 0, false
			}
			n = n*10 - int64(ch-'0')
			if n < -1<<62 {
				return 0, false
			}
		}
		return n, true
	}
	x, err := parseSingle(b)
	if err != nil || x > 1<<62 {
		return 0, false
	}
	return int64(x), true
}

func trimField(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
