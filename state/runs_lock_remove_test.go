package state

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

// TestRemoveRunLock: a set's lock file is removed only while nobody holds
// it; a held lock (its set runs) is an ErrCollectorSetRunning and stays;
// no lock file is no error.
func TestRemoveRunLock(t *testing.T) {
	dir := t.TempDir()
	path := RunFilePath(dir, "s", RunLockSuffix)
	if err := RemoveRunLock(dir, "s"); err != nil {
		t.Fatalf("no state directory yet: %v", err)
	}
	held, err := LockRun(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveRunLock(dir, "s"); !errors.Is(err, ErrCollectorSetRunning) {
		t.Errorf("held lock: %v, want ErrCollectorSetRunning", err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("a held lock's file was removed: %v", err)
	}
	held.Close()
	if err := RemoveRunLock(dir, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after RemoveRunLock: %v, want none", err)
	}
	if err := RemoveRunLock(dir, "s"); err != nil {
		t.Errorf("no lock file: %v", err)
	}
	if err := RemoveRunLock(dir, "../x"); err == nil {
		t.Error("a name with a path was accepted")
	}
}
