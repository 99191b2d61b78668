package bench

// Benchmarks of issue 10 ("Logs"): how many bytes a stored value costs in
// our logs and in Performance Co-Pilot's pmlogger and sysstat's sadc
// logging the same quantities, what logging costs in CPU per sample on top
// of collecting, and how fast relog converts BLG and our binary log to
// CSV. See the section "Logs (issue 10)" of RESULTS.md for the commands,
// the counter lists of every tool and the figures.

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// logWorkload is one of issue 10's two workloads: the counters our tools
// log, and the configuration that makes pmlogger and sadc log the same
// quantities (sadc cannot choose: it logs its default activities plus the
// optional ones named with -S; it has no per-process data at all).
type logWorkload struct {
	name     string
	counters []string // typeperf counter paths (our side)
	pmlogger []string // metrics of the pmlogger configuration, logged every second
	sadc     []string // sadc options before "interval count file"; nil: not logged by sadc
}

// logWorkloads are (a) system counters and (b) every process.
//
// (a): per-CPU times, memory, disks (physical and logical) and network
// interfaces. pmlogger gets the metrics our counters are computed from
// (kernel.percpu.cpu.* are Processor's times, kernel.all.cpu.* its _Total;
// mem.util.* and mem.vmstat.* Memory's; disk.dev.* and disk.all.*
// PhysicalDisk's, filesys.* LogicalDisk's space counters;
// network.interface.* Network Interface's), and more of the same kinds
// until it logs about as many values a sample as we do. sadc logs its
// default activities plus disks, partitions and file systems (-S XDISK).
// Each tool's bytes per value divide its file by the values it stores.
//
// (b): \Process(*)\* (22 counters a process) against the 22 proc.* metrics
// that hold the same quantities (times, sizes, faults, threads, priority,
// start time, ids, descriptors, I/O).
var logWorkloads = []logWorkload{
	{
		name: "system",
		counters: []string{
			`\Processor(*)\*`, `\Memory\*`, `\PhysicalDisk(*)\*`, `\LogicalDisk(*)\*`, `\Network Interface(*)\*`,
		},
		pmlogger: []string{
			"kernel.percpu.cpu.user", "kernel.percpu.cpu.nice", "kernel.percpu.cpu.sys", "kernel.percpu.cpu.idle",
			"kernel.percpu.cpu.intr", "kernel.percpu.cpu.irq.soft", "kernel.percpu.cpu.irq.hard", "kernel.percpu.cpu.wait.total",
			"kernel.all.cpu.user", "kernel.all.cpu.nice", "kernel.all.cpu.sys", "kernel.all.cpu.idle",
			"kernel.all.cpu.intr", "kernel.all.cpu.irq.soft", "kernel.all.cpu.irq.hard", "kernel.all.cpu.wait.total",
			"kernel.percpu.cpu.steal", "kernel.percpu.cpu.guest", "kernel.all.cpu.steal", "kernel.all.cpu.guest",
			"kernel.all.intr",
			"mem.util.active", "mem.util.inactive", "mem.util.slab", "mem.util.swapFree", "mem.util.swapTotal",
			"mem.util.swapCached", "mem.util.mapped", "mem.util.shmem", "mem.util.anonpages", "mem.util.pageTables",
			"mem.util.free", "mem.util.available", "mem.util.cached", "mem.util.bufmem", "mem.util.dirty",
			"mem.util.writeback", "mem.util.committed_AS", "mem.util.commitLimit",
			"mem.vmstat.pgfault", "mem.vmstat.pgmajfault", "mem.vmstat.pgpgin", "mem.vmstat.pgpgout",
			"mem.vmstat.pswpin", "mem.vmstat.pswpout",
			"disk.dev.read", "disk.dev.write", "disk.dev.total", "disk.dev.read_bytes", "disk.dev.write_bytes",
			"disk.dev.total_bytes", "disk.dev.avactive", "disk.dev.read_rawactive", "disk.dev.write_rawactive", "disk.dev.aveq",
			"disk.dev.blkread", "disk.dev.blkwrite", "disk.dev.read_merge", "disk.dev.write_merge",
			"disk.dev.total_rawactive", "disk.dev.inflight",
			"disk.all.read", "disk.all.write", "disk.all.total", "disk.all.read_bytes", "disk.all.write_bytes",
			"disk.all.total_bytes", "disk.all.avactive", "disk.all.read_rawactive", "disk.all.write_rawactive", "disk.all.aveq",
			"disk.all.blkread", "disk.all.blkwrite", "disk.all.read_merge", "disk.all.write_merge",
			"disk.all.total_rawactive", "disk.all.inflight",
			"filesys.capacity", "filesys.used", "filesys.free", "filesys.avail",
			"filesys.maxfiles", "filesys.usedfiles", "filesys.freefiles", "filesys.full", "filesys.blocksize",
			"network.interface.in.bytes", "network.interface.out.bytes", "network.interface.total.bytes",
			"network.interface.in.packets", "network.interface.out.packets", "network.interface.total.packets",
			"network.interface.in.mcasts", "network.interface.in.drops", "network.interface.in.errors",
			"network.interface.out.drops", "network.interface.out.errors", "network.interface.baudrate",
			"network.interface.in.fifo", "network.interface.in.frame", "network.interface.out.fifo",
			"network.interface.out.carrier", "network.interface.collisions", "network.interface.total.errors",
			"network.interface.total.drops", "network.interface.total.mcasts",
		},
		sadc: []string{"-S", "XDISK"},
	},
	{
		name:     "process",
		counters: []string{`\Process(*)\*`},
		pmlogger: []string{
			"proc.psinfo.utime", "proc.psinfo.stime", "proc.psinfo.vsize", "proc.psinfo.rss", "proc.psinfo.minflt",
			"proc.psinfo.maj_flt", "proc.psinfo.threads", "proc.psinfo.priority", "proc.psinfo.start_time",
			"proc.psinfo.pid", "proc.psinfo.ppid",
			"proc.memory.vmpeak", "proc.memory.vmhwm", "proc.memory.vmdata", "proc.memory.vmswap",
			"proc.fd.count",
			"proc.io.syscr", "proc.io.syscw", "proc.io.read_bytes", "proc.io.write_bytes", "proc.io.rchar", "proc.io.wchar",
		},
	},
}

// logSamples is N, the samples each size run records (one a second):
// PERFC_BENCH_LOG_SAMPLES, default 60.
func logSamples() int { return envInt("PERFC_BENCH_LOG_SAMPLES", 60) }

// recordingSource is the live source as `perfc typeperf` uses it, keeping
// a copy of every sample it hands out (the raw blocks, time and problems)
// and the object list the query asked for.
type recordingSource struct {
	pdh.Source
	want    []uint32
	samples []*pdh.Sample
	keep    bool
}

func (r *recordingSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	r.want = append(r.want[:0], objects...)
	s, err := r.Source.Sample(ctx, objects)
	if err != nil || !r.keep {
		return s, err
	}
	blocks := make([][]byte, len(s.Blocks))
	for i, b := range s.Blocks {
		blocks[i] = bytes.Clone(b.Bytes())
	}
	c, err := pdh.NewSample(blocks)
	if err != nil {
		return nil, err
	}
	c.Time, c.Problems, c.Gap = s.Time, s.Problems, s.Gap
	r.samples = append(r.samples, c)
	return s, nil
}

// liveQuery opens the local host and returns its source and the title
// indexes a typeperf query of counters asks it for (found by running that
// query's first collection).
func liveQuery(b *testing.B, counters []string) (*host.Host, pdh.Source, []uint32) {
	b.Helper()
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	rec := &recordingSource{Source: h.Source()}
	q := pdh.OpenQuery(rec)
	for _, c := range counters {
		if _, err := q.AddCounter(c); err != nil {
			b.Fatal(err)
		}
	}
	if err := q.Collect(b.Context()); err != nil {
		b.Fatal(err)
	}
	return h, h.Source(), rec.want
}

// fileSize is the size of the named files together.
func fileSize(b *testing.B, paths ...string) int64 {
	b.Helper()
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// zstdSize compresses each file with `zstd -19` (the whole finished file)
// and returns the compressed sizes together.
func zstdSize(b *testing.B, paths ...string) int64 {
	b.Helper()
	var n int64
	for _, p := range paths {
		out, err := exec.Command("zstd", "-19", "-q", "-f", "-o", p+".zst", p).CombinedOutput()
		if err != nil {
			b.Fatalf("zstd -19 %s: %v\n%s", p, err, out)
		}
		n += fileSize(b, p+".zst")
	}
	return n
}

// csvValues counts the values of a PDH-CSV log: its rows (after the
// header) times its columns (less the time column).
func csvValues(b *testing.B, path string) (values, perRow int) {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	rows := 0
	for sc.Scan() {
		n := strings.Count(sc.Text(), `","`)
		if rows == 0 {
			perRow = n
		} else if n != perRow {
			b.Fatalf("%s: row %d has %d values, the header %d", path, rows, n, perRow)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return (rows - 1) * perRow, perRow
}

// pmlogValues counts the values of a pmlogger archive with pmdumplog: every
// value of the logged metrics (pmlogger's own pmcd.* records, written
// first and last, left out), and the records holding them.
func pmlogValues(b *testing.B, archive string) (values, records int) {
	b.Helper()
	out, err := exec.Command("pmdumplog", "-z", archive).Output()
	if err != nil {
		b.Fatalf("pmdumplog %s: %v", archive, err)
	}
	metric, counted := "", false
	for line := range strings.Lines(string(out)) {
		t := strings.TrimSpace(line)
		if strings.HasSuffix(t, " metrics") && !strings.HasPrefix(line, " ") {
			counted = false // a new record
		}
		if i := strings.Index(t, " ("); i >= 0 && strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "        ") {
			if j := strings.Index(t[i:], "):"); j >= 0 {
				metric = t[i+2 : i+j]
			}
		}
		if strings.Contains(t, " value ") || strings.HasPrefix(t, "value ") {
			if !strings.HasPrefix(metric, "pmcd.") {
				values++
				if !counted {
					records++
					counted = true
				}
			}
		}
	}
	return values, records
}

// sadcValues is the number of values one record of a sadc file holds: for
// every activity in it, items times fields, as `sadf -H` lists them
// ("A_CPU Y: 3 (10,0,0)": 3 items of 10 64-bit fields).
func sadcValues(b *testing.B, path string) int {
	b.Helper()
	out, err := exec.Command("sadf", "-H", path).Output()
	if err != nil {
		b.Fatalf("sadf -H %s: %v", path, err)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasPrefix(f[2], "A_") {
			continue
		}
		items, err := strconv.Atoi(f[4])
		if err != nil {
			b.Fatalf("sadf -H: %q: %v", line, err)
		}
		fields := 0
		for _, s := range strings.Split(strings.Trim(f[5], "()"), ",") {
			k, err := strconv.Atoi(s)
			if err != nil {
				b.Fatalf("sadf -H: %q: %v", line, err)
			}
			fields += k
		}
		n += items * fields
	}
	return n
}

// childCPU is the user+system CPU a finished child used.
func childCPU(c *exec.Cmd) int64 {
	ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// pmcdCPU is the CPU used so far by pmcd and its agents (pmda*): the work
// of collecting for pmlogger, which pmlogger's own figure leaves out.
func pmcdCPU() int64 {
	ents, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		comm := s[open+1 : end]
		if comm != "pmcd" && !strings.HasPrefix(comm, "pmda") {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += ut + st
	}
	return ticks * int64(time.Second/100) // USER_HZ is 100 on Linux
}

// needTools skips the benchmark where the other loggers are not
// installed (Debian: apt-get install pcp sysstat zstd) or pmcd, which
// pmlogger logs from, is not running (/etc/init.d/pmcd start).
func needTools(b *testing.B) {
	b.Helper()
	for _, t := range []string{"pmlogger", "pmdumplog", "pminfo", "/usr/lib/sysstat/sadc", "sadf", "zstd"} {
		if _, err := exec.LookPath(t); err != nil {
			b.Skipf("%s: %v (Debian: apt-get install pcp sysstat zstd)", t, err)
		}
	}
	if out, err := exec.Command("pminfo", "-f", "pmcd.version").CombinedOutput(); err != nil {
		b.Skipf("pmcd is not answering (/etc/init.d/pmcd start): %v: %s", err, bytes.TrimSpace(out))
	}
}

// buildPerfc builds the perfc binary of the main module into dir.
func buildPerfc(b *testing.B, dir string) string {
	b.Helper()
	bin := filepath.Join(dir, "perfc")
	// Built in the main module (the repository root), with its own
	// go.sum: this module's lists only what its tests import.
	build := exec.Command("go", "build", "-o", bin, "./cmd/perfc")
	build.Dir = ".."
	out, err := build.CombinedOutput()
	if err != nil {
		b.Fatalf("go build perfc: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkLogSize records N samples (PERFC_BENCH_LOG_SAMPLES, default
// 60), one a second, of each workload with every logger at the same time:
// pmlogger (-t 1sec, through pmcd, which must be running), sadc (1 N),
// `perfc typeperf -si 1 -sc N -f CSV -o` and `... -f BIN -o` (the binary,
// as children), and
// typeperf's engine in this process, whose samples are kept and then
// written to our binary log (plain and compressed). Each file's size is
// reported in bytes per stored value, as it is and after `zstd -19`, with
// each tool's values a sample, and the external tools' CPU per sample
// (their rusage; pmcd's and its agents' from /proc). One iteration takes
// N seconds: run it with -benchtime=1x.
func BenchmarkLogSize(b *testing.B) {
	needTools(b)
	for _, wl := range logWorkloads {
		b.Run(wl.name, func(b *testing.B) {
			for b.Loop() {
				logSizeOnce(b, wl)
			}
		})
	}
}

func logSizeOnce(b *testing.B, wl logWorkload) {
	n := logSamples()
	dir := b.TempDir()
	perfc := buildPerfc(b, dir)
	ctx := b.Context()

	// pmlogger: its configuration logs every metric once a second; -s
	// counts the records of those metrics (its own pmcd.* records, first
	// and last, come on top).
	cfg := "log mandatory on 1 sec {\n\t" + strings.Join(wl.pmlogger, "\n\t") + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "pmlogger.config"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	archive := filepath.Join(dir, "pm")
	pml := exec.CommandContext(ctx, "pmlogger", "-c", filepath.Join(dir, "pmlogger.config"),
		"-s", strconv.Itoa(n), "-l", filepath.Join(dir, "pmlogger.log"), archive)
	var sadc *exec.Cmd
	saFile := filepath.Join(dir, "sa")
	if wl.sadc != nil {
		args := append(append([]string{}, wl.sadc...), "1", strconv.Itoa(n), saFile)
		sadc = exec.CommandContext(ctx, "/usr/lib/sysstat/sadc", args...)
	}
	csvChild := filepath.Join(dir, "perfc.csv")
	pargs := append([]string{"typeperf"}, wl.counters...)
	pargs = append(pargs, "-si", "1", "-sc", strconv.Itoa(n), "-f", "CSV", "-o", csvChild, "-y")
	pc := exec.CommandContext(ctx, perfc, pargs...)
	var pcOut bytes.Buffer
	pc.Stdout, pc.Stderr = &pcOut, &pcOut
	binChild := filepath.Join(dir, "perfc.plog")
	bargs := append([]string{"typeperf"}, wl.counters...)
	bargs = append(bargs, "-si", "1", "-sc", strconv.Itoa(n), "-f", "BIN", "-o", binChild, "-y")
	pb := exec.CommandContext(ctx, perfc, bargs...)
	pb.Stdout, pb.Stderr = &pcOut, &pcOut

	pmcd0 := pmcdCPU()
	children := []*exec.Cmd{pml, pc, pb}
	if sadc != nil {
		children = append(children, sadc)
	}
	for _, c := range children {
		if err := c.Start(); err != nil {
			b.Fatalf("%s: %v", c.Path, err)
		}
	}

	// Ours, in this process: typeperf's engine at its own 1 s interval,
	// the samples kept for the binary log.
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	rec := &recordingSource{Source: h.Source(), keep: true}
	csvPath := filepath.Join(dir, "ours.csv")
	if err := typeperfCSV(ctx, rec, csvPath, wl.counters, time.Second, n); err != nil {
		b.Fatal(err)
	}
	for _, c := range children {
		if err := c.Wait(); err != nil {
			b.Fatalf("%s: %v (%s)", c.Path, err, pcOut.String())
		}
	}
	pmcdUsed := pmcdCPU() - pmcd0

	values, perRow := csvValues(b, csvPath)
	if values != n*perRow {
		b.Fatalf("our CSV holds %d values, want %d samples of %d", values, n, perRow)
	}
	perValue := func(bytes int64, values int) float64 { return float64(bytes) / float64(values) }
	report := func(name string, bytes, zbytes int64, values int) {
		b.ReportMetric(perValue(bytes, values), name+"-B/value")
		b.ReportMetric(perValue(zbytes, values), name+".zst-B/value")
	}
	b.ReportMetric(float64(perRow), "values/sample")
	report("csv", fileSize(b, csvPath), zstdSize(b, csvPath), values)
	if cv, _ := csvValues(b, csvChild); cv > 0 {
		report("perfc-csv", fileSize(b, csvChild), zstdSize(b, csvChild), cv)
	}
	b.ReportMetric(float64(childCPU(pc))/float64(n), "perfc-csv-cpu-ns/sample")
	// The binary log `perfc typeperf -f BIN` writes (compressed, its
	// default), per value of our CSV's count.
	report("perfc-bin", fileSize(b, binChild), zstdSize(b, binChild), values)
	b.ReportMetric(float64(childCPU(pb))/float64(n), "perfc-bin-cpu-ns/sample")

	pmFiles := []string{archive + ".0", archive + ".meta", archive + ".index"}
	pmValues, pmRecords := pmlogValues(b, archive)
	report("pmlogger", fileSize(b, pmFiles...), zstdSize(b, pmFiles...), pmValues)
	b.ReportMetric(float64(pmValues)/float64(pmRecords), "pmlogger-values/sample")
	b.ReportMetric(float64(childCPU(pml))/float64(pmRecords), "pmlogger-cpu-ns/sample")
	b.ReportMetric(float64(pmcdUsed)/float64(pmRecords), "pmcd-cpu-ns/sample")

	if sadc != nil {
		per := sadcValues(b, saFile)
		report("sadc", fileSize(b, saFile), zstdSize(b, saFile), per*n)
		b.ReportMetric(float64(per), "sadc-values/sample")
		b.ReportMetric(float64(childCPU(sadc))/float64(n), "sadc-cpu-ns/sample")
	}

	for _, compress := range []bool{false, true} {
		name, path := "bin", filepath.Join(dir, "ours.plog")
		if compress {
			name, path = "binz", filepath.Join(dir, "oursz.plog")
		}
		writeBinlog(b, path, h.Source(), wl.counters, compress, slices.Values(rec.samples))
		report(name, fileSize(b, path), zstdSize(b, path), values)
	}
	b.Logf("%s: %d samples; ours %d values a sample, pmlogger %d values in %d records",
		wl.name, n, perRow, pmValues, pmRecords)
}

// BenchmarkLogCPU is the CPU per sample of logging a workload against
// collecting the same sample alone (issue 10's goal: logging at most 1.1x
// collecting). Samples are taken back to back: typeperf's engine
// (typeperf.Run, as `perfc typeperf` runs it) at an interval of 1 ns.
//
//   - sample: the live source's sample of the objects the typeperf query
//     needs, alone (the floor of any logger);
//   - collect: typeperf's loop recording into a recorder that writes
//     nothing: the query's collection of every sample, without logging;
//   - csv: typeperf logging PDH-CSV to a file (typeperf -f CSV -o): the
//     collection, pdh's formatting of every column, the row;
//   - bin, binz: typeperf logging to our binary log through perflog.Create
//     (typeperf -f BIN -o): plain, and compressed (the tool's default).
//
// Run with -benchtime=120x (120 samples an iteration).
func BenchmarkLogCPU(b *testing.B) {
	for _, wl := range logWorkloads {
		b.Run(wl.name+"/sample", func(b *testing.B) {
			_, src, want := liveQuery(b, wl.counters)
			ctx := b.Context()
			loop(b, func() {
				if _, err := src.Sample(ctx, want); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(wl.name+"/collect", func(b *testing.B) {
			benchTypeperf(b, wl, func(*testing.B, pdh.Source) (typeperf.Options, io.Writer) {
				return typeperf.Options{Sink: nopRecorder{}}, io.Discard
			})
		})
		b.Run(wl.name+"/csv", func(b *testing.B) {
			benchTypeperf(b, wl, func(b *testing.B, _ pdh.Source) (typeperf.Options, io.Writer) {
				f, err := os.Create(filepath.Join(b.TempDir(), "log.csv"))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { f.Close() })
				return typeperf.Options{Format: pdhcsv.CSV, Log: true}, f
			})
		})
		for _, compress := range []bool{false, true} {
			name := "bin"
			if compress {
				name = "binz"
			}
			b.Run(wl.name+"/"+name, func(b *testing.B) {
				benchTypeperf(b, wl, func(b *testing.B, src pdh.Source) (typeperf.Options, io.Writer) {
					r, err := perflog.Create(b.Context(), filepath.Join(b.TempDir(), "log.plog"), perflog.BIN,
						perflog.CreateOptions{Counters: wl.counters, Location: time.Local, Titles: src.Titles(), Uncompressed: !compress})
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() {
						if err := r.Close(); err != nil {
							b.Error(err)
						}
					})
					return typeperf.Options{Sink: r}, io.Discard
				})
			})
		}
	}
}

// nopRecorder records nothing: typeperf's loop without logging.
type nopRecorder struct{}

func (nopRecorder) WriteQuery(context.Context, *pdh.Query) error { return nil }

// typeperfCSV writes to path the CSV log typeperf's engine writes of n
// samples of counters from src, one an interval, in the local zone.
func typeperfCSV(ctx context.Context, src pdh.Source, path string, counters []string, interval time.Duration, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = typeperf.Run(ctx, src, typeperf.Options{Counters: counters, Interval: interval, Samples: n,
		Format: pdhcsv.CSV, Log: true, Location: time.Local}, bw, io.Discard, io.Discard)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// benchTypeperf runs typeperf's engine over the live host for b.N samples
// back to back, with the output options and writer opts gives (a Sink, or
// a text log's Format and file), and reports CPU per sample.
func benchTypeperf(b *testing.B, wl logWorkload, opts func(*testing.B, pdh.Source) (typeperf.Options, io.Writer)) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	src := h.Source()
	o, out := opts(b, src)
	o.Counters, o.Interval, o.Samples, o.Location = wl.counters, time.Nanosecond, b.N, time.Local
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuNow()
	err = typeperf.Run(b.Context(), src, o, out, io.Discard, io.Discard)
	used := cpuNow() - start
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(used)/float64(b.N), "cpu-ns/op")
}

// BenchmarkLogWrite is the CPU of the logging step alone: samples
// recorded live, one a second (typeperf's engine at its own interval, 5
// samples), written over and over to our binary log, plain and
// compressed. Logging CPU over collecting is then 1 + write / collect
// (BenchmarkLogCPU's collect), a ratio that the noise of collecting on a
// shared machine does not blur.
func BenchmarkLogWrite(b *testing.B) {
	for _, wl := range logWorkloads {
		b.Run(wl.name, func(b *testing.B) {
			h, err := host.New(host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			rec := &recordingSource{Source: h.Source(), keep: true}
			if err := typeperf.Run(b.Context(), rec, typeperf.Options{Counters: wl.counters, Interval: time.Second, Samples: 5,
				Format: pdhcsv.CSV, Log: true}, io.Discard, io.Discard, io.Discard); err != nil {
				b.Fatal(err)
			}
			for _, compress := range []bool{false, true} {
				name := "bin"
				if compress {
					name = "binz"
				}
				b.Run(name, func(b *testing.B) {
					w, err := createBinlog(filepath.Join(b.TempDir(), "log.plog"), h.Source(), wl.counters, compress)
					if err != nil {
						b.Fatal(err)
					}
					// The first sample writes the definitions: not timed.
					if err := w.WriteSample(rec.samples[0]); err != nil {
						b.Fatal(err)
					}
					i := 1
					loop(b, func() {
						if err := w.WriteSample(rec.samples[i%len(rec.samples)]); err != nil {
							b.Fatal(err)
						}
						i++
					})
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				})
			}
		})
	}
}

// relogValues runs relog to CSV once from the source open returns and
// counts the values written (rows after the header times columns).
func relogValues(b *testing.B, open func() (pdh.Source, io.Closer, error)) int {
	b.Helper()
	src, c, err := open()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var out bytes.Buffer
	if _, _, err := relog.Run(b.Context(), src, relog.Options{Format: pdhcsv.CSV, Location: time.UTC}, &out); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "out.csv")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	v, _ := csvValues(b, path)
	return v
}

// benchRelog is relog FILE -f CSV to io.Discard and reports values
// written per second of wall time (values/s) and of this process's CPU
// time (values/cpu-s: the figure to read on a loaded machine): in "open",
// each iteration opens the file, as `perfc relog FILE -f CSV -o x.csv`
// does; in "run", the file is opened once and each iteration is one
// relog.Run over it (the conversion alone).
func benchRelog(b *testing.B, open func() (pdh.Source, io.Closer, error)) {
	values := relogValues(b, open)
	run := func(b *testing.B, src pdh.Source) {
		if _, _, err := relog.Run(b.Context(), src, relog.Options{Format: pdhcsv.CSV, Location: time.UTC}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	measure := func(b *testing.B, f func()) {
		ns, n := loop(b, f)
		cpu := float64(ns) / 1e9
		b.ReportMetric(float64(values), "values/op")
		b.ReportMetric(float64(values)*float64(n)/b.Elapsed().Seconds(), "values/s")
		b.ReportMetric(float64(values)*float64(n)/cpu, "values/cpu-s")
	}
	b.Run("open", func(b *testing.B) {
		measure(b, func() {
			src, c, err := open()
			if err != nil {
				b.Fatal(err)
			}
			run(b, src)
			c.Close()
		})
	})
	b.Run("run", func(b *testing.B) {
		src, c, err := open()
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		measure(b, func() { run(b, src) })
	})
}

// BenchmarkRelogBLG converts each Windows BLG of perflog/blg/testdata
// (CorruptBlg.blg, which is refused, left out) to CSV.
func BenchmarkRelogBLG(b *testing.B) {
	for _, name := range []string{"CounterSamples", "SampleLog", "BadCounterSamples"} {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join("..", "perflog", "blg", "testdata", name+".blg")
			benchRelog(b, func() (pdh.Source, io.Closer, error) {
				l, err := blg.Open(path)
				return l, l, err
			})
		})
	}
}

// BenchmarkRelogBIN converts our binary log of each workload (20 live
// samples taken back to back, plain and compressed) to CSV.
func BenchmarkRelogBIN(b *testing.B) {
	for _, wl := range logWorkloads {
		for _, compress := range []bool{false, true} {
			name := "bin"
			if compress {
				name = "binz"
			}
			b.Run(wl.name+"/"+name, func(b *testing.B) {
				_, src, want := liveQuery(b, wl.counters)
				path := filepath.Join(b.TempDir(), "log.plog")
				writeBinlog(b, path, src, wl.counters, compress, liveSamples(b, src, want, 20))
				benchRelog(b, func() (pdh.Source, io.Closer, error) { return openBinlog(path) })
			})
		}
	}
}

// sampleLog is a log written sample by sample (our binary log).
type sampleLog interface {
	WriteSample(*pdh.Sample) error
	Close() error
}
