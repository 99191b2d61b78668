package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
)

// The Control Group object at 10 and 500 groups (issue 31): the groups are
// created by the benchmark in every control-group hierarchy mounted under
// /sys/fs/cgroup (on the project's machine kind: the v1 cpu, cpuacct,
// memory, blkio and pids hierarchies and the v2 tree), empty, and removed
// afterwards. It needs root; elsewhere it is skipped.
//
// BenchmarkCgroupOur is one query of the Control Group object from the
// local engine (every counter: each group's files of every hierarchy).
// BenchmarkCgroupFloor reads the same files with a plain loop, the
// floor: list each hierarchy's tree, and open, read and close each file
// the object reads for a group, parsing nothing.

var cgroupSizes = []int{10, 500}

// cgroupFiles are the files the Control Group object reads of a group,
// by hierarchy (its controller, or "" for v2), on a hybrid host: CPU,
// throttling and quota from v1 cpu/cpuacct, memory from v1 memory, block
// I/O from v1 blkio, members and pressure from v2.
var cgroupFiles = map[string][]string{
	"cpuacct": {"cpuacct.usage", "cpuacct.stat"},
	"cpu":     {"cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.stat"},
	"memory":  {"memory.usage_in_bytes", "memory.stat", "memory.limit_in_bytes", "memory.memsw.usage_in_bytes", "memory.oom_control"},
	"blkio":   {"blkio.throttle.io_service_bytes_recursive", "blkio.throttle.io_serviced_recursive"},
	"":        {"cgroup.procs", "cgroup.threads", "cpu.pressure", "memory.pressure", "io.pressure"},
}

// cgroupHierarchies returns the mounted hierarchies under /sys/fs/cgroup
// this benchmark knows, by controller ("" for v2).
func cgroupHierarchies(b *testing.B) map[string]string {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 4 || !strings.HasPrefix(fl[1], "/sys/fs/cgroup") {
			continue
		}
		switch fl[2] {
		case "cgroup2":
			out[""] = fl[1]
		case "cgroup":
			for _, o := range strings.Split(fl[3], ",") {
				if _, ok := cgroupFiles[o]; ok {
					out[o] = fl[1]
				}
			}
		}
	}
	return out
}

// makeCgroups creates n groups perfc-bench-PID/gK in every hierarchy and
// removes them at cleanup.
func makeCgroups(b *testing.B, hier map[string]string, n int) {
	if os.Geteuid() != 0 {
		b.Skip("creating control groups needs root")
	}
	if len(hier) == 0 {
		b.Skip("no control-group hierarchy under /sys/fs/cgroup")
	}
	base := fmt.Sprintf("perfc-bench-%d", os.Getpid())
	var dirs []string
	for _, root := range uniq(hier) {
		top := filepath.Join(root, base)
		if err := os.Mkdir(top, 0o755); err != nil {
			b.Skipf("cannot create a control group: %v", err)
		}
		dirs = append(dirs, top)
		for k := range n {
			d := filepath.Join(top, "g"+strconv.Itoa(k))
			if err := os.Mkdir(d, 0o755); err != nil {
				b.Fatal(err)
			}
			dirs = append(dirs, d)
		}
	}
	b.Cleanup(func() {
		for i := len(dirs) - 1; i >= 0; i-- {
			deadline := time.Now().Add(5 * time.Second)
			for {
				err := syscall.Rmdir(dirs[i])
				if err == nil || errors.Is(err, syscall.ENOENT) || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	})
}

func uniq(m map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range m {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func BenchmarkCgroupOur(b *testing.B) {
	hier := cgroupHierarchies(b)
	for _, n := range cgroupSizes {
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			makeCgroups(b, hier, n)
			h, err := host.New(host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			idx, ok := h.Titles().Index("Control Group")
			if !ok {
				b.Fatal("no Control Group object")
			}
			q := strconv.FormatUint(uint64(idx), 10)
			ctx := context.Background()
			loop(b, func() {
				if _, err := h.QueryValue(ctx, q); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkCgroupFloor(b *testing.B) {
	hier := cgroupHierarchies(b)
	for _, n := range cgroupSizes {
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			makeCgroups(b, hier, n)
			buf := make([]byte, 64<<10)
			loop(b, func() {
				for ctl, root := range hier {
					files := cgroupFiles[ctl]
					walkDirs(root, func(dir string) {
						for _, f := range files {
							readInto(filepath.Join(dir, f), buf)
						}
					})
				}
			})
		})
	}
}

// walkDirs calls f for root and every directory below it.
func walkDirs(root string, f func(string)) {
	f(root)
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			walkDirs(filepath.Join(root, e.Name()), f)
		}
	}
}

// readInto opens, reads and closes name into buf.
func readInto(name string, buf []byte) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	for {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			break
		}
	}
	syscall.Close(fd)
}
