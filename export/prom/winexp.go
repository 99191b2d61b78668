package prom

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// The windows_exporter profile (ProfileWindowsExporter) writes the
// metric names, types, labels and units of windows_exporter's cpu, cs,
// os, memory, logical_disk, physical_disk, net, process, system and
// pagefile collectors, each read from the Windows counter
// windows_exporter reads it from, in the spellings of its releases
// before 0.30, since 0.30, or both (wxVer). Only the names whose counter
// perfc's Linux objects have are written (MAPPING.md, "The
// windows_exporter profile", lists them and those left out); wxMetrics
// is that list in code. The names no counter holds (host names, OS
// release, memory size, services) are wxFacts, written from what the
// program gives (winexp_facts.go).

// wxPrefix starts every name of the profile but node_exporter's (wxNode).
const wxPrefix = "windows_"

// wxNode starts the names of the Linux counters windows_exporter has no
// name for and node_exporter has: they are written under node_exporter's
// names (node_load1, node_memory_Buffers_bytes), so that a Linux panel
// beside the Windows ones reads them as it reads node_exporter.
const wxNode = "node_"

// wxValue is how a sample's value is read from a counter.
type wxValue int

const (
	wxRaw         wxValue = iota // the counter's value (an integer)
	wxSeconds                    // the value divided by the counter's time base
	wxScaled                     // the value × factor
	wxBaseScaled                 // the counter's base × factor
	wxStart                      // ELAPSED_TIME: the start, in seconds since the epoch
	wxCount                      // the number of instances of the object (no counter)
	wxShown                      // the value as typeperf shows it (calc.Format) × factor
	wxBaseLess                   // (the counter's base − its value) × factor
	wxBaseSum                    // the sum over the instances of the base × factor (one sample)
	wxBaseLessSum                // the sum over the instances of (base − value) × factor (one sample)
)

// wxVer is which of windows_exporter's spellings a name belongs to: its
// releases before 0.30 (the collector docs the profile first followed:
// cs, os_processes, system_system_up_time...), 0.30 and later (cs
// folded into cpu, memory and os; os's counts moved to system, memory
// and pagefile), or both. Options.WindowsExporterVersion chooses.
type wxVer uint8

const (
	wxBoth wxVer = iota
	wxOld
	wxNew
)

// has reports whether a name of spelling v is written under the chosen
// spelling c (wxBoth: every name).
func (c wxVer) has(v wxVer) bool { return c == wxBoth || v == wxBoth || v == c }

// wxOnly are the names of wxMetrics that belong to one spelling; the
// others are written in both.
var wxOnly = map[string]wxVer{
	"cs_logical_processors":              wxOld,
	"cpu_logical_processor":              wxNew,
	"os_physical_memory_free_bytes":      wxOld,
	"memory_physical_free_bytes":         wxNew,
	"os_processes":                       wxOld,
	"system_processes":                   wxNew,
	"system_system_up_time":              wxOld,
	"system_boot_time_timestamp_seconds": wxNew,
	"system_boot_time_timestamp":         wxNew,
	"os_paging_limit_bytes":              wxOld,
	"os_paging_free_bytes":               wxOld,
	"pagefile_limit_bytes":               wxNew,
	"pagefile_free_bytes":                wxNew,
}

// wxSource is one counter that gives a metric's samples.
type wxSource struct {
	counter string  // the counter's name, folded; "" for wxCount
	extra   string  // constant labels of its samples (mode="user")
	value   wxValue // how the value is read
	factor  float64 // wxScaled, wxBaseScaled
}

// wxMetric is one metric family of windows_exporter.
type wxMetric struct {
	name    string // without wxPrefix; node_exporter's whole name where it starts with wxNode
	counter bool   // a counter (samples end in _total already), else a gauge
	object  string // wxCPU, or the object's folded name
	help    string
	sources []wxSource
}

// wxCPU stands for the cpu collector's object: Processor Information
// where the source has it, else Processor (as windows_exporter chooses).
const wxCPU = "\x00cpu"

// wxCollectors name the collector of each object, as windows_exporter's
// windows_exporter_collector_success labels it.
var wxCollectors = map[string]string{
	"processor information": "cpu",
	"processor":             "cpu",
	"memory":                "memory",
	"logicaldisk":           "logical_disk",
	"physicaldisk":          "physical_disk",
	"network interface":     "net",
	"process":               "process",
	"system":                "system",
	"paging file":           "pagefile",
}

// wxDefaultObjects are the objects of an export that names none: those
// of windows_exporter's collectors enabled by default (process is not).
// Paging File stands for the older os collector's paging file sizes and
// the newer pagefile collector.
var wxDefaultObjects = []string{"Processor Information", "Processor", "Memory", "LogicalDisk", "PhysicalDisk", "Network Interface", "System", "Paging File"}

// fullName is the metric's name as written.
func (m *wxMetric) fullName() string {
	if strings.HasPrefix(m.name, wxNode) {
		return m.name
	}
	return wxPrefix + m.name
}

// nodeMem is node_exporter's meminfo gauge of a /proc/meminfo field
// (node_memory_<field>_bytes, or without _bytes for a count of pages).
func nodeMem(field, counter string, bytes bool) wxMetric {
	name := wxNode + "memory_" + field
	if bytes {
		name += "_bytes"
	}
	return wxMetric{name, false, "memory", "Memory information field " + strings.TrimPrefix(name, wxNode+"memory_") + ".", []wxSource{src(counter, wxRaw)}}
}

func src(counter string, v wxValue) wxSource { return wxSource{counter: counter, value: v} }
func scaled(counter string, v wxValue, f float64) wxSource {
	return wxSource{counter: counter, value: v, factor: f}
}
func mode(counter, m string, v wxValue) wxSource {
	return wxSource{counter: counter, value: v, extra: `mode="` + m + `"`}
}

// wxMetrics are the families the profile writes, in the order written
// (per object). Names, types, labels and units from windows_exporter's
// docs/collector.<name>.md (MAPPING.md records the commits).
var wxMetrics = []wxMetric{
	// cpu (label core)
	{"cpu_time_total", true, wxCPU, "Time that processor spent in different modes (dpc, idle, interrupt, privileged, user)", []wxSource{
		mode("% dpc time", "dpc", wxSeconds), mode("% idle time", "idle", wxSeconds), mode("% interrupt time", "interrupt", wxSeconds),
		mode("% privileged time", "privileged", wxSeconds), mode("% user time", "user", wxSeconds)}},
	{"cpu_interrupts_total", true, wxCPU, "Total number of received and serviced hardware interrupts", []wxSource{src("interrupts/sec", wxRaw)}},
	{"cpu_dpcs_total", true, wxCPU, "Total number of received and serviced deferred procedure calls (DPCs)", []wxSource{src("dpcs queued/sec", wxRaw)}},
	{"cpu_core_frequency_mhz", false, wxCPU, "Core frequency in megahertz", []wxSource{src("processor frequency", wxRaw)}},
	// cs (from the cpu object's instances), cpu's since 0.30
	{"cs_logical_processors", false, wxCPU, "Number of installed logical processors", []wxSource{{value: wxCount}}},
	{"cpu_logical_processor", false, wxCPU, "Total number of logical processors", []wxSource{{value: wxCount}}},
	// memory
	{"memory_available_bytes", false, "memory", "The amount of physical memory immediately available for allocation to a process or for system use. It is equal to the sum of memory assigned to the standby (cached), free and zero page lists", []wxSource{src("available bytes", wxRaw)}},
	{"memory_cache_bytes", false, "memory", "Number of bytes currently being used by the file system cache", []wxSource{src("cache bytes", wxRaw)}},
	{"memory_commit_limit", false, "memory", "Amount of virtual memory, in bytes, that can be committed without having to extend the paging file(s)", []wxSource{src("commit limit", wxRaw)}},
	{"memory_committed_bytes", false, "memory", "Amount of committed virtual memory, in bytes", []wxSource{src("committed bytes", wxRaw)}},
	{"memory_free_and_zero_page_list_bytes", false, "memory", "The amount of physical memory, in bytes, that is assigned to the free and zero page lists", []wxSource{src("free & zero page list bytes", wxRaw)}},
	{"memory_modified_page_list_bytes", false, "memory", "The amount of physical memory, in bytes, that is assigned to the modified page list", []wxSource{src("modified page list bytes", wxRaw)}},
	{"memory_page_faults_total", true, "memory", "Overall rate at which faulted pages are handled by the processor", []wxSource{src("page faults/sec", wxRaw)}},
	{"memory_swap_page_reads_total", true, "memory", "Number of disk page reads (a single read operation reading several pages is still only counted once)", []wxSource{src("page reads/sec", wxRaw)}},
	{"memory_swap_pages_read_total", true, "memory", "Number of pages read across all page reads (ie counting all pages read even if they are read in a single operation)", []wxSource{src("pages input/sec", wxRaw)}},
	{"memory_swap_pages_written_total", true, "memory", "Number of pages written across all page writes (ie counting all pages written even if they are written in a single operation)", []wxSource{src("pages output/sec", wxRaw)}},
	{"memory_swap_page_operations_total", true, "memory", "Total number of swap page read and writes (PagesPersec)", []wxSource{src("pages/sec", wxRaw)}},
	// os's free physical memory before 0.30, memory's since
	{"os_physical_memory_free_bytes", false, "memory", "OperatingSystem.FreePhysicalMemory", []wxSource{src("available bytes", wxRaw)}},
	{"memory_physical_free_bytes", false, "memory", "The amount of physical memory currently available, in bytes. This is the amount of physical memory that can be immediately reused without having to write its contents to disk first. It is the sum of the size of the standby, free, and zero lists.", []wxSource{src("available bytes", wxRaw)}},
	// logical_disk (label volume)
	{"logical_disk_requests_queued", false, "logicaldisk", "Number of requests outstanding on the disk at the time the performance data is collected", []wxSource{src("current disk queue length", wxRaw)}},
	{"logical_disk_read_bytes_total", true, "logicaldisk", "Rate at which bytes are transferred from the disk during read operations", []wxSource{src("disk read bytes/sec", wxRaw)}},
	{"logical_disk_reads_total", true, "logicaldisk", "Rate of read operations on the disk", []wxSource{src("disk reads/sec", wxRaw)}},
	{"logical_disk_write_bytes_total", true, "logicaldisk", "Rate at which bytes are transferred to the disk during write operations", []wxSource{src("disk write bytes/sec", wxRaw)}},
	{"logical_disk_writes_total", true, "logicaldisk", "Rate of write operations on the disk", []wxSource{src("disk writes/sec", wxRaw)}},
	{"logical_disk_read_seconds_total", true, "logicaldisk", "Seconds the disk was busy servicing read requests", []wxSource{src("% disk read time", wxSeconds)}},
	{"logical_disk_write_seconds_total", true, "logicaldisk", "Seconds the disk was busy servicing write requests", []wxSource{src("% disk write time", wxSeconds)}},
	{"logical_disk_free_bytes", false, "logicaldisk", "Unused space of the disk in bytes", []wxSource{scaled("% free space", wxScaled, 1<<20)}},
	{"logical_disk_size_bytes", false, "logicaldisk", "Total size of the disk in bytes", []wxSource{scaled("% free space", wxBaseScaled, 1<<20)}},
	{"logical_disk_idle_seconds_total", true, "logicaldisk", "Seconds the disk was idle (not servicing read/write requests)", []wxSource{src("% idle time", wxSeconds)}},
	// later logical_disk (0.2x and since): the queue integrals and the
	// latency sums, raw values in seconds as windows_exporter writes them
	{"logical_disk_avg_read_requests_queued", false, "logicaldisk", "Average number of read requests that were queued for the selected disk during the sample interval (LogicalDisk.AvgDiskReadQueueLength)", []wxSource{src("avg. disk read queue length", wxSeconds)}},
	{"logical_disk_avg_write_requests_queued", false, "logicaldisk", "Average number of write requests that were queued for the selected disk during the sample interval (LogicalDisk.AvgDiskWriteQueueLength)", []wxSource{src("avg. disk write queue length", wxSeconds)}},
	{"logical_disk_read_latency_seconds_total", true, "logicaldisk", "Shows the average time, in seconds, of a read operation from the disk (LogicalDisk.AvgDiskSecPerRead)", []wxSource{src("avg. disk sec/read", wxSeconds)}},
	{"logical_disk_write_latency_seconds_total", true, "logicaldisk", "Shows the average time, in seconds, of a write operation to the disk (LogicalDisk.AvgDiskSecPerWrite)", []wxSource{src("avg. disk sec/write", wxSeconds)}},
	{"logical_disk_read_write_latency_seconds_total", true, "logicaldisk", "Shows the time, in seconds, of the average disk transfer (LogicalDisk.AvgDiskSecPerTransfer)", []wxSource{src("avg. disk sec/transfer", wxSeconds)}},
	// physical_disk (label disk)
	{"physical_disk_requests_queued", false, "physicaldisk", "Number of requests outstanding on the disk at the time the performance data is collected", []wxSource{src("current disk queue length", wxRaw)}},
	{"physical_disk_read_bytes_total", true, "physicaldisk", "Rate at which bytes are transferred from the disk during read operations", []wxSource{src("disk read bytes/sec", wxRaw)}},
	{"physical_disk_reads_total", true, "physicaldisk", "Rate of read operations on the disk", []wxSource{src("disk reads/sec", wxRaw)}},
	{"physical_disk_write_bytes_total", true, "physicaldisk", "Rate at which bytes are transferred to the disk during write operations", []wxSource{src("disk write bytes/sec", wxRaw)}},
	{"physical_disk_writes_total", true, "physicaldisk", "Rate of write operations on the disk", []wxSource{src("disk writes/sec", wxRaw)}},
	{"physical_disk_read_seconds_total", true, "physicaldisk", "Seconds the disk was busy servicing read requests", []wxSource{src("% disk read time", wxSeconds)}},
	{"physical_disk_write_seconds_total", true, "physicaldisk", "Seconds the disk was busy servicing write requests", []wxSource{src("% disk write time", wxSeconds)}},
	{"physical_disk_idle_seconds_total", true, "physicaldisk", "Seconds the disk was idle (not servicing read/write requests)", []wxSource{src("% idle time", wxSeconds)}},
	{"physical_disk_read_latency_seconds_total", true, "physicaldisk", "Shows the average time, in seconds, of a read operation from the disk (PhysicalDisk.AvgDiskSecPerRead)", []wxSource{src("avg. disk sec/read", wxSeconds)}},
	{"physical_disk_write_latency_seconds_total", true, "physicaldisk", "Shows the average time, in seconds, of a write operation to the disk (PhysicalDisk.AvgDiskSecPerWrite)", []wxSource{src("avg. disk sec/write", wxSeconds)}},
	{"physical_disk_read_write_latency_seconds_total", true, "physicaldisk", "Shows the time, in seconds, of the average disk transfer (PhysicalDisk.AvgDiskSecPerTransfer)", []wxSource{src("avg. disk sec/transfer", wxSeconds)}},
	// net (label nic)
	{"net_bytes_received_total", true, "network interface", "Total bytes received by interface", []wxSource{src("bytes received/sec", wxRaw)}},
	{"net_bytes_sent_total", true, "network interface", "Total bytes transmitted by interface", []wxSource{src("bytes sent/sec", wxRaw)}},
	{"net_bytes_total", true, "network interface", "Total bytes received and transmitted by interface", []wxSource{src("bytes total/sec", wxRaw)}},
	{"net_packets_outbound_discarded_total", true, "network interface", "Total outbound packets that were chosen to be discarded even though no errors had been detected to prevent transmission", []wxSource{src("packets outbound discarded", wxRaw)}},
	{"net_packets_outbound_errors_total", true, "network interface", "Total packets that could not be transmitted due to errors", []wxSource{src("packets outbound errors", wxRaw)}},
	{"net_packets_received_discarded_total", true, "network interface", "Total inbound packets that were chosen to be discarded even though no errors had been detected to prevent delivery", []wxSource{src("packets received discarded", wxRaw)}},
	{"net_packets_received_errors_total", true, "network interface", "Total packets that could not be received due to errors", []wxSource{src("packets received errors", wxRaw)}},
	{"net_packets_received_total", true, "network interface", "Total packets received by interface", []wxSource{src("packets received/sec", wxRaw)}},
	{"net_packets_total", true, "network interface", "Total packets received and transmitted by interface", []wxSource{src("packets/sec", wxRaw)}},
	{"net_packets_sent_total", true, "network interface", "Total packets transmitted by interface", []wxSource{src("packets sent/sec", wxRaw)}},
	{"net_current_bandwidth_bytes", false, "network interface", "Estimate of the interface's current bandwidth in bytes per second", []wxSource{scaled("current bandwidth", wxScaled, 1.0/8)}},
	// process (labels process, process_id)
	{"process_start_time_seconds_timestamp", false, "process", "Epoch time (seconds since 1970/1/1) of process start.", []wxSource{src("elapsed time", wxStart)}},
	{"process_cpu_time_total", true, "process", "Returns elapsed time that all of the threads of this process used the processor to execute instructions by mode (privileged, user).", []wxSource{
		mode("% privileged time", "privileged", wxSeconds), mode("% user time", "user", wxSeconds)}},
	{"process_handles", false, "process", "Total number of handles the process has open.", []wxSource{src("handle count", wxRaw)}},
	{"process_io_bytes_total", true, "process", "Bytes issued to I/O operations in different modes (read, write, other).", []wxSource{
		mode("io read bytes/sec", "read", wxRaw), mode("io write bytes/sec", "write", wxRaw), mode("io other bytes/sec", "other", wxRaw)}},
	{"process_io_operations_total", true, "process", "I/O operations issued in different modes (read, write, other).", []wxSource{
		mode("io read operations/sec", "read", wxRaw), mode("io write operations/sec", "write", wxRaw), mode("io other operations/sec", "other", wxRaw)}},
	{"process_page_faults_total", true, "process", "Page faults by the threads executing in this process.", []wxSource{src("page faults/sec", wxRaw)}},
	{"process_priority_base", false, "process", "Current base priority of this process.", []wxSource{src("priority base", wxRaw)}},
	{"process_private_bytes", false, "process", "Current number of bytes this process has allocated that cannot be shared with other processes.", []wxSource{src("private bytes", wxRaw)}},
	{"process_threads", false, "process", "Number of threads currently active in this process.", []wxSource{src("thread count", wxRaw)}},
	{"process_virtual_bytes", false, "process", "Current size, in bytes, of the virtual address space that the process is using.", []wxSource{src("virtual bytes", wxRaw)}},
	{"process_working_set_private_bytes", false, "process", "Size of the working set, in bytes, that is use for this process only and not shared nor shareable by other processes.", []wxSource{src("working set - private", wxRaw)}},
	{"process_working_set_peak_bytes", false, "process", "Maximum size, in bytes, of the Working Set of this process at any point in time.", []wxSource{src("working set peak", wxRaw)}},
	{"process_working_set_bytes", false, "process", "Maximum number of bytes in the working set of this process at any point in time.", []wxSource{src("working set", wxRaw)}},
	// system, and os from the System object
	{"system_context_switches_total", true, "system", "Total number of context switches", []wxSource{src("context switches/sec", wxRaw)}},
	{"system_processor_queue_length", false, "system", "Number of threads in the processor queue. There is a single queue for processor time even on computers with multiple processors.", []wxSource{src("processor queue length", wxRaw)}},
	{"system_system_up_time", false, "system", "Time of last boot of system", []wxSource{src("system up time", wxStart)}},
	{"system_threads", false, "system", "Number of Windows system threads", []wxSource{src("threads", wxRaw)}},
	{"os_processes", false, "system", "Number of process contexts currently loaded or running on the operating system", []wxSource{src("processes", wxRaw)}},
	// system since 0.30: processes, and the boot time under 0.30's and 0.31's names
	{"system_processes", false, "system", "Current number of processes (WMI source: PerfOS_System.Processes)", []wxSource{src("processes", wxRaw)}},
	{"system_boot_time_timestamp_seconds", false, "system", "Unix timestamp of system boot time", []wxSource{src("system up time", wxStart)}},
	{"system_boot_time_timestamp", false, "system", "Unix timestamp of system boot time", []wxSource{src("system up time", wxStart)}},
	// Paging File: os's sums before 0.30 (KiB × 1024), pagefile's per file since (label file)
	{"os_paging_limit_bytes", false, "paging file", "OperatingSystem.SizeStoredInPagingFiles", []wxSource{scaled("% usage", wxBaseSum, 1024)}},
	{"os_paging_free_bytes", false, "paging file", "OperatingSystem.FreeSpaceInPagingFiles", []wxSource{scaled("% usage", wxBaseLessSum, 1024)}},
	{"pagefile_limit_bytes", false, "paging file", "Number of bytes that can be stored in the operating system paging files. 0 (zero) indicates that there are no paging files", []wxSource{scaled("% usage", wxBaseScaled, 1024)}},
	{"pagefile_free_bytes", false, "paging file", "Number of bytes that can be mapped into the operating system paging files without causing any other pages to be swapped out", []wxSource{scaled("% usage", wxBaseLess, 1024)}},
	// Linux's own numbers (package system, issue 45), under node_exporter's
	// names: its loadavg, stat and meminfo collectors.
	{"node_load1", false, "system", "1m load average.", []wxSource{scaled("load average (1 minute)", wxShown, 1)}},
	{"node_load5", false, "system", "5m load average.", []wxSource{scaled("load average (5 minutes)", wxShown, 1)}},
	{"node_load15", false, "system", "15m load average.", []wxSource{scaled("load average (15 minutes)", wxShown, 1)}},
	{"node_procs_running", false, "system", "Number of processes in runnable state.", []wxSource{src("running tasks", wxRaw)}},
	{"node_procs_blocked", false, "system", "Number of processes blocked waiting for I/O to complete.", []wxSource{src("blocked tasks", wxRaw)}},
	{"node_forks_total", true, "system", "Total number of forks.", []wxSource{src("forks/sec", wxRaw)}},
	nodeMem("Buffers", "buffer bytes", true),
	nodeMem("Cached", "cached bytes", true),
	nodeMem("Active", "active bytes", true),
	nodeMem("Inactive", "inactive bytes", true),
	nodeMem("Dirty", "dirty bytes", true),
	nodeMem("Writeback", "writeback bytes", true),
	nodeMem("SReclaimable", "slab reclaimable bytes", true),
	nodeMem("SUnreclaim", "slab unreclaimable bytes", true),
	nodeMem("Shmem", "shared memory bytes", true),
	nodeMem("HugePages_Total", "huge pages total", false),
	nodeMem("HugePages_Free", "huge pages free", false),
	nodeMem("HugePages_Rsvd", "huge pages reserved", false),
	nodeMem("Hugepagesize", "huge page size bytes", true),
}

// WindowsExporterNames returns the metric names the windows_exporter
// profile can write in any spelling (every family of wxMetrics and
// wxFacts, and the self-metrics), sorted: the list MAPPING.md documents.
func WindowsExporterNames() []string {
	var out []string
	for _, m := range wxMetrics {
		out = append(out, m.fullName())
	}
	for _, fc := range wxFacts {
		out = append(out, wxPrefix+fc.name)
	}
	out = append(out, wxPrefix+"exporter_build_info", wxPrefix+"exporter_collector_success", wxPrefix+"exporter_collector_duration_seconds")
	slices.Sort(out)
	return out
}

// wxLayout is an object's families in the profile: each source's
// counter definition resolved, the TYPE and HELP lines written. It is
// kept while the object's definitions do not change.
type wxLayout struct {
	defs []perfdata.CounterDef
	fams []wxFamily
	pid  perfdata.CounterDef
	has  bool // pid found
}

type wxFamily struct {
	m      *wxMetric
	header [2][]byte
	srcs   []wxResolved
}

type wxResolved struct {
	wxSource
	def, base perfdata.CounterDef
	hasBase   bool
}

// wxLayoutOf returns object o's families in the profile.
func (col *Collector) wxLayoutOf(db *titles.DB, o perfdata.Object, key string) *wxLayout {
	st := &col.st
	idx := o.NameIndex()
	var buf [64]perfdata.CounterDef
	cur := o.AppendCounters(buf[:0])
	if lay, ok := st.wx[idx]; ok && slices.Equal(lay.defs, cur) {
		return lay
	}
	lay := &wxLayout{defs: slices.Clone(cur)}
	byName := map[string]int{}
	for i, d := range lay.defs {
		if d.Type.IsBase() {
			continue
		}
		n := fold(db.Name(d.NameIndex))
		if _, ok := byName[n]; !ok {
			byName[n] = i
		}
		if n == "id process" && !lay.has {
			lay.pid, lay.has = d, true
		}
	}
	for mi := range wxMetrics {
		m := &wxMetrics[mi]
		if m.object != key || !col.c.wxVersion.has(wxOnly[m.name]) {
			continue
		}
		fam := wxFamily{m: m}
		for _, s := range m.sources {
			r := wxResolved{wxSource: s}
			if s.value != wxCount {
				i, ok := byName[s.counter]
				if !ok {
					continue
				}
				r.def = lay.defs[i]
				if s.value == wxBaseScaled || s.value == wxBaseLess || s.value == wxBaseSum || s.value == wxBaseLessSum || s.value == wxShown && r.def.Type.NeedsBase() {
					if i+1 >= len(lay.defs) || !lay.defs[i+1].Type.IsBase() {
						continue
					}
					r.base, r.hasBase = lay.defs[i+1], true
				}
			}
			fam.srcs = append(fam.srcs, r)
		}
		if len(fam.srcs) == 0 {
			continue
		}
		typ := "gauge"
		fname, sample := m.fullName(), m.fullName()
		if m.counter {
			typ = "counter"
			fname = strings.TrimSuffix(fname, "_total")
		}
		fam.header[Text] = []byte("# HELP " + sample + " " + m.help + "\n# TYPE " + sample + " " + typ + "\n")
		fam.header[OpenMetrics] = []byte("# TYPE " + fname + " " + typ + "\n# HELP " + fname + " " + m.help + "\n")
		lay.fams = append(lay.fams, fam)
	}
	st.wx[idx] = lay
	return lay
}

// wxKey is the wxMetrics object key of object name, and whether the
// profile maps it.
func wxKey(name string) (string, bool) {
	f := fold(name)
	switch f {
	case "processor information", "processor":
		return wxCPU, true
	}
	_, ok := wxCollectors[f]
	return f, ok
}

// writeWinObject writes the profile's families of one object.
func (col *Collector) writeWinObject(w []byte, f Format, db *titles.DB, h *perfdata.Header, smp *pdh.Sample, o perfdata.Object) []byte {
	st := &col.st
	idx := o.NameIndex()
	key, ok := wxKey(db.Name(idx))
	if !ok {
		return w
	}
	lay := col.wxLayoutOf(db, o, key)
	if len(lay.fams) == 0 {
		return w
	}
	col.wxRowsOf(db, smp, o, lay, key)
	if len(st.rows) == 0 && key != "paging file" {
		// (a host without swap has paging files of 0 bytes: the sums
		// are written)
		return w
	}
	col.missingOf(smp, idx)
	clk := clocksOf(h, o)
	wallSec := float64(h.PerfTime100nSec-perfdata.FileTime(time.Unix(0, 0))) / 1e7
	if h.PerfTime100nSec == 0 {
		wallSec = float64(h.SystemTime.Time().UnixNano()) / 1e9
	}
	for fi := range lay.fams {
		fam := &lay.fams[fi]
		mark, n := len(w), 0
		w = append(w, fam.header[f]...)
		sample := fam.m.fullName()
		for si := range fam.srcs {
			s := &fam.srcs[si]
			switch s.value {
			case wxCount:
				w = append(w, sample...)
				w = append(w, ' ')
				w = strconv.AppendInt(w, int64(len(st.rows)), 10)
				w = append(w, '\n')
				n++
			case wxBaseSum, wxBaseLessSum:
				var sum float64
				known := true
				for ri := range st.rows {
					r := &st.rows[ri]
					if st.missing != nil && col.isMissing(r.pos, s.def.NameIndex) {
						known = false
						break
					}
					b := float64(int64(r.blk.Value(s.base)))
					if s.value == wxBaseLessSum {
						b -= float64(int64(r.blk.Value(s.def)))
					}
					sum += b * s.factor
				}
				if known {
					w = append(w, sample...)
					w = append(w, ' ')
					w = strconv.AppendFloat(w, sum, 'g', -1, 64)
					w = append(w, '\n')
					n++
				}
			}
		}
		for ri := range st.rows {
			r := &st.rows[ri]
			for si := range fam.srcs {
				s := &fam.srcs[si]
				if s.value == wxCount || s.value == wxBaseSum || s.value == wxBaseLessSum || st.missing != nil && col.isMissing(r.pos, s.def.NameIndex) {
					continue
				}
				at := len(w)
				w = append(w, sample...)
				if r.end > r.start || s.extra != "" {
					w = append(w, '{')
					w = append(w, st.labels[r.start:r.end]...)
					if r.end > r.start && s.extra != "" {
						w = append(w, ',')
					}
					w = append(w, s.extra...)
					w = append(w, '}')
				}
				w = append(w, ' ')
				var ok bool
				if w, ok = appendWx(w, s, fam.m.counter, r.blk, &clk, wallSec); !ok {
					w = w[:at]
					continue
				}
				w = append(w, '\n')
				n++
			}
		}
		if n == 0 {
			w = w[:mark]
		}
	}
	return w
}

// appendWx appends one sample's value of source s (of a counter
// family when counter is set); ok is false, and nothing appended, when
// the value is not known.
func appendWx(w []byte, s *wxResolved, counter bool, blk perfdata.CounterBlock, clk *calc.Clocks, wallSec float64) ([]byte, bool) {
	raw := blk.Value(s.def)
	var v float64
	switch s.value {
	case wxRaw:
		if !counter && int64(raw) < 0 {
			// a raw count is a signed number, as PDH shows it
			return strconv.AppendUint(append(w, '-'), uint64(-int64(raw)), 10), true
		}
		return strconv.AppendUint(w, raw, 10), true
	case wxSeconds:
		fq := timeFreq(s.def.Type, clk)
		if fq <= 0 {
			return w, false
		}
		v = float64(raw) / float64(fq)
	case wxScaled:
		v = float64(int64(raw)) * s.factor
	case wxBaseScaled:
		v = float64(int64(blk.Value(s.base))) * s.factor
	case wxBaseLess:
		v = float64(int64(blk.Value(s.base))-int64(raw)) * s.factor
	case wxShown:
		// one sample's value (a fraction): no previous sample is needed
		cur := calc.MakeRaw(s.def.Type, *clk, raw, blk.Value(s.base), 0)
		fv := calc.Format(s.def.Type, s.def.DefaultScale, &cur, nil, formattedOptions)
		if !fv.HasValue() || math.IsNaN(fv.Double) || math.IsInf(fv.Double, 0) {
			return w, false
		}
		// 15 digits, as the default profile's value gauges: 0.81, not 0.8099999999999999
		return strconv.AppendFloat(w, fv.Double*s.factor, 'g', 15, 64), true
	case wxStart:
		d, fq := uint64(clk.ObjectTime), clk.ObjectFreq
		if raw == 0 || raw >= d || fq <= 0 {
			return w, false // unknown start, or after the object's time stamp
		}
		v = wallSec - float64(d-raw)/float64(fq)
	default:
		return w, false
	}
	return strconv.AppendFloat(w, v, 'g', -1, 64), true
}

// wxRowsOf fills st.rows with the instances of o the profile writes and
// their labels: core (cpu), volume (logical_disk), disk (physical_disk:
// the number of Windows' "N NAME"), nic (net: the name with every
// character but ASCII letters and digits made '_', as windows_exporter
// writes it), process and process_id (process: the name without PDH's
// #n, and ID Process). _Total instances (and Processor Information's
// per-group "N,_Total", in that object only) are never written:
// windows_exporter leaves them out. A label value that two instances share gets PDH's #n, so that no
// two series are alike.
func (col *Collector) wxRowsOf(db *titles.DB, smp *pdh.Sample, o perfdata.Object, lay *wxLayout, key string) {
	st := &col.st
	st.rows = st.rows[:0]
	st.labels = st.labels[:0]
	if o.NumInstances() == perfdata.NoInstances {
		st.rows = append(st.rows, row{blk: o.SingleBlock(), pos: -1})
		return
	}
	filter := col.c.instances[fold(db.Name(o.NameIndex()))]
	seen := map[string]bool{}
	for r := range col.instances(smp, o) {
		pos, in, name, parent, dup := r.pos, r.in, r.name, r.parent, r.dup
		// "N,_Total" is a total in Processor Information only (its
		// groups): elsewhere the name is an instance's own, and a
		// process's is whatever its user chose.
		if name == "_Total" || key == wxCPU && strings.HasSuffix(name, ",_Total") {
			continue
		}
		if filter != nil && !filter.keep(arrayName(parent, name, dup)) {
			continue
		}
		start := len(st.labels)
		blk := in.Block()
		var k, v, k2, v2 string
		switch key {
		case wxCPU:
			k, v = "core", name
		case "logicaldisk":
			k, v = "volume", name
		case "physicaldisk":
			k, v = "disk", name
			if pairs, ok := splitDisk(name); ok {
				v = pairs[0][1]
			}
		case "network interface":
			k, v = "nic", mangleNIC(name)
		case "paging file":
			k, v = "file", name
		case "process":
			k, v = "process", name
			if lay.has {
				k2, v2 = "process_id", strconv.FormatUint(blk.Value(lay.pid), 10)
			}
		default:
			k, v = "perf_instance", name
		}
		for n := 1; seen[k+"\x00"+v+"\x00"+v2]; n++ {
			v = strings.TrimSuffix(v, "#"+strconv.Itoa(n-1)) + "#" + strconv.Itoa(n)
		}
		seen[k+"\x00"+v+"\x00"+v2] = true
		st.labels = append(st.labels, k+`="`...)
		st.labels = appendLabelValue(st.labels, v)
		st.labels = append(st.labels, '"')
		if k2 != "" {
			st.labels = append(st.labels, ","+k2+`="`...)
			st.labels = appendLabelValue(st.labels, v2)
			st.labels = append(st.labels, '"')
		}
		st.rows = append(st.rows, row{start: start, end: len(st.labels), blk: blk, pos: pos})
	}
}

// mangleNIC is windows_exporter's nic label: every character (rune) but
// ASCII letters and digits becomes '_'.
func mangleNIC(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
