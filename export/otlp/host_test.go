package otlp

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// recording passes a source on and keeps a copy of the blocks of the last
// sample, so a test reads the raw values the export was made from.
type recording struct {
	pdh.Source
	mu    sync.Mutex
	last  [][]byte
	calls int
}

func (r *recording) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	s, err := r.Source.Sample(ctx, objects)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if err == nil {
		r.last = r.last[:0]
		for _, b := range s.Blocks {
			r.last = append(r.last, append([]byte(nil), b.Bytes()...))
		}
	}
	return s, err
}

// rawObject finds an object of the last sample and returns, per instance
// name (first of each name; "" for a single-instance object), a reader
// of its counters' raw values by title index (the base when base is set).
func (r *recording) rawObject(t *testing.T, idx uint32) (map[string]func(counter uint32, base bool) uint64, perfdata.Object, perfdata.Header) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, raw := range r.last {
		blk, err := perfdata.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		o, ok := blk.Object(idx)
		if !ok {
			continue
		}
		reader := func(cb perfdata.CounterBlock) func(uint32, bool) uint64 {
			return func(counter uint32, base bool) uint64 {
				for i := range o.NumCounters() {
					d := o.Counter(i)
					if d.NameIndex == counter && d.Type.IsBase() == base {
						return cb.Value(d)
					}
				}
				t.Fatalf("object %d has no counter %d (base %v)", idx, counter, base)
				return 0
			}
		}
		out := map[string]func(uint32, bool) uint64{}
		if o.SingleInstance() {
			out[""] = reader(o.SingleBlock())
		}
		for it := o.Instances(); it.Next(); {
			in := it.Instance()
			if _, dup := out[in.Name()]; !dup {
				out[in.Name()] = reader(in.Block())
			}
		}
		return out, o, blk.Header()
	}
	t.Fatalf("object %d not in the last sample", idx)
	return nil, perfdata.Object{}, perfdata.Header{}
}

// TestHostSource exports the live host (host.New) to the gRPC receiver and
// checks the semantic-convention values against the raw values of the
// very sample the export was made from, read here with perfdata alone.
func TestHostSource(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	h, err := host.New(host.Options{SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rcv, addr := startGRPC(t)
	rec := &recording{Source: h.Source()}
	var sels []Selection
	for _, o := range []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "System", "LogicalDisk"} {
		sels = append(sels, Selection{Object: o})
	}
	// The race detector slows a collection of the Process object a
	// hundredfold: the timeout leaves room for it.
	e, err := New(context.Background(), rec, Options{Endpoint: addr, Insecure: true, Interval: time.Hour, Timeout: 5 * time.Minute,
		Objects: sels, Processes: true, Totals: true})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, e)
	flush(t, e)
	if rec.calls != 2 {
		t.Errorf("%d samples for New and one export, want 2", rec.calls)
	}
	_, req, _ := rcv.last()
	res, got := flatten(t, req)
	if want := "host.name=" + host.ComputerName(); !strings.Contains(res, want) {
		t.Errorf("resource %s, want %s", res, want)
	}
	point := func(metric, attrs string) float64 {
		t.Helper()
		m := got[metric]
		if m == nil {
			t.Fatalf("metric %s missing", metric)
		}
		v, ok := m.points[attrs]
		if !ok {
			t.Fatalf("metric %s: no point {%s}; has %d points", metric, attrs, len(m.points))
		}
		return v
	}
	check := func(metric, attrs string, want float64) {
		t.Helper()
		if v := point(metric, attrs); !near(v, want) {
			t.Errorf("%s {%s} = %v, want %v from the raw block", metric, attrs, v, want)
		}
	}

	// Linux's own counters (package system, issue 45) by their title
	// indexes on this host, given at registration.
	db := h.Titles()
	index := func(name string) uint32 {
		t.Helper()
		i, ok := db.Index(name)
		if !ok {
			t.Fatalf("no counter %q on this host", name)
		}
		return i
	}
	nice, iowait, steal := index("% Nice Time"), index("% IO Wait Time"), index("% Steal Time")
	cpus, _, _ := rec.rawObject(t, objProcessor)
	n := 0
	for name, raw := range cpus {
		if name == totalName {
			continue
		}
		n++
		a := func(mode string) string { return "cpu.logical_number=" + name + ",cpu.mode=" + mode }
		check("system.cpu.time", a("user"), float64(raw(cUserTime, false)-raw(nice, false))/1e7)
		check("system.cpu.time", a("nice"), float64(raw(nice, false))/1e7)
		check("system.cpu.time", a("idle"), float64(raw(cProcessorTime, false)-raw(iowait, false))/1e7)
		check("system.cpu.time", a("iowait"), float64(raw(iowait, false))/1e7)
		check("system.cpu.time", a("steal"), float64(raw(steal, false))/1e7)
		check("system.cpu.time", a("interrupt"), float64(raw(cInterruptTime, false)+raw(cDPCTime, false))/1e7)
		check("system.cpu.time", a("system"), float64(raw(cPrivilegedTime, false)-raw(cInterruptTime, false)-raw(cDPCTime, false))/1e7)
	}
	if n == 0 || len(got["system.cpu.time"].points) != 7*n {
		t.Errorf("%d CPUs, %d system.cpu.time points; want 7 per CPU (user, nice, system, idle, iowait, interrupt, steal)", n, len(got["system.cpu.time"].points))
	}

	mem, _, _ := rec.rawObject(t, objMemory)
	check("system.memory.usage", "system.memory.state=free", float64(mem[""](cFreeZeroBytes, false)))
	check("system.memory.usage", "system.memory.state=cached", float64(mem[""](index("Cached Bytes"), false)))
	check("system.memory.usage", "system.memory.state=buffers", float64(mem[""](index("Buffer Bytes"), false)))
	if c, b := mem[""](index("Cached Bytes"), false)+mem[""](index("Buffer Bytes"), false), mem[""](cCacheBytes, false); c != b {
		t.Errorf("cached + buffers = %d, Cache Bytes %d", c, b)
	}
	check("system.memory.linux.shared", "", float64(mem[""](index("Shared Memory Bytes"), false)))
	check("system.memory.linux.slab.usage", "system.memory.linux.slab.state=reclaimable", float64(mem[""](index("Slab Reclaimable Bytes"), false)))
	check("system.memory.linux.slab.usage", "system.memory.linux.slab.state=unreclaimable", float64(mem[""](index("Slab Unreclaimable Bytes"), false)))
	check("system.memory.linux.available", "", float64(mem[""](cAvailableBytes, false)))

	nics, _, _ := rec.rawObject(t, objNetwork)
	for name, raw := range nics {
		check("system.network.io", "network.interface.name="+name+",network.io.direction=receive", float64(raw(cBytesReceived, false)))
		check("system.network.packet.dropped", "network.interface.name="+name+",network.io.direction=transmit", float64(raw(cSentDiscarded, false)))
	}

	disks, _, _ := rec.rawObject(t, objPhysical)
	for name, raw := range disks {
		if name == totalName {
			continue
		}
		dev := name[strings.IndexByte(name, ' ')+1:]
		check("system.disk.operations", "disk.io.direction=read,system.device="+dev, float64(raw(cDiskReads, false)))
		check("system.disk.io_time", "system.device="+dev, float64(raw(cDiskIdleTime, true)-raw(cDiskIdleTime, false))/1e7)
	}

	sys, so, _ := rec.rawObject(t, objSystem)
	check("system.uptime", "", float64(uint64(so.PerfTime())-sys[""](cSystemUpTime, false))/float64(so.PerfFreq()))

	// This test's own process, by its pid.
	procs, _, _ := rec.rawObject(t, objProcess)
	self := strconv.Itoa(os.Getpid())
	found := false
	for name, raw := range procs {
		if strconv.FormatUint(raw(cIDProcess, false), 10) != self {
			continue
		}
		found = true
		a := "process.executable.name=" + name + ",process.pid=" + self
		check("process.memory.usage", a, float64(raw(cWorkingSet, false)))
		check("process.cpu.time", "cpu.mode=user,"+a, float64(raw(cUserTime, false))/1e7)
	}
	if !found {
		// Duplicate names hide later instances in rawObject; the pid is
		// then checked through the attributes alone.
		ok := false
		for k := range got["process.memory.usage"].points {
			ok = ok || strings.HasSuffix(k, "process.pid="+self)
		}
		if !ok {
			t.Errorf("no process.memory.usage point for this process (pid %s)", self)
		}
	}

	// Every other exported object is there through the generic mapping,
	// and _Total instances (Totals) only there.
	if m := got["perfc.logical_disk.free_mbytes"]; m == nil || m.kind != "gauge" || len(m.points) == 0 {
		t.Errorf("perfc.logical_disk.free_mbytes: %+v", m)
	}
	if m := got["perfc.processor.interrupts"]; m == nil || !m.monotonic {
		t.Errorf("perfc.processor.interrupts: %+v", m)
	} else if _, ok := m.points["perf.instance=_Total"]; !ok {
		t.Errorf("perfc.processor.interrupts has no _Total point with Totals")
	}
	for name, m := range got {
		if strings.HasPrefix(name, "system.") || strings.HasPrefix(name, "process.") {
			for k := range m.points {
				if strings.Contains(k, totalName) {
					t.Errorf("%s has a _Total point {%s}", name, k)
				}
			}
		}
	}
	t.Logf("host export: %d metrics", len(got))
}
