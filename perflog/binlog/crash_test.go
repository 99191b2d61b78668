package binlog

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Environment of the writer child of TestCrash.
const (
	crashPathEnv = "BINLOG_CRASH_PATH"
	crashModeEnv = "BINLOG_CRASH_MODE"
)

// crashOptions are the options of crash run k.
func crashOptions(mode string) Options {
	switch mode {
	case "circular":
		return Options{Mode: Circular, MaxSize: 24 << 10, Compress: true, Location: time.UTC}
	case "plain":
		return Options{Location: time.UTC}
	}
	return Options{Compress: true, Location: time.UTC}
}

// TestCrashChild is the writer process of TestCrash: run by it (and
// skipped otherwise), it writes samples until it is killed, printing the
// number of samples written after each.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashPathEnv)
	if path == "" {
		t.Skip("the writer child of TestCrash")
	}
	live := liveSamples(t, 50, 11)
	w, err := Create(path, crashOptions(os.Getenv(crashModeEnv)))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := range 100_000 { // bounded, should the parent die
		if err := w.WriteSample(at(live[i%len(live)], i)); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Fprintln(out, i+1)
		out.Flush()
	}
	os.Exit(0)
}

// TestCrash kills a writer process with SIGKILL at 100 random moments (after
// a random number of samples, while it goes on writing): every log reads
// back to its last whole record, and appending to it works.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 100 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	live := liveSamples(t, 50, 11)
	rng := rand.New(rand.NewPCG(10, 10))
	dir := t.TempDir()
	modes := []string{"compressed", "plain", "circular"}
	for run := range 100 {
		mode := modes[run%len(modes)]
		path := filepath.Join(dir, fmt.Sprintf("crash%03d.plog", run))
		kill := 1 + rng.IntN(150)
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashPathEnv+"="+path, crashModeEnv+"="+mode)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		written := 0
		for written < kill && sc.Scan() {
			n, err := strconv.Atoi(sc.Text())
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("run %d: child says %q", run, sc.Text())
			}
			written = n
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if written < kill {
			t.Fatalf("run %d: the child stopped after %d samples", run, written)
		}

		l, err := Open(path)
		if err != nil {
			t.Fatalf("run %d (%s, killed after %d samples): %v", run, mode, written, err)
		}
		got := readN(t, l, path)
		l.Close()
		if len(got) == 0 {
			t.Fatalf("run %d (%s): no samples after %d were written", run, mode, written)
		}
		first := indexOf(got[0].Time)
		if mode != "circular" && first != 0 {
			t.Fatalf("run %d (%s): the first sample is number %d", run, mode, first)
		}
		for k, s := range got {
			i := first + k
			if d := sameSample(s, at(live[i%len(live)], i)); d != "" {
				t.Fatalf("run %d (%s): sample %d: %s", run, mode, i, d)
			}
		}
		last := first + len(got) // the next sample's number
		if last < written {
			t.Fatalf("run %d (%s): the log ends at sample %d, %d were written whole before the kill", run, mode, last, written)
		}

		// Append three more samples, numbered on.
		w, err := Create(path, Options{Mode: Append, Compress: mode != "plain", Location: time.UTC})
		if err != nil {
			t.Fatalf("run %d (%s): append: %v", run, mode, err)
		}
		for i := last; i < last+3; i++ {
			if err := w.WriteSample(at(live[i%len(live)], i)); err != nil {
				t.Fatalf("run %d (%s): append: %v", run, mode, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		l, err = Open(path)
		if err != nil {
			t.Fatalf("run %d (%s): after append: %v", run, mode, err)
		}
		got = readN(t, l, path)
		l.Close()
		if n := len(got); n == 0 || indexOf(got[n-1].Time) != last+2 {
			t.Fatalf("run %d (%s): after appending 3 samples to %d: %d samples", run, mode, last, n)
		}
		first = indexOf(got[0].Time)
		for k, s := range got {
			i := first + k
			if d := sameSample(s, at(live[i%len(live)], i)); d != "" {
				t.Fatalf("run %d (%s): after append: sample %d: %s", run, mode, i, d)
			}
		}
		if mode != "circular" && len(got) != last+3 {
			t.Fatalf("run %d (%s): %d samples after appending 3 to %d", run, mode, len(got), last)
		}
		os.Remove(path)
	}
}
