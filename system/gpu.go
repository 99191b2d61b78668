package system

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/proctext"
	"github.com/perfcounters/perfcounters/system/nvml"
)

// The GPU objects, with Windows' names, counters and instance forms (the
// objects of Windows' WDDM graphics kernel, GPU Engine, GPU Process Memory,
// GPU Adapter Memory and GPU Local Adapter Memory), made from the DRM
// client statistics of /proc/PID/fdinfo, the memory attributes of
// /sys/class/drm/cardN/device, and NVIDIA's NVML where the program is
// built with it (package system/nvml). system/LINUX-OBJECTS.md, "GPU",
// has the sources and the instance names.

// GPU Engine counter indexes.
const (
	geRunningTime = iota
	geUtilization
	geNumCounters
)

// GPU Process Memory counter indexes (Windows' order).
const (
	gpmShared = iota
	gpmDedicated
	gpmNonLocal
	gpmLocal
	gpmCommitted
	gpmNumCounters
)

// GPU Adapter Memory counter indexes.
const (
	gamShared = iota
	gamDedicated
	gamCommitted
	gamNumCounters
)

// Bounds of the per-process scan.
const (
	maxFDsListed      = 1 << 16 // descriptors of one process looked at
	maxDRMFDsRead     = 256     // DRM descriptors of one process whose fdinfo is read
	maxGPUClients     = 1 << 16 // DRM clients of one sample
	maxGPUAdapters    = 64
	maxEnginesPerGPU  = 64 // engine numbers one adapter hands out
	gpuNonPCILUIDHigh = 0x80000000
)

// nvmlSource is what the GPU objects need of NVML: *nvml.Library, or a
// test's fake.
type nvmlSource interface {
	Devices() ([]nvml.Device, error)
}

// gpuAdapter is one GPU: a DRM device of /sys/class/drm, an NVML device,
// or both (matched by PCI address).
type gpuAdapter struct {
	key    string // PCI address "0000:03:00.0", or the platform device's name
	pci    bool
	driver string // DRIVER= of the device's uevent ("nvidia" for NVML-only)
	sysDir string // the device's directory under /sys ("" for NVML-only)
	name   string // "luid_0x00000000_0x00000300_phys_0"
	nvml   int    // index into gpuState.nvDevs; -1 none
}

// gpuUsage is one process's use of one adapter in a sample, summed over
// its DRM clients (each counted once) and NVML's record.
type gpuUsage struct {
	pid                    int32
	adapter                string // gpuAdapter.key
	engines                []gpuEngineUse
	local, nonLocal, total uint64
	memOK                  bool // a DRM client of it wrote memory lines
	nvUsed                 uint64
	nvOK                   bool // NVML knows its device memory
}

// gpuEngineUse is an engine class's busy time in 100 ns units.
type gpuEngineUse struct {
	name string
	busy uint64
}

// cycleKey names one engine of one DRM client, whose busy time is
// counted in GPU cycles (drm-cycles-, drm-total-cycles-).
type cycleKey struct {
	adapter string
	client  uint64
	engine  string
}

// cycleState converts a cycle count into busy time: the share of the
// cycles in the interval times the interval, added up.
type cycleState struct {
	cycles, total uint64
	busy          uint64 // 100 ns
	seen          uint64 // the scan that last saw it
}

// gpuState is the GPU objects' state between samples, shared by their
// collect functions (kept in their closures).
type gpuState struct {
	proc fs.FS      // /proc, for the per-process scan
	nv   nvmlSource // nil without NVML

	adapters []gpuAdapter
	nodes    map[string]string // /dev/dri node name -> adapter key
	adSeq    uint64
	nvDevs   []nvml.Device
	nvErr    error

	usage    []gpuUsage
	scanSeq  uint64
	scanN    uint64 // scans done
	scanTime int64  // FILETIME of the last scan
	cycles   map[cycleKey]*cycleState
	engNum   map[string]map[string]int // adapter key -> engine name -> eng_N

	buf []byte
	fd  drmFdinfo
}

// gpuObjects returns the GPU objects the host has when it is called: none
// where /sys/class/drm has no device and NVML (in a build with it) no GPU.
func (c *Collector) gpuObjects() []Object {
	// c.Proc, not the live /proc: a collector over another tree (a
	// fixture, a container's) never lists this host's processes. Without
	// one there are no per-process instances.
	procFS := c.Proc
	var nv nvmlSource
	if l, err := nvml.Open(nvml.DefaultLibrary); err == nil {
		nv = l
	}
	return c.gpuObjectsWith(procFS, nv)
}

// gpuObjectsWith is gpuObjects over the given /proc tree and NVML.
func (c *Collector) gpuObjectsWith(procFS fs.FS, nv nvmlSource) []Object {
	g := &gpuState{proc: procFS, nv: nv, cycles: map[cycleKey]*cycleState{}, engNum: map[string]map[string]int{}}
	g.refresh(c, nil)
	if len(g.adapters) == 0 {
		return nil
	}
	return []Object{g.engineObject(), g.processMemoryObject(), g.adapterMemoryObject(), g.localAdapterMemoryObject()}
}

// luidName is the adapter part of Windows' instance names. Windows names
// an adapter by its LUID, a number the kernel gives it at boot; Linux has
// none, so one is made from what identifies the device across boots: for
// a PCI device its address, the high part the PCI domain and the low part
// bus << 8 | device << 3 | function (0000:03:00.0 is 0x00000000_0x00000300);
// for another device 0x80000000 and the FNV-1a hash of its name.
func luidName(key string, pci bool) string {
	var hi, lo uint32
	if pci {
		hi, lo, _ = pciLUID(key)
	} else {
		h := fnv.New32a()
		h.Write([]byte(key))
		hi, lo = gpuNonPCILUIDHigh, h.Sum32()
	}
	return fmt.Sprintf("luid_0x%08X_0x%08X_phys_0", hi, lo)
}

// pciLUID parses "dddd:bb:dd.f".
func pciLUID(addr string) (hi, lo uint32, ok bool) {
	if len(addr) != 12 || addr[4] != ':' || addr[7] != ':' || addr[10] != '.' {
		return 0, 0, false
	}
	dom, e1 := strconv.ParseUint(addr[:4], 16, 16)
	bus, e2 := strconv.ParseUint(addr[5:7], 16, 8)
	dev, e3 := strconv.ParseUint(addr[8:10], 16, 8)
	fn, e4 := strconv.ParseUint(addr[11:], 16, 8)
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil || dev > 31 || fn > 7 {
		return 0, 0, false
	}
	return uint32(dom), uint32(bus<<8 | dev<<3 | fn), true
}

// refresh lists the adapters once per sample: the DRM devices of
// /sys/class/drm (card and render nodes, by the PCI_SLOT_NAME and DRIVER
// of their device's uevent), and NVML's devices.
func (g *gpuState) refresh(c *Collector, col Collection) {
	var seq uint64
	if col != nil {
		seq = col.Seq()
		if seq != 0 && g.adSeq == seq {
			return
		}
	}
	g.adSeq = seq
	g.adapters = g.adapters[:0]
	g.nodes = map[string]string{}
	index := map[string]int{}
	add := func(a gpuAdapter) int {
		if i, ok := index[a.key]; ok {
			return i
		}
		if len(g.adapters) >= maxGPUAdapters {
			return -1
		}
		a.name = luidName(a.key, a.pci)
		a.nvml = -1
		g.adapters = append(g.adapters, a)
		index[a.key] = len(g.adapters) - 1
		return len(g.adapters) - 1
	}
	if c.Sys != nil {
		ents, _ := fsReadDir(c.Sys, "class/drm")
		for _, e := range ents {
			n := e.Name()
			num, ok := strings.CutPrefix(n, "card")
			if !ok {
				num, ok = strings.CutPrefix(n, "renderD")
			}
			if _, err := strconv.ParseUint(num, 10, 32); !ok || err != nil {
				continue // connectors (card0-DP-1), version
			}
			dir := "class/drm/" + n + "/device"
			b, err := c.readFile(c.Sys, dir+"/uevent")
			if err != nil {
				continue
			}
			a := gpuAdapter{sysDir: dir}
			for line, rest := proctext.NextLine(b); len(line) > 0 || len(rest) > 0; line, rest = proctext.NextLine(rest) {
				k, v, _ := strings.Cut(string(line), "=")
				switch k {
				case "PCI_SLOT_NAME":
					if _, _, ok := pciLUID(strings.ToLower(v)); ok {
						a.key, a.pci = strings.ToLower(v), true
					}
				case "DRIVER":
					a.driver = proctext.CutName(v, maxDRMNameLen)
				}
			}
			if a.key == "" {
				a.key = n
				if t, err := fs.ReadLink(c.Sys, dir); err == nil && path.Base(t) != "" {
					a.key = proctext.CutName(path.Base(t), 64)
				}
			}
			if i := add(a); i >= 0 {
				g.nodes[n] = a.key
				if g.adapters[i].sysDir == "" || strings.HasPrefix(n, "card") {
					g.adapters[i].sysDir = dir
				}
			}
		}
	}
	g.nvDevs, g.nvErr = nil, nil
	if g.nv != nil {
		g.nvDevs, g.nvErr = g.nv.Devices()
		for k, d := range g.nvDevs {
			if i := add(gpuAdapter{key: d.BusID, pci: true, driver: "nvidia"}); i >= 0 {
				g.adapters[i].nvml = k
			}
		}
	}
	if g.nvErr != nil && col != nil {
		partialf(col, "NVML: %v", g.nvErr)
	}
}

func (g *gpuState) adapter(key string) *gpuAdapter {
	for i := range g.adapters {
		if g.adapters[i].key == key {
			return &g.adapters[i]
		}
	}
	return nil
}

// engineType is the engtype_ part of a GPU Engine instance: Windows'
// engine type names for the DRM engine classes that do the same work, the
// DRM name for the others.
func engineType(name string) string {
	base := strings.TrimRight(name, "0123456789")
	base = strings.TrimRight(base, "_-")
	switch base {
	case "gfx", "render", "rcs", "3d", "gr", "fragment", "vertex-tiler", "bin", "render-compute":
		return "3D"
	case "compute", "ccs", "comp":
		return "Compute"
	case "video", "vcs", "dec", "vcn", "uvd", "jpeg", "nvdec":
		return "VideoDecode"
	case "enc", "vce", "nvenc":
		return "VideoEncode"
	case "video-enhance", "vecs", "vpe":
		return "VideoProcessing"
	case "copy", "dma", "sdma", "bcs", "ce":
		return "Copy"
	}
	return name
}

// engineOrder lists, per driver, its engine classes in the order the
// driver numbers them (amdgpu's AMDGPU_HW_IP_*, i915's and xe's engine
// classes): eng_N of an instance is the position here, and engines not
// listed are numbered after them in the order first seen.
var engineOrder = map[string][]string{
	"amdgpu": {"gfx", "compute", "dma", "dec", "enc", "enc_1", "jpeg", "vpe"},
	"i915":   {"render", "copy", "video", "video-enhance", "compute"},
	"xe":     {"rcs", "bcs", "vcs", "vecs", "ccs"},
}

// engineNumber returns the eng_N of an engine of an adapter.
func (g *gpuState) engineNumber(a *gpuAdapter, name string) int {
	if i := slices.Index(engineOrder[a.driver], name); i >= 0 {
		return i
	}
	m := g.engNum[a.key]
	if m == nil {
		m = map[string]int{}
		g.engNum[a.key] = m
	}
	if n, ok := m[name]; ok {
		return n
	}
	n := len(engineOrder[a.driver]) + len(m)
	if len(m) < maxEnginesPerGPU {
		m[name] = n
	}
	return n
}

// scanWanted reports whether any counter of an object is asked for.
func scanWanted(col Collection, n int) bool {
	for i := range n {
		if col.Wants(i) {
			return true
		}
	}
	return false
}

// scan reads the DRM clients of every process once per sample: for each
// /proc/PID/fd link to /dev/dri, its fdinfo. A client is counted once,
// for the lowest pid that holds it (a descriptor duplicated or inherited
// shows the same drm-client-id in several places). Processes whose
// descriptors cannot be listed (another user's, to a reader without
// privilege) are skipped without a word, as the kernel's own tools do.
func (g *gpuState) scan(c *Collector, col Collection) {
	if seq := col.Seq(); seq != 0 && g.scanSeq == seq {
		return
	}
	g.scanSeq = col.Seq()
	g.scanN++
	now := col.Time()
	if now == 0 {
		now = perfdata.FileTime(c.Now())
	}
	elapsed := int64(0)
	if g.scanTime != 0 && now > g.scanTime {
		elapsed = now - g.scanTime
	}
	g.scanTime = now
	g.usage = g.usage[:0]

	if g.proc == nil {
		return // no /proc tree to list: no clients
	}
	ents, err := fsReadDir(g.proc, ".")
	if err != nil {
		partialf(col, "GPU clients: /proc: %v", err)
		return
	}
	pids := make([]int32, 0, len(ents))
	for _, e := range ents {
		if p, err := strconv.ParseInt(e.Name(), 10, 32); err == nil && p > 0 {
			pids = append(pids, int32(p))
		}
	}
	slices.Sort(pids)
	type clientKey struct {
		adapter string
		id      uint64
	}
	seen := map[clientKey]bool{}
	var bad struct {
		n     int
		first string
	}
	clients := 0
	for _, pid := range pids {
		ps := strconv.Itoa(int(pid))
		fds := listFDs(g.proc, ps+"/fd")
		drmRead := 0
		for _, fd := range fds {
			t, err := fs.ReadLink(g.proc, ps+"/fd/"+fd)
			if err != nil || !strings.HasPrefix(t, "/dev/dri/") {
				continue
			}
			if drmRead >= maxDRMFDsRead || clients >= maxGPUClients {
				break
			}
			drmRead++
			file := ps + "/fdinfo/" + fd
			b, err := g.readFdinfo(file)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
					bad.n++
					if bad.first == "" {
						bad.first = fmt.Sprintf("/proc/%s: %v", file, err)
					}
				}
				continue
			}
			isDRM, perr := parseDRMFdinfo(b, &g.fd)
			if perr != nil {
				bad.n++
				if bad.first == "" {
					bad.first = fmt.Sprintf("/proc/%s %v", file, perr)
				}
				continue
			}
			if !isDRM {
				continue
			}
			key := ""
			if g.fd.pdev != "" && g.adapter(strings.ToLower(g.fd.pdev)) != nil {
				key = strings.ToLower(g.fd.pdev)
			} else {
				key = g.nodes[path.Base(t)]
			}
			a := g.adapter(key)
			if a == nil {
				continue
			}
			if g.fd.hasClientID {
				ck := clientKey{key, g.fd.clientID}
				if seen[ck] {
					continue
				}
				seen[ck] = true
			}
			clients++
			g.add(pid, a, elapsed)
		}
	}
	if bad.n == 1 {
		partialf(col, "GPU clients: %s", bad.first)
	} else if bad.n > 1 {
		partialf(col, "GPU clients: %d DRM fdinfo files not read (first %s)", bad.n, bad.first)
	}
	for k, s := range g.cycles {
		if s.seen != g.scanN {
			delete(g.cycles, k)
		}
	}
	// NVML's processes: their device memory, on the adapter's instance.
	for _, d := range g.nvDevs {
		for _, p := range d.Processes {
			if p.PID == 0 || p.PID > 1<<31-1 {
				continue
			}
			u := g.usageOf(int32(p.PID), d.BusID)
			if p.MemoryKnown {
				u.nvUsed, u.nvOK = u.nvUsed+p.UsedMemory, true
			}
		}
	}
	slices.SortStableFunc(g.usage, func(a, b gpuUsage) int {
		if a.pid != b.pid {
			return int(a.pid - b.pid)
		}
		return strings.Compare(a.adapter, b.adapter)
	})
}

// listFDs lists a descriptor directory, at most maxFDsListed names; an
// unreadable or vanished directory lists none.
func listFDs(fsys fs.FS, dir string) []string {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil
	}
	var names []string
	for len(names) < maxFDsListed {
		ents, err := rd.ReadDir(1024)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if err != nil || len(ents) == 0 {
			break
		}
	}
	return names
}

// readFdinfo reads one fdinfo file, at most maxFdinfoBytes.
func (g *gpuState) readFdinfo(name string) ([]byte, error) {
	f, err := g.proc.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := proctext.ReadAll(f, g.buf[:0], maxFdinfoBytes)
	g.buf = b[:0]
	return b, err
}

// usageOf returns the usage record of a process and adapter, made when
// first asked.
func (g *gpuState) usageOf(pid int32, adapter string) *gpuUsage {
	for i := len(g.usage) - 1; i >= 0 && g.usage[i].pid == pid; i-- {
		if g.usage[i].adapter == adapter {
			return &g.usage[i]
		}
	}
	for i := range g.usage {
		if g.usage[i].pid == pid && g.usage[i].adapter == adapter {
			return &g.usage[i]
		}
	}
	g.usage = append(g.usage, gpuUsage{pid: pid, adapter: adapter})
	return &g.usage[len(g.usage)-1]
}

// add counts the client in g.fd for process pid on adapter a. Engine time
// is the busy nanoseconds over the engine's capacity (drm-engine-capacity-,
// the number of engines of the class), in 100 ns; an engine counted in
// cycles is given the share of its cycles in each interval times the
// interval (elapsed, 100 ns).
func (g *gpuState) add(pid int32, a *gpuAdapter, elapsed int64) {
	u := g.usageOf(pid, a.key)
	for _, e := range g.fd.engines {
		capacity := max(e.capacity, 1)
		var busy uint64
		switch {
		case e.hasNS:
			busy = e.busyNS / 100 / capacity
		case e.hasCycles && e.hasTC:
			ck := cycleKey{a.key, g.fd.clientID, e.name}
			s := g.cycles[ck]
			if s == nil {
				s = &cycleState{cycles: e.cycles, total: e.totalCycles}
				g.cycles[ck] = s
			} else {
				// The kernel lets drm-cycles- fall behind and catch up:
				// keep the larger count until it does.
				if e.totalCycles > s.total && elapsed > 0 {
					dc := uint64(0)
					if e.cycles > s.cycles {
						dc = e.cycles - s.cycles
					}
					dt := e.totalCycles - s.total
					share := min(float64(dc)/float64(dt), 1) / float64(capacity)
					s.busy += uint64(share * float64(elapsed))
				}
				s.cycles, s.total = max(s.cycles, e.cycles), max(s.total, e.totalCycles)
			}
			s.seen = g.scanN
			busy = s.busy
		default:
			continue
		}
		k := slices.IndexFunc(u.engines, func(x gpuEngineUse) bool { return x.name == e.name })
		if k < 0 {
			u.engines = append(u.engines, gpuEngineUse{name: e.name})
			k = len(u.engines) - 1
		}
		u.engines[k].busy += busy
	}
	if l, nl, t, ok := g.fd.memory(); ok {
		u.local += l
		u.nonLocal += nl
		u.total += t
		u.memOK = true
	}
}

func (g *gpuState) engineObject() Object {
	set := newSet("GPU Engine", 0, counterset.Multiple, detNovice, geUtilization,
		"The GPU Engine object shows, for each process and each engine of each GPU it uses, how much of the time the engine ran the process's work, as Windows' object of the same name does. Linux's source is the DRM client statistics the GPU driver writes into /proc/PID/fdinfo of an open /dev/dri node (drm-engine-<class> busy nanoseconds; drm-cycles-<class> over drm-total-cycles-<class> on xe and panthor): amdgpu, i915, xe, msm, panfrost, panthor, v3d and other drivers that implement them. Instances are named as Windows names them, pid_<pid>_luid_0x<high>_0x<low>_phys_0_eng_<n>_engtype_<type>: the adapter's LUID is made from its PCI address, the type is Windows' name of the engine class (3D, Compute, Copy, VideoDecode, VideoEncode, VideoProcessing) or the driver's. Only processes whose descriptors the reader may see are shown (a user sees their own). The object is declared where the host has a GPU when the program starts.",
		[]counterset.Counter{
			grows(ctr("Running Time", tLargeRaw, -5, detNovice, "Running Time is the time, in 100 ns units, the engine has been busy with the process's work since its DRM clients were opened: drm-engine-<class> of /proc/PID/fdinfo (nanoseconds, divided by 100 and by drm-engine-capacity-<class> where a class has several engines), summed over the process's clients, each client counted once. For engines counted in GPU cycles, the share of busy cycles in each sample interval times the interval, added up since the program first saw the client.")),
			ctr("Utilization Percentage", tTimer, 0, detNovice, "Utilization Percentage is the percentage of the sample interval in which the engine was busy with the process's work: the change in Running Time over the elapsed time."),
		})
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		if !scanWanted(col, geNumCounters) {
			return nil
		}
		g.refresh(c, col)
		g.scan(c, col)
		for i := range g.usage {
			u := &g.usage[i]
			a := g.adapter(u.adapter)
			if a == nil {
				continue
			}
			for _, e := range u.engines {
				name := fmt.Sprintf("pid_%d_%s_eng_%d_engtype_%s", u.pid, a.name, g.engineNumber(a, e.name), engineType(e.name))
				v := w.Instance(name, 0, 0, -1)
				v.Set(geRunningTime, e.busy)
				v.Set(geUtilization, e.busy)
			}
		}
		return nil
	}}
}

func (g *gpuState) processMemoryObject() Object {
	set := newSet("GPU Process Memory", 0, counterset.Multiple, detNovice, gpmDedicated,
		"The GPU Process Memory object shows, for each process and each GPU it uses, the GPU memory of its buffers, as Windows' object of the same name does: from the drm-resident-<region>, drm-total-<region> and drm-memory-<region> lines the GPU driver writes into /proc/PID/fdinfo of an open /dev/dri node (each client counted once), and for NVIDIA GPUs in a build with NVML from nvmlDeviceGetComputeRunningProcesses and nvmlDeviceGetGraphicsRunningProcesses. Device memory is the regions named vram or local (amdgpu, xe, i915's local0); the others (gtt, system0, cpu) are system memory the GPU maps. Instances are named pid_<pid>_luid_0x<high>_0x<low>_phys_0, as Windows names them.",
		[]counterset.Counter{
			ctr("Shared Usage", tLargeRaw, -6, detNovice, "Shared Usage is the process's GPU buffers resident in system memory, in bytes (the DRM regions other than device memory: gtt, cpu, system0)."),
			ctr("Dedicated Usage", tLargeRaw, -6, detNovice, "Dedicated Usage is the process's GPU buffers resident in the GPU's own memory, in bytes (the DRM regions vram and local; NVML's used GPU memory of the process where no DRM client says)."),
			ctr("Non Local Usage", tLargeRaw, -6, detNovice, "Non Local Usage is the process's GPU memory outside the GPU's own memory segments, in bytes; on Linux it equals Shared Usage."),
			ctr("Local Usage", tLargeRaw, -6, detNovice, "Local Usage is the process's GPU memory in the GPU's own memory segments, in bytes; on Linux it equals Dedicated Usage."),
			ctr("Total Committed", tLargeRaw, -6, detNovice, "Total Committed is the size of every GPU buffer of the process, resident or not, in bytes: drm-total-<region> (else drm-memory-<region>) summed over regions, or NVML's used memory."),
		})
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		if !scanWanted(col, gpmNumCounters) {
			return nil
		}
		g.refresh(c, col)
		g.scan(c, col)
		for i := range g.usage {
			u := &g.usage[i]
			a := g.adapter(u.adapter)
			if a == nil || (!u.memOK && !u.nvOK) {
				continue
			}
			v := w.Instance(fmt.Sprintf("pid_%d_%s", u.pid, a.name), 0, 0, -1)
			local, nonLocal, total := u.local, u.nonLocal, u.total
			if u.nvOK && local == 0 {
				local = u.nvUsed
				total = max(total, nonLocal+local)
			}
			v.Set(gpmShared, nonLocal)
			v.Set(gpmDedicated, local)
			v.Set(gpmNonLocal, nonLocal)
			v.Set(gpmLocal, local)
			v.Set(gpmCommitted, total)
		}
		return nil
	}}
}

// adapterMemory is what an adapter's memory counters read: from amdgpu's
// sysfs attributes, or from NVML.
type adapterMemory struct {
	dedicated, shared       uint64
	hasDedicated, hasShared bool
}

// readAdapterMemory reads an adapter's memory use. amdgpu writes
// mem_info_vram_used and mem_info_gtt_used in bytes; NVML's used memory is
// the device's. Where neither is there, the counters are unavailable.
func (g *gpuState) readAdapterMemory(c *Collector, col Collection, a *gpuAdapter) adapterMemory {
	var m adapterMemory
	if a.sysDir != "" {
		read := func(attr string) (uint64, bool) {
			b, err := c.readFile(c.Sys, a.sysDir+"/"+attr)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					partialf(col, "/sys/%s/%s: %v", a.sysDir, attr, err)
				}
				return 0, false
			}
			v, ok := proctext.ParseUint(proctext.TrimSpace(b))
			if !ok {
				partialf(col, "/sys/%s/%s: %.40q is not a number of bytes", a.sysDir, attr, proctext.TrimSpace(b))
			}
			return v, ok
		}
		m.dedicated, m.hasDedicated = read("mem_info_vram_used")
		m.shared, m.hasShared = read("mem_info_gtt_used")
	}
	if !m.hasDedicated && a.nvml >= 0 && a.nvml < len(g.nvDevs) && g.nvDevs[a.nvml].MemoryOK {
		m.dedicated, m.hasDedicated = g.nvDevs[a.nvml].MemUsed, true
	}
	return m
}

func (g *gpuState) adapterMemoryObject() Object {
	set := newSet("GPU Adapter Memory", 0, counterset.Multiple, detNovice, gamDedicated,
		"The GPU Adapter Memory object shows the memory in use on each GPU, as Windows' object of the same name does, named luid_0x<high>_0x<low>_phys_0 (the LUID made from the PCI address). Linux's sources are the amdgpu driver's /sys/class/drm/cardN/device/mem_info_vram_used and mem_info_gtt_used, and NVML's device memory for NVIDIA GPUs in a build with it; a GPU whose driver has neither (i915, xe, most others) shows its instance with the counters unavailable.",
		[]counterset.Counter{
			ctr("Shared Usage", tLargeRaw, -6, detNovice, "Shared Usage is the system memory the GPU has mapped for its buffers, in bytes: mem_info_gtt_used of the amdgpu device (GTT)."),
			ctr("Dedicated Usage", tLargeRaw, -6, detNovice, "Dedicated Usage is the GPU's own memory in use, in bytes: mem_info_vram_used of the amdgpu device, or NVML's used device memory (nvmlDeviceGetMemoryInfo)."),
			ctr("Total Committed", tLargeRaw, -6, detNovice, "Total Committed is the GPU memory in use in every segment, in bytes: Dedicated Usage plus Shared Usage, where the driver reports them."),
		})
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		g.refresh(c, col)
		for i := range g.adapters {
			a := &g.adapters[i]
			v := w.Instance(a.name, 0, 0, -1)
			m := g.readAdapterMemory(c, col, a)
			var missing []int
			if m.hasShared {
				v.Set(gamShared, m.shared)
			} else {
				missing = append(missing, gamShared)
			}
			if m.hasDedicated {
				v.Set(gamDedicated, m.dedicated)
			} else {
				missing = append(missing, gamDedicated)
			}
			if m.hasDedicated || m.hasShared {
				v.Set(gamCommitted, m.dedicated+m.shared)
			} else {
				missing = append(missing, gamCommitted)
			}
			if len(missing) > 0 {
				col.Unavailable(missing...)
			}
		}
		return nil
	}}
}

func (g *gpuState) localAdapterMemoryObject() Object {
	set := newSet("GPU Local Adapter Memory", 0, counterset.Multiple, detNovice, 0,
		"The GPU Local Adapter Memory object shows the GPU's own (local) memory in use, per memory segment, as Windows' object of the same name does; Linux reports one segment per GPU, named luid_0x<high>_0x<low>_phys_0_part_0.",
		[]counterset.Counter{
			ctr("Local Usage", tLargeRaw, -6, detNovice, "Local Usage is the GPU's own memory in use, in bytes: mem_info_vram_used of the amdgpu device, or NVML's used device memory."),
		})
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		g.refresh(c, col)
		for i := range g.adapters {
			a := &g.adapters[i]
			v := w.Instance(a.name+"_part_0", 0, 0, -1)
			if m := g.readAdapterMemory(c, col, a); m.hasDedicated {
				v.Set(0, m.dedicated)
			} else {
				col.Unavailable()
			}
		}
		return nil
	}}
}
