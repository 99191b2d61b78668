package pla

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/state"
	"golang.org/x/sys/unix"
)

// ReadyEnv names the environment variable that gives a collector process
// started by Runner.Start the descriptor of its ready pipe: it writes
// ReadyOK there once its set runs, or the error that stopped it.
const ReadyEnv = "PERFC_PLA_READY_FD"

// ReadyOK is what a collector process writes on its ready pipe once its
// set runs.
const ReadyOK = "ok"

// Runner starts sets as background processes and tells whether they run
// (logman's Runner). Each started set runs in its own process, in a new
// session without a terminal (setsid), so closing the shell that started
// it does not stop it; its run-state record in the set's state directory
// names the process (pid, start time, boot), so a killed or crashed
// collector shows as stopped, never as running.
type Runner struct {
	// Command returns the command that runs the set name of the state
	// directory dir in the foreground (perfc logman service -run NAME
	// -dir DIR); Start runs it detached.
	Command func(dir, name string) *exec.Cmd
	// Proc reads process identities; the zero Proc reads /proc.
	Proc Proc
	// Timeout bounds how long Start waits for the collector to report and
	// Stop for it to end; 0 is 30 seconds.
	Timeout time.Duration
}

func (r Runner) timeout() time.Duration {
	if r.Timeout <= 0 {
		return 30 * time.Second
	}
	return r.Timeout
}

// Status tells whether the set runs: its record names a live process
// (same pid, start time and boot). detail says which process, or how
// the last run ended.
func (r Runner) Status(dir string, set *collectorset.Set) (bool, string) {
	rec, err := ReadRecord(dir, set.Name)
	switch {
	case err != nil:
		return false, err.Error()
	case rec == nil:
		return false, ""
	case r.Proc.Alive(rec) && set.Alert != nil:
		return true, fmt.Sprintf("judging its alerts in process %d since %s", rec.PID, rec.Started.Local().Format("1/2/2006 3:04:05 PM"))
	case r.Proc.Alive(rec):
		return true, fmt.Sprintf("collecting in process %d since %s into %s", rec.PID, rec.Started.Local().Format("1/2/2006 3:04:05 PM"), rec.Output)
	case r.Proc.SupervisorAlive(rec):
		return true, fmt.Sprintf("the collector (process %d) crashed; its supervisor (process %d) starts it again", rec.PID, rec.SupervisorPID)
	case !rec.Stopped.IsZero():
		return false, fmt.Sprintf("stopped %s: %s", rec.Stopped.Local().Format("1/2/2006 3:04:05 PM"), rec.Reason)
	}
	d := fmt.Sprintf("the collector (process %d) ended without a clean stop: killed, crashed, or the computer restarted", rec.PID)
	if rec.Reason != "" {
		d += "; " + rec.Reason
	}
	return false, d
}

// Start starts the set in a background process and waits until it
// reports that it collects (its first sample written) or why it could
// not.
func (r Runner) Start(ctx context.Context, dir string, set *collectorset.Set) error {
	rec, err := ReadRecord(dir, set.Name)
	if err != nil {
		return err
	}
	if r.Proc.Alive(rec) || r.Proc.SupervisorAlive(rec) {
		return fmt.Errorf("%w (process %d)", ErrRunning, rec.PID)
	}
	if r.Command == nil {
		return errors.New("no collector command")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	cmd := r.Command(dir, set.Name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil // /dev/null
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Env = append(cmd.Environ(), fmt.Sprintf("%s=%d", ReadyEnv, 3))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/" // hold no directory of the caller's busy
	if err := cmd.Start(); err != nil {
		pw.Close()
		return fmt.Errorf("starting the collector: %w", err)
	}
	pw.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps it if it ends while this process lives
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(pr, 64<<10))
		got <- string(b)
	}()
	timer := time.NewTimer(r.timeout())
	defer timer.Stop()
	select {
	case msg := <-got:
		if strings.TrimSpace(msg) == ReadyOK {
			return nil
		}
		werr := <-exited
		if msg = strings.TrimSpace(msg); msg == "" {
			return fmt.Errorf("the collector ended before it collected: %v", werr)
		}
		if strings.Contains(msg, ErrRunning.Error()) {
			// Another start of the set won the race for its run lock.
			return &reportedError{msg: msg, err: ErrRunning}
		}
		return errors.New(msg)
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return fmt.Errorf("the collector (process %d) did not report within %v; see perfc logman query %q", cmd.Process.Pid, r.timeout(), set.Name)
	}
}

// Stop asks the collector of the set to stop (SIGTERM to its own
// process; a request file to a shared service) and waits until the set's
// log is closed.
func (r Runner) Stop(ctx context.Context, dir string, set *collectorset.Set) error {
	rec, err := ReadRecord(dir, set.Name)
	if err != nil {
		return err
	}
	supervised := r.Proc.SupervisorAlive(rec)
	if !r.Proc.Alive(rec) && !supervised {
		return ErrNotRunning
	}
	deadline := time.Now().Add(r.timeout())
	if rec.Shared {
		if err := state.WriteRunFile(dir, set.Name, state.StopRequestSuffix, []byte("stop\n")); err != nil {
			return err
		}
		return r.waitRecord(ctx, dir, set.Name, rec, deadline)
	}
	// A supervised collector is stopped through its supervisor, which
	// then does not start it again: it forwards SIGTERM and waits for the
	// collector before it exits itself.
	target := rec
	if supervised {
		target = &Record{PID: rec.SupervisorPID, StartTicks: rec.SupervisorTicks, BootID: rec.BootID}
	}
	// A pidfd names the process itself: the identity is checked once
	// more after it is opened, so a pid reused meanwhile is never
	// signalled.
	pfd, err := unix.PidfdOpen(target.PID, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return nil
		}
		return fmt.Errorf("collector process %d: %w", target.PID, err)
	}
	defer unix.Close(pfd)
	if !r.Proc.Alive(target) {
		return nil
	}
	if err := unix.PidfdSendSignal(pfd, unix.SIGTERM, nil, 0); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return nil
		}
		return fmt.Errorf("stopping collector process %d: %w", target.PID, err)
	}
	for {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms <= 0 {
			return fmt.Errorf("collector process %d did not stop within %v", target.PID, r.timeout())
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}}, min(ms, 200))
		if err != nil && !errors.Is(err, unix.EINTR) {
			return err
		}
		if n > 0 || !r.Proc.Alive(target) {
			return nil
		}
		// The log is closed once the record says the run stopped: the
		// collector may still be running the set's command (-rc) on its
		// last file, within that command's own time limit.
		if cur, err := ReadRecord(dir, set.Name); err == nil && cur != nil && !cur.Stopped.IsZero() && cur.Started.Equal(rec.Started) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// waitRecord waits until the record of a shared run says the run
// stopped (or its process is gone).
func (r Runner) waitRecord(ctx context.Context, dir, name string, rec *Record, deadline time.Time) error {
	for time.Now().Before(deadline) {
		cur, err := ReadRecord(dir, name)
		if err != nil {
			return err
		}
		if cur == nil || !r.Proc.Alive(cur) || !cur.Started.Equal(rec.Started) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the collector service (process %d) did not stop the set within %v", rec.PID, r.timeout())
}

// Ready returns the ready pipe a collector process was given (ReadyEnv),
// nil when it was started otherwise.
func Ready(getenv func(string) string) *os.File {
	if getenv(ReadyEnv) != "3" {
		return nil
	}
	return os.NewFile(3, "ready pipe")
}

// RunOne runs the set name of the state directory dir in this process
// until it stops (its run time, sample count or an error) or ctx is done
// (logman stop's SIGTERM): the collector process Runner.Start starts.
// ready, when not nil, receives ReadyOK once the set runs, or the error.
func RunOne(ctx context.Context, opts Options, dir, name string, ready *os.File) error {
	report := func(msg string) {
		if ready != nil {
			w := bufio.NewWriter(ready)
			w.WriteString(msg + "\n")
			w.Flush()
			ready.Close()
			ready = nil
		}
	}
	def, err := state.ReadCollectorSet(dir, name)
	if err != nil {
		report(err.Error())
		return err
	}
	svc := NewService(ctx, opts)
	if err := svc.Start(dir, def, time.Time{}); err != nil {
		report(err.Error())
		return err
	}
	report(ReadyOK)
	done, _ := svc.Done(dir, def.Name)
	if done == nil { // it ended already (-sc 1)
		svc.Wait()
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		svc.StopAll("stopped by logman stop (or a signal)")
	}
	svc.Wait()
	return nil
}

// reportedError is an error a collector process reported on its ready
// pipe, as it worded it, that is err.
type reportedError struct {
	msg string
	err error
}

func (e *reportedError) Error() string { return e.msg }
func (e *reportedError) Unwrap() error { return e.err }
