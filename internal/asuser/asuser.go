// Package asuser lets a test run parts of itself as other, unprivileged
// users, so that the permission checks of a multi-user host (segments, the
// state directory, /proc files) are tested as two different users even when
// the test suite runs as root, as CI does.
//
// A test re-executes its own test binary under another uid and gid with
// [Runner.Run]; the child process finds the step it must play with [Step]:
//
//	func TestSquat(t *testing.T) {
//		if step, ok := asuser.Step(); ok {
//			runSquatStep(step) // as the other user; exit status tells the parent
//			return
//		}
//		r := asuser.New(t) // skips unless the test can switch users (root)
//		dir := r.SharedDir() // a directory both users may enter
//		out, err := r.Run(asuser.Alice, "TestSquat", "squat", "DIR="+dir)
//		...
//	}
//
// Only test code imports this package.
package asuser

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// User is an unprivileged identity a test may run as. The uids need no
// entry in /etc/passwd: the kernel only needs the numbers.
type User struct {
	Name string
	UID  uint32
	GID  uint32
}

// The two unprivileged users of the multi-user tests, in distinct groups,
// neither of which is root's group.
var (
	Alice = User{Name: "alice", UID: 61001, GID: 61001}
	Bob   = User{Name: "bob", UID: 61002, GID: 61002}
)

// stepEnv names the environment variable that carries the step name to a
// re-executed test binary.
const stepEnv = "PERFC_ASUSER_STEP"

// Step reports the step this process was started to play by Runner.Run,
// and whether it was started so at all. A test that finds ok true does the
// step's work as the current (unprivileged) user and returns; a failing
// step calls t.Fatal (or exits non-zero) so the parent sees the failure.
func Step() (step string, ok bool) {
	s, ok := os.LookupEnv(stepEnv)
	return s, ok
}

// Runner re-executes the current test binary as other users.
type Runner struct {
	t      testing.TB
	bin    string // a copy of the test binary every user may execute
	shared string // a directory every user may enter and create files in
}

// New returns a Runner, or skips the test when this process cannot switch
// users (it is not root). The test binary is copied into a directory every
// user can execute from: go test builds it under a 0700 directory.
func New(t testing.TB) *Runner {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("asuser: switching to unprivileged users needs root (CI runs as root)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("asuser: own executable: %v", err)
	}
	base, err := os.MkdirTemp("", "perfc-asuser-")
	if err != nil {
		t.Fatalf("asuser: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatalf("asuser: %v", err)
	}
	bin := filepath.Join(base, filepath.Base(self))
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatalf("asuser: copying the test binary: %v", err)
	}
	shared := filepath.Join(base, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatalf("asuser: %v", err)
	}
	// Sticky and world-writable, as /tmp: each user may create entries and
	// only remove its own.
	if err := os.Chmod(shared, os.ModeSticky|0o777); err != nil {
		t.Fatalf("asuser: %v", err)
	}
	return &Runner{t: t, bin: bin, shared: shared}
}

// SharedDir is a sticky, world-writable directory (mode 1777, as /tmp) that
// both users and root may use for the test's files.
func (r *Runner) SharedDir() string { return r.shared }

// Own makes path (and, for a directory, nothing below it) owned by u, as if
// u had created it.
func (r *Runner) Own(path string, u User) {
	r.t.Helper()
	if err := os.Lchown(path, int(u.UID), int(u.GID)); err != nil {
		r.t.Fatalf("asuser: chown %s to %s: %v", path, u.Name, err)
	}
}

// Run starts the test binary as u, running only the test named test (a
// top-level test name) with the step given, and extra environment entries
// (KEY=VALUE). It returns the child's combined output and its error (an
// *exec.ExitError when the step failed).
func (r *Runner) Run(u User, test, step string, env ...string) (string, error) {
	r.t.Helper()
	cmd := r.Command(u, test, step, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Command is Run's command, not yet started, for steps that must run in the
// background (a provider that holds a segment while the other user acts).
func (r *Runner) Command(u User, test, step string, env ...string) *exec.Cmd {
	cmd := exec.Command(r.bin, "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Dir = r.shared
	cmd.Env = append(childEnv(u), stepEnv+"="+step)
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{
		Uid: u.UID, Gid: u.GID, Groups: []uint32{},
	}}
	return cmd
}

// childEnv is a minimal environment for u: no root HOME, a TMPDIR every
// user may write, and the PATH kept.
func childEnv(u User) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/nonexistent",
		"USER=" + u.Name,
		"LOGNAME=" + u.Name,
		"TMPDIR=" + os.TempDir(),
		"XDG_STATE_HOME=/nonexistent/.local/state",
	}
	for _, k := range []string{"GOCOVERDIR", "PERFC_SHM_DIR", "PERFC_STATE_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Failed reports a child's failure with its output, for t.Fatalf.
func Failed(out string, err error) string {
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return fmt.Sprintf("exit %s: %v\n%s", strconv.Itoa(code), err, strings.TrimSpace(out))
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
