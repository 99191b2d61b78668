package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// The workload: sleeping processes plus children of this test binary that
// each hold threadsPerChild OS threads, so that the host has at least
// 500 more processes and 5,000 more threads than before. Every child
// exits when its stdin closes (this process ended, however it ended) and
// also gets SIGKILL from the kernel when its parent dies (Pdeathsig).
//
// PERFC_BENCH_SLEEPERS and PERFC_BENCH_THREAD_CHILDREN change the first
// two numbers, for the larger host of bench/RESULTS.md (760 and 66: about
// 880 processes and 17,000 thread files in all); PERFC_BENCH_THREADS_PER_CHILD
// the third, for issue 41's host of 500 extra processes of 4 threads
// (0 sleepers, 500 children of 4: each child has the Go runtime's few
// threads besides).
const (
	sleepers        = 460
	threadChildren  = 40
	threadsPerChild = 125
	childEnv        = "PERFC_BENCH_CHILD_THREADS"
)

// envInt returns the integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// runChild is the body of a thread-holding child: it locks
// threadsPerChild goroutines to their OS threads, says "ready", and waits
// for stdin to close.
func runChild(n int) {
	ready := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread()
			ready <- struct{}{}
			select {}
		}()
	}
	for i := 0; i < n; i++ {
		<-ready
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// workload is the set of started children.
type workload struct {
	cmds []*exec.Cmd
	ins  []io.Closer
}

// start launches the children; on error it stops those already started.
func startWorkload() (*workload, error) {
	w := &workload{}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	launch := func(cmd *exec.Cmd, waitReady bool) error {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		in, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		var out io.ReadCloser
		if waitReady {
			if out, err = cmd.StdoutPipe(); err != nil {
				return err
			}
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		w.cmds = append(w.cmds, cmd)
		w.ins = append(w.ins, in)
		if waitReady {
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || line != "ready\n" {
				return fmt.Errorf("child %d: %q %v", cmd.Process.Pid, line, err)
			}
		}
		return nil
	}
	for i := 0; i < envInt("PERFC_BENCH_THREAD_CHILDREN", threadChildren); i++ {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+strconv.Itoa(max(envInt("PERFC_BENCH_THREADS_PER_CHILD", threadsPerChild), 1)))
		if err := launch(cmd, true); err != nil {
			w.stop()
			return nil, err
		}
	}
	for i := 0; i < envInt("PERFC_BENCH_SLEEPERS", sleepers); i++ {
		// sleep reads no stdin; Pdeathsig and stop() end it.
		if err := launch(exec.Command("sleep", "3600"), false); err != nil {
			w.stop()
			return nil, err
		}
	}
	return w, nil
}

// stop kills and reaps every child.
func (w *workload) stop() {
	for _, in := range w.ins {
		in.Close()
	}
	for _, c := range w.cmds {
		c.Process.Kill()
	}
	for _, c := range w.cmds {
		c.Wait()
	}
	w.cmds, w.ins = nil, nil
}

// countProcsThreads counts the processes and threads of /proc.
func countProcsThreads() (procs, threads int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		procs++
		ts, _ := os.ReadDir("/proc/" + e.Name() + "/task")
		threads += len(ts)
	}
	return procs, threads
}

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		n, _ := strconv.Atoi(v)
		runChild(n)
		return
	}
	if os.Getenv(remoteClientEnv) != "" { // the client of BenchmarkRemoteFetch
		os.Exit(runRemoteClient())
	}
	// Pdeathsig fires when the thread that started a child exits: keep
	// this goroutine's thread for the whole run.
	runtime.LockOSThread()
	raiseFileLimit()
	w, err := startWorkload()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: starting the workload:", err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		w.stop()
		os.Exit(2)
	}()
	p, t := countProcsThreads()
	fmt.Fprintf(os.Stderr, "bench: workload running: %d processes, %d threads on the host\n", p, t)
	code := m.Run()
	w.stop()
	os.Exit(code)
}

// raiseFileLimit raises RLIMIT_NOFILE to fs.nr_open where the process may
// (root), so that FloorKeptFD can keep every file of the larger workload
// (about 22,000) open; the benchmarks of a bounded collector set their
// bound explicitly. It reports the limit in force.
func raiseFileLimit() {
	var rl syscall.Rlimit
	if b, err := os.ReadFile("/proc/sys/fs/nr_open"); err == nil {
		if n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64); err == nil {
			syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
		}
	}
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	fmt.Fprintf(os.Stderr, "bench: RLIMIT_NOFILE %d\n", rl.Cur)
}
