package system

import (
	"strconv"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/proctext"
)

// Processor Information counter indexes after the Processor ones.
const (
	piFrequency = cpuNumCounters + iota
	piPercentMax
)

// cpuTopology maps CPU ids to NUMA nodes, re-read each sample (CPU hotplug
// and node onlining change it; the files are tiny).
type cpuTopology struct {
	node   []int // node of CPU at the same position as cpuState.stat.IDs
	list   []int // scratch for parseCPUList
	nodes  []int // distinct node numbers, ascending
	totals []cpuTimes
	counts []uint64
	intr   []uint64
	soft   []uint64
	freq   []uint64
	maxf   []uint64
	// freqBad is set per node (and, last, for all) when a frequency of one
	// of its CPUs could not be read.
	freqBad []bool
	mhz     []uint64 // /proc/cpuinfo frequency by CPU id, kHz
	mhzOK   []bool
	labels  map[[2]int]string // (node, cpu) -> "node,cpu"; node totals use cpu -1
}

// hasCPUFreq reports whether the host exposes cpufreq, so that the
// frequency counters are declared only where they can be filled.
func (c *Collector) hasCPUFreq() bool {
	if c.Sys == nil {
		return false
	}
	f, err := c.Sys.Open("devices/system/cpu/cpu0/cpufreq/scaling_cur_freq")
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// hasCPUInfoMHz reports whether /proc/cpuinfo gives each processor's
// frequency ("cpu MHz", x86 and a few others): where cpufreq is absent (a
// virtual machine, a kernel without a cpufreq driver) it is what the
// kernel reports.
func (c *Collector) hasCPUInfoMHz() bool {
	if c.proc == nil {
		return false
	}
	b, err := c.readProc("cpuinfo")
	if err != nil {
		return false
	}
	found := false
	return parseCPUInfoMHz(b, func(int, uint64) { found = true }) == nil && found
}

// Frequency sources of Processor Information.
const (
	freqNone    = iota
	freqCPUFreq // cpufreq: current and maximum
	freqCPUInfo // /proc/cpuinfo "cpu MHz": current only
)

func (c *Collector) processorInformationObject() Object {
	cs := processorCounters()
	freq := freqNone
	switch {
	case c.hasCPUFreq():
		freq = freqCPUFreq
		cs = append(cs,
			ctr("Processor Frequency", tRaw, 0, detNovice, "Processor Frequency is the current frequency of the processor in megahertz (scaling_cur_freq in /sys/devices/system/cpu/cpuN/cpufreq, in kHz, divided by 1000; where the host has no cpufreq, the \"cpu MHz\" line of the processor in /proc/cpuinfo). Totals hold the average."),
			ctr("% of Maximum Frequency", tRaw, 0, detNovice, "% of Maximum Frequency is the current frequency as a percentage of the processor's maximum frequency (scaling_cur_freq over cpuinfo_max_freq). Totals hold the average."),
		)
	case c.hasCPUInfoMHz():
		freq = freqCPUInfo
		cs = append(cs,
			ctr("Processor Frequency", tRaw, 0, detNovice, "Processor Frequency is the current frequency of the processor in megahertz (scaling_cur_freq in /sys/devices/system/cpu/cpuN/cpufreq, in kHz, divided by 1000; where the host has no cpufreq, the \"cpu MHz\" line of the processor in /proc/cpuinfo). Totals hold the average."),
		)
	}
	set := newSet("Processor Information", 0, counterset.MultipleAggregate, detNovice, cpuProcessorTime,
		"The Processor Information object measures each online logical processor, named \"node,cpu\" after its NUMA node and Linux CPU number, with a \"node,_Total\" average per NUMA node and a _Total average over all processors. NUMA nodes come from /sys/devices/system/node; without them every CPU is in node 0.",
		cs)
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error { return c.collectProcessorInformation(col, w, freq) }}
}

// readCPUInfoMHz reads /proc/cpuinfo's frequencies (kHz) into t.mhz, by
// CPU id; ok is false when the file cannot be read or parsed (reported
// through col).
func (c *Collector) readCPUInfoMHz(col Collection) bool {
	t := &c.topo
	t.mhz = resize(t.mhz, maxCPUs)
	t.mhzOK = resizeBool(t.mhzOK, maxCPUs)
	clear(t.mhzOK)
	b, err := c.readProc("cpuinfo")
	if err != nil {
		partialf(col, "%v", err)
		return false
	}
	if err := parseCPUInfoMHz(b, func(cpu int, khz uint64) { t.mhz[cpu], t.mhzOK[cpu] = khz, true }); err != nil {
		partialf(col, "/proc/cpuinfo %v", err)
		return false
	}
	return true
}

// freqCounters are the frequency counters; freqCount how many a source
// declares.
var freqCounters = [...]int{piFrequency, piPercentMax}

func freqCount(source int) int {
	if source == freqCPUInfo {
		return 1
	}
	return 2
}

func resizeBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

// readTopology fills c.topo.node for the CPUs of the last /proc/stat read.
func (c *Collector) readTopology(col Collection) {
	t := &c.topo
	ids := c.cpu.stat.IDs
	if cap(t.node) < len(ids) {
		t.node = make([]int, len(ids))
	}
	t.node = t.node[:len(ids)]
	for i := range t.node {
		t.node[i] = 0
	}
	t.nodes = append(t.nodes[:0], 0)
	if c.Sys == nil {
		return
	}
	ents, err := fsReadDir(c.Sys, "devices/system/node")
	if err != nil {
		return // no NUMA information: a single node 0
	}
	t.nodes = t.nodes[:0]
	for _, e := range ents {
		name := e.Name()
		if len(name) < 5 || name[:4] != "node" {
			continue
		}
		n, ok := proctext.ParseUint([]byte(name[4:]))
		if !ok || n >= maxCPUs {
			continue
		}
		b, err := c.readFile(c.Sys, "devices/system/node/"+name+"/cpulist")
		if err != nil {
			partialf(col, "%v", err)
			continue
		}
		var ok2 bool
		t.list, ok2 = parseCPUList(b, t.list[:0])
		if !ok2 {
			partialf(col, "/sys/devices/system/node/%s/cpulist: bad cpu list", name)
			continue
		}
		t.nodes = insertSorted(t.nodes, int(n))
		for _, cpu := range t.list {
			if k := indexOf(ids, cpu); k >= 0 {
				t.node[k] = int(n)
			}
		}
	}
	if len(t.nodes) == 0 {
		t.nodes = append(t.nodes, 0)
	}
}

func insertSorted(s []int, v int) []int {
	for i, x := range s {
		if x == v {
			return s
		}
		if x > v {
			s = append(s, 0)
			copy(s[i+1:], s[i:])
			s[i] = v
			return s
		}
	}
	return append(s, v)
}

func (c *Collector) label(node, cpu int) string {
	t := &c.topo
	if t.labels == nil {
		t.labels = make(map[[2]int]string)
	}
	k := [2]int{node, cpu}
	if s, ok := t.labels[k]; ok {
		return s
	}
	s := strconv.Itoa(node) + ",_Total"
	if cpu >= 0 {
		s = strconv.Itoa(node) + "," + strconv.Itoa(cpu)
	}
	t.labels[k] = s
	return s
}

// readFreq reads the current and maximum frequency (kHz) of CPU id; ok is
// false when either file is unreadable or malformed (reported through col).
func (c *Collector) readFreq(col Collection, id int) (cur, max uint64, ok bool) {
	dir := "devices/system/cpu/cpu" + strconv.Itoa(id) + "/cpufreq/"
	read := func(name string) (uint64, bool) {
		b, err := c.readFile(c.Sys, dir+name)
		if err != nil {
			partialf(col, "%v", err)
			return 0, false
		}
		f := proctext.TrimSpace(b)
		v, ok := proctext.ParseUint(f)
		if !ok {
			if len(f) > 40 {
				f = f[:40]
			}
			partialf(col, "/sys/%s%s line 1: %q is not a number of kHz", dir, name, f)
		}
		return v, ok
	}
	cur, ok1 := read("scaling_cur_freq")
	max, ok2 := read("cpuinfo_max_freq")
	return cur, max, ok1 && ok2
}

func writeFreq(v perfdata.Values, cur, max, n uint64) {
	if n == 0 {
		return
	}
	v.Set(piFrequency, cur/n/1000)
	if max > 0 {
		v.Set(piPercentMax, cur*100/max)
	}
}

func (c *Collector) collectProcessorInformation(col Collection, w Writer, source int) error {
	freq := source != freqNone
	infoOK := source == freqCPUInfo && c.readCPUInfoMHz(col)
	if err := c.readCPU(col); err != nil {
		return err
	}
	c.readTopology(col)
	st, t := &c.cpu, &c.topo
	nn := len(t.nodes)
	if cap(t.totals) < nn {
		t.totals = make([]cpuTimes, nn)
	}
	t.totals = t.totals[:nn]
	t.counts, t.intr, t.soft = resize(t.counts, nn), resize(t.intr, nn), resize(t.soft, nn)
	t.freq, t.maxf = resize(t.freq, nn+1), resize(t.maxf, nn+1)
	for k := 0; k < nn; k++ {
		t.totals[k] = cpuTimes{}
		t.counts[k], t.intr[k], t.soft[k], t.freq[k], t.maxf[k] = 0, 0, 0, 0, 0
	}
	t.freq[nn], t.maxf[nn] = 0, 0
	if cap(t.freqBad) < nn+1 {
		t.freqBad = make([]bool, nn+1)
	}
	t.freqBad = t.freqBad[:nn+1]
	clear(t.freqBad)
	for i, id := range st.stat.IDs {
		node := t.node[i]
		k := indexOf(t.nodes, node)
		v := w.Instance(c.label(node, id), 0, 0, -1)
		ct := &st.stat.CPUs[i]
		c.writeCPU(v, 0, ct, 1, st.intr[i], st.softirq[i])
		st.unavailable(col, ct)
		if freq {
			var cur, max uint64
			var ok bool
			if source == freqCPUFreq {
				cur, max, ok = c.readFreq(col, id)
			} else if ok = infoOK && id < len(t.mhzOK) && t.mhzOK[id]; ok {
				cur = t.mhz[id]
			}
			writeFreq(v, cur, max, 1)
			if !ok {
				col.Unavailable(freqCounters[:freqCount(source)]...)
				if k >= 0 {
					t.freqBad[k] = true
				}
				t.freqBad[nn] = true
			}
			t.freq[k] += cur
			t.maxf[k] += max
			t.freq[nn] += cur
			t.maxf[nn] += max
		}
		if k >= 0 {
			addTimes(&t.totals[k], ct)
			t.counts[k]++
			t.intr[k] += st.intr[i]
			t.soft[k] += st.softirq[i]
		}
	}
	var intrAll, softAll uint64
	for k, node := range t.nodes {
		if t.counts[k] == 0 {
			continue
		}
		v := w.Instance(c.label(node, -1), 0, 0, -1)
		c.writeCPU(v, 0, &t.totals[k], t.counts[k], t.intr[k], t.soft[k])
		st.unavailable(col, &t.totals[k])
		if freq {
			writeFreq(v, t.freq[k], t.maxf[k], t.counts[k])
			if t.freqBad[k] {
				col.Unavailable(freqCounters[:freqCount(source)]...)
			}
		}
		intrAll += t.intr[k]
		softAll += t.soft[k]
	}
	n := uint64(len(st.stat.IDs))
	if n == 0 {
		n = 1
	}
	v := w.Instance("_Total", 0, 0, -1)
	c.writeCPU(v, 0, &st.stat.Total, n, intrAll, softAll)
	st.unavailable(col, &st.stat.Total)
	if freq {
		writeFreq(v, t.freq[nn], t.maxf[nn], n)
		if t.freqBad[nn] {
			col.Unavailable(freqCounters[:freqCount(source)]...)
		}
	}
	return nil
}

func addTimes(dst, t *cpuTimes) {
	dst.User += t.User
	dst.Nice += t.Nice
	dst.System += t.System
	dst.Idle += t.Idle
	dst.IOWait += t.IOWait
	dst.IRQ += t.IRQ
	dst.SoftIRQ += t.SoftIRQ
	dst.Steal += t.Steal
	dst.Guest += t.Guest
	dst.GuestNice += t.GuestNice
	dst.Bad = dst.Bad || t.Bad
}
