// Package shmtest gives tests a private base directory for shared-memory
// segments on tmpfs, removed when the test ends, and skips a test where no
// tmpfs is mounted at /dev/shm. Only test code imports it.
package shmtest

import (
	"os"
	"testing"

	"github.com/perfcounters/perfcounters/shm"
)

// Dir returns a fresh directory under /dev/shm, mode 0700 and owned by the
// caller (a base directory providers and consumers trust), or skips the
// test when /dev/shm is not memory-backed or not writable.
func Dir(t testing.TB) string {
	t.Helper()
	if err := shm.CheckDir("/dev/shm"); err != nil {
		t.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	d, err := os.MkdirTemp("/dev/shm", "perfc-test-")
	if err != nil {
		t.Skipf("cannot use /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}
