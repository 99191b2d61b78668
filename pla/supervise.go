package pla

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// SupervisorEnv names the environment variable that tells a collector
// process the pid of the supervisor that started it.
const SupervisorEnv = "PERFC_PLA_SUPERVISOR"

// Backoff bounds of Supervise: the first restart after a crash waits
// minBackoff, each next one twice as long up to maxBackoff; a collector
// that ran for resetAfter starts the count again.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
	resetAfter = time.Minute
	// maxRestartFailures bounds how many restarts in a row may fail to
	// start (exit status 1) before the supervisor gives up.
	maxRestartFailures = 5
)

// Supervise runs the collector process of one set (collector returns
// its command) and starts it again when it crashes: killed by a signal,
// or ended by a Go panic (exit status 2). A collector that ends by itself
// (stopped, its run time or sample count reached, a full disk: exit
// status 0) ends the supervision, and so does a first start that fails
// (exit status 1, its reason on the ready pipe); a restart that fails is
// tried again, up to maxRestartFailures times in a row. ready, the ready pipe of Runner.Start, is handed
// to the first collector. On ctx's end (SIGTERM from logman stop) the
// collector is stopped with SIGTERM and waited for.
func Supervise(ctx context.Context, collector func() *exec.Cmd, ready *os.File, warn func(string)) error {
	backoff := minBackoff
	restarting, failures := false, 0
	for {
		cmd := collector()
		cmd.Env = append(cmd.Environ(), fmt.Sprintf("%s=%d", SupervisorEnv, os.Getpid()))
		if ready != nil {
			cmd.ExtraFiles = []*os.File{ready}
			cmd.Env = append(cmd.Env, ReadyEnv+"=3")
		}
		if err := cmd.Start(); err != nil {
			if ready != nil {
				fmt.Fprintf(ready, "starting the collector: %v\n", err)
				ready.Close()
			}
			return err
		}
		if ready != nil {
			ready.Close() // the collector holds it now
			ready = nil
		}
		started := time.Now()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		select {
		case err = <-exited:
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
			<-exited
			return nil
		}
		switch {
		case crashed(err):
			failures = 0
		case restarting && err != nil && failures < maxRestartFailures:
			failures++
		default:
			return nil
		}
		restarting = true
		if time.Since(started) >= resetAfter {
			backoff = minBackoff
		}
		if warn != nil {
			warn(fmt.Sprintf("the collector (process %d) crashed (%v); starting it again in %v", cmd.Process.Pid, err, backoff))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// crashed reports whether a collector's end is a crash to recover from.
func crashed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && (ws.Signaled() || ws.ExitStatus() == 2)
}
