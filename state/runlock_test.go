package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
	"golang.org/x/sys/unix"
)

// TestRunLock: a set's run lock is held by one holder at a time (a
// second LockRun of the set is ErrCollectorSetRunning, another set's is
// free), is free again once closed, is kept mode 0600 even where the
// file was left readable, and a symbolic link in its place is refused.
func TestRunLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	a, err := LockRun(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if l, err := LockRun(dir, "a"); !errors.Is(err, ErrCollectorSetRunning) {
		l.Close()
		t.Errorf("second lock of a: %v, want ErrCollectorSetRunning", err)
	}
	b, err := LockRun(dir, "b")
	if err != nil {
		t.Errorf("lock of b while a is held: %v", err)
	}
	b.Close()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a2, err := LockRun(dir, "a")
	if err != nil {
		t.Errorf("lock of a after its holder closed it: %v", err)
	}
	a2.Close()

	lockPath := filepath.Join(dir, "run", "c"+RunLockSuffix)
	if err := os.WriteFile(lockPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LockRun(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if fi, err := os.Stat(lockPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file left mode 0644: now %v, %v; want 0600", fi.Mode(), err)
	}

	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "run", "d"+RunLockSuffix)); err != nil {
		t.Fatal(err)
	}
	var te *TrustError
	if l, err := LockRun(dir, "d"); !errors.As(err, &te) {
		l.Close()
		t.Errorf("lock file that is a symbolic link: %v, want a TrustError", err)
	}
	for _, name := range []string{"", "../x", "a/b"} {
		if l, err := LockRun(dir, name); err == nil {
			l.Close()
			t.Errorf("name %q accepted", name)
		}
	}
}

// TestRunLockOtherUser: Bob can neither take the run lock of Alice's set
// through her state directory nor open her lock file to hold a lock on it
// himself (flock needs only a read descriptor), so he cannot keep her set
// from starting.
func TestRunLockOtherUser(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		runLockStep(t, step)
		return
	}
	r := asuser.New(t)
	aliceDir := filepath.Join(r.SharedDir(), "alice-state")
	for _, s := range []struct {
		u    asuser.User
		step string
	}{{asuser.Alice, "alice-locks"}, {asuser.Bob, "bob-squats"}, {asuser.Alice, "alice-locks"}} {
		if out, err := r.Run(s.u, "TestRunLockOtherUser", s.step, "ALICE_DIR="+aliceDir); err != nil {
			t.Fatalf("%s, step %s: %s", s.u.Name, s.step, asuser.Failed(out, err))
		}
	}
}

func runLockStep(t *testing.T, step string) {
	dir := os.Getenv("ALICE_DIR")
	switch step {
	case "alice-locks":
		l, err := LockRun(dir, "a1")
		if err != nil {
			t.Fatalf("Alice locking her own set: %v", err)
		}
		l.Close()
	case "bob-squats":
		var te *TrustError
		if l, err := LockRun(dir, "a1"); !errors.As(err, &te) {
			l.Close()
			t.Errorf("Bob locking Alice's set through her state directory: %v, want it refused as another user's", err)
		}
		fd, err := unix.Open(filepath.Join(dir, "run", "a1"+RunLockSuffix), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			defer unix.Close(fd)
			if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
				t.Fatal("Bob holds the run lock of Alice's set")
			}
			t.Error("Bob could open Alice's run lock file")
		}
	default:
		t.Fatalf("unknown step %q", step)
	}
}
