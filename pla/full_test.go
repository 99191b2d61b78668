package pla

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/perflog/binlog"
)

const fullEnv = "PERFC_PLA_TEST_FULL_DIR"

// fileLimit is the file size limit (RLIMIT_FSIZE) of the disk-full child.
const fileLimit = 48 << 10

// TestDiskFull runs a set in a child process whose files may not grow
// past fileLimit (as a full disk: the write fails): the set stops with
// the reason recorded, and its log reads back to its last whole sample.
func TestDiskFull(t *testing.T) {
	if dir := os.Getenv(fullEnv); dir != "" {
		diskFullChild(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiskFull$", "-test.count=1")
	cmd.Env = append(os.Environ(), fullEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	rec, err := ReadRecord(filepath.Join(dir, "state"), "full")
	if err != nil || rec == nil {
		t.Fatalf("record %v, %v", rec, err)
	}
	if rec.Stopped.IsZero() || !strings.Contains(rec.Reason, "writing the log failed") || !strings.Contains(rec.Reason, "file too large") {
		t.Errorf("record says stopped %v because %q; want the write failure (file too large)", rec.Stopped, rec.Reason)
	}
	path := filepath.Join(dir, "logs", "full.plog")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > fileLimit {
		t.Errorf("log of %d bytes, past the limit of %d", fi.Size(), fileLimit)
	}
	n, _ := logLen(t, path)
	if n < 10 {
		t.Errorf("%d samples read back, want the ones written before the disk was full", n)
	}
	// The record that did not fit was cut off: the file ends with the
	// last whole one, and a reader has nothing to say about it.
	l, err := binlog.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if notes := l.Notes(); len(notes) > 0 {
		t.Errorf("the log after the failed write: %q", notes)
	}
}

func diskFullChild(t *testing.T, dir string) {
	signal.Ignore(syscall.SIGXFSZ)
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: fileLimit, Max: fileLimit}); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		set := newSet("full", filepath.Join(dir, "logs"))
		svc := NewService(t.Context(), testOptions(newFakeSource(20)))
		sd := filepath.Join(dir, "state")
		if err := svc.Start(sd, set, time.Time{}); err != nil {
			t.Fatal(err)
		}
		done, reason := svc.Done(sd, set.Name)
		<-done
		svc.Wait()
		fmt.Println("stopped:", reason())
	})
}
