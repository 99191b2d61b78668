package sysperf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is a System Performance report: what was collected and what the
// rules found in it. A Report is a value: nothing changes it once Collect
// has returned it.
type Report struct {
	Computer   string
	Start, End time.Time
	Interval   time.Duration
	Samples    int      // intervals measured (samples after the first)
	Processors int      // Processor instances but _Total
	Missing    []string // counters of Counters the source does not have
	Stopped    bool     // the collection was stopped before its duration

	Summary  Summary
	Warnings []Warning // red first, then yellow, in rules order
	Passed   []string  // ids of the rules that were judged and did not fire
	Sections []Section

	series map[string]*Series
	rules  []Rule
	top    int
}

// Severity is a warning's colour.
type Severity string

// The severities, as Windows' report colours them.
const (
	Red    Severity = "red"
	Yellow Severity = "yellow"
)

// Warning is a rule that fired: on which instance, with which value,
// against which threshold.
type Warning struct {
	Rule      Rule
	Severity  Severity
	Instance  string
	Value     float64
	Threshold float64
	Message   string  // the rule's text with instance and value
	Series    *Series // the counter that gave the value
}

// Summary is the report's first lines: the busiest resource and the
// process that used the most processor time.
type Summary struct {
	Busiest     string  // CPU, Disk or Network (Linux counts no total of memory to take a share of)
	BusiestPct  float64 // its utilization, percent
	BusiestOf   *Series
	TopProcess  string
	TopPID      string
	TopCPU      float64 // % Processor Time (100 = one processor)
	TopCPUOf    *Series
	Utilization []Fact // each resource's utilization, for the summary table
}

// Fact is one number of a section, with the counter it comes from.
type Fact struct {
	Label  string
	Value  string
	Series *Series // nil for a number the report derived from several
}

// Section is one resource: its facts and its top lists.
type Section struct {
	Name  string
	Facts []Fact
	Tops  []Top
	Note  string
}

// Top is a list of processes ordered by one counter.
type Top struct {
	Title string
	Unit  string
	Rows  []TopRow
}

// TopRow is one process of a top list.
type TopRow struct {
	Process string
	PID     string
	Value   string
	Series  *Series
}

// Counts returns the number of red and of yellow warnings.
func (r *Report) Counts() (red, yellow int) {
	for _, w := range r.Warnings {
		if w.Severity == Red {
			red++
		} else {
			yellow++
		}
	}
	return red, yellow
}

// SeriesList returns every series, in path order (the report's counter
// appendix).
func (r *Report) SeriesList() []*Series {
	out := make([]*Series, 0, len(r.series))
	for _, s := range r.series {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Series) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// isTotal reports whether an instance is an aggregate the top lists and
// per-instance rules leave out.
func isTotal(inst string) bool {
	i := strings.LastIndexByte(inst, '/')
	base := inst[i+1:]
	return strings.EqualFold(base, "_Total") || strings.HasSuffix(base, ",_Total") || strings.EqualFold(base, "Idle")
}

// analyze fills the summary, warnings and sections from the series.
func (r *Report) analyze() {
	for _, s := range r.sorted("Processor", "% Processor Time") {
		if !isTotal(s.Instance) {
			r.Processors++
		}
	}
	r.judge()
	r.sections()
	r.summarize()
}

// judge runs every rule.
func (r *Report) judge() {
	var red, yellow []Warning
	for _, rule := range r.rules {
		p := rule.path
		var cands []*Series
		if p.Instance == "*" {
			for _, s := range r.sorted(p.Object, p.Counter) {
				if !isTotal(s.Instance) {
					cands = append(cands, s)
				}
			}
		} else if s := r.one(p.Object, p.Instance, p.Counter); s != nil {
			cands = append(cands, s)
		}
		if len(cands) == 0 {
			continue // not judged: the counter is not there
		}
		fired := false
		for _, s := range cands {
			v, ok := r.ruleValue(rule, s)
			if !ok {
				continue
			}
			sev, th := Severity(""), 0.0
			above := func(t float64) bool {
				if rule.Op == ">" {
					return v > t
				}
				return v < t
			}
			switch {
			case above(rule.Red):
				sev, th = Red, rule.Red
			case above(rule.Yellow):
				sev, th = Yellow, rule.Yellow
			default:
				continue
			}
			fired = true
			val := formatNumber(v) + rule.Unit
			msg := rule.Text
			if p.Instance == "*" {
				msg = fmt.Sprintf(msg, s.Instance, val)
			} else {
				msg = fmt.Sprintf(msg, val)
			}
			w := Warning{Rule: rule, Severity: sev, Instance: s.Instance, Value: v, Threshold: th, Message: msg, Series: s}
			if sev == Red {
				red = append(red, w)
			} else {
				yellow = append(yellow, w)
			}
		}
		if !fired {
			r.Passed = append(r.Passed, rule.ID)
		}
	}
	r.Warnings = append(red, yellow...)
}

// ruleValue is the value a rule judges of series s: its statistic,
// divided by the Over counter and the processors, times Scale.
func (r *Report) ruleValue(rule Rule, s *Series) (float64, bool) {
	v := s.Stat(rule.Stat)
	if rule.Over != "" {
		o := r.one(s.Object, s.Instance, rule.Over)
		if o == nil || o.Avg() <= 0 {
			return 0, false // unknown bandwidth: no utilization
		}
		v /= o.Avg()
	}
	if rule.PerProcessor {
		if r.Processors == 0 {
			return 0, false
		}
		v /= float64(r.Processors)
	}
	if rule.Scale != 0 {
		v *= rule.Scale
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// formatNumber shows a value with three significant digits at most after
// the point, as a person reads it.
func formatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// formatBytes shows a byte count in binary units.
func formatBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return formatNumber(v) + " " + units[i]
}

// process is one Process instance's numbers over the run.
type process struct {
	name, pid       string
	cpu, mem, io    *Series
	cpuV, memV, ioV float64
}

// processes gathers the Process instances but _Total and Idle.
func (r *Report) processes() []*process {
	byInst := map[string]*process{}
	get := func(inst string) *process {
		p := byInst[inst]
		if p == nil {
			name := inst
			if i := strings.LastIndexByte(name, '#'); i > 0 {
				name = name[:i]
			}
			p = &process{name: name}
			byInst[inst] = p
		}
		return p
	}
	for _, s := range r.sorted("Process", "% Processor Time") {
		if !isTotal(s.Instance) {
			p := get(s.Instance)
			p.cpu, p.cpuV = s, s.Avg()
		}
	}
	for _, s := range r.sorted("Process", "Working Set - Private") {
		if !isTotal(s.Instance) {
			p := get(s.Instance)
			p.mem, p.memV = s, s.Avg()
		}
	}
	for _, s := range r.sorted("Process", "IO Data Bytes/sec") {
		if !isTotal(s.Instance) {
			p := get(s.Instance)
			p.io, p.ioV = s, s.Avg()
		}
	}
	for _, s := range r.sorted("Process", "ID Process") {
		if p := byInst[s.Instance]; p != nil {
			p.pid = strconv.FormatFloat(s.Last, 'f', 0, 64)
		}
	}
	out := make([]*process, 0, len(byInst))
	for _, p := range byInst {
		out = append(out, p)
	}
	return out
}

// topBy returns a top list of the processes by one of their numbers.
func (r *Report) topBy(procs []*process, title, unit string, pick func(*process) (*Series, float64), show func(float64) string) Top {
	ps := slices.Clone(procs)
	ps = slices.DeleteFunc(ps, func(p *process) bool { s, _ := pick(p); return s == nil })
	slices.SortStableFunc(ps, func(a, b *process) int {
		_, va := pick(a)
		_, vb := pick(b)
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return strings.Compare(a.name+a.pid, b.name+b.pid)
	})
	t := Top{Title: title, Unit: unit}
	for _, p := range ps[:min(len(ps), r.top)] {
		s, v := pick(p)
		t.Rows = append(t.Rows, TopRow{Process: p.name, PID: p.pid, Value: show(v), Series: s})
	}
	return t
}

// fact makes a Fact of a series' mean, or nothing where there is no
// series.
func fact(facts []Fact, label string, s *Series, show func(float64) string) []Fact {
	if s == nil {
		return facts
	}
	return append(facts, Fact{Label: label, Value: show(s.Avg()), Series: s})
}

func pct(v float64) string { return formatNumber(v) + " %" }

// sections builds the resource sections.
func (r *Report) sections() {
	procs := r.processes()
	cpu := Section{Name: "CPU"}
	cpu.Facts = fact(cpu.Facts, "Processor time (all processors)", r.one("Processor", "_Total", "% Processor Time"), pct)
	cpu.Facts = fact(cpu.Facts, "Processor queue length", r.one("System", "", "Processor Queue Length"), formatNumber)
	cpu.Facts = fact(cpu.Facts, "Load average (1 minute)", r.one("System", "", "Load Average (1 minute)"), formatNumber)
	if r.Processors > 0 {
		cpu.Facts = append(cpu.Facts, Fact{Label: "Processors", Value: strconv.Itoa(r.Processors)})
	}
	cpu.Tops = append(cpu.Tops, r.topBy(procs, "Top processes by processor time", "% Processor Time (100 % is one processor)",
		func(p *process) (*Series, float64) { return p.cpu, p.cpuV }, pct))
	mem := Section{Name: "Memory"}
	mem.Facts = fact(mem.Facts, "Available", r.one("Memory", "", "Available MBytes"), func(v float64) string { return formatNumber(v) + " MB" })
	mem.Facts = fact(mem.Facts, "Committed, of the commit limit", r.one("Memory", "", "% Committed Bytes In Use"), pct)
	mem.Facts = fact(mem.Facts, "Pages swapped in and out", r.one("Memory", "", "Pages/sec"), func(v float64) string { return formatNumber(v) + " /s" })
	mem.Facts = fact(mem.Facts, "Page faults", r.one("Memory", "", "Page Faults/sec"), func(v float64) string { return formatNumber(v) + " /s" })
	mem.Facts = fact(mem.Facts, "Memory stall (some task)", r.one("Pressure", "memory", "% Some Stall Time"), pct)
	mem.Tops = append(mem.Tops, r.topBy(procs, "Top processes by private memory", "Working Set - Private",
		func(p *process) (*Series, float64) { return p.mem, p.memV }, formatBytes))
	disk := Section{Name: "Disk"}
	for _, s := range r.sorted("PhysicalDisk", "% Idle Time") {
		if isTotal(s.Instance) {
			continue
		}
		disk.Facts = append(disk.Facts, Fact{Label: "Disk " + s.Instance + ": busy", Value: pct(max(0, 100-s.Avg())), Series: s})
		disk.Facts = fact(disk.Facts, "Disk "+s.Instance+": queue length", r.one("PhysicalDisk", s.Instance, "Avg. Disk Queue Length"), formatNumber)
		disk.Facts = fact(disk.Facts, "Disk "+s.Instance+": time a transfer", r.one("PhysicalDisk", s.Instance, "Avg. Disk sec/Transfer"), func(v float64) string { return formatNumber(v*1000) + " ms" })
		disk.Facts = fact(disk.Facts, "Disk "+s.Instance+": transferred", r.one("PhysicalDisk", s.Instance, "Disk Bytes/sec"), func(v float64) string { return formatBytes(v) + "/s" })
	}
	disk.Tops = append(disk.Tops, r.topBy(procs, "Top processes by I/O", "IO Data Bytes/sec (reads and writes, disk and other)",
		func(p *process) (*Series, float64) { return p.io, p.ioV }, func(v float64) string { return formatBytes(v) + "/s" }))
	net := Section{Name: "Network", Note: "Linux keeps no count of a process's network traffic (the kernel counts sockets, not processes), so this section has no top processes."}
	for _, s := range r.sorted("Network Interface", "Bytes Total/sec") {
		net.Facts = append(net.Facts, Fact{Label: "Interface " + s.Instance + ": traffic", Value: formatBytes(s.Avg()) + "/s", Series: s})
		if bw := r.one("Network Interface", s.Instance, "Current Bandwidth"); bw != nil && bw.Avg() > 0 {
			net.Facts = append(net.Facts, Fact{Label: "Interface " + s.Instance + ": of its bandwidth", Value: pct(s.Avg() * 800 / bw.Avg())})
		}
		for _, c := range []string{"Packets Received Errors", "Packets Outbound Errors"} {
			if e := r.one("Network Interface", s.Instance, c); e != nil {
				net.Facts = append(net.Facts, Fact{Label: "Interface " + s.Instance + ": " + strings.ToLower(c) + " during the run", Value: formatNumber(e.Last - e.First), Series: e})
			}
		}
	}
	cg := Section{Name: "Control groups and pressure"}
	for _, s := range r.sorted("Pressure", "% Some Stall Time") {
		cg.Facts = append(cg.Facts, Fact{Label: "Stall on " + s.Instance + " (some task)", Value: pct(s.Avg()), Series: s})
	}
	var throttled []*Series
	for _, s := range r.sorted("Control Group", "% Throttled Periods") {
		if s.Avg() > 0 {
			throttled = append(throttled, s)
		}
	}
	slices.SortStableFunc(throttled, func(a, b *Series) int {
		switch {
		case a.Avg() > b.Avg():
			return -1
		case a.Avg() < b.Avg():
			return 1
		}
		return 0
	})
	for _, s := range throttled[:min(len(throttled), r.top)] {
		cg.Facts = append(cg.Facts, Fact{Label: "Group " + s.Instance + ": throttled periods", Value: pct(s.Avg()), Series: s})
	}
	if len(throttled) == 0 && len(r.sorted("Control Group", "% Throttled Periods")) > 0 {
		cg.Note = "No control group was throttled."
	}
	r.Sections = []Section{cpu, mem, disk, net, cg}
}

// summarize finds the busiest resource and the top process.
func (r *Report) summarize() {
	type res struct {
		name string
		pct  float64
		s    *Series
	}
	var cands []res
	if s := r.one("Processor", "_Total", "% Processor Time"); s != nil {
		cands = append(cands, res{"CPU", s.Avg(), s})
	}
	var disk *res
	for _, s := range r.sorted("PhysicalDisk", "% Idle Time") {
		if !isTotal(s.Instance) && (disk == nil || 100-s.Avg() > disk.pct) {
			disk = &res{"Disk", max(0, 100-s.Avg()), s}
		}
	}
	if disk != nil {
		cands = append(cands, *disk)
	}
	var net *res
	for _, s := range r.sorted("Network Interface", "Bytes Total/sec") {
		if bw := r.one("Network Interface", s.Instance, "Current Bandwidth"); bw != nil && bw.Avg() > 0 {
			if u := s.Avg() * 800 / bw.Avg(); net == nil || u > net.pct {
				net = &res{"Network", u, s}
			}
		}
	}
	if net != nil {
		cands = append(cands, *net)
	}
	for _, c := range cands {
		r.Summary.Utilization = append(r.Summary.Utilization, Fact{Label: c.name, Value: pct(c.pct), Series: c.s})
		if r.Summary.BusiestOf == nil || c.pct > r.Summary.BusiestPct {
			r.Summary.Busiest, r.Summary.BusiestPct, r.Summary.BusiestOf = c.name, c.pct, c.s
		}
	}
	if len(r.Sections) > 0 && len(r.Sections[0].Tops) > 0 && len(r.Sections[0].Tops[0].Rows) > 0 {
		row := r.Sections[0].Tops[0].Rows[0]
		r.Summary.TopProcess, r.Summary.TopPID, r.Summary.TopCPUOf = row.Process, row.PID, row.Series
		r.Summary.TopCPU = row.Series.Avg()
	}
}
