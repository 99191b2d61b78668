package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/shm/shmtest"

	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/shm"
)

// buildExample builds examples/httpserver, the instrumented HTTP server.
func buildExample(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a provider program")
	}
	goTool := goCommand(t)
	bin := filepath.Join(t.TempDir(), "httpserver")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/perfcounters/perfcounters/examples/httpserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// until polls cond until it holds or the deadline passes.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCrossProcess runs the example server as a separate process with its
// manifest registered in a temporary state directory, drives requests
// through it, reads its counters through the host (raw values) and through
// typeperf (formatted), then kills it with SIGKILL and sees its instances
// and its segment go at the next collection.
func TestCrossProcess(t *testing.T) {
	bin := buildExample(t)
	seg := shmtest.Dir(t)
	state := t.TempDir()
	reg := register(t, state, "../examples/httpserver/httpserver.man")[0].Registration
	set := reg.Sets[0]
	if set.Name != "HTTP Server" || len(set.Counters) != 5 {
		t.Fatalf("registration %+v", reg)
	}

	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "PERFC_SHM_DIR="+seg)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("server output: %q, %v", line, err)
	}
	_, rest, ok := strings.Cut(line, "http://")
	if !ok {
		t.Fatalf("server said %q", line)
	}
	base := "http://" + strings.Fields(rest)[0]

	// The registered set is there before any request: three routes with
	// zero counts, and _Total.
	h, err := New(Options{StateDir: state, SegmentDir: seg, MaxKeptFiles: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var s sample
	until(t, "the provider's instances", func() bool {
		s = collectObject(t, h, set.NameIndex)
		return len(s.names) == 4
	})
	if want := "index hello slow _Total"; strings.Join(s.names, " ") != want {
		t.Fatalf("instances %v, want %s", s.names, want)
	}

	get := func(path string, n int) {
		for range n {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	const hellos, slows = 7, 3
	get("/hello", hellos)
	get("/slow", slows)
	// Definition order: Requests/sec, Avg. sec/Request, its base, In
	// Flight, Requests Total. The handler updates the counters before the
	// response completes, so they are all visible now.
	s = collectObject(t, h, set.NameIndex)
	hello, slow, total := s.rows["hello"], s.rows["slow"], s.rows["_Total"]
	if hello[0] != hellos || hello[2] != hellos || hello[4] != hellos || hello[3] != 0 {
		t.Errorf("hello = %v, want %d requests, %d in the base, none in flight", hello, hellos, hellos)
	}
	if slow[0] != slows || slow[2] != slows || slow[4] != slows {
		t.Errorf("slow = %v, want %d requests", slow, slows)
	}
	// Every /slow request waits at least 20 ms: its time sum, in
	// nanoseconds (the engine's PerfFreq is 1e9), is at least that.
	if slow[1] < slows*20e6 || slow[1] > slows*10e9 {
		t.Errorf("slow latency sum %d ns for %d requests, want >= %d", slow[1], slows, slows*20_000_000)
	}
	if total[0] != hellos+slows || total[1] != hello[1]+slow[1]+s.rows["index"][1] || total[4] != hellos+slows {
		t.Errorf("_Total = %v, want the sums of %v, %v, %v", total, s.rows["index"], hello, slow)
	}

	// The same counters through typeperf, by name in counter paths. Five
	// more /slow requests are made once the first row is out, so a later
	// row shows them in the total and in the average latency.
	rowsOut := &lineSignal{at: 3, ch: make(chan struct{})} // blank line, header, first row
	go func() {
		<-rowsOut.ch
		for range 5 {
			if resp, err := http.Get(base + "/slow"); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}()
	var errw bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = typeperf.Run(ctx, h.Source(), typeperf.Options{
		Counters: []string{`\HTTP Server(slow)\Requests Total`, `\HTTP Server(_Total)\Avg. sec/Request`},
		Interval: time.Second, Samples: 4, Format: pdhcsv.CSV, Machine: "TEST",
	}, rowsOut, io.Discard, &errw)
	if err != nil {
		t.Fatalf("typeperf: %v\n%s", err, errw.String())
	}
	out := rowsOut.b.String()
	t.Logf("typeperf:\n%s", out)
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 5 || !strings.Contains(rows[0], `\\TEST\HTTP Server(slow)\Requests Total`) {
		t.Fatalf("typeperf output: %d lines, want a header and 4 rows\n%s", len(rows), errw.String())
	}
	var gotTotal, maxAvg float64
	for _, row := range rows[1:] {
		f := strings.Split(strings.TrimSpace(row), ",")
		if len(f) != 3 {
			t.Fatalf("typeperf row %q", row)
		}
		var avg float64
		fmt.Sscanf(strings.Trim(f[1], `"`), "%g", &gotTotal)
		fmt.Sscanf(strings.Trim(f[2], `"`), "%g", &avg)
		maxAvg = max(maxAvg, avg)
	}
	if gotTotal != slows+5 {
		t.Errorf("typeperf: slow's total %g in the last row, want %d", gotTotal, slows+5)
	}
	if maxAvg < 0.02 || maxAvg > 10 {
		t.Errorf("typeperf: highest average latency %g s, want one of at least 0.02 s (every /slow request waits 20 ms)", maxAvg)
	}

	// And through the real binary, as a user runs it: `perfc typeperf` in
	// another process, finding the registration through PERFC_STATE_DIR and
	// the segment through PERFC_SHM_DIR.
	perfc := filepath.Join(t.TempDir(), "perfc")
	if out, err := exec.Command(goCommand(t), "build", "-o", perfc, "github.com/perfcounters/perfcounters/cmd/perfc").CombinedOutput(); err != nil {
		t.Fatalf("go build perfc: %v\n%s", err, out)
	}
	tp := exec.Command(perfc, "typeperf", `\HTTP Server(hello)\Requests Total`, `\HTTP Server(slow)\Requests Total`, "-si", "1", "-sc", "1")
	tp.Env = append(os.Environ(), "PERFC_STATE_DIR="+state, "PERFC_SHM_DIR="+seg)
	tpOut, err := tp.CombinedOutput()
	if err != nil {
		t.Fatalf("perfc typeperf: %v\n%s", err, tpOut)
	}
	lines := strings.Split(strings.TrimSpace(string(tpOut)), "\n")
	if len(lines) != 4 {
		t.Fatalf("perfc typeperf output:\n%s", tpOut)
	}
	if f := strings.Split(lines[1], ","); len(f) != 3 || f[1] != fmt.Sprintf(`"%d.000000"`, hellos) || f[2] != fmt.Sprintf(`"%d.000000"`, slows+5) {
		t.Errorf("perfc typeperf row %s, want hello %d and slow %d requests", lines[1], hellos, slows+5)
	}

	// SIGKILL: the kernel drops the provider's lock; the next collection
	// leaves its instances out and removes its segment.
	segs, _ := filepath.Glob(filepath.Join(seg, shm.UserDirName(uint32(os.Geteuid())), "*.perfseg"))
	if len(segs) != 1 {
		t.Fatalf("segments before the kill: %v", segs)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	s = collectObject(t, h, set.NameIndex)
	if strings.Join(s.names, " ") != "_Total" || s.rows["_Total"][0] != 0 {
		t.Errorf("after SIGKILL: instances %v, _Total %v; want only a zero _Total", s.names, s.rows["_Total"])
	}
	if _, err := os.Stat(segs[0]); !os.IsNotExist(err) {
		t.Errorf("segment %s still there after the collection: %v", segs[0], err)
	}
}

// lineSignal collects what typeperf writes and closes ch once at lines
// have been written.
type lineSignal struct {
	b     bytes.Buffer
	at    int
	lines int
	ch    chan struct{}
}

func (l *lineSignal) Write(p []byte) (int, error) {
	n := bytes.Count(p, []byte("\n"))
	if l.lines < l.at && l.lines+n >= l.at {
		close(l.ch)
	}
	l.lines += n
	return l.b.Write(p)
}

// goCommand is the go tool on PATH (the one running the tests); without
// one the test is skipped.
func goCommand(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool: %v", err)
	}
	return p
}
