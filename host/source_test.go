package host

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/pdh"
)

func openHost(tb testing.TB) *Host {
	tb.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		tb.Skip("no /proc")
	}
	h, err := New(Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

// TestLiveSource runs a pdh query on the live engine and checks what it
// sees against /proc read directly: this process's pid and name, and its
// threads under it.
func TestLiveSource(t *testing.T) {
	h := openHost(t)
	q := pdh.OpenQuery(h.Source())
	cpu, err := q.AddCounter(`\Processor(_Total)\% Processor Time`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := q.AddCounter(`\Process(*)\ID Process`)
	if err != nil {
		t.Fatal(err)
	}
	threads, err := q.AddCounter(`\Thread(*)\% Processor Time`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.AddCounter(`\Procesor(_Total)\% Processor Time`); err == nil || !strings.Contains(err.Error(), `did you mean "Processor"`) {
		t.Errorf("misspelt object: %v", err)
	}
	ctx := context.Background()
	for range 2 {
		if err := q.Collect(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := cpu.Formatted(calc.FmtDouble); v.Status != calc.ValidData || v.Double < 0 || v.Double > 100 {
		t.Errorf("Processor(_Total) = %+v", v)
	}
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSpace(string(comm))
	pid := strconv.Itoa(os.Getpid())
	found := false
	for _, it := range pids.FormattedArray(calc.FmtLarge) {
		if strconv.FormatInt(it.Value.Large, 10) == pid {
			found = true
			if it.Path.Instance != name {
				t.Errorf("pid %s is instance %q, /proc/self/comm says %q", pid, it.Path.Instance, name)
			}
		}
	}
	if !found {
		t.Errorf("pid %s not in \\Process(*)\\ID Process", pid)
	}
	mine := 0
	for _, it := range threads.FormattedArray(calc.FmtDouble) {
		if it.Path.Parent == name {
			mine++
		}
	}
	if mine == 0 {
		t.Errorf("no thread of %q in \\Thread(*)", name)
	}
	if q.Machine() == "" || q.Time().IsZero() {
		t.Errorf("Machine %q, Time %v", q.Machine(), q.Time())
	}
}

// cpuNanos is this process's user + system CPU time.
func cpuNanos(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkLive is a consumer's sample on the live host: collect
// `\Process(*)\*` and `\Thread(*)\% Processor Time` and format every
// value. cpu-ns/op is the process's CPU time per sample (getrusage), to
// set beside BenchmarkEngineOnly's.
func BenchmarkLive(b *testing.B) {
	b.Run("host", benchLive)
	b.Run("500proc-5000thr", func(b *testing.B) { addLoad(b, 500, 5000); benchLive(b) })
}

func benchLive(b *testing.B) {
	h := openHost(b)
	q := pdh.OpenQuery(h.Source())
	for _, p := range []string{`\Process(*)\*`, `\Thread(*)\% Processor Time`} {
		if _, err := q.AddCounter(p); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	var items []pdh.Item
	values := 0
	step := func() {
		if err := q.Collect(ctx); err != nil {
			b.Fatal(err)
		}
		values = 0
		for _, c := range q.Counters() {
			items = c.AppendFormattedArray(items[:0], calc.FmtDouble)
			values += len(items)
		}
	}
	step()
	b.ReportAllocs()
	start := cpuNanos(b)
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(cpuNanos(b)-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(values), "values")
}

// BenchmarkEngineOnly is the engine's own cost of the blocks BenchmarkLive
// consumes: QueryValue("230 232") (Process and Thread).
func BenchmarkEngineOnly(b *testing.B) {
	b.Run("host", benchEngine)
	b.Run("500proc-5000thr", func(b *testing.B) { addLoad(b, 500, 5000); benchEngine(b) })
}

func benchEngine(b *testing.B) {
	h := openHost(b)
	ctx := context.Background()
	if _, err := h.QueryValue(ctx, "230 232"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := cpuNanos(b)
	for b.Loop() {
		if _, err := h.QueryValue(ctx, "230 232"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNanos(b)-start)/float64(b.N), "cpu-ns/op")
}

// addLoad makes the host look busy: it starts procs sleeping child
// processes (so about procs more Process instances) and locks goroutines
// to OS threads until the host has about threads threads in all. Both
// end when the benchmark does.
func addLoad(b *testing.B, procs, threads int) {
	b.Helper()
	var cmds []*exec.Cmd
	b.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	for range procs {
		c := exec.Command("sleep", "3600")
		if err := c.Start(); err != nil {
			b.Skip("cannot start load processes:", err)
		}
		cmds = append(cmds, c)
	}
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	started := make(chan struct{})
	for range max(threads-procs, 0) {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			started <- struct{}{}
			<-stop
		}()
		<-started
	}
}
