package system

import (
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
	Running, Threads uint64 // "2/92": runnable scheduling entities / all threads
}

// parseLoadAvg parses /proc/loadavg ("0.74 0.47 0.19 2/92 6849").
func parseLoadAvg(b []byte, dst *loadAvg) bool {
	rest := b
	var f []byte
	for i := 0; i < 4; i++ {
		f, rest = proctext.NextField(rest)
	}
	for i, ch := range f {
		if ch == '/' {
			r, ok1 := proctext.ParseUint(f[:i])
			t, ok2 := proctext.ParseUint(f[i+1:])
			if ok1 && ok2 {
				dst.Running, dst.Threads = r, t
				return true
			}
		}
	}
	return false
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
		col.Unavailable(sysQueueLength)
		if !st.Bad.has("procs_running") {
			partialf(col, "/proc/stat: no procs_running line")
		}
	}
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
	if b, err := c.readProc("loadavg"); err != nil {
		partialf(col, "%v", err)
	} else if parseLoadAvg(b, &c.sysstate.loadavg) {
		v.Set(sysThreads, c.sysstate.loadavg.Threads)
	} else {
		partialf(col, "/proc/loadavg: no thread count")
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
	} else if parseLoadAvg(b, &c.sysstate.loadavg) {
		v.Set(1, c.sysstate.loadavg.Threads)
	} else {
		partialf(col, "/proc/loadavg: no thread count")
	}
	return nil
}
