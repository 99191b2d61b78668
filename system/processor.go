package system

import (
	"strconv"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
)

// cpuState is reused across samples by Processor and Processor Information.
type cpuState struct {
	stat    kernelStat
	intr    []uint64 // per CPU (indexed like stat.IDs), from /proc/interrupts
	softirq []uint64 // per CPU, from /proc/softirqs
	cols    []int
	names   []string // "0", "1", ... cached per position
	nameIDs []int    // the CPU id each names entry was made for
	intrOK  bool
	softOK  bool
	statSeq uint64 // the sample (Collection.Seq) whose /proc/stat is in stat; 0 none
	hold    idleHold
}

// idleHold keeps the idle time the Processor objects show (idle + iowait,
// the numerator of the inverse timer % Processor Time) from advancing more
// than the time base between two samples. /proc/stat counts in whole
// USER_HZ ticks, so over one second a fully idle CPU can show 101 ticks of
// idle while the block's clock advanced 100.03: 100 × (1 − ΔN/ΔD) would
// be −1 %, a negative result that calc reports as PDH_CALC_NEGATIVE_VALUE
// (no value). Windows' kernel never shows more idle time than has passed;
// holding back the tick of excess (it shows at the next sample that has
// room) gives the same guarantee without changing any long-run total.
type idleHold struct {
	at         int64          // the sample time (FILETIME) of the last hold; 0 none
	cpus, next map[int]uint64 // per CPU id: the idle + iowait ticks shown
	total      uint64         // the aggregate line's, for the CPUs in cpus
	totalN     int            // len(cpus) when total was taken
}

// apply holds back the idle time of every CPU in s (and of the aggregate
// line) that ran ahead of now − at, in ticks of hz per second.
func (h *idleHold) apply(s *kernelStat, now, hz int64) {
	var el uint64 // whole ticks elapsed; 0 when the time is unknown or went back
	ok := h.at != 0 && now > h.at && hz > 0
	if ok {
		el = uint64(now-h.at) * uint64(hz) / 10_000_000
	}
	if h.next == nil {
		h.cpus, h.next = make(map[int]uint64), make(map[int]uint64)
	}
	clear(h.next)
	same := h.totalN == len(s.CPUs) // the same CPUs as the last sample
	for i := range s.CPUs {
		t, id := &s.CPUs[i], s.IDs[i]
		prev, seen := h.cpus[id]
		same = same && seen
		if ok && seen && !t.Bad {
			holdBack(t, prev+el)
		}
		h.next[id] = t.Idle + t.IOWait
	}
	h.cpus, h.next = h.next, h.cpus
	if ok && same && !s.Total.Bad {
		holdBack(&s.Total, h.total+el*uint64(len(s.CPUs)))
	}
	h.total, h.totalN = s.Total.Idle+s.Total.IOWait, len(s.CPUs)
	if now != 0 {
		h.at = now
	}
}

// holdBack lowers t's idle + iowait to at most limit ticks (idle first),
// never below what it was: only an excess is held back.
func holdBack(t *cpuTimes, limit uint64) {
	cur := t.Idle + t.IOWait
	if cur <= limit {
		return
	}
	excess := cur - limit
	d := min(excess, t.Idle)
	t.Idle -= d
	t.IOWait -= min(excess-d, t.IOWait)
}

// readStat reads and parses /proc/stat into c.cpu.stat once per sample:
// the objects of one query (Processor, Processor Information, System)
// share one read, and so one snapshot. The caller reports stat.Bad.
func (c *Collector) readStat(col Collection) error {
	st := &c.cpu
	if seq := col.Seq(); seq != 0 && st.statSeq == seq {
		return nil
	}
	st.statSeq = 0
	b, err := c.readProc("stat")
	if err != nil {
		return err
	}
	if err := parseKernelStat(b, &st.stat); err != nil {
		return err
	}
	st.hold.apply(&st.stat, col.Time(), c.UserHZ)
	st.statSeq = col.Seq()
	return nil
}

// Processor counter indexes.
const (
	cpuProcessorTime = iota
	cpuUserTime
	cpuPrivilegedTime
	cpuInterrupts
	cpuDPCTime
	cpuInterruptTime
	cpuDPCsQueued
	cpuIdleTime
	// Linux's own shares of /proc/stat, after Windows' counters.
	cpuNiceTime
	cpuIOWaitTime
	cpuStealTime
	cpuGuestTime
	cpuSoftIRQTime
	cpuNumCounters
)

// processorCounters declares the counters shared by Processor and Processor
// Information, in Windows' order, then the Linux-only shares of /proc/stat
// that Windows' counters fold together (system/LINUX-OBJECTS.md,
// "Processor time"). Windows' DPC Rate and the C-state counters are left
// out: Linux has no DPC queue depth, and its cpuidle states do not map
// one-to-one onto ACPI C1/C2/C3.
func processorCounters() []counterset.Counter {
	idle := ctr("% Idle Time", tTimer, 0, detWizard, "% Idle Time is the percentage of elapsed time the processor was idle, including idle time waiting for I/O (idle + iowait in /proc/stat).")
	idle.NameIndex = processorIdleIndex
	return []counterset.Counter{
		ctr("% Processor Time", tTimerInv, 0, detNovice, "% Processor Time is the percentage of elapsed time the processor spent running non-idle work. It is 100% minus the time the CPU was idle or idle waiting for I/O (the idle and iowait fields of /proc/stat), so time stolen by a hypervisor counts as busy."),
		ctr("% User Time", tTimer, 0, detAdvanced, "% User Time is the percentage of elapsed time the processor spent in user mode (the user and nice fields of /proc/stat, which include guest time)."),
		ctr("% Privileged Time", tTimer, 0, detAdvanced, "% Privileged Time is the percentage of elapsed time the processor spent in kernel mode, including hardware and software interrupt handling (system + irq + softirq in /proc/stat), as Windows includes interrupt and DPC time in privileged time."),
		ctr("Interrupts/sec", tCounter, -2, detNovice, "Interrupts/sec is the rate at which the processor handled hardware interrupts: the sum of this CPU's column in /proc/interrupts (for _Total, the sum over all online CPUs)."),
		ctr("% DPC Time", tTimer, 0, detAdvanced, "% DPC Time is the percentage of elapsed time the processor spent running deferred work; on Linux this is soft-interrupt time (the softirq field of /proc/stat)."),
		ctr("% Interrupt Time", tTimer, 0, detAdvanced, "% Interrupt Time is the percentage of elapsed time the processor spent servicing hardware interrupts (the irq field of /proc/stat)."),
		ctr("DPCs Queued/sec", tCounter, 0, detAdvanced, "DPCs Queued/sec is the rate at which deferred work was run on the processor; on Linux, the number of soft interrupts handled (the sum of this CPU's column in /proc/softirqs)."),
		idle,
		ctr("% Nice Time", tTimer, 0, detAdvanced, "% Nice Time is the percentage of elapsed time the processor spent in user mode running processes of lowered priority (a positive nice value): the nice field of /proc/stat. It is part of % User Time, and includes the guest_nice part of % Guest Time."),
		ctr("% IO Wait Time", tTimer, 0, detAdvanced, "% IO Wait Time is the percentage of elapsed time the processor was idle while a task that last ran on it waited for disk I/O: the iowait field of /proc/stat. It is part of % Idle Time; the kernel's figure is an estimate (the waiting task is not bound to the processor)."),
		ctr("% Steal Time", tTimer, 0, detAdvanced, "% Steal Time is the percentage of elapsed time a virtual processor was ready to run but the hypervisor ran something else: the steal field of /proc/stat (0 on bare metal). % Processor Time counts it as busy; it is in neither % User Time nor % Privileged Time."),
		ctr("% Guest Time", tTimer, 0, detAdvanced, "% Guest Time is the percentage of elapsed time the processor spent running the virtual processor of a guest (a KVM virtual machine): the guest and guest_nice fields of /proc/stat. The kernel counts this time in user and nice as well, so it is part of % User Time."),
		ctr("% Soft Interrupt Time", tTimer, 0, detAdvanced, "% Soft Interrupt Time is the percentage of elapsed time the processor spent handling soft interrupts (deferred interrupt work, network receive, timers): the softirq field of /proc/stat. It equals % DPC Time and is part of % Privileged Time."),
	}
}

// processorIdleIndex is the title index Windows gives Processor's % Idle
// Time. English Windows has the name twice (1482 belongs to PhysicalDisk's
// counter), and lookup by name finds the lower index, so the Processor
// counter states its own to keep `\238\1746` paths working.
const processorIdleIndex = 1746

func (c *Collector) processorObject() Object {
	set := newSet("Processor", 238, counterset.MultipleAggregate, detNovice, cpuProcessorTime,
		"The Processor object measures each logical processor that is online (one instance per CPU line of /proc/stat) and their average as _Total. Times come from /proc/stat in USER_HZ ticks converted to 100 ns units.",
		processorCounters())
	return Object{Set: set, Collect: (*Collector).collectProcessor}
}

// readCPU reads /proc/stat, /proc/interrupts and /proc/softirqs into
// c.cpu. Only /proc/stat is required; the per-CPU interrupt tables are
// recorded as warnings when missing and their counters read zero.
func (c *Collector) readCPU(col Collection) error {
	if err := c.readStat(col); err != nil {
		return err
	}
	st := &c.cpu
	st.stat.Bad.report(col, "/proc/stat")
	n := len(st.stat.IDs)
	st.intr = resize(st.intr, n)
	st.softirq = resize(st.softirq, n)
	st.intrOK = c.readPerCPU(col, "interrupts", st.intr)
	st.softOK = c.readPerCPU(col, "softirqs", st.softirq)
	for len(st.names) < n {
		st.names = append(st.names, "")
		st.nameIDs = append(st.nameIDs, -1)
	}
	for i, id := range st.stat.IDs {
		if st.nameIDs[i] != id {
			st.names[i], st.nameIDs[i] = strconv.Itoa(id), id
		}
	}
	return nil
}

func (c *Collector) readPerCPU(col Collection, name string, sums []uint64) bool {
	b, err := c.readProc(name)
	if err != nil {
		partialf(col, "%v", err)
		return false
	}
	c.cpu.cols, err = parsePerCPUTable(b, c.cpu.stat.IDs, sums, c.cpu.cols)
	if err != nil {
		partialf(col, "/proc/%s: %v", name, err)
		return false
	}
	return true
}

func resize(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

// writeCPU writes the Processor counters of one CPU (or, with div > 1, an
// average of div CPUs whose times are summed in t) starting at counter
// index first.
func (c *Collector) writeCPU(v perfdata.Values, first int, t *cpuTimes, div uint64, intr, soft uint64) {
	hz := c.UserHZ
	conv := func(ticks uint64) uint64 { return userHZTo100ns(ticks, hz) / div }
	v.Set(first+cpuProcessorTime, conv(t.Idle+t.IOWait))
	v.Set(first+cpuUserTime, conv(t.User+t.Nice))
	v.Set(first+cpuPrivilegedTime, conv(t.System+t.IRQ+t.SoftIRQ))
	v.Set(first+cpuInterrupts, intr)
	v.Set(first+cpuDPCTime, conv(t.SoftIRQ))
	v.Set(first+cpuInterruptTime, conv(t.IRQ))
	v.Set(first+cpuDPCsQueued, soft)
	v.Set(first+cpuIdleTime, conv(t.Idle+t.IOWait))
	v.Set(first+cpuNiceTime, conv(t.Nice))
	v.Set(first+cpuIOWaitTime, conv(t.IOWait))
	v.Set(first+cpuStealTime, conv(t.Steal))
	v.Set(first+cpuGuestTime, conv(t.Guest+t.GuestNice))
	v.Set(first+cpuSoftIRQTime, conv(t.SoftIRQ))
}

// collectProcessor writes one instance per online CPU and _Total. _Total
// holds the average of the per-CPU times (the aggregate /proc/stat line
// divided by the CPU count), so that the PERF_100NSEC_TIMER formulas give
// the average utilisation as on Windows, and the sum of the interrupt and
// soft-interrupt counts.
func (c *Collector) collectProcessor(col Collection, w Writer) error {
	if err := c.readCPU(col); err != nil {
		return err
	}
	st := &c.cpu
	var intrTotal, softTotal uint64
	for i := range st.stat.CPUs {
		v := w.Instance(st.names[i], 0, 0, -1)
		c.writeCPU(v, 0, &st.stat.CPUs[i], 1, st.intr[i], st.softirq[i])
		st.unavailable(col, &st.stat.CPUs[i])
		intrTotal += st.intr[i]
		softTotal += st.softirq[i]
	}
	n := uint64(len(st.stat.CPUs))
	if n == 0 {
		n = 1
	}
	v := w.Instance("_Total", 0, 0, -1)
	c.writeCPU(v, 0, &st.stat.Total, n, intrTotal, softTotal)
	st.unavailable(col, &st.stat.Total)
	return nil
}

// unavailable marks the counters of the instance just started that come
// from a malformed cpu line of /proc/stat (its times), or from an
// unreadable interrupt table.
func (st *cpuState) unavailable(col Collection, t *cpuTimes) {
	if t.Bad {
		col.Unavailable(cpuProcessorTime, cpuUserTime, cpuPrivilegedTime, cpuDPCTime, cpuInterruptTime, cpuIdleTime,
			cpuNiceTime, cpuIOWaitTime, cpuStealTime, cpuGuestTime, cpuSoftIRQTime)
	}
	if !st.intrOK {
		col.Unavailable(cpuInterrupts)
	}
	if !st.softOK {
		col.Unavailable(cpuDPCsQueued)
	}
}
