package sysperf

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
)

// childEnv makes the test binary one of the live test's busy processes.
const childEnv = "SYSPERF_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "spin":
		x := uint64(1)
		for x != 0 { // a processor spinner: never ends
			x = x*6364136223846793005 + 1442695040888963407
		}
		os.Exit(int(x))
	case "hog":
		// 1 GiB, every page touched: private memory
		b := make([]byte, 1<<30)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Hour)
		runtime.KeepAlive(b)
	case "write":
		f, err := os.CreateTemp(os.Getenv("SYSPERF_TEST_DIR"), "write")
		if err != nil {
			os.Exit(1)
		}
		buf := make([]byte, 1<<20)
		for n := 0; ; n++ {
			if n%256 == 0 {
				f.Seek(0, io.SeekStart) // at most 256 MiB on disk
			}
			f.Write(buf)
		}
	}
	os.Exit(m.Run())
}

// startChild runs the test binary, copied under name (the process name
// the report shows), as a busy process of kind; it returns the child's
// standard output.
func startChild(t *testing.T, dir, name, kind string) io.Reader {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, name)
	if _, err := os.Stat(exe); err != nil {
		if err := os.WriteFile(exe, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+kind, "SYSPERF_TEST_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return out
}

// TestLiveBusyHost makes the report of this computer while it is made
// busy: a processor spinner per processor, a process holding 1 GiB and
// one writing a file as fast as it can. The processor warning must fire
// and each process must be in its top list.
func TestLiveBusyHost(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the live report takes 4 s")
	}
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := t.TempDir()
	for range runtime.NumCPU() {
		startChild(t, dir, "perfc-spin", "spin")
	}
	hog := startChild(t, dir, "perfc-hog", "hog")
	startChild(t, dir, "perfc-write", "write")
	// The hog holds its 1 GiB once it says so.
	if line, err := bufio.NewReader(hog).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the hog said %q: %v", line, err)
	}
	h, err := host.New(host.Options{SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	r, err := Collect(context.Background(), h.Source(), Options{Duration: 3 * time.Second, Interval: 500 * time.Millisecond, Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Samples < 4 {
		t.Errorf("%d intervals in 3 s of 500 ms", r.Samples)
	}
	fired := false
	for _, w := range r.Warnings {
		t.Logf("%s %s: %s", w.Severity, w.Rule.ID, w.Message)
		fired = fired || w.Rule.ID == "cpu-saturated"
	}
	if !fired {
		t.Errorf("cpu-saturated did not fire with %d spinners on %d processors: %+v", runtime.NumCPU(), runtime.NumCPU(), r.Summary.Utilization)
	}
	if r.Summary.Busiest != "CPU" {
		t.Errorf("busiest resource %s, want CPU", r.Summary.Busiest)
	}
	tops := map[string]Top{}
	for _, s := range r.Sections {
		for _, top := range s.Tops {
			tops[top.Title] = top
		}
	}
	for title, want := range map[string]string{
		"Top processes by processor time": "perfc-spin",
		"Top processes by private memory": "perfc-hog",
		"Top processes by I/O":            "perfc-write",
	} {
		var names []string
		for _, row := range tops[title].Rows {
			names = append(names, row.Process)
		}
		t.Logf("%s: %v", title, names)
		if !slices.Contains(names, want) {
			t.Errorf("%s: %v, without %s", title, names, want)
		}
	}
}

// TestStoppedEarly: a collection whose context ends before its duration
// (CTRL+C) gives the report of the intervals it measured, marked
// stopped; one ended before a second sample gives an error.
func TestStoppedEarly(t *testing.T) {
	h, err := host.New(host.Options{ProcRoot: "../system/testdata/host/proc", SysRoot: "../system/testdata/host/sys", SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
	defer cancel()
	r, err := Collect(ctx, h.Source(), Options{Duration: time.Hour, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Stopped || r.Samples < 1 {
		t.Errorf("stopped %v after %d intervals", r.Stopped, r.Samples)
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := Collect(done, h.Source(), Options{Duration: time.Hour}); err == nil {
		t.Error("a collection stopped before its second sample made a report")
	}
}
