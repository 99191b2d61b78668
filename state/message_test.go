package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTrustMessages: a symbolic link in place of a lock file is called
// a symbolic link (not a directory), a file in place of a directory is
// not a directory, and the hint for another user's state directory does
// not tell anyone (root included) to chown it.
func TestTrustMessages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	l, err := LockRun(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "run", "b"+RunLockSuffix)); err != nil {
		t.Fatal(err)
	}
	_, err = LockRun(dir, "b")
	var te *TrustError
	if !errors.As(err, &te) || te.Reason != "is a symbolic link" {
		t.Errorf("run lock file that is a symbolic link: %v, want it called a symbolic link", err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = unix.Open(notDir, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0)
	if err := fileError("state directory", notDir, err); !errors.As(err, &te) || te.Reason != "is not a directory" {
		t.Errorf("a file in place of a directory: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	_, err = unix.Open(link, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0)
	if err := fileError("state directory", link, err); !errors.As(err, &te) || te.Reason != "is a symbolic link" {
		t.Errorf("a link in place of a directory: %v", err)
	}
	for _, wantDir := range []bool{true, false} {
		st := unix.Stat_t{Uid: 61001, Mode: unix.S_IFREG | 0o600}
		if wantDir {
			st.Mode = unix.S_IFDIR | 0o700
		}
		for _, euid := range []int{0, 61002} {
			err := checkStat("state directory", "/home/alice/.local/state/perfc", &st, wantDir, euid)
			if err == nil || strings.Contains(err.Error(), "chown") {
				t.Errorf("euid %d, directory %v: %v, want refused without a chown hint", euid, wantDir, err)
			}
			if wantDir && !strings.Contains(err.Error(), "PERFC_STATE_DIR") {
				t.Errorf("euid %d: %v, want the hint to name PERFC_STATE_DIR", euid, err)
			}
		}
	}
}
