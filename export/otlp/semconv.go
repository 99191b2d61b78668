package otlp

import (
	"slices"

	"go.opentelemetry.io/otel/attribute"
)

// Title indexes of the objects the semantic conventions cover. They are
// Windows' English title indexes, which our built-in Linux objects carry
// too (host's TestWindowsTitleIndexes), so the table applies to both:
// counters are identified by their index, never by their name.
const (
	objSystem     = 2
	objMemory     = 4
	objProcess    = 230
	objThread     = 232
	objPhysical   = 234
	objProcessor  = 238
	objNetwork    = 510
	objPagingFile = 700
)

// instKind is the kind of a metric, as the OpenTelemetry instrument that
// would report it.
type instKind uint8

const (
	kindIntCounter   instKind = iota // Int64 Counter: a monotonic cumulative sum
	kindFloatCounter                 // Float64 Counter
	kindIntUpDown                    // Int64 UpDownCounter: a non-monotonic cumulative sum
	kindIntGauge                     // Int64 Gauge
	kindFloatGauge                   // Float64 Gauge
)

// spec declares one metric.
type spec struct {
	name, unit, desc string
	kind             instKind
}

// The semantic-convention metrics (semantic conventions 1.43:
// docs/system/system-metrics.md, process-metrics.md).
var (
	scCPUTime         = spec{"system.cpu.time", "s", "Seconds each logical CPU spent on each mode.", kindFloatCounter}
	scCPUUtilization  = spec{"system.cpu.utilization", "1", "Fraction of the interval between two exports each logical CPU spent on each mode.", kindFloatGauge}
	scMemoryUsage     = spec{"system.memory.usage", "By", "Reports memory in use by state.", kindIntUpDown}
	scMemoryAvailable = spec{"system.memory.linux.available", "By", "An estimate of how much memory is available for starting new applications, without causing swapping.", kindIntUpDown}
	scPagingUsage     = spec{"system.paging.usage", "By", "Unix swap or windows pagefile usage.", kindIntUpDown}
	scPagingFaults    = spec{"system.paging.faults", "{fault}", "The number of page faults.", kindIntCounter}
	scPagingOps       = spec{"system.paging.operations", "{operation}", "The number of paging operations.", kindIntCounter}
	scDiskIO          = spec{"system.disk.io", "By", "Disk bytes transferred.", kindIntCounter}
	scDiskOps         = spec{"system.disk.operations", "{operation}", "Disk operations count.", kindIntCounter}
	scDiskIOTime      = spec{"system.disk.io_time", "s", "Time disk spent activated.", kindFloatCounter}
	scDiskOpTime      = spec{"system.disk.operation_time", "s", "Sum of the time each operation took to complete.", kindFloatCounter}
	scDiskPending     = spec{"system.disk.pending_operations", "{operation}", "The queue size of pending I/O operations.", kindIntUpDown}
	scNetIO           = spec{"system.network.io", "By", "The number of bytes transmitted and received.", kindIntCounter}
	scNetPackets      = spec{"system.network.packet.count", "{packet}", "The number of packets transferred.", kindIntCounter}
	scNetErrors       = spec{"system.network.errors", "{error}", "Count of network errors detected.", kindIntCounter}
	scNetDropped      = spec{"system.network.packet.dropped", "{packet}", "Count of packets that are dropped or discarded even though there was no error.", kindIntCounter}
	scUptime          = spec{"system.uptime", "s", "The time the system has been running.", kindFloatGauge}
	scProcCPUTime     = spec{"process.cpu.time", "s", "Total CPU seconds broken down by different CPU modes.", kindFloatCounter}
	scProcMemory      = spec{"process.memory.usage", "By", "The amount of physical memory in use.", kindIntUpDown}
	scProcVirtual     = spec{"process.memory.virtual", "By", "The amount of committed virtual memory.", kindIntUpDown}
	scProcThreads     = spec{"process.thread.count", "{thread}", "Process threads count.", kindIntUpDown}

	// docs/system/container-metrics.md and docs/hardware/common.md.
	scMemorySlab     = spec{"system.memory.linux.slab.usage", "By", "Reports the memory used by the Linux kernel for managing caches of frequently used objects.", kindIntUpDown}
	scMemoryShared   = spec{"system.memory.linux.shared", "By", "Shared memory used (mostly by tmpfs).", kindIntUpDown}
	scContCPUTime    = spec{"container.cpu.time", "s", "CPU time consumed.", kindFloatCounter}
	scContMemory     = spec{"container.memory.usage", "By", "Memory usage of the container.", kindIntCounter}
	scContWorkingSet = spec{"container.memory.working_set", "By", "Container memory working set.", kindIntUpDown}
	scContFaults     = spec{"container.memory.paging.faults", "{fault}", "Container memory paging faults.", kindIntCounter}
	scContDiskIO     = spec{"container.disk.io", "By", "Disk bytes for the container.", kindIntCounter}
	scHWTemperature  = spec{"hw.temperature", "Cel", "Temperature in degrees Celsius.", kindIntGauge}
	scHWFanSpeed     = spec{"hw.fan.speed", "rpm", "Fan speed in revolutions per minute.", kindIntGauge}
)

// term is one raw value of a rule: counter (title index) of the instance,
// or its base; neg subtracts it.
type term struct {
	counter uint32
	base    bool
	neg     bool
	name    string // the counter's English name, for objectName rules
}

// how is how a rule's terms become the value.
type how uint8

const (
	howCount   how = iota // the sum of the terms, an integer
	howTime               // the sum of the terms in the first term's time base, in seconds
	howElapsed            // PERF_ELAPSED_TIME: (object time - value) / object frequency, seconds
	howCelsius            // tenths of Kelvin to whole degrees Celsius, rounded
)

// rule is one row of the semantic-convention table: the value of metric
// for one instance of object, with the attributes attrs (besides the
// instance's own).
type rule struct {
	object uint32
	// objectName names an object Windows has no counterpart of (package
	// system's Linux-only objects, whose title indexes are given when
	// the host registers them): the rule's object and counters are
	// resolved by English name in the source's title database (see
	// resolveNamed), and its instances are identified by instAttr.
	objectName string
	instAttr   string
	metric     spec
	attrs      []attribute.KeyValue
	terms      []term
	how        how
	scale      uint64 // multiplies a howCount value (KiB to bytes); 0 means 1
}

func plus(counter uint32) term           { return term{counter: counter} }
func named(name string) term             { return term{name: name} }
func namedMinus(name string) term        { return term{name: name, neg: true} }
func minus(counter uint32) term          { return term{counter: counter, neg: true} }
func baseOf(counter uint32) term         { return term{counter: counter, base: true} }
func str(k, v string) attribute.KeyValue { return attribute.String(k, v) }

// Counter title indexes used by the table (Windows English titles).
const (
	cProcessorTime   = 6    // Processor, Process: % Processor Time
	cUserTime        = 142  // % User Time
	cPrivilegedTime  = 144  // % Privileged Time
	cDPCTime         = 696  // Processor: % DPC Time
	cInterruptTime   = 698  // Processor: % Interrupt Time
	cPageFaults      = 28   // Memory: Page Faults/sec
	cAvailableBytes  = 24   // Memory: Available Bytes
	cPageReads       = 42   // Memory: Page Reads/sec
	cPagesInput      = 822  // Memory: Pages Input/sec
	cPagesOutput     = 48   // Memory: Pages Output/sec
	cCacheBytes      = 818  // Memory: Cache Bytes
	cFreeZeroBytes   = 1676 // Memory: Free & Zero Page List Bytes
	cUsage           = 702  // Paging File: % Usage (with its base)
	cQueueLength     = 198  // PhysicalDisk: Current Disk Queue Length
	cDiskSecRead     = 208  // PhysicalDisk: Avg. Disk sec/Read
	cDiskSecWrite    = 210  // PhysicalDisk: Avg. Disk sec/Write
	cDiskReads       = 214  // PhysicalDisk: Disk Reads/sec
	cDiskWrites      = 216  // PhysicalDisk: Disk Writes/sec
	cDiskReadBytes   = 220  // PhysicalDisk: Disk Read Bytes/sec
	cDiskWriteBytes  = 222  // PhysicalDisk: Disk Write Bytes/sec
	cDiskIdleTime    = 1482 // PhysicalDisk: % Idle Time (with its base)
	cBytesReceived   = 264  // Network Interface: Bytes Received/sec
	cBytesSent       = 506  // Network Interface: Bytes Sent/sec
	cPacketsReceived = 266  // Network Interface: Packets Received/sec
	cPacketsSent     = 452  // Network Interface: Packets Sent/sec
	cRecvDiscarded   = 528  // Network Interface: Packets Received Discarded
	cRecvErrors      = 530  // Network Interface: Packets Received Errors
	cSentDiscarded   = 540  // Network Interface: Packets Outbound Discarded
	cSentErrors      = 542  // Network Interface: Packets Outbound Errors
	cSystemUpTime    = 674  // System: System Up Time
	cWorkingSet      = 180  // Process: Working Set
	cVirtualBytes    = 174  // Process: Virtual Bytes
	cThreadCount     = 680  // Process: Thread Count
	cIDProcess       = 784  // Process: ID Process
)

// semconvRules is the table (MAPPING.md shows it). Processor's modes:
// % User Time is user (with nice); % Privileged Time holds interrupt and
// DPC time on Windows and on Linux alike, so system is privileged less
// both and interrupt is their sum; idle is the raw value of % Processor
// Time, a PERF_100NSEC_TIMER_INV whose raw value is the idle time (on
// Linux idle + iowait).
var semconvRules = []rule{
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "user")}, terms: []term{plus(cUserTime)}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "system")}, terms: []term{plus(cPrivilegedTime), minus(cInterruptTime), minus(cDPCTime)}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "interrupt")}, terms: []term{plus(cInterruptTime), plus(cDPCTime)}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "idle")}, terms: []term{plus(cProcessorTime)}, how: howTime},

	{object: objMemory, metric: scMemoryUsage, attrs: []attribute.KeyValue{str("system.memory.state", "free")}, terms: []term{plus(cFreeZeroBytes)}},
	{object: objMemory, metric: scMemoryUsage, attrs: []attribute.KeyValue{str("system.memory.state", "cached")}, terms: []term{plus(cCacheBytes)}},
	{object: objMemory, metric: scMemoryAvailable, terms: []term{plus(cAvailableBytes)}},
	{object: objMemory, metric: scPagingFaults, attrs: []attribute.KeyValue{str("system.paging.fault.type", "major")}, terms: []term{plus(cPageReads)}},
	{object: objMemory, metric: scPagingFaults, attrs: []attribute.KeyValue{str("system.paging.fault.type", "minor")}, terms: []term{plus(cPageFaults), minus(cPageReads)}},
	{object: objMemory, metric: scPagingOps, attrs: []attribute.KeyValue{str("system.paging.direction", "in")}, terms: []term{plus(cPagesInput)}},
	{object: objMemory, metric: scPagingOps, attrs: []attribute.KeyValue{str("system.paging.direction", "out")}, terms: []term{plus(cPagesOutput)}},

	// Paging File's % Usage holds the used KiB over the size in KiB.
	{object: objPagingFile, metric: scPagingUsage, attrs: []attribute.KeyValue{str("system.paging.state", "used")}, terms: []term{plus(cUsage)}, scale: 1024},
	{object: objPagingFile, metric: scPagingUsage, attrs: []attribute.KeyValue{str("system.paging.state", "free")}, terms: []term{baseOf(cUsage), minus(cUsage)}, scale: 1024},

	{object: objPhysical, metric: scDiskIO, attrs: []attribute.KeyValue{str("disk.io.direction", "read")}, terms: []term{plus(cDiskReadBytes)}},
	{object: objPhysical, metric: scDiskIO, attrs: []attribute.KeyValue{str("disk.io.direction", "write")}, terms: []term{plus(cDiskWriteBytes)}},
	{object: objPhysical, metric: scDiskOps, attrs: []attribute.KeyValue{str("disk.io.direction", "read")}, terms: []term{plus(cDiskReads)}},
	{object: objPhysical, metric: scDiskOps, attrs: []attribute.KeyValue{str("disk.io.direction", "write")}, terms: []term{plus(cDiskWrites)}},
	// Busy time: the precision timer's base (the disk's clock) less its
	// idle time, as the conventions say for Windows.
	{object: objPhysical, metric: scDiskIOTime, terms: []term{baseOf(cDiskIdleTime), minus(cDiskIdleTime)}, how: howTime},
	{object: objPhysical, metric: scDiskOpTime, attrs: []attribute.KeyValue{str("disk.io.direction", "read")}, terms: []term{plus(cDiskSecRead)}, how: howTime},
	{object: objPhysical, metric: scDiskOpTime, attrs: []attribute.KeyValue{str("disk.io.direction", "write")}, terms: []term{plus(cDiskSecWrite)}, how: howTime},
	{object: objPhysical, metric: scDiskPending, terms: []term{plus(cQueueLength)}},

	{object: objNetwork, metric: scNetIO, attrs: []attribute.KeyValue{str("network.io.direction", "receive")}, terms: []term{plus(cBytesReceived)}},
	{object: objNetwork, metric: scNetIO, attrs: []attribute.KeyValue{str("network.io.direction", "transmit")}, terms: []term{plus(cBytesSent)}},
	{object: objNetwork, metric: scNetPackets, attrs: []attribute.KeyValue{str("network.io.direction", "receive")}, terms: []term{plus(cPacketsReceived)}},
	{object: objNetwork, metric: scNetPackets, attrs: []attribute.KeyValue{str("network.io.direction", "transmit")}, terms: []term{plus(cPacketsSent)}},
	{object: objNetwork, metric: scNetErrors, attrs: []attribute.KeyValue{str("network.io.direction", "receive")}, terms: []term{plus(cRecvErrors)}},
	{object: objNetwork, metric: scNetErrors, attrs: []attribute.KeyValue{str("network.io.direction", "transmit")}, terms: []term{plus(cSentErrors)}},
	{object: objNetwork, metric: scNetDropped, attrs: []attribute.KeyValue{str("network.io.direction", "receive")}, terms: []term{plus(cRecvDiscarded)}},
	{object: objNetwork, metric: scNetDropped, attrs: []attribute.KeyValue{str("network.io.direction", "transmit")}, terms: []term{plus(cSentDiscarded)}},

	{object: objSystem, metric: scUptime, terms: []term{plus(cSystemUpTime)}, how: howElapsed},

	{object: objProcess, metric: scProcCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "user")}, terms: []term{plus(cUserTime)}, how: howTime},
	{object: objProcess, metric: scProcCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "system")}, terms: []term{plus(cPrivilegedTime)}, how: howTime},
	{object: objProcess, metric: scProcMemory, terms: []term{plus(cWorkingSet)}},
	{object: objProcess, metric: scProcVirtual, terms: []term{plus(cVirtualBytes)}},
	{object: objProcess, metric: scProcThreads, terms: []term{plus(cThreadCount)}},
}

// The objects of package system that Windows has no counterpart of, by
// their English names (their counters too).
const (
	objNameControlGroup = "Control Group"
	objNameTempSensor   = "Temperature Sensor"
	objNameThermalZone  = "Thermal Zone Information"
	objNameFan          = "Fan"
)

// namedRules map the Linux-only objects. A control group is identified by
// perf.instance (its path), as in the generic mapping: one exporter
// reports every group of the host, so the conventions' container resource
// attributes cannot say which. The hardware metrics carry hw.id, the
// instance name (chip:label, the zone type) with PDH's #n for duplicates.
var namedRules = []rule{
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "user")}, terms: []term{named("Current % User Mode Time")}, how: howTime},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "system")}, terms: []term{named("Current % Kernel Mode Time")}, how: howTime},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContMemory, terms: []term{named("Memory Usage Bytes")}},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContWorkingSet, terms: []term{named("Memory Working Set Bytes")}},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContFaults, attrs: []attribute.KeyValue{str("system.paging.fault.type", "major")}, terms: []term{named("Memory Major Page Faults/sec")}},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContFaults, attrs: []attribute.KeyValue{str("system.paging.fault.type", "minor")}, terms: []term{named("Memory Page Faults/sec"), namedMinus("Memory Major Page Faults/sec")}},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContDiskIO, attrs: []attribute.KeyValue{str("disk.io.direction", "read")}, terms: []term{named("Block Read Bytes/sec")}},
	{objectName: objNameControlGroup, instAttr: "perf.instance", metric: scContDiskIO, attrs: []attribute.KeyValue{str("disk.io.direction", "write")}, terms: []term{named("Block Write Bytes/sec")}},
	{objectName: objNameTempSensor, instAttr: "hw.id", metric: scHWTemperature, terms: []term{named("High Precision Temperature")}, how: howCelsius},
	{objectName: objNameThermalZone, instAttr: "hw.id", metric: scHWTemperature, terms: []term{named("High Precision Temperature")}, how: howCelsius},
	{objectName: objNameFan, instAttr: "hw.id", metric: scHWFanSpeed, terms: []term{named("Fan Speed (RPM)")}},
}

// linuxRules refine the table's rules for Windows objects where the source
// has Linux's own counters (package system's Processor and Memory, issue
// 45; their title indexes are given when the host registers them, so they
// are named): a rule here replaces the table's rule of the same object,
// metric and attributes, and adds the states Windows' counters fold
// away. Processor's user is % User Time less % Nice Time (the kernel's
// user), idle the inverse timer's idle less % IO Wait Time; Memory's
// cached is Cached alone, Cache Bytes being Cached + Buffers.
var linuxRules = []rule{
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "user")}, terms: []term{plus(cUserTime), namedMinus("% Nice Time")}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "nice")}, terms: []term{named("% Nice Time")}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "idle")}, terms: []term{plus(cProcessorTime), namedMinus("% IO Wait Time")}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "iowait")}, terms: []term{named("% IO Wait Time")}, how: howTime},
	{object: objProcessor, metric: scCPUTime, attrs: []attribute.KeyValue{str("cpu.mode", "steal")}, terms: []term{named("% Steal Time")}, how: howTime},
	{object: objMemory, metric: scMemoryUsage, attrs: []attribute.KeyValue{str("system.memory.state", "cached")}, terms: []term{named("Cached Bytes")}},
	{object: objMemory, metric: scMemoryUsage, attrs: []attribute.KeyValue{str("system.memory.state", "buffers")}, terms: []term{named("Buffer Bytes")}},
	{object: objMemory, metric: scMemoryShared, terms: []term{named("Shared Memory Bytes")}},
	{object: objMemory, metric: scMemorySlab, attrs: []attribute.KeyValue{str("system.memory.linux.slab.state", "reclaimable")}, terms: []term{named("Slab Reclaimable Bytes")}},
	{object: objMemory, metric: scMemorySlab, attrs: []attribute.KeyValue{str("system.memory.linux.slab.state", "unreclaimable")}, terms: []term{named("Slab Unreclaimable Bytes")}},
}

// tableRules returns the table's rules with those of linuxRules whose
// counters db knows in place of the ones they refine.
func tableRules(db titleIndex) []rule {
	out := slices.Clone(semconvRules)
	for _, r := range resolve(linuxRules, db) {
		i := slices.IndexFunc(out, func(t rule) bool {
			return t.object == r.object && t.metric.name == r.metric.name && slices.Equal(t.attrs, r.attrs)
		})
		if i >= 0 {
			out[i] = r
		} else {
			out = append(out, r)
		}
	}
	return out
}

// titleIndex is what resolveNamed needs of a title database.
type titleIndex interface {
	Index(name string) (uint32, bool)
}

// resolveNamed returns the named rules whose object and counters db
// knows, with their title indexes filled in; the others are left out (a
// host without those objects, a log of another system).
func resolveNamed(db titleIndex) []rule { return resolve(namedRules, db) }

// resolve returns the rules whose named object (if any) and named
// counters db knows, with their title indexes filled in.
func resolve(rules []rule, db titleIndex) []rule {
	var out []rule
next:
	for _, r := range rules {
		if r.objectName != "" {
			idx, ok := db.Index(r.objectName)
			if !ok {
				continue
			}
			r.object = idx
		}
		r.terms = append([]term(nil), r.terms...)
		for i := range r.terms {
			if r.terms[i].name == "" {
				continue
			}
			c, ok := db.Index(r.terms[i].name)
			if !ok {
				continue next
			}
			r.terms[i].counter = c
		}
		out = append(out, r)
	}
	return out
}

// covered lists, per object, the counters the table exports (by title
// index): the generic mapping leaves them out unless GenericAll. Process's
// ID Process is an attribute of its metrics.
func covered(rules []rule) map[uint32]map[uint32]bool {
	m := map[uint32]map[uint32]bool{}
	for _, r := range rules {
		if m[r.object] == nil {
			m[r.object] = map[uint32]bool{}
		}
		for _, tm := range r.terms {
			m[r.object][tm.counter] = true
		}
	}
	if m[objProcess] != nil {
		m[objProcess][cIDProcess] = true
	}
	return m
}
