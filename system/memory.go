package system

import "github.com/perfcounters/perfcounters/counterset"

// Keys read from /proc/meminfo (kB) and /proc/vmstat (counts since boot).
var (
	meminfoKeys = [...]string{"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "Dirty", "Writeback", "CommitLimit", "Committed_AS",
		"Active", "Inactive", "SReclaimable", "SUnreclaim", "Shmem", "HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "Hugepagesize"}
	vmstatKeys = [...]string{"pgfault", "pgmajfault", "pswpin", "pswpout"}
)

const (
	miMemTotal = iota
	miMemFree
	miMemAvailable
	miBuffers
	miCached
	miDirty
	miWriteback
	miCommitLimit
	miCommittedAS
	miActive
	miInactive
	miSReclaimable
	miSUnreclaim
	miShmem
	miHugePagesTotal
	miHugePagesFree
	miHugePagesRsvd
	miHugepagesize
)

// optionalMeminfo reports whether a /proc/meminfo line may be missing
// for want of a kernel feature, not by a failure: the huge page lines
// need CONFIG_HUGETLBFS. Their counters are then unavailable without a
// reason, as a configuration is no fault.
func optionalMeminfo(k int) bool { return k >= miHugePagesTotal && k <= miHugepagesize }

const (
	vmPgfault = iota
	vmPgmajfault
	vmPswpin
	vmPswpout
)

type memState struct {
	mem      [len(meminfoKeys)]uint64
	memFound [len(meminfoKeys)]bool
	vm       [len(vmstatKeys)]uint64
	vmFound  [len(vmstatKeys)]bool
	memBad   badFields // malformed values of /proc/meminfo
	vmBad    badFields // malformed values of /proc/vmstat
}

// Memory counter indexes.
const (
	memPageFaults = iota
	memAvailableBytes
	memCommittedBytes
	memCommitLimit
	memPages
	memPagesInput
	memPageReads
	memPagesOutput
	memCacheBytes
	memCommittedInUse
	memCommittedInUseBase
	memAvailableKBytes
	memAvailableMBytes
	memFreeZeroBytes
	memModifiedBytes
	// Linux's own, after Windows' counters.
	memBufferBytes
	memCachedBytes
	memActiveBytes
	memInactiveBytes
	memDirtyBytes
	memWritebackBytes
	memSlabReclaimable
	memSlabUnreclaimable
	memSharedBytes
	memHugePagesTotal
	memHugePagesFree
	memHugePagesReserved
	memHugePageSize
)

// memoryObject declares Memory in Windows' counter order. Left out, for
// want of a Linux equivalent: the transition, cache, demand-zero and
// write-copy fault rates, the pool counters (all Linux kernel memory is
// non-pageable and is not split into pools), Page Writes/sec (no count of
// write operations), Cache Bytes Peak and the standby-list counters.
func (c *Collector) memoryObject() Object {
	cs := []counterset.Counter{
		ctr("Page Faults/sec", tCounter, -1, detNovice, "Page Faults/sec is the rate of page faults, soft and hard (pgfault in /proc/vmstat)."),
		ctr("Available Bytes", tLargeRaw, -6, detExpert, "Available Bytes is the memory available to start new applications without swapping: MemAvailable in /proc/meminfo, in bytes."),
		ctr("Committed Bytes", tLargeRaw, -6, detExpert, "Committed Bytes is the virtual memory that processes have committed (Committed_AS in /proc/meminfo), in bytes. With overcommit it can exceed Commit Limit."),
		ctr("Commit Limit", tLargeRaw, -6, detWizard, "Commit Limit is the amount of virtual memory that can be committed under strict overcommit accounting: CommitLimit in /proc/meminfo (swap plus the overcommit share of RAM), in bytes."),
		ctr("Pages/sec", tCounter, 0, detNovice, "Pages/sec is the rate at which pages were read from or written to swap (pswpin + pswpout in /proc/vmstat), the sum of Pages Input/sec and Pages Output/sec. Pages of memory-mapped files read on hard faults are not counted: the kernel has no counter of them."),
		ctr("Pages Input/sec", tCounter, 0, detNovice, "Pages Input/sec is the rate at which pages were read in from swap (pswpin in /proc/vmstat)."),
		ctr("Page Reads/sec", tCounter, 0, detExpert, "Page Reads/sec is the rate of hard page faults, each of which needed at least one read from disk (pgmajfault in /proc/vmstat)."),
		ctr("Pages Output/sec", tCounter, 0, detAdvanced, "Pages Output/sec is the rate at which pages were written out to swap (pswpout in /proc/vmstat)."),
		ctr("Cache Bytes", tLargeRaw, -5, detAdvanced, "Cache Bytes is the memory used by the file page cache and block-device buffers (Cached + Buffers in /proc/meminfo), in bytes."),
		ctr("% Committed Bytes In Use", tFraction, 0, detExpert, "% Committed Bytes In Use is Committed Bytes as a percentage of Commit Limit. Both are stored in megabytes so that they fit 32-bit values; with overcommit it can exceed 100%."),
		ctr("% Committed Bytes In Use", tRawBase, 0, detExpert, "Base for % Committed Bytes In Use: Commit Limit in megabytes."),
		ctr("Available KBytes", tLargeRaw, 0, detExpert, "Available KBytes is Available Bytes in kilobytes (MemAvailable in /proc/meminfo)."),
		ctr("Available MBytes", tLargeRaw, 0, detExpert, "Available MBytes is Available Bytes in megabytes."),
		ctr("Free & Zero Page List Bytes", tLargeRaw, 0, detWizard, "Free & Zero Page List Bytes is the memory not used for anything (MemFree in /proc/meminfo), in bytes."),
		ctr("Modified Page List Bytes", tLargeRaw, 0, detWizard, "Modified Page List Bytes is the memory holding modified file data that must be written to disk before it can be reused (Dirty + Writeback in /proc/meminfo), in bytes."),
		ctr("Buffer Bytes", tLargeRaw, -5, detAdvanced, "Buffer Bytes is the memory of block-device buffers: raw disk blocks cached outside any file, such as file-system metadata (Buffers in /proc/meminfo), in bytes. Cache Bytes is Buffer Bytes + Cached Bytes."),
		ctr("Cached Bytes", tLargeRaw, -5, detAdvanced, "Cached Bytes is the memory of the page cache: pages of files read or written, and shared memory and tmpfs files (Cached in /proc/meminfo, which leaves out Buffers and swap cache), in bytes."),
		ctr("Active Bytes", tLargeRaw, -5, detAdvanced, "Active Bytes is the memory used recently, which the kernel reclaims only when it must (Active in /proc/meminfo: anonymous and file pages on the active lists), in bytes."),
		ctr("Inactive Bytes", tLargeRaw, -5, detAdvanced, "Inactive Bytes is the memory not used recently, the first the kernel reclaims (Inactive in /proc/meminfo: anonymous and file pages on the inactive lists), in bytes."),
		ctr("Dirty Bytes", tLargeRaw, -5, detAdvanced, "Dirty Bytes is the memory of file data modified and waiting to be written to disk (Dirty in /proc/meminfo), in bytes. Modified Page List Bytes is Dirty Bytes + Writeback Bytes."),
		ctr("Writeback Bytes", tLargeRaw, -5, detAdvanced, "Writeback Bytes is the memory of modified file data being written to disk now (Writeback in /proc/meminfo), in bytes."),
		ctr("Slab Reclaimable Bytes", tLargeRaw, -5, detAdvanced, "Slab Reclaimable Bytes is the kernel's slab memory that it can free under pressure, mostly the caches of directory entries and inodes (SReclaimable in /proc/meminfo), in bytes."),
		ctr("Slab Unreclaimable Bytes", tLargeRaw, -5, detAdvanced, "Slab Unreclaimable Bytes is the kernel's slab memory that it cannot free while in use (SUnreclaim in /proc/meminfo), in bytes."),
		ctr("Shared Memory Bytes", tLargeRaw, -5, detAdvanced, "Shared Memory Bytes is the memory of shared memory segments and of files in tmpfs (/dev/shm, often /tmp and /run): Shmem in /proc/meminfo, in bytes. It is part of Cached Bytes, and cannot be dropped, only swapped."),
		ctr("Huge Pages Total", tRaw, 0, detAdvanced, "Huge Pages Total is the number of pages in the kernel's pool of persistent huge pages (HugePages_Total in /proc/meminfo), each of Huge Page Size bytes. Unavailable where the kernel has no hugetlbfs."),
		ctr("Huge Pages Free", tRaw, 0, detAdvanced, "Huge Pages Free is the number of huge pages of the pool not yet allocated (HugePages_Free in /proc/meminfo)."),
		ctr("Huge Pages Reserved", tRaw, 0, detAdvanced, "Huge Pages Reserved is the number of huge pages a mapping has reserved but not yet touched (HugePages_Rsvd in /proc/meminfo): they count as free but are promised."),
		ctr("Huge Page Size Bytes", tLargeRaw, 0, detAdvanced, "Huge Page Size Bytes is the size of the default huge page (Hugepagesize in /proc/meminfo), in bytes."),
	}
	set := newSet("Memory", 4, counterset.Single, detNovice, memPages,
		"The Memory object describes physical and virtual memory of the host, from /proc/meminfo and /proc/vmstat.",
		cs)
	return Object{Set: set, Collect: (*Collector).collectMemory}
}

func (c *Collector) collectMemory(col Collection, w Writer) error {
	m := &c.mem
	vmRead := true
	b, err := c.readProc("meminfo")
	if err != nil {
		return err
	}
	parseKeyValues(b, meminfoKeys[:], m.mem[:], m.memFound[:], &m.memBad)
	m.memBad.report(col, "/proc/meminfo")
	if b, err := c.readProc("vmstat"); err != nil {
		partialf(col, "%v", err)
		m.vmFound = [len(vmstatKeys)]bool{}
		m.vmBad.reset()
		vmRead = false
	} else {
		parseKeyValues(b, vmstatKeys[:], m.vm[:], m.vmFound[:], &m.vmBad)
		m.vmBad.report(col, "/proc/vmstat")
	}
	for k := range m.vm {
		if !m.vmFound[k] {
			m.vm[k] = 0
		}
	}
	for k := range m.mem {
		if !m.memFound[k] {
			m.mem[k] = 0
		}
	}
	v := w.Single()
	mi, vm := &m.mem, &m.vm
	v.Set(memPageFaults, vm[vmPgfault])
	v.Set(memAvailableBytes, mi[miMemAvailable]*1024)
	v.Set(memCommittedBytes, mi[miCommittedAS]*1024)
	v.Set(memCommitLimit, mi[miCommitLimit]*1024)
	v.Set(memPages, vm[vmPswpin]+vm[vmPswpout])
	v.Set(memPagesInput, vm[vmPswpin])
	v.Set(memPageReads, vm[vmPgmajfault])
	v.Set(memPagesOutput, vm[vmPswpout])
	v.Set(memCacheBytes, (mi[miCached]+mi[miBuffers])*1024)
	v.Set(memCommittedInUse, mi[miCommittedAS]/1024)
	v.Set(memCommittedInUseBase, mi[miCommitLimit]/1024)
	v.Set(memAvailableKBytes, mi[miMemAvailable])
	v.Set(memAvailableMBytes, mi[miMemAvailable]/1024)
	v.Set(memFreeZeroBytes, mi[miMemFree]*1024)
	v.Set(memModifiedBytes, (mi[miDirty]+mi[miWriteback])*1024)
	v.Set(memBufferBytes, mi[miBuffers]*1024)
	v.Set(memCachedBytes, mi[miCached]*1024)
	v.Set(memActiveBytes, mi[miActive]*1024)
	v.Set(memInactiveBytes, mi[miInactive]*1024)
	v.Set(memDirtyBytes, mi[miDirty]*1024)
	v.Set(memWritebackBytes, mi[miWriteback]*1024)
	v.Set(memSlabReclaimable, mi[miSReclaimable]*1024)
	v.Set(memSlabUnreclaimable, mi[miSUnreclaim]*1024)
	v.Set(memSharedBytes, mi[miShmem]*1024)
	v.Set(memHugePagesTotal, mi[miHugePagesTotal])
	v.Set(memHugePagesFree, mi[miHugePagesFree])
	v.Set(memHugePagesReserved, mi[miHugePagesRsvd])
	v.Set(memHugePageSize, mi[miHugepagesize]*1024)

	// A value whose line is missing or malformed is not a 0: mark the
	// counters it feeds unavailable, and say which line is missing.
	for k, ok := range m.memFound {
		if !ok {
			if !m.memBad.has(meminfoKeys[k]) && !optionalMeminfo(k) {
				partialf(col, "/proc/meminfo: no %s line", meminfoKeys[k])
			}
			m.unavailable(col, k, -1)
		}
	}
	for k, ok := range m.vmFound {
		if !ok {
			if vmRead && !m.vmBad.has(vmstatKeys[k]) {
				partialf(col, "/proc/vmstat: no %s line", vmstatKeys[k])
			}
			m.unavailable(col, -1, k)
		}
	}
	return nil
}

// unavailable marks the Memory counters computed from meminfo key mi (or
// vmstat key vm; -1 for none) unavailable.
func (m *memState) unavailable(col Collection, mi, vm int) {
	var cs []int
	switch mi {
	case miMemAvailable:
		cs = []int{memAvailableBytes, memAvailableKBytes, memAvailableMBytes}
	case miCommittedAS:
		cs = []int{memCommittedBytes, memCommittedInUse, memCommittedInUseBase}
	case miCommitLimit:
		cs = []int{memCommitLimit, memCommittedInUse, memCommittedInUseBase}
	case miCached:
		cs = []int{memCacheBytes, memCachedBytes}
	case miBuffers:
		cs = []int{memCacheBytes, memBufferBytes}
	case miMemFree:
		cs = []int{memFreeZeroBytes}
	case miDirty:
		cs = []int{memModifiedBytes, memDirtyBytes}
	case miWriteback:
		cs = []int{memModifiedBytes, memWritebackBytes}
	case miActive:
		cs = []int{memActiveBytes}
	case miInactive:
		cs = []int{memInactiveBytes}
	case miSReclaimable:
		cs = []int{memSlabReclaimable}
	case miSUnreclaim:
		cs = []int{memSlabUnreclaimable}
	case miShmem:
		cs = []int{memSharedBytes}
	case miHugePagesTotal:
		cs = []int{memHugePagesTotal}
	case miHugePagesFree:
		cs = []int{memHugePagesFree}
	case miHugePagesRsvd:
		cs = []int{memHugePagesReserved}
	case miHugepagesize:
		cs = []int{memHugePageSize}
	}
	switch vm {
	case vmPgfault:
		cs = []int{memPageFaults}
	case vmPgmajfault:
		cs = []int{memPageReads}
	case vmPswpin:
		cs = []int{memPages, memPagesInput}
	case vmPswpout:
		cs = []int{memPages, memPagesOutput}
	}
	if len(cs) > 0 {
		col.Unavailable(cs...)
	}
}
