package state

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/asuser"
	"golang.org/x/sys/unix"
)

// TestStateLockOtherUser: another user can read root's system sets but
// cannot open root's state lock file, so he cannot hold a lock on it that
// would keep root's writers waiting forever; a lock file an older version
// left readable is closed to others at root's next write.
func TestStateLockOtherUser(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		stateLockStep(t, step)
		return
	}
	r := asuser.New(t)
	sys := filepath.Join(r.SharedDir(), "system-state")
	s := collectorset.New("System Performance", "/var/log/perfc")
	s.Collector.Counters = []string{`\Memory\Available Bytes`}
	if err := CreateCollectorSet(sys, s, false); err != nil {
		t.Fatal(err)
	}
	// An older version's lock file, readable by all: the next write
	// closes it.
	if err := os.Chmod(filepath.Join(sys, lockFile), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := collectorset.New("Second", "/var/log/perfc")
	s2.Collector.Counters = []string{`\Memory\Available Bytes`}
	if err := CreateCollectorSet(sys, s2, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(sys, lockFile))
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Fatalf("state lock file mode %v after a write, want 0600", m)
	}
	if out, err := r.Run(asuser.Bob, "TestStateLockOtherUser", "bob-reads", "SYS_DIR="+sys); err != nil {
		t.Fatalf("bob: %s", asuser.Failed(out, err))
	}
}

func stateLockStep(t *testing.T, step string) {
	dir := os.Getenv("SYS_DIR")
	switch step {
	case "bob-reads":
		cs, err := ReadCollectorSets(dir)
		if err != nil {
			t.Fatalf("Bob reading the system sets: %v", err)
		}
		if len(cs.Sets) != 2 {
			t.Errorf("Bob sees %d system sets, want 2", len(cs.Sets))
		}
		fd, err := unix.Open(filepath.Join(dir, lockFile), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
			t.Error("Bob could open root's state lock file (and hold a lock on it)")
		}
	default:
		t.Fatalf("unknown step %q", step)
	}
}
