package system

import (
	"slices"
	"strconv"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/procscan"
)

// ProcessObjects provides the Process, Process V2 and Thread objects. They
// share one process scanner (and its kept descriptors), so that one scan
// serves all three in a sample and Thread's parent positions match the
// Process object of the same block. A ProcessObjects belongs to one
// Collector; like it, it is not safe for concurrent use.
type ProcessObjects struct {
	scan       *procscan.Scanner
	scanTime   time.Time            // Collector.Now of the last scan
	scanSample uint64               // Collection.Seq of the last scan
	used       [numScanUsers]uint64 // the scan (Gen) each object last took
	threadName []string             // "0", "1", ... reused as Thread instance names
	// The Process counters read from /proc/PID/status and /proc/PID/io,
	// reported unavailable together when the file is not readable.
	statusCounters [6]int
	ioCounters     [6]int
	handleCounter  [1]int
	cswCounter     [1]int // Thread's Context Switches/sec
}

// NewProcessObjects returns the process objects reading through src
// (normally procscan.Open("/proc", ...), the reader the Collector uses
// too): on a live tree, files are read with pread on descriptors kept
// across samples. The caller closes src after ProcessObjects.Close.
func NewProcessObjects(src *procscan.Reader) *ProcessObjects {
	return &ProcessObjects{
		scan:           procscan.NewScanner(src),
		statusCounters: [...]int{procVirtualBytesPeak, procVirtualBytes, procWorkingSetPeak, procWorkingSet, procPrivateBytes, procWorkingSetPrivate},
		ioCounters:     [...]int{procIOReadOps, procIOWriteOps, procIODataOps, procIOReadBytes, procIOWriteBytes, procIODataBytes},
		handleCounter:  [...]int{procHandleCount},
		cswCounter:     [...]int{thrContextSwitches},
	}
}

// Close releases the descriptors kept for processes and threads.
func (p *ProcessObjects) Close() { p.scan.Close() }

// Consumers of a scan (index into ProcessObjects.used).
const (
	userProcess = iota
	userProcessV2
	userThread
	numScanUsers
)

// maxScanReuse bounds how old a scan may be for a second object to reuse
// it as part of the same sample.
const maxScanReuse = time.Second

// acquire makes sure a scan current for user exists: it reuses the last
// scan when another object took it for this sample (the same
// Collection.Seq, or, when the sample is unknown, a scan under
// maxScanReuse old that this object has not used yet), otherwise it
// scans.
func (p *ProcessObjects) acquire(c *Collector, col Collection, user int) error {
	s := p.scan
	rescan := s.Gen() == 0
	if col.Seq() != 0 {
		rescan = rescan || p.scanSample != col.Seq()
	} else {
		rescan = rescan || p.used[user] >= s.Gen() || c.Now().Sub(p.scanTime) > maxScanReuse
	}
	if rescan {
		p.scanTime = c.Now()
		if err := s.Scan(func(r string) { col.Partial(r) }); err != nil {
			return err
		}
		p.scanSample = col.Seq()
	}
	p.used[user] = s.Gen()
	return nil
}

// threadInstanceName returns "0", "1", ... without allocating after the
// first use of each index.
func (p *ProcessObjects) threadInstanceName(i int) string {
	for len(p.threadName) <= i {
		p.threadName = append(p.threadName, strconv.Itoa(len(p.threadName)))
	}
	return p.threadName[i]
}

// Process counter indexes (positions in the Set's Counters). The order is
// that of Windows' Process object (decoded.json of the ZACH-PC capture)
// without the counters Linux has no equivalent for: Page File Bytes and
// Page File Bytes Peak (Windows commit charge, reported here as Private
// Bytes), Pool Paged/Nonpaged Bytes (kernel pool usage per process), and
// IO Other Operations/Bytes (Linux has no per-process count of non-read,
// non-write I/O).
const (
	procProcessorTime = iota
	procUserTime
	procPrivilegedTime
	procVirtualBytesPeak
	procVirtualBytes
	procPageFaults
	procWorkingSetPeak
	procWorkingSet
	procPrivateBytes
	procThreadCount
	procPriorityBase
	procElapsedTime
	procIDProcess
	procCreatingProcessID
	procHandleCount
	procIOReadOps
	procIOWriteOps
	procIODataOps
	procIOReadBytes
	procIOWriteBytes
	procIODataBytes
	procWorkingSetPrivate
	numProcCounters
)

// processCounters declares the Process counters; Process V2 uses the same.
func processCounters() []counterset.Counter {
	const (
		novice   = counterset.DetailNovice
		advanced = counterset.DetailAdvanced
		expert   = counterset.DetailExpert
	)
	c := []counterset.Counter{
		procProcessorTime: {NameIndex: 6, Name: "% Processor Time", Type: countertype.PERF_100NSEC_TIMER, DetailLevel: novice,
			Help: "% Processor Time is the percentage of elapsed time that all threads of this process used the processor (user plus kernel time, utime + stime of /proc/PID/stat). On a multi-processor host it can exceed 100%."},
		procUserTime: {NameIndex: 142, Name: "% User Time", Type: countertype.PERF_100NSEC_TIMER, DetailLevel: advanced,
			Help: "% User Time is the percentage of elapsed time that the threads of this process spent executing code in user mode (utime of /proc/PID/stat)."},
		procPrivilegedTime: {NameIndex: 144, Name: "% Privileged Time", Type: countertype.PERF_100NSEC_TIMER, DetailLevel: advanced,
			Help: "% Privileged Time is the percentage of elapsed time that the threads of this process spent executing code in kernel mode on its behalf (stime of /proc/PID/stat)."},
		procVirtualBytesPeak: {NameIndex: 172, Name: "Virtual Bytes Peak", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, DefaultScale: -6, DetailLevel: expert,
			Help: "Virtual Bytes Peak is the largest size, in bytes, of the virtual address space this process has used at any one time (VmPeak of /proc/PID/status)."},
		procVirtualBytes: {NameIndex: 174, Name: "Virtual Bytes", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, DefaultScale: -6, DetailLevel: expert,
			Help: "Virtual Bytes is the current size, in bytes, of the virtual address space of this process (VmSize of /proc/PID/status). Using address space does not imply using memory or swap."},
		procPageFaults: {NameIndex: 28, Name: "Page Faults/sec", Type: countertype.PERF_COUNTER_COUNTER, DefaultScale: -1, DetailLevel: novice,
			Help: "Page Faults/sec is the rate at which page faults by the threads of this process occur, minor and major (minflt + majflt of /proc/PID/stat). A minor fault is resolved without disk I/O."},
		procWorkingSetPeak: {NameIndex: 178, Name: "Working Set Peak", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, DefaultScale: -5, DetailLevel: advanced,
			Help: "Working Set Peak is the largest resident set size, in bytes, of this process at any one time (VmHWM of /proc/PID/status)."},
		procWorkingSet: {NameIndex: 180, Name: "Working Set", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, DefaultScale: -5, DetailLevel: novice,
			Help: "Working Set is the current resident set size, in bytes, of this process: the pages in physical memory, shared ones included (VmRSS of /proc/PID/status)."},
		procPrivateBytes: {NameIndex: 186, Name: "Private Bytes", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, DefaultScale: -5, DetailLevel: advanced,
			Help: "Private Bytes is the size, in bytes, of the private writable memory this process has committed, whether resident or not: its data and stack mappings (VmData + VmStk of /proc/PID/status), which is what the kernel charges against the commit limit."},
		procThreadCount: {NameIndex: 680, Name: "Thread Count", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: advanced,
			Help: "Thread Count is the number of threads currently in this process (num_threads of /proc/PID/stat)."},
		procPriorityBase: {NameIndex: 682, Name: "Priority Base", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: advanced,
			Help: "Priority Base is the base priority of this process on the Windows scale: real-time scheduling 24; otherwise by nice value, 4 (nice 10 and above), 6 (1 to 9), 8 (0), 10 (-1 to -9) or 13 (-10 and below)."},
		procElapsedTime: {NameIndex: 684, Name: "Elapsed Time", Type: countertype.PERF_ELAPSED_TIME, DefaultScale: -4, DetailLevel: advanced,
			Help: "Elapsed Time is the time, in seconds, that this process has been running. The raw value is the start time as a FILETIME (boot time plus starttime of /proc/PID/stat); together with ID Process it identifies a process across samples."},
		procIDProcess: {NameIndex: 784, Name: "ID Process", Type: countertype.PERF_COUNTER_RAWCOUNT, DefaultScale: -1, DetailLevel: novice,
			Help: "ID Process is the unique identifier of this process. Process ids are reused after a process ends, so a process is identified by ID Process together with the raw value of Elapsed Time (its start time)."},
		procCreatingProcessID: {NameIndex: 1410, Name: "Creating Process ID", Type: countertype.PERF_COUNTER_RAWCOUNT, DefaultScale: -1, DetailLevel: novice,
			Help: "Creating Process ID is the process id of the parent of this process (ppid of /proc/PID/stat). After the parent ends, Linux reparents the process, usually to init or a subreaper."},
		procHandleCount: {NameIndex: 952, Name: "Handle Count", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: advanced,
			Help: "Handle Count is the number of file descriptors this process has open (the entries of /proc/PID/fd); reported unavailable when that directory cannot be read."},
		procIOReadOps: {NameIndex: 1412, Name: "IO Read Operations/sec", Type: countertype.PERF_COUNTER_BULK_COUNT, DetailLevel: advanced,
			Help: "IO Read Operations/sec is the rate at which this process issues read system calls, to files, pipes, sockets and devices alike (syscr of /proc/PID/io). Reported unavailable, never 0, when /proc/PID/io is not readable (another user's process, for an unprivileged reader)."},
		procIOWriteOps: {NameIndex: 1414, Name: "IO Write Operations/sec", Type: countertype.PERF_COUNTER_BULK_COUNT, DetailLevel: advanced,
			Help: "IO Write Operations/sec is the rate at which this process issues write system calls (syscw of /proc/PID/io). Reported unavailable, never 0, when /proc/PID/io is not readable (another user's process, for an unprivileged reader)."},
		procIODataOps: {NameIndex: 1416, Name: "IO Data Operations/sec", Type: countertype.PERF_COUNTER_BULK_COUNT, DetailLevel: advanced,
			Help: "IO Data Operations/sec is the rate at which this process issues read and write system calls (syscr + syscw of /proc/PID/io). Reported unavailable, never 0, when /proc/PID/io is not readable (another user's process, for an unprivileged reader)."},
		procIOReadBytes: {NameIndex: 1420, Name: "IO Read Bytes/sec", Type: countertype.PERF_COUNTER_BULK_COUNT, DetailLevel: advanced,
			Help: "IO Read Bytes/sec is the rate at which this process reads bytes through read system calls, whether or not they come from storage (rchar of /proc/PID/io). Reported unavailable, never 0, when /proc/PID/io is not readable (another user's process, for an unprivileged reader)."},
		procIOWriteBytes: {NameIndex: 1422, Name: "IO Write Bytes/sec", Type: countertype.PERF_COUNTER_BULK_COUNT, DetailLevel: advanced,
			Help: "IO Write Bytes/sec is the rate at which this process writes bytes through write system calls (wchar of /proc/PID/io). Reported unavailable, never 0, when /proc/PID/io is not readable (another user's process, for an unprivileged reader)."},
		procIODataBytes: {NameIndex: 1424, Name: "IO Data Bytes/sec", Type: countertype.PERF_COUNTER_BULK_COUNT, DetailLevel: advanced,
			Help: "IO Data Bytes/sec is the rate at which this process reads and writes bytes (rchar + wchar of /proc/PID/io). Reported unavailable, never 0, when /proc/PID/io is not readable (another user's process, for an unprivileged reader)."},
		procWorkingSetPrivate: {NameIndex: 1478, Name: "Working Set - Private", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, DefaultScale: -5, DetailLevel: novice,
			Help: "Working Set - Private is the resident memory, in bytes, of this process that is not backed by a file or shared memory: its resident anonymous pages (RssAnon of /proc/PID/status)."},
	}
	for i := range c {
		c[i].ID = uint32(i)
		c[i].Aggregate = counterset.AggregateTotal
	}
	return c
}

// processSet declares the Process object (230).
func processSet() *counterset.Set {
	return &counterset.Set{
		Name:           "Process",
		NameIndex:      230,
		Help:           "The Process performance object consists of counters that monitor running processes. Instances are named by the executable name (comm, completed from argv[0] when the kernel truncated it), so names repeat; _Total sums all processes and Idle stands for the idle time of the processors. ID Process and the raw Elapsed Time identify a process.",
		Instancing:     counterset.Multiple,
		DefaultCounter: procProcessorTime,
		Counters:       processCounters(),
	}
}

// Process returns the Process object.
func (p *ProcessObjects) Process() Object {
	return Object{Set: processSet(), Collect: func(c *Collector, col Collection, w Writer) error {
		return p.collectProcess(c, col, w, userProcess)
	}}
}

// collectProcess writes the Process or Process V2 instances: Idle first,
// then the processes in scan order, then _Total. The positions are those
// Thread uses as ParentObjectInstance.
func (p *ProcessObjects) collectProcess(c *Collector, col Collection, w Writer, user int) error {
	s := p.scan
	if err := p.acquire(c, col, user); err != nil {
		return err
	}
	// Only the files of the counters asked for: a query of % Processor
	// Time reads stat alone, as pidstat -u does.
	var want procscan.Details
	for _, g := range []struct {
		d        procscan.Details
		counters []int
	}{{procscan.DetailStatus, p.statusCounters[:]}, {procscan.DetailIO, p.ioCounters[:]}, {procscan.DetailHandles, p.handleCounter[:]}} {
		if slices.ContainsFunc(g.counters, col.Wants) {
			want |= g.d
		}
	}
	s.ReadDetails(want)
	now := perfdata.FileTime(c.Now())
	w.SetObjectTime(now, 10_000_000)
	var total [numProcCounters]uint64

	idleName, totalName := "Idle", "_Total"
	if user == userProcessV2 {
		idleName, totalName = "Idle:0", "_Total:0"
	}
	boot, bootOK := c.bootFileTime(col)
	v := w.Instance(idleName, 0, 0, -1)
	if !bootOK {
		col.Unavailable(procElapsedTime)
	}
	if perCPU, idle, ok := s.Idle(); ok {
		t := ticksTo100ns(idle, c.UserHZ)
		v.Set(procProcessorTime, t)
		v.Set(procPrivilegedTime, t)
		v.Set(procThreadCount, uint64(len(perCPU)))
		v.Set(procElapsedTime, boot)
		total[procProcessorTime] += t
		total[procPrivilegedTime] += t
		total[procThreadCount] += uint64(len(perCPU))
	}
	var vals [numProcCounters]uint64
	var miss struct{ status, io, handles failCount }
	for _, e := range s.Processes() {
		name := e.Name
		if user == userProcessV2 {
			name = e.NameV2
		}
		p.processValues(c, e, boot, &vals)
		v := w.Instance(name, 0, 0, -1)
		if !bootOK {
			col.Unavailable(procElapsedTime)
		}
		for i, x := range vals {
			v.Set(i, x)
			total[i] += x
		}
		// Values of files that could not be read are placeholders, never a
		// valid 0: another user's /proc/PID/io and /proc/PID/fd are denied
		// to an unprivileged reader.
		if want&procscan.DetailStatus != 0 && e.StatusFail != procscan.ReadOK {
			col.Unavailable(p.statusCounters[:]...)
			miss.status.add(e, e.StatusFail)
		}
		if want&procscan.DetailIO != 0 && e.IOFail != procscan.ReadOK {
			col.Unavailable(p.ioCounters[:]...)
			miss.io.add(e, e.IOFail)
		}
		if want&procscan.DetailHandles != 0 && e.HandlesFail != procscan.ReadOK {
			col.Unavailable(p.handleCounter[:]...)
			miss.handles.add(e, e.HandlesFail)
		}
	}
	n := len(s.Processes())
	miss.status.report(col, "memory counters", "status", n)
	miss.io.report(col, "IO counters", "io", n)
	miss.handles.report(col, "Handle Count", "fd", n)
	total[procElapsedTime] = uint64(now)
	total[procIDProcess], total[procCreatingProcessID], total[procPriorityBase] = 0, 0, 0
	v = w.Instance(totalName, 0, 0, -1)
	setAll(v, total[:])
	return nil
}

// failCount counts the processes whose file could not be read, by cause,
// and decides which of them are worth a word. Linux tools are silent about
// the files of other users' processes, and so is this object: their cells
// are placeholders (blank in every output) and no reason is given. A file
// that is missing for a process that exited during the scan is as quiet.
// What is said is what a reader cannot explain by themselves: a file
// missing for every process (the kernel lacks it), a read error or a
// malformed file, naming the first process it happened to.
type failCount struct {
	n, quiet int               // processes whose file failed; of those, denied or gone
	first    procscan.ReadFail // the first cause worth a word
	pid      int32             // and its process
	name     string
	mixed    bool // causes worth a word differ
}

func (f *failCount) add(e *procscan.Process, r procscan.ReadFail) {
	f.n++
	if r == procscan.ReadDenied || r == procscan.ReadMissing {
		f.quiet++
		return
	}
	if f.n-f.quiet == 1 {
		f.first, f.pid, f.name = r, e.PID, e.Name
	} else if r != f.first {
		f.mixed = true
	}
}

// report gives one partial-data reason for the processes of the sample
// whose file failed in a way worth a word: "IO counters of process 4312
// (postgres) not readable: /proc/4312/io malformed", "... of 3 processes
// (first 4312 (postgres)) ...", or, when the file is missing for every
// process of a scan that read some, that the kernel does not provide it.
// of is the number of processes in the sample.
func (f *failCount) report(col Collection, what, file string, of int) {
	if f.n == 0 {
		return
	}
	loud := f.n - f.quiet
	if loud == 0 {
		if f.n == of && f.n > 1 && f.quiet == f.n {
			// Denied or missing for every process: as root nothing is
			// denied, so this is the kernel (or a /proc mounted with
			// hidepid) withholding the file from everyone.
			partialf(col, "%s of every process unavailable: /proc/PID/%s cannot be read for any process", what, file)
		}
		return
	}
	more := ""
	if f.mixed {
		more = " (and other causes)"
	}
	if loud == 1 {
		partialf(col, "%s of process %d (%s) not readable: /proc/%d/%s %v", what, f.pid, f.name, f.pid, file, f.first)
		return
	}
	partialf(col, "%s of %d processes not readable, the first process %d (%s): /proc/%d/%s %v%s", what, loud, f.pid, f.name, f.pid, file, f.first, more)
}

func setAll(v perfdata.Values, vals []uint64) {
	for i, x := range vals {
		v.Set(i, x)
	}
}

// processValues computes one process's counter values.
func (p *ProcessObjects) processValues(c *Collector, e *procscan.Process, boot uint64, out *[numProcCounters]uint64) {
	st, m := &e.Stat, &e.Mem
	user := ticksTo100ns(st.UTime, c.UserHZ)
	sys := ticksTo100ns(st.STime, c.UserHZ)
	*out = [numProcCounters]uint64{
		procProcessorTime:     user + sys,
		procUserTime:          user,
		procPrivilegedTime:    sys,
		procVirtualBytesPeak:  m.VMPeak,
		procVirtualBytes:      m.VMSize,
		procPageFaults:        st.MinFlt + st.MajFlt,
		procWorkingSetPeak:    m.VMHWM,
		procWorkingSet:        m.VMRSS,
		procPrivateBytes:      m.VMData + m.VMStk,
		procThreadCount:       nonNegative(st.NumThreads),
		procPriorityBase:      uint64(basePriority(st.Priority, st.Nice)),
		procElapsedTime:       startFileTime(boot, st.StartTime, c.UserHZ),
		procIDProcess:         uint64(e.PID),
		procCreatingProcessID: nonNegative(st.PPID),
		procHandleCount:       uint64(e.Handles),
		procIOReadOps:         e.IO.SyscR,
		procIOWriteOps:        e.IO.SyscW,
		procIODataOps:         e.IO.SyscR + e.IO.SyscW,
		procIOReadBytes:       e.IO.RChar,
		procIOWriteBytes:      e.IO.WChar,
		procIODataBytes:       e.IO.RChar + e.IO.WChar,
		procWorkingSetPrivate: m.RSSAnon,
	}
}

func nonNegative(x int64) uint64 {
	if x < 0 {
		return 0
	}
	return uint64(x)
}
