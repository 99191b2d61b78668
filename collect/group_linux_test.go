package collect

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/proctest"
)

// reaped reports whether pid no longer exists, not even as a zombie.
func reaped(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// forkingProcess runs testdata/forking-provider.sh, which starts a
// grandchild holding the provider's stdout and stderr at OPEN or at the
// first COLLECT (when), and returns where it writes the grandchild's pid.
func forkingProcess(t *testing.T, when string) (*Process, string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no POSIX shell:", err)
	}
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	p := Exec(sh, filepath.Join("testdata", "forking-provider.sh"), pidfile, when)
	p.Stderr = tWriter{t} // copied by a goroutine: a held stderr must not delay reaping either
	t.Cleanup(func() { p.Close() })
	return p, pidfile
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the provider did not report its grandchild: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("grandchild pid %q", b)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // only if the test failed
	return pid
}

// A provider that hangs while a process it started holds its stdout: the
// timeout ends the call at once (the read does not wait for the grandchild
// to close the pipe), the whole group is killed and the provider is reaped.
func TestExecTimeoutKillsGroup(t *testing.T) {
	p, pidfile := forkingProcess(t, "collect")
	ctx := context.Background()
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if n, k, err := p.Collect(ctx, "Global", make([]byte, 64)); n != 0 || k != 0 || err != nil {
		t.Fatalf("first Collect = %d, %d, %v", n, k, err)
	}
	grandchild := readPid(t, pidfile)
	leader := p.pid()

	done := make(chan error, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, _, err := p.Collect(ctx, "Global", make([]byte, 64))
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Collect still blocked 10 s after its 200 ms timeout: the grandchild holds the pipe")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a 200 ms timeout took %v", d)
	}
	if p.pid() != 0 {
		t.Error("timed-out provider still attached")
	}
	if !reaped(leader) {
		t.Errorf("provider %d not reaped (a zombie is left)", leader)
	}
	if !proctest.Exited(t, grandchild, 2*time.Second) {
		t.Errorf("grandchild %d outlived the provider's timeout", grandchild)
	}
}

// Close ends the provider and kills what it left behind in its group,
// without waiting for the processes that hold its pipes.
func TestExecCloseKillsGroup(t *testing.T) {
	p, pidfile := forkingProcess(t, "open")
	if err := p.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	grandchild := readPid(t, pidfile)
	leader := p.pid()
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	if !reaped(leader) {
		t.Errorf("provider %d not reaped", leader)
	}
	if !proctest.Exited(t, grandchild, 2*time.Second) {
		t.Errorf("grandchild %d outlived Close", grandchild)
	}
}

// A provider that dies between samples is reaped at once, not at the next
// Collect, and what it left in its group is killed.
func TestExecReapsProviderThatDies(t *testing.T) {
	p, pidfile := forkingProcess(t, "open")
	if err := p.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	grandchild := readPid(t, pidfile)
	p.mu.Lock()
	c := p.child
	p.mu.Unlock()
	leader := c.cmd.Process.Pid
	if err := syscall.Kill(leader, syscall.SIGKILL); err != nil { // a crash
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the dead provider was not reaped")
	}
	if !reaped(leader) {
		t.Errorf("provider %d left as a zombie", leader)
	}
	if !proctest.Exited(t, grandchild, 2*time.Second) {
		t.Errorf("grandchild %d outlived the provider", grandchild)
	}
	// The next Collect notices, and the provider is started again later.
	if _, _, err := p.Collect(context.Background(), "Global", make([]byte, 64)); err == nil {
		t.Fatal("Collect on a dead provider succeeded")
	}
	if p.pid() != 0 {
		t.Fatal("dead provider still attached")
	}
}
