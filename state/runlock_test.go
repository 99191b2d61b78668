package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestAppendRunLog: the warning log keeps the newest whole lines within
// its limit, whatever the lengths of the lines appended; every state of
// it is a run of whole lines ending with the newest.
func TestAppendRunLog(t *testing.T) {
	cases := []struct {
		name  string
		limit int
		lines []string
		want  string
	}{
		{"fits", 100, []string{"a\n", "bb\n"}, "a\nbb\n"},
		{"exactly the limit", 6, []string{"ab\n", "cd\n"}, "ab\ncd\n"},
		{"oldest dropped", 6, []string{"ab\n", "cd\n", "ef\n"}, "cd\nef\n"},
		{"a cut line is dropped whole", 7, []string{"abcd\n", "ef\n", "g\n"}, "ef\ng\n"},
		{"several lines at once", 8, []string{"a\n", "b\nc\nd\n"}, "a\nb\nc\nd\n"},
		{"a line longer than the limit keeps its end", 4, []string{"x\n", "abcdefg\n"}, "efg\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			for _, l := range tc.lines {
				if err := AppendRunLog(dir, "s", []byte(l), tc.limit); err != nil {
					t.Fatal(err)
				}
			}
			b, err := ReadRunFile(dir, "s", WarningLogSuffix)
			if err != nil || string(b) != tc.want {
				t.Errorf("log %q, %v; want %q", b, err, tc.want)
			}
		})
	}
	// Many lines of many lengths: each state is a suffix of all that was
	// written, of whole lines, within the limit, ending with the newest.
	dir := filepath.Join(t.TempDir(), "state")
	const limit = 200
	var all []byte
	for i := range 300 {
		line := []byte(fmt.Sprintf("%d %s\n", i, strings.Repeat("x", i*7%90)))
		all = append(all, line...)
		if err := AppendRunLog(dir, "s", line, limit); err != nil {
			t.Fatal(err)
		}
		b, err := ReadRunFile(dir, "s", WarningLogSuffix)
		if err != nil {
			t.Fatal(err)
		}
		start := len(all) - len(b)
		if len(b) > limit || !bytes.HasSuffix(all, b) || !bytes.HasSuffix(b, line) || (start > 0 && all[start-1] != '\n') {
			t.Fatalf("after line %d: log %q is not the newest whole lines within %d bytes", i, b, limit)
		}
		// No whole older line that would have fit was dropped.
		if prev := bytes.LastIndexByte(all[:max(start-1, 0)], '\n'); start > 0 && len(all)-(prev+1) <= limit {
			t.Fatalf("after line %d: %d bytes kept, but %d would fit", i, len(b), len(all)-(prev+1))
		}
	}
	if err := AppendRunLog(dir, "s", []byte("x\n"), maxStateFile+1); err == nil {
		t.Error("a limit past the state file bound accepted")
	}
}
