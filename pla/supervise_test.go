package pla

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestSupervise runs Supervise over shell commands that end as a
// collector may: a crash (SIGKILL, a Go panic's exit status 2) is
// restarted, a clean end or a failed first start ends the supervision.
func TestSupervise(t *testing.T) {
	for _, tc := range []struct {
		name  string
		runs  []string // the shell script of each run, in order
		wantN int      // runs started
	}{
		{"clean end", []string{"exit 0"}, 1},
		{"first start fails", []string{"exit 1", "exit 0"}, 1},
		{"killed, then clean", []string{"kill -9 $$", "exit 0"}, 2},
		{"panic, then clean", []string{"exit 2", "exit 0"}, 2},
		{"killed, restart fails, then clean", []string{"kill -9 $$", "exit 1", "exit 0"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			cmd := func() *exec.Cmd {
				script := "exit 0"
				if n < len(tc.runs) {
					script = tc.runs[n]
				}
				n++
				return exec.Command("sh", "-c", script)
			}
			if err := Supervise(t.Context(), cmd, nil, nil); err != nil {
				t.Fatal(err)
			}
			if n != tc.wantN {
				t.Errorf("%d runs, want %d", n, tc.wantN)
			}
		})
	}
	// A stop (the context's end) reaches the running collector.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	started := time.Now()
	go func() {
		done <- Supervise(ctx, func() *exec.Cmd { return exec.Command("sleep", "30") }, nil, nil)
	}()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(started); d > 20*time.Second {
		t.Errorf("stopping took %v: the collector was not signalled", d)
	}
}
