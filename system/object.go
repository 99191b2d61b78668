package system

import (
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/procscan"
	"github.com/perfcounters/perfcounters/proctext"
)

// Object is one built-in performance object: its declaration and a collect
// function.
type Object struct {
	// Set is the declaration: Windows name, NameIndex (the Windows English
	// title index where Windows has one), help, and counters in definition
	// order (bases right after their user).
	Set *counterset.Set
	// Collect fills instances and values for one sample. The value index i in
	// Values.Set(i, v) is the counter's index in Set.Counters. What could not
	// be read is reported through col (Partial, Unavailable) and the object
	// is still delivered; an error drops the whole object.
	Collect func(c *Collector, col Collection, w Writer) error
}

// Collection is the context of one sample in the making, as the engine
// hands it to every object of one query (*engine.Collection satisfies it;
// system does not import the engine).
type Collection interface {
	// Seq identifies the sample: the objects of one query see the same
	// number (Process and Thread then share one scan of /proc); 0 means
	// unknown.
	Seq() uint64
	// Wants reports whether the consumer asked for the counter at this
	// position of the object's set: a query names the counters it reads,
	// and an object may leave the files of the others unread (their
	// values are then placeholders nobody reads). True for every counter
	// when the query named none.
	Wants(counter int) bool
	// Time is the sample's time as the block states it (PerfTime100nSec,
	// FILETIME units): the time base of the PERF_100NSEC timers. 0 means
	// unknown.
	Time() int64
	// Partial reports that the object is delivered with some data missing,
	// and why (file, line, field).
	Partial(reason string)
	// Unavailable marks the given counters (positions in the object's set;
	// none means all) of the instance last started with Writer.Instance,
	// or of the single instance, as not read: the values in the block are
	// placeholders a consumer must not show.
	Unavailable(counters ...int)
}

// partialf reports a partial object through col with a formatted reason.
func partialf(col Collection, format string, args ...any) {
	col.Partial(fmt.Sprintf(format, args...))
}

// Writer is what a collect function writes into: the engine adapts its
// *perfdata.Builder (after BeginObject) to it.
type Writer interface {
	// Instance starts one instance of a multi-instance object.
	Instance(name string, parentTitleIndex, parentInstance uint32, uniqueID int32) perfdata.Values
	// Single returns the one counter block of a single-instance object.
	Single() perfdata.Values
	// SetObjectTime sets the object timer used by PERF_OBJECT_TIMER and
	// PERF_ELAPSED_TIME counters.
	SetObjectTime(perfTime, perfFreq int64)
}

// StatFS is the part of statfs(2) that LogicalDisk needs, in bytes.
type StatFS struct {
	BlockSize   uint64 // f_frsize (f_bsize when zero)
	Blocks      uint64 // total data blocks
	BlocksFree  uint64 // free blocks (f_bfree)
	BlocksAvail uint64 // blocks available to unprivileged users (f_bavail)
}

// DefaultPerfFreq is the engine's PerfFreq: PerfTime counts nanoseconds of
// CLOCK_MONOTONIC.
const DefaultPerfFreq = 1_000_000_000

// DefaultUserHZ is USER_HZ, the unit of the tick counts in /proc/stat. The
// kernel fixes it at 100 for user space on every architecture Go supports
// (sysconf(_SC_CLK_TCK) returns it), whatever CONFIG_HZ is.
const DefaultUserHZ = 100

// maxFileSize caps one read of a /proc or /sys file; /proc/interrupts on a
// host with thousands of CPUs is the largest file read here.
const maxFileSize = 64 << 20

// Collector owns the /proc and /sys roots (fs.FS, so tests use fixture
// trees), reusable buffers and state kept between samples. One Collector
// serves one engine; it is not safe for concurrent use (the engine
// serialises collections).
type Collector struct {
	Proc fs.FS // the /proc tree given to NewCollector; read through procscan.FS unless WithProcReader says otherwise
	Sys  fs.FS // the /sys tree (os.DirFS("/sys") on a live host)

	// Statfs returns file-system sizes for a mount point (absolute path).
	Statfs func(path string) (StatFS, error)
	// Uptime returns the time since boot on a monotonic clock; the disk
	// percentage bases use it so that they tick with /proc/diskstats. Nil
	// means /proc/uptime read once, advanced by Go's monotonic clock.
	Uptime func() time.Duration
	// Now returns the current time; used for object timers in FILETIME.
	Now func() time.Time
	// PerfFreq is the frequency of the PerfTime the engine writes in the
	// block header; PERF_AVERAGE_TIMER values are expressed in its ticks.
	PerfFreq int64
	// UserHZ is the unit of /proc/stat tick counts.
	UserHZ int64

	buf     []byte           // reused file buffer
	sysBuf  []byte           // reused buffer of readSys (/sys attributes)
	sysPath []byte           // the name readSys builds
	proc    *procscan.Reader // how /proc is read: procscan.FS(Proc), or WithProcReader's

	dirBuf []byte // directory-listing buffer of the System and Objects objects

	cpu      cpuState
	topo     cpuTopology
	mem      memState
	disk     diskState
	net      netState
	paging   pagingState
	logical  logicalState
	sysstate systemState
	boot     bootState
	cg       cgroupState

	sysKept keptSysFiles // /sys attributes read at every sample, kept open
}

// Option configures a Collector.
type Option func(*Collector)

// WithProcReader makes the Collector read /proc through r (normally
// procscan.Open("/proc", ...), shared with ProcessObjects) instead of through the
// proc file system given to NewCollector. The caller closes r.
func WithProcReader(r *procscan.Reader) Option { return func(c *Collector) { c.proc = r } }

// WithStatfs replaces the statfs function (tests fake it).
func WithStatfs(f func(path string) (StatFS, error)) Option {
	return func(c *Collector) { c.Statfs = f }
}

// WithClock replaces the wall clock used for FILETIME object timers.
func WithClock(now func() time.Time) Option { return func(c *Collector) { c.Now = now } }

// WithUptime replaces the since-boot clock used by the disk objects.
func WithUptime(f func() time.Duration) Option { return func(c *Collector) { c.Uptime = f } }

// WithPerfFreq sets the PerfTime frequency of the engine's block header.
func WithPerfFreq(f int64) Option { return func(c *Collector) { c.PerfFreq = f } }

// NewCollector returns a Collector reading proc and sys.
func NewCollector(proc, sys fs.FS, opts ...Option) *Collector {
	c := &Collector{
		Proc:     proc,
		Sys:      sys,
		Statfs:   statfsSyscall,
		Now:      time.Now,
		PerfFreq: DefaultPerfFreq,
		UserHZ:   DefaultUserHZ,
	}
	if proc != nil {
		c.proc = procscan.FS(proc)
	}
	for _, o := range opts {
		o(c)
	}
	if c.PerfFreq <= 0 {
		c.PerfFreq = DefaultPerfFreq
	}
	if c.UserHZ <= 0 {
		c.UserHZ = DefaultUserHZ
	}
	return c
}

func statfsSyscall(path string) (StatFS, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return StatFS{}, err
	}
	bs := uint64(st.Frsize)
	if bs == 0 {
		bs = uint64(st.Bsize)
	}
	return StatFS{BlockSize: bs, Blocks: st.Blocks, BlocksFree: st.Bfree, BlocksAvail: st.Bavail}, nil
}

// fsReadDir lists a directory of fsys.
func fsReadDir(fsys fs.FS, name string) ([]fs.DirEntry, error) {
	if fsys == nil {
		return nil, fmt.Errorf("read %s: no file system", name)
	}
	return fs.ReadDir(fsys, name)
}

// readFile reads name from fsys into the Collector's reusable buffer. The
// returned slice is valid until the next readFile call. /proc files report
// size 0, so it reads to EOF, growing the buffer up to maxFileSize.
func (c *Collector) readFile(fsys fs.FS, name string) ([]byte, error) {
	if fsys == nil {
		return nil, fmt.Errorf("read %s: no file system", name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := proctext.ReadAll(f, c.buf[:0], maxFileSize)
	c.buf = b[:0]
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// readProc reads a host-wide /proc file (stat, meminfo, net/dev, ...)
// through the Collector's procscan.Reader into the reusable buffer; the slice is
// valid until the next read.
func (c *Collector) readProc(name string) ([]byte, error) {
	if c.proc == nil {
		return nil, fmt.Errorf("read /proc/%s: no /proc file system", name)
	}
	return c.proc.ReadFile(name, &c.buf)
}

// Objects returns the host-wide built-in objects, in a stable order:
// Processor, Processor Information, Memory, System, PhysicalDisk,
// LogicalDisk, Network Interface, IPv4, IPv6, TCPv4, TCPv6, UDPv4, UDPv6,
// ICMP, ICMPv6, Paging File, Objects. Process, Process V2 and Thread come
// from ProcessObjects, which owns their descriptors and scan state. Each
// call returns fresh declarations; collect functions keep between-sample
// state in the Collector (or, for protocol objects, in their closure), so
// an engine calls Objects once per Collector.
func (c *Collector) Objects() []Object {
	objs := []Object{
		c.processorObject(),
		c.processorInformationObject(),
		c.memoryObject(),
		c.systemObject(),
		c.physicalDiskObject(),
		c.logicalDiskObject(),
		c.networkInterfaceObject(),
	}
	objs = append(objs, c.protocolObjects()...)
	objs = append(objs, c.pagingFileObject(), c.objectsObject())
	return objs
}

// LinuxObjects returns the built-in objects Windows has no counterpart of,
// or only on some hardware, in a stable order: Control Group and Pressure
// always; Temperature Sensor, Fan, Power Meter and Thermal Zone
// Information where /sys has such sensors when it is called; the NFS
// objects (nfsObjects) and the GPU objects (gpuObjects) where the host has
// them when it is called; Service where systemd is process 1
// (serviceObjects). The host
// registers them after Objects and the process objects, so that the title
// indexes those were given before these objects existed stay theirs.
func (c *Collector) LinuxObjects() []Object {
	objs := []Object{c.cgroupObject(), c.pressureObject()}
	objs = append(objs, c.sensorObjects()...)
	objs = append(objs, c.nfsObjects()...)
	objs = append(objs, c.gpuObjects()...)
	objs = append(objs, c.serviceObjects()...)
	return objs
}

// bootState keeps the boot time between samples, so that the start times
// derived from it (the raw Elapsed Time values, which identify a process
// across samples together with its id) do not jitter with /proc/uptime's
// 10 ms resolution.
type bootState struct {
	ft  uint64 // boot time as FILETIME
	ok  bool
	seq uint64 // the sample (Collection.Seq) it was last checked in
}

// bootJitter is how far a new estimate of the boot time may be from the
// kept one and still be the same boot time: /proc/uptime counts in 10 ms
// steps, and the clock is read a few microseconds after it. A larger
// difference means the wall clock was stepped (or the host resumed), and
// the new estimate is taken.
const bootJitter = 50 * time.Millisecond

// bootFileTime returns the time the host booted as FILETIME: the wall clock
// minus the time since boot (the first field of /proc/uptime, or the
// Uptime function), read once per sample. btime of /proc/stat is whole
// seconds rounded down, and would put every start time up to a second late.
// ok is false when the time since boot cannot be read; the reason is
// reported through col.
func (c *Collector) bootFileTime(col Collection) (ft uint64, ok bool) {
	if c.boot.ok && col.Seq() != 0 && c.boot.seq == col.Seq() {
		return c.boot.ft, true
	}
	var up time.Duration
	if c.Uptime != nil {
		up = c.Uptime()
	} else {
		b, err := c.readProc("uptime")
		if err != nil {
			partialf(col, "boot time: %v", err)
			return 0, false
		}
		if up, ok = parseUptime(b); !ok {
			f, _ := proctext.NextField(b)
			partialf(col, "/proc/uptime line 1 field 1: %.40q is not a number of seconds", f)
			return 0, false
		}
	}
	ft = uint64(perfdata.FileTime(c.Now().Add(-up)))
	if c.boot.ok {
		d := ft - c.boot.ft
		if ft < c.boot.ft {
			d = c.boot.ft - ft
		}
		if d < uint64(bootJitter/100) {
			ft = c.boot.ft
		}
	}
	c.boot = bootState{ft: ft, ok: true, seq: col.Seq()}
	return ft, true
}
