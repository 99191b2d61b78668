package collect

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

// fakeClock drives the restart backoff without sleeping.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// childProcess returns a Process running this test binary in a child mode,
// serving the Memory object of a real Windows block as index 4.
func childProcess(t *testing.T, mode string, env ...string) (*Process, []byte, *fakeClock) {
	t.Helper()
	objs, _ := windowsObjects(t, "s01-0004-Memory.bin")
	dir := t.TempDir()
	file := filepath.Join(dir, "objects.bin")
	if err := os.WriteFile(file, objs, 0o600); err != nil {
		t.Fatal(err)
	}
	p := Exec(os.Args[0], "-test.run=^$")
	p.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", childEnv+"="+mode, "COLLECT_TEST_OBJECTS="+file, "COLLECT_TEST_INDEX=4",
		"COLLECT_TEST_MARKER="+filepath.Join(dir, "marker"))
	p.Env = append(p.Env, env...)
	p.Stderr = tWriter{t}
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p.now = clk.now
	t.Cleanup(func() { p.Close() })
	return p, objs, clk
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(b []byte) (int, error) {
	w.t.Logf("provider stderr: %s", bytes.TrimSpace(b))
	return len(b), nil
}

func (p *Process) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.child == nil {
		return 0
	}
	return p.child.cmd.Process.Pid
}

// exerciseHappyPath runs the conversation every well-behaved provider must
// hold: open, a matching query, a foreign index, a buffer too small, close.
func exerciseHappyPath(t *testing.T, p *Process, objs []byte) {
	t.Helper()
	ctx := context.Background()
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	pid := p.pid()
	if pid == 0 {
		t.Fatal("no process after Open")
	}
	for _, name := range []string{"Global", "2 4"} {
		buf := make([]byte, 64<<10)
		n, k, err := p.Collect(ctx, name, buf)
		if err != nil || n != len(objs) || k != 1 || !bytes.Equal(buf[:n], objs) {
			t.Fatalf("Collect(%q) = %d, %d, %v; want the %d bytes of the Memory object", name, n, k, err, len(objs))
		}
	}
	for _, name := range []string{"238", "Costly"} {
		n, k, err := p.Collect(ctx, name, make([]byte, 64<<10))
		if n != 0 || k != 0 || err != nil {
			t.Fatalf("Collect(%q) = %d, %d, %v; want 0, 0, nil", name, n, k, err)
		}
	}
	small := bytes.Repeat([]byte{0xEE}, len(objs)-1)
	if _, _, err := p.Collect(ctx, "Global", small); !errors.Is(err, perfdata.ErrMoreData) {
		t.Fatalf("Collect with %d bytes: %v, want ErrMoreData", len(small), err)
	}
	if !bytes.Equal(small, bytes.Repeat([]byte{0xEE}, len(small))) {
		t.Fatal("buffer touched on MORE")
	}
	if got := p.pid(); got != pid {
		t.Fatalf("provider restarted (pid %d, then %d): it must be kept running", pid, got)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if p.pid() != 0 {
		t.Fatal("provider still attached after Close")
	}
}

func TestExecGoServe(t *testing.T) {
	p, objs, _ := childProcess(t, "serve")
	exerciseHappyPath(t, p, objs)
}

func TestExecShellScript(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no POSIX shell:", err)
	}
	objs, _ := windowsObjects(t, "s01-0004-Memory.bin")
	file := filepath.Join(t.TempDir(), "memory.bin")
	if err := os.WriteFile(file, objs, 0o600); err != nil {
		t.Fatal(err)
	}
	p := Exec(sh, filepath.Join("testdata", "fixed-provider.sh"), file, "4")
	p.Stderr = tWriter{t}
	t.Cleanup(func() { p.Close() })
	exerciseHappyPath(t, p, objs)
}

func TestExecCrashAndRestart(t *testing.T) {
	p, objs, clk := childProcess(t, "crash-once")
	ctx := context.Background()
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	// First child: dies 10 bytes into a 1000-byte payload.
	if _, _, err := p.Collect(ctx, "Global", buf); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("crash mid-response: %v, want an unexpected-EOF error", err)
	}
	if p.pid() != 0 {
		t.Fatal("dead provider still attached")
	}
	// Within the backoff: no restart.
	clk.advance(DefaultMinBackoff - time.Millisecond)
	if _, _, err := p.Collect(ctx, "Global", buf); !errors.Is(err, ErrRestartBackoff) {
		t.Fatalf("collect within backoff: %v", err)
	}
	// After it: a new child, given HELLO and OPEN again (fixedProc refuses
	// to collect unopened), serves the data.
	clk.advance(time.Millisecond)
	n, k, err := p.Collect(ctx, "Global", buf)
	if err != nil || k != 1 || !bytes.Equal(buf[:n], objs) {
		t.Fatalf("after restart: %d, %d, %v", n, k, err)
	}
	if p.backoff != 0 {
		t.Errorf("backoff %v after a successful collection, want reset", p.backoff)
	}
}

func TestExecBackoffDoubles(t *testing.T) {
	p, _, clk := childProcess(t, "crash")
	p.MaxBackoff = time.Second
	ctx := context.Background()
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	// 100 ms doubling, capped at 1 s.
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		w *= time.Millisecond
		if _, _, err := p.Collect(ctx, "Global", make([]byte, 4096)); err == nil {
			t.Fatalf("crash %d: no error", i)
		}
		if got := p.retryAt.Sub(clk.now()); got != w {
			t.Fatalf("after crash %d: restart in %v, want %v", i+1, got, w)
		}
		clk.advance(w)
	}
}

func TestExecProtocolViolations(t *testing.T) {
	tests := []struct {
		mode    string
		open    bool // the violation happens at Open
		wantErr string
		wantIs  error
	}{
		{mode: "oversize", wantErr: "response of 72 bytes exceeds the 64 offered"},
		{mode: "garbage", wantErr: "line longer than 1023 bytes"},
		{mode: "hello2", open: true, wantErr: "provider speaks protocol version 2, not 1"},
		{mode: "hang", wantIs: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			p, _, _ := childProcess(t, tt.mode)
			err := p.Open(context.Background())
			buf := bytes.Repeat([]byte{0xEE}, 64)
			if !tt.open {
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				_, _, err = p.Collect(ctx, "Global", buf)
			}
			switch {
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Fatalf("err = %v, want %v", err, tt.wantIs)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
			var pe *ProtocolError
			if tt.wantErr != "" && !errors.As(err, &pe) {
				t.Errorf("err = %v, not a *ProtocolError", err)
			}
			if !bytes.Equal(buf, bytes.Repeat([]byte{0xEE}, 64)) {
				t.Error("buffer written by a violating response")
			}
			if p.pid() != 0 {
				t.Error("violating provider still attached; it must be killed")
			}
		})
	}
}

func TestExecProviderError(t *testing.T) {
	p, _, _ := childProcess(t, "err")
	ctx := context.Background()
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	pid := p.pid()
	for range 2 {
		_, _, err := p.Collect(ctx, "Global", make([]byte, 4096))
		if err == nil || !strings.Contains(err.Error(), "provider error: sensor unplugged") {
			t.Fatalf("err = %v", err)
		}
	}
	if p.pid() != pid {
		t.Fatal("an ERR answer must leave the provider running")
	}
}

func TestExecBadInput(t *testing.T) {
	p := Exec(filepath.Join(t.TempDir(), "no-such-provider"))
	if err := p.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "start") {
		t.Fatalf("Open of a missing executable: %v", err)
	}
	q, _, _ := childProcess(t, "serve")
	if _, _, err := q.Collect(context.Background(), "2\n4", make([]byte, 8)); err == nil {
		t.Fatal("a value name with a line break was sent")
	}
	if _, _, err := q.Collect(context.Background(), strings.Repeat("2 ", MaxLine), make([]byte, 8)); err == nil {
		t.Fatal("an overlong value name was sent")
	}
}
