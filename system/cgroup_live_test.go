package system

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The live tests create control groups on this host (root and a writable
// cgroup file system needed; they skip with the reason otherwise), run a
// CPU-burning shell in them, and compare what the Control Group object
// reads with the group's own files read between the same samples: a
// cumulative counter must satisfy r1 <= f1 <= r2 <= f2 (r the counter's
// raw value at samples 1 and 2, f the file read right after each), which
// holds exactly however loaded the machine is, and fails for a wrong file,
// field or unit as soon as the group has used some CPU (the tests wait for
// that by polling the file, never by sleeping).

// liveMounts returns the host's control-group mounts under /sys.
func liveMounts(t *testing.T) []cgroupMount {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creating control groups needs root")
	}
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		t.Skipf("no /proc/self/mounts: %v", err)
	}
	var out []cgroupMount
	for _, m := range parseCgroupMounts(b) {
		if strings.HasPrefix(m.dir, "/sys/") {
			out = append(out, m)
		}
	}
	return out
}

// mountOf returns the directory of the v2 hierarchy (ctl "") or of a v1
// controller, or "".
func mountOf(ms []cgroupMount, ctl string) string {
	for _, m := range ms {
		if ctl == "" && m.v2 {
			return m.dir
		}
		for _, c := range m.controllers {
			if c == ctl {
				return m.dir
			}
		}
	}
	return ""
}

// makeGroup creates dir (a group) and removes it at cleanup, waiting
// for its processes to be gone (rmdir fails with EBUSY until then).
func makeGroup(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
			t.Skipf("cannot create a control group: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { removeGroup(t, dir) })
}

func removeGroup(t *testing.T, dir string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("rmdir %s: %v", dir, err)
			return
		}
		time.Sleep(time.Millisecond) // polling for the kernel to finish the exit
	}
}

// burner starts a shell that spins, and ends it at cleanup.
func burner(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func join(t *testing.T, dir string, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		t.Fatalf("move %d into %s: %v", pid, dir, err)
	}
}

// fileValue reads a number from a file: the whole file, or the value of
// key in "key value" / "key=value" lines, or field "total=" of line kind.
func fileValue(t *testing.T, path, key string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if key == "" {
		v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == key {
			v, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				t.Fatalf("%s %s: %v", path, key, err)
			}
			return v
		}
		if len(f) >= 5 && f[0]+" total" == key {
			v, err := strconv.ParseUint(strings.TrimPrefix(f[4], "total="), 10, 64)
			if err != nil {
				t.Fatalf("%s %s: %v", path, key, err)
			}
			return v
		}
	}
	t.Fatalf("%s: no %s", path, key)
	return 0
}

// waitFor polls until cond holds, failing after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not timing
	}
}

// bracket checks r1 <= f1 <= r2 <= f2 and that the file moved.
func bracket(t *testing.T, what string, r1, f1, r2, f2 uint64) {
	t.Helper()
	if r1 > f1 || f1 > r2 || r2 > f2 {
		t.Errorf("%s: counter %d, file %d, counter %d, file %d: not in order", what, r1, f1, r2, f2)
	}
}

func cgLiveCollector() *Collector {
	return NewCollector(os.DirFS("/proc"), os.DirFS("/sys"), WithUptime(SinceBoot))
}

// TestCgroupLiveV1 runs a burner in a group of the v1 cpu, cpuacct and
// memory hierarchies and checks CPU time against cpuacct.usage, throttling
// against cpu.stat, and memory against memory.usage_in_bytes.
func TestCgroupLiveV1(t *testing.T) {
	ms := liveMounts(t)
	cpuacct, cpu, mem := mountOf(ms, "cpuacct"), mountOf(ms, "cpu"), mountOf(ms, "memory")
	if cpuacct == "" || cpu == "" || mem == "" || cpuacct == mountOf(ms, "") {
		t.Skip("no cgroup v1 cpu, cpuacct and memory hierarchies on this host")
	}
	name := fmt.Sprintf("perfc-test-v1-%d", os.Getpid())
	dirs := []string{filepath.Join(cpuacct, name), filepath.Join(cpu, name), filepath.Join(mem, name)}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			continue // co-mounted controllers share a directory
		}
		makeGroup(t, d)
	}
	// A quota of half a CPU, so that the burner is throttled.
	if err := os.WriteFile(filepath.Join(dirs[1], "cpu.cfs_quota_us"), []byte("50000"), 0); err != nil {
		t.Fatal(err)
	}
	b := burner(t)
	for _, d := range dirs {
		join(t, d, b.Process.Pid)
	}
	usage := filepath.Join(dirs[0], "cpuacct.usage")
	waitFor(t, "20 ms of CPU in the group", func() bool { return fileValue(t, usage, "") >= 20e6 })
	waitFor(t, "a throttled period", func() bool { return fileValue(t, filepath.Join(dirs[1], "cpu.stat"), "nr_throttled") > 0 })

	c := cgLiveCollector()
	defer c.Close()
	o := c.cgroupObject()
	inst := "/" + name
	s1 := collectObject(t, c, o)
	f1 := fileValue(t, usage, "") / 100
	t1 := fileValue(t, filepath.Join(dirs[1], "cpu.stat"), "nr_throttled")
	s2 := collectObject(t, c, o)
	f2 := fileValue(t, usage, "") / 100
	t2 := fileValue(t, filepath.Join(dirs[1], "cpu.stat"), "nr_throttled")
	bracket(t, "CPU time (cpuacct.usage)", s1.at(t, inst, cgProcessorTime), f1, s2.at(t, inst, cgProcessorTime), f2)
	bracket(t, "% Quota Processor Time (cpuacct.usage)", s1.at(t, inst, cgQuotaTime), f1, s2.at(t, inst, cgQuotaTime), f2)
	bracket(t, "throttled periods (cpu.stat nr_throttled)", s1.at(t, inst, cgThrottledPeriods), t1, s2.at(t, inst, cgThrottledPeriods), t2)
	if d := s2.at(t, inst, cgQuotaTimeBase) - s1.at(t, inst, cgQuotaTimeBase); d == 0 || d > s2.at(t, inst, cgProcessorTimeBase)-s1.at(t, inst, cgProcessorTimeBase) {
		t.Errorf("quota base moved %d: not half of one CPU's clock", d)
	}
	// Memory: a second process joins the memory group, then writes 16 MiB
	// to a tmpfs file, charged to the group; then it waits. The counter
	// lies between two reads around it.
	shm := filepath.Join("/dev/shm", name)
	t.Cleanup(func() { os.Remove(shm) })
	holder := exec.Command("sh", "-c", "read x; head -c 16777216 /dev/zero > "+shm+"; exec sleep 600")
	in, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	t.Cleanup(func() {
		_ = holder.Process.Kill()
		_ = holder.Wait()
	})
	join(t, dirs[2], holder.Process.Pid)
	in.Write([]byte("go\n"))
	// Once the holder has become sleep (the shell's own pages are gone),
	// the group's usage is 16 MiB and what the kernel charges besides
	// (page tables, slab), which moves a little by itself: the counter
	// must lie within 1 % of the two reads around it.
	waitFor(t, "16 MiB charged to the group and the holder asleep", func() bool {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", holder.Process.Pid))
		return strings.TrimSpace(string(comm)) == "sleep" && fileValue(t, filepath.Join(dirs[2], "memory.usage_in_bytes"), "") >= 16<<20
	})
	m0 := fileValue(t, filepath.Join(dirs[2], "memory.usage_in_bytes"), "")
	s3 := collectObject(t, c, o)
	m1 := fileValue(t, filepath.Join(dirs[2], "memory.usage_in_bytes"), "")
	if r := s3.at(t, inst, cgMemory); float64(r) < 0.99*float64(min(m0, m1)) || float64(r) > 1.01*float64(max(m0, m1)) || r < 16<<20 {
		t.Errorf("memory usage %d, file %d and %d", r, m0, m1)
	}
	if got := s3.at(t, inst, cgProcesses); got != 1 {
		t.Errorf("Process Count - Active %d, want 1 (the burner in the cpu hierarchy's group)", got)
	}
	if !s3.unavailable(inst, cgCPUSome) && s3.uids[inst] != -1 && mountOf(ms, "") != "" {
		// On a hybrid host the group may exist in v2 too; here it does not.
		t.Errorf("pressure of a v1-only group not marked unavailable")
	}
}

// TestCgroupLiveV2 does the same in the v2 hierarchy: CPU time against
// cpu.stat usage_usec and CPU pressure against cpu.pressure.
func TestCgroupLiveV2(t *testing.T) {
	ms := liveMounts(t)
	root := mountOf(ms, "")
	if root == "" {
		t.Skip("no cgroup v2 hierarchy on this host")
	}
	if _, err := os.Stat(filepath.Join(root, "cpu.pressure")); err != nil {
		t.Skipf("no pressure files in the v2 hierarchy: %v", err)
	}
	name := fmt.Sprintf("perfc-test-v2-%d", os.Getpid())
	dir := filepath.Join(root, name)
	makeGroup(t, dir)
	b := burner(t)
	join(t, dir, b.Process.Pid)
	stat := filepath.Join(dir, "cpu.stat")
	waitFor(t, "20 ms of CPU in the group", func() bool { return fileValue(t, stat, "usage_usec") >= 20000 })

	c := cgLiveCollector()
	defer c.Close()
	o := c.cgroupObject()
	inst := "/" + name
	s1 := collectObject(t, c, o)
	f1, p1 := fileValue(t, stat, "usage_usec")*10, fileValue(t, filepath.Join(dir, "cpu.pressure"), "some total")*10
	s2 := collectObject(t, c, o)
	f2, p2 := fileValue(t, stat, "usage_usec")*10, fileValue(t, filepath.Join(dir, "cpu.pressure"), "some total")*10
	// On a hybrid host the v1 cpuacct hierarchy, where it is mounted and
	// has the group, wins; this group exists only in v2.
	bracket(t, "CPU time (cpu.stat usage_usec)", s1.at(t, inst, cgProcessorTime), f1, s2.at(t, inst, cgProcessorTime), f2)
	bracket(t, "CPU some stall (cpu.pressure)", s1.at(t, inst, cgCPUSome), p1, s2.at(t, inst, cgCPUSome), p2)
	if got := s2.at(t, inst, cgThreads); got != 1 {
		t.Errorf("Thread Count - Active %d, want 1", got)
	}
}

// TestCgroupLiveIdentity: a group whose processes are killed and which is
// removed goes away; a new group of the same name is a new instance (a
// different unique id), never the old one.
func TestCgroupLiveIdentity(t *testing.T) {
	ms := liveMounts(t)
	root := mountOf(ms, "")
	if root == "" {
		root = mountOf(ms, "cpuacct")
	}
	if root == "" {
		t.Skip("no cgroup hierarchy on this host")
	}
	name := fmt.Sprintf("perfc-test-id-%d", os.Getpid())
	dir := filepath.Join(root, name)
	makeGroup(t, dir)
	b := burner(t)
	join(t, dir, b.Process.Pid)
	c := cgLiveCollector()
	defer c.Close()
	o := c.cgroupObject()
	inst := "/" + name
	s1 := collectObject(t, c, o)
	id1, ok := s1.uids[inst]
	if !ok || id1 == -1 {
		t.Fatalf("instance %s: unique id %d, present %v", inst, id1, ok)
	}
	_ = b.Process.Kill()
	_ = b.Wait()
	removeGroup(t, dir)
	s2 := collectObject(t, c, o)
	if _, ok := s2.uids[inst]; ok {
		t.Fatalf("instance %s still there after rmdir", inst)
	}
	makeGroup(t, dir)
	s3 := collectObject(t, c, o)
	id3, ok := s3.uids[inst]
	if !ok {
		t.Fatalf("instance %s missing after mkdir", inst)
	}
	if id3 == id1 || id3 == -1 {
		t.Errorf("new group has unique id %d, the old one had %d", id3, id1)
	}
}

// TestCgroupLiveV1IO writes 16 MiB with O_DIRECT (and fsync) from a
// process in a group of the v1 blkio hierarchy, between two samples, and
// checks Block Write Bytes/sec and Block Write Operations/sec against the
// Write lines of blkio.throttle.io_service_bytes_recursive and
// io_serviced_recursive read right after each sample. The file is on the
// disk of the test's temporary directory (a tmpfs does no block I/O: the
// test skips there, saying so).
func TestCgroupLiveV1IO(t *testing.T) {
	ms := liveMounts(t)
	blkio := mountOf(ms, "blkio")
	if blkio == "" || blkio == mountOf(ms, "") {
		t.Skip("no cgroup v1 blkio hierarchy on this host")
	}
	if _, err := exec.LookPath("dd"); err != nil {
		t.Skip("no dd")
	}
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil && st.Type == 0x01021994 { // TMPFS_MAGIC
		t.Skipf("%s is a tmpfs: writes there are no block I/O", dir)
	}
	name := fmt.Sprintf("perfc-test-io-%d", os.Getpid())
	group := filepath.Join(blkio, name)
	makeGroup(t, group)
	bytesFile := filepath.Join(group, "blkio.throttle.io_service_bytes_recursive")
	opsFile := filepath.Join(group, "blkio.throttle.io_serviced_recursive")
	writes := func(path string) uint64 { // the sum of the per-device Write lines
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[1] == "Write" {
				v, err := strconv.ParseUint(f[2], 10, 64)
				if err != nil {
					t.Fatalf("%s: %q: %v", path, line, err)
				}
				n += v
			}
		}
		return n
	}
	c := cgLiveCollector()
	defer c.Close()
	o := c.cgroupObject()
	inst := "/" + name
	s1 := collectObject(t, c, o)
	b1, o1 := writes(bytesFile), writes(opsFile)
	out := filepath.Join(dir, "io")
	cmd := exec.Command("sh", "-c", "read x; exec dd if=/dev/zero of="+out+" bs=64k count=256 oflag=direct conv=fsync")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var ddOut strings.Builder
	cmd.Stdout, cmd.Stderr = &ddOut, &ddOut
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	join(t, group, cmd.Process.Pid)
	in.Write([]byte("go\n"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dd: %v %s", err, ddOut.String())
	}
	if writes(bytesFile) < 16<<20 {
		t.Skipf("16 MiB of direct writes left %s at %d bytes: this host's block layer does not account I/O to groups", bytesFile, writes(bytesFile))
	}
	s2 := collectObject(t, c, o)
	b2, o2 := writes(bytesFile), writes(opsFile)
	bracket(t, "Block Write Bytes/sec (blkio.throttle.io_service_bytes_recursive)", s1.at(t, inst, cgWriteBytes), b1, s2.at(t, inst, cgWriteBytes), b2)
	bracket(t, "Block Write Operations/sec (blkio.throttle.io_serviced_recursive)", s1.at(t, inst, cgWriteOps), o1, s2.at(t, inst, cgWriteOps), o2)
	if d := s2.at(t, inst, cgWriteBytes) - s1.at(t, inst, cgWriteBytes); d < 16<<20 {
		t.Errorf("Block Write Bytes/sec raw moved %d over 16 MiB of writes", d)
	}
}
