package system

import (
	"strconv"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/proctext"
)

// Disk counter indexes, shared by PhysicalDisk and LogicalDisk (which puts
// its free-space counters first, then these from diskFirst on).
const (
	dkCurrentQueue = iota
	dkDiskTime
	dkDiskTimeBase
	dkAvgQueue
	dkReadTime
	dkReadTimeBase
	dkAvgReadQueue
	dkWriteTime
	dkWriteTimeBase
	dkAvgWriteQueue
	dkSecTransfer
	dkSecTransferBase
	dkSecRead
	dkSecReadBase
	dkSecWrite
	dkSecWriteBase
	dkTransfers
	dkReads
	dkWrites
	dkBytes
	dkReadBytes
	dkWriteBytes
	dkBytesTransfer
	dkBytesTransferBase
	dkBytesRead
	dkBytesReadBase
	dkBytesWrite
	dkBytesWriteBase
	dkIdleTime
	dkIdleTimeBase
	dkNumCounters
)

// diskCounters declares the activity counters in Windows' order and with
// Windows' types. Split IO/Sec is left out: Linux counts merges, not splits.
func diskCounters() []counterset.Counter {
	// Windows declares its PERF_AVERAGE_TIMER values 8 bytes wide although
	// the type says DWORD (real PhysicalDisk blocks, CounterSize 8): the
	// accumulated time in PerfFreq ticks overflows 32 bits within seconds.
	avgTimer := func(name, help string) counterset.Counter {
		c := ctr(name, tAvgTimer, 3, detAdvanced, help)
		c.Size = 8
		return c
	}
	const ts = "Base: a 100 ns timestamp of the host's monotonic clock since boot (for _Total, multiplied by the number of disks, so that the percentage is their average)."
	return []counterset.Counter{
		ctr("Current Disk Queue Length", tRaw, 1, detNovice, "Current Disk Queue Length is the number of requests in flight on the disk at the moment of the sample (field 9 of /proc/diskstats)."),
		ctr("% Disk Time", tPrecision, 0, detNovice, "% Disk Time is the time requests spent on the disk as a percentage of elapsed time: the weighted milliseconds of field 11 of /proc/diskstats, which add up the time of overlapping requests, so it can exceed 100% as on Windows."),
		ctr("% Disk Time", tLargeBase, 0, detNovice, ts),
		ctr("Avg. Disk Queue Length", tQueueLen, 2, detNovice, "Avg. Disk Queue Length is the average number of requests queued or in service on the disk during the interval (weighted milliseconds, field 11 of /proc/diskstats)."),
		ctr("% Disk Read Time", tPrecision, 0, detNovice, "% Disk Read Time is the time read requests spent on the disk as a percentage of elapsed time (field 4 of /proc/diskstats); overlapping reads add up."),
		ctr("% Disk Read Time", tLargeBase, 0, detNovice, ts),
		ctr("Avg. Disk Read Queue Length", tQueueLen, 2, detNovice, "Avg. Disk Read Queue Length is the average number of read requests on the disk during the interval (field 4 of /proc/diskstats)."),
		ctr("% Disk Write Time", tPrecision, 0, detNovice, "% Disk Write Time is the time write requests spent on the disk as a percentage of elapsed time (field 8 of /proc/diskstats); overlapping writes add up."),
		ctr("% Disk Write Time", tLargeBase, 0, detNovice, ts),
		ctr("Avg. Disk Write Queue Length", tQueueLen, 2, detNovice, "Avg. Disk Write Queue Length is the average number of write requests on the disk during the interval (field 8 of /proc/diskstats)."),
		avgTimer("Avg. Disk sec/Transfer", "Avg. Disk sec/Transfer is the average time in seconds of a read or write (fields 4 + 8 over fields 1 + 5 of /proc/diskstats)."),
		ctr("Avg. Disk sec/Transfer", tAvgBase, 0, detAdvanced, "Base for Avg. Disk sec/Transfer: reads and writes completed."),
		avgTimer("Avg. Disk sec/Read", "Avg. Disk sec/Read is the average time in seconds of a read (field 4 over field 1 of /proc/diskstats)."),
		ctr("Avg. Disk sec/Read", tAvgBase, 0, detAdvanced, "Base for Avg. Disk sec/Read: reads completed."),
		avgTimer("Avg. Disk sec/Write", "Avg. Disk sec/Write is the average time in seconds of a write (field 8 over field 5 of /proc/diskstats)."),
		ctr("Avg. Disk sec/Write", tAvgBase, 0, detAdvanced, "Base for Avg. Disk sec/Write: writes completed."),
		ctr("Disk Transfers/sec", tCounter, 0, detNovice, "Disk Transfers/sec is the rate of completed reads and writes (fields 1 + 5 of /proc/diskstats)."),
		ctr("Disk Reads/sec", tCounter, 0, detNovice, "Disk Reads/sec is the rate of completed reads (field 1 of /proc/diskstats)."),
		ctr("Disk Writes/sec", tCounter, 0, detNovice, "Disk Writes/sec is the rate of completed writes (field 5 of /proc/diskstats)."),
		ctr("Disk Bytes/sec", tBulk, -4, detAdvanced, "Disk Bytes/sec is the rate of bytes read and written (512-byte sectors, fields 3 + 7 of /proc/diskstats)."),
		ctr("Disk Read Bytes/sec", tBulk, -4, detAdvanced, "Disk Read Bytes/sec is the rate of bytes read (512-byte sectors, field 3 of /proc/diskstats)."),
		ctr("Disk Write Bytes/sec", tBulk, -4, detAdvanced, "Disk Write Bytes/sec is the rate of bytes written (512-byte sectors, field 7 of /proc/diskstats)."),
		ctr("Avg. Disk Bytes/Transfer", tAvgBulk, -2, detExpert, "Avg. Disk Bytes/Transfer is the average size in bytes of a read or write."),
		ctr("Avg. Disk Bytes/Transfer", tAvgBase, 0, detExpert, "Base for Avg. Disk Bytes/Transfer: reads and writes completed."),
		ctr("Avg. Disk Bytes/Read", tAvgBulk, -2, detExpert, "Avg. Disk Bytes/Read is the average size in bytes of a read."),
		ctr("Avg. Disk Bytes/Read", tAvgBase, 0, detExpert, "Base for Avg. Disk Bytes/Read: reads completed."),
		ctr("Avg. Disk Bytes/Write", tAvgBulk, -2, detExpert, "Avg. Disk Bytes/Write is the average size in bytes of a write."),
		ctr("Avg. Disk Bytes/Write", tAvgBase, 0, detExpert, "Base for Avg. Disk Bytes/Write: writes completed."),
		ctr("% Idle Time", tPrecision, 0, detAdvanced, "% Idle Time is the percentage of elapsed time the disk had no request in flight: elapsed time less the busy milliseconds of field 10 of /proc/diskstats."),
		ctr("% Idle Time", tLargeBase, 0, detNovice, ts),
	}
}

// diskState is kept between samples by PhysicalDisk and LogicalDisk.
type diskState struct {
	bad   badFields // malformed values of the last /proc/diskstats
	stats []diskStat
	disks []diskName // whole disks, in /sys/block order
	prev  []diskName // the previous sample's list, reused
	// listed are /sys/block's entries as last listed; they are listed
	// again when /proc/diskstats' device names change (every disk has a
	// line there, so a disk added or removed changes them), after a
	// failed listing, and every relistEvery samples.
	listed    []string
	listedOK  bool
	sinceList int
	statNames []byte // the device names of the last /proc/diskstats, each followed by '\n'
	// partitions is the last /proc/partitions, which lists every disk of
	// non-zero size (and its size): the disks' sizes are read again only
	// when it changes, when /sys/block is listed, and after a sample where
	// one could not be read (sizesOK false).
	partitions []byte
	sizesOK    bool
	total      diskStat
	upBase     time.Duration // uptime at upAt, for the default uptime clock
	upAt       time.Time
	upSet      bool
}

type diskName struct {
	dev, inst string
}

// uptime returns time since boot on a monotonic clock: the Collector's
// Uptime function, or /proc/uptime read once and advanced with Go's
// monotonic clock (so that deltas have nanosecond resolution, not the 10 ms
// of /proc/uptime).
func (c *Collector) uptime(col Collection) time.Duration {
	if c.Uptime != nil {
		return c.Uptime()
	}
	d := &c.disk
	if !d.upSet {
		b, err := c.readProc("uptime")
		if err != nil {
			partialf(col, "%v", err)
			return 0
		}
		up, ok := parseUptime(b)
		if !ok {
			partialf(col, "/proc/uptime: bad format")
			return 0
		}
		d.upBase, d.upAt, d.upSet = up, time.Now(), true
	}
	return d.upBase + time.Since(d.upAt)
}

// parseUptime parses the first number of /proc/uptime ("3435.87 ...").
func parseUptime(b []byte) (time.Duration, bool) {
	f, _ := proctext.NextField(b)
	for i, ch := range f {
		if ch == '.' {
			s, ok1 := proctext.ParseUint(f[:i])
			frac := f[i+1:]
			if len(frac) == 0 || len(frac) > 9 {
				return 0, false
			}
			n, ok2 := proctext.ParseUint(frac)
			if !ok1 || !ok2 {
				return 0, false
			}
			for j := len(frac); j < 9; j++ {
				n *= 10
			}
			return time.Duration(s)*time.Second + time.Duration(n), true
		}
	}
	s, ok := proctext.ParseUint(f)
	return time.Duration(s) * time.Second, ok
}

// writeDisk writes the activity counters of d from index first on. ts is
// the 100 ns timestamp base; n is the number of disks d sums (1 for one
// disk), by which the percentage bases are multiplied.
func (c *Collector) writeDisk(v perfdata.Values, first int, d *diskStat, ts, n uint64) {
	f := &d.F
	const msTo100ns = 10_000
	pf := uint64(c.PerfFreq)
	base := ts * n
	v.Set(first+dkCurrentQueue, f[dsInFlight])
	v.Set(first+dkDiskTime, f[dsWeightedMs]*msTo100ns)
	v.Set(first+dkDiskTimeBase, base)
	v.Set(first+dkAvgQueue, f[dsWeightedMs]*msTo100ns)
	v.Set(first+dkReadTime, f[dsReadMs]*msTo100ns)
	v.Set(first+dkReadTimeBase, base)
	v.Set(first+dkAvgReadQueue, f[dsReadMs]*msTo100ns)
	v.Set(first+dkWriteTime, f[dsWriteMs]*msTo100ns)
	v.Set(first+dkWriteTimeBase, base)
	v.Set(first+dkAvgWriteQueue, f[dsWriteMs]*msTo100ns)
	ops := f[dsReads] + f[dsWrites]
	v.Set(first+dkSecTransfer, mulDiv(f[dsReadMs]+f[dsWriteMs], pf, 1000))
	v.Set(first+dkSecTransferBase, ops)
	v.Set(first+dkSecRead, mulDiv(f[dsReadMs], pf, 1000))
	v.Set(first+dkSecReadBase, f[dsReads])
	v.Set(first+dkSecWrite, mulDiv(f[dsWriteMs], pf, 1000))
	v.Set(first+dkSecWriteBase, f[dsWrites])
	v.Set(first+dkTransfers, ops)
	v.Set(first+dkReads, f[dsReads])
	v.Set(first+dkWrites, f[dsWrites])
	rb, wb := f[dsSectorsRead]*512, f[dsSectorsWritten]*512
	v.Set(first+dkBytes, rb+wb)
	v.Set(first+dkReadBytes, rb)
	v.Set(first+dkWriteBytes, wb)
	v.Set(first+dkBytesTransfer, rb+wb)
	v.Set(first+dkBytesTransferBase, ops)
	v.Set(first+dkBytesRead, rb)
	v.Set(first+dkBytesReadBase, f[dsReads])
	v.Set(first+dkBytesWrite, wb)
	v.Set(first+dkBytesWriteBase, f[dsWrites])
	busy := f[dsIOMs] * msTo100ns
	idle := uint64(0)
	if base > busy {
		idle = base - busy
	}
	v.Set(first+dkIdleTime, idle)
	v.Set(first+dkIdleTimeBase, base)
}

func addDisk(dst, d *diskStat) {
	for i := range dst.F {
		dst.F[i] += d.F[i]
	}
}

func (c *Collector) physicalDiskObject() Object {
	set := newSet("PhysicalDisk", 234, counterset.MultipleAggregate, detNovice, dkAvgQueue,
		"The PhysicalDisk object measures each whole block device of the host (the entries of /sys/block with a non-zero size; partitions are left out), named \"<n> <device>\" with n its position in /sys/block, and _Total. Activity comes from /proc/diskstats. In _Total, rates and queue lengths are summed and percentages averaged.",
		diskCounters())
	return Object{Set: set, Collect: (*Collector).collectPhysicalDisk}
}

// relistEvery bounds the samples between two listings of /sys/block.
const relistEvery = 64

// sameDiskNames reports whether stats name the devices of names (each
// followed by '\n'), in order.
func sameDiskNames(names []byte, stats []diskStat) bool {
	for i := range stats {
		n := stats[i].Name
		if len(names) < len(n)+1 || string(names[:len(n)]) != string(n) || names[len(n)] != '\n' {
			return false
		}
		names = names[len(n)+1:]
	}
	return len(names) == 0
}

// partitionsChanged reads /proc/partitions and reports whether it differs
// from the last sample's (or cannot be read). It lists the disks of
// non-zero size with their size, so a disk whose size becomes zero or not
// (a loop device attached or detached) changes it. Hidden disks (the
// paths of a multipath NVMe namespace) are left out of it, but their
// size is their namespace's, whose disk is listed.
func (c *Collector) partitionsChanged() bool {
	d := &c.disk
	b, err := c.readProc("partitions")
	if err != nil {
		d.partitions = d.partitions[:0]
		return true
	}
	if d.sizesOK && string(b) == string(d.partitions) {
		return false
	}
	d.partitions = append(d.partitions[:0], b...)
	return true
}

// readWholeDisks finds the whole disks: the entries of /sys/block (listed
// again when relist says so, or when due) with a non-zero size, read
// again when resize says so (see partitionsChanged), at a new listing, or
// after a failed read.
func (c *Collector) readWholeDisks(col Collection, relist, resize bool) error {
	d := &c.disk
	if !relist && !resize && d.sizesOK && d.listedOK && d.sinceList < relistEvery {
		d.sinceList++
		return nil // the same disks as in the last sample
	}
	d.sizesOK = false
	if relist || !d.listedOK || d.sinceList >= relistEvery {
		d.listedOK, d.sinceList = false, 0
		ents, err := fsReadDir(c.Sys, "block")
		if err != nil {
			return err
		}
		d.listed = d.listed[:0]
		for _, e := range ents {
			d.listed = append(d.listed, e.Name())
		}
		d.listedOK = true
	}
	d.sinceList++
	d.prev, d.disks = d.disks, d.prev[:0]
	old := d.prev
	round := c.sysKept.begin()
	defer c.sysKept.sweep("block/", round)
	allRead := true
	for _, name := range d.listed {
		b, err := c.readSysAt("block/", name, "/size")
		if err != nil {
			partialf(col, "%v", err)
			allRead = false
			continue
		}
		if sz, ok := proctext.ParseUint(proctext.TrimSpace(b)); !ok || sz == 0 {
			continue
		}
		inst := ""
		n := len(d.disks)
		if n < len(old) && old[n].dev == name {
			inst = old[n].inst
		} else {
			inst = proctext.CutName(strconv.Itoa(n)+" "+name, proctext.MaxInstanceName)
		}
		d.disks = append(d.disks, diskName{dev: name, inst: inst})
	}
	d.sizesOK = allRead
	return nil
}

func (c *Collector) collectPhysicalDisk(col Collection, w Writer) error {
	ts := uint64(c.uptime(col) / 100) // before diskstats: it may read /proc/uptime
	resize := c.partitionsChanged()   // before diskstats: it reads into the same buffer
	b, err := c.readProc("diskstats")
	if err != nil {
		return err
	}
	d := &c.disk
	if d.stats, err = parseDiskStats(b, d.stats, &d.bad); err != nil {
		return err
	}
	d.bad.report(col, "/proc/diskstats")
	// The names point into the /proc buffer, which readSys leaves alone.
	relist := !sameDiskNames(d.statNames, d.stats)
	if relist {
		d.statNames = d.statNames[:0]
		for i := range d.stats {
			d.statNames = append(append(d.statNames, d.stats[i].Name...), '\n')
		}
	}
	if err := c.readWholeDisks(col, relist, resize); err != nil {
		return err
	}
	anyBad := false
	d.total = diskStat{}
	var n uint64
	for _, dn := range d.disks {
		s := findDisk(d.stats, dn.dev)
		if s == nil {
			partialf(col, "/proc/diskstats: no line for %s", dn.dev)
			continue
		}
		v := w.Instance(dn.inst, 0, 0, -1)
		c.writeDisk(v, 0, s, ts, 1)
		if s.Bad {
			unavailableDisk(col, 0)
			anyBad = true
		}
		addDisk(&d.total, s)
		n++
	}
	v := w.Instance("_Total", 0, 0, -1)
	if n == 0 {
		n = 1
	}
	c.writeDisk(v, 0, &d.total, ts, n)
	if anyBad {
		unavailableDisk(col, 0)
	}
	return nil
}

func findDisk(stats []diskStat, dev string) *diskStat {
	for i := range stats {
		if string(stats[i].Name) == dev {
			return &stats[i]
		}
	}
	return nil
}
