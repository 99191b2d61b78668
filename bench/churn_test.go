package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// churnCommand is one long-running perfc command of BenchmarkChurn.
type churnCommand struct {
	name              string
	pid               int
	before, peak, end float64 // Pss_Anon, kB
	gc                *gcTrace
	liveBefore        int // MB live after the last GC before the churn
}

// gcTrace reads a Go program's GODEBUG=gctrace=1 lines (its stderr) and
// keeps the heap that the last collection found live ("a->b->LIVE MB"):
// what the program holds, apart from the garbage its heap goal leaves
// room for.
type gcTrace struct {
	mu   sync.Mutex
	part []byte
	live int // MB; -1 before the first collection
}

func newGCTrace() *gcTrace { return &gcTrace{live: -1} }

func (g *gcTrace) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.part = append(g.part, p...)
	for {
		i := bytes.IndexByte(g.part, '\n')
		if i < 0 {
			break
		}
		line := string(g.part[:i])
		g.part = g.part[i+1:]
		if m := gcLive.FindStringSubmatch(line); m != nil {
			g.live, _ = strconv.Atoi(m[1])
		}
	}
	if len(g.part) > 1<<16 {
		g.part = g.part[:0]
	}
	return len(p), nil
}

func (g *gcTrace) Live() int {
	if g == nil {
		return -1
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.live
}

var gcLive = regexp.MustCompile(`^gc \d+ @.* \d+->\d+->(\d+) MB,`)

// BenchmarkChurn measures what the host pays in private memory for
// processes that came and went: with the workload running (500 extra
// processes, 5,000 extra threads), it starts the long-running commands
// of issue 41's budget, lets them collect every second for
// PERFC_BENCH_CHURN_WARM (default 20s), reads each one's private memory
// (Pss_Anon of /proc/PID/smaps_rollup), then runs PERFC_BENCH_CHURN
// (default 10,000) short-lived processes (bench/churnchild, about five
// threads each, alive PERFC_BENCH_CHURN_LIFE, default 1s, at most
// PERFC_BENCH_CHURN_PAR, default 150, at a time), each through a link of
// a distinct 60-character name, reading every command's private memory
// each second (the peak), and after the last one has gone and
// PERFC_BENCH_CHURN_SETTLE (default 20s) has passed, reads it again with
// the same live processes as before: end/before is the budget's ratio
// (at most 1.5).
//
// The commands, each collecting every second:
//   - serve-default: perfc serve out of the box, /metrics scraped every
//     second, /v1/formatted of every process's % Processor Time asked
//     every second, and the OTLP push of every process (-otlp-processes,
//     -otlp-interval 1s) to an HTTP sink here;
//   - serve-wx: the windows_exporter profile with Process, scraped every
//     second;
//   - serve-classic: the classic profile of Process and Thread, scraped
//     every second;
//   - typeperf-cpu: `perfc typeperf "\Process(*)\% Processor Time"
//     "\Thread(*)\% Processor Time" -si 1` (the budget's typeperf of the
//     process and thread counters, as the first-sample budget names
//     them), and typeperf-all: `perfc typeperf "\Process(*)\*"
//     "\Thread(*)\*" -si 1`, every counter of both; their CSV is read
//     and discarded;
//   - set-churn, set-churnalert (and their supervisors): the processes of
//     a started counter set (every Process and
//     Thread counter into a binary log) and alert set (every process's
//     % Processor Time against a threshold), in a state directory of
//     the benchmark's own.
//
// The perfc serve and typeperf commands run with GODEBUG=gctrace=1: the
// heap their last collection found live before and after the churn is
// reported beside Pss_Anon, to tell what a command keeps from the room
// its garbage collector's heap goal leaves (GOGC=100: up to twice the
// live heap).
//
// One iteration takes a few minutes: run it with -benchtime=1x.
func BenchmarkChurn(b *testing.B) {
	n := envInt("PERFC_BENCH_CHURN", 10000)
	par := max(envInt("PERFC_BENCH_CHURN_PAR", 150), 1)
	life := envDuration("PERFC_BENCH_CHURN_LIFE", time.Second)
	warm := envDuration("PERFC_BENCH_CHURN_WARM", 20*time.Second)
	settle := envDuration("PERFC_BENCH_CHURN_SETTLE", 20*time.Second)
	dir := b.TempDir()
	perfc := buildPerfc(b, dir)
	child := filepath.Join(dir, "churnchild")
	if out, err := exec.Command("go", "build", "-o", child, "./churnchild").CombinedOutput(); err != nil {
		b.Fatalf("building churnchild: %v\n%s", err, out)
	}
	env := append(os.Environ(), "PERFC_STATE_DIR="+filepath.Join(dir, "state"), "PERFC_WARNINGS=off")
	if err := os.Mkdir(filepath.Join(dir, "state"), 0o700); err != nil {
		b.Fatal(err)
	}
	traces := map[int]*gcTrace{} // by pid, once started
	command := func(args ...string) *exec.Cmd {
		c := exec.Command(perfc, args...)
		c.Env = env
		return c
	}
	traced := func(args ...string) (*exec.Cmd, *gcTrace) {
		c := command(args...)
		c.Env = append(c.Env, "GODEBUG=gctrace=1")
		g := newGCTrace()
		c.Stderr = g
		return c, g
	}

	// The OTLP sink: takes every request and answers an empty response.
	var pushes sync.Map
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		pushes.Store(time.Now().UnixNano(), n)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer sink.Close()

	writeOpts := func(name, js string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(js), 0o600); err != nil {
			b.Fatal(err)
		}
		return p
	}
	wxOpts := writeOpts("wx.json", `{"profile":"windows_exporter","objects":["Processor","Memory","LogicalDisk","Network Interface","System","Process"]}`)
	classicOpts := writeOpts("classic.json", `{"profile":"classic","objects":["Process","Thread"]}`)
	serve := func(extra ...string) *server {
		addr := freeAddr(b)
		c, g := traced(append([]string{"serve", "-listen", addr, "-anonymous", "-nowarn"}, extra...)...)
		s := startServer(b, c, "http://"+addr+"/metrics")
		traces[s.pid] = g
		return s
	}
	def := serve("-otlp-endpoint", sink.URL, "-otlp-protocol", "http/protobuf", "-otlp-processes", "-otlp-interval", "1s")
	wx := serve("-metrics", wxOpts)
	classic := serve("-metrics", classicOpts)
	servers := []*server{def, wx, classic}
	for _, s := range servers {
		s.encoding = "gzip"
	}
	formatted := strings.TrimSuffix(def.url, "/metrics") + "/v1/formatted?" + url.Values{"path": {`\Process(*)\% Processor Time`}}.Encode()

	typeperf := func(paths ...string) *exec.Cmd {
		tp, g := traced(append([]string{"typeperf"}, append(paths, "-si", "1")...)...)
		out, err := tp.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := tp.Start(); err != nil {
			b.Fatal(err)
		}
		go io.Copy(io.Discard, out)
		b.Cleanup(func() { tp.Process.Signal(syscall.SIGINT); tp.Wait() })
		traces[tp.Process.Pid] = g
		return tp
	}
	tpCPU := typeperf(`\Process(*)\% Processor Time`, `\Thread(*)\% Processor Time`)
	tpAll := typeperf(`\Process(*)\*`, `\Thread(*)\*`)

	known := map[int]bool{os.Getpid(): true, tpCPU.Process.Pid: true, tpAll.Process.Pid: true}
	for _, s := range servers {
		known[s.pid] = true
	}
	logman := func(args ...string) {
		if out, err := command(append([]string{"logman"}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("perfc logman %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	logman("create", "counter", "churn", "-c", `\Process(*)\*`, `\Thread(*)\*`, "-si", "1", "-f", "bin", "-o", filepath.Join(dir, "churn"))
	logman("create", "alert", "churnalert", "-th", `\Process(*)\% Processor Time>50`, "-si", "1")
	logman("start", "churn")
	logman("start", "churnalert")
	b.Cleanup(func() {
		command("logman", "stop", "churn").Run()
		command("logman", "stop", "churnalert").Run()
	})
	cmds := []*churnCommand{{name: "serve-default", pid: def.pid}, {name: "serve-wx", pid: wx.pid},
		{name: "serve-classic", pid: classic.pid}, {name: "typeperf-cpu", pid: tpCPU.Process.Pid},
		{name: "typeperf-all", pid: tpAll.Process.Pid}}
	// Each started set runs in a process of its own (logman service
	// -run SET), under a supervisor (-supervise SET).
	for _, pid := range processesOf(perfc) {
		if known[pid] {
			continue
		}
		raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		args := strings.Split(string(raw), "\x00")
		name := ""
		for i, a := range args[:len(args)-1] {
			switch a {
			case "-run":
				name = "set-" + args[i+1]
			case "-supervise":
				name = "supervisor-" + args[i+1]
			}
		}
		if name == "" {
			b.Fatalf("an unknown perfc process %d: %q", pid, args)
		}
		cmds = append(cmds, &churnCommand{name: name, pid: pid})
	}
	if len(cmds) < 8 {
		b.Fatalf("the started sets' processes were not all found (%d perfc processes)", len(cmds))
	}

	// Every second: scrape each server, ask the API, read each command's
	// private memory.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	tick := func() {
		for _, s := range servers {
			s.scrape(b)
		}
		if _, err := (&server{url: formatted, client: def.client}).get(); err != nil {
			b.Error(err)
		}
		mu.Lock()
		for _, c := range cmds {
			c.peak = max(c.peak, pssAnon(b, c.pid))
		}
		mu.Unlock()
	}
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				tick()
			}
		}
	}()
	defer func() { cancel(); <-scraped }()

	for b.Loop() {
		time.Sleep(warm)
		mu.Lock()
		for _, c := range cmds {
			c.before, c.peak = pssAnon(b, c.pid), 0
			c.gc = traces[c.pid]
			c.liveBefore = c.gc.Live()
		}
		mu.Unlock()
		p0, t0 := countProcsThreads()
		start := time.Now()
		churn(b, child, dir, n, par, life)
		took := time.Since(start)
		time.Sleep(settle)
		p1, t1 := countProcsThreads()
		mu.Lock()
		for _, c := range cmds {
			c.end = pssAnon(b, c.pid)
		}
		mu.Unlock()
		b.ReportMetric(float64(n)/took.Seconds(), "churned-procs/s")
		b.Logf("host before the churn: %d processes, %d threads; after: %d, %d; %d processes in %v",
			p0, t0, p1, t1, n, took.Round(time.Second))
	}
	for _, c := range cmds {
		name := c.name
		b.ReportMetric(c.before, name+"-before-kB")
		b.ReportMetric(c.peak, name+"-peak-kB")
		b.ReportMetric(c.end, name+"-after-kB")
		b.ReportMetric(c.end/c.before, name+"-ratio")
		live := ""
		if c.gc != nil {
			b.ReportMetric(float64(c.liveBefore), name+"-live-before-MB")
			b.ReportMetric(float64(c.gc.Live()), name+"-live-after-MB")
			live = fmt.Sprintf("; live heap after the last GC %d MB before, %d MB after", c.liveBefore, c.gc.Live())
		}
		b.Logf("%s (pid %d): Pss_Anon %.0f kB before, %.0f kB peak, %.0f kB after: %.2fx%s", c.name, c.pid, c.before, c.peak, c.end, c.end/c.before, live)
	}
	count := 0
	pushes.Range(func(_, _ any) bool { count++; return true })
	if count == 0 {
		b.Error("the OTLP sink received nothing")
	}
}

// churn runs n short-lived processes of bin, at most par at a time, each
// through a link in dir of a distinct 60-character name, alive for life.
func churn(b *testing.B, bin, dir string, n, par int, life time.Duration) {
	links := filepath.Join(dir, "churn")
	if err := os.Mkdir(links, 0o700); err != nil && !os.IsExist(err) {
		b.Fatal(err)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for i := range n {
		name := fmt.Sprintf("churn-%05d-%s", i, strings.Repeat("x", 48))
		link := filepath.Join(links, name)
		if err := os.Symlink(bin, link); err != nil {
			b.Fatal(err)
		}
		sem <- struct{}{}
		cmd := exec.Command(link)
		cmd.Args[0] = name
		cmd.Env = []string{"PERFC_CHURN_THREADS=1", "PERFC_CHURN_LIFE=" + life.String()}
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := cmd.Wait(); err != nil {
				select {
				case errs <- fmt.Errorf("%s: %v", name, err):
				default:
				}
			}
			os.Remove(link)
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// processesOf lists the processes running the executable bin.
func processesOf(bin string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && exe == bin {
			pids = append(pids, pid)
		}
	}
	return pids
}

// envDuration returns the duration in the environment variable name, or
// def.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}
