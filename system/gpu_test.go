package system

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/system/nvml"
)

// gpuTree is a /proc and /sys tree under a temporary directory, with real
// symbolic links where the kernel has them (/sys/class/drm/NODE/device,
// /proc/PID/fd/N).
type gpuTree struct {
	t    *testing.T
	root string
}

func newGPUTree(t *testing.T) *gpuTree {
	g := &gpuTree{t: t, root: t.TempDir()}
	for _, d := range []string{"proc", "sys/class/drm", "sys/devices"} {
		if err := os.MkdirAll(filepath.Join(g.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func (g *gpuTree) write(rel, content string) {
	g.t.Helper()
	p := filepath.Join(g.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gpuTree) link(rel, target string) {
	g.t.Helper()
	p := filepath.Join(g.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		g.t.Fatal(err)
	}
}

// device declares a DRM device: its directory under /sys/devices with a
// uevent and attributes, and the class/drm nodes linking to it.
func (g *gpuTree) device(dev, uevent string, attrs map[string]string, nodes ...string) {
	g.write("sys/devices/"+dev+"/uevent", uevent)
	for k, v := range attrs {
		g.write("sys/devices/"+dev+"/"+k, v)
	}
	for _, n := range nodes {
		g.link("sys/class/drm/"+n+"/device", "../../../devices/"+dev)
	}
}

// fd opens a descriptor of process pid on target, with its fdinfo.
func (g *gpuTree) fd(pid, fd int, target, fdinfo string) {
	p, f := strconv.Itoa(pid), strconv.Itoa(fd)
	g.link("proc/"+p+"/fd/"+f, target)
	g.write("proc/"+p+"/fdinfo/"+f, fdinfo)
}

func (g *gpuTree) objects(nv nvmlSource) (*Collector, []Object) {
	proc, sys := os.DirFS(filepath.Join(g.root, "proc")), os.DirFS(filepath.Join(g.root, "sys"))
	c := NewCollector(proc, sys)
	return c, c.gpuObjectsWith(proc, nv)
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/gpu/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func findObject(t *testing.T, objs []Object, name string) Object {
	t.Helper()
	for _, o := range objs {
		if o.Set.Name == name {
			return o
		}
	}
	t.Fatalf("no object %q", name)
	return Object{}
}

// The two captured clients: amdgpu at 0000:04:00.0 (LUID low part 4 << 8)
// and i915 at 0000:00:02.0 (device 2 << 3).
const (
	amdLUID  = "luid_0x00000000_0x00000400_phys_0"
	i915LUID = "luid_0x00000000_0x00000010_phys_0"
	mib      = 1 << 20
)

// amdI915Tree is a host with an amdgpu and an i915 GPU. Process 100 has the
// amdgpu client through its render node and the i915 client through
// card1; process 101 shares the amdgpu client (the same drm-client-id, an
// inherited descriptor), which is counted once, for 100.
func amdI915Tree(t *testing.T) *gpuTree {
	g := newGPUTree(t)
	g.device("pci0000:00/0000:00:01.0/0000:04:00.0", "DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_SLOT_NAME=0000:04:00.0\n",
		map[string]string{"mem_info_vram_used": "1073741824\n", "mem_info_gtt_used": "33554432\n", "mem_info_vram_total": "8589934592\n"},
		"card0", "renderD128")
	g.device("pci0000:00/0000:00:02.0", "DRIVER=i915\nPCI_SLOT_NAME=0000:00:02.0\n", nil, "card1", "renderD129")
	g.link("sys/class/drm/card0-DP-1/device", "../../../devices/pci0000:00/0000:00:01.0/0000:04:00.0")
	g.write("sys/class/drm/version", "drm 1.1.0 20060810\n")
	amd := fixture(t, "amdgpu.fdinfo")
	g.fd(100, 5, "/dev/dri/renderD128", amd)
	g.fd(100, 6, "/dev/dri/card1", fixture(t, "i915.fdinfo"))
	g.fd(100, 1, "/dev/null", "pos:\t0\nflags:\t02\nmnt_id:\t20\n")
	g.fd(101, 3, "/dev/dri/renderD128", amd)
	return g
}

func TestGPUObjectsFromFixtures(t *testing.T) {
	g := amdI915Tree(t)
	c, objs := g.objects(nil)
	var names []string
	for _, o := range objs {
		names = append(names, o.Set.Name)
	}
	if want := []string{"GPU Engine", "GPU Process Memory", "GPU Adapter Memory", "GPU Local Adapter Memory"}; !slices.Equal(names, want) {
		t.Fatalf("objects %q, want %q", names, want)
	}

	eng := collectObjectSeq(t, c, findObject(t, objs, "GPU Engine"), 1)
	if len(eng.reasons) != 0 {
		t.Errorf("partial: %q", eng.reasons)
	}
	wantEng := map[string]uint64{
		"pid_100_" + amdLUID + "_eng_0_engtype_3D":               39456116802 / 100,
		"pid_100_" + i915LUID + "_eng_0_engtype_3D":              346249 / 100,
		"pid_100_" + i915LUID + "_eng_1_engtype_Copy":            0,
		"pid_100_" + i915LUID + "_eng_2_engtype_VideoDecode":     0,
		"pid_100_" + i915LUID + "_eng_3_engtype_VideoProcessing": 0,
	}
	if len(eng.names) != len(wantEng) {
		t.Fatalf("GPU Engine instances %q, want %d", eng.names, len(wantEng))
	}
	for name, v := range wantEng {
		if got := eng.get(t, name, "Running Time"); got != v {
			t.Errorf("%s Running Time = %d, want %d", name, got, v)
		}
		if got := eng.get(t, name, "Utilization Percentage"); got != v {
			t.Errorf("%s Utilization Percentage raw = %d, want %d", name, got, v)
		}
	}

	pm := collectObjectSeq(t, c, findObject(t, objs, "GPU Process Memory"), 1)
	if !slices.Equal(pm.names, []string{"pid_100_" + i915LUID, "pid_100_" + amdLUID}) && !slices.Equal(pm.names, []string{"pid_100_" + amdLUID, "pid_100_" + i915LUID}) {
		t.Fatalf("GPU Process Memory instances %q", pm.names)
	}
	for _, c := range []struct {
		inst, counter string
		want          uint64
	}{
		// amdgpu: drm-resident-vram 544428 KiB; drm-resident-gtt 22 MiB
		// and drm-resident-cpu 0; drm-total- of the three regions.
		{"pid_100_" + amdLUID, "Dedicated Usage", 544428 * kib},
		{"pid_100_" + amdLUID, "Local Usage", 544428 * kib},
		{"pid_100_" + amdLUID, "Shared Usage", 22 * mib},
		{"pid_100_" + amdLUID, "Non Local Usage", 22 * mib},
		{"pid_100_" + amdLUID, "Total Committed", 544428*kib + 22*mib},
		// i915 (integrated): system0 resident 6044 KiB, nothing local.
		{"pid_100_" + i915LUID, "Dedicated Usage", 0},
		{"pid_100_" + i915LUID, "Shared Usage", 6044 * kib},
		{"pid_100_" + i915LUID, "Total Committed", 6044 * kib},
	} {
		if got := pm.get(t, c.inst, c.counter); got != c.want {
			t.Errorf("%s %s = %d, want %d", c.inst, c.counter, got, c.want)
		}
	}

	am := collectObjectSeq(t, c, findObject(t, objs, "GPU Adapter Memory"), 1)
	if !slices.Equal(am.names, []string{amdLUID, i915LUID}) {
		t.Fatalf("GPU Adapter Memory instances %q", am.names)
	}
	if got := am.get(t, amdLUID, "Dedicated Usage"); got != 1<<30 {
		t.Errorf("Dedicated Usage = %d", got)
	}
	if got := am.get(t, amdLUID, "Shared Usage"); got != 32<<20 {
		t.Errorf("Shared Usage = %d", got)
	}
	if got := am.get(t, amdLUID, "Total Committed"); got != 1<<30+32<<20 {
		t.Errorf("Total Committed = %d", got)
	}
	// i915 writes no memory attribute: all three unavailable, no reason.
	if len(am.missing) != 1 || am.missing[0].inst != 1 || !slices.Equal(am.missing[0].counters, []int{gamShared, gamDedicated, gamCommitted}) {
		t.Errorf("unavailable %+v, want the i915 instance's three counters", am.missing)
	}
	if len(am.reasons) != 0 {
		t.Errorf("partial: %q", am.reasons)
	}

	lm := collectObjectSeq(t, c, findObject(t, objs, "GPU Local Adapter Memory"), 1)
	if got := lm.get(t, amdLUID+"_part_0", "Local Usage"); got != 1<<30 {
		t.Errorf("Local Usage = %d", got)
	}
	if len(lm.missing) != 1 || lm.missing[0].inst != 1 {
		t.Errorf("unavailable %+v, want the i915 instance", lm.missing)
	}
}

// Two samples 10 s apart in which the amdgpu client's gfx engine was busy
// 2.5 s: Running Time grows by 25,000,000 (100 ns), and the
// PERF_100NSEC_TIMER 100 × ΔRunning Time / Δtime is 25 %.
func TestGPUEngineUtilizationOverTwoSamples(t *testing.T) {
	g := amdI915Tree(t)
	c, objs := g.objects(nil)
	o := findObject(t, objs, "GPU Engine")
	inst := "pid_100_" + amdLUID + "_eng_0_engtype_3D"
	s1 := collectObjectSeq(t, c, o, 1)
	amd := strings.Replace(fixture(t, "amdgpu.fdinfo"), "drm-engine-gfx:\t39456116802 ns", "drm-engine-gfx:\t41956116802 ns", 1)
	g.fd(100, 5, "/dev/dri/renderD128", amd)
	s2 := collectObjectSeq(t, c, o, 2)
	x1, x2 := s1.get(t, inst, "Utilization Percentage"), s2.get(t, inst, "Utilization Percentage")
	const dt = 10 * 10_000_000 // 10 s in 100 ns
	if d := x2 - x1; d != 25_000_000 || 100*d/dt != 25 {
		t.Fatalf("ΔRunning Time = %d (%d %%), want 25000000 (25 %%)", d, 100*d/dt)
	}
}

// xe and panthor count engine time in GPU cycles: the share of busy
// cycles in an interval times the interval is added to Running Time.
func TestGPUEngineCycles(t *testing.T) {
	g := newGPUTree(t)
	g.device("pci0000:00/0000:00:02.0", "DRIVER=xe\nPCI_SLOT_NAME=0000:00:02.0\n", nil, "card0", "renderD128")
	xe := func(cycles, total int) string {
		return "drm-driver:\txe\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\ndrm-cycles-rcs:\t" + strconv.Itoa(cycles) + "\ndrm-total-cycles-rcs:\t" + strconv.Itoa(total) + "\ndrm-cycles-bcs:\t0\ndrm-total-cycles-bcs:\t" + strconv.Itoa(total) + "\n"
	}
	c, _ := g.objects(nil)
	gs := gpuStateOf(t, c, g)
	const t0 = int64(133_000_000_000_000_000)
	for _, step := range []struct {
		cycles, total int
		at            int64
		want          uint64
	}{
		{1000, 10000, t0, 0},
		{5000, 18000, t0 + 10_000_000, 5_000_000},               // 4000 of 8000 cycles busy over 1 s
		{5000, 26000, t0 + 20_000_000, 5_000_000},               // idle
		{4000, 34000, t0 + 30_000_000, 5_000_000},               // behind: kept at 5000
		{13000, 42000, t0 + 40_000_000, 5_000_000 + 10_000_000}, // 8000 of 8000 cycles
	} {
		g.fd(300, 9, "/dev/dri/renderD128", xe(step.cycles, step.total))
		p := newProbe()
		p.time = step.at
		gs.scan(c, &p)
		if len(gs.usage) != 1 || len(gs.usage[0].engines) != 2 {
			t.Fatalf("usage %+v", gs.usage)
		}
		if got := gs.usage[0].engines[0].busy; got != step.want {
			t.Errorf("at %d: rcs busy %d, want %d", step.at-t0, got, step.want)
		}
	}
	if n := gs.engineNumber(gs.adapter("0000:00:02.0"), "bcs"); n != 1 {
		t.Errorf("bcs is eng_%d, want 1", n)
	}
}

// gpuStateOf makes the state the objects of g's tree share, as
// gpuObjectsWith does.
func gpuStateOf(t *testing.T, c *Collector, g *gpuTree) *gpuState {
	t.Helper()
	s := &gpuState{proc: os.DirFS(filepath.Join(g.root, "proc")), cycles: map[cycleKey]*cycleState{}, engNum: map[string]map[string]int{}}
	s.refresh(c, nil)
	return s
}

func TestGPUAbsent(t *testing.T) {
	g := newGPUTree(t)
	// Only what a host without a GPU device has: the class's version file
	// (and no /dev/dri clients).
	g.write("sys/class/drm/version", "drm 1.1.0 20060810\n")
	if _, objs := g.objects(nil); objs != nil {
		t.Fatalf("objects %v on a host without a GPU", objs)
	}
	// The hardware fixture host, and this one: LinuxObjects declares none.
	for _, sys := range []string{"testdata/hw/sys", filepath.Join(g.root, "sys")} {
		c := NewCollector(os.DirFS(filepath.Join(g.root, "proc")), os.DirFS(sys))
		for _, o := range c.LinuxObjects() {
			if strings.HasPrefix(o.Set.Name, "GPU ") {
				t.Errorf("%s declares %s", sys, o.Set.Name)
			}
		}
	}
}

// A malformed fdinfo is reported as partial data naming the file and the
// line; the process's other clients and the other processes still count.
func TestGPUMalformedFdinfo(t *testing.T) {
	g := amdI915Tree(t)
	g.fd(102, 4, "/dev/dri/renderD129", "drm-driver:\ti915\ndrm-client-id:\t51\ndrm-engine-render:\tlots ns\n")
	g.fd(102, 8, "/dev/dri/renderD129", "drm-driver:\ti915\ndrm-client-id:\t52\ndrm-engine-copy:\t700 ns\n")
	c, objs := g.objects(nil)
	s := collectObjectSeq(t, c, findObject(t, objs, "GPU Engine"), 1)
	if len(s.reasons) != 1 || !strings.Contains(s.reasons[0], "/proc/102/fdinfo/4 line 3") {
		t.Fatalf("reasons %q, want one naming /proc/102/fdinfo/4 line 3", s.reasons)
	}
	if got := s.get(t, "pid_102_"+i915LUID+"_eng_1_engtype_Copy", "Running Time"); got != 7 {
		t.Errorf("the good client of 102: %d", got)
	}
	if _, ok := s.vals["pid_100_"+amdLUID+"_eng_0_engtype_3D"]; !ok {
		t.Errorf("process 100 lost: %q", s.names)
	}
}

// Another user's process: its descriptors cannot be listed (EACCES, as
// procfs answers a reader without ptrace access), and it is skipped
// without a word.
func TestGPUUnreadableProcessIsQuiet(t *testing.T) {
	g := amdI915Tree(t)
	g.fd(103, 4, "/dev/dri/renderD128", "drm-driver:\tamdgpu\ndrm-client-id:\t99\ndrm-engine-gfx:\t5 ns\n")
	g.fd(104, 4, "/dev/dri/renderD128", "drm-driver:\tamdgpu\ndrm-client-id:\t98\ndrm-engine-gfx:\t5 ns\n")
	proc := gpuDenyFS{os.DirFS(filepath.Join(g.root, "proc")).(readLinkFS), []string{"103/fd", "104/fdinfo/4"}}
	c := NewCollector(proc, os.DirFS(filepath.Join(g.root, "sys")))
	objs := c.gpuObjectsWith(proc, nil)
	s := collectObjectSeq(t, c, findObject(t, objs, "GPU Engine"), 1)
	if len(s.reasons) != 0 {
		t.Errorf("partial: %q", s.reasons)
	}
	for _, n := range s.names {
		if strings.HasPrefix(n, "pid_103_") || strings.HasPrefix(n, "pid_104_") {
			t.Errorf("instance %s of an unreadable process", n)
		}
	}
	if _, ok := s.vals["pid_100_"+amdLUID+"_eng_0_engtype_3D"]; !ok {
		t.Errorf("process 100 lost: %q", s.names)
	}
}

type readLinkFS interface {
	fs.ReadLinkFS
	fs.ReadDirFS
}

// gpuDenyFS answers EACCES for the names under its prefixes.
type gpuDenyFS struct {
	readLinkFS
	deny []string
}

func (d gpuDenyFS) denied(name string) error {
	for _, p := range d.deny {
		if name == p || strings.HasPrefix(name, p+"/") {
			return &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
	}
	return nil
}

func (d gpuDenyFS) Open(name string) (fs.File, error) {
	if err := d.denied(name); err != nil {
		return nil, err
	}
	return d.readLinkFS.Open(name)
}

func (d gpuDenyFS) ReadLink(name string) (string, error) {
	if err := d.denied(name); err != nil {
		return "", err
	}
	return d.readLinkFS.ReadLink(name)
}

// A query that asks for none of the object's counters reads no fdinfo.
func TestGPUEngineNotWantedNoScan(t *testing.T) {
	g := amdI915Tree(t)
	c, objs := g.objects(nil)
	o := findObject(t, objs, "GPU Engine")
	p := newProbe()
	p.want = []int{}
	w := &countingWriter{}
	if err := o.Collect(c, &p, w); err != nil {
		t.Fatal(err)
	}
	if w.n != 0 {
		t.Fatalf("%d instances with no counter wanted", w.n)
	}
}

// countingWriter counts the instances written (zero Values discard what
// is set).
type countingWriter struct{ n int }

func (w *countingWriter) Instance(string, uint32, uint32, int32) perfdata.Values {
	w.n++
	return perfdata.Values{}
}
func (w *countingWriter) Single() perfdata.Values    { return perfdata.Values{} }
func (w *countingWriter) SetObjectTime(int64, int64) {}

// fakeNVML is an NVML with one device.
type fakeNVML struct{ devs []nvml.Device }

func (f fakeNVML) Devices() ([]nvml.Device, error) { return f.devs, nil }

func TestGPUFromNVML(t *testing.T) {
	g := newGPUTree(t)
	nv := fakeNVML{[]nvml.Device{{BusID: "0000:01:00.0", MemTotal: 80 << 30, MemUsed: 3 << 30, MemoryOK: true,
		Processes: []nvml.Process{{PID: 4242, UsedMemory: 512 << 20, MemoryKnown: true, Compute: true}, {PID: 77, Compute: true}}}}}
	c, objs := g.objects(nv)
	if len(objs) != 4 {
		t.Fatalf("%d objects from an NVML device", len(objs))
	}
	const luid = "luid_0x00000000_0x00000100_phys_0"
	am := collectObjectSeq(t, c, findObject(t, objs, "GPU Adapter Memory"), 1)
	if got := am.get(t, luid, "Dedicated Usage"); got != 3<<30 {
		t.Errorf("Dedicated Usage = %d", got)
	}
	if len(am.missing) != 1 || !slices.Equal(am.missing[0].counters, []int{gamShared}) {
		t.Errorf("unavailable %+v, want Shared Usage", am.missing)
	}
	pm := collectObjectSeq(t, c, findObject(t, objs, "GPU Process Memory"), 1)
	if !slices.Equal(pm.names, []string{"pid_4242_" + luid}) {
		t.Fatalf("instances %q (77's memory is not known: no instance)", pm.names)
	}
	if got := pm.get(t, "pid_4242_"+luid, "Dedicated Usage"); got != 512<<20 {
		t.Errorf("Dedicated Usage = %d", got)
	}
	eng := collectObjectSeq(t, c, findObject(t, objs, "GPU Engine"), 1)
	if len(eng.names) != 0 {
		t.Errorf("GPU Engine instances %q from NVML", eng.names)
	}
}

func TestLUIDName(t *testing.T) {
	for _, c := range []struct {
		key  string
		pci  bool
		want string
	}{
		{"0000:03:00.0", true, "luid_0x00000000_0x00000300_phys_0"},
		{"0000:00:02.0", true, "luid_0x00000000_0x00000010_phys_0"},
		{"0001:c1:1f.7", true, "luid_0x00000001_0x0000C1FF_phys_0"},
		{"fd00000.gpu", false, "luid_0x80000000_0x"},
	} {
		if got := luidName(c.key, c.pci); !strings.HasPrefix(got, c.want) || (c.pci && got != c.want) {
			t.Errorf("luidName(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

func TestEngineType(t *testing.T) {
	for name, want := range map[string]string{
		"gfx": "3D", "render": "3D", "rcs": "3D", "compute": "Compute", "ccs": "Compute",
		"video": "VideoDecode", "dec": "VideoDecode", "vcn": "VideoDecode", "enc": "VideoEncode", "enc_1": "VideoEncode",
		"copy": "Copy", "dma": "Copy", "sdma": "Copy", "bcs": "Copy", "video-enhance": "VideoProcessing", "vecs": "VideoProcessing",
		"gpu": "gpu", "npu": "npu",
	} {
		if got := engineType(name); got != want {
			t.Errorf("engineType(%q) = %q, want %q", name, got, want)
		}
	}
}

// LinuxObjects declares the GPU objects last, over the Collector's /proc.
func TestLinuxObjectsDeclareGPU(t *testing.T) {
	g := amdI915Tree(t)
	c := NewCollector(os.DirFS(filepath.Join(g.root, "proc")), os.DirFS(filepath.Join(g.root, "sys")))
	objs := c.LinuxObjects()
	var names []string
	for _, o := range objs[max(len(objs)-4, 0):] {
		names = append(names, o.Set.Name)
	}
	if want := []string{"GPU Engine", "GPU Process Memory", "GPU Adapter Memory", "GPU Local Adapter Memory"}; !slices.Equal(names, want) {
		t.Fatalf("last objects %q, want %q", names, want)
	}
	s := collectObjectSeq(t, c, objs[len(objs)-4], 1)
	if _, ok := s.vals["pid_100_"+amdLUID+"_eng_0_engtype_3D"]; !ok {
		t.Errorf("GPU Engine through LinuxObjects: %q", s.names)
	}
}
