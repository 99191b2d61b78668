package system

import (
	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
)

// Thread counter indexes. The order is Windows' Thread object without
// Start Address and Thread Wait Reason, which Linux does not expose in a
// comparable form.
const (
	thrProcessorTime = iota
	thrUserTime
	thrPrivilegedTime
	thrContextSwitches
	thrElapsedTime
	thrPriorityCurrent
	thrPriorityBase
	thrThreadState
	thrIDProcess
	thrIDThread
	numThreadCounters
)

// threadSet declares the Thread object (232), child of Process (230).
func threadSet() *counterset.Set {
	const (
		novice   = counterset.DetailNovice
		advanced = counterset.DetailAdvanced
	)
	c := []counterset.Counter{
		thrProcessorTime: {NameIndex: 6, Name: "% Processor Time", Type: countertype.PERF_100NSEC_TIMER, DetailLevel: novice,
			Help: "% Processor Time is the percentage of elapsed time that this thread used the processor (utime + stime of /proc/PID/task/TID/stat)."},
		thrUserTime: {NameIndex: 142, Name: "% User Time", Type: countertype.PERF_100NSEC_TIMER, DetailLevel: advanced,
			Help: "% User Time is the percentage of elapsed time that this thread spent executing code in user mode."},
		thrPrivilegedTime: {NameIndex: 144, Name: "% Privileged Time", Type: countertype.PERF_100NSEC_TIMER, DetailLevel: advanced,
			Help: "% Privileged Time is the percentage of elapsed time that this thread spent executing code in kernel mode."},
		thrContextSwitches: {NameIndex: 146, Name: "Context Switches/sec", Type: countertype.PERF_COUNTER_COUNTER, DetailLevel: advanced,
			Help: "Context Switches/sec is the rate at which this thread is switched onto a processor (the run count of /proc/PID/task/TID/schedstat; equal to its voluntary plus involuntary switches away, give or take the current one)."},
		thrElapsedTime: {NameIndex: 684, Name: "Elapsed Time", Type: countertype.PERF_ELAPSED_TIME, DefaultScale: -4, DetailLevel: advanced,
			Help: "Elapsed Time is the time, in seconds, that this thread has been running; the raw value is its start time as a FILETIME."},
		thrPriorityCurrent: {NameIndex: 694, Name: "Priority Current", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: advanced,
			Help: "Priority Current is the current priority of this thread on the Windows scale. Linux does not boost priorities dynamically the way Windows does, so it equals Priority Base."},
		thrPriorityBase: {NameIndex: 682, Name: "Priority Base", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: advanced,
			Help: "Priority Base is the base priority of this thread on the Windows scale, from its own scheduling policy and nice value (Linux threads have their own): real-time 24, otherwise 4, 6, 8, 10 or 13 from nice 10 and above down to -10 and below."},
		thrThreadState: {NameIndex: 46, Name: "Thread State", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: advanced,
			Help: "Thread State is the current state of the thread on the Windows scale: 2 Running (Linux R, running or runnable), 5 Wait (sleeping, disk wait, stopped, idle), 4 Terminated (zombie or dead), 1 Ready (waking), 7 Unknown."},
		thrIDProcess: {NameIndex: 784, Name: "ID Process", Type: countertype.PERF_COUNTER_RAWCOUNT, DefaultScale: -1, DetailLevel: advanced,
			Help: "ID Process is the process id of the process this thread belongs to."},
		thrIDThread: {NameIndex: 804, Name: "ID Thread", Type: countertype.PERF_COUNTER_RAWCOUNT, DefaultScale: -1, DetailLevel: advanced,
			Help: "ID Thread is the unique identifier of this thread (its TID). Thread ids are reused after a thread ends."},
	}
	for i := range c {
		c[i].ID = uint32(i)
		c[i].Aggregate = counterset.AggregateTotal
	}
	return &counterset.Set{
		Name:           "Thread",
		NameIndex:      232,
		Help:           "The Thread performance object consists of counters that measure thread behaviour. Every process has its threads as instances named by their position in the process (0 is the main thread); the parent instance is the process in the Process object of the same sample. Idle has one thread per processor, and _Total sums all threads.",
		Instancing:     counterset.Multiple,
		DefaultCounter: thrProcessorTime,
		Parent:         "Process",
		Counters:       c,
	}
}

// processTitleIndex is the Process object's title index, the parent of Thread.
const processTitleIndex = 230

// Thread returns the Thread object.
func (p *ProcessObjects) Thread() Object {
	return Object{Set: threadSet(), Collect: p.collectThread}
}

// collectThread writes one instance per thread: Idle's threads (one per
// processor, parent position 0), each process's threads in scan order,
// and _Total with the _Total process as parent.
func (p *ProcessObjects) collectThread(c *Collector, col Collection, w Writer) error {
	s := p.scan
	if err := p.acquire(c, col, userThread); err != nil {
		return err
	}
	s.ReadThreads(func(r string) { col.Partial(r) })
	if s.SchedstatMissing() {
		partialf(col, "Thread: Context Switches/sec unavailable: the kernel has no /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO is off)")
	}
	now := perfdata.FileTime(c.Now())
	w.SetObjectTime(now, 10_000_000)
	var total [numThreadCounters]uint64
	boot, bootOK := c.bootFileTime(col)
	if perCPU, _, ok := s.Idle(); ok {
		for i, idle := range perCPU {
			t := ticksTo100ns(idle, c.UserHZ)
			v := w.Instance(p.threadInstanceName(i), processTitleIndex, 0, -1)
			if !bootOK {
				col.Unavailable(thrElapsedTime)
			}
			v.Set(thrProcessorTime, t)
			v.Set(thrPrivilegedTime, t)
			v.Set(thrElapsedTime, boot)
			v.Set(thrThreadState, threadRunning)
			total[thrProcessorTime] += t
			total[thrPrivilegedTime] += t
		}
	}
	var vals [numThreadCounters]uint64
	for pos, e := range s.Processes() {
		for i := range e.Threads {
			t := &e.Threads[i]
			user := ticksTo100ns(t.Stat.UTime, c.UserHZ)
			sys := ticksTo100ns(t.Stat.STime, c.UserHZ)
			prio := uint64(basePriority(t.Stat.Priority, t.Stat.Nice))
			vals = [numThreadCounters]uint64{
				thrProcessorTime:   user + sys,
				thrUserTime:        user,
				thrPrivilegedTime:  sys,
				thrContextSwitches: t.CSw,
				thrElapsedTime:     startFileTime(boot, t.Start, c.UserHZ),
				thrPriorityCurrent: prio,
				thrPriorityBase:    prio,
				thrThreadState:     uint64(threadState(t.Stat.State)),
				thrIDProcess:       uint64(e.PID),
				thrIDThread:        uint64(t.TID),
			}
			v := w.Instance(p.threadInstanceName(i), processTitleIndex, uint32(pos+1), -1)
			if !bootOK {
				col.Unavailable(thrElapsedTime)
			}
			if !t.CSwOK {
				col.Unavailable(p.cswCounter[:]...)
			}
			for k, x := range vals {
				v.Set(k, x)
				total[k] += x
			}
		}
	}
	total[thrElapsedTime] = uint64(now)
	total[thrPriorityCurrent], total[thrPriorityBase], total[thrThreadState] = 0, 0, 0
	total[thrIDProcess], total[thrIDThread] = 0, 0
	v := w.Instance("_Total", processTitleIndex, uint32(len(s.Processes())+1), -1)
	setAll(v, total[:])
	return nil
}
