package state

// Run-state files of data collector sets: the collector service records,
// for each set it runs, which process runs it (run/NAME.json), and a
// request to stop a set that a shared service process runs
// (run/NAME.stop). The files live in the state directory of the set's
// owner, so only that user (or root) may write them, and they are read
// with the same owner, mode and symbolic-link checks as the definitions.

import (
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
	if suffix != RunRecordSuffix && suffix != StopRequestSuffix {
		return "", fmt.Errorf("run-state file suffix %q: want %q or %q", suffix, RunRecordSuffix, StopRequestSuffix)
	}
	return name + suffix, nil
}

// WriteRunFile replaces the run-state file of the set name (suffix
// RunRecordSuffix or StopRequestSuffix) in the state directory path with
// data, atomically, creating the directories when missing. The caller
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
	return d.writeAt(fd, d.join(runDir), file, data)
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
