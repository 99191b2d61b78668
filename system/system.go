package system

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/proctext"
)

type systemState struct {
	loadavg loadAvg
}

// loadAvg is what is used from /proc/loadavg.
type loadAvg struct {
	// Load are the 1, 5 and 15 minute load averages in hundredths (the
	// kernel writes them as %lu.%02lu: "0.74" is 74).
	Load             [3]uint64
	Running, Threads uint64 // "2/92": runnable scheduling entities / all threads
	// Has says which fields were read: bit k for Load[k], hasLoadTasks for
	// Running and Threads.
	Has loadFields
}

// loadFields is a set of the fields of /proc/loadavg.
type loadFields uint8

const (
	hasLoad1 loadFields = 1 << iota
	hasLoad5
	hasLoad15
	hasLoadTasks
)

// maxLoad bounds the integer part of a load average accepted, so that
// the value in hundredths fits the 32-bit PERF_RAW_FRACTION (a load of
// 42 million tasks is no reading).
const maxLoad = (1<<32-1)/100 - 1

// parseLoadAvg parses /proc/loadavg ("0.74 0.47 0.19 2/92 6849") into dst
// and returns which fields it read (dst.Has): a field that is missing or
// malformed leaves its bit clear and its value 0.
func parseLoadAvg(b []byte, dst *loadAvg) loadFields {
	*dst = loadAvg{}
	rest := b
	var f []byte
	for k := range dst.Load {
		f, rest = proctext.NextField(rest)
		if v, ok := parseCentisUpTo(f, maxLoad); ok {
			dst.Load[k] = v
			dst.Has |= hasLoad1 << k
		}
	}
	f, _ = proctext.NextField(rest)
	if r, t, ok := bytes.Cut(f, []byte("/")); ok {
		rn, ok1 := proctext.ParseUint(r)
		tn, ok2 := proctext.ParseUint(t)
		if ok1 && ok2 {
			dst.Running, dst.Threads = rn, tn
			dst.Has |= hasLoadTasks
		}
	}
	return dst.Has
}

// countProcesses counts the numeric entries of /proc (one per process;
// threads appear only under /proc/PID/task), without listing /proc at
// every sample where the kernel allows (see osSource.processes).
func (c *Collector) countProcesses() (uint64, error) {
	if c.proc == nil {
		return 0, errors.New("list /proc: no /proc file system")
	}
	n, err := c.proc.Processes(&c.dirBuf)
	if err != nil {
		return 0, fmt.Errorf("list /proc: %w", err)
	}
	return n, nil
}

// System counter indexes.
const (
	sysContextSwitches = iota
	sysUpTime
	sysQueueLength
	sysProcesses
	sysThreads
	// Linux's own, after Windows' counters.
	sysLoad1
	sysLoad1Base
	sysLoad5
	sysLoad5Base
	sysLoad15
	sysLoad15Base
	sysRunningTasks
	sysBlockedTasks
	sysForks
)

// systemObject declares System. Left out: the file-operation counters
// (Linux keeps per-process I/O counts only, lost when a process exits),
// System Calls/sec (no system-wide count), alignment fixups, exception
// dispatches, floating emulations and registry quota.
func (c *Collector) systemObject() Object {
	cs := []counterset.Counter{
		ctr("Context Switches/sec", tCounter, -2, detAdvanced, "Context Switches/sec is the rate at which processors switched from one thread to another (ctxt in /proc/stat)."),
		ctr("System Up Time", tElapsed, -5, detNovice, "System Up Time is the time in seconds since the host booted (the raw value is the boot time: the clock less the first field of /proc/uptime), measured against the object's FILETIME clock."),
		ctr("Processor Queue Length", tRaw, 1, detWizard, "Processor Queue Length is the number of runnable threads waiting for a processor: procs_running in /proc/stat less one per online processor, never below zero. It is exact when every processor is busy, which is when a queue forms."),
		ctr("Processes", tRaw, 1, detWizard, "Processes is the number of processes on the host (numeric entries of /proc)."),
		ctr("Threads", tRaw, 1, detWizard, "Threads is the number of threads on the host (the total in the fourth field of /proc/loadavg)."),
	}
	for _, l := range [...]struct{ name, span, field string }{
		{"Load Average (1 minute)", "the last minute", "first"},
		{"Load Average (5 minutes)", "the last 5 minutes", "second"},
		{"Load Average (15 minutes)", "the last 15 minutes", "third"},
	} {
		cs = append(cs,
			ctr(l.name, tFraction, 0, detNovice, l.name+" is the kernel's load average over "+l.span+": an exponentially damped average of the number of tasks that are running, waiting for a processor, or in uninterruptible sleep (mostly waiting for disk I/O), the "+l.field+" field of /proc/loadavg. It is a number of tasks, not a percentage: the value is stored in hundredths over a base of 10000, so that the fraction's 100 × value / base shows it as /proc/loadavg writes it, to two decimals (a display that caps percentages at 100 shows a load above 100 as 100)."),
			ctr(l.name, tRawBase, 0, detNovice, "Base for "+l.name+": 10000 (the value is in hundredths)."),
		)
	}
	cs = append(cs,
		ctr("Running Tasks", tRaw, 0, detNovice, "Running Tasks is the number of tasks (threads) that are running or runnable at the moment of the sample, those on a processor included: procs_running in /proc/stat."),
		ctr("Blocked Tasks", tRaw, 0, detNovice, "Blocked Tasks is the number of tasks (threads) blocked waiting for I/O to complete at the moment of the sample: procs_blocked in /proc/stat."),
		ctr("Forks/sec", tCounter, 0, detNovice, "Forks/sec is the rate at which processes and threads were created (fork, vfork and clone calls): processes in /proc/stat, the number created since boot."),
	)
	set := newSet("System", 2, counterset.Single, detNovice, sysQueueLength,
		"The System object holds counters that apply to the whole host rather than to one processor or device.",
		cs)
	return Object{Set: set, Collect: (*Collector).collectSystem}
}

func (c *Collector) collectSystem(col Collection, w Writer) error {
	if err := c.readStat(col); err != nil {
		return err
	}
	st := &c.cpu.stat
	st.Bad.report(col, "/proc/stat")
	now := c.Now()
	w.SetObjectTime(perfdata.FileTime(now), perfdata.FileTimeFreq)
	v := w.Single()
	v.Set(sysContextSwitches, st.Ctxt)
	if st.Has&hasCtxt == 0 {
		col.Unavailable(sysContextSwitches)
		if !st.Bad.has("ctxt") {
			partialf(col, "/proc/stat: no ctxt line")
		}
	}
	if st.Has&hasProcsRunning == 0 {
		col.Unavailable(sysQueueLength, sysRunningTasks)
		if !st.Bad.has("procs_running") {
			partialf(col, "/proc/stat: no procs_running line")
		}
	}
	if st.Has&hasProcsBlocked == 0 {
		col.Unavailable(sysBlockedTasks)
		if !st.Bad.has("procs_blocked") {
			partialf(col, "/proc/stat: no procs_blocked line")
		}
	}
	if st.Has&hasProcesses == 0 {
		col.Unavailable(sysForks)
		if !st.Bad.has("processes") {
			partialf(col, "/proc/stat: no processes line")
		}
	}
	v.Set(sysRunningTasks, st.ProcsRunning)
	v.Set(sysBlockedTasks, st.ProcsBlocked)
	v.Set(sysForks, st.Processes)
	if boot, ok := c.bootFileTime(col); ok {
		v.Set(sysUpTime, boot)
	} else {
		col.Unavailable(sysUpTime)
	}
	if q, n := st.ProcsRunning, uint64(len(st.IDs)); q > n {
		v.Set(sysQueueLength, q-n)
	}
	if n, err := c.countProcesses(); err != nil {
		partialf(col, "/proc: %v", err)
	} else {
		v.Set(sysProcesses, n)
	}
	la := &c.sysstate.loadavg
	b, err := c.readProc("loadavg")
	if err != nil {
		partialf(col, "%v", err)
		*la = loadAvg{}
	} else if parseLoadAvg(b, la)&hasLoadTasks != 0 {
		v.Set(sysThreads, la.Threads)
	} else {
		partialf(col, "/proc/loadavg: no thread count")
	}
	for k, i := range [...]int{sysLoad1, sysLoad5, sysLoad15} {
		v.Set(i+1, 10000)
		if la.Has&(hasLoad1<<k) != 0 {
			v.Set(i, la.Load[k])
			continue
		}
		col.Unavailable(i, i+1)
		if err == nil {
			partialf(col, "/proc/loadavg line 1 field %d: not a load average", k+1)
		}
	}
	return nil
}

// objectsObject declares Objects with the kernel object counts Linux can
// give; Windows' events, semaphores, mutexes and sections have no
// system-wide Linux count and are left out.
func (c *Collector) objectsObject() Object {
	cs := []counterset.Counter{
		ctr("Processes", tRaw, 0, detAdvanced, "Processes is the number of processes on the host (numeric entries of /proc)."),
		ctr("Threads", tRaw, 0, detAdvanced, "Threads is the number of threads on the host (the total in the fourth field of /proc/loadavg)."),
	}
	set := newSet("Objects", 260, counterset.Single, detAdvanced, 0,
		"The Objects object counts the kernel objects of the host that Linux can count: processes and threads.",
		cs)
	return Object{Set: set, Collect: (*Collector).collectObjects}
}

func (c *Collector) collectObjects(col Collection, w Writer) error {
	v := w.Single()
	n, err := c.countProcesses()
	if err != nil {
		return err
	}
	v.Set(0, n)
	if b, err := c.readProc("loadavg"); err != nil {
		partialf(col, "%v", err)
	} else if parseLoadAvg(b, &c.sysstate.loadavg)&hasLoadTasks != 0 {
		v.Set(1, c.sysstate.loadavg.Threads)
	} else {
		partialf(col, "/proc/loadavg: no thread count")
	}
	return nil
}
