package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/proctest"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/state"
)

// TestMain lets the test binary be perfc: run through a link named perfc
// (buildPerfc), or as perfc's collector process (`logman service ...`,
// which logman start runs as this executable), it is perfc's main, so
// that no test builds and links the binary again.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "perfc" || (len(os.Args) > 2 && os.Args[1] == "logman" && os.Args[2] == "service") {
		main()
		return
	}
	os.Exit(m.Run())
}

// buildPerfc returns a perfc for tests that run it as real processes:
// a link named perfc, in a directory of the test's own, to this test
// binary, which TestMain makes perfc's main.
func buildPerfc(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "perfc")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// waitFor polls cond until it holds or limit passes.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// logSamples reads a binary log: its sample count and gap marks ("" on
// a log that cannot be read yet).
func logSamples(path string) (n int, gaps []int) {
	l, err := binlog.Open(path)
	if err != nil {
		return -1, nil
	}
	defer l.Close()
	for i := range l.Len() {
		s, err := l.Sample(context.Background(), nil)
		if err != nil {
			return -1, nil
		}
		if s.Gap {
			gaps = append(gaps, i)
		}
	}
	return l.Len(), gaps
}

// procStatField returns field n (1-based, as proc(5) numbers them) of
// /proc/PID/stat.
func procStatField(t *testing.T, pid, n int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[n-3]
}

// perfcWith returns a function that runs the perfc binary bin with the
// environment env and returns its output, failing t when it fails.
func perfcWith(t *testing.T, bin string, env []string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("perfc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
}

// TestLogmanBackgroundEndToEnd creates a set, starts it from a shell in
// a session of its own that then ends, sees samples accumulate, kills the
// collector with SIGKILL and sees its supervisor start it again with the
// gap marked in the log, kills supervisor and collector and sees query say
// Stopped, starts it again (a second gap mark), stops and deletes it.
func TestLogmanBackgroundEndToEnd(t *testing.T) {
	bin := buildPerfc(t)
	tmp := t.TempDir()
	stateDir := filepath.Join(tmp, "state")
	env := append(os.Environ(), "PERFC_STATE_DIR="+stateDir, "HOME="+filepath.Join(tmp, "home"), "PERFC_WARNINGS=off")
	perfc := perfcWith(t, bin, env)
	status := func() string {
		m := regexp.MustCompile(`(?m)^e2e +Counter +(\w+)$`).FindStringSubmatch(perfc("logman", "query"))
		if m == nil {
			return ""
		}
		return m[1]
	}
	logPath := filepath.Join(tmp, "logs", "e2e.plog")
	perfc("logman", "create", "counter", "e2e", "-c", `\Memory\Available Bytes`, `\Processor(_Total)\% Processor Time`, "-si", "1", "-o", filepath.Join(tmp, "logs", "e2e"))

	// The starting shell: a session of its own, which ends when start returns.
	sh := exec.Command("sh", "-c", `"$0" logman start e2e`, bin)
	sh.Env = env
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	rec, err := pla.ReadRecord(stateDir, "e2e")
	if err != nil || rec == nil {
		t.Fatalf("run record: %v, %v", rec, err)
	}
	pid := rec.PID
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	// The supervisor leads a session of its own, without a terminal; the
	// collector is in it.
	for _, p := range []int{pid, rec.SupervisorPID} {
		if got := procStatField(t, p, 6); got != strconv.Itoa(rec.SupervisorPID) {
			t.Errorf("process %d is in session %s, not in the supervisor's own (%d)", p, got, rec.SupervisorPID)
		}
		if got := procStatField(t, p, 7); got != "0" {
			t.Errorf("process %d has controlling terminal %s", p, got)
		}
	}
	if s := status(); s != "Running" {
		t.Errorf("query says %q after start, want Running", s)
	}
	var n1 int
	waitFor(t, "3 samples in the log after the starting shell ended", 20*time.Second, func() bool {
		n1, _ = logSamples(logPath)
		return n1 >= 3
	})
	waitFor(t, "the log to grow", 20*time.Second, func() bool { n, _ := logSamples(logPath); return n > n1 })

	// SIGKILL of the collector: its supervisor starts it again, and the
	// log goes on after a gap mark.
	if rec.SupervisorPID == 0 {
		t.Fatalf("the collector has no supervisor: %+v", rec)
	}
	t.Cleanup(func() { syscall.Kill(rec.SupervisorPID, syscall.SIGKILL) })
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !proctest.Exited(t, pid, 10*time.Second) {
		t.Fatal("the collector did not die of SIGKILL")
	}
	killedAt, _ := logSamples(logPath)
	var rec2 *pla.Record
	waitFor(t, "the supervisor to start the collector again", 20*time.Second, func() bool {
		rec2, _ = pla.ReadRecord(stateDir, "e2e")
		return rec2 != nil && rec2.PID != pid && (pla.Proc{}).Alive(rec2)
	})
	t.Cleanup(func() { syscall.Kill(rec2.PID, syscall.SIGKILL) })
	waitFor(t, "samples after the restart", 20*time.Second, func() bool { n, _ := logSamples(logPath); return n >= killedAt+2 })
	if _, gaps := logSamples(logPath); len(gaps) != 1 || gaps[0] < killedAt-1 || gaps[0] > killedAt {
		t.Errorf("gap marks at samples %v, want one at the first sample after the restart (%d, or %d if a sample was being written)", gaps, killedAt, killedAt-1)
	}
	if s := status(); s != "Running" {
		t.Errorf("query says %q after the restart, want Running", s)
	}

	// SIGKILL of the supervisor, then of the collector: nobody restarts
	// it, and query must say Stopped, never Running.
	if err := syscall.Kill(rec2.SupervisorPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !proctest.Exited(t, rec2.SupervisorPID, 10*time.Second) {
		t.Fatal("the supervisor did not die of SIGKILL")
	}
	if err := syscall.Kill(rec2.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !proctest.Exited(t, rec2.PID, 10*time.Second) {
		t.Fatal("the collector did not die of SIGKILL")
	}
	if s := status(); s != "Stopped" {
		t.Errorf("query says %q after SIGKILL of collector and supervisor, want Stopped", s)
	}
	if out := perfc("logman", "query", "e2e"); !strings.Contains(out, "without a clean stop") {
		t.Errorf("query e2e does not say the collector ended without a clean stop:\n%s", out)
	}
	killed2, gaps1 := logSamples(logPath)

	// Started again, the log goes on after a second gap mark.
	perfc("logman", "start", "e2e")
	rec3, _ := pla.ReadRecord(stateDir, "e2e")
	t.Cleanup(func() { syscall.Kill(rec3.SupervisorPID, syscall.SIGKILL); syscall.Kill(rec3.PID, syscall.SIGKILL) })
	waitFor(t, "samples after the second start", 20*time.Second, func() bool { n, _ := logSamples(logPath); return n >= killed2+2 })
	if _, gaps := logSamples(logPath); len(gaps) != len(gaps1)+1 || gaps[len(gaps)-1] != killed2 {
		t.Errorf("gap marks at samples %v, want those of before (%v) and one at %d", gaps, gaps1, killed2)
	}

	// Stop waits for the collector to close its log.
	perfc("logman", "stop", "e2e")
	for _, p := range []int{rec3.PID, rec3.SupervisorPID} {
		if !proctest.Exited(t, p, 5*time.Second) {
			t.Errorf("process %d (collector %d, supervisor %d) still runs after stop returned", p, rec3.PID, rec3.SupervisorPID)
		}
	}
	if s := status(); s != "Stopped" {
		t.Errorf("query says %q after stop, want Stopped", s)
	}
	final, _ := logSamples(logPath)
	if final < killed2+2 {
		t.Errorf("%d samples after stop, want at least %d", final, killed2+2)
	}
	perfc("logman", "delete", "e2e")
	if s := status(); s != "" {
		t.Errorf("query lists e2e as %q after delete", s)
	}
}

// TestLogmanServiceScheduleReal runs the collector service for real over
// a few seconds: a set scheduled to begin 2 s from now and end 3 s later
// records in that window only.
func TestLogmanServiceScheduleReal(t *testing.T) {
	bin := buildPerfc(t)
	tmp := t.TempDir()
	stateDir := filepath.Join(tmp, "state")
	env := append(os.Environ(), "PERFC_STATE_DIR="+stateDir, "HOME="+filepath.Join(tmp, "home"), "PERFC_WARNINGS=off")
	begin := time.Now().Truncate(time.Second).Add(2 * time.Second)
	end := begin.Add(3 * time.Second)
	layout := "1/2/2006 3:04:05PM"
	create := exec.Command(bin, "logman", "create", "counter", "sched", "-c", `\Memory\Available Bytes`, "-si", "1",
		"-o", filepath.Join(tmp, "logs", "sched"), "-b", begin.Format(layout), "-e", end.Format(layout))
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	svc := exec.Command(bin, "logman", "service")
	svc.Env = env
	svc.Stdout, svc.Stderr = io.Discard, io.Discard
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		svc.Process.Signal(syscall.SIGTERM)
		svc.Wait()
	}()
	var rec *pla.Record
	waitFor(t, "the scheduled run to end", 20*time.Second, func() bool {
		rec, _ = pla.ReadRecord(stateDir, "sched")
		return rec != nil && !rec.Stopped.IsZero()
	})
	if rec.Started.Before(begin) || rec.Started.After(begin.Add(1500*time.Millisecond)) {
		t.Errorf("started at %v, want at %v", rec.Started, begin)
	}
	if rec.Stopped.Before(end) || rec.Stopped.After(end.Add(1500*time.Millisecond)) {
		t.Errorf("stopped at %v, want at %v", rec.Stopped, end)
	}
	l, err := binlog.Open(filepath.Join(tmp, "logs", "sched.plog"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Len() < 2 || l.Len() > 4 {
		t.Errorf("%d samples in a window of 3 s at 1 s, want 3 (2 to 4)", l.Len())
	}
	if svc.ProcessState != nil {
		t.Errorf("the service ended: %v", svc.ProcessState)
	}
}

// TestLogmanStartRace starts one set from two processes at the same
// moment, several times: each time exactly one start succeeds and
// exactly one collector runs, and the other start is told that the set
// is already in use (running, or being started).
func TestLogmanStartRace(t *testing.T) {
	bin := buildPerfc(t)
	tmp := t.TempDir()
	stateDir := filepath.Join(tmp, "state")
	env := append(os.Environ(), "PERFC_STATE_DIR="+stateDir, "HOME="+filepath.Join(tmp, "home"), "PERFC_WARNINGS=off")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("logman", "create", "counter", "race", "-c", `\Memory\Available Bytes`, "-si", "1", "-a", "-o", filepath.Join(tmp, "logs", "race")); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	// collectors lists the collector processes of the set.
	want := "logman\x00service\x00-run\x00race\x00-dir\x00" + stateDir + "\x00"
	collectors := func() []int {
		var pids []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.HasSuffix(string(b), want) {
				if st, _, err := (pla.Proc{}).Stat(pid); err == nil && st != 'Z' {
					pids = append(pids, pid)
				}
			}
		}
		return pids
	}
	// A start under way (its collector holds the set's run lock, and has
	// not yet written its run record) makes another start fail, with no
	// collector left behind: the test holds the lock as that start.
	lock, err := state.LockRun(stateDir, "race")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run("logman", "start", "race")
	lock.Close()
	if err == nil || !strings.Contains(out, "already in use") || !strings.Contains(out, "another start of it is under way") {
		t.Errorf("start while another start holds the run lock: %v\n%s\nwant it refused as already in use", err, out)
	}
	waitFor(t, "the refused collector to end", 10*time.Second, func() bool { return len(collectors()) == 0 })
	const rounds = 6
	for i := range rounds {
		type result struct {
			out string
			err error
		}
		res := make(chan result, 2)
		gate := make(chan struct{})
		for range 2 {
			go func() {
				<-gate
				out, err := run("logman", "start", "race")
				res <- result{out, err}
			}()
		}
		close(gate)
		a, b := <-res, <-res
		if (a.err == nil) == (b.err == nil) {
			t.Fatalf("round %d: both starts %v, %v:\n%s\n%s", i, a.err, b.err, a.out, b.out)
		}
		lost := a
		if a.err == nil {
			lost = b
		}
		if !strings.Contains(lost.out, "already in use") {
			t.Errorf("round %d: the losing start does not say the set is already in use:\n%s", i, lost.out)
		}
		rec, err := pla.ReadRecord(stateDir, "race")
		if err != nil || !(pla.Proc{}).Alive(rec) {
			t.Fatalf("round %d: record %+v, %v: no live collector", i, rec, err)
		}
		var pids []int
		waitFor(t, "the losing collector to end", 10*time.Second, func() bool {
			pids = collectors()
			return len(pids) <= 1
		})
		if len(pids) != 1 || pids[0] != rec.PID {
			t.Errorf("round %d: collector processes %v, want exactly the recorded one (%d)", i, pids, rec.PID)
		}
		if out, err := run("logman", "stop", "race"); err != nil {
			t.Fatalf("round %d: stop: %v\n%s", i, err, out)
		}
		if !proctest.Exited(t, rec.PID, 10*time.Second) {
			t.Fatalf("round %d: collector %d still runs after stop", i, rec.PID)
		}
	}
}

// TestLogmanBackgroundWarnings: the warnings of a collector started in
// the background (a counter this computer lacks) are shown by logman
// query NAME; before, the background collector dropped them.
func TestLogmanBackgroundWarnings(t *testing.T) {
	bin := buildPerfc(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "PERFC_STATE_DIR="+filepath.Join(tmp, "state"), "HOME="+filepath.Join(tmp, "home"), "PERFC_WARNINGS=off")
	perfc := perfcWith(t, bin, env)
	perfc("logman", "create", "counter", "warned", "-c", `\Memory\Available Bytes`, `\No Such Object\Whatever`, "-si", "1", "-o", filepath.Join(tmp, "logs", "warned"))
	perfc("logman", "start", "warned")
	defer perfc("logman", "stop", "warned")
	out := perfc("logman", "query", "warned")
	if !regexp.MustCompile(`(?m)^Warnings \(in .*/run/warned\.log\):\n +\S.*\\No Such Object\\Whatever`).MatchString(out) {
		t.Errorf("query warned does not show the collector's warning about the missing counter:\n%s", out)
	}
}
