package bench

import (
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/procscan"
	"github.com/perfcounters/perfcounters/system"
	"github.com/prometheus/procfs"
	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"
)

// cpuNow returns this process's user+system CPU time in nanoseconds.
func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// loop runs f as the benchmark body and reports CPU time per op; it
// returns the CPU time of the loop, in ns, and the number of ops.
func loop(b *testing.B, f func()) (cpu int64, n int) {
	b.ReportAllocs()
	start := cpuNow()
	for b.Loop() {
		f()
		n++
	}
	cpu = cpuNow() - start
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
	return cpu, n
}

// pidsOf lists the numeric entries of dir.
func pidsOf(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

// The per-process files the collector reads: stat, status and io for
// Process; task/TID/stat and task/TID/schedstat for Thread; plus the
// listing of /proc and of each task directory, the descriptor count
// (stat of /proc/PID/fd) and /proc/stat.
var (
	procFiles   = []string{"stat", "status", "io"}
	threadFiles = []string{"stat", "schedstat"}
)

func readClose(dirfd int, path string, buf []byte) {
	fd, err := syscall.Openat(dirfd, path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	syscall.Read(fd, buf)
	syscall.Close(fd)
}

func listDir(fd int, buf []byte) {
	syscall.Seek(fd, 0, 0)
	for {
		n, err := syscall.Getdents(fd, buf)
		if n <= 0 || err != nil {
			return
		}
	}
}

// BenchmarkFloorOpenReadClose opens, reads and closes the files the
// collector reads, and lists the same directories, parsing nothing.
func BenchmarkFloorOpenReadClose(b *testing.B) {
	buf := make([]byte, 8192)
	dbuf := make([]byte, 32<<10)
	loop(b, func() {
		root, err := syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		listDir(root, dbuf)
		readClose(root, "stat", buf)
		for _, pid := range pidsOf("/proc") {
			for _, f := range procFiles {
				readClose(root, pid+"/"+f, buf)
			}
			var st unix.Stat_t
			unix.Fstatat(root, pid+"/fd", &st, 0)
			tfd, err := syscall.Openat(root, pid+"/task", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			listDir(tfd, dbuf)
			syscall.Close(tfd)
			for _, tid := range pidsOf("/proc/" + pid + "/task") {
				for _, f := range threadFiles {
					readClose(root, pid+"/task/"+tid+"/"+f, buf)
				}
			}
		}
		syscall.Close(root)
	})
}

// BenchmarkFloorKeptFD reads the same files with pread at offset 0 on
// descriptors opened once, before timing.
func BenchmarkFloorKeptFD(b *testing.B) { floorKept(b, 1<<30) }

// BenchmarkFloorKeptBound17500 is the floor under the bound an
// unprivileged process has on this machine: the first 17,500 descriptors
// (the process-level ones first, then the threads') are kept and read with
// pread; the files past them are opened, read and closed every time.
func BenchmarkFloorKeptBound17500(b *testing.B) { floorKept(b, 17500) }

func floorKept(b *testing.B, bound int) {
	buf := make([]byte, 8192)
	dbuf := make([]byte, 32<<10)
	root, err := syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	var files, dirs, paths []int
	var unkept []string // files past the bound, read with open/read/close
	n := 0
	open := func(path string, flags int, dst *[]int) {
		if n >= bound {
			if dst == &files {
				unkept = append(unkept, path)
			}
			return
		}
		fd, err := syscall.Openat(root, path, flags|syscall.O_CLOEXEC, 0)
		if err == nil {
			*dst = append(*dst, fd)
			n++
		}
	}
	open("stat", syscall.O_RDONLY, &files)
	pids := pidsOf("/proc")
	for _, pid := range pids {
		for _, f := range procFiles {
			open(pid+"/"+f, syscall.O_RDONLY, &files)
		}
		open(pid+"/fd", 0x200000|syscall.O_DIRECTORY, &paths) // O_PATH
		open(pid+"/task", syscall.O_RDONLY|syscall.O_DIRECTORY, &dirs)
	}
	for _, pid := range pids {
		for _, tid := range pidsOf("/proc/" + pid + "/task") {
			for _, f := range threadFiles {
				open(pid+"/task/"+tid+"/"+f, syscall.O_RDONLY, &files)
			}
		}
	}
	defer func() {
		for _, l := range [][]int{files, dirs, paths} {
			for _, fd := range l {
				syscall.Close(fd)
			}
		}
		syscall.Close(root)
	}()
	b.Logf("kept %d files, %d directories, %d fd directories; %d files read with open/read/close", len(files), len(dirs), len(paths), len(unkept))
	loop(b, func() {
		listDir(root, dbuf)
		for _, fd := range files {
			syscall.Pread(fd, buf, 0)
		}
		for _, p := range unkept {
			readClose(root, p, buf)
		}
		var st syscall.Stat_t
		for _, fd := range paths {
			syscall.Fstat(fd, &st)
		}
		for _, fd := range dirs {
			listDir(fd, dbuf)
		}
	})
}

// nopCollection is a system.Collection that discards partial-data
// reports, as a benchmark of the collection alone needs.
type nopCollection struct{}

func (nopCollection) Seq() uint64        { return 0 }
func (nopCollection) Time() int64        { return 0 }
func (nopCollection) Wants(int) bool     { return true }
func (nopCollection) Partial(string)     {}
func (nopCollection) Unavailable(...int) {}

// builderWriter adapts a perfdata.Builder to system.Writer, as the engine
// does.
type builderWriter struct{ b *perfdata.Builder }

func (w builderWriter) Instance(name string, pt, pi uint32, uid int32) perfdata.Values {
	return w.b.Instance(name, pt, pi, uid)
}
func (w builderWriter) Single() perfdata.Values  { return w.b.Single() }
func (w builderWriter) SetObjectTime(t, f int64) { w.b.SetObjectTime(t, f) }

func benchOurs(b *testing.B, maxKept int) {
	r, err := procscan.Open("/proc", procscan.Options{MaxKept: maxKept, RaiseLimit: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	c := system.NewCollector(nil, os.DirFS("/sys"), system.WithProcReader(r))
	p := system.NewProcessObjects(r)
	defer p.Close()
	objs := []system.Object{p.Process(), p.Thread()}
	type prep struct {
		l     *perfdata.Layout
		specs []perfdata.CounterSpec
	}
	var preps []prep
	for _, o := range objs {
		specs := make([]perfdata.CounterSpec, len(o.Set.Counters))
		for i, ctr := range o.Set.Counters {
			specs[i] = perfdata.CounterSpec{NameIndex: ctr.NameIndex, HelpIndex: ctr.NameIndex + 1, DefaultScale: ctr.DefaultScale,
				DetailLevel: ctr.DetailLevel, Type: ctr.Type, Size: ctr.ValueSize()}
		}
		l, err := perfdata.NewLayout(specs)
		if err != nil {
			b.Fatal(err)
		}
		preps = append(preps, prep{l, specs})
	}
	bld := perfdata.NewBuilder(nil)
	size := 0
	loop(b, func() {
		bld.Reset(perfdata.Header{SystemName: "BENCH"})
		for i, o := range objs {
			if err := bld.BeginObject(perfdata.ObjectSpec{NameIndex: o.Set.NameIndex, DefaultCounter: -1}, preps[i].l, preps[i].specs); err != nil {
				b.Fatal(err)
			}
			if err := o.Collect(c, nopCollection{}, builderWriter{bld}); err != nil {
				b.Fatal(err)
			}
			if err := bld.EndObject(); err != nil {
				b.Fatal(err)
			}
		}
		size = len(bld.Bytes())
	})
	b.ReportMetric(float64(size), "block-bytes")
}

// BenchmarkOurProcessThread collects the Process and Thread objects into a
// PERF_DATA_BLOCK with the default bound on kept descriptors
// (RLIMIT_NOFILE less a reserve; TestMain raised the limit, so every file
// is kept).
func BenchmarkOurProcessThread(b *testing.B) { benchOurs(b, 0) }

// BenchmarkOurProcessThreadAllKept is the same with a bound large enough
// to keep every descriptor (what the kept-descriptor floor does).
func BenchmarkOurProcessThreadAllKept(b *testing.B) {
	var rl syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	benchOurs(b, int(rl.Cur)-256)
}

// BenchmarkOurProcessThreadBound17500 is the bound an unprivileged process
// gets on this machine (hard RLIMIT_NOFILE 20,000 less the reserve of an
// eighth), which cannot raise the limit.
func BenchmarkOurProcessThreadBound17500(b *testing.B) { benchOurs(b, 17500) }

// BenchmarkOurProcessThreadBound10000 is the bound of the earlier design
// (half of RLIMIT_NOFILE 20,000).
func BenchmarkOurProcessThreadBound10000(b *testing.B) { benchOurs(b, 10000) }

// BenchmarkProcfs does the same reading with github.com/prometheus/procfs:
// every process's stat, status, io and descriptor count, and every
// thread's stat and schedstat.
func BenchmarkProcfs(b *testing.B) {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		b.Fatal(err)
	}
	loop(b, func() {
		procs, err := fs.AllProcs()
		if err != nil {
			b.Fatal(err)
		}
		fs.Stat()
		for _, p := range procs {
			p.Stat()
			p.NewStatus()
			p.IO()
			p.FileDescriptorsLen()
			threads, err := fs.AllThreads(p.PID)
			if err != nil {
				continue
			}
			for _, t := range threads {
				t.Stat()
				t.Schedstat()
			}
		}
	})
}

// BenchmarkGopsutil does the same with github.com/shirou/gopsutil/v4:
// name, times, memory, io, thread count, descriptor count, and per-thread
// times.
func BenchmarkGopsutil(b *testing.B) {
	loop(b, func() {
		procs, err := process.Processes()
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range procs {
			p.Name()
			p.Times()
			p.MemoryInfo()
			p.IOCounters()
			p.NumThreads()
			p.NumFDs()
			p.Threads()
		}
	})
}
