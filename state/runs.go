package state

// Run-state files of data collector sets: the collector service records,
// for each set it runs, which process runs it (run/NAME.json), and a
// request to stop a set that a shared service process runs
// (run/NAME.stop). The files live in the state directory of the set's
// owner, so only that user (or root) may write them, and they are read
// with the same owner, mode and symbolic-link checks as the definitions.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/perfcounters/perfcounters/collectorset"
	"golang.org/x/sys/unix"
)

// runDir is the directory of the run-state files.
const runDir = "run"

// Suffixes of the run-state files.
const (
	// RunRecordSuffix names the record of the process running a set.
	RunRecordSuffix = ".json"
	// StopRequestSuffix names a request to stop a set run by a shared
	// service process.
	StopRequestSuffix = ".stop"
	// WarningLogSuffix names the log of the warnings of a set's
	// collector (AppendRunLog), which `logman query NAME` shows.
	WarningLogSuffix = ".log"
	// StatusSuffix names the activity of a set's collector: an alert
	// set's alert state and events, the runs of its commands (-tn, -rc),
	// which `logman query NAME` shows.
	StatusSuffix = ".status"
	// PrivateStatusSuffix names what of the activity only the set's owner
	// and root may read (mode 0600): the command lines of its runs and
	// their output.
	PrivateStatusSuffix = ".private"
)

// openRun opens the state directory path and its run/ directory (created
// when write is true). A reader of a state directory or run/ directory
// that does not exist gets fd -1.
func openRun(path string, write bool) (*dir, int, error) {
	d, err := open(path, write)
	if err != nil || d == nil {
		return nil, -1, err
	}
	if write {
		if err := unix.Mkdirat(d.fd, runDir, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			d.close()
			return nil, -1, fileError("collector run-state directory", d.join(runDir), err)
		}
	}
	fd, err := unix.Openat(d.fd, runDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == nil:
		if err := d.checkFD(fd, "collector run-state directory", d.join(runDir), true); err != nil {
			unix.Close(fd)
			d.close()
			return nil, -1, err
		}
		if write {
			d.removeTemps(fd)
		}
		return d, fd, nil
	case errors.Is(err, unix.ENOENT) && !write:
		return d, -1, nil
	}
	d.close()
	return nil, -1, fileError("collector run-state directory", d.join(runDir), err)
}

// runFile checks a set's name and returns its run-state file name.
func runFile(name, suffix string) (string, error) {
	if err := collectorset.CheckName(name); err != nil {
		return "", err
	}
	switch suffix {
	case RunRecordSuffix, StopRequestSuffix, WarningLogSuffix, StatusSuffix, PrivateStatusSuffix:
	default:
		return "", fmt.Errorf("run-state file suffix %q: want %q, %q, %q, %q or %q", suffix, RunRecordSuffix, StopRequestSuffix, WarningLogSuffix, StatusSuffix, PrivateStatusSuffix)
	}
	return name + suffix, nil
}

// WriteRunFile replaces the run-state file of the set name in the state
// directory path with data, atomically (mode 0644, but 0600 for
// PrivateStatusSuffix), creating the directories when missing. The caller
// must be allowed to write the state directory: another user's is refused.
func WriteRunFile(path, name, suffix string, data []byte) error {
	file, err := runFile(name, suffix)
	if err != nil {
		return err
	}
	d, fd, err := openRun(path, true)
	if err != nil {
		return err
	}
	defer d.close()
	defer unix.Close(fd)
	perm := uint32(0o644)
	if suffix == PrivateStatusSuffix {
		perm = 0o600
	}
	return d.writeAtMode(fd, d.join(runDir), file, data, perm)
}

// ReadRunFile reads the run-state file of the set name, after the owner,
// mode and symbolic-link checks. A missing file (or state directory) is
// an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadRunFile(path, name, suffix string) ([]byte, error) {
	file, err := runFile(name, suffix)
	if err != nil {
		return nil, err
	}
	d, fd, err := openRun(path, false)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(path, runDir, file)
	if d == nil {
		return nil, &os.PathError{Op: "collector run-state file", Path: p, Err: fs.ErrNotExist}
	}
	defer d.close()
	if fd >= 0 {
		defer unix.Close(fd)
	}
	return d.readAt(fd, file, "collector run-state file", p)
}

// RemoveRunFile removes the run-state file of the set name; a missing
// one is no error. A symbolic link is removed itself, never followed.
func RemoveRunFile(path, name, suffix string) error {
	file, err := runFile(name, suffix)
	if err != nil {
		return err
	}
	d, fd, err := openRun(path, true)
	if err != nil {
		return err
	}
	defer d.close()
	defer unix.Close(fd)
	if err := unix.Unlinkat(fd, file, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: filepath.Join(path, runDir, file), Err: err}
	}
	return nil
}

// RunFileSuffixes are the suffixes of the run-state files a set may have
// besides its lock (RemoveRunLock): what deleting the set removes, so
// that a later set of the name starts with no record, status, warnings
// or stop request of the one before.
var RunFileSuffixes = [...]string{RunRecordSuffix, StopRequestSuffix, WarningLogSuffix, StatusSuffix, PrivateStatusSuffix}

// RunLockSuffix names the lock file of a set (run/NAME.lock): the
// collector that runs the set holds an exclusive lock on it (flock) from
// before it reads the set's run-state record until its log is closed, so
// that two collectors of one set never run at once. The kernel drops the
// lock when the collector dies, however it dies. The file is mode 0600:
// another user cannot open it, so cannot hold it to keep the set from
// starting.
const RunLockSuffix = ".lock"

// ErrCollectorSetRunning is the error of locking the run lock of a set
// whose lock another collector holds: the set is running, or another
// start of it is under way.
var ErrCollectorSetRunning = errors.New("the Data Collector Set is already running, or another start of it is under way")

// RunLock is a set's run lock, held (LockRun).
type RunLock struct {
	fd   int
	path string
}

// LockRun takes the run lock of the set name in the state directory path
// (creating run/ and the lock file when missing) without waiting: when
// another process (or another LockRun of this process) holds it, the
// error satisfies errors.Is(err, ErrCollectorSetRunning). The caller
// must be allowed to write the state directory.
func LockRun(path, name string) (*RunLock, error) {
	if err := collectorset.CheckName(name); err != nil {
		return nil, err
	}
	d, rfd, err := openRun(path, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	defer unix.Close(rfd)
	p := filepath.Join(d.path, runDir, name+RunLockSuffix)
	fd, err := unix.Openat(rfd, name+RunLockSuffix, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fileError("collector run lock file", p, err)
	}
	if err := d.checkFD(fd, "collector run lock file", p, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// A lock file others may read could be locked by them (flock needs
	// only a descriptor): it is kept private to its owner.
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err == nil && st.Mode&0o077 != 0 {
		if err := unix.Fchmod(fd, 0o600); err != nil {
			unix.Close(fd)
			return nil, &os.PathError{Op: "chmod 0600", Path: p, Err: err}
		}
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s is held by its collector)", ErrCollectorSetRunning, p)
		}
		return nil, &os.PathError{Op: "lock", Path: p, Err: err}
	}
	return &RunLock{fd: fd, path: p}, nil
}

// Close releases the lock.
func (l *RunLock) Close() error {
	if l == nil || l.fd < 0 {
		return nil
	}
	err := unix.Close(l.fd)
	l.fd = -1
	if err != nil {
		return &os.PathError{Op: "unlock", Path: l.path, Err: err}
	}
	return nil
}

// RemoveRunLock removes the lock file of the set name in the state
// directory path, holding the lock while it unlinks it, so that it never
// takes the file from a collector that runs the set: that one's error
// satisfies errors.Is(err, ErrCollectorSetRunning). No lock file is no
// error.
func RemoveRunLock(path, name string) error {
	if err := collectorset.CheckName(name); err != nil {
		return err
	}
	d, rfd, err := openRun(path, false)
	if err != nil {
		return err
	}
	if rfd < 0 {
		d.close()
		return nil
	}
	err = unix.Faccessat(rfd, name+RunLockSuffix, unix.F_OK, unix.AT_SYMLINK_NOFOLLOW)
	unix.Close(rfd)
	d.close()
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	l, err := LockRun(path, name)
	if err != nil {
		return err
	}
	defer l.Close()
	d, rfd, err = openRun(path, true)
	if err != nil {
		return err
	}
	defer d.close()
	defer unix.Close(rfd)
	if err := unix.Unlinkat(rfd, name+RunLockSuffix, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: l.path, Err: err}
	}
	return nil
}

// AppendRunLog appends lines (whole lines, each ending in '\n') to the
// warning log of the set name (run/NAME.log) in the state directory path.
// The log never passes limit bytes: when the lines would make it longer,
// its oldest whole lines are dropped (lines longer than limit keep their
// last limit bytes). The file is replaced
// atomically, so a crash leaves the old log or the new, never a torn one.
func AppendRunLog(path, name string, lines []byte, limit int) error {
	file, err := runFile(name, WarningLogSuffix)
	if err != nil {
		return err
	}
	if limit < 2 || limit > maxStateFile {
		return fmt.Errorf("warning log limit %d: want 2 to %d bytes", limit, maxStateFile)
	}
	d, fd, err := openRun(path, true)
	if err != nil {
		return err
	}
	defer d.close()
	defer unix.Close(fd)
	p := filepath.Join(path, runDir, file)
	old, err := d.readAt(fd, file, "collector warning log", p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(lines) > limit {
		lines = lines[len(lines)-limit:] // the newest, the end of a line first
	}
	if len(old)+len(lines) > limit {
		start := len(old) - min(len(old), max(0, limit-len(lines)))
		if start > 0 && old[start-1] != '\n' {
			// from the first whole line after the cut
			if i := bytes.IndexByte(old[start:], '\n'); i >= 0 {
				start += i + 1
			} else {
				start = len(old)
			}
		}
		old = old[start:]
	}
	return d.writeAt(fd, filepath.Join(path, runDir), file, append(old[:len(old):len(old)], lines...))
}

// RunFilePath is the path of the run-state file of the set name (suffix
// RunRecordSuffix, StopRequestSuffix, WarningLogSuffix or RunLockSuffix)
// in the state directory path, for messages.
func RunFilePath(path, name, suffix string) string {
	return filepath.Join(path, runDir, name+suffix)
}
